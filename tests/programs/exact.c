/* A kernel whose executed instruction count is known exactly: written in assembly, 3
 * instructions before the loop, 4 per iteration and the return, 4 + 4*n for n > 0. */
#include <stdio.h>
#include <stdlib.h>

long kernel_exact(long n);

#if defined(__x86_64__)
__asm__(".text\n.globl kernel_exact\n.type kernel_exact, @function\nkernel_exact:\n"
        "    xor %eax, %eax\n"
        "    test %rdi, %rdi\n"
        "    jz 2f\n"
        "1:  add $3, %rax\n"
        "    sub $1, %rdi\n"
        "    nop\n"
        "    jnz 1b\n"
        "2:  ret\n"
        ".size kernel_exact, .-kernel_exact\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl kernel_exact\n.type kernel_exact, %function\nkernel_exact:\n"
        "    mov x1, x0\n"
        "    mov x0, #0\n"
        "    cbz x1, 2f\n"
        "1:  add x0, x0, #3\n"
        "    nop\n"
        "    subs x1, x1, #1\n"
        "    b.ne 1b\n"
        "2:  ret\n"
        ".size kernel_exact, .-kernel_exact\n");
#else
#error "x86-64 or AArch64 only"
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", kernel_exact(n));
    return 0;
}
