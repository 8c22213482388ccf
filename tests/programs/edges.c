/* Branches on a region's edges: kernel_edge's first instruction is a jump (a region entry that is
 * a branch), and edge_loop's call to it returns to a jump (a return address, where the region
 * ends, that is a branch). In assembly, so that no compiler moves them. */
#include <stdio.h>
#include <stdlib.h>

long edge_loop(long n);

#if defined(__x86_64__)
__asm__(".text\n.globl kernel_edge\n.type kernel_edge, @function\nkernel_edge:\n"
        "    jmp 1f\n"
        "1:  lea 1(%rdi), %rax\n"
        "    ret\n"
        ".size kernel_edge, .-kernel_edge\n"
        ".globl edge_loop\n.type edge_loop, @function\nedge_loop:\n"
        "    mov %rdi, %rsi\n"
        "    xor %edi, %edi\n"
        "    test %rsi, %rsi\n"
        "    jz 3f\n"
        "2:  call kernel_edge\n"
        "    jmp 4f\n"
        "4:  mov %rax, %rdi\n"
        "    sub $1, %rsi\n"
        "    jnz 2b\n"
        "3:  mov %rdi, %rax\n"
        "    ret\n"
        ".size edge_loop, .-edge_loop\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl kernel_edge\n.type kernel_edge, %function\nkernel_edge:\n"
        "    b 1f\n"
        "1:  add x0, x0, #1\n"
        "    ret\n"
        ".size kernel_edge, .-kernel_edge\n"
        ".globl edge_loop\n.type edge_loop, %function\nedge_loop:\n"
        "    stp x29, x30, [sp, #-32]!\n"
        "    mov x29, sp\n"
        "    str x19, [sp, #16]\n"
        "    mov x19, x0\n"
        "    mov x0, #0\n"
        "    cbz x19, 3f\n"
        "2:  bl kernel_edge\n"
        "    b 4f\n"
        "4:  subs x19, x19, #1\n"
        "    b.ne 2b\n"
        "3:  ldr x19, [sp, #16]\n"
        "    ldp x29, x30, [sp], #32\n"
        "    ret\n"
        ".size edge_loop, .-edge_loop\n");
#else
#error "x86-64 or AArch64 only"
#endif

int main(int argc, char **argv)
{
    printf("%ld\n", edge_loop(argc > 1 ? atol(argv[1]) : 100000));
    return 0;
}
