/* The text view of an analysis result: the summary, top-down, sensitivity, the per-instruction
 * table and, for runs, memory and branches; the verdict last, where a terminal leaves the eye. */
#include "view_text.h"
#include "alloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows a run's table shows: the most executed. */
enum { RUN_ROWS = 20, CURVE_ROWS = 8, CRITICAL_ROWS = 10, FUNCTION_ROWS = 15 };

/* "module!function+0x1c" (or "module+0x1139" outside any symbol, objdump's address) into BUF. */
static const char *location(const struct result_row *row, char *buf, size_t len)
{
    if (!row->module)
        snprintf(buf, len, "%#llx", (unsigned long long)row->pc);
    else if (!row->function)
        return result_unnamed(row, false, buf, len);
    else
        snprintf(buf, len, "%s!%s+%#llx", row->module, row->function, (unsigned long long)row->fn_offset);
    return result_printable(buf);
}

/* "file:line (module)" or "file:line" into BUF, printable. */
static const char *source_line(const char *file, unsigned line, const char *module, char *buf, size_t len)
{
    if (module)
        snprintf(buf, len, "%s:%u (%s)", file, line, module);
    else
        snprintf(buf, len, "%s:%u", file, line);
    return result_printable(buf);
}

/* A run whose program a signal ended: said first, so that no one takes the report for a whole run. */
static void program_killed(FILE *out, const struct result *r)
{
    const char *descr = sigdescr_np(r->killed_by);
    fprintf(out, "Program:            killed by signal %d (%s) after %llu instructions: this report covers what "
                 "ran before\n", r->killed_by, descr ? descr : "unknown signal", (unsigned long long)r->executed);
}

/* A run whose program replaced itself (exec): what the report covers, and what it does not. */
static void program_replaced(FILE *out, const struct result *r)
{
    char name[512];
    snprintf(name, sizeof name, "'%s'", r->replaced_by);
    fprintf(out, "Program:            replaced itself with %s (exec) after %llu instructions: this report covers "
                 "what ran before; the new program ran natively, outside the analysis\n",
            *r->replaced_by ? result_printable(name) : "another program", (unsigned long long)r->executed);
}

/* N instructions, or "N to N + MORE" where each period draws its length. */
static void span(char *buf, size_t size, uint64_t n, uint64_t more)
{
    if (more)
        snprintf(buf, size, "%llu to %llu", (unsigned long long)n, (unsigned long long)(n + more));
    else
        snprintf(buf, size, "%llu", (unsigned long long)n);
}

