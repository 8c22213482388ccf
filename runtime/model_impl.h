/* The model's state and what one step needs, shared by the modules that make up the model:
 * model.c (lanes' parameters, life cycle, the step's order), lanes.c (slots), prep.c (what an
 * instruction needs), kernel.c (the step over lanes) and topdown.c (slots of lane 0). Internal:
 * the model's interface is model.h. */
#ifndef RT_MODEL_IMPL_H
#define RT_MODEL_IMPL_H
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "fills.h"
#include "model.h"
#include "ports.h"
#include "shadow.h"
#include "station.h"
#include "taint.h"

/* For the kernel's pieces, compiled into each of its copies (one per vector extension, one for
 * lane 0 alone): each copy keeps only its own branches. */
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
    bool misses;                    /* the misses in flight */
    uint32_t rob, lb, sb;           /* where the window sizes differ, the smaller (0: the same) */
    uint32_t caches;                /* cache levels of another bandwidth */
    uint64_t ports;                 /* ports of another speed */
    uint64_t res[DIFF_RES_WORDS];   /* resources of another cost */
};

/* A lane is stepped in a slot of its own (LIVE), shares the baseline's state (SHARED: none of its
 * parameters read so far differs), is measured and keeps what it had (DONE), keeps its readings
 * until it joins the baseline again (RESTING), or rests in its slot and joins again from its own
 * state (PAUSED). */
enum { LANE_LIVE, LANE_SHARED, LANE_DONE, LANE_RESTING, LANE_PAUSED };

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
    unsigned paused;                /* slots [1, paused) hold the paused lanes (live is 1 then) */
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
    double *fe_low;                 /* [L]: the last redirect of a mispredicted branch: the legacy
                                       decoders deliver nothing before it (by paths only) */
    double *fe_off;                 /* [L]: how far the lane's clock is behind lane 0's, for the
                                       decoders' state it takes from lane 0 (decodes_as_lane0): not
                                       0 once it joined again from its own state */
    double *ser_t, *ser_scale;      /* [L]: the measured-throughput bound of microcoded forms */
    double *end_t;                  /* [L]: the latest result so far */
    bool legacy;                    /* instructions come through the legacy decoders */
    bool paths;                     /* the path is set per instruction (rt_model_path): the legacy
                                       decoders see real addresses, the IDQ and redirects */
    bool fe_switch;                 /* the next instruction moves delivery to the legacy decoders */
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
    struct fills fills;             /* misses in flight */
    struct ports *pc;               /* the ports of each uop, where the machine chooses them; else NULL */
    const struct ports_lanes *pl;   /* its per-lane part */
    /* The lanes without dependencies: their uops are not given ports, the port sets bound them as
     * abstract resources (the baseline's choice of ports fits the baseline's timing, not a lane
     * whose every latency is zero: it put both FMAs of a chain on one port there). */
    unsigned *no_ports, n_no_ports;
    uint64_t *ports_off;            /* [L]: whether the lane is one of them, 0 or 1 (a word: the
                                       port pass, which vectorises on words, reads it) */
    struct ports_choice choice;     /* the current instruction's uops */
    /* causality, baseline lane only, in periods (taint.h) */
    struct taint *tn;
    struct taint *tn_on;            /* tn while a period is open, NULL otherwise */
    uint32_t leaving;               /* static index of the followed instruction the step pushes out */
    unsigned one_in;                /* sampled runs: one period in ONE_IN; 0: periods on request */
    uint64_t gap_left;              /* instructions before the next sampled period */
    uint64_t *crit, *seen;          /* [n_static] */
    double *charge;                 /* [n_static]: cycles the baseline's retirement spent on each (model_charge) */
    double ret0;                    /* the baseline's last retirement time */
    uint32_t prev_sidx;             /* the instruction that retired there, and its slots' cycles */
    double prev_slots;
    double owed;                    /* slots charged ahead of retirement (model_charge) */
    bool charging;                  /* instructions are charged (rt_model_charges_stop ends it) */
    struct prep *prep;              /* [n_static] */
    uint32_t n_static;
    double load0, load0_done;       /* lane 0's load just stepped: when it started, when it completed */
    struct topdown td;
};

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
    struct fills_step fills;        /* the fill it waits for, the one it starts, the entries it holds */
    unsigned n_cross;               /* the cache levels its accesses cross, with their cycles */
    struct { unsigned k; double cost; } cross[RT_MAX_MEM * 8];
    double pd_cycles;               /* legacy predecode cycles from the previous instruction's */
    bool fe_switch;                 /* delivery moves to the legacy decoders at it (rt_model_path) */
    bool fuse_wait;                 /* the previous instruction was fusible */
    bool placed;                    /* its uops are given ports (ports.h) */
    uint64_t port_units;            /* as in struct prep */
    bool mispredicted;
};

/* What the passes need from outside the model's arrays: when the front end delivers the
 * instruction in each lane, and the lane arrays of the stores it reads and writes. */
struct kin {
    const double *fe;
    const double *load[RT_MAX_MEM * SHADOW_MAX_READ];
    double *store[RT_MAX_MEM];
};

/* The arrays of one value per lane, allocated and freed together: the timing state first, then
 * the parameters. */
enum { N_LANE_STATE = 14, N_LANE_ARRAYS = 20 };

/* The readings a done lane keeps: its time, latest result and issue, then its async totals. */
enum { FROZEN_TIME, FROZEN_LATEST, FROZEN_ISSUED, FROZEN };

/* Whether a window of SIZE entries (0: no limit) is full for NEED more: then the entry at *POS
 * must have retired before they are taken. */
static inline bool ring_binds(const struct ring *r, uint32_t need, uint32_t size, uint64_t *pos)
{
    if (!size || !need || r->pos + need <= size)
        return false;
    *pos = r->pos + need - 1 - size;
    return true;
}

/* The window entry that must have retired before NEED more slots are taken in lane L (its time in
 * *T), or none. */
static inline bool ring_wait(const struct ring *r, uint32_t need, uint32_t size, unsigned L, unsigned l,
                             double *t, uint64_t *pos)
{
    if (!ring_binds(r, need, size, pos))
        return false;
    *t = r->t[(*pos & (r->cap - 1)) * L + l];
    return true;
}

/* Which of slots [0, N), whose windows have SIZE entries, have another size than slot 0's. */
static inline void ring_lanes(struct ring *r, const uint32_t *size, unsigned n)
{
    r->n_odd = 0;
    for (unsigned l = 0; l < n; l++) {
        r->skip[l] = size[l] != size[0] ? -INFINITY : 0;
        if (size[l] != size[0])
            r->odd[r->n_odd++] = l;
    }
}

/* model.c: lane C's parameters in slot L; the lane arrays (timing state first); room for
 * static instructions up to NEED. */
void model_slot_params(struct rt_model *md, const struct rt_lane_cfg *c, unsigned l);
void model_lane_arrays(struct rt_model *md, double **out[N_LANE_ARRAYS]);
void model_grow_static(struct rt_model *md, uint32_t need);

#endif
