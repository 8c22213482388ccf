/* A compact TAGE (Seznec): a bimodal base and tagged tables indexed with global histories of
 * geometric lengths up to history_bits; the longest matching table provides the prediction. */
#include <stdlib.h>
#include "predictor.h"

enum {
    TAGE_TABLES = 5,
    TAGE_MIN_HIST = 4,
    TAGE_MAX_HIST = 2048,
    TAGE_TAG_BITS = 8,          /* table i has TAGE_TAG_BITS + i tag bits */
    TAGE_U_PERIOD = 1 << 18     /* updates between two agings of the useful bits */
};

struct tage_entry {
    uint16_t tag;               /* tag + 1; 0 for a never-allocated entry */
    int8_t ctr;                 /* -4..3: taken when >= 0 */
    uint8_t u;                  /* 0..3: useful */
};

/* A history of its table's length folded into WIDTH bits, kept up to date one bit at a time. */
struct tage_fold {
    uint32_t comp, mask;
    unsigned width, out;            /* OUT: where the bit that leaves the history has rotated to */
};

struct tage {
    unsigned idx_bits, hist_mask, hist_pos;
    uint8_t *base;              /* 2-bit counters */
    struct tage_entry *t[TAGE_TABLES];
    unsigned len[TAGE_TABLES];
    struct tage_fold fidx[TAGE_TABLES], ftag[TAGE_TABLES][2];
    uint8_t *hist;              /* circular, one outcome per byte; hist[hist_pos] is the newest */
    int8_t use_alt;             /* >= 0: a new, weak provider defers to the alternate */
    uint32_t updates, rng;
    /* what predict() found, for update() */
    uint64_t pc;
    bool looked_up, pred, provider_pred, alt_pred;
    int provider, alt;
    uint32_t idx[TAGE_TABLES], base_idx;
    uint16_t tag[TAGE_TABLES];
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

static void tage_fold_init(struct tage_fold *f, unsigned len, unsigned width)
{
    f->comp = 0;
    f->width = width;
    f->out = len % width;
    f->mask = (UINT32_C(1) << width) - 1;
}

/* The newest bit IN enters at bit 0 and OUT, the bit LEN steps old, leaves where it has
 * rotated to. */
static void tage_fold_push(struct tage_fold *f, unsigned in, unsigned out)
{
    f->comp = (f->comp << 1) ^ in;
    f->comp ^= out << f->out;
    f->comp ^= f->comp >> f->width;
    f->comp &= f->mask;
}

static bool tage_alloc_tables(struct tage *g, const struct predictor_params *p)
{
    unsigned max = p->history_bits ? p->history_bits : 1;
    if (max > TAGE_MAX_HIST)
        max = TAGE_MAX_HIST;
    unsigned hsize = 1;
    while (hsize <= max)
        hsize <<= 1;
    g->hist_mask = hsize - 1;
    g->hist = calloc(hsize, 1);
    g->base = malloc((size_t)1 << g->idx_bits);
    if (!g->hist || !g->base)
        return false;
    for (size_t i = 0; i < (size_t)1 << g->idx_bits; i++)
        g->base[i] = 2;
    tage_lengths(g->len, max);
    for (int i = 0; i < TAGE_TABLES; i++) {
        g->t[i] = calloc((size_t)1 << g->idx_bits, sizeof *g->t[i]);
        if (!g->t[i])
            return false;
        tage_fold_init(&g->fidx[i], g->len[i], g->idx_bits);
        tage_fold_init(&g->ftag[i][0], g->len[i], TAGE_TAG_BITS + i);
        tage_fold_init(&g->ftag[i][1], g->len[i], TAGE_TAG_BITS + i - 1);
    }
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
    g->idx_bits = predictor_log2(p->table_entries);
    g->rng = 0x12345678u;
    if (!tage_alloc_tables(g, p)) {
        tage_destroy(g);
        return NULL;
    }
    return g;
}

static void tage_lookup(struct tage *g, uint64_t pc)
{
    uint64_t h = predictor_hash(pc);
    uint32_t mask = (UINT32_C(1) << g->idx_bits) - 1;
    g->base_idx = (uint32_t)h & mask;
    for (int i = 0; i < TAGE_TABLES; i++) {
        g->idx[i] = (uint32_t)(h ^ (h >> (g->idx_bits - i)) ^ g->fidx[i].comp) & mask;
        uint32_t tag = (uint32_t)(h >> 3) ^ g->ftag[i][0].comp ^ g->ftag[i][1].comp << 1;
        g->tag[i] = (uint16_t)((tag & ((UINT32_C(1) << (TAGE_TAG_BITS + i)) - 1)) + 1);
    }
    g->provider = g->alt = -1;
    for (int i = TAGE_TABLES - 1; i >= 0 && g->alt < 0; i--)
        if (g->t[i][g->idx[i]].tag == g->tag[i])
            *(g->provider < 0 ? &g->provider : &g->alt) = i;
}

static bool tage_weak_new(const struct tage_entry *e)
{
    return e->u == 0 && (e->ctr == 0 || e->ctr == -1);
}

static bool tage_predict(void *self, uint64_t pc, uint64_t target)
{
    struct tage *g = self;
    (void)target;
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
        for (size_t j = 0; j < (size_t)1 << g->idx_bits; j++)
            g->t[i][j].u >>= 1;
}

static void tage_push(struct tage *g, bool taken)
{
    g->hist_pos = (g->hist_pos - 1) & g->hist_mask;
    g->hist[g->hist_pos] = taken;
    for (int i = 0; i < TAGE_TABLES; i++) {
        unsigned out = g->hist[(g->hist_pos + g->len[i]) & g->hist_mask];
        tage_fold_push(&g->fidx[i], taken, out);
        tage_fold_push(&g->ftag[i][0], taken, out);
        tage_fold_push(&g->ftag[i][1], taken, out);
    }
}

static void tage_update(void *self, uint64_t pc, bool taken)
{
    struct tage *g = self;
    if (!g->looked_up || g->pc != pc)
        tage_predict(g, pc, 0);
    if (g->provider >= 0)
        tage_provider_update(g, taken);
    else
        tage_base_update(g, taken);
    if (g->pred != taken && g->provider < TAGE_TABLES - 1)
        tage_allocate(g, taken);
    if (++g->updates % TAGE_U_PERIOD == 0)
        tage_age(g);
    tage_push(g, taken);
    g->looked_up = false;
}

const struct predictor_ops predictor_tage = {
    "tage", tage_create, tage_destroy, tage_predict, tage_update
};
