/* Causality (Gus, seed 001): every time value of the baseline lane carries the set of recent
 * dynamic instructions that may have set it; an instruction leaving a window of twice the
 * ROB counts as critical when it is still in the dispatch time's set.
 *
 * The sets are followed in periods: a period follows its first N instructions (at most a
 * window) and ends when the last of them leaves the window, N + window instructions after it
 * began. Set operations act on each instruction's membership independently, so a set that
 * holds only the followed instructions answers exactly for them, with one bit each and no
 * bit ever reused within the period. */
#ifndef RT_TAINT_H
#define RT_TAINT_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum tn_fixed { TN_DISPATCH, TN_FRONTEND, TN_INSN, TN_LOAD, TN_RETIRE, TN_RETIRED, TN_FIXED };

/* Defined here so that the per-instruction operations below inline into the model. Sets share
 * buffers until one of them changes (copy on write): most SetBy copy a set that neither side
 * changes before it is overwritten, such as a register taking its writer's set. */
struct taint {
    uint32_t window;                /* instructions entered before a followed one is counted */
    uint32_t words;                 /* words per set in this period */
    uint32_t stride;                /* words per buffer: a full window's */
    unsigned n_sets, res0, cache0, reg0, rob0, lb0, sb0, rs0, fill0, slot0, st0;
    uint32_t rob_cap, lb_cap, sb_cap, rs_cap, st_cap;
    uint64_t *st_seq;               /* [st_cap]: the store whose data each store set holds */
    uint32_t *ref;                  /* [n_sets]: the buffer holding each set */
    uint64_t *bits;                 /* [n_sets + 1][stride]: the buffers */
    uint32_t *rc;                   /* [buffer]: sets referring to it */
    uint32_t *spare, n_spare;       /* buffers given back: no set refers to them */
    uint32_t fresh;                 /* buffers from this one on are not used yet in this period */
    uint32_t *sidx;                 /* [window]: static index of each followed instruction */
    uint64_t seq;                   /* instructions entered so far = seq of the current one */
    uint64_t base;                  /* seq before the period's first instruction */
    uint32_t n_follow;              /* instructions the period follows */
    int64_t leaving;                /* the followed instruction the current one pushes out of the window, or -1 */
    bool period;                    /* a period is open */
};

/* The sets a model keeps: one per resource, cache level and register; one per entry of the
 * window, load buffer, store buffer and scheduler rings (their sizes, powers of two); one per
 * line being filled and per entry of the levels' misses in flight (fills.h); and the data of the
 * stores of the last window (a load that reads one takes its set). */
struct taint_sizes {
    uint32_t window;
    unsigned n_res, n_caches, n_regs;
    uint32_t rob_cap, lb_cap, sb_cap, rs_cap;
    unsigned n_fills, n_slots;
};
struct taint *taint_new(const struct taint_sizes *z);
/* No instruction entered yet and no period open, as after taint_new. */
void taint_reset(struct taint *tn);
void taint_free(struct taint *tn);

/* Opens a period that follows the next N instructions (at most the window): every set is
 * emptied. */
void taint_follow(struct taint *tn, uint32_t n);
/* Enters a new dynamic instruction of static index SIDX; returns the static index of the
 * followed instruction it pushes out of the window (UINT32_MAX if none). */
uint32_t taint_enter(struct taint *tn, uint32_t sidx);
/* Once the entering instruction has dispatched: whether its dispatch time was still tainted by
 * the followed instruction it pushed out (its own dispatch, not the one before: with two chains
 * in turn, the one before is the other chain's). The period closes once the last followed
 * instruction has left. */
bool taint_judge(struct taint *tn);
/* An instruction passed without taints (outside a period). */
static inline void taint_pass(struct taint *tn) { tn->seq++; }
static inline bool taint_open(const struct taint *tn) { return tn->period; }

/* ---- per-instruction operations ---- */

/* Set identifiers: the fixed ones, then one per resource, cache level, register and entry of
 * the window, load buffer, store buffer and scheduler. */
static inline unsigned taint_res(const struct taint *tn, unsigned res) { return tn->res0 + res; }
static inline unsigned taint_cache(const struct taint *tn, unsigned level) { return tn->cache0 + level; }
static inline unsigned taint_reg(const struct taint *tn, unsigned reg) { return tn->reg0 + reg; }
static inline unsigned taint_rob(const struct taint *tn, uint64_t pos)
{
    return tn->rob0 + (unsigned)(pos & (tn->rob_cap - 1));
}
static inline unsigned taint_lb(const struct taint *tn, uint64_t pos)
{
    return tn->lb0 + (unsigned)(pos & (tn->lb_cap - 1));
}
static inline unsigned taint_sb(const struct taint *tn, uint64_t pos)
{
    return tn->sb0 + (unsigned)(pos & (tn->sb_cap - 1));
}
static inline unsigned taint_rs(const struct taint *tn, uint64_t pos)
{
    return tn->rs0 + (unsigned)(pos & (tn->rs_cap - 1));
}
static inline unsigned taint_fill(const struct taint *tn, unsigned entry) { return tn->fill0 + entry; }
static inline unsigned taint_slot(const struct taint *tn, unsigned set) { return tn->slot0 + set; }
/* The set of the data the store of dynamic instruction SEQ wrote. */
static inline unsigned taint_store(const struct taint *tn, uint64_t seq)
{
    return tn->st0 + (unsigned)(seq & (tn->st_cap - 1));
}
/* Sequence number of the current instruction (1 for the first); instructions a dynamic
 * instruction stays in the window before it is counted. */
