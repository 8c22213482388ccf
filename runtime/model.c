/* Gus's constraint propagation (seed 001, Algorithm 1): every resource keeps the earliest time
 * it is available; an instruction starts at the latest of its constraints and pushes the
 * resources it uses forward. State is stored lane-contiguous ([entity][lane]) so that one
 * lookup of a register or resource serves every lane. */
#include "model.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ports.h"
#include "station.h"
#include "shadow.h"
#include "taint.h"

/* For the step's pieces, which exist once with taints and once without (and once per vector
 * extension for the passes over lanes): each copy keeps only its own branches. */
#define inline_always inline __attribute__((always_inline))

struct ring {                       /* retire times of the last `cap` window entries, per lane */
    double *t;                      /* [cap][lanes] */
    uint32_t cap;
    uint64_t pos;
    /* Most lanes have the baseline's size: they read the same row. SKIP[l] is 0 for them and
     * -infinity for the others (ODD), which read their own. */
    double *skip;                   /* [lanes] */
    unsigned *odd, n_odd;
};

/* Top-down slot accounting of lane 0 (rt_model_topdown): the slots up to the end of the last
 * issue slot, and what is needed to attribute the next gap. */
/* When loads served by one level were outstanding: disjoint spans, by start time. A chase's loads
 * follow each other and make one span; independent misses overlap and merge. */
enum { TD_SPANS = 64 };
struct td_spans {
    double lo[TD_SPANS], hi[TD_SPANS];
    unsigned n;
};

struct topdown {
    struct rt_topdown sum;          /* in cycles; retiring is left to rt_model_topdown */
    double issue_end;               /* the end of the last instruction's issue slots */
    double redirect;                /* fe_t[0] as a mispredicted branch's redirect set it, not moved since;
                                       minus infinity when it moved */
    struct td_spans spans[RT_TD_LEVELS];    /* per serving level */
    bool on;                        /* counting (rt_model_topdown_stop ends it) */
};

/* What the step needs of a static instruction that stays the same from one execution to the
 * next, derived at its first. */
struct prep {
    bool ready;
    bool loads, stores;
    uint8_t cls;                    /* the form's class, else the decoder's */
    uint32_t uops;                  /* fused-domain slots in the window */
    uint32_t rs_uops;               /* scheduler entries: its unfused uops, none if eliminated */
    double op_lat, load_lat;        /* execution after the operands; load-to-use of its load */
    double serial;                  /* measured inverse throughput beyond what its ports explain */
    bool placed;                    /* its uops are given ports (ports.h) */
    uint64_t port_units;            /* the ports its uops may take, where placed */
};

/* Where a lane's parameters differ from the baseline's: until a step reads one of them, the lane
 * has the baseline's state and need not be stepped (lanes and slots, below). */
enum { DIFF_RES_WORDS = 4 };        /* resources told apart; a machine of more: any resource counts */
struct lane_diff {
    bool always;                    /* a scale every step reads (latency, issue, retirement) */
    bool penalty, memory, serial;   /* the mispredict penalty, latency beyond L1, the serial unit */
    uint32_t rob, lb, sb;           /* where the window sizes differ, the smaller (0: the same) */
    uint32_t caches;                /* cache levels of another bandwidth */
    uint64_t ports;                 /* ports of another speed */
    uint64_t res[DIFF_RES_WORDS];   /* resources of another cost */
};

/* A lane is stepped in a slot of its own (LIVE), shares the baseline's state (SHARED: none of its
 * parameters read so far differs), or is measured and keeps what it had (DONE). */
enum { LANE_LIVE, LANE_SHARED, LANE_DONE };

struct step;
struct kin;

struct rt_model {
    const struct mdl_machine *m;
    /* the kernel's copy for the vector extension chosen (rt_model_vectors) */
    void (*step)(struct rt_model *md, const struct step *s, const struct kin *in, unsigned a, unsigned b,
                 struct taint *tn, double *retire);
    unsigned L;                     /* slots, padded: the stride of every [entity][slot] array */
    /* Lanes and slots: the parameters and state of a lane being stepped are its slot's (every
     * [entity][slot] array below); slots [0, live) are stepped, slot 0 is the baseline's. */
    unsigned n_lanes, live;
    struct rt_lane_cfg *cfg;        /* [n_lanes] */
    uint8_t *lane_state;            /* [n_lanes]: LANE_* */
    unsigned *slot_of;              /* [n_lanes]: a live lane's slot */
    unsigned *lane_of;              /* [L]: the lane of a live slot */
    struct lane_diff *diff;         /* [n_lanes] */
    unsigned *shared, n_shared;     /* the lanes sharing the baseline's state */
    struct lane_diff shared_any;    /* what any of them differs in: a step touching none skips them */
    double *frozen;                 /* [n_lanes][FROZEN + n_async]: a done lane's readings */
    bool share;                     /* lanes may share the baseline's state (else each has a slot) */
    uint32_t win_max[3];            /* the largest ROB, load and store buffer of any lane */
    /* per-slot parameters */
    double *res_scale;              /* [n_resources][L]: multiplies a use's cost */
    double *cache_scale;            /* [n_caches][L] */
    double *lat_scale, *fe_cost, *ret_cost, *penalty;   /* [L] */
    double *mem_scale;              /* [L]: latency beyond the first cache level */
    uint32_t *rob, *lb, *sb;        /* [L] */
    double *never;                  /* [L]: minus infinity, a constraint that binds nothing */
    /* timing state, lane-contiguous */
    double *res_t;                  /* [n_resources][L] */
    double *cache_t;                /* [n_caches][L] */
    double *reg_t;                  /* [RT_REG_COUNT][L] */
    double *async_total;            /* [n_async][L] */
    double *fe_t, *disp_t, *ret_t, *last_ret;          /* [L] */
    double *pd_t, *dec_t, *dec_free; /* [L]: legacy decode: the current predecode and decode
                                       cycles, decoders still free in the latter */
    double *ser_t, *ser_scale;      /* [L]: the measured-throughput bound of microcoded forms */
    double *end_t;                  /* [L]: the latest result so far */
    bool legacy;                    /* instructions come through the legacy decoders */
    /* The predecoder's grouping depends on instruction lengths only, so it is the same in every
     * lane: where the unrolled code is, the fetch block of the current predecode cycle and how
     * many instructions that cycle has marked; whether the previous instruction was fusible. */
    uint64_t fe_addr;
    int64_t pd_block;
    unsigned pd_count;
    bool prev_fusible;
    unsigned data[8], n_data;       /* indices in m->caches of the data-side levels, in order */
    /* bypass rules by producer and consumer class: [0] register, [1] memory dependencies */
    int8_t byp_kind[2][MDL_CLASS_COUNT][MDL_CLASS_COUNT];      /* 0 none, 1 relative, 2 absolute */
    float byp_val[2][MDL_CLASS_COUNT][MDL_CLASS_COUNT];
    uint8_t reg_cls[RT_REG_COUNT];  /* class of each register's last writer */
    bool loaded[RT_REG_COUNT];      /* last written by an integer load of 4 or 8 bytes: a pointer */
    struct ring rob_ring, lb_ring, sb_ring;
    struct station *rs;             /* the scheduler's entries held, per lane */
    double *rs_t;                   /* [L] when the current instruction's first uop started */
    double *grp_c, *grp_n;          /* [L] the cycle of the current issue group, its fused uops */
    double rs_wait0;                /* when lane 0's current instruction found room in the scheduler */
    struct shadow mem;
    struct ports *pc;               /* the ports of each uop, where the machine chooses them; else NULL */
    const struct ports_lanes *pl;   /* its per-lane part */
    /* The lanes without dependencies: their uops are not given ports, the port sets bound them as
     * abstract resources (the baseline's choice of ports fits the baseline's timing, not a lane
     * whose every latency is zero: it put both FMAs of a chain on one port there). */
    unsigned *no_ports, n_no_ports;
    bool *ports_off;                /* [L]: whether the lane is one of them */
    struct ports_choice choice;     /* the current instruction's uops */
    /* causality, baseline lane only, in periods (taint.h) */
    struct taint *tn;
    struct taint *tn_on;            /* tn while a period is open, NULL otherwise */
    uint32_t leaving;               /* static index of the followed instruction the step pushes out */
    unsigned one_in;                /* sampled runs: one period in ONE_IN; 0: periods on request */
    uint64_t gap_left;              /* instructions before the next sampled period */
    uint64_t *crit, *seen;          /* [n_static] */
    double *charge;                 /* [n_static]: cycles the baseline's retirement moved on at its retirements */
    double ret0;                    /* the baseline's last retirement time */
    struct prep *prep;              /* [n_static] */
    uint32_t n_static;
    double load0;                   /* lane 0's start of the load just stepped (its latency follows) */
    struct topdown td;
};

