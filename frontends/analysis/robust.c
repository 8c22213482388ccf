/* Robustness of a verdict over the description's estimates: the machine at each end of each
 * plausible range, measured again, and whether the verdict names the same knobs there. */
#include "robust.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"

/* ---- the machine at one end ------------------------------------------------------------------- */

bool robust_set_param(struct mdl_machine *m, struct mdl_cache *caches, unsigned param, unsigned cache, double value)
{
    switch (param) {
#define M(blk, key, field)                                                                                     \
    case MDL_PARAM_##blk##_##key:                                                                              \
        m->field = (__typeof__(m->field))value;                                                                \
        return true;
#define C(key, field)                                                                                          \
    case MDL_PARAM_CACHE_##key:                                                                                \
        if (cache >= m->n_caches)                                                                              \
            return false;                                                                                      \
        caches[cache].field = (__typeof__(caches[cache].field))value;                                          \
        return true;
#include "vary.def"
#undef M
#undef C
    default:
        return false;
    }
}

static void *copy_of(const void *p, size_t n, size_t size)
{
    void *q = alloc_resize(NULL, n ? n : 1, size);
    memcpy(q, p, n * size);
    return q;
}

void robust_machine_init(struct robust_machine *out, const struct mdl_machine *m, const struct mdl_uncertain *u,
                         double value)
{
    memset(out, 0, sizeof *out);
    out->m = *m;
    switch ((enum mdl_vary)u->vary) {
    case MDL_VARY_PARAM:
        out->caches = copy_of(m->caches, m->n_caches, sizeof *m->caches);
        out->m.caches = out->caches;
        robust_set_param(&out->m, out->caches, u->param, u->index, value);
        break;
    case MDL_VARY_LATENCY:
        out->templates = copy_of(m->templates, m->n_templates, sizeof *m->templates);
        out->m.templates = out->templates;
        if (u->index < m->n_templates)
            out->templates[u->index].latency_min = out->templates[u->index].latency_max = (float)value;
        break;
    case MDL_VARY_BYPASS:
        out->bypasses = copy_of(m->bypasses, m->n_bypasses, sizeof *m->bypasses);
        out->m.bypasses = out->bypasses;
        if (u->index < m->n_bypasses)
            out->bypasses[u->index].latency = (float)value;
        break;
    }
}

void robust_machine_free(struct robust_machine *rm)
{
    free(rm->caches);
    free(rm->templates);
    free(rm->bypasses);
    memset(rm, 0, sizeof *rm);
}

void robust_set_init(struct robust_set *s, const struct mdl_machine *m)
{
    s->m = m;
    s->n_values = m->n_uncertain;
    s->ends = alloc_zeroed(2 * (size_t)m->n_uncertain + 1, sizeof *s->ends);
    for (unsigned i = 0; i < m->n_uncertain; i++) {
        const struct mdl_uncertain *u = &m->uncertain[i];
        if (u->lo != u->value)
            robust_machine_init(&s->ends[2 * i], m, u, u->lo);
        if (u->hi != u->value)
            robust_machine_init(&s->ends[2 * i + 1], m, u, u->hi);
    }
}

void robust_set_free(struct robust_set *s)
{
    for (unsigned i = 0; i < 2 * s->n_values; i++)
        robust_machine_free(&s->ends[i]);
    free(s->ends);
    memset(s, 0, sizeof *s);
}

/* ---- the verdict at each end ------------------------------------------------------------------ */

/* The knobs verdict V names, as one label: what two verdicts are compared by ("latency bound",
 * "latency or p1 bound" when a sample cannot separate them, "latency+p1 together", "p0, p1
 * saturated"). */
static void verdict_label(const struct result_verdict *v, char *buf, size_t size)
{
    static const char *const join[] = { [RESULT_VERDICT_RESOURCE] = " or ", [RESULT_VERDICT_PAIR] = "+",
                                        [RESULT_VERDICT_SATURATED] = ", " };
    static const char *const how[] = { [RESULT_VERDICT_NO_LANES] = "no lanes", [RESULT_VERDICT_RESOURCE] = " bound",
                                       [RESULT_VERDICT_PAIR] = " together", [RESULT_VERDICT_SATURATED] = " saturated",
                                       [RESULT_VERDICT_NONE] = "nothing binds" };
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < v->n_names && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? join[v->kind] : "", v->names[k]);
    if (n < size)
        snprintf(buf + n, size - n, "%s", how[v->kind]);
}

