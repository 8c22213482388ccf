/* Bimodal: a table of 2-bit saturating counters indexed by the branch address alone. */
#include <stdlib.h>
#include "predictor.h"

struct bimodal {
    uint64_t mask;
    uint8_t ctr[];              /* 0-1 not taken, 2-3 taken */
};

static void *bimodal_create(const struct predictor_params *p)
{
    uint64_t n = UINT64_C(1) << predictor_log2(p->table_entries);
    struct bimodal *b = malloc(sizeof *b + n);
    if (!b)
        return NULL;
    b->mask = n - 1;
    /* Weakly taken: most conditional branches close loops. */
    for (uint64_t i = 0; i < n; i++)
        b->ctr[i] = 2;
    return b;
}

static void bimodal_destroy(void *self)
{
    free(self);
}

static bool bimodal_predict(void *self, uint64_t pc, uint64_t target)
{
    struct bimodal *b = self;
    (void)target;
    return b->ctr[predictor_hash(pc) & b->mask] >= 2;
}

static void bimodal_update(void *self, uint64_t pc, bool taken)
{
    struct bimodal *b = self;
    uint8_t *c = &b->ctr[predictor_hash(pc) & b->mask];
    if (taken && *c < 3)
        ++*c;
    else if (!taken && *c > 0)
        --*c;
}

const struct predictor_ops predictor_bimodal = {
    "bimodal", bimodal_create, bimodal_destroy, bimodal_predict, bimodal_update
};
