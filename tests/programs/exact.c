/* A kernel whose executed instruction count is known exactly (exact-kernel.h): 4 + 4*n for n > 0. */
#include <stdio.h>
#include <stdlib.h>
#include "exact-kernel.h"

long kernel_exact(long n);
EXACT_KERNEL(kernel_exact);

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", kernel_exact(n));
    return 0;
}
