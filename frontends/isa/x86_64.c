/* x86-64 for the decoder: Intel's registers, uops.info's form keys, the stack engine's moves of
 * rsp, the merges of scalar SIMD operations, and what runs x86-64 code (QEMU, binutils). */
#include <capstone/capstone.h>
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode_impl.h"
#include "formkey.h"
#include "isa.h"

/* rax..rdi in the order of RT_X86_GPR; the 8-bit high registers come last. */
static bool x86_legacy_gpr(const char *name, uint8_t *canon, uint8_t *rc)
{
    static const char *const names[8][5] = {
        { "rax", "eax", "ax", "al", "ah" }, { "rcx", "ecx", "cx", "cl", "ch" },
        { "rdx", "edx", "dx", "dl", "dh" }, { "rbx", "ebx", "bx", "bl", "bh" },
        { "rsp", "esp", "sp", "spl", NULL }, { "rbp", "ebp", "bp", "bpl", NULL },
        { "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
    };
    static const uint8_t cls[5] = { DEC_RC_R64, DEC_RC_R32, DEC_RC_R16, DEC_RC_R8L, DEC_RC_R8H };
    for (unsigned g = 0; g < 8; g++)
        for (unsigned w = 0; w < 5; w++)
            if (names[g][w] && strcmp(name, names[g][w]) == 0) {
                *canon = (uint8_t)(RT_X86_GPR + g);
                *rc = cls[w];
                return true;
            }
    return false;
}

/* r8..r15 with their d/w/b forms. */
static bool x86_new_gpr(const char *name, uint8_t *canon, uint8_t *rc)
{
    unsigned n;
    char tail[8] = "";
    if (sscanf(name, "r%u%7s", &n, tail) < 1 || n < 8 || n > 15)
        return false;
    static const char *const tails[4] = { "", "d", "w", "b" };
    static const uint8_t cls[4] = { DEC_RC_R64, DEC_RC_R32, DEC_RC_R16, DEC_RC_R8L };
    for (unsigned w = 0; w < 4; w++)
        if (strcmp(tail, tails[w]) == 0) {
            *canon = (uint8_t)(RT_X86_GPR + n);
            *rc = cls[w];
            return true;
        }
    return false;
}

static void x86_reg_info(const char *name, uint8_t *canon, uint8_t *rc)
{
    unsigned n;
    *canon = RT_REG_NONE;
    *rc = DEC_RC_NONE;
    if (x86_legacy_gpr(name, canon, rc) || x86_new_gpr(name, canon, rc))
        return;
    static const struct { const char *p; unsigned max; uint8_t base, rc; } numbered[] = {
        { "xmm", 31, RT_X86_VEC, DEC_RC_XMM }, { "ymm", 31, RT_X86_VEC, DEC_RC_YMM }, { "zmm", 31, RT_X86_VEC, DEC_RC_ZMM },
        { "k", 7, RT_X86_K, DEC_RC_K }, { "mm", 7, RT_X86_X87, DEC_RC_MM }, { "st(", 7, RT_X86_X87, DEC_RC_ST },
        { "bnd", 3, RT_REG_NONE, DEC_RC_BND }, { "cr", 15, RT_REG_NONE, DEC_RC_CR }, { "dr", 15, RT_REG_NONE, DEC_RC_DR },
    };
    for (size_t i = 0; i < sizeof numbered / sizeof *numbered; i++) {
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%s", name);
        char *paren = strchr(tmp, ')');
        if (paren)
            *paren = 0;         /* "st(3)" */
        if (dec_reg_num(tmp, numbered[i].p, numbered[i].max, &n)) {
            *canon = numbered[i].base ? (uint8_t)(numbered[i].base + n) : RT_REG_NONE;
            *rc = numbered[i].rc;
            return;
        }
    }
    static const char *const segs[] = { "cs", "ds", "es", "fs", "gs", "ss", NULL };
    if (dec_in_list(name, segs))
        *rc = DEC_RC_SEG;
    else if (strcmp(name, "rip") == 0 || strcmp(name, "eip") == 0 || strcmp(name, "ip") == 0)
        *canon = RT_X86_RIP, *rc = DEC_RC_IP;
    else if (strcmp(name, "rflags") == 0 || strcmp(name, "eflags") == 0)
        *canon = RT_X86_FLAGS, *rc = DEC_RC_FLAGS;
    else if (strcmp(name, "fpsw") == 0)
        *canon = RT_X86_X87_STATUS, *rc = DEC_RC_SYS;
    else if (strcmp(name, "mxcsr") == 0)
        *canon = RT_X86_MXCSR, *rc = DEC_RC_SYS;
}

/* RIP is read by every instruction: as a dependency it would only add noise. */
static uint8_t x86_dep(const struct dec *d, unsigned reg)
{
    uint8_t c = dec_canon(d, reg);
    return c == RT_X86_RIP ? RT_REG_NONE : c;
}

/* Facts about the encoding that change the operand kinds uops.info uses. */
struct x86_ctx {
    char mn[DEC_MN_LEN];            /* uops.info spelling, upper case, with _LOCK/_REPE/_REPNE */
    bool string, acc, moffs, shift_cl, io, rel, lea, nop, stack_push, stack_pop, leave, vec, lock;
    bool cc_imm;                /* CMPEQPS-style name: the predicate is an immediate in uops.info */
};

static bool has_group(const cs_insn *ci, uint8_t g)
{
    for (unsigned i = 0; i < ci->detail->groups_count; i++)
        if (ci->detail->groups[i] == g)
            return true;
    return false;
}

static bool x86_is_string_opcode(const cs_x86 *x)
{
    uint8_t op = x->opcode[0];
    if (x->opcode[1] != 0)
        return false;
    return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f);
}

