/* The step over a range of lanes, each rule of the model stated once (Gus, seed 001, Algorithm 1,
 * for many configurations at once), the causality lane's taints kept by hooks; compiled once per
 * vector extension and once for lane 0 alone. */
#include "kernel.h"
#include "model_impl.h"

/* The front end delivers an instruction when it is decoded and an issue slot is free. On the
 * legacy path the decoders take, each cycle, up to decode_width predecoded instructions in
 * order; an instruction of several uops (or one a `decoder complex` rule names) needs one of the
 * first complex_decoders decoders, one of more than four comes from the microcode sequencer,
 * which holds the decoders meanwhile; a branch ends the cycle. A fusible instruction waits for the next one to be predecoded (it may be
 * the jump it fuses with): it is accounted for here, with the next one. */
/* By paths (rt_model_path), the legacy decoders deliver nothing before the last redirect, run
 * ahead of issue by at most the IDQ's uops and, taking over from the uop cache, start
 * uop_cache_switch cycles late: their predecoder resumes no earlier (SCALE: a cycle, as the
 * front-end knob makes it). */
static void fe_restart(struct rt_model *md, const struct step *s, unsigned l, double scale)
{
    double low = md->m->idq ? md->fe_t[l] - md->m->idq * md->fe_cost[l] : -INFINITY;   /* 0: no limit */
    if (md->fe_low[l] > low)
        low = md->fe_low[l];
    if (s->fe_switch)
        low += md->m->uop_cache_switch * scale;
    if (md->pd_t[l] < low - scale)
        md->pd_t[l] = low - scale;
}

/* The cycle lane L's legacy decoders deliver the instruction in (before issue has a slot). */
static double fe_decode(struct rt_model *md, const struct step *s, unsigned l)
{
    const struct mdl_machine *m = md->m;
    double scale = md->fe_cost[l] * (m->issue_width ? m->issue_width : 1);  /* the front-end knob */
    if (md->paths)
        fe_restart(md, s, l, scale);
    double p = md->pd_t[l] += s->pd_cycles * scale;
    if (s->fuse_wait && p > md->dec_t[l]) {
        md->dec_t[l] = p;
        md->dec_free[l] = m->decode_width - 1;
    }
    uint32_t uops = s->t->uops_fused;
    bool complex = (uops > 1 || s->t->complex_decode) && m->complex_decoders &&
                   m->decode_width - md->dec_free[l] >= m->complex_decoders;
    double d = md->dec_t[l];
    if (md->dec_free[l] < 1 || p > d || complex) {
        d = d + scale > p ? d + scale : p;
        md->dec_free[l] = m->decode_width;
    }
    md->dec_free[l] -= 1;
    md->dec_t[l] = d;
    if (uops > 4) {
        /* a cycle to switch to the sequencer, four uops a cycle, a cycle to switch back */
        md->dec_t[l] = d + (2 + ceil(uops / 4.0)) * scale;
        md->dec_free[l] = 0;
    }
    if (s->in->branch != RT_BR_NONE)
        md->dec_free[l] = 0;
    return d;
}

/* Without paths the decoders' state moves with the instructions' lengths and forms and the
 * front end's speed only, not with the back end: the lanes of lane 0's speed decode in its
 * cycles, and take its state rather than repeat its work (moved to their own clock, behind lane
 * 0's by fe_off once they rested apart: the rules are the same from any start time). */
static bool decodes_as_lane0(const struct rt_model *md, unsigned l)
{
    return l > 0 && !md->paths && md->fe_cost[l] == md->fe_cost[0];
}

/* Where the instruction's uops have ports (ports.h), the ports stand for the port sets: only
 * `maximum` groups remain abstract. */
static inline bool port_placed(const struct rt_model *md, const struct step *s, unsigned r)
{
    return s->placed && !md->m->resources[r].is_group;
}

/* As the instruction issues in the baseline lane at D0: its issue slot, and its uops' ports. */
static inline void choose_ports(struct rt_model *md, const struct step *s, double d0)
{
    if (!md->pc)
        return;
    ports_issue(md->pc, d0, s->t->uops_fused + s->in->sync);
    if (s->placed)
        ports_choose(md->pc, s->t, s->stores && !s->loads, &md->choice);
}

/* ---- the step over lanes [a, b): each rule once ------------------------------------------------ */

/* Every rule of the model is a pass over a range of lanes [a, b) of the lane-contiguous arrays
 * (Algorithm 1 for many configurations at once): one lookup of a register, resource or memory
 * word serves every lane, and the passes vectorise. The per-lane value of a rule is one inline
 * function, which the pass applies to each lane.
 *
 * The causality lane goes through the same passes. While a period is open (TN not NULL; then
 * the range starts at lane 0, the baseline), a pass first calls its hook for lane 0: the hook
 * reads lane 0's values before the pass changes them and keeps the taint sets (which of the
 * constraints on a time bound it, a tie keeping both, seed 001's ConstrainBy / UsedBy / SetBy);
 * it never changes a time. The kernel is compiled once per vector extension (the passes over
 * the other lanes) and once in the baseline ISA for lane 0 alone (with its taints or not). */

