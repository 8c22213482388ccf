/* The lane plan and what is derived from the lanes' cycles: labels, rankings, curves, bounds,
 * the verdict, resource shares, the critical order and the top-down fractions. No I/O. */
#include "analysis.h"
#include "alloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the plan ------------------------------------------------------------------------------ */

static void add_lane(struct analysis_plan *p, enum rt_knob k, int arg, double w)
{
    if (p->n_lanes < RT_MAX_LANES)
        p->lanes[p->n_lanes++] = (struct rt_lane_cfg){ { k, RT_KNOB_NONE }, { arg, 0 }, w };
}

/* Whether a level of M keeps a bounded number of misses in flight (else they have no lane). */
static bool bounds_misses(const struct mdl_machine *m)
{
    for (unsigned c = 0; c < m->n_caches; c++)
        if (m->caches[c].outstanding && m->caches[c].kind != MDL_CACHE_INSTRUCTION)
            return true;
    return false;
}

/* The lanes of knob K at weight W: one, or one per resource or bandwidth-limited data level. */
static void add_knob(struct analysis_plan *p, enum rt_knob k, double w)
{
    const struct mdl_machine *m = p->m;
    switch (rt_knob_arg(k)) {
    case RT_KNOB_ARG_RESOURCE:
        for (unsigned r = 0; r < m->n_resources; r++)
            add_lane(p, k, (int)r, w);
        break;
    case RT_KNOB_ARG_CACHE:
        for (unsigned c = 0; c < m->n_caches; c++)
            if (m->caches[c].bandwidth > 0 && m->caches[c].kind != MDL_CACHE_INSTRUCTION)
                add_lane(p, k, (int)c, w);
        break;
    case RT_KNOB_ARG_NONE:
        if (k != RT_KNOB_MISSES || bounds_misses(m))
            add_lane(p, k, 0, w);
        break;
    }
}

bool analysis_plan_init(struct analysis_plan *p, const struct mdl_machine *m, const double *weights,
                        unsigned n_weights, bool sensitivity, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->sensitivity = sensitivity;
    p->n_weights = n_weights < RESULT_MAX_WEIGHTS ? n_weights : RESULT_MAX_WEIGHTS;
    memcpy(p->weights, weights, p->n_weights * sizeof *weights);
    add_lane(p, RT_KNOB_NONE, 0, 1);
    unsigned want = 1;
    for (unsigned w = 0; sensitivity && w < p->n_weights; w++)
        for (enum rt_knob k = 0; k < RT_KNOB_COUNT; k++) {
            enum rt_knob_kind kind = rt_knob_kind(k);
            if (kind != RT_KNOB_KIND_SWEPT && kind != RT_KNOB_KIND_WINDOW)
                continue;
            unsigned before = p->n_lanes;
            add_knob(p, k, p->weights[w]);
            want += p->n_lanes - before;
        }
    for (enum rt_knob k = 0; sensitivity && k < RT_KNOB_COUNT; k++)
        if (rt_knob_kind(k) == RT_KNOB_KIND_BOUND)
            add_lane(p, k, 0, 1), want++;
    p->n_common = p->n_lanes;
    if (p->n_lanes + 6 > RT_MAX_LANES) {
        snprintf(err, errlen, "%u weights make %u lanes on %s, more than %d: give fewer weights", p->n_weights,
                 want + 6, m->name, RT_MAX_LANES);
        return false;
    }
    return true;
}

struct candidate {
    enum rt_knob knob;
    int arg;
    double busy;
};

static int by_busy(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    return x->busy < y->busy ? 1 : x->busy > y->busy ? -1 : 0;
}

/* Balanced kernels have no single bottleneck: two resources bind together and accelerating
 * either alone gains nothing. Lanes accelerating pairs of the likely ones show it. */
void analysis_plan_pairs(struct analysis_plan *p, const double *busy, double frontend, double retire)
{
    const struct mdl_machine *m = p->m;
    p->n_lanes = p->n_common;
    if (!p->sensitivity)
        return;
    struct candidate top[4] = { { RT_KNOB_LATENCY, 0, 0 } };
    unsigned n = 1;
    if (busy) {
        unsigned nc = m->n_resources + 2u;
        struct candidate *c = alloc_zeroed(nc, sizeof *c);
        for (unsigned r = 0; r < m->n_resources; r++)
            c[r] = (struct candidate){ RT_KNOB_RESOURCE, (int)r, busy[r] };
        c[m->n_resources] = (struct candidate){ RT_KNOB_FRONTEND, 0, frontend };
        c[m->n_resources + 1] = (struct candidate){ RT_KNOB_RETIRE, 0, retire };
        qsort(c, nc, sizeof *c, by_busy);
        for (unsigned i = 0; i < nc && n < 4; i++)
            if (c[i].busy > 0)
                top[n++] = c[i];
        free(c);
    } else {
        top[n++] = (struct candidate){ RT_KNOB_FRONTEND, 0, 0 };
        top[n++] = (struct candidate){ RT_KNOB_MEMORY_LATENCY, 0, 0 };
    }
    double w = p->weights[0];
    for (unsigned i = 1; i < p->n_weights; i++)
        w = p->weights[i] > w ? p->weights[i] : w;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n && p->n_lanes < RT_MAX_LANES; j++)
            p->lanes[p->n_lanes++] = (struct rt_lane_cfg){ { top[i].knob, top[j].knob }, { top[i].arg, top[j].arg }, w };
}

