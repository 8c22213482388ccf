/* PolyBench-style gemm: C = alpha*A*B + beta*C, doubles, the kernel in its own function. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void kernel_gemm(int n, double alpha, double beta, double *c, const double *a,
                                           const double *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = c[i * n + j] * beta;
            for (int k = 0; k < n; k++)
                s += alpha * a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double *a = malloc(sizeof *a * n * n), *b = malloc(sizeof *b * n * n), *c = malloc(sizeof *c * n * n);
    for (int i = 0; i < n * n; i++) {
        a[i] = (i % 7) * 0.5;
        b[i] = (i % 5) * 0.25;
        c[i] = 1;
    }
    kernel_gemm(n, 1.5, 1.2, c, a, b);
    printf("%.3f\n", c[n + 1]);
    return 0;
}