const char *rt_knob_name(enum rt_knob k)
{
    static const char *const names[] = {
#define X(e, s, arg, kind, doc) s,
#include "knob.def"
#undef X
    };
    return (unsigned)k < RT_KNOB_COUNT ? names[k] : "?";
}

enum rt_knob_arg rt_knob_arg(enum rt_knob k)
{
    static const enum rt_knob_arg args[] = {
#define X(e, s, arg, kind, doc) RT_KNOB_ARG_##arg,
#include "knob.def"
#undef X
    };
    return (unsigned)k < RT_KNOB_COUNT ? args[k] : RT_KNOB_ARG_NONE;
}

enum rt_knob_kind rt_knob_kind(enum rt_knob k)
{
    static const enum rt_knob_kind kinds[] = {
#define X(e, s, arg, kind, doc) RT_KNOB_KIND_##kind,
#include "knob.def"
#undef X
    };
    return (unsigned)k < RT_KNOB_COUNT ? kinds[k] : RT_KNOB_KIND_BASE;
}

/* Zeroed, on a cache line: a vector load of lanes from the start of a row then never spans two
 * lines (the rows of lane arrays are whole vectors long, see padded). */
static void *xcalloc(size_t n, size_t size)
{
    size_t bytes = ((n ? n : 1) * size + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes);
    if (!p) {
        fputs("mdlsim: fatal: out of memory\n", stderr);
        abort();
    }
    memset(p, 0, bytes);
    return p;
}

static uint32_t pow2_above(uint32_t x)
{
    uint32_t c = 64;
    while (c <= x)
        c *= 2;
    return c;
}

/* ---- lane parameters ------------------------------------------------------------------- */

static double knob_scale(const struct rt_lane_cfg *c, enum rt_knob k, int arg)
{
    double s = 1;
    for (int i = 0; i < 2; i++) {
        if (c->knob[i] != k || (c->arg[i] != arg && rt_knob_arg(k) != RT_KNOB_ARG_NONE))
            continue;
        s /= c->weight;
    }
    return s;
}

static bool lane_has(const struct rt_lane_cfg *c, enum rt_knob k)
{
    return c->knob[0] == k || c->knob[1] == k;
}

static void lane_params(struct rt_model *md, const struct rt_lane_cfg *c, unsigned l)
{
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    bool infinite = lane_has(c, RT_KNOB_ALL_RESOURCES);
    for (unsigned r = 0; r < m->n_resources; r++)
        md->res_scale[r * L + l] = infinite ? 0 : knob_scale(c, RT_KNOB_RESOURCE, (int)r);
    for (unsigned k = 0; k < m->n_caches; k++)
        md->cache_scale[k * L + l] = infinite ? 0 : knob_scale(c, RT_KNOB_CACHE_BW, (int)k);
    md->lat_scale[l] = lane_has(c, RT_KNOB_NO_DEPS) ? 0 : knob_scale(c, RT_KNOB_LATENCY, 0);
    md->fe_cost[l] = m->issue_width ? knob_scale(c, RT_KNOB_FRONTEND, 0) / m->issue_width : 0;
    md->ret_cost[l] = m->retire_width ? knob_scale(c, RT_KNOB_RETIRE, 0) / m->retire_width : 0;
    md->penalty[l] = m->mispredict_penalty * knob_scale(c, RT_KNOB_MISPREDICT, 0);
    md->mem_scale[l] = knob_scale(c, RT_KNOB_MEMORY_LATENCY, 0);
    md->rob[l] = (uint32_t)lround((m->rob ? m->rob : 224) / knob_scale(c, RT_KNOB_ROB, 0));
    md->lb[l] = m->load_buffer ? (uint32_t)lround(m->load_buffer / knob_scale(c, RT_KNOB_LOAD_BUFFER, 0)) : 0;
    md->sb[l] = m->store_buffer ? (uint32_t)lround(m->store_buffer / knob_scale(c, RT_KNOB_STORE_BUFFER, 0)) : 0;
}

/* The description's bypass rules between classes, the last matching one winning as in the
 * language. Rules naming forms rather than classes are not applied yet. */
static void bypass_table(struct rt_model *md)
{
    const struct mdl_machine *m = md->m;
    for (unsigned i = 0; i < m->n_bypasses; i++) {
        const struct mdl_bypass *b = &m->bypasses[i];
        for (unsigned p = 0; p < MDL_CLASS_COUNT; p++)
            for (unsigned c = 0; c < MDL_CLASS_COUNT; c++)
                if ((b->from_classes >> p & 1) && (b->to_classes >> c & 1)) {
                    md->byp_kind[b->memory][p][c] = (int8_t)(b->sign ? 1 : 2);
                    md->byp_val[b->memory][p][c] = b->sign ? b->sign * b->latency : b->latency;
                }
    }
}

static uint32_t ring_cap(uint32_t largest) { return pow2_above(largest + 1); }

/* The scheduler entries whose taints are kept: any entry still held belongs to an instruction
 * in the window, of at most a window of fused uops, each a few unfused ones. */
static uint32_t rs_taints(const struct rt_model *md)
{
    return pow2_above(4 * (md->m->rob ? md->m->rob : 224) + md->m->scheduler);
}

/* Which of slots [0, N), whose windows have SIZE entries, have another size than slot 0's. */
static void ring_lanes(struct ring *r, const uint32_t *size, unsigned n)
{
    r->n_odd = 0;
    for (unsigned l = 0; l < n; l++) {
        r->skip[l] = size[l] != size[0] ? -INFINITY : 0;
        if (size[l] != size[0])
            r->odd[r->n_odd++] = l;
    }
}

/* Empty. The times need no clearing: an entry is read only once a window's worth have been
 * pushed after it (ring_wait). */
static void ring_reset(struct ring *r, const uint32_t *size, unsigned n)
{
    r->pos = 0;
    ring_lanes(r, size, n);
}

static void ring_init(struct ring *r, uint32_t largest, const uint32_t *size, unsigned n, unsigned L)
{
    r->cap = ring_cap(largest);
    r->t = xcalloc((size_t)r->cap * L, sizeof *r->t);
    r->skip = xcalloc(L, sizeof *r->skip);
    r->odd = xcalloc(L, sizeof *r->odd);
    ring_reset(r, size, n);
}

static void ring_free(struct ring *r)
{
    free(r->t);
    free(r->skip);
    free(r->odd);
}

static bool lanes_valid(const struct mdl_machine *m, const struct rt_lane_cfg *lanes, unsigned n, bool causality,
                        char *err, size_t errlen)
{
    if (n == 0 || n > RT_MAX_LANES) {
        snprintf(err, errlen, "between 1 and %d lanes", RT_MAX_LANES);
        return false;
    }
    if (causality && lanes[0].knob[0] != RT_KNOB_NONE) {
        snprintf(err, errlen, "causality follows lane 0: it must be the baseline");
        return false;
    }
    for (unsigned l = 0; l < n; l++)
        for (int i = 0; i < 2; i++) {
            enum rt_knob k = lanes[l].knob[i];
            if ((unsigned)k >= RT_KNOB_COUNT ||
                (rt_knob_arg(k) == RT_KNOB_ARG_RESOURCE && (unsigned)lanes[l].arg[i] >= m->n_resources) ||
                (rt_knob_arg(k) == RT_KNOB_ARG_CACHE && (unsigned)lanes[l].arg[i] >= m->n_caches) ||
                (k != RT_KNOB_NONE && lanes[l].weight <= 0)) {
                snprintf(err, errlen, "lane %u: invalid %s knob", l, rt_knob_name(k));
                return false;
            }
        }
    return true;
}

/* The arrays of one value per lane, allocated and freed together: the timing state first, then
 * the parameters. */
enum { N_LANE_STATE = 12, N_LANE_ARRAYS = 18 };

static void lane_arrays(struct rt_model *md, double **out[N_LANE_ARRAYS])
{
    double **all[N_LANE_ARRAYS] = { &md->fe_t, &md->disp_t, &md->ret_t, &md->last_ret, &md->pd_t, &md->dec_t,
                                    &md->dec_free, &md->ser_t, &md->end_t, &md->rs_t, &md->grp_c, &md->grp_n,
                                    &md->lat_scale, &md->fe_cost, &md->ret_cost, &md->penalty, &md->mem_scale,
                                    &md->ser_scale };
    memcpy(out, all, sizeof all);
}

/* Lane arrays are padded to a whole number of vectors (copies of lane 0): a lane row then starts
 * on a vector boundary, and a pass over all lanes has no remainder. */
static unsigned padded(unsigned n)
{
    unsigned g = rt_lane_group();
    return n > 1 ? (n + g - 1) / g * g : n;
}

/* ---- lanes and slots ------------------------------------------------------------------------ */

static void clear_state(struct rt_model *md);
static void vectors_widest(struct rt_model *md);

