/* FIFO: evicts ways in the order they were filled, whatever the hits since. */
#include "policy.h"

static size_t fifo_size(unsigned ways)
{
    (void)ways;
    return sizeof(uint16_t);
}

static void fifo_init(void *state, unsigned ways, uint32_t seed)
{
    (void)state, (void)ways, (void)seed;
}

static void fifo_touch(void *state, unsigned ways, unsigned way)
{
    (void)state, (void)ways, (void)way;
}

/* The cache fills invalid ways in order 0..ways-1 and then the victim, so the oldest way is
 * always the one after the last filled: a round-robin pointer is the whole queue. */
static void fifo_insert(void *state, unsigned ways, unsigned way)
{
    uint16_t *head = state;
    if (way == *head)
        *head = (uint16_t)((way + 1) % ways);
}

static unsigned fifo_victim(void *state, unsigned ways)
{
    (void)ways;
    return *(uint16_t *)state;
}

const struct policy_ops policy_fifo = {
    "fifo", fifo_size, fifo_init, fifo_touch, fifo_insert, fifo_victim
};
