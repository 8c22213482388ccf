/* Causality (Gus, seed 001): every time value of the baseline lane carries the set of recent
 * dynamic instructions that may have set it; an instruction leaving a window of twice the
 * ROB counts as critical when it is still in the dispatch time's set. */
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
    uint32_t slots, words;          /* window (a multiple of 64) and words per set */
    unsigned n_sets, res0, cache0, reg0, rob0, lb0, sb0;
    uint32_t rob_cap, lb_cap, sb_cap;
    uint32_t *ref;                  /* [n_sets]: the buffer holding each set */
    uint64_t *bits;                 /* [n_sets + 1][words]: the buffers */
    uint64_t *asof;                 /* [buffer]: seq when its stale bits were last cleared */
    uint32_t *rc;                   /* [buffer]: sets referring to it */
    uint32_t *spare, n_spare;       /* buffers no set refers to */
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

static inline uint64_t *taint_buf_(struct taint *tn, uint32_t b) { return tn->bits + (size_t)b * tn->words; }
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

/* Buffer B without the bits of slots whose instruction entered after it was last cleaned:
 * those slots were reused and the bits named their previous occupants. */
static inline uint64_t *taint_fresh_(struct taint *tn, uint32_t b)
{
    uint64_t *p = taint_buf_(tn, b);
    uint64_t since = tn->asof[b];
    if (since == tn->seq)
        return p;
    if (tn->seq - since >= tn->slots)
        memset(p, 0, tn->words * sizeof *p);
    else
        taint_clear_slots_(p, tn->slots, taint_slot_back_(tn, tn->seq - since - 1), tn->seq - since);
    tn->asof[b] = tn->seq;
    return p;
}

static inline const uint64_t *taint_read_(struct taint *tn, unsigned s) { return taint_fresh_(tn, tn->ref[s]); }

/* Makes S refer to buffer B. */
static inline void taint_point_(struct taint *tn, unsigned s, uint32_t b)
{
    uint32_t old = tn->ref[s];
    tn->rc[b]++;
    if (--tn->rc[old] == 0)
        tn->spare[tn->n_spare++] = old;
    tn->ref[s] = b;
}

/* A buffer of S's own to change; its content is S's when KEEP, else undefined. */
static inline uint64_t *taint_own_(struct taint *tn, unsigned s, bool keep)
{
    uint32_t b = tn->ref[s];
    if (tn->rc[b] == 1)
        return keep ? taint_fresh_(tn, b) : taint_buf_(tn, b);
    uint32_t nb = tn->spare[--tn->n_spare];
    uint64_t *p = taint_buf_(tn, nb);
    if (keep)
        memcpy(p, taint_fresh_(tn, b), tn->words * sizeof *p);
    tn->asof[nb] = tn->seq;
    tn->rc[nb] = 1;
    tn->rc[b]--;
    tn->ref[s] = nb;
    return p;
}

/* S becomes the empty set. */
static inline uint64_t *taint_empty_(struct taint *tn, unsigned s)
{
    uint64_t *p = taint_own_(tn, s, false);
    memset(p, 0, tn->words * sizeof *p);
    tn->asof[tn->ref[s]] = tn->seq;
    return p;
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
    uint64_t *b = taint_own_(tn, s, true);
    b[tn->cur / 64] |= 1ull << (tn->cur % 64);
}

/* ConstrainBy: set S with time *t is bound by time C whose set is CS. */
static inline void taint_constrain(struct taint *tn, unsigned s, double *t, double c, unsigned cs)
{
    if (c > *t) {
        *t = c;
        taint_copy(tn, s, cs);
    } else if (c == *t && tn->ref[s] != tn->ref[cs]) {
        const uint64_t *from = taint_read_(tn, cs);
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
    uint64_t *b;
    if (c > *t) {
        *t = c;
        b = taint_empty_(tn, s);
    } else {
        b = taint_own_(tn, s, true);
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
        taint_empty_(tn, s);
    }
    taint_add_current(tn, s);
}

#endif