static inline double dmax(double x, double y) { return x > y ? x : y; }

/* Times within this of a whole cycle are in it (lane 0's times are multiples of a quarter). */
#define EPS_CYCLE 1e-9

/* The cycle of time T >= 0. VEC: compiled for a vector extension, where floor() is one
 * instruction; else a floor without libm's call (the same value for T >= 0). */
static inline_always double cycle_of(double t, bool vec)
{
    return vec ? floor(t + EPS_CYCLE) : (double)(int64_t)(t + EPS_CYCLE);
}

/* The running time of lane 0 that a hook constrains: a copy, so that the hook decides the
 * sets as the pass decides the time, and the time stays the pass's. */
static inline_always void hook_constrain(struct taint *tn, unsigned set, double t0, double c, unsigned cset)
{
    taint_constrain(tn, set, &t0, c, cset);
}

/* T waits for R (registers, the windows' entries): R's set where it binds. */
static inline_always void pass_after(struct taint *tn, unsigned set, double *restrict t, const double *restrict r,
                                     unsigned rset, unsigned a, unsigned b)
{
    if (tn)
        hook_constrain(tn, set, t[0], r[0], rset);
    for (unsigned l = a; l < b; l++)
        t[l] = dmax(r[l], t[l]);
}

/* A value ready at R plus BYPASS cycles, scaled by the lane's latency scale (LAT). */
static inline_always double bypassed(const double *r, const double *lat, double bypass, unsigned l)
{
    return r[l] + bypass * lat[l];
}

static inline_always void pass_after_bypass(struct taint *tn, unsigned set, double *restrict t,
                                            const double *restrict r, const double *restrict lat, double bypass,
                                            unsigned rset, unsigned a, unsigned b)
{
    if (tn)
        hook_constrain(tn, set, t[0], bypassed(r, lat, bypass, 0), rset);
    for (unsigned l = a; l < b; l++)
        t[l] = dmax(bypassed(r, lat, bypass, l), t[l]);
}

/* T waits for throughput resource R, which is then busy from dispatch D for COST (scaled): the
 * resource's set is what set its time, then its users (UsedBy). */
static inline_always void pass_use(struct taint *tn, unsigned set, unsigned rset, double *restrict t,
                                   double *restrict r, const double *restrict d, const double *restrict scale,
                                   double cost, unsigned a, unsigned b)
{
    if (tn) {
        double r0 = r[0];
        hook_constrain(tn, set, t[0], r0, rset);
        taint_used(tn, rset, &r0, d[0]);
    }
    for (unsigned l = a; l < b; l++) {
        t[l] = dmax(r[l], t[l]);
        r[l] = dmax(r[l], d[l]) + cost * scale[l];
    }
}

static inline_always void pass_copy(double *restrict to, const double *restrict from, unsigned a, unsigned b)
{
    for (unsigned l = a; l < b; l++)
        to[l] = from[l];
}

/* ---- dispatch ---- */

/* The row of ring R that the lanes of lane 0's SIZE wait for before NEED more slots (its
 * position in *POS), and the skip that leaves the other lanes out; the never row while it binds
 * nothing. */
static inline_always const double *window_row(const struct rt_model *md, const struct ring *r, uint32_t need,
                                              uint32_t size, const double **skip, uint64_t *pos)
{
    if (!ring_binds(r, need, size, pos)) {
        *skip = md->never;
        return md->never;
    }
    *skip = r->skip;
    return &r->t[(*pos & (r->cap - 1)) * md->L];
}

/* The lanes whose window has another size wait for their own row. */
static inline_always void window_odd(const struct ring *r, uint32_t need, const uint32_t *size, unsigned L, unsigned a,
                                     unsigned b, double *d)
{
    for (unsigned k = 0; k < r->n_odd; k++) {
        unsigned l = r->odd[k];
        double c;
        uint64_t pos;
        if (l >= a && l < b && ring_wait(r, need, size[l], L, l, &c, &pos) && c > d[l])
            d[l] = c;
    }
}

/* Dispatch waits for the window entries to retire and for the front end (Algorithm 1, lines
 * 20-26). */
static inline_always void pass_windows(double *restrict d, const double *restrict disp, const double *restrict fe,
                                       const double *restrict rob, const double *restrict rob_skip,
                                       const double *restrict lb, const double *restrict lb_skip,
                                       const double *restrict sb, const double *restrict sb_skip, unsigned a,
                                       unsigned b)
{
    for (unsigned l = a; l < b; l++)
        d[l] = dmax(dmax(dmax(dmax(rob[l] + rob_skip[l], disp[l]), lb[l] + lb_skip[l]), sb[l] + sb_skip[l]), fe[l]);
}