void analysis_start(struct result *r, const struct analysis_plan *p)
{
    r->n_lanes = p->n_lanes;
    for (unsigned l = 0; l < p->n_lanes; l++)
        r->lanes[l].cfg = p->lanes[l];
    r->n_weights = p->n_weights;
    memcpy(r->weights, p->weights, p->n_weights * sizeof *p->weights);
    r->sensitivity = p->sensitivity;
}

/* ---- labels and rankings ----------------------------------------------------------------------- */

/* SRC into DST of LEN bytes, truncated: labels are made per lane and per block, without printf. */
static size_t copy_label(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
    return n;
}

/* The knob's label in a lane: the resource's or cache's name, else the knob's. */
static const char *analysis_knob_label(const struct mdl_machine *m, enum rt_knob k, int arg, char *buf, size_t len)
{
    if (rt_knob_arg(k) == RT_KNOB_ARG_RESOURCE) {
        copy_label(buf, len, m->resources[arg].name);
    } else if (rt_knob_arg(k) == RT_KNOB_ARG_CACHE) {
        size_t n = copy_label(buf, len, m->caches[arg].name);
        copy_label(buf + n, len - n, "_bandwidth");
    } else {
        copy_label(buf, len, rt_knob_name(k));
    }
    return buf;
}

static bool is_pair(const struct rt_lane_cfg *c) { return c->knob[1] != RT_KNOB_NONE; }

static bool is_swept(const struct rt_lane_cfg *c)
{
    enum rt_knob_kind k = rt_knob_kind(c->knob[0]);
    return k == RT_KNOB_KIND_SWEPT || k == RT_KNOB_KIND_WINDOW;
}

static unsigned distinct_weights(const struct result *r)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->n_weights; i++) {
        bool seen = false;
        for (unsigned j = 0; j < i; j++)
            seen |= r->weights[j] == r->weights[i];
        n += !seen;
    }
    return n;
}

/* "p0156", "L1D_bandwidth", "latency+p01"; "@15%" after a single knob when weights differ. */
static void label_lanes(struct result *r)
{
    bool several = distinct_weights(r) > 1;
    double base = r->lanes[0].cycles;
    for (unsigned l = 0; l < r->n_lanes; l++) {
        struct result_lane *ln = &r->lanes[l];
        const struct rt_lane_cfg *c = &ln->cfg;
        for (int i = 0; i < 2; i++)
            analysis_knob_label(r->m, c->knob[i], c->arg[i], ln->knob_label[i], sizeof ln->knob_label[i]);
        size_t n = copy_label(ln->label, sizeof ln->label, ln->knob_label[0]);
        if (is_pair(c)) {
            n += copy_label(ln->label + n, sizeof ln->label - n, "+");
            copy_label(ln->label + n, sizeof ln->label - n, ln->knob_label[1]);
        } else if (several && is_swept(c)) {
            snprintf(ln->label + n, sizeof ln->label - n, "@%g%%", (c->weight - 1) * 100);
        }
        ln->speedup = ln->cycles > 0 ? base / ln->cycles : 1;
        if (!r->sampling.sampled) {
            ln->cycles_low = ln->cycles_high = ln->cycles;
            ln->speedup_low = ln->speedup_high = ln->speedup;
        }
    }
}

static void rank_lanes(struct result *r)
{
    r->n_single = r->n_pairs = 0;
    for (unsigned l = 1; l < r->n_lanes; l++) {
        const struct rt_lane_cfg *c = &r->lanes[l].cfg;
        if (!is_swept(c))
            continue;
        if (is_pair(c))
            r->pairs[r->n_pairs++] = l;
        else
            r->single[r->n_single++] = l;
    }
    /* insertion sort: a handful to a few hundred lanes, and no shared state for qsort */
    unsigned *lists[2] = { r->single, r->pairs }, counts[2] = { r->n_single, r->n_pairs };
    for (int k = 0; k < 2; k++)
        for (unsigned i = 1; i < counts[k]; i++) {
            unsigned v = lists[k][i], j = i;
            while (j > 0 && (r->lanes[lists[k][j - 1]].speedup < r->lanes[v].speedup ||
                             (r->lanes[lists[k][j - 1]].speedup == r->lanes[v].speedup && lists[k][j - 1] > v))) {
                lists[k][j] = lists[k][j - 1];
                j--;
            }
            lists[k][j] = v;
        }
}

