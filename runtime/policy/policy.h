/* Replacement policies of a set-associative cache: each keeps a small opaque state per set and
 * names the way to evict. The cache fills invalid ways itself, so victim() sees a full set. */
#ifndef POLICY_H
#define POLICY_H
#include <stddef.h>
#include <stdint.h>
#include "mdl_machine.h"

/* STATE is the set's bytes (state_size(ways) of them, zeroed by the cache before init). Touching
 * the way a set touched or filled last must change nothing: the cache skips such touches. Nor
 * may touching the ways of a sequence again, in the same order, right after it: the cache repeats
 * a string's iterations without their touches (cache_repeat). LRU and tree PLRU keep the order of
 * the last touches, which the repeat leaves as it was; FIFO and random do not look at touches. */
struct policy_ops {
    const char *name;
    size_t (*state_size)(unsigned ways);
    /* SEED differs per set so that a randomised policy does not evict the same way everywhere. */
    void (*init)(void *state, unsigned ways, uint32_t seed);
    void (*touch)(void *state, unsigned ways, unsigned way);   /* a hit */
    void (*insert)(void *state, unsigned ways, unsigned way);  /* a fill */
    unsigned (*victim)(void *state, unsigned ways);
};

extern const struct policy_ops policy_lru, policy_plru, policy_fifo, policy_random;

/* The policy for an enum mdl_policy value; LRU for an unknown one. */
static inline const struct policy_ops *policy_for(unsigned policy)
{
    switch (policy) {
    case MDL_POLICY_PLRU: return &policy_plru;
    case MDL_POLICY_FIFO: return &policy_fifo;
    case MDL_POLICY_RANDOM: return &policy_random;
    default: return &policy_lru;
    }
}

#endif