/* Lane 0's window bound with its causes (the entries it waited for), from its dispatch before. */
static inline_always double hook_windows(const struct rt_model *md, struct taint *tn, const double *rob,
                                         uint64_t rob_pos, const double *lb, uint64_t lb_pos, const double *sb,
                                         uint64_t sb_pos)
{
    double d = md->disp_t[0];
    if (rob != md->never)
        taint_constrain(tn, TN_DISPATCH, &d, rob[0], taint_rob(tn, rob_pos));
    if (lb != md->never)
        taint_constrain(tn, TN_DISPATCH, &d, lb[0], taint_lb(tn, lb_pos));
    if (sb != md->never)
        taint_constrain(tn, TN_DISPATCH, &d, sb[0], taint_sb(tn, sb_pos));
    return d;
}

/* Room for a group is made by the entries that freed while it waited: what set each of their
 * uops' starts is a cause (two chains in turn both hold the issue, not only the one whose entry
 * freed last). */
static void room_made(struct taint *tn, const uint64_t *made, unsigned n, double c)
{
    for (unsigned k = 0; k < n; k++)
        taint_constrain(tn, TN_DISPATCH, &c, c, taint_rs(tn, made[k]));
}

/* Lane 0 waited for its windows until W, for room in the scheduler until C (freed by the entries
 * MADE), for the front end until FE: the scheduler binds when it is later than the windows; when
 * the front end was waiting for the window or the scheduler (a tie included), they are the
 * cause, not the instructions the front end delivered before. */
static void hook_front(struct taint *tn, double w, double c, const uint64_t *made, unsigned n_made, double fe)
{
    if (c > w) {    /* then an entry freed to make room: N_MADE >= 1 */
        taint_constrain(tn, TN_DISPATCH, &w, c, taint_rs(tn, made[0]));
        room_made(tn, made + 1, n_made - 1, c);
    }
    if (fe <= w)
        taint_copy(tn, TN_FRONTEND, TN_DISPATCH);
    else
        taint_copy(tn, TN_DISPATCH, TN_FRONTEND);
    taint_add_current(tn, TN_FRONTEND);
}

/* Issue by groups (uiCA's renamer): up to issue_width fused uops issue together in a cycle, and a
 * group starts only once the scheduler has room for a whole one (station.h); an entry frees the
 * cycle after its uop starts. Whether an instruction of FUSED uops issuing at D joins the group
 * of cycle GC that has GN uops. */
static inline_always bool joins_group(double d, double gc, double gn, double fused, double width, bool vec)
{
    return (cycle_of(d, vec) == gc) & (gn + fused <= width);   /* &: no branch, the pass vectorises */
}

/* The lanes that start a group, a few, ask for room one by one (lane 0's entries that made it
 * go to MADE); the groups move on in one pass. */
static inline_always void pass_groups(struct rt_model *md, const struct step *s, unsigned a, unsigned b,
                                      double *restrict d, uint64_t *made, unsigned *n_made, bool vec)
{
    _Alignas(64) double starts[RT_MAX_LANES];
    double *restrict gc = md->grp_c, *restrict gn = md->grp_n;
    double fused = s->t->uops_fused + s->in->sync, w = md->m->issue_width;
    for (unsigned l = a; l < b; l++)
        starts[l] = !joins_group(d[l], gc[l], gn[l], fused, w, vec);
    *n_made = 0;
    if (a == 0)
        md->rs_wait0 = -INFINITY;
    /* the lanes that start a group where the scheduler may be full, 64 at a time in a mask: which
     * they are changes from step to step, and a branch per lane would guess wrong */
    bool any = station_any_may_be_full(md->rs, starts, a, b);
    for (unsigned at = a; any && at < b; at += 64) {
        unsigned end = b - at < 64 ? b : at + 64;
        uint64_t ask = 0;
        for (unsigned l = at; l < end; l++)
            ask |= (uint64_t)((starts[l] != 0) & station_may_be_full(md->rs, l)) << (l - at);
        for (; ask; ask &= ask - 1) {
            unsigned l = at + (unsigned)__builtin_ctzll(ask);
            uint64_t other[STATION_MADE_MAX];
            unsigned n_other;
            double c = station_room(md->rs, l, d[l], l == 0 ? made : other, l == 0 ? n_made : &n_other);
            if (l == 0)
                md->rs_wait0 = c;
            d[l] = dmax(d[l], c);
        }
    }
    /* A lane that joined kept its time; one that started waited, if at all, to a later cycle than
     * its group's (a lane issues in order: its time is never in a cycle before its group's), so
     * it still starts one: the test above holds after the wait. */
    for (unsigned l = a; l < b; l++) {
        bool join = starts[l] == 0;
        gn[l] = join ? gn[l] + fused : fused;
        gc[l] = join ? gc[l] : cycle_of(d[l], vec);
    }
}

/* The instruction dispatches at D: the front end moves on by its issue slots (uops / issue
 * width, the stack engine's synchronisation uop included); T starts there. */