/* One curve per knob alone (resource, cache level or knob), its points by weight ascending. */
static void build_curves(struct result *r)
{
    r->n_curves = 0;
    for (unsigned i = 0; i < r->n_lanes; i++) {
        const struct rt_lane_cfg *c = &r->lanes[i].cfg;
        if (i == 0 || !is_swept(c) || is_pair(c))
            continue;
        struct result_curve *cv = NULL;
        for (unsigned k = 0; k < r->n_curves && !cv; k++) {
            const struct rt_lane_cfg *o = &r->lanes[r->curves[k].lane[0]].cfg;
            if (o->knob[0] == c->knob[0] && o->arg[0] == c->arg[0])
                cv = &r->curves[k];
        }
        if (!cv) {
            cv = &r->curves[r->n_curves++];
            cv->n = 0;
            memcpy(cv->label, r->lanes[i].knob_label[0], sizeof cv->label);
        }
        if (cv->n == RESULT_MAX_WEIGHTS)
            continue;
        unsigned j = cv->n++;
        while (j > 0 && cv->weight[j - 1] > c->weight) {
            cv->weight[j] = cv->weight[j - 1];
            cv->speedup[j] = cv->speedup[j - 1];
            cv->lane[j] = cv->lane[j - 1];
            j--;
        }
        cv->weight[j] = c->weight;
        cv->speedup[j] = r->lanes[i].speedup;
        cv->lane[j] = i;
    }
}

/* Curves by their speed-up at the largest weight, largest first (ties in plan order). */
static void rank_curves(struct result *r)
{
    for (unsigned i = 1; i < r->n_curves; i++) {
        struct result_curve c = r->curves[i];
        unsigned j = i;
        while (j > 0 && r->curves[j - 1].speedup[r->curves[j - 1].n - 1] < c.speedup[c.n - 1]) {
            r->curves[j] = r->curves[j - 1];
            j--;
        }
        r->curves[j] = c;
    }
}

static void find_bounds(struct result *r)
{
    r->has_bounds = false;
    for (unsigned l = 1; l < r->n_lanes; l++) {
        enum rt_knob k = r->lanes[l].cfg.knob[0];
        if (k == RT_KNOB_ALL_RESOURCES)
            r->bound_infinite_resources = r->lanes[l].cycles, r->has_bounds = true;
        else if (k == RT_KNOB_NO_DEPS)
            r->bound_no_dependencies = r->lanes[l].cycles;
    }
}

/* Busy time of each resource over the scope (executions x cost), and each use's share of it:
 * the per-instruction shares of the Gus paper's Table 1. */
static void shares(struct result *r)
{
    const struct mdl_machine *m = r->m;
    if (r->n_busy < m->n_resources + 1u || !r->busy) {
        free(r->busy);
        r->busy = alloc_zeroed(m->n_resources + 1u, sizeof *r->busy);
        r->n_busy = m->n_resources + 1u;
    }
    memset(r->busy, 0, (m->n_resources + 1u) * sizeof *r->busy);
    for (size_t i = 0; i < r->n_rows; i++)
        for (unsigned k = 0; k < r->rows[i].use_count; k++) {
            const struct result_use *u = &r->uses[r->rows[i].use_first + k];
            r->busy[u->resource] += (double)r->rows[i].executions * u->cost;
        }
    for (size_t i = 0; i < r->n_rows; i++)
        for (unsigned k = 0; k < r->rows[i].use_count; k++) {
            struct result_use *u = &r->uses[r->rows[i].use_first + k];
            double b = r->busy[u->resource];
            u->share = b > 0 ? (double)r->rows[i].executions * u->cost / b : 0;
        }
}

/* Rows on the critical path, the most critical first: share of the instruction's counted
 * executions on the path, times its executions (an instruction run once and always critical
 * matters less than one run a million times and critical half of the time). */
static double critical_weight(const struct result_row *row)
{
    return row->critical * (double)(row->executions ? row->executions : 1);
}

/* An order of the rows: an array of at least N entries (its content is not kept). */
static void room_for_rows(size_t **order, size_t *cap, size_t n)
{
    if (*cap > n)
        return;
    free(*order);
    *cap = n + 1;
    *order = alloc_resize(NULL, *cap, sizeof **order);
}

