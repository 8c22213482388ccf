/* Independent divides: four sums of reciprocals, so the divider's throughput binds, not its latency. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double kernel_divthroughput(const double *a, long n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (long i = 0; i + 3 < n; i += 4) {
        s0 += 1.0 / a[i];
        s1 += 1.0 / a[i + 1];
        s2 += 1.0 / a[i + 2];
        s3 += 1.0 / a[i + 3];
    }
    return s0 + s1 + s2 + s3;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 4096;
    double *a = malloc((size_t)n * sizeof *a);
    for (long i = 0; i < n; i++)
        a[i] = 1.0 + (double)(i % 7);
    printf("%.3f\n", kernel_divthroughput(a, n));
    free(a);
    return 0;
}