static inline_always void pass_issue(const double *restrict d, double *restrict disp, double *restrict fe,
                                     const double *restrict fe_cost, double slots, double *restrict t, unsigned a,
                                     unsigned b)
{
    for (unsigned l = a; l < b; l++) {
        fe[l] = dmax(fe[l], d[l]) + slots * fe_cost[l];
        disp[l] = d[l];
        t[l] = d[l];
    }
}

static inline_always void kernel_dispatch(struct rt_model *md, const struct step *s, const struct kin *in,
                                          unsigned a, unsigned b, struct taint *tn, double *d, double *t, bool vec)
{
    unsigned L = md->L;
    const double *rob_skip, *lb_skip, *sb_skip;
    uint64_t rob_pos = 0, lb_pos = 0, sb_pos = 0;
    const double *rob = window_row(md, &md->rob_ring, s->uops, md->rob[0], &rob_skip, &rob_pos);
    const double *lb = window_row(md, &md->lb_ring, s->loads, md->lb[0], &lb_skip, &lb_pos);
    const double *sb = window_row(md, &md->sb_ring, s->stores, md->sb[0], &sb_skip, &sb_pos);
    double w0 = tn ? hook_windows(md, tn, rob, rob_pos, lb, lb_pos, sb, sb_pos) : 0;
    pass_windows(d, md->disp_t, in->fe, rob, rob_skip, lb, lb_skip, sb, sb_skip, a, b);
    if (s->uops)
        window_odd(&md->rob_ring, s->uops, md->rob, L, a, b, d);
    if (s->loads)
        window_odd(&md->lb_ring, 1, md->lb, L, a, b, d);
    if (s->stores)
        window_odd(&md->sb_ring, 1, md->sb, L, a, b, d);
    uint64_t made[STATION_MADE_MAX];
    unsigned n_made;
    pass_groups(md, s, a, b, d, made, &n_made, vec);
    if (tn)
        hook_front(tn, w0, md->rs_wait0, made, n_made, in->fe[0]);
    pass_issue(d, md->disp_t, md->fe_t, md->fe_cost, s->t->uops_fused + s->in->sync, t, a, b);
}

/* ---- execution ---- */

static inline_always void kernel_regs(const struct rt_model *md, struct taint *tn, unsigned set, const uint8_t *regs,
                                      unsigned n, unsigned a, unsigned b, double *t)
{
    for (unsigned k = 0; k < n; k++)
        pass_after(tn, set, t, &md->reg_t[(size_t)regs[k] * md->L], tn ? taint_reg(tn, regs[k]) : 0, a, b);
}

/* A memory access uses the bandwidth of every level it crosses (step_crossings). */
static inline_always void kernel_cache(struct rt_model *md, const struct step *s, struct taint *tn, unsigned set,
                                       unsigned a, unsigned b, const double *d, double *t)
{
    for (unsigned x = 0; x < s->n_cross; x++) {
        unsigned k = s->cross[x].k;
        size_t row = (size_t)k * md->L;
        pass_use(tn, set, tn ? taint_cache(tn, k) : 0, t, &md->cache_t[row], d, &md->cache_scale[row],
                 s->cross[x].cost, a, b);
    }
}

/* The serial unit and the resources of the instruction's mapping; the ports stand for those
 * they place, but in the lanes without dependencies (no_ports), where the resources bound them. */
static inline_always void kernel_resources(struct rt_model *md, const struct step *s, struct taint *tn, unsigned set,
                                           unsigned a, unsigned b, const double *d, double *t)
{
    const struct mdl_machine *m = md->m;
    if (s->serial > 0)
        pass_use(tn, set, tn ? taint_res(tn, m->n_resources) : 0, t, md->ser_t, d, md->ser_scale, s->serial, a, b);
    const struct mdl_use *u = &m->uses[s->t->use_first];
    for (unsigned k = 0; k < s->t->use_count; k++) {
        size_t row = (size_t)u[k].resource * md->L;
        if (!port_placed(md, s, u[k].resource)) {
            pass_use(tn, set, tn ? taint_res(tn, u[k].resource) : 0, t, &md->res_t[row], d, &md->res_scale[row],
                     u[k].cost, a, b);
            continue;
        }
        for (unsigned j = 0; j < md->n_no_ports; j++) {     /* never lane 0: the baseline has ports */
            unsigned l = md->no_ports[j];
            if (l >= a && l < b) {
                t[l] = dmax(md->res_t[row + l], t[l]);
                md->res_t[row + l] = dmax(md->res_t[row + l], d[l]) + u[k].cost * md->res_scale[row + l];
            }
        }
    }
    const struct mdl_async_use *as = &m->async_uses[s->t->async_first];
    for (unsigned k = 0; k < s->t->async_count; k++)
        for (unsigned l = a; l < b; l++)
            md->async_total[(size_t)as[k].resource * md->L + l] += as[k].cost;
}

