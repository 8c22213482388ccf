/* A 2-D five-point stencil (PolyBench jacobi-2d style). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void kernel_jacobi(int n, const double *a, double *b)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            b[i * n + j] = 0.2 * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i - 1) * n + j] +
                                  a[(i + 1) * n + j]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 128;
    double *a = malloc(sizeof *a * n * n), *b = calloc((size_t)n * n, sizeof *b);
    for (int i = 0; i < n * n; i++)
        a[i] = (i % 11) * 0.1;
    for (int t = 0; t < 4; t++) {
        kernel_jacobi(n, a, b);
        kernel_jacobi(n, b, a);
    }
    printf("%.4f\n", a[n + 1]);
    return 0;
}