/* Lane C's parameters in slot L. */
static void slot_params(struct rt_model *md, const struct rt_lane_cfg *c, unsigned l)
{
    lane_params(md, c, l);
    md->ser_scale[l] = lane_has(c, RT_KNOB_ALL_RESOURCES) ? 0 : knob_scale(c, RT_KNOB_SERIAL, 0);
    if (md->pc)
        ports_lane_scale(md->pc, md->res_scale, l);
    md->ports_off[l] = md->pc && lane_has(c, RT_KNOB_NO_DEPS);
}

/* What the live slots have in common: the window sizes that differ from the baseline's, and
 * the slots whose uops are not given ports. */
static void slots_changed(struct rt_model *md)
{
    ring_lanes(&md->rob_ring, md->rob, md->live);
    ring_lanes(&md->lb_ring, md->lb, md->live);
    ring_lanes(&md->sb_ring, md->sb, md->live);
    md->n_no_ports = 0;
    for (unsigned l = 0; l < md->live; l++)
        if (md->ports_off[l])
            md->no_ports[md->n_no_ports++] = l;
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
        if (pl->cal[(size_t)p * L + l].scale != pl->cal[(size_t)p * L].scale)
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

/* The lanes' parameters: the baseline in slot 0, each lane that reads a parameter of its own at
 * every step in the next slot, the others sharing the baseline's state (each is tried in the next
 * free slot to see where it differs). */
static void set_lanes(struct rt_model *md, const struct rt_lane_cfg *lanes, unsigned n)
{
    md->n_lanes = n;
    if (md->cfg != lanes)
        memcpy(md->cfg, lanes, n * sizeof *lanes);
    md->live = md->n_shared = 0;
    memset(md->win_max, 0, sizeof md->win_max);
    for (unsigned l = 0; l < n; l++) {
        unsigned s = md->live;
        slot_params(md, &lanes[l], s);
        md->win_max[0] = md->rob[s] > md->win_max[0] ? md->rob[s] : md->win_max[0];
        md->win_max[1] = md->lb[s] > md->win_max[1] ? md->lb[s] : md->win_max[1];
        md->win_max[2] = md->sb[s] > md->win_max[2] ? md->sb[s] : md->win_max[2];
        slot_diff(md, s, &md->diff[l]);
        if (l > 0 && md->share && !md->diff[l].always) {
            md->lane_state[l] = LANE_SHARED;
            md->shared[md->n_shared++] = l;
            continue;
        }
        md->lane_state[l] = LANE_LIVE;
        md->slot_of[l] = s;
        md->lane_of[s] = l;
        md->live++;
    }
    shared_merge(md);
}

/* Slot TO's state becomes slot FROM's. */
static void slot_copy(struct rt_model *md, unsigned from, unsigned to)
{
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    struct { double *a; size_t rows; } cols[] = {
        { md->res_t, m->n_resources }, { md->cache_t, m->n_caches }, { md->reg_t, RT_REG_COUNT },
        { md->async_total, m->n_async },
        { md->rob_ring.t, md->rob_ring.pos < md->rob_ring.cap ? md->rob_ring.pos : md->rob_ring.cap },
        { md->lb_ring.t, md->lb_ring.pos < md->lb_ring.cap ? md->lb_ring.pos : md->lb_ring.cap },
        { md->sb_ring.t, md->sb_ring.pos < md->sb_ring.cap ? md->sb_ring.pos : md->sb_ring.cap },
    };
    for (unsigned c = 0; c < sizeof cols / sizeof *cols; c++)
        for (size_t i = 0; i < cols[c].rows; i++)
            cols[c].a[i * L + to] = cols[c].a[i * L + from];
    double **per_lane[N_LANE_ARRAYS];
    lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_STATE; i++)
        (*per_lane[i])[to] = (*per_lane[i])[from];
    station_copy_lane(md->rs, from, to);
    if (md->pc)
        ports_copy_lane(md->pc, from, to);
    shadow_copy_lane(&md->mem, from, to);
}

/* The readings a done lane keeps: its time, latest result and issue, then its async totals. */
enum { FROZEN_TIME, FROZEN_LATEST, FROZEN_ISSUED, FROZEN };

static const double *frozen_of(const struct rt_model *md, unsigned lane)
{
    return &md->frozen[(size_t)lane * (FROZEN + md->m->n_async)];
}

/* The slot whose readings are LANE's while it is not done: its own, or the baseline's. */
static unsigned reading_slot(const struct rt_model *md, unsigned lane)
{
    return md->lane_state[lane] == LANE_LIVE ? md->slot_of[lane] : 0;
}

void rt_model_lane_done(struct rt_model *md, unsigned lane)
{
    if (lane == 0 || lane >= md->n_lanes || md->lane_state[lane] == LANE_DONE)
        return;     /* the baseline steps on: it makes the choices every lane shares */
    unsigned s = reading_slot(md, lane), L = md->L;
    double *f = (double *)frozen_of(md, lane);
    f[FROZEN_TIME] = md->last_ret[s];
    f[FROZEN_LATEST] = md->end_t[s];
    f[FROZEN_ISSUED] = md->disp_t[s];
    for (unsigned a = 0; a < md->m->n_async; a++)
        f[FROZEN + a] = md->async_total[(size_t)a * L + s];
    if (md->lane_state[lane] == LANE_SHARED) {
        unsigned k = 0;
        while (md->shared[k] != lane)
            k++;
        md->shared[k] = md->shared[--md->n_shared];
        shared_merge(md);
    } else {
        unsigned last = --md->live;     /* the last live slot moves into the lane's */
        if (s != last) {
            slot_copy(md, last, s);
            md->lane_of[s] = md->lane_of[last];
            md->slot_of[md->lane_of[s]] = s;
            slot_params(md, &md->cfg[md->lane_of[s]], s);
        }
        slots_changed(md);
    }
    md->lane_state[lane] = LANE_DONE;
}

void rt_model_share_baseline(struct rt_model *md, bool on)
{
    md->share = on;
    set_lanes(md, md->cfg, md->n_lanes);
    slots_changed(md);
    clear_state(md);
}

/* No slots yet; no load outstanding at any level (empty intervals). */
static void topdown_clear(struct rt_model *md)
{
    struct topdown *td = &md->td;
    td->sum = (struct rt_topdown){ .n_levels = md->n_data + 1 < RT_TD_LEVELS ? md->n_data + 1 : RT_TD_LEVELS };
    td->issue_end = 0;
    td->redirect = -INFINITY;
    td->on = true;
    for (unsigned k = 0; k < RT_TD_LEVELS; k++)
        td->spans[k].n = 0;
}

/* Nothing timed yet: every time zero, the windows and shadow memory empty, no causality period,
 * no counts; the front end not on the legacy path. */
static void clear_state(struct rt_model *md)
{
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    memset(md->res_t, 0, (size_t)m->n_resources * L * sizeof *md->res_t);
    memset(md->cache_t, 0, (size_t)m->n_caches * L * sizeof *md->cache_t);
    memset(md->reg_t, 0, (size_t)RT_REG_COUNT * L * sizeof *md->reg_t);
    memset(md->async_total, 0, (size_t)m->n_async * L * sizeof *md->async_total);
    double **per_lane[N_LANE_ARRAYS];
    lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_STATE; i++)
        memset(*per_lane[i], 0, L * sizeof(double));
    ring_reset(&md->rob_ring, md->rob, md->live);
    ring_reset(&md->lb_ring, md->lb, md->live);
    ring_reset(&md->sb_ring, md->sb, md->live);
    station_clear(md->rs);
    shadow_clear(&md->mem);
    if (md->pc)
        ports_clear(md->pc);
    memset(md->reg_cls, 0, sizeof md->reg_cls);
    memset(md->loaded, 0, sizeof md->loaded);
    md->legacy = md->prev_fusible = false;
    md->fe_addr = 0;
    md->pd_block = 0;
    md->pd_count = 0;
    if (md->tn)
        taint_reset(md->tn);
    md->tn_on = NULL;
    md->leaving = UINT32_MAX;
    md->one_in = 1;
    md->gap_left = 0;
    memset(md->crit, 0, md->n_static * sizeof *md->crit);
    memset(md->seen, 0, md->n_static * sizeof *md->seen);
    memset(md->charge, 0, md->n_static * sizeof *md->charge);
    memset(md->prep, 0, md->n_static * sizeof *md->prep);
    md->ret0 = 0;
    md->rs_wait0 = -INFINITY;
    topdown_clear(md);
}

