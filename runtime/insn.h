/* A static instruction as the frontends hand it to the model: decoded once, with its
 * template, register operands and memory operands as small integers. */
#ifndef RT_INSN_H
#define RT_INSN_H
#include <stdbool.h>
#include <stdint.h>

/* Canonical registers: every alias of an architectural register (al/ax/eax/rax,
 * xmm0/ymm0/zmm0, w0/x0) shares one id, so dependencies follow the full register. */
enum {
    RT_REG_NONE = 0,
    /* x86-64 */
    RT_X86_GPR = 1,             /* rax rcx rdx rbx rsp rbp rsi rdi r8..r15: 1..16 */
    RT_X86_RIP = 17,
    RT_X86_FLAGS = 18,
    RT_X86_VEC = 19,            /* xmm/ymm/zmm 0..31: 19..50 */
    RT_X86_K = 51,              /* k0..k7: 51..58 */
    RT_X86_X87 = 59,            /* st0..st7 / mm0..mm7: 59..66 */
    RT_X86_X87_STATUS = 67,
    RT_X86_MXCSR = 68,
    /* AArch64 */
    RT_A64_X = 1,               /* x0..x30: 1..31 (w aliases) */
    RT_A64_SP = 32,
    RT_A64_NZCV = 33,
    RT_A64_V = 34,              /* v0..v31 (b/h/s/d/q aliases): 34..65 */
    RT_A64_FPSR = 66,
    RT_REG_COUNT = 72
};

enum rt_branch {
    RT_BR_NONE, RT_BR_COND, RT_BR_DIRECT, RT_BR_INDIRECT, RT_BR_CALL, RT_BR_RET
};

/* x86 string instructions under a rep, repe or repne prefix: QEMU runs each iteration as an
 * execution of its own, which the reader merges into one (spec.md, `strings`). COPY: movs; FILL:
 * stos (fast strings move their bytes in bulk); SCAN: cmps, scas, lods, ins, outs (an element at
 * a time). */
enum rt_rep { RT_REP_NONE, RT_REP_COPY, RT_REP_FILL, RT_REP_SCAN };

struct rt_mem {
    uint8_t base, index;        /* canonical registers, RT_REG_NONE when absent */
    uint8_t scale, size;        /* size in bytes of the access */
    bool load, store;
    int64_t disp;
};

enum { RT_MAX_SRC = 16, RT_MAX_DST = 8, RT_MAX_OPS = 8, RT_MAX_MEM = 2 };

/* No template (form) or no replace rule (rule) in struct rt_insn. */
#define RT_NO_INDEX UINT32_MAX

struct rt_insn {
    uint64_t pc;
    uint8_t len;
    uint8_t bytes[16];          /* the encoding (x86 has at most 15 bytes, AArch64 4) */
    uint8_t branch;             /* enum rt_branch */
    uint8_t cls;                /* enum mdl_class from the decoder's view of the instruction */
    bool unknown;               /* no form matched: modelled by the class default */
    bool eliminated;            /* a `replace ... with nop` rule applied: no execution uop */
    bool lcp;                   /* x86 length-changing prefix (0x66 with a 16-bit immediate):
                                   the legacy predecoder stalls on it */
    uint8_t rep;                /* enum rt_rep */
    uint8_t opcode_at;          /* x86: offset of the opcode byte past prefixes and escapes */
    bool fusible;               /* the machine fuses this form with some following instruction
                                   (a pair rule starts with it): the decoder holds it until the
                                   next instruction is predecoded */
    bool sync;                  /* reads the stack register after pushes or pops: the stack engine
                                   inserts a synchronisation uop first (set per execution context) */
    /* The decoder's facts, so that the model never asks which ISA or mnemonic it runs: */
    int8_t stack;               /* STACK_REG moved by the stack engine, not by an operation: x86
                                   -8 push/call, +8 pop/ret; 0 for every other instruction */
    uint8_t stack_reg;          /* the register a stack engine tracks on this ISA (x86 rsp), on every
                                   instruction; RT_REG_NONE where there is none (AArch64's sp is an
                                   ordinary register, moved by ordinary writebacks) */
    uint8_t flags_reg;          /* the ISA's condition flags (x86 rflags, AArch64 nzcv) */
    uint8_t merge;              /* a register read and written whose other elements the result keeps
                                   (x86 scalar SIMD's destination), not the computed value; or NONE */
    bool pc_relative;           /* its text or facts name addresses computed from its own (x86
                                   jmp/jcc/call rel, AArch64 b, bl, adr, adrp, ldr literal) */
    /* x86: the first operand's new value is VALUE_OF's plus VALUE_ADD (a register move, an add
     * or subtract of a constant), for addresses made up in block mode; RT_REG_NONE: a new one */
    uint8_t value_of;
    int64_t value_add;
    uint32_t tmpl;              /* template index in the machine */
    /* Only shown, never stepped: the templates the form keys found before any replace rule (the
     * instruction as the description names it; [1] a fused pair's second instruction), and the
     * replace rule that set tmpl or eliminated it; RT_NO_INDEX where there is none */
    uint32_t form[2], rule;
    uint8_t n_src, n_dst, n_addr, n_mem, n_ops;
    uint8_t src[RT_MAX_SRC];    /* registers read as data (address registers are in addr) */
    uint8_t dst[RT_MAX_DST];    /* registers written */
    uint8_t addr[4];            /* registers read to form memory addresses */
    uint8_t op_reg[RT_MAX_OPS]; /* explicit operands in assembly order: register id or NONE */
    struct rt_mem mem[RT_MAX_MEM];
    char key[64];               /* the form key looked up, e.g. "ADD (R64, M64)" */
    char alt_key[32];           /* the form's other spelling, tried when the key has no entry
                                   (uops.info's LEA_B_D8 names, cortex-a72's B.cond); or empty */
    char disasm[64];            /* "add rax, qword ptr [rbx + 8]" */
};

/* Whether IN reads its stack register (IN->stack_reg) as data or for an address: with IN->stack,
 * the two halves of the stack-synchronisation rule. False where the ISA has no stack engine. */
bool rt_insn_reads_stack(const struct rt_insn *in);

#endif