static void critical_order(struct result *r)
{
    room_for_rows(&r->critical, &r->cap_critical, r->n_rows);
    r->n_critical = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        struct result_row *row = &r->rows[i];
        row->critical = row->seen ? (double)row->crit / (double)row->seen : 0;
        if (row->critical <= 0 || !r->causality)
            continue;
        /* insertion from the end: most rows are not critical, the list stays short */
        size_t j = r->n_critical++;
        double w = critical_weight(row);
        while (j > 0 && critical_weight(&r->rows[r->critical[j - 1]]) < w)
            r->critical[j] = r->critical[j - 1], j--;
        r->critical[j] = i;
    }
}

static int by_count(const void *a, const void *b, void *ctx)
{
    const struct result_row *rows = ctx, *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];
    if (x->executions != y->executions)
        return x->executions < y->executions ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Every row, the most executed first (ties in row order): what views show when they show a few. */
static void hot_order(struct result *r)
{
    room_for_rows(&r->hot, &r->cap_hot, r->n_rows);
    for (size_t i = 0; i < r->n_rows; i++)
        r->hot[i] = i;
    if (r->scope != RESULT_SCOPE_BLOCK)     /* a block's rows are executed once each: keep its order */
        qsort_r(r->hot, r->n_rows, sizeof *r->hot, by_count, r->rows);
}

/* ---- calls: which function made each, which it reached, and the inclusive costs -------------- */

