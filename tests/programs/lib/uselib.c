/* A program whose region is in a shared library it links (kexact.c): `--roi lib_kernel_exact`. */
#include <stdio.h>
#include <stdlib.h>

long lib_kernel_exact(long n);

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", lib_kernel_exact(n));
    return 0;
}
