/* The analysis result's storage: rows and resource uses in arrays that grow and are kept from
 * one analysis to the next (a thread analyses thousands of blocks with one result). */
#include "result.h"
#include "alloc.h"
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "formkey.h"
#include "insn.h"

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    *cap = n;
    return alloc_resize(p, n, size);
}

void result_reset(struct result *r, const struct mdl_machine *m)
{
    memset(r, 0, offsetof(struct result, rows));
    r->m = m;
    r->iterations = 1;
    r->exit_code = r->killed_by = -1;
}

void result_free(struct result *r)
{
    free(r->rows);
    free(r->uses);
    free(r->critical);
    free(r->hot);
    free(r->functions);
    free(r->calls);
    free(r->lines);
    free(r->busy);
    free(r->robust);
    memset(r, 0, sizeof *r);
}

struct result_row *result_add_row(struct result *r)
{
    r->rows = grow(r->rows, &r->cap_rows, r->n_rows + 1, sizeof *r->rows);
    struct result_row *row = &r->rows[r->n_rows];
    memset(row, 0, sizeof *row);
    row->index = (unsigned)r->n_rows++;
    row->use_first = r->n_uses;
    return row;
}

void result_add_use(struct result *r, struct result_row *row, unsigned resource, double cost)
{
    r->uses = grow(r->uses, &r->cap_uses, r->n_uses + 1, sizeof *r->uses);
    r->uses[r->n_uses++] = (struct result_use){ resource, cost, 0 };
    row->use_count++;
}

/* Half K of a key ("CMP (R64, R64) ++ JNZ (Rel8)") in BUF. */
static const char *key_half(const char *key, unsigned k, char *buf, size_t size)
{
    const char *sep = strstr(key, " ++ ");
    if (k)
        snprintf(buf, size, "%s", sep ? sep + 4 : "");
    else
        snprintf(buf, size, "%.*s", sep ? (int)(sep - key) : (int)strlen(key), key);
    return buf;
}

/* How ENTRY stands for the instruction whose key is KEY (ALT: its other spelling, or ""). */
static uint8_t match_of(const struct mdl_machine *m, const char *entry, const char *key, const char *alt)
{
    const char *family = formkey_cond_family((enum mdl_isa)m->isa);
    size_t ek = strcspn(entry, " "), kk = strcspn(key, " ");
    if (family && strncmp(entry, family, ek) == 0 && strlen(family) == ek)
        return RESULT_MATCH_CONDITIONS;
    bool variant = ek > kk && strncmp(entry, key, kk) == 0 && entry[kk] == '_' && strcmp(entry + ek, key + kk) == 0;
    return strcmp(entry, key) == 0 || strcmp(entry, alt) == 0 || variant ? RESULT_MATCH_FORM : RESULT_MATCH_NEAREST;
}

/* The entries IN's keys found and how they stand for it, and how many conditions its fusion rule
 * times alike: the rule's second instructions when it is a branch that the rule times as another
 * entry than its own. */
static void result_row_forms(const struct mdl_machine *m, struct result_row *row, const struct rt_insn *in)
{
    for (unsigned k = 0; k < 2; k++) {
        char half[sizeof in->key];
        row->form[k] = !in->unknown && in->form[k] < m->n_templates ? m->templates[in->form[k]].name : NULL;
        if (row->form[k])
            row->match[k] = match_of(m, row->form[k], key_half(in->key, k, half, sizeof half), k ? "" : in->alt_key);
    }
    const struct mdl_replace *r = in->rule < m->n_replaces ? &m->replaces[in->rule] : NULL;
    if (r && r->pair && in->branch == RT_BR_COND && in->tmpl != in->form[1] && r->second_count > 1)
        row->conditions = r->second_count;
}

