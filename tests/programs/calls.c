/* A loop calling a tiny function: a call, the function's one operation and a return each
 * iteration, the shape of accessor calls in real programs. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long tiny(long x)
{
    return x + 1;
}

__attribute__((noinline)) long kernel_calls(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s = tiny(s);
    return s;
}

int main(int argc, char **argv)
{
    printf("%ld\n", kernel_calls(argc > 1 ? atol(argv[1]) : 100000));
    return 0;
}