/* A run's scope modelled in full, or sampled: then its cycles are an estimate, with its interval. */
static void sampling(FILE *out, const struct result *r)
{
    const struct result_sampling *s = &r->sampling;
    if (!s->sampled) {
        fputs("Modelled:           every instruction (exact)\n", out);
        return;
    }
    fprintf(out, "Cycles, 95%%:        %.0f to %.0f (%+.1f%%, %+.1f%%)\n", r->cycles_low, r->cycles_high,
            r->cycles > 0 ? 100 * (r->cycles_low / r->cycles - 1) : 0,
            r->cycles > 0 ? 100 * (r->cycles_high / r->cycles - 1) : 0);
    char lanes[160] = "", warm[48], lanes_warm[48];
    span(warm, sizeof warm, s->warm, s->warm_spread);
    span(lanes_warm, sizeof lanes_warm, s->lanes_warm, s->warm_spread);
    if (s->lanes_warm < s->warm)
        snprintf(lanes, sizeof lanes, ", the lanes' last %s", lanes_warm);
    if (s->lanes_every > 1)
        snprintf(lanes + strlen(lanes), sizeof lanes - strlen(lanes),
                 ", each in %llu or more, one of %u after the first %llu", (unsigned long long)s->lane_units,
                 s->lanes_every, (unsigned long long)s->lanes_from);
    char tail[64] = "", doubling[160] = "";
    if (s->tail)
        snprintf(tail, sizeof tail, ", the last %llu in full", (unsigned long long)s->tail);
    if (s->epoch && s->units > s->epoch)
        snprintf(doubling, sizeof doubling, " at first, doubling every %llu", (unsigned long long)s->epoch);
    if (s->kept)
        snprintf(doubling + strlen(doubling), sizeof doubling - strlen(doubling),
                 " but kept %u time%s (the intervals spread widely)", s->kept, s->kept == 1 ? "" : "s");
    if (s->halved)
        snprintf(doubling + strlen(doubling), sizeof doubling - strlen(doubling),
                 "%s halved %u time%s (the interval was wide)", !doubling[0] ? " at first," : s->kept ? " and" : "",
                 s->halved, s->halved == 1 ? "" : "s");
    fprintf(out, "Modelled:           sampled: %llu instructions in full, then %llu intervals of %llu "
                 "(one per %llu%s, after %s of warm-up%s)%s: %.2f%% of the scope\n",
            (unsigned long long)s->exact, (unsigned long long)s->units, (unsigned long long)s->unit,
            (unsigned long long)s->period, doubling, warm, lanes, tail,
            r->instructions ? 100.0 * (double)s->modelled / (double)r->instructions : 0);
    if (s->warmups)
        fprintf(out, "Resumed:            %llu of %llu warm-ups where the model left off (at the address after its "
                     "last interval)\n", (unsigned long long)s->resumed, (unsigned long long)s->warmups);
    if (s->strings)
        fprintf(out, "Known, not sampled: %llu string instructions, %.0f cycles as the description times them\n",
                (unsigned long long)s->strings, s->string_cycles);
    if (s->drift != 0 && r->cycles > 0)
    {
        char widened[64] = "within its noise";
        if (s->drift_widened > 0)
            snprintf(widened, sizeof widened, "the cycles' interval widened by %.2f%% each way",
                     100 * s->drift_widened / r->cycles);
        fprintf(out, "Warm-up drift:      %+.2f%% of the cycles, +-%.2f%% (the last %llu instructions of each warm-up "
                     "against its interval): %s\n",
                100 * s->drift / r->cycles, 100 * s->drift_se / r->cycles, (unsigned long long)s->unit, widened);
    }
}

/* A block's iterations, and whether its timing repeated (else its cycles are the slope of the
 * second half, and may move with --iterations), the lanes' as well. */
static void block_iterations(FILE *out, const struct result *r)
{
    fprintf(out, "Iterations:         %u simulated (the timing ", r->iterations);
    if (r->period == 1)
        fputs("repeats every iteration", out);
    else if (r->period)
        fprintf(out, "repeats every %u iterations", r->period);
    else
        fputs("never repeats: the slope of the second half", out);
    unsigned lanes = r->n_lanes ? r->n_lanes - 1 : 0;
    if (r->lanes_fitted)
        fprintf(out, r->period ? "; %u of %u lanes never do" : "; nor do %u of %u lanes", r->lanes_fitted, lanes);
    fputs(")\n", out);
}

/* The report's first line: the block, or the command, MACHINES and the scope. */
static void heading(FILE *out, const struct result *r, const char *machines)
{
    bool block = r->scope == RESULT_SCOPE_BLOCK;
    char scope[256];
    snprintf(scope, sizeof scope, "%s", r->scope_name ? r->scope_name : block ? "" : "whole run");
    if (block)
        fprintf(out, "Block:              %s\n", result_printable(scope));
    else
        fprintf(out, "\n== mdlsim %s: %s, %s\n", r->command, machines, result_printable(scope));
}

