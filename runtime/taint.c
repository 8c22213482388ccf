/* Taint sets over the instructions a period follows, with buffers shared until written. */
#include "taint.h"
#include "alloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

struct taint *taint_new(const struct taint_sizes *z)
{
    struct taint *tn = alloc_zeroed(1, sizeof *tn);
    tn->window = z->window ? z->window : 1;
    tn->leaving = -1;
    tn->stride = (tn->window + 63) / 64;
    tn->res0 = TN_FIXED;
    tn->cache0 = tn->res0 + z->n_res;
    tn->reg0 = tn->cache0 + z->n_caches;
    tn->rob0 = tn->reg0 + z->n_regs;
    tn->rob_cap = z->rob_cap;
    tn->lb0 = tn->rob0 + z->rob_cap;
    tn->lb_cap = z->lb_cap;
    tn->sb0 = tn->lb0 + z->lb_cap;
    tn->sb_cap = z->sb_cap;
    tn->rs0 = tn->sb0 + z->sb_cap;
    tn->rs_cap = z->rs_cap;
    tn->fill0 = tn->rs0 + z->rs_cap;
    tn->slot0 = tn->fill0 + z->n_fills;
    tn->st0 = tn->slot0 + z->n_slots;
    tn->st_cap = pow2_at_least(tn->window);
    tn->n_sets = tn->st0 + tn->st_cap;
    tn->st_seq = alloc_zeroed(tn->st_cap, sizeof *tn->st_seq);
    uint32_t n_bufs = tn->n_sets + 1;   /* a set being copied on write shares its buffer: one spare */
    tn->ref = alloc_zeroed(tn->n_sets, sizeof *tn->ref);
    tn->bits = alloc_zeroed((size_t)n_bufs * tn->stride, sizeof *tn->bits);
    tn->rc = alloc_zeroed(n_bufs, sizeof *tn->rc);
    tn->spare = alloc_resize(NULL, n_bufs, sizeof *tn->spare);
    tn->sidx = alloc_resize(NULL, tn->window, sizeof *tn->sidx);
    return tn;
}

void taint_reset(struct taint *tn)
{
    tn->seq = tn->base = 0;
    tn->n_follow = tn->words = 0;
    tn->period = false;
    tn->leaving = -1;
    memset(tn->st_seq, 0, tn->st_cap * sizeof *tn->st_seq);
}

void taint_free(struct taint *tn)
{
    if (!tn)
        return;
    free(tn->ref);
    free(tn->bits);
    free(tn->rc);
    free(tn->spare);
    free(tn->sidx);
    free(tn->st_seq);
    free(tn);
}

void taint_follow(struct taint *tn, uint32_t n)
{
    tn->n_follow = n < tn->window ? n : tn->window;
    tn->words = (tn->n_follow + 63) / 64;
    tn->base = tn->seq;
    tn->period = n > 0;
    if (!tn->period)
        return;
    /* Every set is the empty buffer 0, which stays empty: the period holds a reference to it, so
     * that no set ever owns it alone (taint_own_) nor frees it. The other buffers are handed out in
     * order as sets need them, those given back first; each one's count is set then, so neither
     * the counts nor a list of every free buffer is rebuilt here, once per period. */
    memset(tn->ref, 0, tn->n_sets * sizeof *tn->ref);
    memset(tn->bits, 0, tn->stride * sizeof *tn->bits);
    tn->rc[0] = tn->n_sets + 1;
    tn->n_spare = 0;
    tn->fresh = 1;
}

uint32_t taint_enter(struct taint *tn, uint32_t sidx)
{
    uint64_t k = tn->seq - tn->base;    /* instructions of the period before this one */
    uint32_t old = UINT32_MAX;
    tn->leaving = -1;
    if (k >= tn->window && k - tn->window < tn->n_follow) {
        tn->leaving = (int64_t)(k - tn->window);
        old = tn->sidx[tn->leaving];
    }
    if (k < tn->n_follow)
        tn->sidx[k] = sidx;
    tn->seq++;
    return old;
}

bool taint_judge(struct taint *tn)
{
    if (tn->leaving < 0)
        return false;
    uint64_t bit = (uint64_t)tn->leaving;
    const uint64_t *d = taint_buf_(tn, tn->ref[TN_DISPATCH]);
    if (bit + 1 == tn->n_follow)
        tn->period = false;
    tn->leaving = -1;
    return d[bit / 64] >> (bit % 64) & 1;
}