static inline uint64_t taint_seq(const struct taint *tn) { return tn->seq; }
static inline uint32_t taint_window(const struct taint *tn) { return tn->window; }

static inline uint64_t *taint_buf_(struct taint *tn, uint32_t b) { return tn->bits + (size_t)b * tn->stride; }

/* The bit of the dynamic instruction SEQ in this period's sets, or -1 when it is not followed. */
static inline int64_t taint_bit_(const struct taint *tn, uint64_t seq)
{
    return seq > tn->base && seq - tn->base <= tn->n_follow ? (int64_t)(seq - tn->base - 1) : -1;
}

/* Makes S refer to buffer B. */
static inline void taint_point_(struct taint *tn, unsigned s, uint32_t b)
{
    uint32_t old = tn->ref[s];
    tn->rc[b]++;
    if (--tn->rc[old] == 0)
        tn->spare[tn->n_spare++] = old;
    tn->ref[s] = b;
}

/* A buffer of S's own to change; it holds S's set when KEEP, else anything. */
static inline uint64_t *taint_own_(struct taint *tn, unsigned s, bool keep)
{
    uint32_t b = tn->ref[s];
    if (tn->rc[b] == 1)
        return taint_buf_(tn, b);
    uint32_t nb = tn->n_spare ? tn->spare[--tn->n_spare] : tn->fresh++;
    uint64_t *p = taint_buf_(tn, nb);
    if (keep)
        memcpy(p, taint_buf_(tn, b), tn->words * sizeof *p);
    tn->rc[nb] = 1;
    tn->rc[b]--;
    tn->ref[s] = nb;
    return p;
}

static inline void taint_set_bit_(uint64_t *p, int64_t bit)
{
    if (bit >= 0)
        p[bit / 64] |= 1ull << (bit % 64);
}

/* SetBy: DST takes SRC's set. */
static inline void taint_copy(struct taint *tn, unsigned dst, unsigned src)
{
    if (tn->ref[dst] != tn->ref[src])
        taint_point_(tn, dst, tn->ref[src]);
}

/* Adds the current instruction to S. */
static inline void taint_add_current(struct taint *tn, unsigned s)
{
    int64_t bit = taint_bit_(tn, tn->seq);
    if (bit >= 0)
        taint_set_bit_(taint_own_(tn, s, true), bit);
}

/* S becomes the empty set: buffer 0, shared. */
static inline void taint_clear_(struct taint *tn, unsigned s)
{
    if (tn->ref[s] != 0)
        taint_point_(tn, s, 0);
}

/* The data the current instruction stores takes set S (its result's). */
static inline void taint_store_data(struct taint *tn, unsigned s)
{
    tn->st_seq[tn->seq & (tn->st_cap - 1)] = tn->seq;
    taint_copy(tn, taint_store(tn, tn->seq), s);
}

/* Whether the set of the data dynamic instruction SEQ stored is still kept (a window's stores). */
static inline bool taint_store_kept(const struct taint *tn, uint64_t seq)
{
    return seq && tn->st_seq[seq & (tn->st_cap - 1)] == seq;
}

/* ConstrainBy: set S with time *t is bound by time C whose set is CS. */
static inline void taint_constrain(struct taint *tn, unsigned s, double *t, double c, unsigned cs)
{
    if (c > *t) {
        *t = c;
        taint_copy(tn, s, cs);
    } else if (c == *t && tn->ref[s] != tn->ref[cs] && tn->ref[cs] != 0) {   /* 0: nothing to add */
        const uint64_t *from = taint_buf_(tn, tn->ref[cs]);
        uint64_t *d = taint_own_(tn, s, true);
        for (uint32_t w = 0; w < tn->words; w++)
            d[w] |= from[w];
    }
}

/* ConstrainBy a value set by the single dynamic instruction SEQ (0: none). */
static inline void taint_constrain_seq(struct taint *tn, unsigned s, double *t, double c, uint64_t seq)
{
    if (c < *t)
        return;
    int64_t bit = taint_bit_(tn, seq);
    if (c > *t) {
        *t = c;
        taint_clear_(tn, s);
    }
    if (bit >= 0)
        taint_set_bit_(taint_own_(tn, s, true), bit);
}

/* UsedBy: a resource (set S, time *t) used by the current instruction no earlier than TMIN. */
static inline void taint_used(struct taint *tn, unsigned s, double *t, double tmin)
{
    if (*t < tmin) {
        *t = tmin;
        taint_clear_(tn, s);
    }
    taint_add_current(tn, s);
}

#endif
