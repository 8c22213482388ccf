/* Loops of independent 7-byte adds (x86-64) or 4-byte adds (AArch64), run N times: BIG has 3000
 * of them (21 KB of code on x86-64, beyond the decoded-uop caches of Skylake and Ice Lake: it
 * decodes through the legacy decoders), HUGE 6000 (42 KB, beyond Alder Lake's 4K uops too), SMALL
 * 300 (2.1 KB: it runs from the uop cache). Each register takes one add in ten, so their chains
 * never bind. Usage: bigloop big|huge|small [N]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long kernel_big(long n);
long kernel_huge(long n);
long kernel_small(long n);

#define S_(x) #x
#define S(x) S_(x)
/* Each ISA's ten adds, the function's entry (N in the loop counter), the loop's end and the
 * function's exit; the kernel is the same for both. */
#if defined(__x86_64__)
/* ten adds of a 32-bit immediate, REX.W 81 /0 id: 7 bytes each */
#define TEN "add $0x12345678,%rcx\n add $0x12345678,%rdx\n add $0x12345678,%rsi\n add $0x12345678,%rdi\n" \
            "add $0x12345678,%r8\n add $0x12345678,%r9\n add $0x12345678,%r10\n add $0x12345678,%r11\n" \
            "add $0x12345678,%rbx\n add $0x12345678,%r12\n"
#define TYPE "@function"
#define ENTER "    push %rbx\n    push %r12\n    xor %ecx, %ecx\n    mov %rdi, %rax\n    test %rax, %rax\n    jz 2f\n"
#define AGAIN "    dec %rax\n    jnz 1b\n"
#define LEAVE "2:  mov %rcx, %rax\n    pop %r12\n    pop %rbx\n    ret\n"
#elif defined(__aarch64__)
#define TEN "add x1, x1, #0x123\n add x2, x2, #0x123\n add x3, x3, #0x123\n add x4, x4, #0x123\n" \
            "add x5, x5, #0x123\n add x6, x6, #0x123\n add x7, x7, #0x123\n add x8, x8, #0x123\n" \
            "add x9, x9, #0x123\n add x10, x10, #0x123\n"
#define TYPE "%function"
#define ENTER "    mov x11, x0\n    mov x1, #0\n    cbz x11, 2f\n"
#define AGAIN "    subs x11, x11, #1\n    b.ne 1b\n"
#define LEAVE "2:  mov x0, x1\n    ret\n"
#else
#error "x86-64 or AArch64 only"
#endif
#define KERNEL(name, groups)                                                                            \
    __asm__(".text\n.globl " #name "\n.type " #name ", " TYPE "\n" #name ":\n" ENTER                  \
            "    .p2align 6\n1:\n.rept " S(groups) "\n" TEN ".endr\n" AGAIN LEAVE                     \
            ".size " #name ", .-" #name "\n");

KERNEL(kernel_big, 300)
KERNEL(kernel_huge, 600)
KERNEL(kernel_small, 30)

int main(int argc, char **argv)
{
    const char *size = argc > 1 ? argv[1] : "big";
    long n = argc > 2 ? atol(argv[2]) : 100;
    long (*kernel)(long) = !strcmp(size, "small") ? kernel_small : !strcmp(size, "huge") ? kernel_huge : kernel_big;
    printf("%ld\n", kernel(n));
    return 0;
}
