/* The callgrind view: one cost line per instruction row, grouped by object, file and function as
 * the format wants (fl= before fn=, names repeated only when they change), and after a call site's
 * line the calls it made (cfn=, calls=) with the inclusive cost they carry. Events: executions,
 * the model's cycles (by retirement, in whole cycles that add up), critical-path instances, data
 * accesses served beyond the first level and by memory, mispredictions. */
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

/* KEY ("fn=", "cfn=") and the name of the function of ROW: its symbol's, or where objdump -d
 * of its module shows the start guessed for it ("prog+0x1139"). */
static void function_name(FILE *out, const char *key, const struct result_row *row)
{
    char buf[320];
    name(out, key, row->function ? row->function : result_unnamed(row, true, buf, sizeof buf));
}

/* A row the file writes: one with a module, executed. */
static bool written(const struct result_row *row) { return row->module && row->executions; }

/* ---- the costs as the file writes them: whole numbers that add up ------------------------------
 * callgrind_annotate --inclusive=yes and KCachegrind take a function's inclusive cost as the sum of
 * the calls it receives, and its self cost as the sum of its lines. Rounded one by one, the calls
 * could add to less than the lines: so the rows' cycles are rounded by their running sum (the lines
 * add to the total rounded once, as the text view prints it: rint rounds half to even, as printf
 * does), and the calls into a function share out their inclusive cost rounded once, never below
 * what its lines add to. */
struct cg {
    double *row_cycles;             /* [n_rows]: each row's cycles as written */
    double *self;                   /* [n_functions][RESULT_EVENTS]: each function's lines summed */
    double *call;                   /* [n_calls][RESULT_EVENTS]: each call's inclusive cost as written */
    size_t *order, n;               /* the N calls the file writes (by callee, then by site row) */
};

static int by_first_row(const void *a, const void *b, void *ctx)
{
    const struct result_function *fns = ctx, *x = &fns[*(const size_t *)a], *y = &fns[*(const size_t *)b];
    return x->first_row < y->first_row ? -1 : x->first_row > y->first_row;
}

/* The rows' cycles as written, and each function's lines summed (a function's rows are those from
 * its first to the next function's). */
static void cg_rows(const struct result *r, struct cg *cg)
{
    size_t *fns = alloc_resize(NULL, r->n_functions + 1, sizeof *fns), k = 0;
    for (size_t f = 0; f < r->n_functions; f++)
        fns[f] = f;
    qsort_r(fns, r->n_functions, sizeof *fns, by_first_row, r->functions);
    double sum = 0, written_sum = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!written(row))
            continue;
        sum += row->cycles;
        cg->row_cycles[i] = rint(sum) - written_sum;
        written_sum = rint(sum);
        while (k + 1 < r->n_functions && r->functions[fns[k + 1]].first_row <= i)
            k++;
        if (k >= r->n_functions || r->functions[fns[k]].first_row > i)
            continue;
        double *self = &cg->self[fns[k] * RESULT_EVENTS];
        self[RESULT_EV_IR] += (double)row->executions, self[RESULT_EV_CYCLES] += cg->row_cycles[i];
        self[RESULT_EV_CRIT] += (double)row->crit, self[RESULT_EV_L1M] += (double)row->l1_misses;
        self[RESULT_EV_LLM] += (double)row->ll_misses, self[RESULT_EV_BM] += (double)row->mispredicts;
    }
    free(fns);
}

/* A call the file writes: from a row it writes, to a function it names. */
static bool call_written(const struct result *r, const struct result_call *c)
{
    return c->callee != SIZE_MAX && c->site_row != SIZE_MAX && written(&r->rows[c->site_row]);
}

static int by_callee(const void *a, const void *b, void *ctx)
{
    const struct result_call *calls = ctx, *x = &calls[*(const size_t *)a], *y = &calls[*(const size_t *)b];
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    return x->site_row < y->site_row ? -1 : x->site_row > y->site_row;
}

/* Event E of the calls ORDER[FROM..TO) into one function: their inclusive costs summed, rounded
 * once and at least SELF, shared out by a running sum (by their counts when they carry nothing). */
static void cg_share(const struct result *r, struct cg *cg, size_t from, size_t to, int e, double self)
{
    double weight = 0, count = 0;
    for (size_t j = from; j < to; j++) {
        weight += r->calls[cg->order[j]].incl[e];
        count += (double)r->calls[cg->order[j]].count;
    }
    double total = fmax(rint(weight), self), sum = 0, before = 0;
    for (size_t j = from; j < to; j++) {
        const struct result_call *c = &r->calls[cg->order[j]];
        sum += total * (weight > 0 ? c->incl[e] / weight : (double)c->count / count);
        double upto = j + 1 == to ? total : fmin(rint(sum), total);
        cg->call[cg->order[j] * RESULT_EVENTS + e] = upto - before;
        before = upto;
    }
}

