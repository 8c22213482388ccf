/* A loop whose compare-and-branch the Intel cores macro-fuse: test/jz once, then sub/jnz every
 * iteration; 3 + 3*n + 1 instructions and n + 1 fused pairs for n > 0. */
#include <stdio.h>
#include <stdlib.h>

long kernel_fused(long n);

#if defined(__x86_64__)
__asm__(".text\n.globl kernel_fused\n.type kernel_fused, @function\nkernel_fused:\n"
        "    xor %eax, %eax\n"
        "    test %rdi, %rdi\n"
        "    jz 2f\n"
        "1:  add $3, %rax\n"
        "    sub $1, %rdi\n"
        "    jnz 1b\n"
        "2:  ret\n"
        ".size kernel_fused, .-kernel_fused\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl kernel_fused\n.type kernel_fused, %function\nkernel_fused:\n"
        "    mov x1, x0\n"
        "    mov x0, #0\n"
        "    cbz x1, 2f\n"
        "1:  add x0, x0, #3\n"
        "    subs x1, x1, #1\n"
        "    b.ne 1b\n"
        "2:  ret\n"
        ".size kernel_fused, .-kernel_fused\n");
#else
#error "x86-64 or AArch64 only"
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", kernel_fused(n));
    return 0;
}
