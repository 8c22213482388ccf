/* Top-down slots of the baseline lane (seed 003): an observer of the step, which reads lane 0's
 * state after it and charges each gap before a dispatch to what held it. */
#include "topdown.h"
#include "model_impl.h"

/* No slots yet; no load outstanding at any level (empty intervals). */
void topdown_clear(struct rt_model *md)
{
    struct topdown *td = &md->td;
    td->sum = (struct rt_topdown){ .n_levels = md->n_data + 1 < RT_TD_LEVELS ? md->n_data + 1 : RT_TD_LEVELS };
    td->issue_end = 0;
    td->redirect = -INFINITY;
    td->on = true;
    for (unsigned k = 0; k < RT_TD_LEVELS; k++)
        td->spans[k].n = 0;
}

/* Lane 0's instructions issue in order, each in its own slots from its dispatch time; the time
 * between one's last slot and the next one's dispatch is a gap, charged to what held the dispatch
 * back. Lane 0's state is read after its step, whichever copy of the kernel stepped it (each
 * hands back when its load started and completed). Gaps are summed in cycles and
 * retiring is what the gaps leave of the issue time: a step without a gap costs a few loads and
 * stores, the scale by the issue width is left to the query. */

/* The latest window entry (ROB, load buffer, store buffer or scheduler) lane 0 waited for, read
 * before the step pushes its own entries; minus infinity when none binds. */
static double topdown_window(const struct rt_model *md, const struct step *s)
{
    double w = -INFINITY, c;
    uint64_t pos;
    if (ring_wait(&md->rob_ring, s->uops, md->rob[0], md->L, 0, &c, &pos) && c > w)
        w = c;
    if (s->loads && ring_wait(&md->lb_ring, 1, md->lb[0], md->L, 0, &c, &pos) && c > w)
        w = c;
    if (s->stores && ring_wait(&md->sb_ring, 1, md->sb[0], md->L, 0, &c, &pos) && c > w)
        w = c;
    return md->rs_wait0 > w ? md->rs_wait0 : w;
}

/* Forgets the spans that ended before A: the gaps asked about only move forward in time. */
static void spans_prune(struct td_spans *sp, double a)
{
    unsigned k = 0;
    while (k < sp->n && sp->hi[k] <= a)
        k++;
    if (k == 0)
        return;
    sp->n -= k;
    memmove(sp->lo, sp->lo + k, sp->n * sizeof *sp->lo);
    memmove(sp->hi, sp->hi + k, sp->n * sizeof *sp->hi);
}

/* Adds [LO, HI], merged with the spans it touches. Full, the oldest span goes. */
static void spans_add(struct td_spans *sp, double lo, double hi)
{
    unsigned i = sp->n;
    while (i > 0 && sp->lo[i - 1] > lo)
        i--;
    if (i > 0 && sp->hi[i - 1] >= lo) {         /* joins the span before */
        i--;
        lo = sp->lo[i];
        hi = hi > sp->hi[i] ? hi : sp->hi[i];
    } else {
        if (sp->n == TD_SPANS) {
            if (i == 0)
                return;
            memmove(sp->lo, sp->lo + 1, (TD_SPANS - 1) * sizeof *sp->lo);
            memmove(sp->hi, sp->hi + 1, (TD_SPANS - 1) * sizeof *sp->hi);
            sp->n--;
            i--;
        }
        memmove(sp->lo + i + 1, sp->lo + i, (sp->n - i) * sizeof *sp->lo);
        memmove(sp->hi + i + 1, sp->hi + i, (sp->n - i) * sizeof *sp->hi);
        sp->n++;
    }
    unsigned j = i + 1;                         /* the spans after it that it reaches */
    while (j < sp->n && sp->lo[j] <= hi) {
        hi = hi > sp->hi[j] ? hi : sp->hi[j];
        j++;
    }
    sp->lo[i] = lo;
    sp->hi[i] = hi;
    memmove(sp->lo + i + 1, sp->lo + j, (sp->n - j) * sizeof *sp->lo);
    memmove(sp->hi + i + 1, sp->hi + j, (sp->n - j) * sizeof *sp->hi);
    sp->n -= j - i - 1;
}

/* The length of [A, B] covered by the pieces P[0..N) (clipped to it), which it sorts. */
static double pieces_cover(double (*p)[2], unsigned n, double a, double b)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && p[j - 1][0] > p[j][0]; j--) {
            double t0 = p[j][0], t1 = p[j][1];
            p[j][0] = p[j - 1][0], p[j][1] = p[j - 1][1];
            p[j - 1][0] = t0, p[j - 1][1] = t1;
        }
    double covered = 0, at = a;
    for (unsigned i = 0; i < n; i++) {
        double lo = p[i][0] > at ? p[i][0] : at, hi = p[i][1] < b ? p[i][1] : b;
        if (hi > lo) {
            covered += hi - lo;
            at = hi;
        }
    }
    return covered;
}

/* The back end held [A, B]: each level takes the time during which a load it served was
 * outstanding and no deeper level's was (the paper's memory levels are the stalls while a miss
 * of that level is outstanding), deepest first; the core the rest. */
static bool spans_reach(const struct td_spans *sp, double a, double b)
{
    return sp->n && sp->lo[0] < b && sp->hi[sp->n - 1] > a;
}