static void summary(FILE *out, const struct result *r)
{
    bool block = r->scope == RESULT_SCOPE_BLOCK;
    heading(out, r, r->m->name);
    fprintf(out, "Machine:            %s", r->m->name);
    for (unsigned i = 0; i < r->n_set; i++) {
        char set[1024];
        snprintf(set, sizeof set, "%s", r->set[i]);
        fprintf(out, "%s%s", i ? ", " : " with ", result_printable(set));
    }
    fputc('\n', out);
    if (block) {
        block_iterations(out, r);
        fprintf(out, "Instructions:       %llu per iteration\n", (unsigned long long)r->instructions);
        fprintf(out, "Cycles/iteration:   %.2f\n", r->cycles);
    } else {
        if (r->replaced_by)
            program_replaced(out, r);
        if (r->killed_by > 0)
            program_killed(out, r);
        fprintf(out, "Instructions:       %llu (of %llu executed)\n", (unsigned long long)r->instructions,
                (unsigned long long)r->executed);
        fprintf(out, "Cycles:             %.0f\n", r->cycles);
        sampling(out, r);
    }
    fprintf(out, "IPC:                %.2f\n", r->ipc);
    if (!block || r->macro_fused)
        fprintf(out, "Macro-fused:        %llu pair%s%s (one entry each)\n", (unsigned long long)r->macro_fused,
                r->macro_fused == 1 ? "" : "s", block ? " per iteration" : "");
}

static void topdown(FILE *out, const struct result *r)
{
    const struct result_topdown *t = &r->topdown;
    if (!t->valid)
        return;
    fprintf(out, "Top-down (slots):   retiring %.1f%%, bad speculation %.1f%%, front end %.1f%% (latency %.1f%%, "
                 "bandwidth %.1f%%), back end %.1f%% (memory %.1f%%, core %.1f%%)\n",
            100 * t->retiring, 100 * t->bad_speculation, 100 * t->frontend, 100 * t->frontend_latency,
            100 * t->frontend_bandwidth, 100 * t->backend, 100 * t->memory, 100 * t->core);
    if (t->memory <= 0)
        return;
    fputs("Memory bound by:   ", out);
    for (unsigned k = 0; k < t->n_levels; k++)
        fprintf(out, "%s %s %.1f%%", k ? "," : "", t->level[k], 100 * t->level_share[k]);
    fputc('\n', out);
}

static void bottlenecks(FILE *out, const struct result *r)
{
    if (!r->n_single)
        return;
    if (r->n_weights == 1)
        fprintf(out, "\nBottlenecks (speed-up when one resource is %g%% faster):\n", (r->weights[0] - 1) * 100);
    else
        fputs("\nBottlenecks (speed-up when one resource is faster, at each weight):\n", out);
    for (unsigned i = 0; i < r->n_single; i++) {
        const struct result_lane *ln = &r->lanes[r->single[i]];
        if (i >= 8 && ln->speedup <= 1.0005)
            break;
        char interval[40] = "";
        if (r->sampling.sampled)
            snprintf(interval, sizeof interval, " [%.3f-%.3f]", ln->speedup_low, ln->speedup_high);
        fprintf(out, "  %-24s %6.3fx%s%s\n", ln->label, ln->speedup, interval,
                i == 0 && ln->speedup > 1.0005 ? "   <- bottleneck" : "");
    }
}

/* The top curves (analysis ranks them by their speed-up at the largest weight): how the gain
 * grows with the acceleration. */
static void curves(FILE *out, const struct result *r)
{
    if (r->n_curves == 0 || r->curves[0].n < 2)
        return;
    fputs("\nSensitivity curves (speed-up when the resource is this much faster):\n  resource              ", out);
    const struct result_curve *c0 = &r->curves[0];
    for (unsigned k = 0; k < c0->n; k++)
        fprintf(out, " %6g%%", (c0->weight[k] - 1) * 100);
    fputc('\n', out);
    for (unsigned c = 0; c < r->n_curves && c < CURVE_ROWS; c++) {
        const struct result_curve *cv = &r->curves[c];
        if (c > 0 && cv->speedup[cv->n - 1] <= 1.0005)
            break;
        fprintf(out, "  %-22s", cv->label);
        for (unsigned k = 0; k < cv->n; k++)
            fprintf(out, " %6.3fx", cv->speedup[k]);
        fputc('\n', out);
    }
}