/* The row at PC (rows are by address in a run), or SIZE_MAX. */
static size_t row_at(const struct result *r, uint64_t pc)
{
    size_t lo = 0, hi = r->n_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->rows[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_rows && r->rows[lo].pc == pc ? lo : SIZE_MAX;
}

/* The functions' indices by start address (a stretch of code no symbol names at the start guessed
 * for it: a caller like any other), for finding one by an address. */
struct by_addr {
    size_t *f;
    size_t n;
};

static int lo_order(const void *a, const void *b, void *ctx)
{
    const struct result_function *fns = ctx;
    uint64_t x = fns[*(const size_t *)a].lo, y = fns[*(const size_t *)b].lo;
    return x < y ? -1 : x > y;
}

static void index_functions(const struct result *r, struct by_addr *ix)
{
    ix->f = alloc_resize(NULL, r->n_functions + 1, sizeof *ix->f);
    ix->n = 0;
    for (size_t f = 0; f < r->n_functions; f++)
        ix->f[ix->n++] = f;
    if (ix->n)
        qsort_r(ix->f, ix->n, sizeof *ix->f, lo_order, r->functions);
}

/* The function starting at LO, or SIZE_MAX. */
static size_t function_at(const struct result *r, const struct by_addr *ix, uint64_t lo)
{
    size_t a = 0, b = ix->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (r->functions[ix->f[mid]].lo < lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a < ix->n && r->functions[ix->f[a]].lo == lo ? ix->f[a] : SIZE_MAX;
}

/* The function that ROW belongs to, or SIZE_MAX. */
static size_t function_of_row(const struct result *r, const struct by_addr *ix, size_t row)
{
    if (row == SIZE_MAX || !r->rows[row].module)
        return SIZE_MAX;
    return function_at(r, ix, r->rows[row].pc - r->rows[row].fn_offset);
}

static void self_costs(const struct result_function *f, double *c)
{
    c[RESULT_EV_IR] = (double)f->instructions;
    c[RESULT_EV_CYCLES] = f->cycles;
    c[RESULT_EV_CRIT] = (double)f->crit;
    c[RESULT_EV_L1M] = (double)f->l1_misses;
    c[RESULT_EV_LLM] = (double)f->ll_misses;
    c[RESULT_EV_BM] = (double)f->mispredicts;
}

/* The walk of the call graph for inclusive costs. A call "carries" when its site is a row of some
 * function (the views write it there) and it does not close a recursion: the calls carrying into a
 * function share out its whole inclusive cost, which is what callgrind_annotate --inclusive=yes and
 * KCachegrind read as its inclusive cost (the sum of the calls it receives). */
struct walk {
    const size_t *first;            /* [n_functions + 1]: where each function's calls begin */
    unsigned char *state;           /* per function, 0: not seen, 1: on the path, 2: done */
    uint64_t *carrying, *closing;   /* per function: the calls into it that carry, that close a recursion */
    bool *closes;                   /* per call: it closes a recursion */
};

static bool call_counts(const struct result *r, const struct result_call *c)
{
    return c->callee != SIZE_MAX && c->site_row != SIZE_MAX && r->rows[c->site_row].module &&
           r->rows[c->site_row].executions;
}

/* Inclusive costs, callees first (depth first): a callee's inclusive cost is shared among the calls
 * carrying into it in proportion to their counts; a call back into a function on the path (a
 * recursion) carries nothing and is not counted in the shares. Every call into a function that
 * could close a recursion is seen before the function is done, so its carrying count is final
 * when a caller takes its share. */
static void inclusive(struct result *r, size_t f, struct walk *w)
{
    w->state[f] = 1;
    struct result_function *fn = &r->functions[f];
    self_costs(fn, fn->incl);
    for (size_t i = w->first[f]; i < w->first[f + 1]; i++) {
        struct result_call *c = &r->calls[i];
        if (!call_counts(r, c))
            continue;
        if (c->callee == f || w->state[c->callee] == 1) {
            w->closes[i] = true;
            w->carrying[c->callee] -= c->count;
            w->closing[c->callee] += c->count;
            continue;
        }
        if (w->state[c->callee] == 0)
            inclusive(r, c->callee, w);
        const struct result_function *g = &r->functions[c->callee];
        double share = w->carrying[c->callee] ? (double)c->count / (double)w->carrying[c->callee] : 0;
        for (int e = 0; e < RESULT_EVENTS; e++) {
            c->incl[e] = share * g->incl[e];
            fn->incl[e] += c->incl[e];
        }
    }
    w->state[f] = 2;
}

/* The calls the walk left: those of no known caller (code outside any symbol) take their share;
 * those closing a recursion carry the function's inclusive cost when no other call does (a
 * recursive region entered from outside it): else a reader summing the calls a function receives
 * would find less than its own cost. Neither adds to its caller's inclusive cost. */
static void inclusive_rest(struct result *r, const struct walk *w)
{
    for (size_t i = 0; i < r->n_calls; i++) {
        struct result_call *c = &r->calls[i];
        if (!call_counts(r, c) || (c->caller != SIZE_MAX && !w->closes[i]))
            continue;
        const struct result_function *g = &r->functions[c->callee];
        uint64_t among = w->closes[i] ? (w->carrying[c->callee] ? 0 : w->closing[c->callee]) : w->carrying[c->callee];
        double share = among ? (double)c->count / (double)among : 0;
        for (int e = 0; e < RESULT_EVENTS; e++)
            c->incl[e] = share * g->incl[e];
    }
}

static int by_caller(const void *a, const void *b)
{
    const struct result_call *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    return x->site < y->site ? -1 : x->site > y->site ? 1 : (x->callee_lo > y->callee_lo) - (x->callee_lo < y->callee_lo);
}

/* Each call's caller and callee; the calls by caller (FIRST[f]: where function F's begin, calls
 * of no known caller last), so that a function's inclusive costs walk its own calls only. */
static void calls(struct result *r)
{
    struct by_addr ix;
    index_functions(r, &ix);
    for (size_t i = 0; i < r->n_calls; i++) {
        struct result_call *c = &r->calls[i];
        c->site_row = row_at(r, c->site);
        c->caller = function_of_row(r, &ix, c->site_row);
        c->callee = function_at(r, &ix, c->callee_lo);
        memset(c->incl, 0, sizeof c->incl);
        if (c->callee != SIZE_MAX)
            r->functions[c->callee].calls_in += c->count;
    }
    free(ix.f);
    if (r->n_calls)
        qsort(r->calls, r->n_calls, sizeof *r->calls, by_caller);
    size_t n = r->n_functions;
    size_t *first = alloc_resize(NULL, n + 2, sizeof *first);
    struct walk w = { first, alloc_zeroed(n + 1, 1), alloc_zeroed(n + 1, sizeof *w.carrying),
                      alloc_zeroed(n + 1, sizeof *w.closing), alloc_zeroed(r->n_calls + 1, sizeof *w.closes) };
    for (size_t f = 0, i = 0; f <= n; f++) {
        while (i < r->n_calls && r->calls[i].caller < f)
            i++;
        first[f] = i;
    }
    for (size_t i = 0; i < r->n_calls; i++)
        if (call_counts(r, &r->calls[i]))
            w.carrying[r->calls[i].callee] += r->calls[i].count;
    for (size_t f = 0; f < n; f++)
        if (!w.state[f])
            inclusive(r, f, &w);
    inclusive_rest(r, &w);
    free(first);
    free(w.state);
    free(w.carrying);
    free(w.closing);
    free(w.closes);
}

static int by_cycles(const void *a, const void *b)
{
    const struct result_function *x = a, *y = b;
    if (x->cycles != y->cycles)
        return x->cycles < y->cycles ? 1 : -1;
    return x->instructions < y->instructions ? 1 : x->instructions > y->instructions ? -1 : 0;
}

/* Per function: its rows summed, largest cycles first. Only where rows name their module. */
static void functions(struct result *r)
{
    r->n_functions = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->module || !row->executions)
            continue;
        struct result_function *f = r->n_functions ? &r->functions[r->n_functions - 1] : NULL;
        /* Rows of one function are adjacent in a run's table (by address) or a block's (in order) */
        if (!f || !result_same_function(&r->rows[f->first_row], row)) {
            if (r->n_functions == r->cap_functions) {
                r->cap_functions = r->cap_functions ? 2 * r->cap_functions : 64;
                r->functions = alloc_resize(r->functions, r->cap_functions, sizeof *r->functions);
            }
            f = &r->functions[r->n_functions++];
            *f = (struct result_function){ .module = row->module, .name = row->function, .first_row = i,
                                           .lo = row->pc - row->fn_offset };
        }
        f->instructions += row->executions;
        f->cycles += row->cycles;
        f->crit += row->crit;
        f->seen += row->seen;
        f->l1_misses += row->l1_misses;
        f->ll_misses += row->ll_misses;
        f->mispredicts += row->mispredicts;
    }
    if (r->n_functions)
        qsort(r->functions, r->n_functions, sizeof *r->functions, by_cycles);
    calls(r);
}

