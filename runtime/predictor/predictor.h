/* Conditional-branch direction predictors behind one interface: each instance owns its tables
 * and, when it uses one, its global history of conditional outcomes. */
#ifndef PREDICTOR_H
#define PREDICTOR_H
#include <stdbool.h>
#include <stdint.h>
#include "mdl_machine.h"

struct predictor_params {
    uint32_t table_entries;     /* counters per table; rounded down to a power of two */
    uint32_t history_bits;      /* longest global history used */
};

/* predict() may be followed by update() for the same pc, which then reuses what predict()
 * looked up; update() alone works too. TARGET lets a static predictor see the direction of the
 * branch; the others ignore it. */
struct predictor_ops {
    const char *name;
    void *(*create)(const struct predictor_params *p);     /* NULL when out of memory */
    void (*destroy)(void *self);
    bool (*predict)(void *self, uint64_t pc, uint64_t target);
    void (*update)(void *self, uint64_t pc, bool taken);
};

extern const struct predictor_ops predictor_static, predictor_bimodal, predictor_gshare,
    predictor_tage;

/* The predictor for an enum mdl_predictor value; static for an unknown one. */
static inline const struct predictor_ops *predictor_for(unsigned kind)
{
    switch (kind) {
    case MDL_PREDICTOR_BIMODAL: return &predictor_bimodal;
    case MDL_PREDICTOR_GSHARE: return &predictor_gshare;
    case MDL_PREDICTOR_TAGE: return &predictor_tage;
    default: return &predictor_static;
    }
}

/* x86 branches sit at any byte and AArch64 ones on 4-byte boundaries: folding the pc keeps
 * both spread over a table's low index bits. */
static inline uint64_t predictor_hash(uint64_t pc)
{
    return pc ^ (pc >> 2) ^ (pc >> 17);
}

/* log2 of the largest power of two not above N (at least 16 entries). */
static inline unsigned predictor_log2(uint32_t n)
{
    unsigned b = 4;
    while (b < 31 && (UINT32_C(1) << (b + 1)) <= n)
        b++;
    return b;
}

#endif
