/* Taint sets are bit sets over a ring of window slots. Rather than clearing a reused slot in
 * every set, each set remembers the instruction it was last written at: bits of slots reused
 * since then are stale and are masked when the set is next touched. */
#include "taint.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct taint {
    uint32_t slots, words;          /* window (a multiple of 64) and words per set */
    unsigned n_sets, res0, cache0, reg0, rob0, lb0, sb0;
    uint32_t rob_cap, lb_cap, sb_cap;
    uint64_t *bits;                 /* [n_sets][words] */
    uint64_t *asof;                 /* [n_sets]: seq when last written */
    uint32_t *sidx;                 /* [slots]: static index of each slot's instruction */
    uint64_t seq;                   /* instructions entered so far = seq of the current one */
};

struct taint *taint_new(uint32_t window, unsigned n_res, unsigned n_caches, unsigned n_regs, uint32_t rob_cap,
                        uint32_t lb_cap, uint32_t sb_cap)
{
    struct taint *tn = calloc(1, sizeof *tn);
    if (!tn)
        abort();
    tn->slots = (window + 63) / 64 * 64;
    tn->words = tn->slots / 64;
    tn->res0 = TN_FIXED;
    tn->cache0 = tn->res0 + n_res;
    tn->reg0 = tn->cache0 + n_caches;
    tn->rob0 = tn->reg0 + n_regs;
    tn->rob_cap = rob_cap;
    tn->lb0 = tn->rob0 + rob_cap;
    tn->lb_cap = lb_cap;
    tn->sb0 = tn->lb0 + lb_cap;
    tn->sb_cap = sb_cap;
    tn->n_sets = tn->sb0 + sb_cap;
    tn->bits = calloc((size_t)tn->n_sets * tn->words, sizeof *tn->bits);
    tn->asof = calloc(tn->n_sets, sizeof *tn->asof);
    tn->sidx = malloc(tn->slots * sizeof *tn->sidx);
    if (!tn->bits || !tn->asof || !tn->sidx)
        abort();
    memset(tn->sidx, 0xff, tn->slots * sizeof *tn->sidx);
    return tn;
}

void taint_free(struct taint *tn)
{
    if (!tn)
        return;
    free(tn->bits);
    free(tn->asof);
    free(tn->sidx);
    free(tn);
}

unsigned taint_res(const struct taint *tn, unsigned res) { return tn->res0 + res; }
unsigned taint_cache(const struct taint *tn, unsigned level) { return tn->cache0 + level; }
unsigned taint_reg(const struct taint *tn, unsigned reg) { return tn->reg0 + reg; }
unsigned taint_rob(const struct taint *tn, uint64_t pos) { return tn->rob0 + (unsigned)(pos & (tn->rob_cap - 1)); }
unsigned taint_lb(const struct taint *tn, uint64_t pos) { return tn->lb0 + (unsigned)(pos & (tn->lb_cap - 1)); }
unsigned taint_sb(const struct taint *tn, uint64_t pos) { return tn->sb0 + (unsigned)(pos & (tn->sb_cap - 1)); }
uint64_t taint_seq(const struct taint *tn) { return tn->seq; }
uint32_t taint_window(const struct taint *tn) { return tn->slots; }

static uint64_t *bits(struct taint *tn, unsigned s) { return tn->bits + (size_t)s * tn->words; }
static uint32_t slot_of(const struct taint *tn, uint64_t seq) { return (uint32_t)((seq - 1) % tn->slots); }

/* Clears COUNT consecutive slots of the ring starting at FROM, a word at a time. */
static void clear_slots(uint64_t *b, uint32_t slots, uint32_t from, uint64_t count)
{
    while (count > 0) {
        uint32_t bit = from % 64;
        uint64_t n = 64 - bit < count ? 64 - bit : count;
        if (from + n > slots)
            n = slots - from;
        uint64_t mask = n == 64 ? ~0ull : ((1ull << n) - 1) << bit;
        b[from / 64] &= ~mask;
        count -= n;
        from = (uint32_t)((from + n) % slots);
    }
}

/* Drops the bits of slots whose instruction entered after the set was written: those slots
 * were reused and the bits named their previous occupants. */
static uint64_t *fresh(struct taint *tn, unsigned s)
{
    uint64_t *b = bits(tn, s);
    uint64_t since = tn->asof[s];
    if (since == tn->seq)
        return b;
    if (tn->seq - since >= tn->slots)
        memset(b, 0, tn->words * sizeof *b);
    else
        clear_slots(b, tn->slots, slot_of(tn, since + 1), tn->seq - since);
    tn->asof[s] = tn->seq;
    return b;
}

void taint_copy(struct taint *tn, unsigned dst, unsigned src)
{
    if (dst == src)
        return;
    const uint64_t *from = fresh(tn, src);
    uint64_t *to = bits(tn, dst);
    for (uint32_t w = 0; w < tn->words; w++)
        to[w] = from[w];
    tn->asof[dst] = tn->seq;
}

void taint_add_current(struct taint *tn, unsigned s)
{
    uint64_t *b = fresh(tn, s);
    uint32_t slot = slot_of(tn, tn->seq);
    b[slot / 64] |= 1ull << (slot % 64);
}

void taint_constrain(struct taint *tn, unsigned s, double *t, double c, unsigned cs)
{
    if (c > *t) {
        *t = c;
        taint_copy(tn, s, cs);
    } else if (c == *t) {
        uint64_t *d = fresh(tn, s);
        const uint64_t *from = fresh(tn, cs);
        for (uint32_t w = 0; w < tn->words; w++)
            d[w] |= from[w];
    }
}

void taint_constrain_seq(struct taint *tn, unsigned s, double *t, double c, uint64_t seq)
{
    if (c < *t)
        return;
    uint64_t *b = fresh(tn, s);
    if (c > *t) {
        *t = c;
        memset(b, 0, tn->words * sizeof *b);
    }
    if (seq && seq + tn->slots > tn->seq) {
        uint32_t slot = slot_of(tn, seq);
        b[slot / 64] |= 1ull << (slot % 64);
    }
}

void taint_used(struct taint *tn, unsigned s, double *t, double tmin)
{
    if (*t < tmin) {
        *t = tmin;
        memset(fresh(tn, s), 0, tn->words * sizeof(uint64_t));
    }
    taint_add_current(tn, s);
}

uint32_t taint_enter(struct taint *tn, uint32_t sidx, bool *critical)
{
    uint32_t slot = (uint32_t)(tn->seq % tn->slots);
    uint32_t old = tn->sidx[slot];
    const uint64_t *d = fresh(tn, TN_DISPATCH);
    *critical = old != UINT32_MAX && (d[slot / 64] >> (slot % 64) & 1);
    tn->sidx[slot] = sidx;
    tn->seq++;
    return old;
}


void taint_skip(struct taint *tn, uint64_t n)
{
    if (n == 0)
        return;
    /* Past a whole window every set reads as empty (fresh), and no slot names an instruction. */
    tn->seq += n > tn->slots ? n : tn->slots;
    memset(tn->sidx, 0xff, tn->slots * sizeof *tn->sidx);
}
