/* A compact TAGE (Seznec): a bimodal base and tagged tables indexed with global histories of
 * geometric lengths up to history_bits; the longest matching table provides the prediction. */
#include <stdlib.h>
#include <string.h>
#include "predictor.h"

enum {
    TAGE_TABLES = 5,
    TAGE_MIN_HIST = 4,
    TAGE_MAX_HIST = 2048,
    TAGE_TAG_BITS = 8,          /* table i has TAGE_TAG_BITS + i tag bits */
    TAGE_U_PERIOD = 1 << 18,    /* updates between two agings of the useful bits */
    TAGE_RECENT = 64            /* outcomes in struct tage's recent */
};

struct tage_entry {
    uint16_t tag;               /* tag + 1; 0 for a never-allocated entry */
    int8_t ctr;                 /* -4..3: taken when >= 0 */
    uint8_t u;                  /* 0..3: useful */
};

/* The shape of a history of its table's length LEN folded into WIDTH bits: the XOR of its
 * WIDTH-bit chunks, the newest outcome at bit 0. A history of at most TAGE_RECENT outcomes is
 * folded when looked up, in log2(CHUNKS) shifts; a longer one is kept up to date one bit at a
 * time (struct tage's comp), which costs as much per fold whatever its length. */
struct tage_fold {
    uint32_t mask;
    uint32_t outbit;            /* where the bit that leaves the history has rotated to */
    uint32_t width;
    uint32_t chunks;            /* a power of two at least LEN / WIDTH (LEN <= TAGE_RECENT) */
};

enum { TAGE_FOLD_INDEX, TAGE_FOLD_TAG, TAGE_FOLD_TAG_SHORT, TAGE_FOLDS };

/* What lookups and history pushes read of the geometry: the index bits, the history lengths and
 * the folds (the index's, and the tag's two, one bit shorter than the other). */
struct tage_geom {
    uint32_t idx_bits, hist_mask, len[TAGE_TABLES];
    struct tage_fold fold[TAGE_TABLES][TAGE_FOLDS];
};

#define TAGE_POW2(n) \
    ((n) <= 1 ? 1u : (n) <= 2 ? 2u : (n) <= 4 ? 4u : (n) <= 8 ? 8u : (n) <= 16 ? 16u : \
     (n) <= 32 ? 32u : 64u)
#define TAGE_FOLD(len, width) \
    { (UINT32_C(1) << (width)) - 1, UINT32_C(1) << ((len) % (width)), (width), \
      TAGE_POW2(((len) + (width) - 1) / (width)) }
#define TAGE_TABLE_FOLDS(len, i) \
    { TAGE_FOLD(len, 12), TAGE_FOLD(len, TAGE_TAG_BITS + (i)), \
      TAGE_FOLD(len, TAGE_TAG_BITS + (i) - 1) }

/* The geometry of every machine shipped (4096 entries a table, 64 bits of history). Passing this
 * constant rather than an instance's copy lets the compiler make every shift and mask of the
 * hot paths an immediate; tage_create checks that an instance's geometry is exactly this. */
static const struct tage_geom tage_geom_preset = {
    12, 127, { 4, 8, 16, 32, 64 },
    { TAGE_TABLE_FOLDS(4, 0), TAGE_TABLE_FOLDS(8, 1), TAGE_TABLE_FOLDS(16, 2),
      TAGE_TABLE_FOLDS(32, 3), TAGE_TABLE_FOLDS(64, 4) }
};

struct tage {
    struct tage_geom geom;
    bool preset;                /* geom equals tage_geom_preset */
    unsigned hist_pos;
    uint8_t *base;              /* 2-bit counters */
    struct tage_entry *t[TAGE_TABLES];
    uint32_t comp[TAGE_TABLES][TAGE_FOLDS];    /* the folded histories longer than recent's */
    uint64_t recent;            /* the last TAGE_RECENT outcomes, the newest at bit 0 */
    uint8_t *hist;              /* circular, one outcome per byte; hist[hist_pos] is the newest */
    int8_t use_alt;             /* >= 0: a new, weak provider defers to the alternate */
    uint32_t updates, rng;
    /* what predict() found, for update() */
    uint64_t pc;
    bool looked_up, pred, provider_pred, alt_pred;
    int provider, alt;
    uint32_t idx[TAGE_TABLES], base_idx;
    uint16_t tag[TAGE_TABLES];
    /* the pc and history IDX and TAG were found for (FOUND: they were) */
    bool found;
    uint64_t found_pc, found_recent;
    /* The last update, of PC, moved nothing but the ageing count (tage_update): looked up again
     * before any other, PC predicts as it did, and the same outcome moves nothing again. */
    bool still;
};

