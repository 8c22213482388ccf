/* Branch prediction for one core: direction predictor, set-associative LRU BTB, circular return
 * stack, and an indirect predictor (BTB target, last target, or a two-table ITTAGE-like cache). */
#include "bp.h"
#include <stdlib.h>
#include "predictor/predictor.h"

enum {
    BP_TABLE_ENTRIES = 4096, BP_HISTORY_BITS = 64,
    BP_BTB_ENTRIES = 4096, BP_BTB_WAYS = 4, BP_RAS_ENTRIES = 16,
    BP_ITT_TABLES = 2, BP_ITT_SHORT = 8,    /* history bits of the shorter indirect table */
    BP_TARGET_BITS = 4                      /* path history bits per indirect target */
};

struct bp_btb_entry {
    uint64_t pc1;               /* pc + 1; 0 for an empty entry */
    uint64_t target;
    uint64_t stamp;             /* LRU: the clock at the last use */
};

struct bp_itt_entry {
    uint16_t tag;               /* tag + 1; 0 for an empty entry */
    uint8_t conf;
    uint64_t target;
};

struct bp {
    const struct predictor_ops *dir;
    void *dir_state;
    uint8_t indirect;           /* enum mdl_indirect */
    struct bp_btb_entry *btb;
    uint32_t btb_sets, btb_ways;
    uint32_t btb_mask;          /* btb_sets - 1 when that is a power of two (no division), else 0 */
    uint64_t btb_clock;
    uint64_t *ras;
    uint32_t ras_size, ras_top, ras_count;
    struct bp_btb_entry *last;  /* direct-mapped last targets of indirect branches */
    struct bp_itt_entry *itt[BP_ITT_TABLES];
    uint64_t itt_mask, last_mask;
    unsigned itt_bits, itt_len[BP_ITT_TABLES];
    /* Conditional outcomes and indirect targets: what the indirect tables correlate with. */
    uint64_t path;
    uint64_t branches, mispredicts;
};

static uint32_t bp_or(uint32_t v, uint32_t dflt)
{
    return v ? v : dflt;
}

static bool bp_alloc_indirect(struct bp *bp, const struct mdl_machine *m, uint32_t btb_entries)
{
    if (bp->indirect == MDL_INDIRECT_NONE)
        return true;            /* the BTB alone holds indirect targets */
    unsigned lbits = predictor_log2(btb_entries);
    bp->last_mask = (UINT64_C(1) << lbits) - 1;
    bp->last = calloc(bp->last_mask + 1, sizeof *bp->last);
    if (!bp->last)
        return false;
    if (bp->indirect != MDL_INDIRECT_ITTAGE)
        return true;
    uint32_t hist = bp_or(m->history_bits, BP_HISTORY_BITS);
    bp->itt_bits = predictor_log2(bp_or(m->table_entries, BP_TABLE_ENTRIES));
    bp->itt_mask = (UINT64_C(1) << bp->itt_bits) - 1;
    bp->itt_len[0] = hist < BP_ITT_SHORT ? hist : BP_ITT_SHORT;
    bp->itt_len[1] = hist < 64 ? hist : 64;
    for (int i = 0; i < BP_ITT_TABLES; i++)
        if (!(bp->itt[i] = calloc(bp->itt_mask + 1, sizeof *bp->itt[i])))
            return false;
    return true;
}

static bool bp_alloc(struct bp *bp, const struct mdl_machine *m)
{
    struct predictor_params p = {
        bp_or(m->table_entries, BP_TABLE_ENTRIES), bp_or(m->history_bits, BP_HISTORY_BITS)
    };
    uint32_t entries = bp_or(m->btb_entries, BP_BTB_ENTRIES);
    bp->dir = predictor_for(m->predictor);
    bp->dir_state = bp->dir->create(&p);
    bp->btb_ways = bp_or(m->btb_ways, BP_BTB_WAYS);
    if (bp->btb_ways > entries)
        bp->btb_ways = entries;
    bp->btb_sets = entries / bp->btb_ways;
    bp->btb_mask = bp->btb_sets & (bp->btb_sets - 1) ? 0 : bp->btb_sets - 1;
    bp->btb = calloc((size_t)bp->btb_sets * bp->btb_ways, sizeof *bp->btb);
    bp->ras_size = bp_or(m->ras_entries, BP_RAS_ENTRIES);
    bp->ras = calloc(bp->ras_size, sizeof *bp->ras);
    return bp->dir_state && bp->btb && bp->ras && bp_alloc_indirect(bp, m, entries);
}