static void bounds(FILE *out, const struct result *r)
{
    if (r->has_bounds)
        fprintf(out, "Bounds: infinite resources %.2f cycles%s, no dependencies %.2f cycles%s\n",
                r->bound_infinite_resources, r->scope == RESULT_SCOPE_BLOCK ? "/iteration" : "",
                r->bound_no_dependencies, r->scope == RESULT_SCOPE_BLOCK ? "/iteration" : "");
    if (r->n_pairs)
        fputs("Interactions (two resources accelerated together):\n", out);
    for (unsigned i = 0; i < r->n_pairs; i++)
        fprintf(out, "  %-32s %6.3fx\n", r->lanes[r->pairs[i]].label, r->lanes[r->pairs[i]].speedup);
}

/* The form column: the form as the instruction reads, marked when another entry times it. */
static const char *form_text(const struct result_row *row, char *buf, size_t size)
{
    if (row->class_default || row->eliminated)
        return row->class_default ? "(class default)" : "(eliminated)";
    result_row_form(row, buf, size - 1);
    if (result_row_timed_as(row, NULL, 0))
        strcat(buf, "*");
    return buf;
}

/* The row as the table's first column names it: its position (block) or its address (run). */
static const char *row_where(const struct result_row *row, bool block, char *buf, size_t size)
{
    if (block)
        snprintf(buf, size, "%3u", row->index);
    else
        snprintf(buf, size, "%#12llx", (unsigned long long)row->pc);
    return buf;
}

static void row_line(FILE *out, const struct result *r, const struct result_row *row, bool block)
{
    char lat[32], where[24], form[2 * RESULT_LABEL];
    snprintf(lat, sizeof lat, row->latency_min == row->latency_max ? "%g" : "%g-%g", row->latency_min,
             row->latency_max);
    row_where(row, block, where, sizeof where);
    if (!block)
        snprintf(where + strlen(where), sizeof where - strlen(where), " %10llu", (unsigned long long)row->executions);
    fprintf(out, "%s  %-34.34s %-32s %7s %5u %7.0f%%  ", where, row->disasm, form_text(row, form, sizeof form), lat,
            row->uops, 100 * row->critical);
    for (unsigned k = 0; k < row->use_count; k++) {
        const struct result_use *u = &r->uses[row->use_first + k];
        fprintf(out, "%s%s %.2f (%.0f%%)", k ? ", " : "", result_resource_name(r, u->resource), u->cost, 100 * u->share);
    }
    if (row->module) {
        char at[256];
        fprintf(out, "  [%s", location(row, at, sizeof at));
        if (row->file)
            fprintf(out, " %s", source_line(row->file, row->line, NULL, at, sizeof at));
        fputc(']', out);
    }
    fputc('\n', out);
}

/* Like perf report: where the cycles went, by function (each instruction carries its retire slots
 * and the stalls while the core waited for it, the oldest instruction not retired). */
static void functions(FILE *out, const struct result *r)
{
    if (!r->n_functions)
        return;
    fprintf(out, "\nHottest functions (a stall charged to the instruction the core waits on; children: with\n"
                 "what its calls cost, shared among callers by their calls):\n"
                 "  %8s %8s %12s %12s %6s %8s %9s %9s %8s  %s\n",
            "overhead", "children", "cycles", "instructions", "IPC", "critical", "L1 misses", "LL misses", "mispred",
            "function");
    for (size_t i = 0; i < r->n_functions && i < FUNCTION_ROWS; i++) {
        const struct result_function *f = &r->functions[i];
        char name[256];
        if (f->name)
            snprintf(name, sizeof name, "%s!%s", f->module, f->name);
        else
            result_unnamed(&r->rows[f->first_row], true, name, sizeof name);
        result_printable(name);
        fprintf(out, "  %7.1f%% %7.1f%% %12.0f %12llu %6.2f %7.1f%% %9llu %9llu %8llu  %s\n",
                r->cycles > 0 ? 100 * f->cycles / r->cycles : 0,
                r->cycles > 0 ? 100 * f->incl[RESULT_EV_CYCLES] / r->cycles : 0, f->cycles,
                (unsigned long long)f->instructions,
                f->cycles > 0 ? (double)f->instructions / f->cycles : 0, f->seen ? 100.0 * f->crit / f->seen : 0,
                (unsigned long long)f->l1_misses, (unsigned long long)f->ll_misses,
                (unsigned long long)f->mispredicts, name);
    }
}