/* Short encodings whose register operand is the accumulator (uops.info's AL/AX/EAX/RAX). */
static bool x86_is_acc_opcode(const cs_x86 *x)
{
    uint8_t op = x->opcode[0];
    if (x->opcode[1] != 0)
        return false;
    if (op < 0x40 && ((op & 7) == 4 || (op & 7) == 5))
        return true;            /* ADD/OR/ADC/SBB/AND/SUB/XOR/CMP acc, imm */
    return op == 0xa8 || op == 0xa9 || (op >= 0x91 && op <= 0x97) || (op >= 0xa0 && op <= 0xa3) ||
           (op >= 0xe4 && op <= 0xe7) || (op >= 0xec && op <= 0xef);
}

static bool x86_has_vec_operand(const struct dec *d, const cs_x86 *x)
{
    for (unsigned i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        uint8_t rc = op->type == X86_OP_REG ? dec_rclass(d, op->reg) : DEC_RC_NONE;
        if (rc == DEC_RC_XMM || rc == DEC_RC_YMM || rc == DEC_RC_ZMM || rc == DEC_RC_MM || rc == DEC_RC_K)
            return true;
    }
    return false;
}

static void x86_context(const struct dec *d, const cs_insn *ci, struct x86_ctx *c)
{
    const cs_x86 *x = &ci->detail->x86;
    memset(c, 0, sizeof *c);
    c->cc_imm = formkey_mnemonic(MDL_ISA_X86_64, ci->mnemonic, c->mn, sizeof c->mn) & FORMKEY_PREDICATE;
    c->string = x86_is_string_opcode(x);
    c->acc = x86_is_acc_opcode(x);
    c->moffs = x->opcode[1] == 0 && x->opcode[0] >= 0xa0 && x->opcode[0] <= 0xa3;
    c->io = x->opcode[1] == 0 && x->opcode[0] >= 0xe4 && x->opcode[0] <= 0xef && x->opcode[0] != 0xe8 &&
            x->opcode[0] != 0xe9 && x->opcode[0] != 0xea && x->opcode[0] != 0xeb;     /* IN/OUT */
    c->shift_cl = (x->opcode[1] == 0 && (x->opcode[0] == 0xd2 || x->opcode[0] == 0xd3)) ||
                  (x->opcode[0] == 0x0f && (x->opcode[1] == 0xa5 || x->opcode[1] == 0xad));
    c->rel = has_group(ci, CS_GRP_BRANCH_RELATIVE);
    c->lea = strcmp(c->mn, "LEA") == 0;
    c->nop = strcmp(c->mn, "NOP") == 0;
    c->stack_push = dec_starts(c->mn, "PUSH") || has_group(ci, CS_GRP_CALL);
    c->stack_pop = (dec_starts(c->mn, "POP") && strcmp(c->mn, "POPCNT") != 0) || has_group(ci, CS_GRP_RET);
    c->leave = strcmp(c->mn, "LEAVE") == 0;
    c->vec = x86_has_vec_operand(d, x) || dec_starts(c->mn, "VZERO");
    c->lock = x->prefix[0] == X86_PREFIX_LOCK;
    size_t n = strlen(c->mn);
    if (c->lock && strcmp(c->mn, "XCHG") != 0)     /* uops.info's XCHG with memory is locked anyway */
        snprintf(c->mn + n, sizeof c->mn - n, "_LOCK");
    else if (c->string && x->prefix[0] == X86_PREFIX_REP)
        snprintf(c->mn + n, sizeof c->mn - n, "_REPE");
    else if (c->string && x->prefix[0] == X86_PREFIX_REPNE)
        snprintf(c->mn + n, sizeof c->mn - n, "_REPNE");
}

/* ---- x86 operand kinds ---- */

static enum formkey_kind x86_gpr_kind(uint8_t rc, bool acc)
{
    static const enum formkey_kind plain[] = { [DEC_RC_R8L] = FK_X86_64_R8L, [DEC_RC_R8H] = FK_X86_64_R8H,
                                               [DEC_RC_R16] = FK_X86_64_R16, [DEC_RC_R32] = FK_X86_64_R32,
                                               [DEC_RC_R64] = FK_X86_64_R64 };
    static const enum formkey_kind accum[] = { [DEC_RC_R8L] = FK_X86_64_AL, [DEC_RC_R8H] = FK_X86_64_R8H,
                                               [DEC_RC_R16] = FK_X86_64_AX, [DEC_RC_R32] = FK_X86_64_EAX,
                                               [DEC_RC_R64] = FK_X86_64_RAX };
    return acc ? accum[rc] : plain[rc];
}

static enum formkey_kind x86_reg_kind(const struct dec *d, const struct x86_ctx *c, unsigned reg)
{
    uint8_t rc = dec_rclass(d, reg);
    static const enum formkey_kind names[] = { [DEC_RC_XMM] = FK_X86_64_XMM, [DEC_RC_YMM] = FK_X86_64_YMM,
                                               [DEC_RC_ZMM] = FK_X86_64_ZMM, [DEC_RC_K] = FK_X86_64_K,
                                               [DEC_RC_MM] = FK_X86_64_MM, [DEC_RC_ST] = FK_X86_64_ST,
                                               [DEC_RC_BND] = FK_X86_64_BND, [DEC_RC_CR] = FK_X86_64_CR,
                                               [DEC_RC_DR] = FK_X86_64_DR };
    if (rc >= DEC_RC_R8L && rc <= DEC_RC_R64) {
        bool acc = c->acc && dec_canon(d, reg) == RT_X86_GPR;
        if (c->shift_cl && reg == X86_REG_CL)
            return FK_X86_64_CL;
        if (c->io && reg == X86_REG_DX)
            return FK_X86_64_DX;
        return x86_gpr_kind(rc, acc);
    }
    if (rc == DEC_RC_SEG) {
        char seg[8];
        bool named = dec_starts(c->mn, "PUSH") || dec_starts(c->mn, "POP");
        formkey_upper_word(cs_reg_name(d->cs, reg), seg, sizeof seg);
        return named ? formkey_kind_find(MDL_ISA_X86_64, seg, FK_X86_64_SEG) : FK_X86_64_SEG;
    }
    return rc < sizeof names / sizeof *names && names[rc] ? names[rc] : FK_X86_64_R;
}