static int by_line_cycles(const void *a, const void *b)
{
    const struct result_line *x = a, *y = b;
    if (x->cycles != y->cycles)
        return x->cycles < y->cycles ? 1 : -1;
    return x->instructions < y->instructions ? 1 : x->instructions > y->instructions ? -1 : 0;
}

static int by_place(const void *a, const void *b)
{
    const struct result_line *x = a, *y = b;
    int c = strcmp(x->module, y->module);
    if (!c)
        c = strcmp(x->file, y->file);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Per source line: the rows with line information summed (a line's code may be in several places:
 * inlined, unrolled), largest cycles first. */
static void lines(struct result *r)
{
    r->n_lines = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->file || !row->line || !row->module || !row->executions)
            continue;
        if (r->n_lines == r->cap_lines) {
            r->cap_lines = r->cap_lines ? 2 * r->cap_lines : 64;
            r->lines = alloc_resize(r->lines, r->cap_lines, sizeof *r->lines);
        }
        r->lines[r->n_lines++] = (struct result_line){ row->module, row->file, row->line, row->executions, row->crit,
                                                       row->seen, row->l1_misses, row->ll_misses, row->mispredicts,
                                                       row->cycles };
    }
    if (r->n_lines)     /* (qsort's array must not be NULL, even empty) */
        qsort(r->lines, r->n_lines, sizeof *r->lines, by_place);
    size_t n = 0;
    for (size_t i = 0; i < r->n_lines; i++) {
        struct result_line *l = &r->lines[i];
        if (n && !by_place(&r->lines[n - 1], l)) {
            struct result_line *to = &r->lines[n - 1];
            to->instructions += l->instructions, to->crit += l->crit, to->seen += l->seen;
            to->l1_misses += l->l1_misses, to->ll_misses += l->ll_misses, to->mispredicts += l->mispredicts;
            to->cycles += l->cycles;
        } else {
            r->lines[n++] = *l;
        }
    }
    r->n_lines = n;
    if (r->n_lines)
        qsort(r->lines, r->n_lines, sizeof *r->lines, by_line_cycles);
}

/* ---- the verdict ------------------------------------------------------------------------------ */

static void name_add(struct result_verdict *v, const char *name)
{
    if (v->n_names < sizeof v->names / sizeof *v->names)
        snprintf(v->names[v->n_names++], sizeof v->names[0], "%s", name);
}

/* When nothing accelerated alone or in pairs helps, several resources are saturated at once:
 * those the code keeps busy all the time (front end and retirement included). */
static void saturated(struct result *r, struct result_verdict *v)
{
    const struct mdl_machine *m = r->m;
    double c = r->cycles, fe = 0, ret = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        double slots = (double)r->rows[i].executions * r->rows[i].uops;
        fe += m->issue_width ? slots / m->issue_width : 0;
        ret += m->retire_width ? slots / m->retire_width : 0;
    }
    for (unsigned k = 0; k <= m->n_resources; k++)
        if ((k == m->n_resources || !m->resources[k].is_group) && r->busy[k] >= 0.99 * c)
            name_add(v, result_resource_name(r, k));
    if (fe >= 0.99 * c)
        name_add(v, "frontend");
    if (ret >= 0.99 * c)
        name_add(v, "retire");
    v->kind = v->n_names ? RESULT_VERDICT_SATURATED : RESULT_VERDICT_NONE;
    if (!v->n_names) {
        snprintf(v->text, sizeof v->text, "no resource, pair or saturated set binds");
        return;
    }
    size_t n = (size_t)snprintf(v->text, sizeof v->text, "balanced: saturated together:");
    for (unsigned k = 0; k < v->n_names && n < sizeof v->text; k++)
        n += (size_t)snprintf(v->text + n, sizeof v->text - n, " %s", v->names[k]);
}

/* The runner-up of the N lanes LIST ranks (knobs alone, or pairs) whose interval reaches the top
 * one's (both sampled estimates, at the same weight), or NULL: the sample cannot tell which of the
 * two binds. */
