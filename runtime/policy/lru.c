/* True LRU: a recency rank per way (0 = most recent), so the victim is the oldest way. */
#include "policy.h"

static size_t lru_size(unsigned ways)
{
    return ways * sizeof(uint16_t);
}

static void lru_init(void *state, unsigned ways, uint32_t seed)
{
    uint16_t *rank = state;
    (void)seed;
    /* Distinct ranks from the start keep the order total once invalid ways are filled. */
    for (unsigned w = 0; w < ways; w++)
        rank[w] = (uint16_t)(ways - 1 - w);
}

static void lru_touch(void *state, unsigned ways, unsigned way)
{
    uint16_t *rank = state;
    uint16_t old = rank[way];
    for (unsigned w = 0; w < ways; w++)
        rank[w] += rank[w] < old;
    rank[way] = 0;
}

static unsigned lru_victim(void *state, unsigned ways)
{
    uint16_t *rank = state;
    for (unsigned w = 0; w < ways; w++)
        if (rank[w] == ways - 1)
            return w;
    return 0;
}

const struct policy_ops policy_lru = {
    "lru", lru_size, lru_init, lru_touch, lru_touch, lru_victim
};
