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

/* The ancestor K levels above node N as a bit of word 0 (none past the root), and that bit set
 * when N's path goes through its left child: a touch of leaf N clears the bits of its path and
 * sets those, pointing every node away from the touched half. */
#define PLRU_ANC(n, k) ((n) >> (k) ? UINT64_C(1) << ((n) >> (k)) : 0)
#define PLRU_LEFT(n, k) ((n) >> ((k) - 1) & 1 ? 0 : PLRU_ANC(n, k))
#define PLRU_PATH(n) { PLRU_ANC(n, 1) | PLRU_ANC(n, 2) | PLRU_ANC(n, 3) | PLRU_ANC(n, 4) | \
                       PLRU_ANC(n, 5) | PLRU_ANC(n, 6),                                  \
                       PLRU_LEFT(n, 1) | PLRU_LEFT(n, 2) | PLRU_LEFT(n, 3) | PLRU_LEFT(n, 4) | \
                       PLRU_LEFT(n, 5) | PLRU_LEFT(n, 6) }
#define PLRU_PATH2(n) PLRU_PATH(n), PLRU_PATH((n) + 1)
#define PLRU_PATH8(n) PLRU_PATH2(n), PLRU_PATH2((n) + 2), PLRU_PATH2((n) + 4), PLRU_PATH2((n) + 6)
#define PLRU_PATH32(n) PLRU_PATH8(n), PLRU_PATH8((n) + 8), PLRU_PATH8((n) + 16), PLRU_PATH8((n) + 24)

/* The path of every leaf of a tree of at most 64 leaves (every machine's), by heap index: a
 * touch is one read-modify-write instead of a loop over the levels. */
static const struct { uint64_t clear, set; } plru_paths[128] = {
    PLRU_PATH32(0), PLRU_PATH32(32), PLRU_PATH32(64), PLRU_PATH32(96)
};

/* Nodes are numbered as a heap from 1; the leaves would be leaves + way. */
static void plru_touch(void *state, unsigned ways, unsigned way)
{
    uint64_t *bits = state;
    unsigned leaves = plru_leaves(ways), node = leaves + way;
    if (leaves <= 64) {
        bits[0] = (bits[0] & ~plru_paths[node].clear) | plru_paths[node].set;
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
