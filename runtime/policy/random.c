/* Random replacement with a per-set xorshift32 generator: reproducible from run to run. */
#include "policy.h"

static size_t random_size(unsigned ways)
{
    (void)ways;
    return sizeof(uint32_t);
}

static void random_init(void *state, unsigned ways, uint32_t seed)
{
    (void)ways;
    /* xorshift never leaves 0, and nearby seeds would start correlated: mix them first. */
    uint32_t x = (seed + 1) * 0x9e3779b9u;
    *(uint32_t *)state = x ? x : 0x2545f491u;
}

static void random_touch(void *state, unsigned ways, unsigned way)
{
    (void)state, (void)ways, (void)way;
}

static unsigned random_victim(void *state, unsigned ways)
{
    uint32_t x = *(uint32_t *)state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *(uint32_t *)state = x;
    return x % ways;
}

const struct policy_ops policy_random = {
    "random", random_size, random_init, random_touch, random_touch, random_victim
};