struct bp *bp_new(const struct mdl_machine *m)
{
    struct bp *bp = calloc(1, sizeof *bp);
    if (!bp)
        return NULL;
    bp->indirect = m->indirect;
    if (!bp_alloc(bp, m)) {
        bp_free(bp);
        return NULL;
    }
    return bp;
}

void bp_free(struct bp *bp)
{
    if (!bp)
        return;
    if (bp->dir_state)
        bp->dir->destroy(bp->dir_state);
    for (int i = 0; i < BP_ITT_TABLES; i++)
        free(bp->itt[i]);
    free(bp->last);
    free(bp->ras);
    free(bp->btb);
    free(bp);
}

/* ---- BTB ---- */

static struct bp_btb_entry *bp_btb_set(struct bp *bp, uint64_t pc)
{
    uint64_t h = predictor_hash(pc);
    return bp->btb + (bp->btb_mask ? h & bp->btb_mask : h % bp->btb_sets) * bp->btb_ways;
}

/* The entry for PC, made most recently used; NULL on a miss. */
static struct bp_btb_entry *bp_btb_find(struct bp *bp, uint64_t pc)
{
    struct bp_btb_entry *set = bp_btb_set(bp, pc);
    for (uint32_t w = 0; w < bp->btb_ways; w++)
        if (set[w].pc1 == pc + 1) {
            set[w].stamp = ++bp->btb_clock;
            return &set[w];
        }
    return NULL;
}

static void bp_btb_insert(struct bp *bp, uint64_t pc, uint64_t target)
{
    struct bp_btb_entry *e = bp_btb_find(bp, pc);
    if (!e) {
        struct bp_btb_entry *set = bp_btb_set(bp, pc);
        e = set;
        for (uint32_t w = 1; w < bp->btb_ways && e->pc1; w++)
            if (!set[w].pc1 || set[w].stamp < e->stamp)
                e = &set[w];
        *e = (struct bp_btb_entry){ pc + 1, target, ++bp->btb_clock };
    }
    e->target = target;
}

/* ---- return stack: circular, so overflow loses the oldest return ---- */

static void bp_ras_push(struct bp *bp, uint64_t ret)
{
    bp->ras[bp->ras_top] = ret;
    bp->ras_top = (bp->ras_top + 1) % bp->ras_size;
    if (bp->ras_count < bp->ras_size)
        bp->ras_count++;
}

/* Whether the stack predicted TARGET; an empty stack predicts nothing. */
static bool bp_ras_pop(struct bp *bp, uint64_t target)
{
    if (!bp->ras_count)
        return false;
    bp->ras_count--;
    bp->ras_top = (bp->ras_top + bp->ras_size - 1) % bp->ras_size;
    return bp->ras[bp->ras_top] == target;
}

/* ---- indirect targets ---- */

static uint64_t bp_itt_hist(const struct bp *bp, int i)
{
    unsigned len = bp->itt_len[i];
    return len >= 64 ? bp->path : bp->path & ((UINT64_C(1) << len) - 1);
}

static struct bp_itt_entry *bp_itt_entry(struct bp *bp, int i, uint64_t pc, uint16_t *tag)
{
    uint64_t h = bp_itt_hist(bp, i), f = 0;
    for (uint64_t x = h; x; x >>= bp->itt_bits)
        f ^= x;
    uint64_t mix = (predictor_hash(pc) ^ h * UINT64_C(0x9e3779b97f4a7c15)) >> 48;
    *tag = (uint16_t)((mix & 0x7fff) + 1);
    return &bp->itt[i][(predictor_hash(pc) ^ f) & bp->itt_mask];
}

static uint64_t bp_last_target(struct bp *bp, uint64_t pc)
{
    struct bp_btb_entry *e = &bp->last[predictor_hash(pc) & bp->last_mask];
    return e->pc1 == pc + 1 ? e->target : 0;
}