void result_row_from_insn(struct result *r, struct result_row *row, const struct rt_insn *in)
{
    const struct mdl_machine *m = r->m;
    const struct mdl_template *t = &m->templates[in->tmpl];
    row->pc = in->pc;
    row->len = in->len < sizeof row->bytes ? in->len : sizeof row->bytes;
    memcpy(row->bytes, in->bytes, row->len);
    row->disasm = in->disasm;
    row->key = in->key;
    row->tmpl = t->name;
    result_row_forms(m, row, in);
    row->latency_min = t->latency_min;
    row->latency_max = t->latency_max;
    row->uops = t->uops_fused;
    row->class_default = in->unknown;
    row->eliminated = in->eliminated;
    for (unsigned k = 0; !in->eliminated && k < t->use_count; k++)
        result_add_use(r, row, m->uses[t->use_first + k].resource, m->uses[t->use_first + k].cost);
    double serial = in->eliminated ? 0 : rt_serial_cost(m, t, in);
    if (serial > 0)
        result_add_use(r, row, m->n_resources, serial);
}

const char *result_row_form(const struct result_row *row, char *buf, size_t size)
{
    char half[2][RESULT_LABEL];
    if (!row->form[0])
        return NULL;
    for (unsigned k = 0; k < 2; k++)
        if (row->form[k] && row->match[k] == RESULT_MATCH_FORM)
            snprintf(half[k], sizeof half[k], "%s", row->form[k]);
        else
            key_half(row->key, k, half[k], sizeof half[k]);
    snprintf(buf, size, "%s%s%s", half[0], row->form[1] ? " + " : "", row->form[1] ? half[1] : "");
    return buf;
}

/* Why the row's timing comes from TMPL and not from an entry of its form (a fusion rule that
 * gives one entry to many conditions is said with their number). */
static const char *timed_as_why(const struct result_row *row)
{
    if (row->form[1])
        return "the entry the description's fusion rule gives the pair";
    if (strcmp(row->form[0], row->tmpl) != 0)
        return "the entry a replace rule of the description gives it";
    if (row->match[0] == RESULT_MATCH_CONDITIONS)
        return "the description's one entry for every condition";
    if (!strchr(row->form[0], '('))
        return "the description's one entry for every form of the instruction";
    return "the nearest entry of the description, which has none of this form";
}

bool result_row_timed_as(const struct result_row *row, char *buf, size_t size)
{
    if (!row->form[0] || row->eliminated ||
        (!row->form[1] && row->match[0] == RESULT_MATCH_FORM && strcmp(row->form[0], row->tmpl) == 0))
        return false;
    if (row->conditions)
        snprintf(buf, size, "timed as %s, the one entry the description's fusion rule gives the %u conditions it fuses",
                 row->tmpl, row->conditions);
    else
        snprintf(buf, size, "timed as %s, %s", row->tmpl, timed_as_why(row));
    return true;
}

void result_add_call(struct result *r, uint64_t site, uint64_t callee, uint64_t count)
{
    r->calls = grow(r->calls, &r->cap_calls, r->n_calls + 1, sizeof *r->calls);
    r->calls[r->n_calls++] = (struct result_call){ .site = site, .callee_lo = callee, .count = count };
}

const char *result_resource_name(const struct result *r, unsigned resource)
{
    if (resource < r->m->n_resources)
        return r->m->resources[resource].name;
    return resource == r->m->n_resources ? rt_knob_name(RT_KNOB_SERIAL) : "?";
}

char *result_printable(char *s)
{
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return s;
}

bool result_same_function(const struct result_row *a, const struct result_row *b)
{
    bool fa = a->function != NULL, fb = b->function != NULL;
    if (fa != fb || !(a->module == b->module || (a->module && b->module && !strcmp(a->module, b->module))))
        return false;
    return fa ? !strcmp(a->function, b->function) : a->pc - a->fn_offset == b->pc - b->fn_offset;
}

char *result_unnamed(const struct result_row *row, bool start, char *buf, size_t len)
{
    uint64_t back = start ? row->fn_offset : 0;
    if (row->in_object)
        snprintf(buf, len, "%s+%#llx", row->module, (unsigned long long)(row->address - back));
    else
        snprintf(buf, len, "%s@%#llx", row->module, (unsigned long long)(row->pc - back));
    return result_printable(buf);
}