struct rt_model *rt_model_new(const struct mdl_machine *m, const struct rt_lane_cfg *lanes, unsigned n,
                              bool causality, unsigned n_static, char *err, size_t errlen)
{
    if (!lanes_valid(m, lanes, n, causality, err, errlen))
        return NULL;
    struct rt_model *md = xcalloc(1, sizeof *md);
    unsigned lanes_in = n;
    n = padded(n);      /* a lone lane is not padded: it takes the scalar path */
    md->m = m;
    md->L = n;
    vectors_widest(md);
    md->share = true;
    md->cfg = xcalloc(n, sizeof *md->cfg);
    md->lane_state = xcalloc(n, sizeof *md->lane_state);
    md->slot_of = xcalloc(n, sizeof *md->slot_of);
    md->lane_of = xcalloc(n, sizeof *md->lane_of);
    md->diff = xcalloc(n, sizeof *md->diff);
    md->shared = xcalloc(n, sizeof *md->shared);
    md->frozen = xcalloc((size_t)n * (FROZEN + m->n_async), sizeof *md->frozen);
    md->res_scale = xcalloc((size_t)m->n_resources * n, sizeof(double));
    md->cache_scale = xcalloc((size_t)m->n_caches * n, sizeof(double));
    double **per_lane[N_LANE_ARRAYS];
    lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_ARRAYS; i++)
        *per_lane[i] = xcalloc(n, sizeof(double));
    md->rob = xcalloc(n, sizeof(uint32_t));
    md->lb = xcalloc(n, sizeof(uint32_t));
    md->sb = xcalloc(n, sizeof(uint32_t));
    md->rs = station_new(m->scheduler, m->issue_width, n);
    md->pc = ports_new(m, n);
    md->pl = md->pc ? ports_lanes(md->pc) : NULL;
    md->no_ports = xcalloc(n, sizeof *md->no_ports);
    md->ports_off = xcalloc(n, sizeof *md->ports_off);
    set_lanes(md, lanes, lanes_in);
    md->never = xcalloc(n, sizeof(double));
    for (unsigned l = 0; l < n; l++)
        md->never[l] = -INFINITY;
    for (unsigned k = 0; k < m->n_caches && md->n_data < 8; k++)
        if (m->caches[k].kind != MDL_CACHE_INSTRUCTION)
            md->data[md->n_data++] = k;
    bypass_table(md);
    md->res_t = xcalloc((size_t)m->n_resources * n, sizeof(double));
    md->cache_t = xcalloc((size_t)m->n_caches * n, sizeof(double));
    md->reg_t = xcalloc((size_t)RT_REG_COUNT * n, sizeof(double));
    md->async_total = xcalloc((size_t)m->n_async * n, sizeof(double));
    ring_init(&md->rob_ring, md->win_max[0], md->rob, md->live, n);
    ring_init(&md->lb_ring, md->win_max[1], md->lb, md->live, n);
    ring_init(&md->sb_ring, md->win_max[2], md->sb, md->live, n);
    slots_changed(md);
    /* A store a full window older than a load has retired before the load dispatches (each
     * instruction takes at least one slot). The horizon is the same whatever the lanes, so that
     * they cannot change the baseline: 16 of the machine's windows cover a lane's window grown
     * by the largest weight (1000%: 11 times) with a margin. */
    shadow_init(&md->mem, n, 16ull * (m->rob ? m->rob : 224));
    md->n_static = n_static;
    md->crit = xcalloc(n_static, sizeof(uint64_t));
    md->charge = xcalloc(n_static, sizeof(double));
    md->seen = xcalloc(n_static, sizeof(uint64_t));
    md->prep = xcalloc(n_static, sizeof(struct prep));
    if (causality)
        md->tn = taint_new(2 * md->rob[0], m->n_resources + 1u + ports_count(md->pc), m->n_caches, RT_REG_COUNT,
                           md->rob_ring.cap, md->lb_ring.cap, md->sb_ring.cap, rs_taints(md));
    clear_state(md);
    return md;
}

static void grow_static(struct rt_model *md, uint32_t need);

bool rt_model_reset(struct rt_model *md, const struct rt_lane_cfg *lanes, unsigned n, unsigned n_static)
{
    char err[128];
    if (!lanes_valid(md->m, lanes, n, md->tn != NULL, err, sizeof err) || padded(n) != md->L)
        return false;
    set_lanes(md, lanes, n);
    slots_changed(md);
    if (ring_cap(md->win_max[0]) != md->rob_ring.cap || ring_cap(md->win_max[1]) != md->lb_ring.cap ||
        ring_cap(md->win_max[2]) != md->sb_ring.cap)
        return false;
    if (n_static > md->n_static)
        grow_static(md, n_static);
    clear_state(md);
    return true;
}

void rt_model_free(struct rt_model *md)
{
    if (!md)
        return;
    double **per_lane[N_LANE_ARRAYS];
    lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_ARRAYS; i++)
        free(*per_lane[i]);
    free(md->res_scale); free(md->cache_scale); free(md->rob); free(md->lb); free(md->sb); station_free(md->rs);
    free(md->never);
    free(md->res_t); free(md->cache_t); free(md->reg_t); free(md->async_total);
    ring_free(&md->rob_ring); ring_free(&md->lb_ring); ring_free(&md->sb_ring);
    shadow_free(&md->mem);
    ports_free(md->pc);
    free(md->no_ports);
    free(md->ports_off);
    free(md->cfg); free(md->lane_state); free(md->slot_of); free(md->lane_of); free(md->diff); free(md->shared);
    free(md->frozen);
    taint_free(md->tn);
    free(md->crit); free(md->seen); free(md->prep); free(md->charge);
    free(md);
}

void rt_insn_set_stack(struct rt_insn *in)
{
    if (!strncmp(in->key, "PUSH", 4) || !strncmp(in->key, "CALL", 4))
        in->stack = -8;
    else if (!strncmp(in->key, "POP", 3) || !strncmp(in->key, "RET", 3))
        in->stack = 8;
    else
        in->stack = 0;
}

bool rt_insn_reads_rsp(const struct rt_insn *in)
{
    const uint8_t rsp = RT_X86_GPR + 4;
    for (unsigned k = 0; k < in->n_src; k++)
        if (in->src[k] == rsp)
            return true;
    for (unsigned k = 0; k < in->n_addr; k++)
        if (in->addr[k] == rsp)
            return true;
    return false;
}

/* ---- one instruction --------------------------------------------------------------------- */

/* What the step of one lane needs about the instruction, computed once for all lanes. */
struct step {
    const struct rt_insn *in;
    const struct mdl_template *t;
    uint32_t uops;                  /* as in struct prep */
    uint32_t rs_uops;
    bool loads, stores;
    double op_lat, load_lat, serial;
    uint8_t cls;
    const uint64_t *addr;
    const uint8_t *levels;          /* serving cache level of each access; NULL: the first */
    double src_bypass[RT_MAX_SRC];  /* relative bypass latency of each data source */
    /* the stores its loads read, each with the cycles (before the latency scale) its value takes
     * beyond the store's data on top of the load's own latency; the stores it writes */
    unsigned n_reads, n_writes;
    uint32_t read_st[RT_MAX_MEM * SHADOW_MAX_READ];
    double read_extra[RT_MAX_MEM * SHADOW_MAX_READ];
    uint32_t write_st[RT_MAX_MEM];
    double extra_lat;               /* load-to-use beyond the first level */
    unsigned n_cross;               /* the cache levels its accesses cross, with their cycles */
    struct { unsigned k; double cost; } cross[RT_MAX_MEM * 8];
    double pd_cycles;               /* legacy predecode cycles from the previous instruction's */
    bool fuse_wait;                 /* the previous instruction was fusible */
    bool placed;                    /* its uops are given ports (ports.h) */
    uint64_t port_units;            /* as in struct prep */
    bool mispredicted;
};

static uint8_t insn_class(const struct rt_insn *in, const struct mdl_template *t)
{
    return t->cls < MDL_CLASS_COUNT ? t->cls : in->cls < MDL_CLASS_COUNT ? in->cls : MDL_CLASS_GENERIC;
}

/* Whether IN reads a register as data. A push or pop reads rsp for its slot's address only:
 * the stack engine moves rsp, no operation uses it. */
static bool reads_data(const struct rt_insn *in)
{
    for (unsigned k = 0; k < in->n_src; k++)
        if (!in->stack || in->src[k] != RT_X86_GPR + 4)
            return true;
    return false;
}

/* An integer divider whose range spans more than a factor two (Skylake's DIV r64, 5..89) finishes
 * early on easy operands (spec.md §10.3): the range runs over operand values, not only pairs,
 * and measured code (BHive's blocks; uiCA takes uops.info's per-pair minimum) sees the fast end.
 * A narrower range is one of operand pairs and keeps its upper bound. The result cannot come
 * before the serial unit has held the instruction for its measured occupancy (SERIAL, 0 when it
 * holds none). */
static bool data_dependent(uint8_t cls, const struct mdl_template *t)
{
    return cls == MDL_CLASS_INT_DIV && t->latency_max > 2 * t->latency_min;
}

