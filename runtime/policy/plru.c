/* Tree pseudo-LRU: one bit per inner node of a binary tree over the ways, pointing to the half
 * to evict next. A way count that is not a power of two uses the next power's tree. */
#include "policy.h"

static unsigned plru_leaves(unsigned ways)
{
    unsigned n = 1;
    while (n < ways)
        n <<= 1;
    return n;
}

static size_t plru_size(unsigned ways)
{
    return (plru_leaves(ways) + 7) / 8;
}

static void plru_init(void *state, unsigned ways, uint32_t seed)
{
    (void)state, (void)ways, (void)seed;
}

static int plru_bit(const uint8_t *bits, unsigned node)
{
    return bits[node >> 3] >> (node & 7) & 1;
}

static void plru_set(uint8_t *bits, unsigned node, int v)
{
    bits[node >> 3] = (uint8_t)((bits[node >> 3] & ~(1u << (node & 7))) | (unsigned)v << (node & 7));
}

/* Nodes are numbered as a heap from 1; the leaves would be leaves + way. */
static void plru_touch(void *state, unsigned ways, unsigned way)
{
    uint8_t *bits = state;
    for (unsigned node = plru_leaves(ways) + way; node > 1; node >>= 1)
        plru_set(bits, node >> 1, !(node & 1));     /* point away from the touched half */
}

static unsigned plru_victim(void *state, unsigned ways)
{
    const uint8_t *bits = state;
    unsigned leaves = plru_leaves(ways), node = 1, span = leaves;
    while (node < leaves) {
        unsigned child = 2 * node + (unsigned)plru_bit(bits, node);
        span >>= 1;
        /* A subtree holding only the missing ways of a non-power-of-two set is never chosen. */
        unsigned first = (child - (leaves / span) ) * span;
        if (first >= ways)
            child = 2 * node;
        node = child;
    }
    return node - leaves;
}

const struct policy_ops policy_plru = {
    "plru", plru_size, plru_init, plru_touch, plru_touch, plru_victim
};