/* How a copy of the kernel gives the lanes' uops their ports: a lane at a time, or in a pass over
 * the lanes of a port (ports_take_lanes_) in AVX2's instructions or in AVX-512's, which convert
 * 64-bit integers and count their leading zeros. */
enum ports_pass { PASS_SCALAR, PASS_AVX2, PASS_AVX512 };

/* The uops of the instruction that run WHEN (ports.h; their ports chosen as the step began):
 * each takes its port from the time T was when they became ready, and the instruction goes on
 * once they have started, the K-th of them allowed K cycles after the first (a form's uops run
 * one after another). Each lane's ports see its uops in the same order. A port holds what set
 * the time of its last uop, that uop included: a uop it makes wait waits for that uop, and so
 * for what that uop waited for (a port that only held its users would cut every chain it delays
 * from its past). */
static inline_always void kernel_ports(struct rt_model *md, const struct step *s, struct taint *tn, unsigned set,
                                       unsigned a, unsigned b, const double *d, double *t, enum ports_when when,
                                       enum ports_pass pass)
{
    if (!s->placed)
        return;
    const struct ports_choice *c = &md->choice;
    _Alignas(64) double from[RT_MAX_LANES], at[RT_MAX_LANES];
    _Alignas(64) uint64_t left[RT_MAX_LANES];
    pass_copy(from, t, a, b);
    const struct ports_lanes *pl = md->pl;
    unsigned rank = 0, step = pass == PASS_AVX512 ? PORTS_PASS : PORTS_PASS_AVX2;
    for (unsigned u = 0; u < c->n; u++) {
        if (c->when[u] != when)
            continue;
        size_t row = (size_t)c->port[u] * pl->L;
        double len = c->len[u];
        int64_t n = ports_cycles(len);
        if (pass != PASS_SCALAR && n == 1 && len > 0) {
            /* the lanes a vector at a time where the window has the cycle, the others after; in
             * whole passes (the rows and ports_off are padded to them) */
            ports_take_lanes_(pl->base + row, pl->bits[0] + row, pl->bits[1] + row, pl->scale + row, pl->per + row,
                              from, d, md->ports_off, rank, at, left, a, b, a / step * step,
                              (b + step - 1) / step * step, pass == PASS_AVX512);
            uint64_t any = 0;   /* a pass: a uop is seldom left to ports_take_on */
            for (unsigned l = a; l < b; l++)
                any |= left[l];
            for (unsigned l = a; any && l < b; l++)
                if (left[l])
                    at[l] = ports_take_on(pl, row + l, from[l], len, n, d[l]) - rank;
        } else {
            for (unsigned l = a; l < b; l++)
                at[l] = md->ports_off[l] ? -INFINITY : ports_take_on(pl, row + l, from[l], len, n, d[l]) - rank;
        }
        if (tn) {
            unsigned ps = taint_res(tn, md->m->n_resources + 1u + c->port[u]);
            if (at[0] > t[0])
                hook_constrain(tn, set, t[0], at[0], ps);
            taint_copy(tn, ps, set);
            taint_add_current(tn, ps);
        }
        for (unsigned l = a; l < b; l++)
            t[l] = dmax(at[l], t[l]);
        rank++;
    }
}

/* A load waits for a store it reads, EXTRA cycles (scaled) beyond its data. */
static inline_always double forwarded(const double *st, const double *lat, double extra, unsigned l)
{
    return st[l] + extra * lat[l];
}

/* The operation starts after its load: the load-to-use latency and that of the hierarchy.
 * Instruction latency and the memory hierarchy's latency are separate resources; the bound
 * without dependencies (LAT 0) drops both. */
static inline_always double load_done(const double *ld, const double *lat, const double *mem, double load_lat,
                                      double extra, unsigned l)
{
    return ld[l] + load_lat * lat[l] + (lat[l] > 0 ? extra * mem[l] : 0);
}

/* A miss waits for an entry at each level it passes: in each lane, the miss as many before it as
 * the lane keeps in flight has completed. */
static inline_always void kernel_miss_entries(struct rt_model *md, const struct step *s, struct taint *tn,
                                              unsigned a, unsigned b, double *ld)
{
    const struct fills *fl = &md->fills;
    const struct fills_step *f = &s->fills;
    for (unsigned j = 0; j < f->n_levels; j++) {
        const struct fills_ring *r = &fl->ring[f->at[j].level];
        uint64_t pos = f->at[j].pos;
        if (tn && r->count[0] && pos >= r->count[0])
            hook_constrain(tn, TN_LOAD, ld[0], fills_slot(fl, f->at[j].level, pos - r->count[0])[0],
                           taint_slot(tn, fills_set(fl, f->at[j].level, pos - r->count[0])));
        for (unsigned l = a; l < b; l++)
            if (r->count[l] && pos >= r->count[l])
                ld[l] = dmax(fills_slot(fl, f->at[j].level, pos - r->count[l])[l], ld[l]);
    }
}

/* A load to a line still being filled completes with it; a miss records when its line arrives
 * (DONE: the load's completion), for the loads after it and in the entries it holds. */