static enum formkey_kind x86_imm_kind(const cs_insn *ci, const cs_x86_op *op, const struct x86_ctx *c)
{
    const cs_x86 *x = &ci->detail->x86;
    unsigned size = x->encoding.imm_size;
    /* Capstone 4 reports 8 for the imm8 of some VEX instructions (RORX): the bytes left say. */
    if (x->encoding.imm_offset && size && x->encoding.imm_offset + size > ci->size)
        size = ci->size - x->encoding.imm_offset;
    if (c->rel)
        return size == 1 ? FK_X86_64_REL8 : FK_X86_64_REL32;
    if (size == 0)              /* implied by the opcode: the `1` of D1 /4 */
        return dec_sized_kind(MDL_ISA_X86_64, FK_X86_64_I8, "%lld", (long long)op->imm);
    if (op->imm == 0)
        return FK_X86_64_IMM0;  /* uops.info measures immediate 0 apart */
    return dec_sized_kind(MDL_ISA_X86_64, FK_X86_64_I8, "I%u", size * 8);
}

static enum formkey_kind x86_mem_kind(const struct dec *d, const cs_x86_op *op, const struct x86_ctx *c)
{
    uint8_t irc = dec_rclass(d, op->mem.index);
    if (c->moffs)
        return dec_sized_kind(MDL_ISA_X86_64, FK_X86_64_M, "Moffs%u", op->size * 8);
    if (irc == DEC_RC_XMM || irc == DEC_RC_YMM || irc == DEC_RC_ZMM)
        return irc == DEC_RC_XMM ? FK_X86_64_VSIB_XMM : irc == DEC_RC_YMM ? FK_X86_64_VSIB_YMM : FK_X86_64_VSIB_ZMM;
    if (op->avx_bcast != X86_AVX_BCAST_INVALID) {
        static const unsigned times[] = { [X86_AVX_BCAST_2] = 2, [X86_AVX_BCAST_4] = 4,
                                          [X86_AVX_BCAST_8] = 8, [X86_AVX_BCAST_16] = 16 };
        unsigned t = op->avx_bcast < sizeof times / sizeof *times ? times[op->avx_bcast] : 0;
        return dec_sized_kind(MDL_ISA_X86_64, FK_X86_64_M, "M%u_1to%u", op->size * 8u, t);   /* size is the element's */
    }
    return op->size ? dec_sized_kind(MDL_ISA_X86_64, FK_X86_64_M, "M%u", op->size * 8) : FK_X86_64_M;
}

static enum formkey_kind x86_kind(const struct dec *d, const cs_insn *ci, const cs_x86_op *op,
                                  const struct x86_ctx *c)
{
    if (op->type == X86_OP_REG)
        return x86_reg_kind(d, c, op->reg);
    if (op->type == X86_OP_IMM)
        return x86_imm_kind(ci, op, c);
    if (op->type == X86_OP_MEM)
        return x86_mem_kind(d, op, c);
    return FK_X86_64_UNTYPED;
}

/* ---- x86 data flow ---- */

static void x86_reg_flow(const struct dec *d, const cs_x86_op *op, unsigned i, const struct x86_ctx *c,
                         struct rt_insn *o)
{
    if (c->nop)
        return;                 /* a hint: its operands are never read */
    uint8_t r = x86_dep(d, op->reg), rc = dec_rclass(d, op->reg);
    /* Capstone leaves access unset for some operands: the first is then read and written. */
    uint8_t acc = op->access ? op->access : (uint8_t)(i == 0 ? CS_AC_READ | CS_AC_WRITE : CS_AC_READ);
    if (acc & CS_AC_READ)
        dec_add_src(o, r);
    if (acc & CS_AC_WRITE) {
        dec_add_dst(o, r);
        if (rc == DEC_RC_R8L || rc == DEC_RC_R8H || rc == DEC_RC_R16)
            dec_add_src(o, r);      /* the untouched bits of the full register flow through */
    }
}

static void x86_mem_flow(const struct dec *d, const cs_x86_op *op, const struct x86_ctx *c, struct rt_insn *o)
{
    if (c->nop)
        return;
    uint8_t base = dec_canon(d, op->mem.base), index = dec_canon(d, op->mem.index);
    uint8_t b = x86_dep(d, op->mem.base), ix = x86_dep(d, op->mem.index);
    if (c->lea) {
        dec_add_src(o, b);          /* LEA computes a value from them: they are data */
        dec_add_src(o, ix);
        dec_add_mem(o, base, index, (unsigned)op->mem.scale, op->size, op->mem.disp, false, false);
        return;
    }
    dec_add_addr(o, b);
    dec_add_addr(o, ix);
    uint8_t acc = op->access ? op->access : CS_AC_READ;
    dec_add_mem(o, base, index, (unsigned)op->mem.scale, op->size, op->mem.disp, acc & CS_AC_READ,
            acc & CS_AC_WRITE);
}

static bool x86_is_gpr(uint8_t rc) { return rc >= DEC_RC_R8L && rc <= DEC_RC_R64; }

/* The value a register instruction leaves in its first operand, as far as addresses go (block
 * mode aliases two accesses when their registers hold the same values): a move copies its source
 * (the extensions too, as uiCA takes them); a constant added, subtracted, incremented or
 * decremented offsets it; a constant into the low 8 or 16 bits leaves the register as the
 * previous repetition of a block left it. Anything else makes a new value. */
static void x86_value(const struct dec *d, const cs_x86 *x, const struct x86_ctx *c, struct rt_insn *o)
{
    static const char *const moves[] = { "MOV", "MOVZX", "MOVSX", "MOVSXD", NULL };
    o->value_of = RT_REG_NONE;
    o->value_add = 0;
    if (o->n_mem || !x->op_count || x->operands[0].type != X86_OP_REG || !x86_is_gpr(dec_rclass(d, x->operands[0].reg)))
        return;
    uint8_t dst = dec_canon(d, x->operands[0].reg), rc = dec_rclass(d, x->operands[0].reg);
    const cs_x86_op *src = x->op_count == 2 ? &x->operands[1] : NULL;
    bool imm = src && src->type == X86_OP_IMM, add = strcmp(c->mn, "ADD") == 0, inc = strcmp(c->mn, "INC") == 0;
    if (dec_in_list(c->mn, moves) && src && src->type == X86_OP_REG && x86_is_gpr(dec_rclass(d, src->reg)))
        o->value_of = dec_canon(d, src->reg);
    else if (strcmp(c->mn, "MOV") == 0 && imm && (rc == DEC_RC_R8L || rc == DEC_RC_R16))
        o->value_of = dst;
    else if ((add || strcmp(c->mn, "SUB") == 0) && imm) {
        o->value_of = dst;
        o->value_add = add ? src->imm : -src->imm;
    } else if ((inc || strcmp(c->mn, "DEC") == 0) && x->op_count == 1) {
        o->value_of = dst;
        o->value_add = inc ? 1 : -1;
    }
}

