/* A correlation-like reduction: one floating-point sum carried through a single register, so
 * the add latency bounds it (a latency-bound kernel). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double kernel_reduce(const double *x, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 4096;
    double *x = malloc(sizeof *x * n);
    for (long i = 0; i < n; i++)
        x[i] = (double)(i % 13);
    double s = 0;
    for (int r = 0; r < 20; r++)
        s += kernel_reduce(x, n);
    printf("%.1f\n", s);
    return 0;
}
