/* The callgrind view: one cost line per instruction row, grouped by object, file and function as
 * the format wants (fl= before fn=, names repeated only when they change), and after a call site's
 * line the calls it made (cfn=, calls=) with the inclusive cost they carry. Events: executions,
 * the model's cycles (by retirement, rounded), critical-path instances, data accesses served
 * beyond the first level and by memory, mispredictions. */
#include "view_callgrind.h"
#include "alloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *or_unknown(const char *s) { return s ? s : "???"; }

static bool same(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* A name on one line: the format has no escapes, so line breaks (and every control byte) become
 * spaces. */
static void one_line(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
}

static void name(FILE *out, const char *key, const char *s)
{
    fputs(key, out);
    one_line(out, s);
    fputc('\n', out);
}

/* A word of the command line after a space: as it was given, but on one line. */
static void word(FILE *out, const char *s)
{
    fputc(' ', out);
    one_line(out, s);
}

static void function_name(FILE *out, const struct result_row *row)
{
    if (row->function) {
        name(out, "fn=", row->function);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%#llx", (unsigned long long)(row->pc & ~0xfffull));
    fputs("fn=", out);
    fputs(or_unknown(row->module), out);
    fprintf(out, "@%s\n", buf);
}

static void header(FILE *out, const struct result *r)
{
    uint64_t ir = 0, crit = 0, l1 = 0, ll = 0, bm = 0;
    double cycles = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->module)
            continue;
        ir += row->executions, crit += row->crit, l1 += row->l1_misses, ll += row->ll_misses;
        bm += row->mispredicts, cycles += round(row->cycles);
    }
    fputs("# callgrind format\nversion: 1\ncreator: mdlsim\n", out);
    fprintf(out, "cmd: mdlsim %s --machine %s", r->command, r->m->name);
    if (r->scope_name)
        fprintf(out, " --roi %s", r->scope_name);
    if (r->program) {
        fputs(" --", out);
        word(out, r->program);
        for (char *const *a = r->program_args; a && *a; a++)
            word(out, *a);
    }
    fputc('\n', out);
    /* callgrind_annotate (3.19) takes "event:" long names for malformed lines: they are comments */
    fputs("# Ir: instructions executed; Cycles: predicted cycles (by retirement); Crit: instances on the\n"
          "# critical path; L1m: data accesses beyond the first level; LLm: served by memory; Bm: mispredicted\n"
          "positions: line\nevents: Ir Cycles Crit L1m LLm Bm\n", out);
    fprintf(out, "summary: %llu %.0f %llu %llu %llu %llu\n\n", (unsigned long long)ir, cycles,
            (unsigned long long)crit, (unsigned long long)l1, (unsigned long long)ll, (unsigned long long)bm);
}

static int by_site_row(const void *a, const void *b, void *ctx)
{
    const struct result_call *calls = ctx, *x = &calls[*(const size_t *)a], *y = &calls[*(const size_t *)b];
    return x->site_row < y->site_row ? -1 : x->site_row > y->site_row;
}

/* The calls made from ROW: the function reached, how often, and the inclusive cost they carry. */
static void call_lines(FILE *out, const struct result *r, const struct result_row *row, const size_t *order,
                       size_t *next)
{
    size_t i = (size_t)(row - r->rows);
    for (; *next < r->n_calls && r->calls[order[*next]].site_row == i; (*next)++) {
        const struct result_call *c = &r->calls[order[*next]];
        if (c->callee == SIZE_MAX || c->caller == SIZE_MAX)
            continue;
        const struct result_function *g = &r->functions[c->callee];
        const struct result_row *entry = &r->rows[g->first_row];
        if (!same(entry->module, row->module))
            name(out, "cob=", or_unknown(entry->module));
        name(out, "cfi=", or_unknown(entry->file));
        name(out, "cfn=", or_unknown(g->name));
        fprintf(out, "calls=%llu %u\n%u", (unsigned long long)c->count, entry->line, row->line);
        for (int e = 0; e < RESULT_EVENTS; e++)
            fprintf(out, " %.0f", round(c->incl[e]));
        fputc('\n', out);
    }
}

bool view_callgrind(FILE *out, const struct result *r)
{
    header(out, r);
    size_t *order = alloc_zeroed(r->n_calls + 1, sizeof *order), next = 0;
    for (size_t i = 0; i < r->n_calls; i++)
        order[i] = i;
    qsort_r(order, r->n_calls, sizeof *order, by_site_row, r->calls);
    while (next < r->n_calls && r->calls[order[next]].site_row == SIZE_MAX)
        next++;
    const struct result_row *prev = NULL;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->module || !row->executions)
            continue;
        bool module = !prev || !same(prev->module, row->module);
        bool function = module || !same(prev->function, row->function) || (!row->function && !same(prev->file, row->file));
        if (module)
            name(out, "ob=", row->module);
        if (function) {
            name(out, "fl=", or_unknown(row->file));
            function_name(out, row);
        } else if (!same(prev->file, row->file)) {
            name(out, "fi=", or_unknown(row->file));    /* code inlined from another file */
        }
        fprintf(out, "%u %llu %.0f %llu %llu %llu %llu\n", row->line, (unsigned long long)row->executions,
                round(row->cycles), (unsigned long long)row->crit, (unsigned long long)row->l1_misses,
                (unsigned long long)row->ll_misses, (unsigned long long)row->mispredicts);
        while (next < r->n_calls && r->calls[order[next]].site_row < i)
            next++;
        call_lines(out, r, row, order, &next);
        prev = row;
    }
    free(order);
    return !ferror(out);
}