/* Stack slots of push/pop/call/ret/leave: memory accesses that no operand shows. */
static void x86_stack(const struct x86_ctx *c, struct rt_insn *o)
{
    uint8_t rsp = RT_X86_GPR + 4, rbp = RT_X86_GPR + 5;
    if (c->stack_push) {
        dec_add_mem(o, rsp, RT_REG_NONE, 1, 8, -8, false, true);
        dec_add_addr(o, rsp);
        dec_add_src(o, rsp);
    } else if (c->stack_pop) {
        dec_add_mem(o, rsp, RT_REG_NONE, 1, 8, 0, true, false);
        dec_add_addr(o, rsp);
        dec_add_src(o, rsp);
    } else if (c->leave) {
        dec_add_mem(o, rbp, RT_REG_NONE, 1, 8, 0, true, false);
        dec_add_addr(o, rbp);
    }
}

/* Capstone 4 gets the exchange instructions wrong: their memory operand is read and written,
 * and CMPXCHG's implicit accumulator (and flags) go unlisted. */
static void x86_exchange_fixup(const struct x86_ctx *c, struct rt_insn *o)
{
    static const char *const rmw[] = { "CMPXCHG", "CMPXCHG8B", "CMPXCHG16B", "XADD", "XCHG", NULL };
    char base[DEC_MN_LEN];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(c->mn, "_"), c->mn);
    if (!dec_in_list(base, rmw))
        return;
    for (unsigned i = 0; i < o->n_mem; i++)
        o->mem[i].load = o->mem[i].store = true;
    if (!dec_starts(base, "CMPXCHG"))
        return;
    dec_add_src(o, RT_X86_GPR);
    dec_add_dst(o, RT_X86_GPR);
    dec_add_dst(o, RT_X86_FLAGS);
    if (strcmp(base, "CMPXCHG") == 0)
        return;
    dec_add_src(o, RT_X86_GPR + 2);     /* rdx:rax compared, rcx:rbx stored */
    dec_add_src(o, RT_X86_GPR + 1);
    dec_add_src(o, RT_X86_GPR + 3);
    dec_add_dst(o, RT_X86_GPR + 2);
}

/* Capstone 4 marks the memory operand of some compares as written, and the accumulator of TEST's
 * short forms (A8/A9: test eax, imm32): they only read them (a write would chain every repetition
 * to the previous one, through memory or the register); they write the flags alone. */
static void x86_readonly_fixup(const struct x86_ctx *c, struct rt_insn *o)
{
    static const char *const readonly[] = { "TEST", "CMP", "BT", "PTEST", "VPTEST", "UCOMISS", "UCOMISD",
                                            "COMISS", "COMISD", "VUCOMISS", "VUCOMISD", "VCOMISS", "VCOMISD",
                                            NULL };
    char base[DEC_MN_LEN];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(c->mn, "_"), c->mn);
    if (!dec_in_list(base, readonly))
        return;
    for (unsigned i = 0; i < o->n_mem; i++)
        o->mem[i].store = false;
    unsigned n = 0;
    for (unsigned k = 0; k < o->n_dst; k++)
        if (o->dst[k] == RT_X86_FLAGS)
            o->dst[n++] = o->dst[k];
    o->n_dst = (uint8_t)n;
}

/* Capstone 4 marks the memory destination of VEX and EVEX instructions (vmovsd [m], xmm;
 * vextractf128 [m], ymm, 1; vmovups [m], zmm) as read: written first operands are stores, which
 * later loads of the same bytes wait for. */
static void x86_vex_store_fixup(const cs_x86 *x, const struct x86_ctx *c, struct rt_insn *o)
{
    if (c->mn[0] != 'V' || !x->op_count || x->operands[0].type != X86_OP_MEM || !o->n_mem)
        return;
    o->mem[0].load = false;
    o->mem[0].store = true;
}

/* A legacy-SSE scalar operation writes only the low element of its destination: the rest of
 * the register is kept, so it is read (the "false dependency" of SQRTSS or CVTSI2SD). Loads
 * into a register (MOVSS xmm, m32) clear the rest instead. */
static void x86_scalar_merge(const struct dec *d, const cs_x86 *x, const struct x86_ctx *c, struct rt_insn *o)
{
    const cs_x86_op *op = &x->operands[0];
    if (c->mn[0] == 'V' || !x->op_count || op->type != X86_OP_REG || dec_rclass(d, op->reg) != DEC_RC_XMM ||
        (op->access & CS_AC_READ) || dec_starts(c->mn, "MOV") || !(dec_ends(c->mn, "SS") || dec_ends(c->mn, "SD")))
        return;
    dec_add_src(o, dec_canon(d, op->reg));
}

static void x86_implicit(const struct dec *d, const cs_insn *ci, const struct x86_ctx *c, struct rt_insn *o)
{
    const cs_detail *det = ci->detail;
    bool stack = c->stack_push || c->stack_pop;
    for (unsigned i = 0; i < det->regs_read_count; i++)
        dec_add_src(o, x86_dep(d, det->regs_read[i]));
    for (unsigned i = 0; i < det->regs_write_count; i++) {
        uint8_t r = x86_dep(d, det->regs_write[i]);
        if (!(stack && r == RT_X86_GPR + 4))    /* the stack engine's, see decode.h */
            dec_add_dst(o, r);
    }
}