static inline_always void kernel_fills(struct rt_model *md, const struct step *s, struct taint *tn, unsigned a,
                                       unsigned b, double *done)
{
    const struct fills_step *f = &s->fills;
    if (f->wait >= 0)
        pass_after(tn, TN_LOAD, done, fills_done(&md->fills, f->wait), tn ? taint_fill(tn, (unsigned)f->wait) : 0,
                   a, b);
    if (f->fill < 0)
        return;
    if (tn) {
        taint_copy(tn, taint_fill(tn, (unsigned)f->fill), TN_LOAD);
        taint_add_current(tn, taint_fill(tn, (unsigned)f->fill));
    }
    pass_copy(fills_done(&md->fills, f->fill), done, a, b);
    for (unsigned j = 0; j < f->n_levels; j++) {
        pass_copy(fills_slot(&md->fills, f->at[j].level, f->at[j].pos), done, a, b);
        if (tn)
            taint_copy(tn, taint_slot(tn, f->at[j].set), taint_fill(tn, (unsigned)f->fill));
    }
}

/* Loads wait for their address registers and for the store they read from (shadow memory:
 * store-to-load forwarding, whose data carries the set of what computed it), then take their
 * load-to-use latency, or the arrival of the line they wait for. */
static inline_always void kernel_load(struct rt_model *md, const struct step *s, const struct kin *in,
                                      struct taint *tn, unsigned a, unsigned b, const double *d, double *t, enum ports_pass pass)
{
    _Alignas(64) double ld[RT_MAX_LANES], done[RT_MAX_LANES];
    if (tn)
        taint_copy(tn, TN_LOAD, TN_DISPATCH);
    pass_copy(ld, d, a, b);
    kernel_cache(md, s, tn, TN_LOAD, a, b, d, ld);
    kernel_regs(md, tn, TN_LOAD, s->in->addr, s->in->n_addr, a, b, ld);
    for (unsigned k = 0; k < s->n_reads; k++) {
        const double *st = in->load[k], *lat = md->lat_scale;
        double extra = s->read_extra[k];
        if (tn) {
            double ld0 = ld[0];
            uint64_t seq = shadow_seq(&md->mem, s->read_st[k]);
            if (taint_store_kept(tn, seq))
                taint_constrain(tn, TN_LOAD, &ld0, forwarded(st, lat, extra, 0), taint_store(tn, seq));
            else
                taint_constrain_seq(tn, TN_LOAD, &ld0, forwarded(st, lat, extra, 0), seq);
        }
        for (unsigned l = a; l < b; l++)
            ld[l] = dmax(forwarded(st, lat, extra, l), ld[l]);
    }
    kernel_miss_entries(md, s, tn, a, b, ld);
    /* A load takes its port when it issues, before its latency: the ports bound the load, not
     * the operation after it (else a load's latency would hide its port's throughput). */
    if (!s->in->eliminated)
        kernel_resources(md, s, tn, TN_LOAD, a, b, d, ld);
    kernel_ports(md, s, tn, TN_LOAD, a, b, d, ld, PORTS_AT_LOAD, pass);
    if (a == 0)
        md->load0 = ld[0];
    pass_copy(md->rs_t, ld, a, b);
    const double *lat = md->lat_scale, *mem = md->mem_scale;
    for (unsigned l = a; l < b; l++)
        done[l] = load_done(ld, lat, mem, s->load_lat, s->extra_lat, l);
    kernel_fills(md, s, tn, a, b, done);
    if (a == 0)
        md->load0_done = done[0];
    if (tn)
        hook_constrain(tn, TN_INSN, t[0], done[0], TN_LOAD);
    for (unsigned l = a; l < b; l++)
        t[l] = dmax(done[l], t[l]);
}

/* When a uop whose operands are ready at SRC may start, issued at D: operands ready in the cycle
 * it issues or the next cost the description's wakeup_delay more (uiCA's scheduler; scaled as
 * latencies are). A delay, not a cause: no taint of its own. */
static inline_always double woken(double src, double d, double lat, double delay, bool vec)
{
    double x = src - cycle_of(d, vec);
    return ((x > -EPS_CYCLE) & (x < 2 - EPS_CYCLE)) ? src + delay * lat : src;  /* &: as joins_group */
}

/* T waits for the operands (SRC: the load, then the source registers with their bypasses) and
 * for the wakeup delay. */
static inline_always void kernel_operands(struct rt_model *md, const struct step *s, struct taint *tn, unsigned a,
                                          unsigned b, const double *d, double *t, bool vec)
{
    const double *lat = md->lat_scale;
    _Alignas(64) double src[RT_MAX_LANES];
    for (unsigned l = a; l < b; l++)
        src[l] = s->loads ? t[l] : -INFINITY;
    for (unsigned k = 0; k < s->in->n_src; k++) {
        const double *r = &md->reg_t[(size_t)s->in->src[k] * md->L];
        pass_after_bypass(tn, TN_INSN, t, r, lat, s->src_bypass[k], tn ? taint_reg(tn, s->in->src[k]) : 0, a, b);
        pass_after_bypass(NULL, 0, src, r, lat, s->src_bypass[k], 0, a, b);
    }
    if (md->m->wakeup_delay > 0 && !s->in->eliminated)
        for (unsigned l = a; l < b; l++)
            t[l] = dmax(woken(src[l], d[l], lat[l], md->m->wakeup_delay, vec), t[l]);
}