static const struct result_lane *inseparable(const struct result *r, const unsigned *list, unsigned n)
{
    if (!r->sampling.sampled || !n)
        return NULL;
    const struct result_lane *top = &r->lanes[list[0]];
    for (unsigned i = 1; i < n; i++) {
        const struct result_lane *ln = &r->lanes[list[i]];
        if (ln->cfg.weight == top->cfg.weight && strcmp(ln->label, top->label) != 0)
            return ln->speedup > 1.01 && ln->speedup_high >= top->speedup_low ? ln : NULL;
    }
    return NULL;
}

/* One knob when accelerating it alone helps; else the pair that helps when accelerated together
 * (a balanced kernel); else the set of saturated resources; else none within the weights. */
static void verdict(struct result *r)
{
    struct result_verdict *v = &r->verdict;
    memset(v, 0, sizeof *v);
    const struct result_lane *one = r->n_single ? &r->lanes[r->single[0]] : NULL;
    const struct result_lane *two = r->n_pairs ? &r->lanes[r->pairs[0]] : NULL;
    if (one && one->speedup > 1.01) {
        v->kind = RESULT_VERDICT_RESOURCE;
        v->lane = r->single[0];
        name_add(v, one->knob_label[0]);
        const struct result_lane *close = inseparable(r, r->single, r->n_single);
        if (close) {
            name_add(v, close->knob_label[0]);
            snprintf(v->text, sizeof v->text, "%s or %s bound (%.3fx and %.3fx when %g%% faster: not separable within "
                     "the 95%% intervals)", one->knob_label[0], close->knob_label[0], one->speedup, close->speedup,
                     (one->cfg.weight - 1) * 100);
        } else {
            snprintf(v->text, sizeof v->text, "%s bound (%.3fx when %g%% faster)", one->knob_label[0], one->speedup,
                     (one->cfg.weight - 1) * 100);
        }
    } else if (two && two->speedup > 1.01) {
        v->kind = RESULT_VERDICT_PAIR;
        v->lane = r->pairs[0];
        name_add(v, two->knob_label[0]);
        name_add(v, two->knob_label[1]);
        const struct result_lane *close = inseparable(r, r->pairs, r->n_pairs);
        if (close)
            snprintf(v->text, sizeof v->text, "balanced: %s or %s bind together (%.3fx and %.3fx only when both are "
                     "faster: not separable within the 95%% intervals)", two->label, close->label, two->speedup,
                     close->speedup);
        else
            snprintf(v->text, sizeof v->text, "balanced: %s bind together (%.3fx only when both are faster)",
                     two->label, two->speedup);
    } else {
        saturated(r, v);
    }
    if (v->kind == RESULT_VERDICT_RESOURCE || v->kind == RESULT_VERDICT_PAIR) {
        const struct result_lane *ln = &r->lanes[v->lane];
        v->speedup = ln->speedup;
        v->weight = ln->cfg.weight;
    }
    if (r->n_lanes == 1 && v->kind != RESULT_VERDICT_SATURATED) {
        v->kind = RESULT_VERDICT_NO_LANES;
        v->n_names = 0;
        snprintf(v->text, sizeof v->text, "no sensitivity lanes were run");
    }
}

/* ---- top-down ----------------------------------------------------------------------------------- */

/* Fractions of the slots; the categories are normalised by their sum, which is the slots by
 * construction (the model attributes every slot once). */
static void topdown(struct result *r, const struct rt_topdown *td)
{
    struct result_topdown *o = &r->topdown;
    memset(o, 0, sizeof *o);
    if (!td || !r->m->issue_width)
        return;
    double mem = 0;
    for (unsigned k = 0; k < td->n_levels && k < RT_TD_LEVELS; k++)
        mem += td->memory[k];
    double total = rt_topdown_total(td);
    if (!(total > 0))
        return;
    o->valid = true;
    o->slots = total;
    o->retiring = td->retiring / total;
    o->bad_speculation = td->bad_speculation / total;
    o->frontend_latency = td->frontend_latency / total;
    o->frontend_bandwidth = td->frontend_bandwidth / total;
    o->frontend = o->frontend_latency + o->frontend_bandwidth;
    o->core = td->core / total;
    o->memory = mem / total;
    o->backend = o->core + o->memory;
    /* the data-side levels in order, then memory */
    const struct mdl_machine *m = r->m;
    unsigned n = 0;
    for (unsigned c = 0; c < m->n_caches && n + 1 < td->n_levels && n + 1 < RESULT_MAX_LEVELS; c++)
        if (m->caches[c].kind != MDL_CACHE_INSTRUCTION) {
            snprintf(o->level[n], sizeof o->level[n], "%s", m->caches[c].name);
            o->level_share[n] = td->memory[n] / total;
            n++;
        }
    snprintf(o->level[n], sizeof o->level[n], "DRAM");
    o->level_share[n] = td->n_levels ? td->memory[td->n_levels - 1] / total : 0;
    o->n_levels = n + 1;
}