/* uops.info lists the register of XCHG's short form (90+r) first, then the accumulator;
 * Capstone the other way round. */
static bool x86_swapped_xchg(const cs_x86 *x)
{
    return x->opcode[1] == 0 && x->opcode[0] >= 0x91 && x->opcode[0] <= 0x97 && x->op_count == 2;
}

static void x86_operands(const struct dec *d, const cs_insn *ci, const struct x86_ctx *c, struct rt_insn *o)
{
    const cs_x86 *x = &ci->detail->x86;
    enum formkey_kind kinds[RT_MAX_OPS + 1];
    unsigned nk = 0, n = x->op_count < RT_MAX_OPS ? x->op_count : RT_MAX_OPS;
    bool zeroing = false, swap = x86_swapped_xchg(x);
    for (unsigned i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[swap ? 1 - i : i];
        zeroing |= op->avx_zero_opmask;         /* Capstone marks {z} on the mask operand */
        if (i < n) {
            kinds[i] = x86_kind(d, ci, op, c);
            o->op_reg[i] = op->type == X86_OP_REG ? dec_canon(d, op->reg) : RT_REG_NONE;
        }
        if (op->type == X86_OP_REG)
            x86_reg_flow(d, op, i, c, o);
        else if (op->type == X86_OP_MEM)
            x86_mem_flow(d, op, c, o);
    }
    o->n_ops = (uint8_t)n;
    if (c->cc_imm && n < RT_MAX_OPS) {
        kinds[n] = FK_X86_64_I8;
        o->op_reg[o->n_ops++] = RT_REG_NONE;
    }
    snprintf(o->key, sizeof o->key, "%s%s", c->mn, zeroing ? "_Z" : "");
    for (unsigned i = 0; !c->string && i < o->n_ops; i++)    /* string forms list no operands */
        dec_key_kind(o, &nk, kinds[i]);
    dec_key_end(o, nk);
}

static uint8_t x86_branch(const cs_insn *ci, const struct x86_ctx *c)
{
    if (has_group(ci, CS_GRP_RET))
        return RT_BR_RET;
    if (has_group(ci, CS_GRP_CALL))
        return RT_BR_CALL;
    if (!has_group(ci, CS_GRP_JUMP))
        return RT_BR_NONE;
    if (strcmp(c->mn, "JMP") != 0 && strcmp(c->mn, "LJMP") != 0)
        return RT_BR_COND;
    const cs_x86 *x = &ci->detail->x86;
    return x->op_count && x->operands[0].type == X86_OP_IMM ? RT_BR_DIRECT : RT_BR_INDIRECT;
}

static int x86_int_class(const char *mn)
{
    static const struct dec_name_class exact[] = {
        { "NOP", MDL_CLASS_NOP }, { "PAUSE", MDL_CLASS_NOP }, { "ENDBR64", MDL_CLASS_NOP },
        { "ENDBR32", MDL_CLASS_NOP }, { "LEA", MDL_CLASS_LEA }, { "POPCNT", MDL_CLASS_INT_ALU },
        { "MUL", MDL_CLASS_INT_MUL }, { "IMUL", MDL_CLASS_INT_MUL }, { "MULX", MDL_CLASS_INT_MUL },
        { "DIV", MDL_CLASS_INT_DIV }, { "IDIV", MDL_CLASS_INT_DIV }, { "CRC32", MDL_CLASS_CRYPTO },
        { "LEAVE", MDL_CLASS_LOAD }, { "ENTER", MDL_CLASS_STORE },
        { "SHL", MDL_CLASS_SHIFT }, { "SAL", MDL_CLASS_SHIFT }, { "SHR", MDL_CLASS_SHIFT },
        { "SAR", MDL_CLASS_SHIFT }, { "ROL", MDL_CLASS_SHIFT }, { "ROR", MDL_CLASS_SHIFT },
        { "RCL", MDL_CLASS_SHIFT }, { "RCR", MDL_CLASS_SHIFT }, { "SHLD", MDL_CLASS_SHIFT },
        { "SHRD", MDL_CLASS_SHIFT }, { "SHLX", MDL_CLASS_SHIFT }, { "SHRX", MDL_CLASS_SHIFT },
        { "SARX", MDL_CLASS_SHIFT }, { "RORX", MDL_CLASS_SHIFT }, { "BEXTR", MDL_CLASS_SHIFT },
        { "BZHI", MDL_CLASS_SHIFT }, { "PDEP", MDL_CLASS_SHIFT }, { "PEXT", MDL_CLASS_SHIFT },
        { "MOV", MDL_CLASS_MOV }, { "MOVZX", MDL_CLASS_MOV }, { "MOVSX", MDL_CLASS_MOV },
        { "MOVSXD", MDL_CLASS_MOV }, { "MOVBE", MDL_CLASS_MOV }, { "XCHG", MDL_CLASS_MOV },
        { "BSWAP", MDL_CLASS_MOV }, { "CBW", MDL_CLASS_MOV }, { "CWDE", MDL_CLASS_MOV },
        { "CDQE", MDL_CLASS_MOV }, { "CWD", MDL_CLASS_MOV }, { "CDQ", MDL_CLASS_MOV }, { "CQO", MDL_CLASS_MOV },
        { "CPUID", MDL_CLASS_SYSTEM }, { "RDTSC", MDL_CLASS_SYSTEM }, { "RDTSCP", MDL_CLASS_SYSTEM },
        { "LFENCE", MDL_CLASS_SYSTEM }, { "MFENCE", MDL_CLASS_SYSTEM }, { "SFENCE", MDL_CLASS_SYSTEM },
        { "SYSCALL", MDL_CLASS_SYSTEM }, { "INT", MDL_CLASS_SYSTEM }, { "INT3", MDL_CLASS_SYSTEM },
        { "HLT", MDL_CLASS_SYSTEM }, { "UD2", MDL_CLASS_SYSTEM }, { "XGETBV", MDL_CLASS_SYSTEM },
        { "RDMSR", MDL_CLASS_SYSTEM }, { "WRMSR", MDL_CLASS_SYSTEM }, { "CLI", MDL_CLASS_SYSTEM },
        { "STI", MDL_CLASS_SYSTEM }, { "LDMXCSR", MDL_CLASS_SYSTEM }, { "STMXCSR", MDL_CLASS_SYSTEM },
        { "RDRAND", MDL_CLASS_SYSTEM }, { "RDSEED", MDL_CLASS_SYSTEM }, { "RDPMC", MDL_CLASS_SYSTEM },
        { NULL, 0 },
    };
    static const struct dec_name_class prefix[] = {
        { "PREFETCH", MDL_CLASS_LOAD }, { "CMOV", MDL_CLASS_MOV }, { "SET", MDL_CLASS_INT_ALU },
        { "PUSH", MDL_CLASS_STORE }, { "POP", MDL_CLASS_LOAD }, { "XSAVE", MDL_CLASS_SYSTEM },
        { "XRSTOR", MDL_CLASS_SYSTEM }, { "FXSAVE", MDL_CLASS_SYSTEM }, { "FXRSTOR", MDL_CLASS_SYSTEM },
        { "CLFLUSH", MDL_CLASS_SYSTEM }, { "WBINVD", MDL_CLASS_SYSTEM }, { "XSETBV", MDL_CLASS_SYSTEM },
        { NULL, 0 },
    };
    return dec_lookup_exact_prefix(mn, exact, prefix);
}