/* Lengths MIN * r^i with r^(TAGE_TABLES-1) = MAX / MIN; r found by bisection (no libm). */
static void tage_lengths(unsigned *len, unsigned max)
{
    unsigned min = max < TAGE_MIN_HIST ? max : TAGE_MIN_HIST;
    double lo = 1.0, hi = (double)max / min + 1.0;
    for (int it = 0; it < 60; it++) {
        double r = (lo + hi) / 2, p = 1.0;
        for (int i = 1; i < TAGE_TABLES; i++)
            p *= r;
        *(p * min > max ? &hi : &lo) = r;
    }
    double l = min;
    for (int i = 0; i < TAGE_TABLES; i++, l *= lo)
        len[i] = (unsigned)(l + 0.5) ? (unsigned)(l + 0.5) : 1;
    len[TAGE_TABLES - 1] = max;
}

/* The newest bit IN enters at bit 0 and the bit LEN steps old (OUT_MASK: all ones when it was
 * taken) leaves where it has rotated to; the bit shifted out at the top wraps to bit 0. */
static inline uint32_t tage_fold_push(const struct tage_fold *f, uint32_t comp, uint32_t in,
                                      uint32_t out_mask)
{
    uint32_t c = (comp << 1 | in) ^ (out_mask & f->outbit);
    return (c ^ c >> f->width) & f->mask;
}

static bool tage_alloc_tables(struct tage *g, const struct predictor_params *p)
{
    unsigned max = p->history_bits ? p->history_bits : 1;
    if (max > TAGE_MAX_HIST)
        max = TAGE_MAX_HIST;
    unsigned hsize = 1;
    while (hsize <= max)
        hsize <<= 1;
    g->geom.hist_mask = hsize - 1;
    g->hist = calloc(hsize, 1);
    size_t entries = (size_t)1 << g->geom.idx_bits;
    g->base = malloc(entries);
    if (!g->hist || !g->base)
        return false;
    for (size_t i = 0; i < entries; i++)
        g->base[i] = 2;
    tage_lengths(g->geom.len, max);
    for (int i = 0; i < TAGE_TABLES; i++) {
        g->t[i] = calloc(entries, sizeof *g->t[i]);
        if (!g->t[i])
            return false;
        unsigned len = g->geom.len[i];
        g->geom.fold[i][TAGE_FOLD_INDEX] = (struct tage_fold)TAGE_FOLD(len, g->geom.idx_bits);
        g->geom.fold[i][TAGE_FOLD_TAG] = (struct tage_fold)TAGE_FOLD(len, TAGE_TAG_BITS + i);
        g->geom.fold[i][TAGE_FOLD_TAG_SHORT] =
            (struct tage_fold)TAGE_FOLD(len, TAGE_TAG_BITS + i - 1);
    }
    g->preset = !memcmp(&g->geom, &tage_geom_preset, sizeof g->geom);
    return true;
}

static void tage_destroy(void *self)
{
    struct tage *g = self;
    if (!g)
        return;
    for (int i = 0; i < TAGE_TABLES; i++)
        free(g->t[i]);
    free(g->base);
    free(g->hist);
    free(g);
}

static void *tage_create(const struct predictor_params *p)
{
    struct tage *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->geom.idx_bits = predictor_log2(p->table_entries);
    g->rng = 0x12345678u;
    if (!tage_alloc_tables(g, p)) {
        tage_destroy(g);
        return NULL;
    }
    return g;
}

/* The longest of the tables whose bit is set in HITS; -1 for none. */
static int tage_longest(unsigned hits)
{
    return hits ? 31 - __builtin_clz(hits) : -1;
}

/* Fold F of table I: halving the chunks each step leaves their XOR in the lowest one. */
static inline uint32_t tage_fold(const struct tage *g, const struct tage_geom *k, int i, int f)
{
    unsigned len = k->len[i];
    if (len > TAGE_RECENT)
        return g->comp[i][f];
    uint64_t x = len == TAGE_RECENT ? g->recent : g->recent & ((UINT64_C(1) << len) - 1);
#pragma GCC unroll 8
    for (uint32_t n = k->fold[i][f].chunks; n > 1; n /= 2)
        x ^= x >> (n / 2 * k->fold[i][f].width);
    return (uint32_t)x & k->fold[i][f].mask;
}

