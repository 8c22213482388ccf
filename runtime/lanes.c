/* Lanes and slots: which lanes the model steps (the live slots), which share the baseline's state
 * until a step reads a parameter in which they differ, which are done; a lane's state moves with
 * it from slot to slot. */
#include "lanes.h"
#include "model_impl.h"

/* What the live slots have in common: the window sizes that differ from the baseline's, and
 * the slots whose uops are not given ports. */
void lanes_changed(struct rt_model *md)
{
    ring_lanes(&md->rob_ring, md->rob, md->live);
    ring_lanes(&md->lb_ring, md->lb, md->live);
    ring_lanes(&md->sb_ring, md->sb, md->live);
    md->n_no_ports = 0;
    for (unsigned l = 0; l < md->live; l++)
        if (md->ports_off[l])
            md->no_ports[md->n_no_ports++] = l;
}

/* LANE is stepped in SLOT from now on. */
static void lanes_place(struct rt_model *md, unsigned lane, unsigned slot)
{
    md->lane_state[lane] = LANE_LIVE;
    md->slot_of[lane] = slot;
    md->lane_of[slot] = lane;
}

static void size_diff(uint32_t *d, uint32_t size, uint32_t base)
{
    *d = size == base ? 0 : size < base ? size : base;
}

/* Where slot L's parameters differ from slot 0's (the baseline's). */
static void slot_diff(const struct rt_model *md, unsigned l, struct lane_diff *d)
{
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    *d = (struct lane_diff){ 0 };
    d->always = md->lat_scale[l] != md->lat_scale[0] || md->fe_cost[l] != md->fe_cost[0] ||
                md->ret_cost[l] != md->ret_cost[0] || md->ports_off[l] != md->ports_off[0];
    d->penalty = md->penalty[l] != md->penalty[0];
    d->memory = md->mem_scale[l] != md->mem_scale[0];
    d->serial = md->ser_scale[l] != md->ser_scale[0];
    d->misses = !fills_same(&md->fills, l);
    size_diff(&d->rob, md->rob[l], md->rob[0]);
    size_diff(&d->lb, md->lb[l], md->lb[0]);
    size_diff(&d->sb, md->sb[l], md->sb[0]);
    for (unsigned r = 0; r < m->n_resources; r++)
        if (md->res_scale[(size_t)r * L + l] != md->res_scale[(size_t)r * L]) {
            if (r < 64 * DIFF_RES_WORDS)
                d->res[r / 64] |= 1ull << (r % 64);
            else
                d->always = true;
        }
    for (unsigned k = 0; k < m->n_caches; k++)
        if (md->cache_scale[(size_t)k * L + l] != md->cache_scale[(size_t)k * L]) {
            if (k < 32)
                d->caches |= 1u << k;
            else
                d->always = true;
        }
    const struct ports_lanes *pl = md->pl;
    for (unsigned p = 0; pl && p < ports_count(md->pc); p++)
        if (pl->scale[(size_t)p * pl->L + l] != pl->scale[(size_t)p * pl->L])
            d->ports |= 1ull << p;
}

static uint32_t size_min(uint32_t a, uint32_t b) { return !a ? b : !b ? a : a < b ? a : b; }

/* D grows to hold what E differs in too. */
static void diff_merge(struct lane_diff *d, const struct lane_diff *e)
{
    d->always |= e->always;
    d->penalty |= e->penalty;
    d->memory |= e->memory;
    d->serial |= e->serial;
    d->misses |= e->misses;
    d->rob = size_min(d->rob, e->rob);
    d->lb = size_min(d->lb, e->lb);
    d->sb = size_min(d->sb, e->sb);
    d->caches |= e->caches;
    d->ports |= e->ports;
    for (unsigned w = 0; w < DIFF_RES_WORDS; w++)
        d->res[w] |= e->res[w];
}

static void shared_merge(struct rt_model *md)
{
    md->shared_any = (struct lane_diff){ 0 };
    for (unsigned k = 0; k < md->n_shared; k++)
        diff_merge(&md->shared_any, &md->diff[md->shared[k]]);
}

/* Whether lane L shares the baseline's state, as it may unless sharing is off or L reads a
 * parameter of its own at every step; if so, it does from now on. */