/* Names with a leading V (VEX/EVEX) are matched without it. */
static int x86_vec_class(const char *mn)
{
    static const struct dec_name_class prefix[] = {
        { "AES", MDL_CLASS_CRYPTO }, { "SHA", MDL_CLASS_CRYPTO }, { "PCLMUL", MDL_CLASS_CRYPTO },
        { "GF2P8", MDL_CLASS_CRYPTO }, { "DIV", MDL_CLASS_FP_DIV }, { "CVT", MDL_CLASS_FP_CVT },
        { "ROUND", MDL_CLASS_FP_CVT }, { "MUL", MDL_CLASS_FP_MUL }, { "DPP", MDL_CLASS_FP_MUL },
        { "RCP", MDL_CLASS_FP_MUL }, { "ADD", MDL_CLASS_FP_ADD }, { "SUB", MDL_CLASS_FP_ADD },
        { "HADD", MDL_CLASS_FP_ADD }, { "HSUB", MDL_CLASS_FP_ADD }, { "MIN", MDL_CLASS_FP_ADD },
        { "MAX", MDL_CLASS_FP_ADD }, { "CMP", MDL_CLASS_FP_ADD }, { "COMIS", MDL_CLASS_FP_ADD },
        { "UCOMIS", MDL_CLASS_FP_ADD }, { "PSHUF", MDL_CLASS_VEC_SHUFFLE }, { "SHUF", MDL_CLASS_VEC_SHUFFLE },
        { "UNPCK", MDL_CLASS_VEC_SHUFFLE }, { "PUNPCK", MDL_CLASS_VEC_SHUFFLE },
        { "PALIGNR", MDL_CLASS_VEC_SHUFFLE }, { "PERM", MDL_CLASS_VEC_SHUFFLE },
        { "PINSR", MDL_CLASS_VEC_SHUFFLE }, { "PEXTR", MDL_CLASS_VEC_SHUFFLE },
        { "INSERT", MDL_CLASS_VEC_SHUFFLE }, { "EXTRACT", MDL_CLASS_VEC_SHUFFLE },
        { "PACK", MDL_CLASS_VEC_SHUFFLE }, { "BROADCAST", MDL_CLASS_VEC_SHUFFLE },
        { "PBROADCAST", MDL_CLASS_VEC_SHUFFLE }, { "PMOVZX", MDL_CLASS_VEC_SHUFFLE },
        { "PMOVSX", MDL_CLASS_VEC_SHUFFLE }, { "PSLLDQ", MDL_CLASS_VEC_SHUFFLE },
        { "PSRLDQ", MDL_CLASS_VEC_SHUFFLE }, { "MOVHLPS", MDL_CLASS_VEC_SHUFFLE },
        { "MOVLHPS", MDL_CLASS_VEC_SHUFFLE }, { "MOVSHDUP", MDL_CLASS_VEC_SHUFFLE },
        { "MOVSLDUP", MDL_CLASS_VEC_SHUFFLE }, { "MOVDDUP", MDL_CLASS_VEC_SHUFFLE },
        { "EXPAND", MDL_CLASS_VEC_SHUFFLE }, { "COMPRESS", MDL_CLASS_VEC_SHUFFLE },
        { "PSLL", MDL_CLASS_VEC_SHIFT }, { "PSRL", MDL_CLASS_VEC_SHIFT }, { "PSRA", MDL_CLASS_VEC_SHIFT },
        { "PROL", MDL_CLASS_VEC_SHIFT }, { "PROR", MDL_CLASS_VEC_SHIFT }, { "PMUL", MDL_CLASS_VEC_MUL },
        { "PMADD", MDL_CLASS_VEC_MUL }, { "PSADBW", MDL_CLASS_VEC_MUL }, { "MPSADBW", MDL_CLASS_VEC_MUL },
        { "MOVMSK", MDL_CLASS_VEC_ALU }, { "PMOVMSK", MDL_CLASS_VEC_ALU }, { NULL, 0 },
    };
    const char *s = mn[0] == 'V' ? mn + 1 : mn;
    if (strstr(s, "FMADD") || strstr(s, "FMSUB") || strstr(s, "FNMADD") || strstr(s, "FNMSUB"))
        return MDL_CLASS_FP_FMA;
    if (strstr(s, "SQRT"))
        return MDL_CLASS_FP_SQRT;
    if (strstr(s, "GATHER"))
        return MDL_CLASS_VEC_LOAD;
    if (strstr(s, "SCATTER"))
        return MDL_CLASS_VEC_STORE;
    int k = dec_lookup_class(s, prefix, true);
    return k >= 0 ? k : -1;
}