static bool same_cycles(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* What robust_check measures with. */
struct robust_run {
    const struct analysis_plan *plan, *baseline;    /* every lane; the baseline alone */
    robust_measure_fn measure;
    void *ctx;
    struct result *scratch;
};

/* End E measured on machine M: the baseline alone, then, where that moved the cycles, every lane. */
static bool measure_end(const struct result *r, const struct robust_run *run, const struct mdl_machine *m,
                        struct result_robust_end *e, char *err, size_t errlen)
{
    struct result *scratch = run->scratch;
    if (!run->measure(run->ctx, m, run->baseline, scratch, err, errlen))
        return false;
    e->cycles = scratch->cycles;
    e->moved = !same_cycles(scratch->cycles, r->cycles);
    if (!e->moved)
        return true;
    if (!run->measure(run->ctx, m, run->plan, scratch, err, errlen))
        return false;
    verdict_label(&scratch->verdict, e->verdict, sizeof e->verdict);
    e->speedup = scratch->verdict.speedup;
    e->holds = strcmp(e->verdict, r->robustness.verdict) == 0;
    return true;
}

static void init_value(const struct result *r, const struct mdl_uncertain *u, struct result_robust_value *v)
{
    *v = (struct result_robust_value){ .name = u->name, .reason = u->reason, .where = u->where, .value = u->value,
                                       .lo = u->lo, .hi = u->hi, .holds = true };
    const double at[2] = { u->lo, u->hi };
    for (int k = 0; k < 2; k++) {
        struct result_robust_end *e = &v->end[k];
        e->value = at[k];
        e->same = at[k] == u->value;
        e->cycles = r->cycles;
        snprintf(e->verdict, sizeof e->verdict, "%s", r->robustness.verdict);
        e->speedup = r->verdict.speedup;
        e->holds = true;
    }
}

static const struct result_robust_end *end_at(const struct result *r, unsigned i)
{
    return &r->robust[i / 2].end[i % 2];
}

/* Whether an end before end I (end_at) has I's verdict where the analysis's does not hold. */
static bool said_before(const struct result *r, unsigned i)
{
    for (unsigned j = 0; j < i; j++)
        if (!end_at(r, j)->holds && strcmp(end_at(r, j)->verdict, end_at(r, i)->verdict) == 0)
            return true;
    return false;
}

/* The line the views print: "latency bound, unchanged across 17 estimated values (3 move the
 * cycles)", or "latency bound or p1 bound: depends on class.int_mul.latency, estimated 3..4 (at 4:
 * p1 bound 1.150x)". */
static void robust_text(struct result *r)
{
    struct result_robustness *rb = &r->robustness;
    char *t = rb->text;
    size_t n, size = sizeof rb->text;
    if (rb->holds) {
        char moved[32];
        snprintf(moved, sizeof moved, rb->n_moved == 0 ? "none moves" : rb->n_moved == 1 ? "1 moves" : "%u move",
                 rb->n_moved);
        snprintf(t, size, "%s, unchanged across %u estimated value%s (%s the cycles)", rb->verdict, rb->n_values,
                 rb->n_values == 1 ? "" : "s", moved);
        return;
    }
    n = (size_t)snprintf(t, size, "%s", rb->verdict);
    for (unsigned i = 0; i < 2 * rb->n_values && n < size; i++) {
        const struct result_robust_end *e = end_at(r, i);
        if (!e->holds && !said_before(r, i))
            n += (size_t)snprintf(t + n, size - n, " or %s", e->verdict);
    }
    const char *sep = ": depends on ";
    for (unsigned i = 0; i < rb->n_values && n < size; i++) {
        const struct result_robust_value *v = &r->robust[i];
        if (v->holds)
            continue;
        n += (size_t)snprintf(t + n, size - n, "%s%s, estimated %g..%g", sep, v->name, v->lo, v->hi);
        for (int k = 0; k < 2 && n < size; k++)
            if (!v->end[k].holds)
                n += (size_t)snprintf(t + n, size - n, v->end[k].speedup > 0 ? " (at %g: %s %.3fx)" : " (at %g: %s)",
                                      v->end[k].value, v->end[k].verdict, v->end[k].speedup);
        sep = "; ";
    }
}

/* The ends FROM, FROM + STEP, ... of R's values measured by RUN (its scratch: one of the job's
 * own when NULL), each into its place in R: a thread's share of robust_check's work. */
struct end_job {
    struct result *r;
    const struct robust_set *set;
    struct robust_run run;
    unsigned from, step;
    bool ok;
    char err[512];
};

static void *measure_ends(void *arg)
{
    struct end_job *j = arg;
    struct result *own = j->run.scratch ? NULL : alloc_zeroed(1, sizeof *own);
    if (own)
        j->run.scratch = own;
    j->ok = true;
    for (unsigned i = j->from; i < 2 * j->set->n_values && j->ok; i += j->step) {
        struct result_robust_end *e = &j->r->robust[i / 2].end[i % 2];
        if (!e->same)
            j->ok = measure_end(j->r, &j->run, &j->set->ends[i].m, e, j->err, sizeof j->err);
    }
    if (own)
        result_free(own);
    free(own);
    return NULL;
}

/* The ends measured by THREADS jobs, the first on this thread with SCRATCH; false with the first
 * job's error that failed. */
static bool measure_all(struct result *r, const struct robust_set *set, const struct robust_run *run, unsigned threads,
                        char *err, size_t errlen)
{
    struct end_job *jobs = alloc_zeroed(threads, sizeof *jobs);
    pthread_t *th = alloc_zeroed(threads, sizeof *th);
    bool *started = alloc_zeroed(threads, sizeof *started);
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = (struct end_job){ .r = r, .set = set, .run = *run, .from = t, .step = threads };
        if (t)
            jobs[t].run.scratch = NULL;
        started[t] = t && pthread_create(&th[t], NULL, measure_ends, &jobs[t]) == 0;
    }
    for (unsigned t = 0; t < threads; t++)
        if (!started[t])
            measure_ends(&jobs[t]);
    bool ok = true;
    for (unsigned t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        if (ok && !jobs[t].ok) {
            snprintf(err, errlen, "%s", jobs[t].err);
            ok = false;
        }
    }
    free(jobs);
    free(th);
    free(started);
    return ok;
}

