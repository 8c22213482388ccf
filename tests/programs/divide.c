/* A divide-heavy recurrence: each step divides by the previous result. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double kernel_divide(double x, long n)
{
    for (long i = 0; i < n; i++)
        x = 1.0 + 1.0 / x;
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    printf("%.6f\n", kernel_divide(1.0, n));
    return 0;
}
