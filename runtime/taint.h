/* Causality (Gus, seed 001): every time value of the baseline lane carries the set of recent
 * dynamic instructions that may have set it; an instruction leaving a window of twice the
 * ROB counts as critical when it is still in the dispatch time's set. */
#ifndef RT_TAINT_H
#define RT_TAINT_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum tn_fixed { TN_DISPATCH, TN_FRONTEND, TN_INSN, TN_LOAD, TN_RETIRE, TN_RETIRED, TN_FIXED };

/* Defined here so that the per-instruction operations below inline into the model. */
struct taint {
    uint32_t slots, words;          /* window (a multiple of 64) and words per set */
    unsigned n_sets, res0, cache0, reg0, rob0, lb0, sb0;
    uint32_t rob_cap, lb_cap, sb_cap;
    uint64_t *bits;                 /* [n_sets][words] */
    uint64_t *asof;                 /* [n_sets]: seq when last written */
    uint32_t *sidx;                 /* [slots]: static index of each slot's instruction */
    uint64_t seq;                   /* instructions entered so far = seq of the current one */
    uint32_t cur;                   /* slot of the current one; kept so the ring needs no division */
};

/* ROB_CAP, LB_CAP, SB_CAP: sizes (powers of two) of the window, load and store buffer rings. */
struct taint *taint_new(uint32_t window, unsigned n_res, unsigned n_caches, unsigned n_regs, uint32_t rob_cap,
                        uint32_t lb_cap, uint32_t sb_cap);
void taint_free(struct taint *tn);

/* Enters a new dynamic instruction of static index SIDX; returns the static index of the one
 * that left the window (UINT32_MAX if none) and whether dispatch was still tainted by it. */
uint32_t taint_enter(struct taint *tn, uint32_t sidx, bool *critical);
/* N instructions passed without taints: every set and slot from before is forgotten. */
void taint_skip(struct taint *tn, uint64_t n);

/* ---- per-instruction operations ---- */

/* Set identifiers: the fixed ones, then one per resource, cache level, register and entry of
 * the window, load buffer and store buffer. */
static inline unsigned taint_res(const struct taint *tn, unsigned res) { return tn->res0 + res; }
static inline unsigned taint_cache(const struct taint *tn, unsigned level) { return tn->cache0 + level; }
static inline unsigned taint_reg(const struct taint *tn, unsigned reg) { return tn->reg0 + reg; }
static inline unsigned taint_rob(const struct taint *tn, uint64_t pos) { return tn->rob0 + (unsigned)(pos & (tn->rob_cap - 1)); }
static inline unsigned taint_lb(const struct taint *tn, uint64_t pos) { return tn->lb0 + (unsigned)(pos & (tn->lb_cap - 1)); }
static inline unsigned taint_sb(const struct taint *tn, uint64_t pos) { return tn->sb0 + (unsigned)(pos & (tn->sb_cap - 1)); }
/* Sequence number of the current instruction (1 for the first); instructions a dynamic
 * instruction stays in the window before it is counted. */
static inline uint64_t taint_seq(const struct taint *tn) { return tn->seq; }
static inline uint32_t taint_window(const struct taint *tn) { return tn->slots; }

static inline uint64_t *taint_bits_(struct taint *tn, unsigned s) { return tn->bits + (size_t)s * tn->words; }
/* The slot of the instruction BACK entries before the current one (BACK < slots). */
static inline uint32_t taint_slot_back_(const struct taint *tn, uint64_t back)
{
    uint32_t s = tn->cur + tn->slots - (uint32_t)back;
    return s >= tn->slots ? s - tn->slots : s;
}

/* Clears COUNT consecutive slots of the ring starting at FROM, a word at a time. */
static inline void taint_clear_slots_(uint64_t *b, uint32_t slots, uint32_t from, uint64_t count)
{
    while (count > 0) {
        uint32_t bit = from % 64;
        uint64_t n = 64 - bit < count ? 64 - bit : count;
        if (from + n > slots)
            n = slots - from;
        uint64_t mask = n == 64 ? ~0ull : ((1ull << n) - 1) << bit;
        b[from / 64] &= ~mask;
        count -= n;
        from = from + (uint32_t)n == slots ? 0 : from + (uint32_t)n;
    }
}

/* Drops the bits of slots whose instruction entered after the set was written: those slots
 * were reused and the bits named their previous occupants. */
static inline uint64_t *taint_fresh_(struct taint *tn, unsigned s)
{
    uint64_t *b = taint_bits_(tn, s);
    uint64_t since = tn->asof[s];
    if (since == tn->seq)
        return b;
    if (tn->seq - since >= tn->slots)
        memset(b, 0, tn->words * sizeof *b);
    else
        taint_clear_slots_(b, tn->slots, taint_slot_back_(tn, tn->seq - since - 1), tn->seq - since);
    tn->asof[s] = tn->seq;
    return b;
}

/* SetBy: DST takes SRC's set. */
static inline void taint_copy(struct taint *tn, unsigned dst, unsigned src)
{
    if (dst == src)
        return;
    const uint64_t *from = taint_fresh_(tn, src);
    uint64_t *to = taint_bits_(tn, dst);
    for (uint32_t w = 0; w < tn->words; w++)
        to[w] = from[w];
    tn->asof[dst] = tn->seq;
}

/* Adds the current instruction to S. */
static inline void taint_add_current(struct taint *tn, unsigned s)
{
    uint64_t *b = taint_fresh_(tn, s);
    b[tn->cur / 64] |= 1ull << (tn->cur % 64);
}

/* ConstrainBy: set S with time *t is bound by time C whose set is CS. */
static inline void taint_constrain(struct taint *tn, unsigned s, double *t, double c, unsigned cs)
{
    if (c > *t) {
        *t = c;
        taint_copy(tn, s, cs);
    } else if (c == *t) {
        uint64_t *d = taint_fresh_(tn, s);
        const uint64_t *from = taint_fresh_(tn, cs);
        for (uint32_t w = 0; w < tn->words; w++)
            d[w] |= from[w];
    }
}

/* ConstrainBy a value set by the single dynamic instruction SEQ (0: none). */
static inline void taint_constrain_seq(struct taint *tn, unsigned s, double *t, double c, uint64_t seq)
{
    if (c < *t)
        return;
    uint64_t *b = taint_fresh_(tn, s);
    if (c > *t) {
        *t = c;
        memset(b, 0, tn->words * sizeof *b);
    }
    if (seq && seq + tn->slots > tn->seq) {
        uint32_t slot = taint_slot_back_(tn, tn->seq - seq);
        b[slot / 64] |= 1ull << (slot % 64);
    }
}

/* UsedBy: a resource (set S, time *t) used by the current instruction no earlier than TMIN. */
static inline void taint_used(struct taint *tn, unsigned s, double *t, double tmin)
{
    if (*t < tmin) {
        *t = tmin;
        memset(taint_fresh_(tn, s), 0, tn->words * sizeof(uint64_t));
    }
    taint_add_current(tn, s);
}

#endif
