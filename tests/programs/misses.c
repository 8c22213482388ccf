/* Loads that miss, as real programs make them: a linked-list walk over nodes in a random order
 * (bare: only the next pointer; with its payload: a second load to the node's line, still being
 * filled), and a sum over random elements (independent misses, bounded by the misses in flight).
 * The data (16 MiB of nodes, 64 MiB of array) is larger than the L2 of every machine described. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    struct node *next;
    long value;
    char pad[48];       /* a node per 64-byte line */
};

__attribute__((noinline)) long kernel_walk(const struct node *p, long steps)
{
    long sum = 0;
    for (long i = 0; i < steps; i++) {
        sum += p->value;
        p = p->next;
    }
    return sum;
}

__attribute__((noinline)) long kernel_bare(const struct node *p, long steps)
{
    for (long i = 0; i < steps; i++)
        p = p->next;
    return (long)(p != NULL);
}

__attribute__((noinline)) long kernel_gather(const long *a, const unsigned *idx, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += a[idx[i]];
    return s;
}

static unsigned long next_random(unsigned long *r)
{
    *r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
    return *r;
}

static long walk(int payload, long steps)
{
    long n = (16L << 20) / (long)sizeof(struct node);
    struct node *nodes = malloc(sizeof *nodes * n);
    long *perm = malloc(sizeof *perm * n);
    if (!nodes || !perm)
        return -1;
    for (long i = 0; i < n; i++)
        perm[i] = i, nodes[i].value = i;
    unsigned long r = 88172645463325252ul;
    for (long i = n - 1; i > 0; i--) {          /* Fisher-Yates */
        long j = (long)(next_random(&r) % (unsigned long)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (long i = 0; i < n; i++)
        nodes[perm[i]].next = &nodes[perm[(i + 1) % n]];
    return payload ? kernel_walk(nodes, steps) : kernel_bare(nodes, steps);
}

static long gather(long steps)
{
    long size = 64L << 20, lines = size / 64;
    long *a = malloc(size);
    unsigned *idx = malloc(sizeof *idx * steps);
    if (!a || !idx)
        return -1;
    for (long i = 0; i < lines; i++)
        a[i * 8] = i;
    unsigned long r = 88172645463325252ul;
    for (long i = 0; i < steps; i++)
        idx[i] = (unsigned)(next_random(&r) % (unsigned long)lines) * 8;
    return kernel_gather(a, idx, steps);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "walk";
    long steps = argc > 2 ? atol(argv[2]) : 20000;
    long v = !strcmp(what, "gather") ? gather(steps) : walk(strcmp(what, "bare") != 0, steps);
    printf("%ld\n", v);
    return 0;
}