/* The result is ready OP_LAT (scaled) after the start; retirement follows in order, retire_width
 * uops per cycle, and a window entry frees at retirement. T becomes the result's time. */
static inline_always void pass_retire(double *restrict t, const double *restrict lat, double op_lat,
                                      double *restrict ret, double *restrict last, const double *restrict ret_cost,
                                      double uops, double *restrict retire, double *restrict latest, unsigned a,
                                      unsigned b)
{
    for (unsigned l = a; l < b; l++) {
        double end = t[l] + op_lat * lat[l];
        latest[l] = dmax(latest[l], end);
        double r = dmax(ret[l], end);
        t[l] = end;
        ret[l] = r + uops * ret_cost[l];
        last[l] = r;
        retire[l] = r;
    }
}

/* A mispredicted branch redirects the front end once it resolves, after the penalty. */
static inline_always double redirect(const double *end, const double *penalty, unsigned l)
{
    return end[l] + penalty[l];
}

/* Lane 0's result (END[0], from the instruction's set), its writes (registers and stored data), a
 * redirect of its front end (FE: the front end before it) and its retirement (RET: the retire slot before it). The
 * retirement carries what set it: the instruction's execution, or the older instruction it
 * waited for (then it is not itself on the path; the retire slots are not counted as a cause, or
 * every instruction behind a long one would be). */
static void hook_retire(const struct rt_model *md, const struct step *s, struct taint *tn, double fe, double ret,
                        const double *end)
{
    taint_add_current(tn, TN_INSN);
    for (unsigned k = 0; k < s->in->n_dst; k++)
        taint_copy(tn, taint_reg(tn, s->in->dst[k]), TN_INSN);
    if (s->n_writes)
        taint_store_data(tn, TN_INSN);
    if (s->mispredicted)
        hook_constrain(tn, TN_FRONTEND, fe, redirect(end, md->penalty, 0), TN_INSN);
    hook_constrain(tn, TN_RETIRE, ret, end[0], TN_INSN);
    taint_copy(tn, TN_RETIRED, TN_RETIRE);
}

/* One step of lanes [a, b) (TN: lane 0's taints, then A is 0; VEC: compiled for a vector
 * extension; PASS: how the lanes' uops take their ports); each lane's retirement time to RETIRE. */
static inline_always void step_kernel(struct rt_model *md, const struct step *s, const struct kin *in, unsigned a,
                                      unsigned b, struct taint *tn, double *retire, bool vec, enum ports_pass pass)
{
    _Alignas(64) double d[RT_MAX_LANES], t[RT_MAX_LANES];
    kernel_dispatch(md, s, in, a, b, tn, d, t, vec);
    if (a == 0)
        choose_ports(md, s, d[0]);
    if (tn)
        taint_copy(tn, TN_INSN, TN_DISPATCH);
    if (s->loads)
        kernel_load(md, s, in, tn, a, b, d, t, pass);
    else if (s->stores)
        kernel_cache(md, s, tn, TN_INSN, a, b, d, t);
    if (s->stores) {
        kernel_regs(md, tn, TN_INSN, s->in->addr, s->in->n_addr, a, b, t);
        kernel_ports(md, s, tn, TN_INSN, a, b, d, t, PORTS_AT_ADDRESS, pass);
    }
    kernel_operands(md, s, tn, a, b, d, t, vec);
    if (!s->in->eliminated && !s->loads)
        kernel_resources(md, s, tn, TN_INSN, a, b, d, t);
    kernel_ports(md, s, tn, TN_INSN, a, b, d, t, PORTS_AT_OPERATION, pass);
    if (!s->loads)
        pass_copy(md->rs_t, t, a, b);
    /* A scheduler entry holds what set its uop's start (not the uop: an instruction that waits
     * for room waits for the chain that holds the entry, and in a full scheduler every load
     * would otherwise be on the path of the instructions after it). */
    for (uint32_t k = 0; tn && k < s->rs_uops; k++)
        taint_copy(tn, taint_rs(tn, station_next(md->rs) + k), s->loads ? TN_LOAD : TN_INSN);
    double fe0 = md->fe_t[0], ret0 = md->ret_t[0];
    pass_retire(t, md->lat_scale, s->op_lat, md->ret_t, md->last_ret, md->ret_cost, s->uops, retire, md->end_t, a, b);
    for (unsigned k = 0; k < s->in->n_dst; k++)
        pass_copy(&md->reg_t[(size_t)s->in->dst[k] * md->L], t, a, b);
    for (unsigned k = 0; k < s->n_writes; k++)
        pass_copy(in->store[k], t, a, b);
    if (tn)
        hook_retire(md, s, tn, fe0, ret0, t);
    for (unsigned l = a; s->mispredicted && l < b; l++) {
        md->fe_t[l] = dmax(redirect(t, md->penalty, l), md->fe_t[l]);
        md->fe_low[l] = md->fe_t[l];
    }
}