/* The longest-history table whose tag matches provides the target, else the last target. */
static uint64_t bp_itt_predict(struct bp *bp, uint64_t pc, int *provider)
{
    uint16_t tag;
    for (int i = BP_ITT_TABLES - 1; i >= 0; i--) {
        struct bp_itt_entry *e = bp_itt_entry(bp, i, pc, &tag);
        if (e->tag == tag) {
            *provider = i;
            return e->target;
        }
    }
    *provider = -1;
    return bp_last_target(bp, pc);
}

/* A confident entry survives one wrong target; allocation takes the next longer table. */
static void bp_itt_update(struct bp *bp, uint64_t pc, int provider, bool miss, uint64_t target)
{
    uint16_t tag;
    if (provider >= 0) {
        struct bp_itt_entry *e = bp_itt_entry(bp, provider, pc, &tag);
        if (e->target == target)
            e->conf += e->conf < 3;
        else if (e->conf)
            e->conf--;
        else
            e->target = target;
    }
    if (miss && provider < BP_ITT_TABLES - 1) {
        struct bp_itt_entry *e = bp_itt_entry(bp, provider + 1, pc, &tag);
        if (e->conf)
            e->conf--;
        else
            *e = (struct bp_itt_entry){ tag, 0, target };
    }
}

static bool bp_indirect(struct bp *bp, uint64_t pc, uint64_t target)
{
    bool miss;
    int provider = -1;
    if (bp->indirect == MDL_INDIRECT_NONE) {
        struct bp_btb_entry *e = bp_btb_find(bp, pc);
        miss = !e || e->target != target;
        bp_btb_insert(bp, pc, target);
        return miss;
    }
    if (bp->indirect == MDL_INDIRECT_ITTAGE)
        miss = bp_itt_predict(bp, pc, &provider) != target;
    else
        miss = bp_last_target(bp, pc) != target;
    if (bp->indirect == MDL_INDIRECT_ITTAGE)
        bp_itt_update(bp, pc, provider, miss, target);
    bp->last[predictor_hash(pc) & bp->last_mask] = (struct bp_btb_entry){ pc + 1, target, 0 };
    /* A few hashed bits per target let the history tell apart where earlier jumps went. */
    uint64_t t = (target * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - BP_TARGET_BITS);
    bp->path = bp->path << BP_TARGET_BITS ^ t;
    return miss;
}

/* ---- branches ---- */

static bool bp_conditional(struct bp *bp, uint64_t pc, bool taken, uint64_t target,
                           uint64_t fallthrough)
{
    /* A caller that only knows where execution went gives the fall-through for a branch not
     * taken; the BTB then supplies the taken target, as it would to the front end. */
    if (!taken && target == fallthrough) {
        const struct bp_btb_entry *e = bp_btb_find(bp, pc);
        target = e ? e->target : 0;
    }
    bool pred = bp->dir->predict(bp->dir_state, pc, target);
    bp->dir->update(bp->dir_state, pc, taken);
    if (taken)
        bp_btb_insert(bp, pc, target);
    bp->path = bp->path << 1 | taken;
    return pred != taken;
}

bool bp_branch(struct bp *bp, uint64_t pc, enum rt_branch kind, bool taken, uint64_t target,
               uint64_t fallthrough)
{
    bool miss = false;
    switch (kind) {
    case RT_BR_NONE:
        return false;
    case RT_BR_COND:
        miss = bp_conditional(bp, pc, taken, target, fallthrough);
        break;
    case RT_BR_CALL:
        bp_ras_push(bp, fallthrough);
        bp_btb_insert(bp, pc, target);
        break;
    case RT_BR_DIRECT:
        bp_btb_insert(bp, pc, target);
        break;
    case RT_BR_RET:
        miss = !bp_ras_pop(bp, target);
        break;
    case RT_BR_INDIRECT:
        miss = bp_indirect(bp, pc, target);
        break;
    }
    bp->branches++;
    bp->mispredicts += miss;
    return miss;
}

void bp_stats(const struct bp *bp, uint64_t *branches, uint64_t *mispredicts)
{
    if (branches)
        *branches = bp->branches;
    if (mispredicts)
        *mispredicts = bp->mispredicts;
}
