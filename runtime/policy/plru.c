/* Tree pseudo-LRU: one bit per inner node of a binary tree over the ways, pointing to the half
 * to evict next. A way count that is not a power of two uses the next power's tree. */
#include "policy.h"

static unsigned plru_leaves(unsigned ways)
{
    return ways <= 1 ? 1 : 2u << (31 - __builtin_clz(ways - 1));
}

/* The bits live in 64-bit words (node n is bit n % 64 of word n / 64): the nodes of a path that
 * share a word change with one write, not one dependent byte update per level. */
static size_t plru_size(unsigned ways)
{
    return (plru_leaves(ways) + 63) / 64 * sizeof(uint64_t);
}

static void plru_init(void *state, unsigned ways, uint32_t seed)
{
    (void)state, (void)ways, (void)seed;
}

static int plru_bit(const uint64_t *bits, unsigned node)
{
    return bits[node >> 6] >> (node & 63) & 1;
}

/* Nodes are numbered as a heap from 1; the leaves would be leaves + way. */
static void plru_touch(void *state, unsigned ways, unsigned way)
{
    uint64_t *bits = state;
    unsigned leaves = plru_leaves(ways), node = leaves + way;
    if (leaves <= 64) {     /* every inner node in word 0: no word test per level */
        uint64_t clear = 0, set = 0;
        for (; node > 1; node >>= 1) {
            clear |= UINT64_C(1) << (node >> 1);
            set |= (uint64_t)(~node & 1) << (node >> 1);
        }
        bits[0] = (bits[0] & ~clear) | set;
        return;
    }
    while (node > 1) {
        unsigned word = node >> 7;
        uint64_t clear = 0, set = 0;
        for (; node > 1 && node >> 7 == word; node >>= 1) {
            uint64_t bit = UINT64_C(1) << (node >> 1 & 63);
            clear |= bit;
            set |= node & 1 ? 0 : bit;      /* point away from the touched half */
        }
        bits[word] = (bits[word] & ~clear) | set;
    }
}

/* The first way under NODE (leaves of the tree are leaves + way). */
static unsigned plru_first_way(unsigned node, unsigned leaves)
{
    while (node < leaves)
        node <<= 1;
    return node - leaves;
}

static unsigned plru_victim(void *state, unsigned ways)
{
    const uint64_t *bits = state;
    unsigned leaves = plru_leaves(ways), node = 1;
    if (ways == leaves && leaves <= 64) {   /* a full tree in word 0 */
        uint64_t b = bits[0];
        while (node < leaves)
            node = 2 * node + (unsigned)(b >> node & 1);
        return node - leaves;
    }
    while (node < leaves) {
        unsigned child = 2 * node + (unsigned)plru_bit(bits, node);
        /* A subtree holding only the missing ways of a non-power-of-two set is never chosen. */
        if (ways != leaves && plru_first_way(child, leaves) >= ways)
            child = 2 * node;
        node = child;
    }
    return node - leaves;
}

const struct policy_ops policy_plru = {
    "plru", plru_size, plru_init, plru_touch, plru_touch, plru_victim
};