/* The calls' inclusive costs as written, the calls into each function together. */
static void cg_calls(const struct result *r, struct cg *cg)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_calls; i++)
        if (call_written(r, &r->calls[i]))
            cg->order[n++] = i;
    cg->n = n;
    qsort_r(cg->order, n, sizeof *cg->order, by_callee, r->calls);
    for (size_t from = 0, to; from < n; from = to) {
        size_t g = r->calls[cg->order[from]].callee;
        for (to = from + 1; to < n && r->calls[cg->order[to]].callee == g; to++)
            ;
        for (int e = 0; e < RESULT_EVENTS; e++)
            cg_share(r, cg, from, to, e, cg->self[g * RESULT_EVENTS + e]);
    }
}

static void cg_free(struct cg *cg)
{
    free(cg->row_cycles);
    free(cg->self);
    free(cg->call);
    free(cg->order);
}

static void cg_costs(const struct result *r, struct cg *cg)
{
    *cg = (struct cg){ alloc_zeroed(r->n_rows + 1, sizeof *cg->row_cycles),
                       alloc_zeroed((r->n_functions + 1) * RESULT_EVENTS, sizeof *cg->self),
                       alloc_zeroed((r->n_calls + 1) * RESULT_EVENTS, sizeof *cg->call),
                       alloc_zeroed(r->n_calls + 1, sizeof *cg->order), 0 };
    cg_rows(r, cg);
    cg_calls(r, cg);
}

/* ---- the file --------------------------------------------------------------------------------- */

static void header(FILE *out, const struct result *r, const struct cg *cg)
{
    uint64_t ir = 0, crit = 0, l1 = 0, ll = 0, bm = 0;
    double cycles = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!written(row))
            continue;
        ir += row->executions, crit += row->crit, l1 += row->l1_misses, ll += row->ll_misses;
        bm += row->mispredicts, cycles += cg->row_cycles[i];
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

/* The calls made from ROW (the written calls by site row from NEXT on): the function reached, how
 * often, and the inclusive cost they carry. */
static void call_lines(FILE *out, const struct result *r, const struct result_row *row, const struct cg *cg,
                       size_t *next)
{
    size_t i = (size_t)(row - r->rows);
    for (; *next < cg->n && r->calls[cg->order[*next]].site_row == i; (*next)++) {
        size_t k = cg->order[*next];
        const struct result_function *g = &r->functions[r->calls[k].callee];
        const struct result_row *entry = &r->rows[g->first_row];
        if (!same(entry->module, row->module))
            name(out, "cob=", or_unknown(entry->module));
        name(out, "cfi=", or_unknown(entry->file));
        function_name(out, "cfn=", entry);
        fprintf(out, "calls=%llu %u\n%u", (unsigned long long)r->calls[k].count, entry->line, row->line);
        for (int e = 0; e < RESULT_EVENTS; e++)
            fprintf(out, " %.0f", cg->call[k * RESULT_EVENTS + e]);
        fputc('\n', out);
    }
}

bool view_callgrind(FILE *out, const struct result *r)
{
    struct cg cg;
    cg_costs(r, &cg);
    header(out, r, &cg);
    qsort_r(cg.order, cg.n, sizeof *cg.order, by_site_row, r->calls);
    size_t next = 0;
    const struct result_row *prev = NULL;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!written(row))
            continue;
        bool module = !prev || !same(prev->module, row->module);
        bool function = module || !result_same_function(prev, row) || (!row->function && !same(prev->file, row->file));
        if (module)
            name(out, "ob=", row->module);
        if (function) {
            name(out, "fl=", or_unknown(row->file));
            function_name(out, "fn=", row);
        } else if (!same(prev->file, row->file)) {
            name(out, "fi=", or_unknown(row->file));    /* code inlined from another file */
        }
        fprintf(out, "%u %llu %.0f %llu %llu %llu %llu\n", row->line, (unsigned long long)row->executions,
                cg.row_cycles[i], (unsigned long long)row->crit, (unsigned long long)row->l1_misses,
                (unsigned long long)row->ll_misses, (unsigned long long)row->mispredicts);
        call_lines(out, r, row, &cg, &next);
        prev = row;
    }
    cg_free(&cg);
    return !ferror(out);
}