static bool x86_is_vec_move(const char *mn)
{
    const char *s = mn[0] == 'V' ? mn + 1 : mn;
    static const char *const p[] = { "MOV", "LDDQU", "MASKMOV", "PMASKMOV", "KMOV", NULL };
    return dec_any_prefix(s, p);
}

static int x86_x87_class(const char *mn, bool mem)
{
    static const struct dec_name_class exact[] = {
        { "FLDCW", MDL_CLASS_SYSTEM }, { "FNSTCW", MDL_CLASS_SYSTEM }, { "FNSTSW", MDL_CLASS_SYSTEM },
        { "FLDENV", MDL_CLASS_SYSTEM }, { "FNSTENV", MDL_CLASS_SYSTEM }, { "FNINIT", MDL_CLASS_SYSTEM },
        { "WAIT", MDL_CLASS_SYSTEM }, { "FNCLEX", MDL_CLASS_SYSTEM }, { "FSQRT", MDL_CLASS_FP_SQRT },
        { NULL, 0 },
    };
    static const struct dec_name_class prefix[] = {
        { "FADD", MDL_CLASS_FP_ADD }, { "FIADD", MDL_CLASS_FP_ADD }, { "FSUB", MDL_CLASS_FP_ADD },
        { "FISUB", MDL_CLASS_FP_ADD }, { "FCOM", MDL_CLASS_FP_ADD }, { "FUCOM", MDL_CLASS_FP_ADD },
        { "FICOM", MDL_CLASS_FP_ADD }, { "FTST", MDL_CLASS_FP_ADD }, { "FMUL", MDL_CLASS_FP_MUL },
        { "FIMUL", MDL_CLASS_FP_MUL }, { "FDIV", MDL_CLASS_FP_DIV }, { "FIDIV", MDL_CLASS_FP_DIV },
        { NULL, 0 },
    };
    int k = dec_lookup_exact_prefix(mn, exact, prefix);
    if (k >= 0)
        return k;
    if (dec_starts(mn, "FLD") || dec_starts(mn, "FILD") || dec_starts(mn, "FBLD"))
        return mem ? MDL_CLASS_VEC_LOAD : MDL_CLASS_FP_MOV;
    if (dec_starts(mn, "FST") || dec_starts(mn, "FIST") || dec_starts(mn, "FBSTP"))
        return mem ? MDL_CLASS_VEC_STORE : MDL_CLASS_FP_MOV;
    return MDL_CLASS_FP_MOV;
}

/* A plain move is a load or a store when memory is on one side; anything else keeps its class. */
static uint8_t x86_mem_move_class(uint8_t k, const struct rt_insn *o, bool vec)
{
    bool load, store;
    dec_mem_rw(o, &load, &store);
    if (store)
        return vec ? MDL_CLASS_VEC_STORE : MDL_CLASS_STORE;
    if (load)
        return vec ? MDL_CLASS_VEC_LOAD : MDL_CLASS_LOAD;
    return k;
}

static uint8_t x86_class(const cs_insn *ci, const struct x86_ctx *c, const struct rt_insn *o)
{
    static const uint8_t branch_cls[] = { [RT_BR_COND] = MDL_CLASS_BRANCH_COND, [RT_BR_DIRECT] = MDL_CLASS_BRANCH,
                                          [RT_BR_INDIRECT] = MDL_CLASS_BRANCH_INDIRECT,
                                          [RT_BR_CALL] = MDL_CLASS_CALL, [RT_BR_RET] = MDL_CLASS_RET };
    char base[DEC_MN_LEN];
    formkey_upper_word(ci->mnemonic, base, sizeof base);    /* Capstone's name, without _LOCK/_REPE */
    if (o->branch != RT_BR_NONE)
        return branch_cls[o->branch];
    if (c->string)
        return MDL_CLASS_STRING;
    if (c->lock || (strcmp(base, "XCHG") == 0 && o->n_mem))
        return MDL_CLASS_SYSTEM;   /* atomic read-modify-write */
    if (has_group(ci, X86_GRP_FPU) && base[0] == 'F')
        return (uint8_t)x86_x87_class(base, o->n_mem > 0);
    if (c->vec) {
        if (x86_is_vec_move(base))
            return x86_mem_move_class(MDL_CLASS_FP_MOV, o, true);
        int k = x86_vec_class(base);
        return k >= 0 ? (uint8_t)k : MDL_CLASS_VEC_ALU;
    }
    int k = x86_int_class(c->mn);
    if (k == MDL_CLASS_MOV && !dec_starts(base, "CMOV") && strcmp(base, "XCHG") != 0)
        return x86_mem_move_class(MDL_CLASS_MOV, o, false);
    if (k >= 0)
        return (uint8_t)k;
    static const char *const alu[] = {
        "ADD", "SUB", "ADC", "SBB", "AND", "OR", "XOR", "CMP", "TEST", "NEG", "NOT", "INC", "DEC", "BT", "BTS",
        "BTR", "BTC", "ADCX", "ADOX", "ANDN", "LZCNT", "TZCNT", "BSF", "BSR", "BLSI", "BLSR", "BLSMSK", "CLC",
        "STC", "CMC", "CLD", "STD", "LAHF", "SAHF", "CMPXCHG", "XADD", "CMPXCHG8B", "CMPXCHG16B", NULL,
    };
    return dec_in_list(base, alu) ? MDL_CLASS_INT_ALU : MDL_CLASS_GENERIC;
}

/* An operand-size prefix that shortens an immediate to 16 bits changes the instruction's
 * length as the predecoder first guessed it. Only opcodes that encode a full-size immediate
 * qualify (not the sign-extended imm8 forms); MOV r16, imm16 (B8+r) is exempt. */
static bool x86_lcp(const cs_insn *ci)
{
    const cs_x86 *x = &ci->detail->x86;
    unsigned op = x->opcode[0];
    if (x->prefix[2] != 0x66 || x->opcode[1] != 0)
        return false;
    bool alu_acc = op <= 0x3d && (op & 7) == 5;         /* ADD/OR/ADC/SBB/AND/SUB/XOR/CMP AX, imm16 */
    bool test_rm = op == 0xf7 && ((x->modrm >> 3) & 7) == 0;
    return alu_acc || test_rm || op == 0x81 || op == 0x69 || op == 0xc7 || op == 0xa9 || op == 0x68;
}