/* The kernel compiled for each vector extension the build knows, the widest the processor has
 * chosen when a model is made (rt_model_vectors can choose another). The baseline ISA's copy
 * takes a floor without libm. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES 1
#else
#define VECTOR_CLONES 0
#endif

#define STEP_ARGS struct rt_model *md, const struct step *s, const struct kin *in, unsigned a, unsigned b, \
                  struct taint *tn, double *retire
#if VECTOR_CLONES
static __attribute__((target("avx512f,avx512cd,avx512dq,popcnt"))) void step_avx512(STEP_ARGS)
{
    step_kernel(md, s, in, a, b, tn, retire, true, PASS_AVX512);
}
static __attribute__((target("avx2,popcnt"))) void step_avx2(STEP_ARGS)
{
    step_kernel(md, s, in, a, b, tn, retire, true, PASS_AVX2);
}
#endif
static void step_default(STEP_ARGS) { step_kernel(md, s, in, a, b, tn, retire, false, PASS_SCALAR); }

/* Lane 0 alone, with its taints or without: the kernel over one lane, in the baseline ISA. */
static void step_baseline(struct rt_model *md, const struct step *s, const struct kin *in, struct taint *tn,
                          double *retire)
{
    step_kernel(md, s, in, 0, 1, tn, retire, false, PASS_SCALAR);
}

static const struct {
    const char *name;
    void (*step)(STEP_ARGS);
    unsigned group;                 /* doubles in its vectors */
} vector_isas[] = {
#if VECTOR_CLONES
    { "avx512f", step_avx512, 8 },
    { "avx2", step_avx2, 4 },
#endif
    { "default", step_default, 4 },
};

static bool isa_supported(const char *name)
{
#if VECTOR_CLONES
    if (!strcmp(name, "avx512f"))
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("popcnt");
    if (!strcmp(name, "avx2"))
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#endif
    return !strcmp(name, "default");
}

/* The widest copy of the kernel the processor runs. */
static unsigned widest_isa(void)
{
    unsigned k = 0;
    while (!isa_supported(vector_isas[k].name))
        k++;
    return k;
}

unsigned kernel_group(void) { return vector_isas[widest_isa()].group; }

void kernel_widest(struct rt_model *md) { md->step = vector_isas[widest_isa()].step; }

const char *kernel_isa(unsigned k)
{
    return k < sizeof vector_isas / sizeof *vector_isas ? vector_isas[k].name : NULL;
}

bool kernel_choose(struct rt_model *md, const char *isa)
{
    for (unsigned k = 0; k < sizeof vector_isas / sizeof *vector_isas; k++)
        if (!strcmp(vector_isas[k].name, isa) && isa_supported(isa)) {
            md->step = vector_isas[k].step;
            return true;
        }
    return false;
}

/* The passes' inputs for lanes [a, b): the legacy decoders' delivery times (FE_READY, one per
 * lane), and the lane arrays of the stores read and written (prep_memory made the new ones: no
 * store moves any more in this step). */
void kernel_inputs(struct rt_model *md, const struct step *s, unsigned a, unsigned b, double *fe_ready,
                          struct kin *in)
{
    in->fe = md->fe_t;
    if (md->legacy) {
        double d0 = 0;
        for (unsigned l = a; l < b; l++) {
            double d;
            if (a == 0 && decodes_as_lane0(md, l)) {
                double off = md->fe_off[l];
                md->pd_t[l] = md->pd_t[0] - off;
                md->dec_t[l] = md->dec_t[0] - off;
                md->dec_free[l] = md->dec_free[0];
                d = d0 - off;
            } else {
                d = fe_decode(md, s, l);
            }
            d0 = l == 0 ? d : d0;
            fe_ready[l] = dmax(md->fe_t[l], d);
        }
        in->fe = fe_ready;
    }
    for (unsigned k = 0; k < s->n_reads; k++)
        in->load[k] = shadow_times(&md->mem, s->read_st[k]);
    for (unsigned k = 0; k < s->n_writes; k++)
        in->store[k] = shadow_times(&md->mem, s->write_st[k]);
}

void kernel_step(struct rt_model *md, const struct step *s, const struct kin *in, double *retire)
{
    /* lane 0 alone in the copy of the baseline ISA, which a vector copy does not pay for one lane */
    if (md->live == 1)
        step_baseline(md, s, in, md->tn_on, retire);
    else
        md->step(md, s, in, 0, md->live, md->tn_on, retire);
}