static void prep_divider(const struct rt_model *md, const struct mdl_template *t, double serial, struct prep *s)
{
    s->op_lat = t->latency_min > serial ? t->latency_min : serial;
    s->load_lat = 0;
    if (s->loads)   /* a load before it, as any load-operation form's: a first-level hit plus one */
        s->load_lat = md->n_data ? md->m->caches[md->data[0]].latency + 1 : t->latency_max - t->latency_min;
}

/* A load form's latency range spans its load: uops.info's [1;6] for `add r64, m64` is 1 from
 * the register operand and 6 from the address. A pure load or store has no operation after it. */
static void prep_latencies(const struct rt_model *md, const struct rt_insn *in, const struct mdl_template *t,
                           struct prep *s)
{
    bool data_regs = reads_data(in);
    if (!in->eliminated && data_dependent(s->cls, t) && !s->stores) {
        prep_divider(md, t, s->serial, s);
    } else if (in->eliminated) {
        s->op_lat = s->load_lat = 0;
    } else if (s->loads && s->stores && md->n_data) {
        /* Read-modify-write: uops.info's latencies run through its store (memory to memory
         * through the next store-to-load forward, which shadow memory already chains); the load
         * here is a first level hit plus the forwarding cycle, then the operation, which takes
         * what the class's register form takes (its class default). */
        const struct mdl_template *op = &md->m->templates[md->m->class_default[insn_class(in, t)]];
        s->op_lat = op->latency_max > 1 ? op->latency_max : 1;
        s->load_lat = md->m->caches[md->data[0]].latency + 1;
    } else if (s->loads) {
        s->op_lat = data_regs && t->latency_max > t->latency_min ? t->latency_min : 0;
        s->load_lat = t->latency_max - s->op_lat;
        /* uops.info's upper end for a vector load-operation form is an upper bound measured
         * through memory ([4;<=11] for `addsd xmm, m64`): the load part of any load-operation form
         * is at most a first-level hit plus one, as a scalar form's is. */
        double hit = md->n_data ? md->m->caches[md->data[0]].latency + 1 : 0;
        if (s->op_lat > 0 && hit > 0 && s->load_lat > hit)
            s->load_lat = hit;
    } else if (s->stores) {
        s->op_lat = s->load_lat = 0;
    } else {
        s->op_lat = t->latency_max;
        s->load_lat = 0;
    }
}

/* Bypass latencies this execution sees from each source register's producer class (register
 * rules are relative: a domain crossing adds cycles). */
static void step_bypasses(struct rt_model *md, struct step *s)
{
    for (unsigned k = 0; k < s->in->n_src; k++) {
        uint8_t p = md->reg_cls[s->in->src[k]];
        s->src_bypass[k] = md->byp_kind[0][p][s->cls] == 1 ? md->byp_val[0][p][s->cls] : 0;
    }
}

/* What one load reads (R): a store that holds every byte forwards its data, in the bypass rule's
 * latency when one matches (§14); else forwarding fails and the load has its value the machine's
 * store_forward_fail cycles after the last of the stores' data (§12.4). Either replaces the
 * load's own latency; without a rule or a failure latency the load takes its own. */
static void step_read(struct rt_model *md, struct step *s, const struct shadow_read *r)
{
    double fail = md->m->store_forward_fail > 0 ? md->m->store_forward_fail - s->load_lat : 0;
    for (unsigned k = 0; k < r->n; k++) {
        uint8_t p = shadow_class(&md->mem, r->st[k]);
        double extra = fail;
        if (r->forwarded)
            extra = md->byp_kind[1][p][s->cls] == 2 ? md->byp_val[1][p][s->cls] - s->load_lat : 0;
        s->read_st[s->n_reads] = r->st[k];
        s->read_extra[s->n_reads++] = extra;
    }
}

/* The stores the loads read, then the new ones (program order: an instruction's load reads what
 * came before it). The writer is known while causality follows instructions. */
static void step_memory(struct rt_model *md, struct step *s)
{
    struct shadow_read r;
    s->n_reads = s->n_writes = 0;
    for (unsigned i = 0; i < s->in->n_mem && s->loads; i++)
        if (s->in->mem[i].load) {
            shadow_read(&md->mem, s->addr[i], s->in->mem[i].size, &r);
            step_read(md, s, &r);
        }
    uint64_t seq = md->tn ? taint_seq(md->tn) : 0;
    for (unsigned i = 0; i < s->in->n_mem && s->stores; i++)
        if (s->in->mem[i].store)
            s->write_st[s->n_writes++] = shadow_write(&md->mem, s->addr[i], s->in->mem[i].size, seq, s->cls);
}

/* An x86 scalar SIMD operation writes the low element of its destination and merges the rest
 * from a register it reads (cvtsi2sd's destination, the first source of the VEX forms). Where
 * its latency is a range, that merge takes the lower bound, the converted or computed value (the
 * last register operand) the upper one. */
static void step_merges(const struct rt_model *md, struct step *s)
{
    const struct rt_insn *in = s->in;
    const struct mdl_template *t = s->t;
    if (md->m->isa != MDL_ISA_X86_64 || s->loads || s->stores || in->eliminated || t->latency_min < 1 ||
        t->latency_min >= t->latency_max)
        return;
    uint8_t value = RT_REG_NONE;
    for (unsigned k = 0; k < in->n_ops; k++)
        if (in->op_reg[k] != RT_REG_NONE)
            value = in->op_reg[k];
    for (unsigned k = 0; k < in->n_src; k++) {
        uint8_t r = in->src[k];
        bool vec = r >= RT_X86_VEC && r < RT_X86_VEC + 32;
        for (unsigned j = 0; vec && r != value && j < in->n_dst; j++)
            if (in->dst[j] == r)
                s->src_bypass[k] += t->latency_min - t->latency_max;
    }
}

/* The pointer-chasing fast path (§12.4 pointer_chase): a load whose address is a base register
 * that a 4- or 8-byte integer load wrote, plus a displacement in [0, 2048) and no index, starts
 * its access before the full address addition and saves that many cycles. */
static void step_chase(const struct rt_model *md, struct step *s)
{
    for (unsigned i = 0; i < s->in->n_mem && s->loads && md->m->pointer_chase > 0; i++) {
        const struct rt_mem *a = &s->in->mem[i];
        if (!a->load)
            continue;
        if (a->base != RT_REG_NONE && a->index == RT_REG_NONE && a->disp >= 0 && a->disp < 2048 &&
            md->loaded[a->base])
            s->load_lat = s->load_lat > md->m->pointer_chase ? s->load_lat - md->m->pointer_chase : 0;
        return;
    }
}

/* Which registers IN leaves holding a pointer loaded from memory: the destinations of an
 * integer load of 4 or 8 bytes (not the stack pointer a pop moves), and of a move eliminated at
 * rename, which names its source's value (the load stays its producer). */
static void mark_loaded(struct rt_model *md, const struct rt_insn *in, uint8_t cls)
{
    bool load = cls == MDL_CLASS_LOAD && in->n_mem == 1 && in->mem[0].load && !in->mem[0].store &&
                in->mem[0].size >= 4;
    if (in->eliminated && in->n_src == 1 && in->n_mem == 0)
        load = md->loaded[in->src[0]];
    for (unsigned k = 0; k < in->n_dst; k++)
        md->loaded[in->dst[k]] = load && !(in->stack && in->dst[k] == RT_X86_GPR + 4);
}

/* Microcoded and serialising forms (lock, fences, dividers) are measured much slower than
 * their port mapping allows; their measured inverse throughput becomes one more resource,
 * shared by all such forms. Ordinary forms (within a factor 1.5 of their ports) pay nothing. */
double rt_serial_cost(const struct mdl_machine *m, const struct mdl_template *t)
{
    double most = 0;
    for (unsigned k = 0; k < t->use_count; k++)
        if (m->uses[t->use_first + k].cost > most)
            most = m->uses[t->use_first + k].cost;
    return t->tp >= 2 && t->tp > 1.5 * most ? t->tp : 0;
}

/* The window entry that must have retired before NEED more slots are taken, or none. */
static bool ring_wait(const struct ring *r, uint32_t need, uint32_t size, unsigned L, unsigned l,
                      double *t, uint64_t *pos)
{
    if (!size || !need || r->pos + need <= size)
        return false;
    *pos = r->pos + need - 1 - size;
    *t = r->t[(*pos & (r->cap - 1)) * L + l];
    return true;
}

/* Pushes N entries; only the first LIVE slots of each are written. */
static void ring_push(struct ring *r, uint32_t n, const double *t, unsigned L, unsigned live)
{
    for (uint32_t k = 0; k < n; k++, r->pos++) {
        double *slot = &r->t[(r->pos & (r->cap - 1)) * L];
        if (live == 1)
            *slot = *t;
        else
            memcpy(slot, t, live * sizeof *t);
    }
}