/* The footnote of the rows marked '*': which entry times them instead of their form, and why. */
static void timed_as(FILE *out, const struct result *r, size_t n, bool block)
{
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const struct result_row *row = &r->rows[r->hot ? r->hot[i] : i];
        char where[24], note[2 * RESULT_LABEL + 96];
        if (!result_row_timed_as(row, note, sizeof note))
            continue;
        if (first)
            fputs("\n", out);
        first = false;
        row_where(row, block, where, sizeof where);
        fprintf(out, "* %s: %s\n", where + strspn(where, " "), note);
    }
}

static void table(FILE *out, const struct result *r)
{
    bool block = r->scope == RESULT_SCOPE_BLOCK;
    size_t n = block || r->n_rows < RUN_ROWS ? r->n_rows : RUN_ROWS;
    if (!block)
        fprintf(out, "\nHottest instructions (%zu of %zu):\n", n, r->n_rows);
    fprintf(out, "\n%s  %-34s %-32s %7s %5s %8s  resources (cost, share of the resource)\n",
            block ? "  #" : "          pc executions", "instruction", "form", "latency", "uops", "critical");
    for (size_t i = 0; i < n; i++)
        row_line(out, r, &r->rows[r->hot ? r->hot[i] : i], block);
    timed_as(out, r, n, block);
}

/* Where the cycles went, by source line (a -g program's). */
static void source_lines(FILE *out, const struct result *r)
{
    if (!r->n_lines)
        return;
    fprintf(out, "\nHottest source lines:\n  %8s %12s %12s %8s  %s\n", "overhead", "cycles", "instructions",
            "critical", "line");
    for (size_t i = 0; i < r->n_lines && i < FUNCTION_ROWS; i++) {
        const struct result_line *l = &r->lines[i];
        char at[512];
        fprintf(out, "  %7.1f%% %12.0f %12llu %7.1f%%  %s\n", r->cycles > 0 ? 100 * l->cycles / r->cycles : 0,
                l->cycles, (unsigned long long)l->instructions, l->seen ? 100.0 * l->crit / l->seen : 0,
                source_line(l->file, l->line, l->module, at, sizeof at));
    }
}

/* A run's table shows its hottest rows; the critical path may run through others. */
static void critical(FILE *out, const struct result *r)
{
    if (r->scope == RESULT_SCOPE_BLOCK || !r->n_critical)
        return;
    fputs("\nCritical path (share of the instruction's executions on it, most critical first):\n", out);
    for (size_t i = 0; i < r->n_critical && i < CRITICAL_ROWS; i++) {
        const struct result_row *row = &r->rows[r->critical[i]];
        char at[256];
        fprintf(out, "  %#12llx  %-40s %5.1f%%  %s\n", (unsigned long long)row->pc, row->disasm, 100 * row->critical,
                row->module ? location(row, at, sizeof at) : "");
    }
}

static void memory(FILE *out, const struct result *r)
{
    if (r->has_caches || r->has_branches)
        fputc('\n', out);
    for (unsigned k = 0; r->has_caches && k < r->n_caches; k++) {
        const struct result_cache *c = &r->caches[k];
        fprintf(out, "Cache %-6s %llu accesses, %.1f%% hits\n", c->name, (unsigned long long)c->accesses,
                c->accesses ? 100.0 * (double)c->hits / (double)c->accesses : 0);
    }
    if (r->has_branches)
        fprintf(out, "Branches:    %llu, %.2f%% mispredicted\n", (unsigned long long)r->branches,
                r->branches ? 100.0 * (double)r->mispredicted / (double)r->branches : 0);
    if (r->has_delivery) {
        double all = 0;
        for (unsigned p = 0; p < RT_PATH_COUNT; p++)
            all += (double)r->delivery[p];
        fputs("Delivered:  ", out);
        for (unsigned p = 0; p < RT_PATH_COUNT; p++)
            fprintf(out, "%s %s %.1f%%", p ? "," : "", rt_path_label((enum rt_path)p),
                    all ? 100.0 * (double)r->delivery[p] / all : 0);
        fputc('\n', out);
    }
}

