/* Hand-written assembly as much of it is written: no .size. nosize_sum (a function symbol of size
 * 0) loops 3 * n; nosize_tail (a plain label: no .type either) adds one and is the last symbol
 * of its section, one of its own (an orphan section: the linker keeps it apart from .text).
 * nosize_sum(n) = 3 * n + 1 for n > 0. */
#include <stdio.h>
#include <stdlib.h>

long nosize_sum(long n);

#if defined(__x86_64__)
__asm__(".section nosize_text,\"ax\",@progbits\n"
        ".globl nosize_sum\n"
        ".type nosize_sum, @function\n"
        "nosize_sum:\n"
        "    xor %eax, %eax\n"
        "1:  add $3, %rax\n"
        "    sub $1, %rdi\n"
        "    jne 1b\n"
        "    jmp nosize_tail\n"
        ".globl nosize_tail\n"
        "nosize_tail:\n"
        "    add $1, %rax\n"
        "    ret\n"
        ".text\n");
#elif defined(__aarch64__)
__asm__(".section nosize_text,\"ax\",%progbits\n"
        ".globl nosize_sum\n"
        ".type nosize_sum, %function\n"
        "nosize_sum:\n"
        "    mov x1, xzr\n"
        "1:  add x1, x1, #3\n"
        "    subs x0, x0, #1\n"
        "    b.ne 1b\n"
        "    mov x0, x1\n"
        "    b nosize_tail\n"
        ".globl nosize_tail\n"
        "nosize_tail:\n"
        "    add x0, x0, #1\n"
        "    ret\n"
        ".text\n");
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", nosize_sum(n > 0 ? n : 1));
    return 0;
}
