/* Taint sets are bit sets over a ring of window slots. Rather than clearing a reused slot in
 * every set, each set remembers the instruction it was last written at: bits of slots reused
 * since then are stale and are masked when the set is next touched. */
#include "taint.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct taint *taint_new(uint32_t window, unsigned n_res, unsigned n_caches, unsigned n_regs, uint32_t rob_cap,
                        uint32_t lb_cap, uint32_t sb_cap)
{
    struct taint *tn = calloc(1, sizeof *tn);
    if (!tn)
        abort();
    tn->slots = (window + 63) / 64 * 64;
    tn->words = tn->slots / 64;
    tn->cur = tn->slots - 1;        /* the first instruction takes slot 0 */
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
    uint32_t n_bufs = tn->n_sets + 1;   /* a set being copied on write shares its buffer: one spare */
    tn->ref = calloc(tn->n_sets, sizeof *tn->ref);
    tn->bits = calloc((size_t)n_bufs * tn->words, sizeof *tn->bits);
    tn->asof = calloc(n_bufs, sizeof *tn->asof);
    tn->rc = calloc(n_bufs, sizeof *tn->rc);
    tn->spare = malloc(n_bufs * sizeof *tn->spare);
    tn->sidx = malloc(tn->slots * sizeof *tn->sidx);
    if (!tn->ref || !tn->bits || !tn->asof || !tn->rc || !tn->spare || !tn->sidx)
        abort();
    /* Every set starts as the empty buffer 0. */
    tn->rc[0] = tn->n_sets;
    for (uint32_t b = n_bufs - 1; b >= 1; b--)
        tn->spare[tn->n_spare++] = b;
    memset(tn->sidx, 0xff, tn->slots * sizeof *tn->sidx);
    return tn;
}

void taint_free(struct taint *tn)
{
    if (!tn)
        return;
    free(tn->ref);
    free(tn->bits);
    free(tn->asof);
    free(tn->rc);
    free(tn->spare);
    free(tn->sidx);
    free(tn);
}

uint32_t taint_enter(struct taint *tn, uint32_t sidx, bool *critical)
{
    uint32_t slot = tn->cur + 1 == tn->slots ? 0 : tn->cur + 1;
    uint32_t old = tn->sidx[slot];
    const uint64_t *d = taint_read_(tn, TN_DISPATCH);
    *critical = old != UINT32_MAX && (d[slot / 64] >> (slot % 64) & 1);
    tn->sidx[slot] = sidx;
    tn->seq++;
    tn->cur = slot;
    return old;
}


void taint_skip(struct taint *tn, uint64_t n)
{
    if (n == 0)
        return;
    /* Past a whole window every set reads as empty (fresh), and no slot names an instruction. */
    uint64_t step = n > tn->slots ? n : tn->slots;
    tn->seq += step;
    tn->cur = (uint32_t)((tn->cur + step) % tn->slots);
    memset(tn->sidx, 0xff, tn->slots * sizeof *tn->sidx);
}