static bool lanes_try_share(struct rt_model *md, unsigned l)
{
    if (!md->share || md->diff[l].always)
        return false;
    md->lane_state[l] = LANE_SHARED;
    md->shared[md->n_shared++] = l;
    return true;
}

/* The lanes' parameters: the baseline in slot 0, each lane that reads a parameter of its own at
 * every step in the next slot, the others sharing the baseline's state (each is tried in the next
 * free slot to see where it differs). */
void lanes_set(struct rt_model *md, const struct rt_lane_cfg *lanes, unsigned n)
{
    md->n_lanes = n;
    if (md->cfg != lanes)
        memcpy(md->cfg, lanes, n * sizeof *lanes);
    md->live = md->n_shared = 0;
    md->paused = 1;
    memset(md->win_max, 0, sizeof md->win_max);
    for (unsigned l = 0; l < n; l++) {
        unsigned s = md->live;
        model_slot_params(md, &lanes[l], s);
        md->win_max[0] = md->rob[s] > md->win_max[0] ? md->rob[s] : md->win_max[0];
        md->win_max[1] = md->lb[s] > md->win_max[1] ? md->lb[s] : md->win_max[1];
        md->win_max[2] = md->sb[s] > md->win_max[2] ? md->sb[s] : md->win_max[2];
        slot_diff(md, s, &md->diff[l]);
        if (l > 0 && lanes_try_share(md, l))
            continue;
        lanes_place(md, l, s);
        md->live++;
    }
    shared_merge(md);
}

/* The rows of ring R written so far. */
static size_t ring_rows(const struct ring *r) { return r->pos < r->cap ? r->pos : r->cap; }

/* Slots TO[0..N)'s state becomes slot FROM's: row by row, every slot of a row at once (a pass over
 * the rows per slot, for the lanes that join a warm-up, took 4.9% of a three-core replay's time;
 * this 2.2%). */
static void lanes_copy(struct rt_model *md, unsigned from, const unsigned *to, unsigned n)
{
    if (!n)
        return;
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    struct { double *a; size_t rows; } cols[] = {
        { md->res_t, m->n_resources }, { md->cache_t, m->n_caches }, { md->reg_t, RT_REG_COUNT },
        { md->async_total, m->n_async },
        { md->rob_ring.t, ring_rows(&md->rob_ring) }, { md->lb_ring.t, ring_rows(&md->lb_ring) },
        { md->sb_ring.t, ring_rows(&md->sb_ring) },
    };
    for (unsigned c = 0; c < sizeof cols / sizeof *cols; c++)
        for (size_t i = 0; i < cols[c].rows; i++)
            for (unsigned j = 0; j < n; j++)
                cols[c].a[i * L + to[j]] = cols[c].a[i * L + from];
    double **per_lane[N_LANE_ARRAYS];
    model_lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_STATE; i++)
        for (unsigned j = 0; j < n; j++)
            (*per_lane[i])[to[j]] = (*per_lane[i])[from];
    for (unsigned j = 0; j < n; j++) {
        station_copy_lane(md->rs, from, to[j]);
        if (md->pc)
            ports_copy_lane(md->pc, from, to[j]);
    }
    shadow_copy_lanes(&md->mem, from, to, n);
    fills_copy_lanes(&md->fills, from, to, n);
}

/* LANE is stepped from now on in the next free slot, with its parameters; the slot, which the
 * caller gives the baseline's state as it is (lanes_copy, for all it forks at once). */
static unsigned lanes_fork(struct rt_model *md, unsigned lane)
{
    unsigned slot = md->live++;
    lanes_place(md, lane, slot);
    model_slot_params(md, &md->cfg[lane], slot);
    return slot;
}

const double *lanes_frozen(const struct rt_model *md, unsigned lane)
{
    return &md->frozen[(size_t)lane * (FROZEN + md->m->n_async)];
}

/* The slot whose readings are LANE's while it is not done: its own, or the baseline's. */
unsigned lanes_reading_slot(const struct rt_model *md, unsigned lane)
{
    return md->lane_state[lane] == LANE_LIVE ? md->slot_of[lane] : 0;
}