/* The legacy predecoder marks instruction boundaries in one fetch block per cycle, at most
 * predecode_width instructions. An instruction crossing into the next block is marked with that
 * block's first cycle; when the current cycle is already full and its opcode byte is still in
 * the current block, the crossing one costs a cycle of its own. A length-changing prefix stalls
 * it about three cycles (Intel's optimization manual, "Length-Changing Prefixes"). The code is
 * laid out back to back, so the address runs on. */
static double predecode_cycles(struct rt_model *md, const struct rt_insn *in)
{
    const struct mdl_machine *m = md->m;
    uint64_t a = md->fe_addr;
    md->fe_addr += in->len;
    int64_t block = (int64_t)(a / m->fetch_bytes);
    bool crosses = a % m->fetch_bytes + in->len > m->fetch_bytes;
    bool room = !m->predecode_width || md->pd_count < m->predecode_width;
    bool opcode_beyond = a % m->fetch_bytes + in->opcode_at >= m->fetch_bytes;
    double c = in->lcp ? 3 : 0;
    if (!crosses && md->pd_block == block && room) {
        md->pd_count++;
        return c;
    }
    if (crosses)
        c += md->pd_block == block && (room || opcode_beyond) ? 1 : 2;
    else
        c += 1;
    md->pd_block = crosses ? block + 1 : block;
    md->pd_count = 1;
    return c;
}

/* The front end delivers an instruction when it is decoded and an issue slot is free. On the
 * legacy path the decoders take, each cycle, up to decode_width predecoded instructions in
 * order; an instruction of several uops (or one a `decoder complex` rule names) needs one of the
 * first complex_decoders decoders, one of
 * more than four comes from the microcode sequencer, which holds the decoders meanwhile; a
 * branch ends the cycle. A fusible instruction waits for the next one to be predecoded (it may be
 * the jump it fuses with): it is accounted for here, with the next one. */
static double fe_avail(struct rt_model *md, const struct step *s, unsigned l)
{
    const struct mdl_machine *m = md->m;
    if (!md->legacy)
        return md->fe_t[l];
    double scale = md->fe_cost[l] * (m->issue_width ? m->issue_width : 1);  /* the front-end knob */
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
    return md->fe_t[l] > d ? md->fe_t[l] : d;
}

void rt_model_legacy_decode(struct rt_model *md, bool on)
{
    md->legacy = on && md->m->fetch_bytes && md->m->decode_width;
    md->pd_block = -1;
}

/* A memory access uses the bandwidth of every cache level it crosses, down to the one that
 * served it (Algorithm 1, lines 27-30): the bytes at the first level, a line below it. Levels
 * without a bandwidth limit cost nothing and are left out. */
static void step_crossings(const struct rt_model *md, struct step *s)
{
    s->n_cross = 0;
    for (unsigned i = 0; i < s->in->n_mem; i++) {
        const struct rt_mem *mem = &s->in->mem[i];
        unsigned last = s->levels ? s->levels[i] : 0u;
        for (unsigned j = 0; (mem->load || mem->store) && j < md->n_data && j <= last; j++) {
            const struct mdl_cache *c = &md->m->caches[md->data[j]];
            if (c->bandwidth <= 0 || s->n_cross == sizeof s->cross / sizeof *s->cross)
                continue;
            s->cross[s->n_cross].k = md->data[j];
            s->cross[s->n_cross++].cost = (j == 0 ? (mem->size ? mem->size : 8) : c->line) / c->bandwidth;
        }
    }
}

