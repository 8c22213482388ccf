/* A pointer chase over a random cyclic permutation larger than the L2: every load depends on the
 * previous one and misses, so memory latency bounds it. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long kernel_chase(const long *next, long steps)
{
    long p = 0;
    for (long i = 0; i < steps; i++)
        p = next[p];
    return p;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : (4L << 20) / (long)sizeof(long);     /* 4 MiB */
    long *next = malloc(sizeof *next * n), *perm = malloc(sizeof *perm * n);
    for (long i = 0; i < n; i++)
        perm[i] = i;
    unsigned long r = 88172645463325252ul;
    for (long i = n - 1; i > 0; i--) {          /* Fisher-Yates with xorshift */
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        long j = (long)(r % (unsigned long)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (long i = 0; i < n; i++)
        next[perm[i]] = perm[(i + 1) % n];
    printf("%ld\n", kernel_chase(next, 200000));
    return 0;
}