/* LANE's readings as they stand, kept while it is not stepped. */
static void lanes_freeze(struct rt_model *md, unsigned lane)
{
    unsigned s = lanes_reading_slot(md, lane), L = md->L;
    double *f = (double *)lanes_frozen(md, lane);
    f[FROZEN_TIME] = md->last_ret[s];
    f[FROZEN_LATEST] = md->end_t[s];
    f[FROZEN_ISSUED] = md->disp_t[s];
    for (unsigned a = 0; a < md->m->n_async; a++)
        f[FROZEN + a] = md->async_total[(size_t)a * L + s];
}

/* Slot FROM's lane moves to slot TO (its state, its parameters), as STATE. */
static void lanes_move(struct rt_model *md, unsigned from, unsigned to, unsigned state)
{
    unsigned lane = md->lane_of[from];
    if (from != to) {
        lanes_copy(md, from, &to, 1);
        lanes_place(md, lane, to);
        model_slot_params(md, &md->cfg[lane], to);
    }
    md->lane_state[lane] = (uint8_t)state;
}

void lanes_done(struct rt_model *md, unsigned lane)
{
    if (lane == 0 || lane >= md->n_lanes || md->lane_state[lane] == LANE_DONE)
        return;     /* the baseline steps on: it makes the choices every lane shares */
    if (md->lane_state[lane] == LANE_PAUSED) {     /* frozen when it paused: the last paused slot moves in */
        unsigned last = --md->paused;
        if (md->slot_of[lane] != last)
            lanes_move(md, last, md->slot_of[lane], LANE_PAUSED);
        md->lane_state[lane] = LANE_RESTING;
    }
    if (md->lane_state[lane] == LANE_RESTING) {
        md->lane_state[lane] = LANE_DONE;   /* frozen when it began to rest */
        return;
    }
    lanes_freeze(md, lane);
    unsigned s = lanes_reading_slot(md, lane);
    if (md->lane_state[lane] == LANE_SHARED) {
        unsigned k = 0;
        while (md->shared[k] != lane)
            k++;
        md->shared[k] = md->shared[--md->n_shared];
        shared_merge(md);
    } else {
        unsigned last = --md->live;     /* the last live slot moves into the lane's */
        if (s != last)
            lanes_move(md, last, s, LANE_LIVE);
        lanes_changed(md);
    }
    md->lane_state[lane] = LANE_DONE;
}

/* Every lane but the baseline and the done ones rests, frozen: the lanes stepped in a slot pause
 * there, their state kept, the sharing ones keep nothing (the baseline's state is theirs). Only
 * the baseline is stepped meanwhile. */
void lanes_rest(struct rt_model *md)
{
    for (unsigned l = 1; l < md->n_lanes; l++)
        if (md->lane_state[l] == LANE_LIVE || md->lane_state[l] == LANE_SHARED) {
            lanes_freeze(md, l);
            md->lane_state[l] = md->lane_state[l] == LANE_LIVE ? LANE_PAUSED : LANE_RESTING;
        }
    if (md->live > 1)               /* else the lanes paused before stay so */
        md->paused = md->live;
    md->live = 1;
    md->n_shared = 0;
    shared_merge(md);
    lanes_changed(md);
}

/* The paused lanes L with KEEP[L] (NULL: all) move to the first slots, as STATE; the others lose
 * their state (they rest, and take the baseline's when they join). The slots they take, the
 * baseline's counted. */
static unsigned paused_keep(struct rt_model *md, const bool *keep, unsigned state)
{
    unsigned k = 1;
    for (unsigned s = 1; s < md->paused; s++) {
        unsigned lane = md->lane_of[s];
        if (keep && !keep[lane])
            md->lane_state[lane] = LANE_RESTING;
        else
            lanes_move(md, s, k++, state);
    }
    return k;
}

void lanes_forget(struct rt_model *md, unsigned first)
{
    bool keep[RT_MAX_LANES];
    for (unsigned l = 0; l < md->n_lanes; l++)
        keep[l] = l < first;
    md->paused = paused_keep(md, keep, LANE_PAUSED);
}

