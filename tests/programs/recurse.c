/* Recursion for the call graph: fib calls itself twice at each level, so a region of fib (--roi
 * fib) receives no call but its own, and kernel_fib reaches it from outside once. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long fib(long n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) long kernel_fib(long n)
{
    return fib(n);
}

int main(int argc, char **argv)
{
    printf("%ld\n", kernel_fib(argc > 1 ? atol(argv[1]) : 10));
    return 0;
}