void analysis_finish(struct result *r, const struct rt_topdown *td)
{
    r->cycles = r->n_lanes ? r->lanes[0].cycles : r->cycles;
    r->ipc = r->cycles > 0 ? (double)r->instructions / r->cycles : 0;
    label_lanes(r);
    r->cycles_low = r->n_lanes ? r->lanes[0].cycles_low : r->cycles;
    r->cycles_high = r->n_lanes ? r->lanes[0].cycles_high : r->cycles;
    rank_lanes(r);
    build_curves(r);
    rank_curves(r);
    find_bounds(r);
    shares(r);
    critical_order(r);
    hot_order(r);
    functions(r);
    lines(r);
    verdict(r);
    topdown(r, td);
}

/* ---- several cores ----------------------------------------------------------------------------- */

/* Whether entries G and F (of any cores' results) are one function: the same module and symbol,
 * or without one the same start. */
static bool is_function(const struct result_function *g, const struct result_function *f)
{
    bool named = g->name && f->name;
    return strcmp(g->module, f->module) == 0 &&
           (named ? strcmp(g->name, f->name) == 0 : !g->name && !f->name && g->lo == f->lo);
}

/* Function F in R: its first entry (SIZE_MAX: none) and, in *CYCLES, the cycles of all its entries. */
static size_t function_in(const struct result *r, const struct result_function *f, double *cycles)
{
    size_t first = SIZE_MAX;
    *cycles = 0;
    for (size_t i = 0; i < r->n_functions; i++)
        if (is_function(&r->functions[i], f)) {
            first = first == SIZE_MAX ? i : first;
            *cycles += r->functions[i].cycles;
        }
    return first;
}

static double spread(const struct result_comparison *c, const double *cycles)
{
    double lo = INFINITY, hi = 0;
    for (unsigned k = 0; k < c->n; k++) {
        lo = fmin(lo, cycles[k]);
        hi = fmax(hi, cycles[k]);
    }
    return hi - lo;
}

/* Whether function F is in C's differ list already. */
static bool ranked(const struct result_comparison *c, const struct result_function *f)
{
    for (unsigned j = 0; j < c->n_differ; j++)
        for (unsigned k = 0; k < c->n; k++)
            if (c->differ[j][k] != SIZE_MAX && is_function(&c->core[k]->functions[c->differ[j][k]], f))
                return true;
    return false;
}

/* Function F into C's differ list, largest spread first, if it ranks. */
static void rank_differ(struct result_comparison *c, const struct result_function *f)
{
    if (ranked(c, f))
        return;
    size_t row[RESULT_MAX_CORES];
    double cycles[RESULT_MAX_CORES];
    for (unsigned k = 0; k < c->n; k++)
        row[k] = function_in(c->core[k], f, &cycles[k]);
    double d = spread(c, cycles);
    if (!(d > 0))
        return;
    unsigned at = c->n_differ;
    while (at > 0 && spread(c, c->differ_cycles[at - 1]) < d)
        at--;
    if (at == RESULT_MAX_DIFFER)
        return;
    unsigned last = c->n_differ < RESULT_MAX_DIFFER ? c->n_differ++ : RESULT_MAX_DIFFER - 1;
    memmove(c->differ[at + 1], c->differ[at], (last - at) * sizeof c->differ[0]);
    memmove(c->differ_cycles[at + 1], c->differ_cycles[at], (last - at) * sizeof c->differ_cycles[0]);
    memcpy(c->differ[at], row, sizeof c->differ[0]);
    memcpy(c->differ_cycles[at], cycles, sizeof c->differ_cycles[0]);
}

/* Candidates for the differ list: each core's hottest functions (a few hundred of each cover what
 * ranks: a function cold on every core cannot differ much). */
enum { COMPARE_CANDIDATES = 200 };

void analysis_compare(struct result_comparison *c)
{
    c->fastest = 0;
    for (unsigned k = 1; k < c->n; k++)
        if (c->core[k]->cycles < c->core[c->fastest]->cycles)
            c->fastest = k;
    double best = c->core[c->fastest]->cycles;
    for (unsigned k = 0; k < c->n; k++)
        c->relative[k] = best > 0 ? c->core[k]->cycles / best : 1;
    c->n_differ = 0;
    for (unsigned from = 0; from < c->n; from++)
        for (size_t i = 0; i < c->core[from]->n_functions && i < COMPARE_CANDIDATES; i++)
            rank_differ(c, &c->core[from]->functions[i]);
}