/* Where the opcode byte stands: after the legacy prefixes, REX, a VEX/XOP/EVEX prefix and the
 * 0F, 0F 38, 0F 3A escapes (the predecoder needs it to mark an instruction across a block). */
static uint8_t x86_opcode_offset(const cs_insn *ci)
{
    static const uint8_t legacy[] = { 0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65 };
    const uint8_t *b = ci->bytes;
    unsigned n = ci->size, i = 0;
    while (i < n && memchr(legacy, b[i], sizeof legacy))
        i++;
    if (i < n && (b[i] & 0xf0) == 0x40)
        i++;
    if (i + 1 < n && b[i] == 0xc5)
        i += 2;
    else if (i + 1 < n && (b[i] == 0xc4 || b[i] == 0x8f))
        i += 3;
    else if (i + 1 < n && b[i] == 0x62)
        i += 4;
    else if (i + 1 < n && b[i] == 0x0f)
        i += b[i + 1] == 0x38 || b[i + 1] == 0x3a ? 2 : 1;
    return (uint8_t)(i < n ? i : n - 1);
}

/* uops.info names LEA by its address: base (B), RIP (R), index (I, IS when scaled),
 * displacement (D8, D32); the key keeps the operand kinds, the other spelling names the shape. */
static void x86_lea_key(const struct x86_ctx *c, struct rt_insn *o)
{
    const char *kind = strchr(o->key, '(');
    if (!c->lea || !o->n_mem || !kind)
        return;
    kind++;
    const struct rt_mem *a = &o->mem[0];
    bool rip = a->base == RT_X86_RIP, base = a->base != RT_REG_NONE && !rip;
    bool bp = a->base == RT_X86_GPR + 5 || a->base == RT_X86_GPR + 13;    /* rbp/r13 need a disp8 */
    bool d8 = base && (a->disp ? a->disp >= -128 && a->disp <= 127 : bp);
    bool d32 = !base || (a->disp && !d8);
    snprintf(o->alt_key, sizeof o->alt_key, "LEA%s%s%s%s (%.*s)", rip ? "_R" : base ? "_B" : "",
             a->index ? (a->scale > 1 ? "_IS" : "_I") : "", d8 ? "_D8" : "", d32 ? "_D32" : "",
             (int)strcspn(kind, ",)"), kind);
}

/* The vector register a scalar operation reads and writes other than its computed value (the
 * last register operand): the rest of the register merges from its old value. */
static uint8_t x86_merge(const struct rt_insn *o)
{
    uint8_t value = RT_REG_NONE;
    for (unsigned k = 0; k < o->n_ops; k++)
        if (o->op_reg[k] != RT_REG_NONE)
            value = o->op_reg[k];
    for (unsigned k = 0; k < o->n_src; k++) {
        uint8_t r = o->src[k];
        bool vec = r >= RT_X86_VEC && r < RT_X86_VEC + 32;
        for (unsigned j = 0; vec && r != value && j < o->n_dst; j++)
            if (o->dst[j] == r)
                return r;
    }
    return RT_REG_NONE;
}

/* The stack engine moves rsp for push, pop, call and ret; `leave` writes it as an operation. */
static void x86_facts(const struct x86_ctx *c, struct rt_insn *o)
{
    o->stack = (int8_t)(c->stack_push ? -8 : c->stack_pop ? 8 : 0);
    o->stack_reg = RT_X86_GPR + 4;
    o->flags_reg = RT_X86_FLAGS;
    o->merge = x86_merge(o);
    o->pc_relative = c->rel;
    x86_lea_key(c, o);
}

/* A string instruction under a repeat prefix: which kind of work its iterations do. */
static uint8_t x86_rep(const cs_x86 *x, const struct x86_ctx *c)
{
    if (!c->string || (x->prefix[0] != X86_PREFIX_REP && x->prefix[0] != X86_PREFIX_REPNE))
        return RT_REP_NONE;
    uint8_t op = x->opcode[0];
    return op == 0xa4 || op == 0xa5 ? RT_REP_COPY : op == 0xaa || op == 0xab ? RT_REP_FILL : RT_REP_SCAN;
}

static void x86_fill(const struct dec *d, const cs_insn *ci, struct rt_insn *o)
{
    struct x86_ctx c;
    x86_context(d, ci, &c);
    x86_operands(d, ci, &c, o);
    x86_stack(&c, o);
    x86_implicit(d, ci, &c, o);
    x86_exchange_fixup(&c, o);
    x86_readonly_fixup(&c, o);
    x86_vex_store_fixup(&ci->detail->x86, &c, o);
    x86_scalar_merge(d, &ci->detail->x86, &c, o);
    x86_value(d, &ci->detail->x86, &c, o);
    o->branch = x86_branch(ci, &c);
    o->cls = x86_class(ci, &c, o);
    o->lcp = x86_lcp(ci);
    o->rep = x86_rep(&ci->detail->x86, &c);
    o->opcode_at = x86_opcode_offset(ci);
    x86_facts(&c, o);
}

/* The destination of a direct jump or jcc: its immediate operand. */
static uint64_t x86_direct_target(const cs_insn *ci)
{
    const cs_x86 *x = &ci->detail->x86;
    return x->op_count && x->operands[0].type == X86_OP_IMM ? (uint64_t)x->operands[0].imm : 0;
}

/* `test al, 1`: Capstone 4 sorts its table of the forms that embed the accumulator at the first
 * such decode, with no lock. */
static const uint8_t x86_warm_up[] = { 0xa8, 0x01 };

const struct isa_ops x86_64_ops = {
    .warm_up = x86_warm_up, .warm_up_len = sizeof x86_warm_up,
    .cache_decodes = true,
    .elf_machine = EM_X86_64,
    .sysroot = NULL,
    .as = "as", .objcopy = "objcopy", .objdump = "objdump",
    .reg_info = x86_reg_info, .fill = x86_fill, .direct_target = x86_direct_target,
};
