/* Test guest for the QEMU plugin: no libc, so every executed instruction is known.
 * _start runs 4 + ITERS * 5 + 5 instructions (ITERS defaults to 1000, below 2^32) and exits
 * with 7. */
#ifndef ITERS
#define ITERS 1000
#endif
    .globl _start, loop_top, q_load, pair_store
    .text
_start:
    movz    x1, #(ITERS & 0xffff)
    movk    x1, #(ITERS >> 16), lsl #16
    adr     x2, buf
    mov     x3, #0
loop_top:
    ld1     {v0.16b, v1.16b}, [x2]  /* 32 bytes: QEMU 7.2 reports four 8-byte loads */
    add     v2.16b, v0.16b, v1.16b
    add     x3, x3, #1
    subs    x1, x1, #1
    b.ne    loop_top
q_load:
    ldr     q3, [x2, #32]           /* a 16-byte load */
pair_store:
    stp     x3, x1, [x2, #64]       /* two 8-byte stores: one 16-byte record */
    mov     x0, #7                  /* exit_group(7) */
    mov     x8, #94
    svc     #0

    .data
    .balign 64
buf:
    .fill   128, 1, 7
