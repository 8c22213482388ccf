/* x86-64 machine code for the nano-benchmarks: the few encodings mdlprobe emits (REX, VEX, ModRM
 * and SIB), appended to a growable byte buffer. Portable C: only running the code needs x86-64. */
#ifndef PROBE_X86_H
#define PROBE_X86_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* General registers by their encoding number. */
enum x86_gpr {
    X86_RAX, X86_RCX, X86_RDX, X86_RBX, X86_RSP, X86_RBP, X86_RSI, X86_RDI,
    X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15
};

struct x86_code {
    uint8_t *b;
    size_t n, cap;
    bool oom;                   /* an append failed: the code is incomplete and must not run */
};

/* One opcode with its prefixes. A legacy op is [prefix] [REX] opcode ModRM; a VEX op puts its
 * map and prefix in the VEX bytes. ext >= 0 is the /digit that fills ModRM.reg. */
struct x86_op {
    uint8_t prefix;             /* 0x66, 0xF2, 0xF3, or 0 */
    bool w;                     /* REX.W / VEX.W: 64-bit operand */
    uint8_t opcode[3], nopcode;
    int8_t ext;
    bool vex, vex_l;            /* VEX-encoded; 256-bit */
    uint8_t vex_map;            /* 1: 0F, 2: 0F38, 3: 0F3A */
};

void x86_free(struct x86_code *c);
void x86_bytes(struct x86_code *c, const void *bytes, size_t n);
void x86_u8(struct x86_code *c, uint8_t v);
void x86_u32(struct x86_code *c, uint32_t v);

/* OP with ModRM.reg = REG (or OP's ext) and register operand RM. */
void x86_rr(struct x86_code *c, const struct x86_op *op, unsigned reg, unsigned rm);
/* VEX OP with three registers: REG (ModRM.reg), V (VEX.vvvv), RM. */
void x86_vrrr(struct x86_code *c, const struct x86_op *op, unsigned reg, unsigned v, unsigned rm);
/* OP with ModRM.reg = REG and memory operand [BASE + INDEX*SCALE + DISP]; INDEX < 0: none. */
void x86_rm(struct x86_code *c, const struct x86_op *op, unsigned reg, unsigned base, int index, unsigned scale,
            int32_t disp);

void x86_push(struct x86_code *c, unsigned r);
void x86_pop(struct x86_code *c, unsigned r);
void x86_mov_load(struct x86_code *c, unsigned dst, unsigned base, int32_t disp);    /* mov dst, [base+disp] */
void x86_mov_store(struct x86_code *c, unsigned base, int32_t disp, unsigned src);   /* mov [base+disp], src */
void x86_movups_load(struct x86_code *c, unsigned xmm, unsigned base, int32_t disp);
void x86_add_imm32(struct x86_code *c, unsigned r, int32_t imm);                    /* add r, imm32 */
void x86_nop4(struct x86_code *c);                                                   /* nop dword [rax+0] */
/* Pads with one-byte nops until the length is a multiple of ALIGN (a power of two). */
void x86_align(struct x86_code *c, size_t align);
/* dec rdi; jnz TARGET (an offset in C): the loop every kernel ends with. */
void x86_loop_back(struct x86_code *c, size_t target);

#endif