bool robust_check(struct result *r, const struct analysis_plan *plan, const struct robust_set *set,
                  robust_measure_fn measure, void *ctx, struct result *scratch, unsigned threads, char *err,
                  size_t errlen)
{
    struct result_robustness *rb = &r->robustness;
    memset(rb, 0, sizeof *rb);
    verdict_label(&r->verdict, rb->verdict, sizeof rb->verdict);
    rb->n_values = set->n_values;
    rb->cycles_low = rb->cycles_high = r->cycles;
    r->robust = alloc_grow(r->robust, &r->cap_robust, rb->n_values, 16, sizeof *r->robust);
    for (unsigned i = 0; i < rb->n_values; i++)
        init_value(r, &set->m->uncertain[i], &r->robust[i]);
    struct analysis_plan *baseline = alloc_resize(NULL, 1, sizeof *baseline);
    *baseline = *plan;
    baseline->n_lanes = baseline->n_common = 1;
    baseline->sensitivity = false;
    const struct robust_run run = { plan, baseline, measure, ctx, scratch };
    bool ok = measure_all(r, set, &run, threads ? threads : 1, err, errlen);
    free(baseline);
    rb->holds = true;
    for (unsigned i = 0; i < rb->n_values && ok; i++) {
        struct result_robust_value *v = &r->robust[i];
        bool moved = false;
        for (int k = 0; k < 2; k++) {
            const struct result_robust_end *e = &v->end[k];
            moved |= e->moved;
            v->holds &= e->holds;
            rb->cycles_low = fmin(rb->cycles_low, e->cycles);
            rb->cycles_high = fmax(rb->cycles_high, e->cycles);
        }
        rb->n_moved += moved;
        rb->holds &= v->holds;
    }
    rb->checked = ok;
    if (ok)
        robust_text(r);
    return ok;
}
