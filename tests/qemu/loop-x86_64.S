/* Test guest for the QEMU plugin: no libc, so every executed instruction is known.
 * _start runs 4 + ITERS * 5 + 9 instructions (ITERS defaults to 1000) and exits with 42. */
#ifndef ITERS
#define ITERS 1000
#endif
    .globl _start, loop_top, sse_load, ymm_store, exit, cross
    .text
_start:
    mov     $ITERS, %ecx
    lea     buf(%rip), %rsi
    xor     %eax, %eax
    vpxor   %ymm1, %ymm1, %ymm1
loop_top:
    vmovups (%rsi), %ymm0           /* a 32-byte load: QEMU reports pieces, the plugin one record */
    vpaddd  %ymm0, %ymm1, %ymm1
    add     $1, %rax
    dec     %ecx
    jnz     loop_top
sse_load:
    movups  16(%rsi), %xmm2         /* a 16-byte SSE load */
ymm_store:
    vmovups %ymm1, 64(%rsi)         /* a 32-byte store */
    mov     $ITERS, %edx
    cmp     %rax, %rdx
    jmp     exit
    /* cross: a 10-byte instruction across a page boundary, in the middle of a translation block
     * (QEMU 7.2's insn_data truncates it there) */
    .balign 4096
    .skip   4096 - 10 - 4
exit:
    mov     $231, %eax              /* exit_group(42) */
    mov     $42, %edi
cross:
    movabs  $0x1122334455667788, %rbx
    syscall

    .data
    .balign 64
buf:
    .fill   128, 1, 7