static void topdown_backend(const struct topdown *td, double a, double b, struct rt_topdown *out)
{
    double pieces[RT_TD_LEVELS * TD_SPANS][2], deeper = 0;
    unsigned n = 0, first = out->n_levels;
    while (first > 0 && !spans_reach(&td->spans[first - 1], a, b))
        first--;                                /* the deepest level with a load in the gap */
    for (unsigned k = first; k-- > 0;) {
        const struct td_spans *sp = &td->spans[k];
        for (unsigned i = 0; i < sp->n && sp->lo[i] < b; i++)
            if (sp->hi[i] > a) {
                pieces[n][0] = sp->lo[i];
                pieces[n++][1] = sp->hi[i];
            }
        double cover = pieces_cover(pieces, n, a, b);
        if (cover > deeper) {
            out->memory[k] += cover - deeper;
            deeper = cover;
        }
    }
    out->core += b - a - deeper;
}

/* The front end held [A, B]. Up to a pending redirect the slots are bad speculation: the model
 * issues no wrong path, so the slots from the branch to its resolution and the penalty after it
 * are the recovery. The front end's own slots are latency for the whole cycles in which it
 * delivered nothing, bandwidth for the rest: on the legacy path the decoders deliver at whole
 * cycles, so the whole cycles of a gap are those of the clock (the paper's latency counts cycles
 * of no delivery at all, its bandwidth the slots of cycles that delivered fewer than the width). */
static void topdown_frontend(struct topdown *td, double a, double b)
{
    if (td->redirect > a) {
        double r = td->redirect < b ? td->redirect : b;
        td->sum.bad_speculation += r - a;
        a = r;
    }
    double g = b - a, whole = (double)(int64_t)(g + 1e-9);     /* floor: g >= 0 */
    if (whole > g)
        whole = g;
    td->sum.frontend_latency += whole;
    td->sum.frontend_bandwidth += g - whole;
}

/* The serving level of the step's load (the deepest of its accesses, or of the fill it waits for),
 * within the entries kept. */
static unsigned topdown_level(const struct rt_model *md, const struct step *s)
{
    unsigned k = s->fills.wait >= 0 ? s->fills.wait_level : 0;   /* a hit waiting for a line on its way */
    for (unsigned i = 0; s->levels && i < s->in->n_mem; i++)
        if (s->in->mem[i].load && s->levels[i] > k)
            k = s->levels[i];
    return k < md->td.sum.n_levels ? k : md->td.sum.n_levels - 1;
}

/* The step's load was outstanding from its start (once its address, the store it reads and its
 * port were ready) until it completed (the kernel's load_done, kept for lane 0). It
 * counts only when its completion, through the operation after it, set the instruction's
 * retirement: then the oldest instruction in the window waited for memory. A load that completed
 * before older instructions retired (a gemm's loads, issued far ahead of its add chain) held
 * nothing back, whatever was outstanding meanwhile. */
static void topdown_load(struct rt_model *md, const struct step *s)
{
    double lat = md->lat_scale[0], start = md->load0, done = md->load0_done;
    if (done > start && done + s->op_lat * lat >= md->last_ret[0])
        spans_add(&md->td.spans[topdown_level(md, s)], start, done);
}

/* The gap [A, D] before the step's dispatch at D, which the window bound (a tie included, as in
 * the kernel's dispatch) or else the front end. A redirect always leaves a gap before the next dispatch:
 * it is consumed there. */
static void topdown_gap(struct rt_model *md, const struct step *s, double a, double d)
{
    struct topdown *td = &md->td;
    if (topdown_window(md, s) >= d) {
        for (unsigned k = 0; k < td->sum.n_levels; k++)
            spans_prune(&td->spans[k], a);
        topdown_backend(td, a, d, &td->sum);
    }
    else
        topdown_frontend(td, a, d);
    td->redirect = -INFINITY;
}

/* After lane 0's step, before its window entries are pushed. Dispatch never precedes the previous
 * slots' end, where the front end moved; the front end then moves to the end of the step's slots,
 * unless a mispredicted branch's redirect holds it later. */
void topdown_step(struct rt_model *md, const struct step *s)
{
    struct topdown *td = &md->td;
    double d = md->disp_t[0], a = td->issue_end;
    if (d > a)
        topdown_gap(md, s, a, d);
    td->issue_end = md->fe_t[0];
    if (s->mispredicted) {
        td->issue_end = (d > a ? d : a) + (s->t->uops_fused + s->in->sync) * md->fe_cost[0];
        if (md->fe_t[0] > td->issue_end)
            td->redirect = md->fe_t[0];
    }
    if (s->loads && !s->in->eliminated)
        topdown_load(md, s);
}

double rt_topdown_gaps(const struct rt_topdown *t)
{
    double gaps = t->bad_speculation + t->frontend_latency + t->frontend_bandwidth + t->core;
    for (unsigned k = 0; k < t->n_levels && k < RT_TD_LEVELS; k++)
        gaps += t->memory[k];
    return gaps;
}

/* Summed from retiring on, category by category (not retiring plus the gaps): the same
 * rounding as the three sums it replaced in block mode and the analysis. */
double rt_topdown_total(const struct rt_topdown *t)
{
    double total = t->retiring + t->bad_speculation + t->frontend_latency + t->frontend_bandwidth + t->core;
    for (unsigned k = 0; k < t->n_levels && k < RT_TD_LEVELS; k++)
        total += t->memory[k];
    return total;
}

void topdown_read(const struct rt_model *md, bool with_tail, struct rt_topdown *out)
{
    const struct topdown *td = &md->td;
    double w = md->m->issue_width, end = md->last_ret[0], issue = td->issue_end;
    *out = td->sum;
    if (with_tail && end >= issue)
        topdown_backend(td, issue, end, out);
    /* the last slots beyond the end of the run are not counted */
    double total = with_tail ? end : issue;
    out->retiring = (total - rt_topdown_gaps(out)) * w;
    out->bad_speculation *= w;
    out->frontend_latency *= w;
    out->frontend_bandwidth *= w;
    out->core *= w;
    for (unsigned k = 0; k < out->n_levels; k++)
        out->memory[k] *= w;
}