/* Inlined twice: with the preset geometry as K, and with the instance's own; the loops are
 * unrolled so that the preset's lengths and widths become immediates. Where every history fits
 * in recent, a branch looked up again with the same history (a loop's, once its history is all
 * taken) has the indices and tags it had: only the tables are read again. */
static inline void tage_lookup_in(struct tage *g, const struct tage_geom *k, uint64_t pc)
{
    bool short_only = k->len[TAGE_TABLES - 1] <= TAGE_RECENT;
    if (!(short_only && g->found && g->found_pc == pc && g->found_recent == g->recent)) {
        uint64_t h = predictor_hash(pc);
        uint32_t mask = k->fold[0][TAGE_FOLD_INDEX].mask;
        g->base_idx = (uint32_t)h & mask;
#pragma GCC unroll 8
        for (int i = 0; i < TAGE_TABLES; i++) {
            uint32_t fidx = tage_fold(g, k, i, TAGE_FOLD_INDEX);
            g->idx[i] = (uint32_t)(h ^ (h >> (k->idx_bits - i)) ^ fidx) & mask;
            uint32_t tag = (uint32_t)(h >> 3) ^ tage_fold(g, k, i, TAGE_FOLD_TAG)
                         ^ tage_fold(g, k, i, TAGE_FOLD_TAG_SHORT) << 1;
            g->tag[i] = (uint16_t)((tag & k->fold[i][TAGE_FOLD_TAG].mask) + 1);
        }
        g->found = short_only;
        g->found_pc = pc;
        g->found_recent = g->recent;
    }
    unsigned hits = 0;
#pragma GCC unroll 8
    for (int i = 0; i < TAGE_TABLES; i++)
        hits |= (unsigned)(g->t[i][g->idx[i]].tag == g->tag[i]) << i;
    g->provider = tage_longest(hits);
    g->alt = g->provider < 0 ? -1 : tage_longest(hits & ~(1u << g->provider));
}

static void tage_lookup(struct tage *g, uint64_t pc)
{
    if (g->preset)
        tage_lookup_in(g, &tage_geom_preset, pc);
    else
        tage_lookup_in(g, &g->geom, pc);
}

static bool tage_weak_new(const struct tage_entry *e)
{
    return e->u == 0 && (e->ctr == 0 || e->ctr == -1);
}

static bool tage_predict(void *self, uint64_t pc, uint64_t target)
{
    struct tage *g = self;
    (void)target;
    if (g->still && g->pc == pc) {
        g->looked_up = true;
        return g->pred;
    }
    g->still = false;
    tage_lookup(g, pc);
    bool base = g->base[g->base_idx] >= 2;
    g->alt_pred = g->alt >= 0 ? g->t[g->alt][g->idx[g->alt]].ctr >= 0 : base;
    g->provider_pred = g->alt_pred;
    g->pred = g->alt_pred;
    if (g->provider >= 0) {
        const struct tage_entry *e = &g->t[g->provider][g->idx[g->provider]];
        g->provider_pred = e->ctr >= 0;
        g->pred = tage_weak_new(e) && g->use_alt >= 0 ? g->alt_pred : g->provider_pred;
    }
    g->pc = pc;
    g->looked_up = true;
    return g->pred;
}

static void tage_count(int8_t *c, bool taken, int lo, int hi)
{
    if (taken && *c < hi)
        ++*c;
    else if (!taken && *c > lo)
        --*c;
}

static void tage_base_update(struct tage *g, bool taken)
{
    uint8_t *c = &g->base[g->base_idx];
    if (taken && *c < 3)
        ++*c;
    else if (!taken && *c > 0)
        --*c;
}

static uint32_t tage_random(struct tage *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 17;
    g->rng ^= g->rng << 5;
    return g->rng;
}

/* A new entry in one longer table whose entry is not useful: usually the shortest such, at
 * times a longer one so that two branches fighting over one entry spread out. When all are
 * useful they age instead, so that a later misprediction finds room. */
static void tage_allocate(struct tage *g, bool taken)
{
    int first = g->provider + 1, pick = -1;
    for (int i = first; i < TAGE_TABLES; i++) {
        if (g->t[i][g->idx[i]].u)
            continue;
        pick = i;
        if (tage_random(g) % 3)
            break;
    }
    if (pick < 0) {
        for (int i = first; i < TAGE_TABLES; i++)
            g->t[i][g->idx[i]].u--;
        return;
    }
    g->t[pick][g->idx[pick]] = (struct tage_entry){ g->tag[pick], (int8_t)(taken ? 0 : -1), 0 };
}