/* The paused lanes in WHICH (NULL: all) go on from their own state; the others lose it. A lane
 * whose decoders follow lane 0's takes their state moved to its own clock (decodes_as_lane0). */
static void lanes_resume(struct rt_model *md, const bool *which)
{
    md->live = paused_keep(md, which, LANE_LIVE);
    md->paused = 1;
    for (unsigned k = 1; k < md->live; k++)
        md->fe_off[k] = md->pd_t[0] - md->pd_t[k];
}

/* The resting lanes in WHICH (NULL: all) join: the paused ones from their own state, the others
 * from the baseline's, shared where they may, else in a slot of their own with a copy of it. A lane
 * joining from the baseline's state starts in the phase the baseline's skips set (the checksum
 * loop's p0156 speed-up on Ice Lake read 1.100 from it, 1.0764 from its own, exact 1.0764). When
 * none joins, the paused lanes stay as they are. */
void lanes_join(struct rt_model *md, const bool *which)
{
    unsigned slots[RT_MAX_LANES], n = 0;
    bool any = !which;
    for (unsigned l = 1; l < md->n_lanes && !any; l++)
        any = which[l] && (md->lane_state[l] == LANE_PAUSED || md->lane_state[l] == LANE_RESTING);
    if (!any)
        return;
    if (md->live == 1)
        lanes_resume(md, which);
    for (unsigned l = 1; l < md->n_lanes; l++)
        if (md->lane_state[l] == LANE_RESTING && (!which || which[l]) && !lanes_try_share(md, l))
            slots[n++] = lanes_fork(md, l);
    lanes_copy(md, 0, slots, n);
    shared_merge(md);
    lanes_changed(md);
}

/* ---- lanes sharing the baseline's state ---- */

static bool uses_any(const struct rt_model *md, const struct mdl_template *t, const uint64_t *res)
{
    const struct mdl_use *u = &md->m->uses[t->use_first];
    for (unsigned k = 0; k < t->use_count; k++)
        if (u[k].resource < 64 * DIFF_RES_WORDS && (res[u[k].resource / 64] >> (u[k].resource % 64) & 1))
            return true;
    return false;
}

/* A window of the smaller of two sizes, SIZE, is full for the next NEED entries: from then on the
 * two sizes may bind differently. */
static bool window_full(const struct ring *r, uint32_t need, uint32_t size)
{
    uint64_t pos;
    return ring_binds(r, need, size, &pos);
}

/* Whether step S reads a parameter in which a lane differing in D from the baseline differs
 * (conservatively: a parameter it may read). Every parameter the step reads is here. */
static bool step_touches(const struct rt_model *md, const struct step *s, const struct lane_diff *d)
{
    bool ops = !s->in->eliminated;
    if (d->always || (d->penalty && s->mispredicted) || (d->memory && s->loads && s->extra_lat != 0) ||
        (d->serial && ops && s->serial > 0) || (d->misses && s->fills.n_levels) || (d->ports & s->port_units) ||
        window_full(&md->rob_ring, s->uops, d->rob) || window_full(&md->lb_ring, s->loads, d->lb) ||
        window_full(&md->sb_ring, s->stores, d->sb))
        return true;
    for (unsigned x = 0; d->caches && x < s->n_cross; x++)
        if (s->cross[x].k < 32 && (d->caches >> s->cross[x].k & 1))
            return true;
    return ops && uses_any(md, s->t, d->res);
}

/* The sharing lanes that step S touches take a slot each, with the baseline's state as it is
 * before the step: from here on they are stepped. */
static void share_split(struct rt_model *md, const struct step *s)
{
    unsigned slots[RT_MAX_LANES], n = 0;
    for (unsigned k = 0; k < md->n_shared;) {
        unsigned lane = md->shared[k];
        if (!step_touches(md, s, &md->diff[lane])) {
            k++;
            continue;
        }
        slots[n++] = lanes_fork(md, lane);
        md->shared[k] = md->shared[--md->n_shared];
    }
    lanes_copy(md, 0, slots, n);
    shared_merge(md);
    lanes_changed(md);
}

void lanes_split(struct rt_model *md, const struct step *s)
{
    if (md->n_shared && step_touches(md, s, &md->shared_any))
        share_split(md, s);
}
