/* A program that dies by a signal after some work: the run keeps the report of what ran. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long kernel_crash(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i ^ (s >> 3);
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", kernel_crash(n));
    fflush(stdout);
    raise(argc > 2 ? atoi(argv[2]) : SIGSEGV);
    return 0;
}