static void tage_provider_update(struct tage *g, bool taken)
{
    struct tage_entry *e = &g->t[g->provider][g->idx[g->provider]];
    if (tage_weak_new(e) && g->provider_pred != g->alt_pred)
        tage_count(&g->use_alt, g->alt_pred == taken, -8, 7);
    /* A provider not yet useful leaves the alternate trained, which may still be needed. */
    if (e->u == 0) {
        if (g->alt >= 0)
            tage_count(&g->t[g->alt][g->idx[g->alt]].ctr, taken, -4, 3);
        else
            tage_base_update(g, taken);
    }
    tage_count(&e->ctr, taken, -4, 3);
    if (g->provider_pred != g->alt_pred) {
        if (g->provider_pred == taken && e->u < 3)
            e->u++;
        else if (g->provider_pred != taken && e->u > 0)
            e->u--;
    }
}

static void tage_age(struct tage *g)
{
    for (int i = 0; i < TAGE_TABLES; i++)
        for (size_t j = 0; j < (size_t)1 << g->geom.idx_bits; j++)
            g->t[i][j].u >>= 1;
}

/* Inlined twice, as tage_lookup_in. Only histories longer than recent need the bytes. */
static inline void tage_push_in(struct tage *g, const struct tage_geom *k, bool taken)
{
    g->recent = g->recent << 1 | taken;
    if (k->len[TAGE_TABLES - 1] <= TAGE_RECENT)
        return;
    g->hist_pos = (g->hist_pos - 1) & k->hist_mask;
    g->hist[g->hist_pos] = taken;
    for (int i = 0; i < TAGE_TABLES; i++) {
        if (k->len[i] <= TAGE_RECENT)
            continue;
        uint32_t out_mask = -(uint32_t)g->hist[(g->hist_pos + k->len[i]) & k->hist_mask];
        for (int f = 0; f < TAGE_FOLDS; f++)
            g->comp[i][f] = tage_fold_push(&k->fold[i][f], g->comp[i][f], taken, out_mask);
    }
}

static void tage_push(struct tage *g, bool taken)
{
    if (g->preset)
        tage_push_in(g, &tage_geom_preset, taken);
    else
        tage_push_in(g, &g->geom, taken);
}

/* The counters an update may move without a misprediction (tage_provider_update,
 * tage_base_update), to tell whether it moved any. */
struct tage_moved {
    int8_t ctr, alt_ctr, use_alt;
    uint8_t u, base;
};

static struct tage_moved tage_moved(const struct tage *g)
{
    struct tage_moved m = { .use_alt = g->use_alt, .base = g->base[g->base_idx] };
    if (g->provider >= 0) {
        m.ctr = g->t[g->provider][g->idx[g->provider]].ctr;
        m.u = g->t[g->provider][g->idx[g->provider]].u;
    }
    if (g->alt >= 0)
        m.alt_ctr = g->t[g->alt][g->idx[g->alt]].ctr;
    return m;
}

static bool tage_moved_none(struct tage_moved a, struct tage_moved b)
{
    return a.ctr == b.ctr && a.alt_ctr == b.alt_ctr && a.use_alt == b.use_alt && a.u == b.u && a.base == b.base;
}

/* A loop's branch, once its counters saturate and the history (all within recent) is all its
 * outcome, predicts right and moves nothing at each iteration: then its next lookup and update
 * are skipped, as long as no other branch comes between (gemm's inner loop: a fifth of the
 * reader's predictor time). The ageing count still moves, and an ageing ends it. */
static void tage_update(void *self, uint64_t pc, bool taken)
{
    struct tage *g = self;
    if (g->still && g->looked_up && g->pc == pc && g->pred == taken) {
        if (++g->updates % TAGE_U_PERIOD == 0) {
            tage_age(g);
            g->still = false;
        }
        g->looked_up = false;
        return;
    }
    if (!g->looked_up || g->pc != pc)
        tage_predict(g, pc, 0);
    struct tage_moved before = tage_moved(g);
    uint64_t recent = g->recent;
    if (g->provider >= 0)
        tage_provider_update(g, taken);
    else
        tage_base_update(g, taken);
    if (g->pred != taken && g->provider < TAGE_TABLES - 1)
        tage_allocate(g, taken);
    bool aged = ++g->updates % TAGE_U_PERIOD == 0;
    if (aged)
        tage_age(g);
    tage_push(g, taken);
    g->still = g->found && g->pred == taken && !aged && g->recent == recent && tage_moved_none(before, tage_moved(g));
    g->looked_up = false;
}

const struct predictor_ops predictor_tage = {
    "tage", tage_create, tage_destroy, tage_predict, tage_update
};