static const char defaults_heading[] = "\nModelled by their class default (no entry in the machine description):\n";

/* A run's instructions without an entry, by form: one line per key with its executions summed
 * over its addresses (the C library's syscalls are one line, not fifty), most executed first. */
struct default_group {
    const char *key, *disasm;       /* disasm: of its most executed address */
    uint64_t executions, most;
    size_t addresses;
};

static int row_by_key(const void *a, const void *b)
{
    return strcmp((*(const struct result_row *const *)a)->key, (*(const struct result_row *const *)b)->key);
}

static int group_by_count(const void *a, const void *b)
{
    const struct default_group *x = a, *y = b;
    return x->executions != y->executions ? (x->executions < y->executions ? 1 : -1) : strcmp(x->key, y->key);
}

/* The groups of the class-default rows of R in OUT (room for n_rows); their number. */
static size_t default_groups(const struct result *r, const struct result_row **rows, struct default_group *out)
{
    size_t n = 0, groups = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].class_default && r->rows[i].executions)
            rows[n++] = &r->rows[i];
    qsort(rows, n, sizeof *rows, row_by_key);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(rows[i]->key, rows[i - 1]->key) != 0)
            out[groups++] = (struct default_group){ .key = rows[i]->key };
        struct default_group *g = &out[groups - 1];
        g->executions += rows[i]->executions;
        g->addresses++;
        if (rows[i]->executions > g->most) {
            g->most = rows[i]->executions;
            g->disasm = rows[i]->disasm;
        }
    }
    qsort(out, groups, sizeof *out, group_by_count);
    return groups;
}

static void unknown_grouped(FILE *out, const struct result *r)
{
    const struct result_row **rows = alloc_zeroed(r->n_rows + 1, sizeof *rows);
    struct default_group *g = alloc_zeroed(r->n_rows + 1, sizeof *g);
    size_t n = default_groups(r, rows, g);
    int kw = 0, mw = 0, cw = 0;             /* the columns' widths */
    for (size_t i = 0; i < n; i++) {
        int k = (int)strlen(g[i].key), m = (int)strcspn(g[i].disasm, " ");
        int c = snprintf(NULL, 0, "%llu", (unsigned long long)g[i].executions);
        kw = k > kw ? k : kw;
        mw = m > mw ? m : mw;
        cw = c > cw ? c : cw;
    }
    if (n)
        fputs(defaults_heading, out);
    for (size_t i = 0; i < n; i++) {
        int m = (int)strcspn(g[i].disasm, " ");
        fprintf(out, "  %-*s  [%.*s]%*s  %*llu time%s at %zu address%s\n", kw, g[i].key, m, g[i].disasm, mw - m, "", cw,
                (unsigned long long)g[i].executions, g[i].executions == 1 ? " " : "s", g[i].addresses,
                g[i].addresses == 1 ? "" : "es");
    }
    free(rows);
    free(g);
}

static void unknown(FILE *out, const struct result *r)
{
    if (r->scope != RESULT_SCOPE_BLOCK) {
        unknown_grouped(out, r);
        return;
    }
    bool any = false;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->class_default || !row->executions)
            continue;
        if (!any)
            fputs(defaults_heading, out);
        any = true;
        fprintf(out, "  %u: %s  [%s]\n", row->index, row->disasm, row->key);
    }
}

static void robust_end(FILE *out, const struct result *r, const struct result_robust_end *e)
{
    fprintf(out, "at %g%s: ", e->value, e->same ? " (as described)" : "");
    fprintf(out, r->scope == RESULT_SCOPE_BLOCK ? "%.2f cycles/iteration" : "%.0f cycles", e->cycles);
    if (e->moved)
        fprintf(out, ", %s%s", e->verdict, e->holds ? "" : " (changes)");
}

