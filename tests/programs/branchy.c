/* A branch on random data: about half the branches are mispredicted whatever the predictor.
 * The empty asm keeps compilers from turning the branch into a conditional select. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long kernel_branchy(const unsigned char *v, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (v[i] & 1) {
            __asm__ volatile("" ::: "memory");
            s += v[i] * 3;
        } else
            s ^= v[i];
    }
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    unsigned char *v = malloc((size_t)n);
    unsigned long r = 2463534242ul;
    for (long i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        v[i] = (unsigned char)(r >> 3);
    }
    printf("%ld\n", kernel_branchy(v, n));
    return 0;
}
