/* gshare: 2-bit counters indexed by the branch address XOR the global history of conditional
 * outcomes, the history being as long as the index (or history_bits if shorter). */
#include <stdlib.h>
#include "predictor.h"

struct gshare {
    uint64_t mask, hist_mask, hist;
    uint8_t ctr[];              /* 0-1 not taken, 2-3 taken */
};

static void *gshare_create(const struct predictor_params *p)
{
    unsigned bits = predictor_log2(p->table_entries);
    unsigned hbits = p->history_bits < bits ? p->history_bits : bits;
    uint64_t n = UINT64_C(1) << bits;
    struct gshare *g = malloc(sizeof *g + n);
    if (!g)
        return NULL;
    g->mask = n - 1;
    g->hist_mask = (UINT64_C(1) << hbits) - 1;
    g->hist = 0;
    for (uint64_t i = 0; i < n; i++)
        g->ctr[i] = 2;
    return g;
}

static void gshare_destroy(void *self)
{
    free(self);
}

static uint8_t *gshare_counter(struct gshare *g, uint64_t pc)
{
    return &g->ctr[(predictor_hash(pc) ^ g->hist) & g->mask];
}

static bool gshare_predict(void *self, uint64_t pc, uint64_t target)
{
    (void)target;
    return *gshare_counter(self, pc) >= 2;
}

static void gshare_update(void *self, uint64_t pc, bool taken)
{
    struct gshare *g = self;
    uint8_t *c = gshare_counter(g, pc);
    if (taken && *c < 3)
        ++*c;
    else if (!taken && *c > 0)
        --*c;
    g->hist = (g->hist << 1 | taken) & g->hist_mask;
}

const struct predictor_ops predictor_gshare = {
    "gshare", gshare_create, gshare_destroy, gshare_predict, gshare_update
};
