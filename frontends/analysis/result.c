/* The analysis result's storage: rows and resource uses in arrays that grow and are kept from
 * one analysis to the next (a thread analyses thousands of blocks with one result). */
#include "result.h"
#include "alloc.h"
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
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

void result_row_from_insn(struct result *r, struct result_row *row, const struct rt_insn *in)
{
    const struct mdl_machine *m = r->m;
    const struct mdl_template *t = &m->templates[in->tmpl];
    row->pc = in->pc;
    row->len = in->len < sizeof row->bytes ? in->len : sizeof row->bytes;
    memcpy(row->bytes, in->bytes, row->len);
    row->disasm = in->disasm;
    row->key = in->key;
    row->form = t->name;
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