/* Whether the verdict holds across the estimates, then each value that moves the cycles. */
static void robustness(FILE *out, const struct result *r)
{
    const struct result_robustness *rb = &r->robustness;
    if (!rb->checked)
        return;
    fprintf(out, "Robustness: %s\n", rb->text);
    for (unsigned i = 0; i < rb->n_values; i++) {
        const struct result_robust_value *v = &r->robust[i];
        if (!v->end[0].moved && !v->end[1].moved)
            continue;
        fprintf(out, "  %-30s %g..%g: ", v->name, v->lo, v->hi);
        robust_end(out, r, &v->end[0]);
        fputs("; ", out);
        robust_end(out, r, &v->end[1]);
        fputc('\n', out);
    }
}

bool view_text(FILE *out, const struct result *r)
{
    summary(out, r);
    topdown(out, r);
    bottlenecks(out, r);
    curves(out, r);
    bounds(out, r);
    functions(out, r);
    source_lines(out, r);
    table(out, r);
    critical(out, r);
    memory(out, r);
    unknown(out, r);
    fprintf(out, "\nVerdict: %s\n", r->verdict.text);
    robustness(out, r);
    if (r->scope == RESULT_SCOPE_BLOCK)
        fputc('\n', out);
    return !ferror(out);
}

void view_text_error(FILE *out, const char *label, const char *msg)
{
    char line[2048];
    snprintf(line, sizeof line, "%s: %s", label, msg);
    fprintf(out, "mdlsim: error: %s\n", result_printable(line));
}

/* ---- several cores side by side ----------------------------------------------------------------- */

enum { COMPARE_COL = 18 };

/* A row of the comparison: its label, then each core's value as FMT prints VALUE(core). */
static void compare_row(FILE *out, const struct result_comparison *c, const char *label, const char *fmt,
                        double (*value)(const struct result *))
{
    fprintf(out, "%-20s", label);
    for (unsigned k = 0; k < c->n; k++) {
        char cell[64];
        snprintf(cell, sizeof cell, fmt, value(c->core[k]));
        fprintf(out, " %*s", COMPARE_COL, cell);
    }
    fputc('\n', out);
}

static double cycles_of(const struct result *r) { return r->cycles; }
static double ipc_of(const struct result *r) { return r->ipc; }
static double half_interval_of(const struct result *r)
{
    return r->cycles > 0 ? 50 * (r->cycles_high - r->cycles_low) / r->cycles : 0;
}
static double retiring_of(const struct result *r) { return 100 * r->topdown.retiring; }
static double bad_spec_of(const struct result *r) { return 100 * r->topdown.bad_speculation; }
static double frontend_of(const struct result *r) { return 100 * r->topdown.frontend; }
static double backend_of(const struct result *r) { return 100 * r->topdown.backend; }
static double memory_of(const struct result *r) { return 100 * r->topdown.memory; }
static double core_of(const struct result *r) { return 100 * r->topdown.core; }

static void compare_head(FILE *out, const struct result_comparison *c)
{
    const struct result *r = c->core[0];
    bool block = r->scope == RESULT_SCOPE_BLOCK;
    char machines[RESULT_MAX_CORES * 64];
    size_t n = 0;
    for (unsigned k = 0; k < c->n && n < sizeof machines; k++)
        n += (size_t)snprintf(machines + n, sizeof machines - n, "%s%s", k ? ", " : "", c->core[k]->m->name);
    heading(out, r, machines);
    fprintf(out, "Instructions:       %llu%s\n", (unsigned long long)r->instructions, block ? " per iteration" : "");
    fprintf(out, "\n%-20s", "");
    for (unsigned k = 0; k < c->n; k++)
        fprintf(out, " %*s", COMPARE_COL, c->core[k]->m->name);
    fputc('\n', out);
}