/* Load-to-use beyond the first level: the serving level's latency replaces the first's. */
static double level_extra(const struct rt_model *md, const struct step *s)
{
    double extra = 0;
    for (unsigned i = 0; s->levels && i < s->in->n_mem; i++) {
        unsigned k = s->levels[i];
        if (!s->in->mem[i].load || k == 0 || md->n_data == 0)
            continue;
        double base = md->m->caches[md->data[0]].latency;
        double lat = k < md->n_data ? md->m->caches[md->data[k]].latency : md->m->memory_latency;
        if (lat - base > extra)
            extra = lat - base;
    }
    return extra;
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

/* What the passes need from outside the model's arrays: when the front end delivers the
 * instruction in each lane, and the lane arrays of the stores it reads and writes. */
struct kin {
    const double *fe;
    const double *load[RT_MAX_MEM * SHADOW_MAX_READ];
    double *store[RT_MAX_MEM];
};

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
    if (!need || !size || r->pos + need <= size) {
        *skip = md->never;
        return md->never;
    }
    *skip = r->skip;
    *pos = r->pos + need - 1 - size;
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
    return cycle_of(d, vec) == gc && gn + fused <= width;
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
    for (unsigned l = a; l < b; l++)
        if (starts[l] != 0) {
            uint64_t other[STATION_MADE_MAX];
            unsigned n_other;
            double c = station_room(md->rs, l, d[l], l == 0 ? made : other, l == 0 ? n_made : &n_other);
            if (l == 0)
                md->rs_wait0 = c;
            d[l] = dmax(d[l], c);
        }
    for (unsigned l = a; l < b; l++) {
        double g = cycle_of(d[l], vec);
        bool join = joins_group(d[l], gc[l], gn[l], fused, w, vec);
        gn[l] = join ? gn[l] + fused : fused;
        gc[l] = join ? gc[l] : g;
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

/* The uops of the instruction that run WHEN (ports.h; their ports chosen as the step began):
 * each takes its port from the time T was when they became ready, and the instruction goes on
 * once they have started, the K-th of them allowed K cycles after the first (a form's uops run
 * one after another). Each lane's ports see its uops in the same order. A port holds what set
 * the time of its last uop, that uop included: a uop it makes wait waits for that uop, and so
 * for what that uop waited for (a port that only held its users would cut every chain it delays
 * from its past). */
static inline_always void kernel_ports(struct rt_model *md, const struct step *s, struct taint *tn, unsigned set,
                                       unsigned a, unsigned b, const double *d, double *t, enum ports_when when)
{
    if (!s->placed)
        return;
    const struct ports_choice *c = &md->choice;
    _Alignas(64) double from[RT_MAX_LANES], at[RT_MAX_LANES];
    pass_copy(from, t, a, b);
    unsigned rank = 0;
    for (unsigned u = 0; u < c->n; u++) {
        if (c->when[u] != when)
            continue;
        for (unsigned l = a; l < b; l++)
            at[l] = md->ports_off[l] ? -INFINITY : ports_take(md->pl, c->port[u], l, from[l], c->len[u], d[l]) - rank;
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

/* Loads wait for their address registers and for the store they read from (shadow memory:
 * store-to-load forwarding), then take their load-to-use latency. */
static inline_always void kernel_load(struct rt_model *md, const struct step *s, const struct kin *in,
                                      struct taint *tn, unsigned a, unsigned b, const double *d, double *t)
{
    _Alignas(64) double ld[RT_MAX_LANES];
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
            taint_constrain_seq(tn, TN_LOAD, &ld0, forwarded(st, lat, extra, 0), shadow_seq(&md->mem, s->read_st[k]));
        }
        for (unsigned l = a; l < b; l++)
            ld[l] = dmax(forwarded(st, lat, extra, l), ld[l]);
    }
    /* A load takes its port when it issues, before its latency: the ports bound the load, not
     * the operation after it (else a load's latency would hide its port's throughput). */
    if (!s->in->eliminated)
        kernel_resources(md, s, tn, TN_LOAD, a, b, d, ld);
    kernel_ports(md, s, tn, TN_LOAD, a, b, d, ld, PORTS_AT_LOAD);
    if (a == 0)
        md->load0 = ld[0];
    pass_copy(md->rs_t, ld, a, b);
    const double *lat = md->lat_scale, *mem = md->mem_scale;
    if (tn)
        hook_constrain(tn, TN_INSN, t[0], load_done(ld, lat, mem, s->load_lat, s->extra_lat, 0), TN_LOAD);
    for (unsigned l = a; l < b; l++)
        t[l] = dmax(load_done(ld, lat, mem, s->load_lat, s->extra_lat, l), t[l]);
}

/* When a uop whose operands are ready at SRC may start, issued at D: operands ready in the cycle
 * it issues or the next cost the description's wakeup_delay more (uiCA's scheduler; scaled as
 * latencies are). A delay, not a cause: no taint of its own. */
static inline_always double woken(double src, double d, double lat, double delay, bool vec)
{
    double x = src - cycle_of(d, vec);
    return x > -EPS_CYCLE && x < 2 - EPS_CYCLE ? src + delay * lat : src;
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

/* Lane 0's result (END[0], from the instruction's set), its writes, a redirect of its front end
 * (FE: the front end before it) and its retirement (RET: the retire slot before it). The
 * retirement carries what set it: the instruction's execution, or the older instruction it
 * waited for (then it is not itself on the path; the retire slots are not counted as a cause, or
 * every instruction behind a long one would be). */
static void hook_retire(const struct rt_model *md, const struct step *s, struct taint *tn, double fe, double ret,
                        const double *end)
{
    taint_add_current(tn, TN_INSN);
    for (unsigned k = 0; k < s->in->n_dst; k++)
        taint_copy(tn, taint_reg(tn, s->in->dst[k]), TN_INSN);
    if (s->mispredicted)
        hook_constrain(tn, TN_FRONTEND, fe, redirect(end, md->penalty, 0), TN_INSN);
    hook_constrain(tn, TN_RETIRE, ret, end[0], TN_INSN);
    taint_copy(tn, TN_RETIRED, TN_RETIRE);
}

/* One step of lanes [a, b) (TN: lane 0's taints, then A is 0; VEC: compiled for a vector
 * extension); each lane's retirement time to RETIRE. */
static inline_always void step_kernel(struct rt_model *md, const struct step *s, const struct kin *in, unsigned a,
                                      unsigned b, struct taint *tn, double *retire, bool vec)
{
    _Alignas(64) double d[RT_MAX_LANES], t[RT_MAX_LANES];
    kernel_dispatch(md, s, in, a, b, tn, d, t, vec);
    if (a == 0)
        choose_ports(md, s, d[0]);
    if (tn)
        taint_copy(tn, TN_INSN, TN_DISPATCH);
    if (s->loads)
        kernel_load(md, s, in, tn, a, b, d, t);
    else if (s->stores)
        kernel_cache(md, s, tn, TN_INSN, a, b, d, t);
    if (s->stores) {
        kernel_regs(md, tn, TN_INSN, s->in->addr, s->in->n_addr, a, b, t);
        kernel_ports(md, s, tn, TN_INSN, a, b, d, t, PORTS_AT_ADDRESS);
    }
    kernel_operands(md, s, tn, a, b, d, t, vec);
    if (!s->in->eliminated && !s->loads)
        kernel_resources(md, s, tn, TN_INSN, a, b, d, t);
    kernel_ports(md, s, tn, TN_INSN, a, b, d, t, PORTS_AT_OPERATION);
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
    for (unsigned l = a; s->mispredicted && l < b; l++)
        md->fe_t[l] = dmax(redirect(t, md->penalty, l), md->fe_t[l]);
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
static __attribute__((target("avx512f,popcnt"))) void step_avx512(STEP_ARGS)
{
    step_kernel(md, s, in, a, b, tn, retire, true);
}
static __attribute__((target("avx2,popcnt"))) void step_avx2(STEP_ARGS)
{
    step_kernel(md, s, in, a, b, tn, retire, true);
}
#endif
static void step_default(STEP_ARGS) { step_kernel(md, s, in, a, b, tn, retire, false); }

/* Lane 0 alone, with its taints or without: the kernel over one lane, in the baseline ISA. */
static void step_baseline(struct rt_model *md, const struct step *s, const struct kin *in, struct taint *tn,
                          double *retire)
{
    step_kernel(md, s, in, 0, 1, tn, retire, false);
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
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("popcnt");
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

unsigned rt_lane_group(void) { return vector_isas[widest_isa()].group; }

static void vectors_widest(struct rt_model *md) { md->step = vector_isas[widest_isa()].step; }

const char *rt_model_vector_isa(unsigned k)
{
    return k < sizeof vector_isas / sizeof *vector_isas ? vector_isas[k].name : NULL;
}

bool rt_model_vectors(struct rt_model *md, const char *isa)
{
    for (unsigned k = 0; k < sizeof vector_isas / sizeof *vector_isas; k++)
        if (!strcmp(vector_isas[k].name, isa) && isa_supported(isa)) {
            md->step = vector_isas[k].step;
            return true;
        }
    return false;
}

/* The passes' inputs for lanes [a, b): the legacy decoders' delivery times (FE_READY, one per
 * lane), and the lane arrays of the stores read and written (step_memory made the new ones: no
 * store moves any more in this step). */
static void kernel_inputs(struct rt_model *md, const struct step *s, unsigned a, unsigned b, double *fe_ready,
                          struct kin *in)
{
    in->fe = md->fe_t;
    if (md->legacy) {
        for (unsigned l = a; l < b; l++)
            fe_ready[l] = fe_avail(md, s, l);
        in->fe = fe_ready;
    }
    for (unsigned k = 0; k < s->n_reads; k++)
        in->load[k] = shadow_times(&md->mem, s->read_st[k]);
    for (unsigned k = 0; k < s->n_writes; k++)
        in->store[k] = shadow_times(&md->mem, s->write_st[k]);
}

void rt_model_follow(struct rt_model *md, uint32_t n)
{
    md->one_in = 0;
    if (md->tn)
        taint_follow(md->tn, n);
}

bool rt_model_following(const struct rt_model *md) { return md->tn && taint_open(md->tn); }

void rt_model_sample_causality(struct rt_model *md, unsigned one_in)
{
    md->one_in = one_in ? one_in : 1;
    md->gap_left = 0;
}

/* Causality for the instruction entering now: taints are on while a period is open; a sampled
 * run opens one (following a window's worth) after each gap of (one_in - 1) periods. */
static void causality_enter(struct rt_model *md, uint32_t sidx)
{
    struct taint *tn = md->tn;
    if (!taint_open(tn) && md->one_in) {
        if (md->gap_left == 0)
            taint_follow(tn, taint_window(tn));
        else
            md->gap_left--;
    }
    md->tn_on = NULL;
    if (!taint_open(tn)) {
        taint_pass(tn);
        return;
    }
    md->leaving = taint_enter(tn, sidx);
    md->tn_on = tn;
}

/* Once the instruction entering has dispatched: the followed one it pushed out of the window is
 * critical when that dispatch still depends on it. */
static void causality_judge(struct rt_model *md)
{
    struct taint *tn = md->tn_on;
    bool critical = taint_judge(tn);
    if (md->leaving < md->n_static) {
        md->seen[md->leaving]++;
        md->crit[md->leaving] += critical;
    }
    md->leaving = UINT32_MAX;
    if (!taint_open(tn) && md->one_in)
        md->gap_left = 2ull * taint_window(tn) * (md->one_in - 1);
}

/* Dynamic streams discover static instructions as they run. */
static void grow_static(struct rt_model *md, uint32_t need)
{
    uint32_t n = md->n_static ? md->n_static : 64;
    while (n < need)
        n *= 2;
    md->crit = realloc(md->crit, n * sizeof *md->crit);
    md->seen = realloc(md->seen, n * sizeof *md->seen);
    md->prep = realloc(md->prep, n * sizeof *md->prep);
    md->charge = realloc(md->charge, n * sizeof *md->charge);
    if (!md->crit || !md->seen || !md->prep || !md->charge)
        abort();
    memset(md->charge + md->n_static, 0, (n - md->n_static) * sizeof *md->charge);
    memset(md->crit + md->n_static, 0, (n - md->n_static) * sizeof *md->crit);
    memset(md->seen + md->n_static, 0, (n - md->n_static) * sizeof *md->seen);
    memset(md->prep + md->n_static, 0, (n - md->n_static) * sizeof *md->prep);
    md->n_static = n;
}

static const struct prep *prepared(struct rt_model *md, const struct rt_insn *in, uint32_t sidx)
{
    if (sidx >= md->n_static)
        grow_static(md, sidx + 1);
    struct prep *p = &md->prep[sidx];
    if (p->ready)
        return p;
    const struct mdl_machine *m = md->m;
    const struct mdl_template *t = &m->templates[in->tmpl];
    /* A microcoded form of hundreds of uops streams through the window: it holds at most all
     * of the machine's (the same bound in every lane, so lanes cannot change the baseline). */
    uint32_t window = md->m->rob ? md->m->rob : 224;
    p->uops = t->uops_fused < window ? t->uops_fused : window;
    uint32_t rs = m->scheduler;
    p->rs_uops = in->eliminated ? 0 : t->uops_unfused < rs ? t->uops_unfused : rs;
    for (unsigned i = 0; i < in->n_mem; i++) {
        p->loads |= in->mem[i].load;
        p->stores |= in->mem[i].store;
    }
    p->serial = rt_serial_cost(m, t);
    p->placed = !in->eliminated && ports_places(md->pc, t);
    p->port_units = p->placed ? ports_units(md->pc, t) : 0;
    p->cls = insn_class(in, t);
    prep_latencies(md, in, t, p);
    p->ready = true;
    return p;
}

/* ---- top-down slots of lane 0 (seed 003) ------------------------------------------------- */

/* Lane 0's instructions issue in order, each in its own slots from its dispatch time; the time
 * between one's last slot and the next one's dispatch is a gap, charged to what held the dispatch
 * back. Lane 0's state is read after its step, whichever path stepped it (both hand back the
 * start of its load), so that both paths share the accounting. Gaps are summed in cycles and
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

/* The serving level of the step's load (the deepest of its accesses), within the entries kept. */
static unsigned topdown_level(const struct rt_model *md, const struct step *s)
{
    unsigned k = 0;
    for (unsigned i = 0; s->levels && i < s->in->n_mem; i++)
        if (s->in->mem[i].load && s->levels[i] > k)
            k = s->levels[i];
    return k < md->td.sum.n_levels ? k : md->td.sum.n_levels - 1;
}

/* The step's load was outstanding from its start (once its address, the store it reads and its
 * port were ready) for its load-to-use latency and the hierarchy's, as lane_memory has it. It
 * counts only when its completion, through the operation after it, set the instruction's
 * retirement: then the oldest instruction in the window waited for memory. A load that completed
 * before older instructions retired (a gemm's loads, issued far ahead of its add chain) held
 * nothing back, whatever was outstanding meanwhile. */
static void topdown_load(struct rt_model *md, const struct step *s)
{
    double lat = md->lat_scale[0], start = md->load0;
    double done = start + s->load_lat * lat + (lat > 0 ? s->extra_lat * md->mem_scale[0] : 0);
    if (done > start && done + s->op_lat * lat >= md->last_ret[0])
        spans_add(&md->td.spans[topdown_level(md, s)], start, done);
}

/* The gap [A, D] before the step's dispatch at D, which the window bound (a tie included, as in
 * lane_dispatch) or else the front end. A redirect always leaves a gap before the next dispatch:
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
static void topdown_step(struct rt_model *md, const struct step *s)
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

void rt_model_topdown(const struct rt_model *md, bool with_tail, struct rt_topdown *out)
{
    const struct topdown *td = &md->td;
    double w = md->m->issue_width, end = md->last_ret[0], issue = td->issue_end;
    *out = td->sum;
    if (with_tail && end >= issue)
        topdown_backend(td, issue, end, out);
    /* the last slots beyond the end of the run are not counted */
    double total = with_tail ? end : issue;
    double gaps = out->bad_speculation + out->frontend_latency + out->frontend_bandwidth + out->core;
    for (unsigned k = 0; k < out->n_levels; k++)
        gaps += out->memory[k];
    out->retiring = (total - gaps) * w;
    out->bad_speculation *= w;
    out->frontend_latency *= w;
    out->frontend_bandwidth *= w;
    out->core *= w;
    for (unsigned k = 0; k < out->n_levels; k++)
        out->memory[k] *= w;
}

/* ---- lanes sharing the baseline's state ------------------------------------------------------ */

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
    return size && need && r->pos + need > size;
}

/* Whether step S reads a parameter in which a lane differing in D from the baseline differs
 * (conservatively: a parameter it may read). Every parameter the step reads is here. */
static bool step_touches(const struct rt_model *md, const struct step *s, const struct lane_diff *d)
{
    bool ops = !s->in->eliminated;
    if (d->always || (d->penalty && s->mispredicted) || (d->memory && s->loads && s->extra_lat != 0) ||
        (d->serial && ops && s->serial > 0) || (d->ports & s->port_units) ||
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
    for (unsigned k = 0; k < md->n_shared;) {
        unsigned lane = md->shared[k];
        if (!step_touches(md, s, &md->diff[lane])) {
            k++;
            continue;
        }
        unsigned slot = md->live++;
        md->lane_state[lane] = LANE_LIVE;
        md->slot_of[lane] = slot;
        md->lane_of[slot] = lane;
        slot_params(md, &md->cfg[lane], slot);
        slot_copy(md, 0, slot);
        md->shared[k] = md->shared[--md->n_shared];
    }
    shared_merge(md);
    slots_changed(md);
}

void rt_model_step(struct rt_model *md, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                   const uint8_t *levels, bool mispredicted)
{
    const struct prep *p = prepared(md, in, sidx);
    struct step s;      /* not zeroed: every field is set below or before it is read */
    s.in = in;
    s.t = &md->m->templates[in->tmpl];
    s.uops = p->uops;
    s.rs_uops = p->rs_uops;
    s.loads = p->loads;
    s.stores = p->stores;
    s.op_lat = p->op_lat;
    s.load_lat = p->load_lat;
    s.serial = p->serial;
    s.cls = p->cls;
    s.addr = addr;
    s.levels = levels;
    s.mispredicted = mispredicted;
    s.placed = p->placed;
    s.port_units = p->port_units;
    step_bypasses(md, &s);
    step_merges(md, &s);
    step_chase(md, &s);
    s.extra_lat = level_extra(md, &s);
    step_crossings(md, &s);
    if (md->legacy) {
        s.pd_cycles = predecode_cycles(md, in);
        s.fuse_wait = md->prev_fusible;
        md->prev_fusible = in->fusible;
    }
    if (md->tn)
        causality_enter(md, sidx);
    shadow_tick(&md->mem);
    step_memory(md, &s);
    if (md->n_shared && step_touches(md, &s, &md->shared_any))
        share_split(md, &s);
    _Alignas(64) double retire[RT_MAX_LANES], fe_ready[RT_MAX_LANES];
    /* The stack engine's synchronisation uop makes rsp one cycle later for this reader. */
    if (in->sync)
        for (unsigned l = 0; l < md->live; l++)
            md->reg_t[(size_t)(RT_X86_GPR + 4) * md->L + l] += md->lat_scale[l];
    /* The kernel over the live lanes, lane 0 with its taints while a period is open; lane 0
     * alone in the copy of the baseline ISA, which a vector copy does not pay for one lane. */
    struct kin kin;
    kernel_inputs(md, &s, 0, md->live, fe_ready, &kin);
    if (md->live == 1)
        step_baseline(md, &s, &kin, md->tn_on, retire);
    else
        md->step(md, &s, &kin, 0, md->live, md->tn_on, retire);
    if (md->td.on)
        topdown_step(md, &s);   /* before the window entries are pushed: it reads the windows */
    if (retire[0] > md->ret0) {
        md->charge[sidx] += retire[0] - md->ret0;
        md->ret0 = retire[0];
    }

    if (md->tn_on) {
        for (uint32_t k = 0; k < s.uops; k++)
            taint_copy(md->tn_on, taint_rob(md->tn_on, md->rob_ring.pos + k), TN_RETIRED);
        causality_judge(md);
    }
    for (unsigned k = 0; k < in->n_dst; k++)
        md->reg_cls[in->dst[k]] = s.cls;
    mark_loaded(md, in, s.cls);
    ring_push(&md->rob_ring, s.uops, retire, md->L, md->live);
    station_hold(md->rs, station_next(md->rs), s.rs_uops, md->rs_t, md->live);
    station_advance(md->rs, s.rs_uops);
    if (s.loads) {
        if (md->tn_on)
            taint_copy(md->tn_on, taint_lb(md->tn_on, md->lb_ring.pos), TN_RETIRED);
        ring_push(&md->lb_ring, 1, retire, md->L, md->live);
    }
    if (s.stores) {
        if (md->tn_on)
            taint_copy(md->tn_on, taint_sb(md->tn_on, md->sb_ring.pos), TN_RETIRED);
        ring_push(&md->sb_ring, 1, retire, md->L, md->live);
    }
}

void rt_model_baseline_only(struct rt_model *md)
{
    for (unsigned l = 1; l < md->n_lanes; l++)
        rt_model_lane_done(md, l);
}

void rt_model_topdown_stop(struct rt_model *md) { md->td.on = false; }

uint32_t rt_model_causal_window(const struct rt_model *md) { return md->tn ? taint_window(md->tn) : 0; }

/* LANE's reading WHICH (FROZEN_*) of per-slot array A. */
static double reading(const struct rt_model *md, unsigned lane, const double *a, unsigned which)
{
    if (lane < md->n_lanes && md->lane_state[lane] == LANE_DONE)
        return frozen_of(md, lane)[which];
    return a[lane < md->n_lanes ? reading_slot(md, lane) : 0];
}

double rt_model_time(const struct rt_model *md, unsigned lane) { return reading(md, lane, md->last_ret, FROZEN_TIME); }

double rt_model_latest(const struct rt_model *md, unsigned lane) { return reading(md, lane, md->end_t, FROZEN_LATEST); }

double rt_model_issued(const struct rt_model *md, unsigned lane) { return reading(md, lane, md->disp_t, FROZEN_ISSUED); }

double rt_model_async_bound(const struct rt_model *md, unsigned lane)
{
    double bound = 0;
    for (unsigned a = 0; a < md->m->n_async; a++) {
        double t = reading(md, lane, &md->async_total[(size_t)a * md->L], FROZEN + a);
        if (t > bound)
            bound = t;
    }
    return bound;
}

double rt_model_charge(const struct rt_model *md, uint32_t sidx)
{
    return sidx < md->n_static ? md->charge[sidx] : 0;
}

uint64_t rt_model_critical(const struct rt_model *md, uint32_t sidx, uint64_t *seen)
{
    *seen = sidx < md->n_static ? md->seen[sidx] : 0;
    return sidx < md->n_static ? md->crit[sidx] : 0;
}