/* Each core's relative cycles, the fastest marked. */
static void compare_relative(FILE *out, const struct result_comparison *c)
{
    fprintf(out, "%-20s", "Relative to fastest");
    for (unsigned k = 0; k < c->n; k++) {
        char cell[64];
        snprintf(cell, sizeof cell, k == c->fastest ? "fastest" : "%.3fx", c->relative[k]);
        fprintf(out, " %*s", COMPARE_COL, cell);
    }
    fputc('\n', out);
}

/* A block's cell: every how many iterations a core's timing repeats, or never (its cycles are then
 * the slope of the second half). */
static void period_cell(char *cell, size_t size, unsigned period)
{
    if (period == 1)
        snprintf(cell, size, "every iteration");
    else if (period)
        snprintf(cell, size, "every %u", period);
    else
        snprintf(cell, size, "never");
}

static void compare_period(FILE *out, const struct result_comparison *c)
{
    fprintf(out, "%-20s", "Timing repeats");
    for (unsigned k = 0; k < c->n; k++) {
        char cell[64];
        period_cell(cell, sizeof cell, c->core[k]->period);
        fprintf(out, " %*s", COMPARE_COL, cell);
    }
    fputc('\n', out);
}

static void compare_topdown(FILE *out, const struct result_comparison *c)
{
    for (unsigned k = 0; k < c->n; k++)
        if (!c->core[k]->topdown.valid)
            return;
    compare_row(out, c, "Retiring", "%.1f%%", retiring_of);
    compare_row(out, c, "Bad speculation", "%.1f%%", bad_spec_of);
    compare_row(out, c, "Front end", "%.1f%%", frontend_of);
    compare_row(out, c, "Back end", "%.1f%%", backend_of);
    compare_row(out, c, "  memory", "%.1f%%", memory_of);
    compare_row(out, c, "  core", "%.1f%%", core_of);
}

/* The functions whose cycles differ most between the cores. */
static void compare_functions(FILE *out, const struct result_comparison *c)
{
    if (!c->n_differ)
        return;
    fprintf(out, "\nWhere the cores differ most (cycles by function):\n%-20s", "");
    for (unsigned k = 0; k < c->n; k++)
        fprintf(out, " %*s", COMPARE_COL, c->core[k]->m->name);
    fputs("  function\n", out);
    for (unsigned i = 0; i < c->n_differ; i++) {
        fprintf(out, "%-20s", "");
        const struct result_function *named = NULL;
        const struct result *owner = NULL;
        for (unsigned k = 0; k < c->n; k++) {
            size_t at = c->differ[i][k];
            const struct result_function *f = at == SIZE_MAX ? NULL : &c->core[k]->functions[at];
            if (f && !named)
                named = f, owner = c->core[k];
            fprintf(out, " %*.0f", COMPARE_COL, c->differ_cycles[i][k]);
        }
        char name[256];
        if (named->name)
            snprintf(name, sizeof name, "%s!%s", named->module, named->name);
        else
            result_unnamed(&owner->rows[named->first_row], true, name, sizeof name);
        fprintf(out, "  %s\n", result_printable(name));
    }
}

bool view_text_comparison(FILE *out, const struct result_comparison *c)
{
    bool block = c->core[0]->scope == RESULT_SCOPE_BLOCK;
    compare_head(out, c);
    compare_row(out, c, block ? "Cycles/iteration" : "Cycles", block ? "%.2f" : "%.0f", cycles_of);
    if (c->core[0]->sampling.sampled)
        compare_row(out, c, "  95% interval", "+-%.1f%%", half_interval_of);
    compare_relative(out, c);
    if (block)
        compare_period(out, c);
    compare_row(out, c, "IPC", "%.2f", ipc_of);
    compare_topdown(out, c);
    compare_functions(out, c);
    fputs("\nVerdicts:\n", out);
    for (unsigned k = 0; k < c->n; k++) {
        fprintf(out, "  %-18s %s\n", c->core[k]->m->name, c->core[k]->verdict.text);
        if (c->core[k]->robustness.checked)
            fprintf(out, "  %-18s robustness: %s\n", "", c->core[k]->robustness.text);
    }
    if (block)
        fputc('\n', out);
    return !ferror(out);
}
