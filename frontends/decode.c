/* Decoder frontend: Capstone's view of one instruction turned into what the model needs, its
 * data flow, memory accesses, class and form key in the naming of the machine descriptions. */
#include "decode.h"
#include <capstone/capstone.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formkey.h"

enum { DEC_REGS = 512, MN_LEN = 32 };

/* What a register is, for its operand kind and for the data-flow rules. */
enum rclass {
    RC_NONE, RC_R8L, RC_R8H, RC_R16, RC_R32, RC_R64, RC_XMM, RC_YMM, RC_ZMM, RC_K, RC_MM, RC_ST,
    RC_SEG, RC_BND, RC_CR, RC_DR, RC_IP, RC_FLAGS, RC_SYS,
    RC_X, RC_W, RC_XZR, RC_WZR, RC_SP, RC_WSP, RC_V, RC_Q, RC_D, RC_S, RC_H, RC_B
};

struct dec {
    csh cs;
    cs_insn *ci;                /* reused by cs_disasm_iter: no allocation per instruction */
    enum mdl_isa isa;
    uint8_t canon[DEC_REGS];    /* Capstone register -> canonical id */
    uint8_t rc[DEC_REGS];       /* Capstone register -> enum rclass */
};

/* ---- small helpers ---------------------------------------------------------------------------- */

static void set_add(uint8_t *set, uint8_t *n, unsigned max, uint8_t r)
{
    if (r == RT_REG_NONE)
        return;
    for (unsigned i = 0; i < *n; i++)
        if (set[i] == r)
            return;
    if (*n < max)
        set[(*n)++] = r;
}

static void add_src(struct rt_insn *o, uint8_t r) { set_add(o->src, &o->n_src, RT_MAX_SRC, r); }
static void add_dst(struct rt_insn *o, uint8_t r) { set_add(o->dst, &o->n_dst, RT_MAX_DST, r); }
static void add_addr(struct rt_insn *o, uint8_t r) { set_add(o->addr, &o->n_addr, 4, r); }

static void add_mem(struct rt_insn *o, uint8_t base, uint8_t index, unsigned scale, unsigned size, int64_t disp,
                    bool load, bool store)
{
    if (o->n_mem >= RT_MAX_MEM)
        return;
    struct rt_mem *m = &o->mem[o->n_mem++];
    m->base = base;
    m->index = index;
    m->scale = (uint8_t)(scale ? scale : 1);
    m->size = (uint8_t)(size > 255 ? 255 : size);
    m->disp = disp;
    m->load = load;
    m->store = store;
}

/* Appends what fits: long operand lists are cut, as the disassembly is only shown. */
static void append_trunc(char *dst, size_t size, const char *s)
{
    size_t n = strlen(dst);
    while (*s && n + 1 < size)
        dst[n++] = *s++;
    dst[n] = 0;
}

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static bool any_prefix(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (starts(s, *list))
            return true;
    return false;
}

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The key is written in place: "MNEMONIC (KIND, KIND)", or the bare mnemonic. */
static void key_kind(struct rt_insn *o, unsigned *nk, enum formkey_kind kind)
{
    size_t n = strlen(o->key);
    snprintf(o->key + n, sizeof o->key - n, "%s%s", *nk ? ", " : " (", formkey_kind_name(kind));
    (*nk)++;
}

static void key_end(struct rt_insn *o, unsigned nk)
{
    size_t n = strlen(o->key);
    if (nk)
        snprintf(o->key + n, sizeof o->key - n, ")");
}

/* ---- canonical registers ---------------------------------------------------------------------- */

static bool reg_num(const char *name, const char *prefix, unsigned max, unsigned *n)
{
    size_t k = strlen(prefix);
    if (strncmp(name, prefix, k) != 0 || !isdigit((unsigned char)name[k]))
        return false;
    char *end;
    unsigned long v = strtoul(name + k, &end, 10);
    if (*end || v > max)
        return false;
    *n = (unsigned)v;
    return true;
}

/* rax..rdi in the order of RT_X86_GPR; the 8-bit high registers come last. */
static bool x86_legacy_gpr(const char *name, uint8_t *canon, uint8_t *rc)
{
    static const char *const names[8][5] = {
        { "rax", "eax", "ax", "al", "ah" }, { "rcx", "ecx", "cx", "cl", "ch" },
        { "rdx", "edx", "dx", "dl", "dh" }, { "rbx", "ebx", "bx", "bl", "bh" },
        { "rsp", "esp", "sp", "spl", NULL }, { "rbp", "ebp", "bp", "bpl", NULL },
        { "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
    };
    static const uint8_t cls[5] = { RC_R64, RC_R32, RC_R16, RC_R8L, RC_R8H };
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
    static const uint8_t cls[4] = { RC_R64, RC_R32, RC_R16, RC_R8L };
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
    *rc = RC_NONE;
    if (x86_legacy_gpr(name, canon, rc) || x86_new_gpr(name, canon, rc))
        return;
    static const struct { const char *p; unsigned max; uint8_t base, rc; } numbered[] = {
        { "xmm", 31, RT_X86_VEC, RC_XMM }, { "ymm", 31, RT_X86_VEC, RC_YMM }, { "zmm", 31, RT_X86_VEC, RC_ZMM },
        { "k", 7, RT_X86_K, RC_K }, { "mm", 7, RT_X86_X87, RC_MM }, { "st(", 7, RT_X86_X87, RC_ST },
        { "bnd", 3, RT_REG_NONE, RC_BND }, { "cr", 15, RT_REG_NONE, RC_CR }, { "dr", 15, RT_REG_NONE, RC_DR },
    };
    for (size_t i = 0; i < sizeof numbered / sizeof *numbered; i++) {
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%s", name);
        char *paren = strchr(tmp, ')');
        if (paren)
            *paren = 0;         /* "st(3)" */
        if (reg_num(tmp, numbered[i].p, numbered[i].max, &n)) {
            *canon = numbered[i].base ? (uint8_t)(numbered[i].base + n) : RT_REG_NONE;
            *rc = numbered[i].rc;
            return;
        }
    }
    static const char *const segs[] = { "cs", "ds", "es", "fs", "gs", "ss", NULL };
    if (in_list(name, segs))
        *rc = RC_SEG;
    else if (strcmp(name, "rip") == 0 || strcmp(name, "eip") == 0 || strcmp(name, "ip") == 0)
        *canon = RT_X86_RIP, *rc = RC_IP;
    else if (strcmp(name, "rflags") == 0 || strcmp(name, "eflags") == 0)
        *canon = RT_X86_FLAGS, *rc = RC_FLAGS;
    else if (strcmp(name, "fpsw") == 0)
        *canon = RT_X86_X87_STATUS, *rc = RC_SYS;
    else if (strcmp(name, "mxcsr") == 0)
        *canon = RT_X86_MXCSR, *rc = RC_SYS;
}

static void a64_reg_info(const char *name, uint8_t *canon, uint8_t *rc)
{
    unsigned n;
    *canon = RT_REG_NONE;
    *rc = RC_NONE;
    static const struct { const char *p; uint8_t rc; } vec[] = {
        { "v", RC_V }, { "q", RC_Q }, { "d", RC_D }, { "s", RC_S }, { "h", RC_H }, { "b", RC_B },
    };
    if (reg_num(name, "x", 30, &n) || reg_num(name, "w", 30, &n)) {
        *canon = (uint8_t)(RT_A64_X + n);
        *rc = name[0] == 'x' ? RC_X : RC_W;
        return;
    }
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        if (reg_num(name, vec[i].p, 31, &n)) {
            *canon = (uint8_t)(RT_A64_V + n);
            *rc = vec[i].rc;
            return;
        }
    if (strcmp(name, "fp") == 0 || strcmp(name, "lr") == 0)
        *canon = (uint8_t)(RT_A64_X + (name[0] == 'f' ? 29 : 30)), *rc = RC_X;
    else if (strcmp(name, "sp") == 0 || strcmp(name, "wsp") == 0)
        *canon = RT_A64_SP, *rc = name[0] == 's' ? RC_SP : RC_WSP;
    else if (strcmp(name, "xzr") == 0 || strcmp(name, "wzr") == 0)
        *rc = name[0] == 'x' ? RC_XZR : RC_WZR;     /* reads as zero: never a dependency */
    else if (strcmp(name, "nzcv") == 0)
        *canon = RT_A64_NZCV, *rc = RC_FLAGS;
    else if (strcmp(name, "fpsr") == 0)
        *canon = RT_A64_FPSR, *rc = RC_SYS;
}

/* Capstone's register numbering differs per architecture; names are stable, so the tables are
 * built from them once. */
static void build_reg_tables(struct dec *d)
{
    unsigned end = d->isa == MDL_ISA_X86_64 ? X86_REG_ENDING : ARM64_REG_ENDING;
    for (unsigned r = 1; r < end && r < DEC_REGS; r++) {
        const char *name = cs_reg_name(d->cs, r);
        if (!name)
            continue;
        if (d->isa == MDL_ISA_X86_64)
            x86_reg_info(name, &d->canon[r], &d->rc[r]);
        else
            a64_reg_info(name, &d->canon[r], &d->rc[r]);
    }
}

static uint8_t canon(const struct dec *d, unsigned reg) { return reg < DEC_REGS ? d->canon[reg] : RT_REG_NONE; }
static uint8_t rclass(const struct dec *d, unsigned reg) { return reg < DEC_REGS ? d->rc[reg] : RC_NONE; }

/* RIP is read by every instruction: as a dependency it would only add noise. */
static uint8_t x86_dep(const struct dec *d, unsigned reg)
{
    uint8_t c = canon(d, reg);
    return c == RT_X86_RIP ? RT_REG_NONE : c;
}

/* ==== x86-64 ==================================================================================== */

/* Facts about the encoding that change the operand kinds uops.info uses. */
struct x86_ctx {
    char mn[MN_LEN];            /* uops.info spelling, upper case, with _LOCK/_REPE/_REPNE */
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
        uint8_t rc = op->type == X86_OP_REG ? rclass(d, op->reg) : RC_NONE;
        if (rc == RC_XMM || rc == RC_YMM || rc == RC_ZMM || rc == RC_MM || rc == RC_K)
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
    c->stack_push = starts(c->mn, "PUSH") || has_group(ci, CS_GRP_CALL);
    c->stack_pop = (starts(c->mn, "POP") && strcmp(c->mn, "POPCNT") != 0) || has_group(ci, CS_GRP_RET);
    c->leave = strcmp(c->mn, "LEAVE") == 0;
    c->vec = x86_has_vec_operand(d, x) || starts(c->mn, "VZERO");
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

/* A kind with a width, spelt as FMT formats it, when mdl/opkind.def lists it; else FALLBACK, the
 * family's kind without a width (so that every key the decoder spells is one mdlc accepts). */
static enum formkey_kind sized_kind(enum mdl_isa isa, enum formkey_kind fallback, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum formkey_kind sized_kind(enum mdl_isa isa, enum formkey_kind fallback, const char *fmt, ...)
{
    char s[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    return formkey_kind_find(isa, s, fallback);
}

static enum formkey_kind x86_gpr_kind(uint8_t rc, bool acc)
{
    static const enum formkey_kind plain[] = { [RC_R8L] = FK_X86_64_R8L, [RC_R8H] = FK_X86_64_R8H,
                                               [RC_R16] = FK_X86_64_R16, [RC_R32] = FK_X86_64_R32,
                                               [RC_R64] = FK_X86_64_R64 };
    static const enum formkey_kind accum[] = { [RC_R8L] = FK_X86_64_AL, [RC_R8H] = FK_X86_64_R8H,
                                               [RC_R16] = FK_X86_64_AX, [RC_R32] = FK_X86_64_EAX,
                                               [RC_R64] = FK_X86_64_RAX };
    return acc ? accum[rc] : plain[rc];
}

static enum formkey_kind x86_reg_kind(const struct dec *d, const struct x86_ctx *c, unsigned reg)
{
    uint8_t rc = rclass(d, reg);
    static const enum formkey_kind names[] = { [RC_XMM] = FK_X86_64_XMM, [RC_YMM] = FK_X86_64_YMM,
                                               [RC_ZMM] = FK_X86_64_ZMM, [RC_K] = FK_X86_64_K,
                                               [RC_MM] = FK_X86_64_MM, [RC_ST] = FK_X86_64_ST,
                                               [RC_BND] = FK_X86_64_BND, [RC_CR] = FK_X86_64_CR,
                                               [RC_DR] = FK_X86_64_DR };
    if (rc >= RC_R8L && rc <= RC_R64) {
        bool acc = c->acc && canon(d, reg) == RT_X86_GPR;
        if (c->shift_cl && reg == X86_REG_CL)
            return FK_X86_64_CL;
        if (c->io && reg == X86_REG_DX)
            return FK_X86_64_DX;
        return x86_gpr_kind(rc, acc);
    }
    if (rc == RC_SEG) {
        char seg[8];
        bool named = starts(c->mn, "PUSH") || starts(c->mn, "POP");
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
        return sized_kind(MDL_ISA_X86_64, FK_X86_64_I8, "%lld", (long long)op->imm);
    if (op->imm == 0)
        return FK_X86_64_IMM0;  /* uops.info measures immediate 0 apart */
    return sized_kind(MDL_ISA_X86_64, FK_X86_64_I8, "I%u", size * 8);
}

static enum formkey_kind x86_mem_kind(const struct dec *d, const cs_x86_op *op, const struct x86_ctx *c)
{
    uint8_t irc = rclass(d, op->mem.index);
    if (c->moffs)
        return sized_kind(MDL_ISA_X86_64, FK_X86_64_M, "Moffs%u", op->size * 8);
    if (irc == RC_XMM || irc == RC_YMM || irc == RC_ZMM)
        return irc == RC_XMM ? FK_X86_64_VSIB_XMM : irc == RC_YMM ? FK_X86_64_VSIB_YMM : FK_X86_64_VSIB_ZMM;
    if (op->avx_bcast != X86_AVX_BCAST_INVALID) {
        static const unsigned times[] = { [X86_AVX_BCAST_2] = 2, [X86_AVX_BCAST_4] = 4,
                                          [X86_AVX_BCAST_8] = 8, [X86_AVX_BCAST_16] = 16 };
        unsigned t = op->avx_bcast < sizeof times / sizeof *times ? times[op->avx_bcast] : 0;
        return sized_kind(MDL_ISA_X86_64, FK_X86_64_M, "M%u_1to%u", op->size * 8u, t);   /* size is the element's */
    }
    return op->size ? sized_kind(MDL_ISA_X86_64, FK_X86_64_M, "M%u", op->size * 8) : FK_X86_64_M;
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
    uint8_t r = x86_dep(d, op->reg), rc = rclass(d, op->reg);
    /* Capstone leaves access unset for some operands: the first is then read and written. */
    uint8_t acc = op->access ? op->access : (uint8_t)(i == 0 ? CS_AC_READ | CS_AC_WRITE : CS_AC_READ);
    if (acc & CS_AC_READ)
        add_src(o, r);
    if (acc & CS_AC_WRITE) {
        add_dst(o, r);
        if (rc == RC_R8L || rc == RC_R8H || rc == RC_R16)
            add_src(o, r);      /* the untouched bits of the full register flow through */
    }
}

static void x86_mem_flow(const struct dec *d, const cs_x86_op *op, const struct x86_ctx *c, struct rt_insn *o)
{
    if (c->nop)
        return;
    uint8_t base = canon(d, op->mem.base), index = canon(d, op->mem.index);
    uint8_t b = x86_dep(d, op->mem.base), ix = x86_dep(d, op->mem.index);
    if (c->lea) {
        add_src(o, b);          /* LEA computes a value from them: they are data */
        add_src(o, ix);
        add_mem(o, base, index, (unsigned)op->mem.scale, op->size, op->mem.disp, false, false);
        return;
    }
    add_addr(o, b);
    add_addr(o, ix);
    uint8_t acc = op->access ? op->access : CS_AC_READ;
    add_mem(o, base, index, (unsigned)op->mem.scale, op->size, op->mem.disp, acc & CS_AC_READ,
            acc & CS_AC_WRITE);
}

static bool x86_is_gpr(uint8_t rc) { return rc >= RC_R8L && rc <= RC_R64; }

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
    if (o->n_mem || !x->op_count || x->operands[0].type != X86_OP_REG || !x86_is_gpr(rclass(d, x->operands[0].reg)))
        return;
    uint8_t dst = canon(d, x->operands[0].reg), rc = rclass(d, x->operands[0].reg);
    const cs_x86_op *src = x->op_count == 2 ? &x->operands[1] : NULL;
    bool imm = src && src->type == X86_OP_IMM, add = strcmp(c->mn, "ADD") == 0, inc = strcmp(c->mn, "INC") == 0;
    if (in_list(c->mn, moves) && src && src->type == X86_OP_REG && x86_is_gpr(rclass(d, src->reg)))
        o->value_of = canon(d, src->reg);
    else if (strcmp(c->mn, "MOV") == 0 && imm && (rc == RC_R8L || rc == RC_R16))
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
        add_mem(o, rsp, RT_REG_NONE, 1, 8, -8, false, true);
        add_addr(o, rsp);
        add_src(o, rsp);
    } else if (c->stack_pop) {
        add_mem(o, rsp, RT_REG_NONE, 1, 8, 0, true, false);
        add_addr(o, rsp);
        add_src(o, rsp);
    } else if (c->leave) {
        add_mem(o, rbp, RT_REG_NONE, 1, 8, 0, true, false);
        add_addr(o, rbp);
    }
}

/* Capstone 4 gets the exchange instructions wrong: their memory operand is read and written,
 * and CMPXCHG's implicit accumulator (and flags) go unlisted. */
static void x86_exchange_fixup(const struct x86_ctx *c, struct rt_insn *o)
{
    static const char *const rmw[] = { "CMPXCHG", "CMPXCHG8B", "CMPXCHG16B", "XADD", "XCHG", NULL };
    char base[MN_LEN];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(c->mn, "_"), c->mn);
    if (!in_list(base, rmw))
        return;
    for (unsigned i = 0; i < o->n_mem; i++)
        o->mem[i].load = o->mem[i].store = true;
    if (!starts(base, "CMPXCHG"))
        return;
    add_src(o, RT_X86_GPR);
    add_dst(o, RT_X86_GPR);
    add_dst(o, RT_X86_FLAGS);
    if (strcmp(base, "CMPXCHG") == 0)
        return;
    add_src(o, RT_X86_GPR + 2);     /* rdx:rax compared, rcx:rbx stored */
    add_src(o, RT_X86_GPR + 1);
    add_src(o, RT_X86_GPR + 3);
    add_dst(o, RT_X86_GPR + 2);
}

/* Capstone 4 marks the memory operand of some compares as written, and the accumulator of TEST's
 * short forms (A8/A9: test eax, imm32): they only read them (a write would chain every repetition
 * to the previous one, through memory or the register); they write the flags alone. */
static void x86_readonly_fixup(const struct x86_ctx *c, struct rt_insn *o)
{
    static const char *const readonly[] = { "TEST", "CMP", "BT", "PTEST", "VPTEST", "UCOMISS", "UCOMISD",
                                            "COMISS", "COMISD", "VUCOMISS", "VUCOMISD", "VCOMISS", "VCOMISD",
                                            NULL };
    char base[MN_LEN];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(c->mn, "_"), c->mn);
    if (!in_list(base, readonly))
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
    if (c->mn[0] == 'V' || !x->op_count || op->type != X86_OP_REG || rclass(d, op->reg) != RC_XMM ||
        (op->access & CS_AC_READ) || starts(c->mn, "MOV") || !(ends(c->mn, "SS") || ends(c->mn, "SD")))
        return;
    add_src(o, canon(d, op->reg));
}

static void x86_implicit(const struct dec *d, const cs_insn *ci, const struct x86_ctx *c, struct rt_insn *o)
{
    const cs_detail *det = ci->detail;
    bool stack = c->stack_push || c->stack_pop;
    for (unsigned i = 0; i < det->regs_read_count; i++)
        add_src(o, x86_dep(d, det->regs_read[i]));
    for (unsigned i = 0; i < det->regs_write_count; i++) {
        uint8_t r = x86_dep(d, det->regs_write[i]);
        if (!(stack && r == RT_X86_GPR + 4))    /* the stack engine's, see decode.h */
            add_dst(o, r);
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
            o->op_reg[i] = op->type == X86_OP_REG ? canon(d, op->reg) : RT_REG_NONE;
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
        key_kind(o, &nk, kinds[i]);
    key_end(o, nk);
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

/* ---- x86 classes ---- */

struct name_class {
    const char *name;
    uint8_t cls;
};

static int lookup_class(const char *mn, const struct name_class *t, bool prefix)
{
    for (; t->name; t++)
        if (prefix ? starts(mn, t->name) : strcmp(mn, t->name) == 0)
            return t->cls;
    return -1;
}

static int x86_int_class(const char *mn)
{
    static const struct name_class exact[] = {
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
    static const struct name_class prefix[] = {
        { "PREFETCH", MDL_CLASS_LOAD }, { "CMOV", MDL_CLASS_MOV }, { "SET", MDL_CLASS_INT_ALU },
        { "PUSH", MDL_CLASS_STORE }, { "POP", MDL_CLASS_LOAD }, { "XSAVE", MDL_CLASS_SYSTEM },
        { "XRSTOR", MDL_CLASS_SYSTEM }, { "FXSAVE", MDL_CLASS_SYSTEM }, { "FXRSTOR", MDL_CLASS_SYSTEM },
        { "CLFLUSH", MDL_CLASS_SYSTEM }, { "WBINVD", MDL_CLASS_SYSTEM }, { "XSETBV", MDL_CLASS_SYSTEM },
        { NULL, 0 },
    };
    int k = lookup_class(mn, exact, false);
    return k >= 0 ? k : lookup_class(mn, prefix, true);
}

/* Names with a leading V (VEX/EVEX) are matched without it. */
static int x86_vec_class(const char *mn)
{
    static const struct name_class prefix[] = {
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
    int k = lookup_class(s, prefix, true);
    return k >= 0 ? k : -1;
}

static bool x86_is_vec_move(const char *mn)
{
    const char *s = mn[0] == 'V' ? mn + 1 : mn;
    static const char *const p[] = { "MOV", "LDDQU", "MASKMOV", "PMASKMOV", "KMOV", NULL };
    return any_prefix(s, p);
}

static int x86_x87_class(const char *mn, bool mem)
{
    static const struct name_class exact[] = {
        { "FLDCW", MDL_CLASS_SYSTEM }, { "FNSTCW", MDL_CLASS_SYSTEM }, { "FNSTSW", MDL_CLASS_SYSTEM },
        { "FLDENV", MDL_CLASS_SYSTEM }, { "FNSTENV", MDL_CLASS_SYSTEM }, { "FNINIT", MDL_CLASS_SYSTEM },
        { "WAIT", MDL_CLASS_SYSTEM }, { "FNCLEX", MDL_CLASS_SYSTEM }, { "FSQRT", MDL_CLASS_FP_SQRT },
        { NULL, 0 },
    };
    static const struct name_class prefix[] = {
        { "FADD", MDL_CLASS_FP_ADD }, { "FIADD", MDL_CLASS_FP_ADD }, { "FSUB", MDL_CLASS_FP_ADD },
        { "FISUB", MDL_CLASS_FP_ADD }, { "FCOM", MDL_CLASS_FP_ADD }, { "FUCOM", MDL_CLASS_FP_ADD },
        { "FICOM", MDL_CLASS_FP_ADD }, { "FTST", MDL_CLASS_FP_ADD }, { "FMUL", MDL_CLASS_FP_MUL },
        { "FIMUL", MDL_CLASS_FP_MUL }, { "FDIV", MDL_CLASS_FP_DIV }, { "FIDIV", MDL_CLASS_FP_DIV },
        { NULL, 0 },
    };
    int k = lookup_class(mn, exact, false);
    if (k < 0)
        k = lookup_class(mn, prefix, true);
    if (k >= 0)
        return k;
    if (starts(mn, "FLD") || starts(mn, "FILD") || starts(mn, "FBLD"))
        return mem ? MDL_CLASS_VEC_LOAD : MDL_CLASS_FP_MOV;
    if (starts(mn, "FST") || starts(mn, "FIST") || starts(mn, "FBSTP"))
        return mem ? MDL_CLASS_VEC_STORE : MDL_CLASS_FP_MOV;
    return MDL_CLASS_FP_MOV;
}

static void mem_rw(const struct rt_insn *o, bool *load, bool *store)
{
    *load = *store = false;
    for (unsigned i = 0; i < o->n_mem; i++) {
        *load |= o->mem[i].load;
        *store |= o->mem[i].store;
    }
}

/* A plain move is a load or a store when memory is on one side; anything else keeps its class. */
static uint8_t x86_mem_move_class(uint8_t k, const struct rt_insn *o, bool vec)
{
    bool load, store;
    mem_rw(o, &load, &store);
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
    char base[MN_LEN];
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
    if (k == MDL_CLASS_MOV && !starts(base, "CMOV") && strcmp(base, "XCHG") != 0)
        return x86_mem_move_class(MDL_CLASS_MOV, o, false);
    if (k >= 0)
        return (uint8_t)k;
    static const char *const alu[] = {
        "ADD", "SUB", "ADC", "SBB", "AND", "OR", "XOR", "CMP", "TEST", "NEG", "NOT", "INC", "DEC", "BT", "BTS",
        "BTR", "BTC", "ADCX", "ADOX", "ANDN", "LZCNT", "TZCNT", "BSF", "BSR", "BLSI", "BLSR", "BLSMSK", "CLC",
        "STC", "CMC", "CLD", "STD", "LAHF", "SAHF", "CMPXCHG", "XADD", "CMPXCHG8B", "CMPXCHG16B", NULL,
    };
    return in_list(base, alu) ? MDL_CLASS_INT_ALU : MDL_CLASS_GENERIC;
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
    x86_lea_key(c, o);
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
    o->opcode_at = x86_opcode_offset(ci);
    x86_facts(&c, o);
}

/* ==== AArch64 =================================================================================== */

struct a64_ctx {
    char mn[MN_LEN];
    bool load, store, excl, nodst, acc, label;
    int mem_at;                 /* operand index of the memory operand, -1 if none */
};

static bool a64_is_branch_name(const char *mn)
{
    static const char *const names[] = { "B", "BL", "BR", "BLR", "RET", "CBZ", "CBNZ", "TBZ", "TBNZ", NULL };
    return in_list(mn, names) || starts(mn, "B.");
}

static bool a64_has_simd(const struct dec *d, const cs_arm64 *a)
{
    for (unsigned i = 0; i < a->op_count; i++) {
        uint8_t rc = a->operands[i].type == ARM64_OP_REG ? rclass(d, a->operands[i].reg) : RC_NONE;
        if (rc >= RC_V && rc <= RC_B)
            return true;
    }
    return false;
}

/* Registers whose old value the instruction also reads: accumulators, inserts, bit-field inserts,
 * the upper-half narrowing forms (XTN2, SHRN2, ...). Capstone 4 gets several of these wrong. */
static bool a64_reads_dst(const char *mn)
{
    static const char *const names[] = {
        "FMLA", "FMLS", "MLA", "MLS", "SMLAL", "SMLAL2", "UMLAL", "UMLAL2", "SMLSL", "SMLSL2", "UMLSL", "UMLSL2",
        "SQDMLAL", "SQDMLAL2", "SQDMLSL", "SQDMLSL2", "SQRDMLAH", "SQRDMLSH", "SABA", "UABA", "SABAL",
        "SABAL2", "UABAL", "UABAL2", "SADALP", "UADALP", "BSL", "BIT", "BIF", "MOVK", "BFM", "BFI", "BFXIL",
        "BFC", "SLI", "SRI", "SSRA", "USRA", "SRSRA", "URSRA", "TBX", "SDOT", "UDOT", "FCMLA", "FMLAL",
        "FMLSL", "AESE", "AESD", NULL,
    };
    return in_list(mn, names) || ends(mn, "N2");
}

static bool a64_no_dst(const char *mn)
{
    static const char *const names[] = {
        "CMP", "CMN", "TST", "FCMP", "FCMPE", "CCMP", "CCMN", "FCCMP", "FCCMPE", "CBZ", "CBNZ", "TBZ", "TBNZ",
        "BR", "BLR", "RET", "B", "BL", "MSR", "PRFM", "PRFUM", "DMB", "DSB", "ISB", "NOP", "HINT", "SVC", "HVC",
        "SMC", "BRK", "HLT", "SYS", "DC", "IC", "TLBI", "AT", "CLREX", "YIELD", "WFE", "WFI", "SEV", "SEVL",
        NULL,
    };
    return in_list(mn, names) || starts(mn, "B.");
}

static void a64_context(const cs_insn *ci, struct a64_ctx *c)
{
    const cs_arm64 *a = &ci->detail->arm64;
    memset(c, 0, sizeof *c);
    formkey_mnemonic(MDL_ISA_AARCH64, ci->mnemonic, c->mn, sizeof c->mn);
    c->mem_at = -1;
    for (unsigned i = 0; i < a->op_count; i++)
        if (a->operands[i].type == ARM64_OP_MEM && c->mem_at < 0)
            c->mem_at = (int)i;
    bool literal = c->mem_at < 0 && a->op_count >= 2 && a->operands[1].type == ARM64_OP_IMM;
    bool mem_like = c->mem_at >= 0 || literal;
    static const char *const prf[] = { "PRFM", "PRFUM", NULL };
    c->load = mem_like && (starts(c->mn, "LD") || in_list(c->mn, prf));
    c->store = c->mem_at >= 0 && starts(c->mn, "ST");
    static const char *const excl[] = { "STXR", "STLXR", "STXP", "STLXP", "STXRB", "STXRH", "STLXRB",
                                        "STLXRH", NULL };
    c->excl = in_list(c->mn, excl);
    c->nodst = a64_no_dst(c->mn);
    c->acc = a64_reads_dst(c->mn);
    c->label = a64_is_branch_name(c->mn) || strcmp(c->mn, "ADR") == 0 || strcmp(c->mn, "ADRP") == 0 ||
               (c->load && literal);
}

/* ---- AArch64 operand kinds ---- */

/* Capstone 4 leaves the arrangement of some aliases unset (mov v0.16b, v1.16b), so it is read
 * from the text: the next "vN." after CURSOR. */
static bool a64_arrangement(const char *ops, size_t *cursor, unsigned vnum, enum formkey_kind *k, unsigned *elem)
{
    char want[8];
    snprintf(want, sizeof want, "v%u.", vnum);
    for (const char *p = strstr(ops + *cursor, want); p; p = strstr(p + 1, want)) {
        if (p > ops && isalnum((unsigned char)p[-1]))
            continue;
        const char *q = p + strlen(want);
        size_t len = strspn(q, "0123456789bhsdqBHSDQ");
        *cursor = (size_t)(q - ops) + len;
        const char sizes[] = "bhsdq";
        const char *e = len ? strchr(sizes, tolower((unsigned char)q[len - 1])) : NULL;
        *elem = e ? 1u << (e - sizes) : 0;
        char text[8], arr[8];
        snprintf(text, sizeof text, "%.*s", (int)len, q);
        formkey_upper_word(text, arr, sizeof arr);
        *k = len == 1 || q[len] == '[' ? FK_AARCH64_VE : sized_kind(MDL_ISA_AARCH64, FK_AARCH64_V, "V%s", arr);
        return true;
    }
    return false;
}

static enum formkey_kind a64_scalar_kind(uint8_t rc, bool shifted)
{
    switch (rc) {
    case RC_X: case RC_XZR: case RC_SP: return shifted ? FK_AARCH64_XS : FK_AARCH64_X;
    case RC_W: case RC_WZR: case RC_WSP: return shifted ? FK_AARCH64_WS : FK_AARCH64_W;
    case RC_Q: return FK_AARCH64_Q;
    case RC_D: return FK_AARCH64_D;
    case RC_S: return FK_AARCH64_S;
    case RC_H: return FK_AARCH64_H;
    case RC_B: return FK_AARCH64_B;
    default: return FK_AARCH64_R;
    }
}

static enum formkey_kind a64_reg_kind(const struct dec *d, const cs_insn *ci, const cs_arm64_op *op, size_t *cursor,
                                      unsigned *elem)
{
    uint8_t rc = rclass(d, op->reg);
    enum formkey_kind k;
    *elem = 0;
    if (rc == RC_V) {
        unsigned num = (unsigned)(canon(d, op->reg) - RT_A64_V);
        if (!a64_arrangement(ci->op_str, cursor, num, &k, elem))
            k = op->vector_index >= 0 ? FK_AARCH64_VE : FK_AARCH64_V;
        return k;
    }
    bool shifted = (op->shift.type != ARM64_SFT_INVALID && op->shift.value) || op->ext != ARM64_EXT_INVALID;
    return a64_scalar_kind(rc, shifted);
}

/* ---- AArch64 data flow ---- */

enum { RD = 1, WR = 2 };

static unsigned a64_role(const struct a64_ctx *c, unsigned i, bool element)
{
    bool before_mem = c->mem_at >= 0 ? (int)i < c->mem_at : i == 0;
    if (c->load)
        return before_mem ? (element ? RD | WR : WR) : RD;
    if (c->store)
        return c->excl && i == 0 ? WR : RD;
    if (c->nodst || i > 0)
        return RD;
    return c->acc || element ? RD | WR : WR;
}

/* Bytes of one data register of a load or store. */
static unsigned a64_reg_bytes(uint8_t rc, enum formkey_kind kind, unsigned elem)
{
    switch (rc) {
    case RC_X: case RC_XZR: case RC_SP: case RC_D: return 8;
    case RC_W: case RC_WZR: case RC_WSP: case RC_S: return 4;
    case RC_Q: return 16;
    case RC_H: return 2;
    case RC_B: return 1;
    case RC_V:
        if (kind == FK_AARCH64_VE)
            return elem;
        return kind == FK_AARCH64_V16B || kind == FK_AARCH64_V8H || kind == FK_AARCH64_V4S ||
               kind == FK_AARCH64_V2D || kind == FK_AARCH64_V1Q ? 16 : 8;
    default: return 8;
    }
}

/* The access size from the data registers, narrowed by the mnemonic's B/H/SW suffix; the
 * replicating loads (LD1R..LD4R) read one element per register. */
static unsigned a64_access_size(const struct a64_ctx *c, unsigned per, unsigned elem, unsigned nregs)
{
    const char *s = c->mn + 2;
    bool replicate = (starts(c->mn, "LD") && isdigit((unsigned char)c->mn[2]) && ends(c->mn, "R"));
    if (replicate && elem)
        per = elem;
    else if (ends(s, "SW"))
        per = 4;
    else if (ends(s, "B") && !isdigit((unsigned char)c->mn[2]))
        per = 1;
    else if (ends(s, "H") && !isdigit((unsigned char)c->mn[2]))
        per = 2;
    return per * (nregs ? nregs : 1);
}

struct a64_data {
    unsigned per, elem, nregs;  /* of the transfer registers of a load or store */
};

static void a64_reg_flow(const struct dec *d, const struct a64_ctx *c, unsigned i, const cs_arm64_op *op,
                         enum formkey_kind kind, unsigned elem, struct a64_data *data, struct rt_insn *o)
{
    uint8_t r = canon(d, op->reg);
    unsigned role = a64_role(c, i, kind == FK_AARCH64_VE);
    if (role & RD)
        add_src(o, r);
    if (role & WR)
        add_dst(o, r);
    bool transfer = (c->load || c->store) && (c->mem_at < 0 ? i == 0 : (int)i < c->mem_at) && !(c->excl && i == 0);
    if (transfer) {
        data->per = a64_reg_bytes(rclass(d, op->reg), kind, elem);
        data->elem = elem;
        data->nregs++;
    }
}

static void a64_mem_flow(const struct dec *d, const cs_insn *ci, const cs_arm64_op *op, struct rt_insn *o)
{
    uint8_t base = canon(d, op->mem.base), index = canon(d, op->mem.index);
    add_addr(o, base);
    add_addr(o, index);
    if (ci->detail->arm64.writeback)
        add_dst(o, base);       /* pre/post-indexed: the base register is updated */
    unsigned scale = index && op->shift.type == ARM64_SFT_LSL ? 1u << op->shift.value : 1;
    add_mem(o, base, index, scale, 0, op->mem.disp, false, false);
}

/* Flags and the link register, which no operand shows. */
static void a64_implicit(const cs_insn *ci, const struct a64_ctx *c, struct rt_insn *o)
{
    const cs_arm64 *a = &ci->detail->arm64;
    static const char *const carry[] = { "ADC", "ADCS", "SBC", "SBCS", "NGC", "NGCS", NULL };
    if ((a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV) || in_list(c->mn, carry))
        add_src(o, RT_A64_NZCV);
    if (a->update_flags)
        add_dst(o, RT_A64_NZCV);
    if (strcmp(c->mn, "BL") == 0 || strcmp(c->mn, "BLR") == 0)
        add_dst(o, RT_A64_X + 30);
    if (strcmp(c->mn, "RET") == 0 && a->op_count == 0)
        add_src(o, RT_A64_X + 30);
}

static void a64_operand(const struct dec *d, const cs_insn *ci, const struct a64_ctx *c, unsigned i,
                        size_t *cursor, struct a64_data *data, struct rt_insn *o, unsigned *nk)
{
    const cs_arm64 *a = &ci->detail->arm64;
    const cs_arm64_op *op = &a->operands[i];
    enum formkey_kind kind;
    unsigned elem = 0;
    bool last_imm = true;
    for (unsigned j = i + 1; j < a->op_count; j++)
        last_imm &= a->operands[j].type != ARM64_OP_IMM;
    if (op->type == ARM64_OP_REG) {
        kind = a64_reg_kind(d, ci, op, cursor, &elem);
        a64_reg_flow(d, c, i, op, kind, elem, data, o);
    } else if (op->type == ARM64_OP_MEM) {
        kind = FK_AARCH64_M;
        a64_mem_flow(d, ci, op, o);
    } else {
        kind = op->type == ARM64_OP_IMM && c->label && last_imm ? FK_AARCH64_L : FK_AARCH64_I;
    }
    key_kind(o, nk, kind);
    if (i < RT_MAX_OPS) {
        o->op_reg[i] = op->type == ARM64_OP_REG ? canon(d, op->reg) : RT_REG_NONE;
        o->n_ops = (uint8_t)(i + 1);
    }
}

static void a64_finish_mem(const cs_insn *ci, const struct a64_ctx *c, const struct a64_data *data,
                           struct rt_insn *o)
{
    const cs_arm64 *a = &ci->detail->arm64;
    if (c->mem_at < 0 && c->load) {     /* literal: a PC-relative load */
        int64_t target = a->op_count > 1 ? a->operands[a->op_count - 1].imm : 0;
        add_mem(o, RT_REG_NONE, RT_REG_NONE, 1, 0, target, false, false);
    }
    if (!o->n_mem)
        return;
    o->mem[0].size = (uint8_t)a64_access_size(c, data->per ? data->per : 8, data->elem, data->nregs);
    o->mem[0].load = c->load;
    o->mem[0].store = c->store;
}

static uint8_t a64_branch(const char *mn)
{
    if (strcmp(mn, "B") == 0)
        return RT_BR_DIRECT;
    if (strcmp(mn, "BR") == 0)
        return RT_BR_INDIRECT;
    if (strcmp(mn, "BL") == 0 || strcmp(mn, "BLR") == 0)
        return RT_BR_CALL;
    if (strcmp(mn, "RET") == 0)
        return RT_BR_RET;
    static const char *const cond[] = { "CBZ", "CBNZ", "TBZ", "TBNZ", NULL };
    return starts(mn, "B.") || in_list(mn, cond) ? RT_BR_COND : RT_BR_NONE;
}

/* ---- AArch64 classes ---- */

static int a64_fp_class(const char *mn)
{
    static const struct name_class exact[] = {
        { "FMLA", MDL_CLASS_FP_FMA }, { "FMLS", MDL_CLASS_FP_FMA }, { "FMADD", MDL_CLASS_FP_FMA },
        { "FMSUB", MDL_CLASS_FP_FMA }, { "FNMADD", MDL_CLASS_FP_FMA }, { "FNMSUB", MDL_CLASS_FP_FMA },
        { "FDIV", MDL_CLASS_FP_DIV }, { "FSQRT", MDL_CLASS_FP_SQRT }, { "FMUL", MDL_CLASS_FP_MUL },
        { "FNMUL", MDL_CLASS_FP_MUL }, { "FMULX", MDL_CLASS_FP_MUL }, { "SCVTF", MDL_CLASS_FP_CVT },
        { "UCVTF", MDL_CLASS_FP_CVT }, { "FMOV", MDL_CLASS_FP_MOV }, { "FCSEL", MDL_CLASS_FP_MOV },
        { NULL, 0 },
    };
    static const struct name_class prefix[] = {
        { "FCVT", MDL_CLASS_FP_CVT }, { "FRINT", MDL_CLASS_FP_CVT }, { "FJCVT", MDL_CLASS_FP_CVT },
        { "FRECP", MDL_CLASS_FP_MUL }, { "FRSQRT", MDL_CLASS_FP_MUL }, { "F", MDL_CLASS_FP_ADD },
        { NULL, 0 },
    };
    int k = lookup_class(mn, exact, false);
    return k >= 0 ? k : lookup_class(mn, prefix, true);
}

static uint8_t a64_simd_class(const char *mn, bool element)
{
    static const char *const mul[] = {
        "MUL", "MLA", "MLS", "PMUL", "SQDMULH", "SQRDMULH", "SMULL", "SMULL2", "UMULL", "UMULL2", "SQDMULL",
        "SQDMULL2", "SMLAL", "SMLAL2", "UMLAL", "UMLAL2", "SMLSL", "SMLSL2", "UMLSL", "UMLSL2", "SQDMLAL",
        "SQDMLAL2", "SQDMLSL", "SQDMLSL2", "SDOT", "UDOT", NULL,
    };
    static const char *const shift[] = {
        "SHL", "SSHR", "USHR", "SSRA", "USRA", "SRSHR", "URSHR", "SRSRA", "URSRA", "SQSHL", "UQSHL", "SQSHLU",
        "SSHL", "USHL", "SRSHL", "URSHL", "SQRSHL", "UQRSHL", "SSHLL", "SSHLL2", "USHLL", "USHLL2", "SHLL",
        "SHLL2", "SXTL", "SXTL2", "UXTL", "UXTL2", "SLI", "SRI", NULL,
    };
    static const char *const shuffle[] = {
        "DUP", "INS", "UMOV", "SMOV", "TBL", "TBX", "ZIP1", "ZIP2", "UZP1", "UZP2", "TRN1", "TRN2", "EXT",
        "XTN", "XTN2", "SQXTN", "SQXTN2", "UQXTN", "UQXTN2", "SQXTUN", "SQXTUN2", "REV16", "REV32", "REV64",
        NULL,
    };
    static const char *const moves[] = { "MOV", "MOVI", "MVNI", NULL };
    if (in_list(mn, mul))
        return MDL_CLASS_VEC_MUL;
    if (in_list(mn, shift) || (strstr(mn, "SHRN") && mn[0] != 'F'))
        return MDL_CLASS_VEC_SHIFT;
    if (in_list(mn, shuffle) || (strcmp(mn, "MOV") == 0 && element))
        return MDL_CLASS_VEC_SHUFFLE;
    if (in_list(mn, moves))
        return MDL_CLASS_FP_MOV;
    return MDL_CLASS_VEC_ALU;
}

static uint8_t a64_int_class(const char *mn)
{
    static const struct name_class exact[] = {
        { "MUL", MDL_CLASS_INT_MUL }, { "MADD", MDL_CLASS_INT_MUL }, { "MSUB", MDL_CLASS_INT_MUL },
        { "MNEG", MDL_CLASS_INT_MUL }, { "SMULL", MDL_CLASS_INT_MUL }, { "UMULL", MDL_CLASS_INT_MUL },
        { "SMADDL", MDL_CLASS_INT_MUL }, { "UMADDL", MDL_CLASS_INT_MUL }, { "SMSUBL", MDL_CLASS_INT_MUL },
        { "UMSUBL", MDL_CLASS_INT_MUL }, { "SMNEGL", MDL_CLASS_INT_MUL }, { "UMNEGL", MDL_CLASS_INT_MUL },
        { "SMULH", MDL_CLASS_INT_MUL }, { "UMULH", MDL_CLASS_INT_MUL }, { "SDIV", MDL_CLASS_INT_DIV },
        { "UDIV", MDL_CLASS_INT_DIV }, { "LSL", MDL_CLASS_SHIFT }, { "LSR", MDL_CLASS_SHIFT },
        { "ASR", MDL_CLASS_SHIFT }, { "ROR", MDL_CLASS_SHIFT }, { "LSLV", MDL_CLASS_SHIFT },
        { "LSRV", MDL_CLASS_SHIFT }, { "ASRV", MDL_CLASS_SHIFT }, { "RORV", MDL_CLASS_SHIFT },
        { "EXTR", MDL_CLASS_SHIFT }, { "BFM", MDL_CLASS_SHIFT }, { "BFI", MDL_CLASS_SHIFT },
        { "BFXIL", MDL_CLASS_SHIFT }, { "BFC", MDL_CLASS_SHIFT }, { "SBFM", MDL_CLASS_SHIFT },
        { "UBFM", MDL_CLASS_SHIFT }, { "SBFX", MDL_CLASS_SHIFT }, { "UBFX", MDL_CLASS_SHIFT },
        { "SBFIZ", MDL_CLASS_SHIFT }, { "UBFIZ", MDL_CLASS_SHIFT }, { "MOV", MDL_CLASS_MOV },
        { "MOVZ", MDL_CLASS_MOV }, { "MOVN", MDL_CLASS_MOV }, { "MOVK", MDL_CLASS_MOV },
        { "SXTB", MDL_CLASS_MOV }, { "SXTH", MDL_CLASS_MOV }, { "SXTW", MDL_CLASS_MOV },
        { "UXTB", MDL_CLASS_MOV }, { "UXTH", MDL_CLASS_MOV }, { "CSEL", MDL_CLASS_MOV },
        { "CSINC", MDL_CLASS_MOV }, { "CSINV", MDL_CLASS_MOV }, { "CSNEG", MDL_CLASS_MOV },
        { "CSET", MDL_CLASS_MOV }, { "CSETM", MDL_CLASS_MOV }, { "CINC", MDL_CLASS_MOV },
        { "CINV", MDL_CLASS_MOV }, { "CNEG", MDL_CLASS_MOV }, { "ADR", MDL_CLASS_LEA },
        { "ADRP", MDL_CLASS_LEA }, { NULL, 0 },
    };
    int k = lookup_class(mn, exact, false);
    return k >= 0 ? (uint8_t)k : MDL_CLASS_INT_ALU;
}

static uint8_t a64_class(const struct dec *d, const cs_insn *ci, const struct a64_ctx *c, const struct rt_insn *o)
{
    static const uint8_t branch_cls[] = { [RT_BR_COND] = MDL_CLASS_BRANCH_COND, [RT_BR_DIRECT] = MDL_CLASS_BRANCH,
                                          [RT_BR_INDIRECT] = MDL_CLASS_BRANCH_INDIRECT,
                                          [RT_BR_CALL] = MDL_CLASS_CALL, [RT_BR_RET] = MDL_CLASS_RET };
    static const char *const system[] = { "DMB", "DSB", "ISB", "MRS", "MSR", "SVC", "HVC", "SMC", "BRK", "HLT",
                                          "SYS", "SYSL", "DC", "IC", "TLBI", "AT", "CLREX", "WFI", "WFE", "SEV",
                                          "SEVL", NULL };
    static const char *const atomics[] = { "LDADD", "LDCLR", "LDEOR", "LDSET", "LDSMAX", "LDSMIN", "LDUMAX",
                                           "LDUMIN", "STADD", "STCLR", "STEOR", "STSET", "STSMAX", "STSMIN",
                                           "STUMAX", "STUMIN", "SWP", "CAS", NULL };
    static const char *const hints[] = { "NOP", "HINT", "YIELD", NULL };
    static const char *const crypto[] = { "AES", "SHA", "PMULL", "CRC32", NULL };
    bool simd = a64_has_simd(d, &ci->detail->arm64);
    if (o->branch != RT_BR_NONE)
        return branch_cls[o->branch];
    if (any_prefix(c->mn, atomics) || in_list(c->mn, system))
        return MDL_CLASS_SYSTEM;
    if (c->load && !simd)
        return MDL_CLASS_LOAD;
    if (c->load || c->store)
        return simd ? (c->load ? MDL_CLASS_VEC_LOAD : MDL_CLASS_VEC_STORE) : MDL_CLASS_STORE;
    if (in_list(c->mn, hints))
        return MDL_CLASS_NOP;
    if (any_prefix(c->mn, crypto))
        return MDL_CLASS_CRYPTO;
    int k = c->mn[0] == 'F' || strcmp(c->mn, "SCVTF") == 0 || strcmp(c->mn, "UCVTF") == 0 ? a64_fp_class(c->mn) : -1;
    if (k >= 0)
        return (uint8_t)k;
    if (simd)
        return a64_simd_class(c->mn, strstr(o->key, formkey_kind_name(FK_AARCH64_VE)) != NULL);
    return a64_int_class(c->mn);
}

/* No stack engine: `ret` reads x30 and moves nothing, a writeback on sp is an ordinary write of
 * register sp. Every conditional branch is also spelt B.cond, as cortex-a72.mdl names them. */
static void a64_facts(const struct a64_ctx *c, struct rt_insn *o)
{
    o->stack = 0;
    o->stack_reg = RT_REG_NONE;
    o->flags_reg = RT_A64_NZCV;
    o->merge = RT_REG_NONE;
    if (starts(c->mn, "B."))
        snprintf(o->alt_key, sizeof o->alt_key, "B.cond%s", o->key + strlen(c->mn));
}

static void a64_fill(const struct dec *d, const cs_insn *ci, struct rt_insn *o)
{
    const cs_arm64 *a = &ci->detail->arm64;
    struct a64_ctx c;
    struct a64_data data = { 0 };
    size_t cursor = 0;
    unsigned nk = 0;
    a64_context(ci, &c);
    snprintf(o->key, sizeof o->key, "%s", c.mn);
    for (unsigned i = 0; i < a->op_count; i++)
        a64_operand(d, ci, &c, i, &cursor, &data, o, &nk);
    key_end(o, nk);
    a64_finish_mem(ci, &c, &data, o);
    a64_implicit(ci, &c, o);
    o->branch = a64_branch(c.mn);
    o->cls = a64_class(d, ci, &c, o);
    a64_facts(&c, o);
}

/* ==== entry points ============================================================================== */

struct dec *dec_open(enum mdl_isa isa, char *err, size_t errlen)
{
    struct dec *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->isa = isa;
    cs_arch arch = isa == MDL_ISA_X86_64 ? CS_ARCH_X86 : CS_ARCH_ARM64;
    cs_mode mode = isa == MDL_ISA_X86_64 ? CS_MODE_64 : CS_MODE_ARM;
    cs_err e = cs_open(arch, mode, &d->cs);
    if (e != CS_ERR_OK) {
        snprintf(err, errlen, "cannot open the Capstone disassembler: %s", cs_strerror(e));
        free(d);
        return NULL;
    }
    cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
    d->ci = cs_malloc(d->cs);
    if (!d->ci) {
        snprintf(err, errlen, "out of memory");
        cs_close(&d->cs);
        free(d);
        return NULL;
    }
    build_reg_tables(d);
    /* Capstone 4 sorts its table of x86 forms that embed the accumulator at the first such
     * decode, with no lock: done here, by whoever opens a decoder first, before any thread of a
     * batch or plugin decodes (`test al, 1`). */
    if (isa == MDL_ISA_X86_64) {
        static const uint8_t acc[] = { 0xa8, 0x01 };
        const uint8_t *code = acc;
        size_t size = sizeof acc;
        uint64_t addr = 0;
        cs_disasm_iter(d->cs, &code, &size, &addr, d->ci);
    }
    return d;
}

void dec_close(struct dec *d)
{
    if (!d)
        return;
    cs_free(d->ci, 1);
    cs_close(&d->cs);
    free(d);
}

static void hex_error(const uint8_t *bytes, size_t len, uint64_t pc, char *err, size_t errlen)
{
    char hex[64] = "";
    size_t n = 0, shown = len < 15 ? len : 15;
    for (size_t i = 0; i < shown && n + 4 < sizeof hex; i++)
        n += (size_t)snprintf(hex + n, sizeof hex - n, "%s%02x", i ? " " : "", bytes[i]);
    if (!len)
        snprintf(err, errlen, "no bytes to decode at 0x%llx", (unsigned long long)pc);
    else
        snprintf(err, errlen, "cannot decode bytes %s%s at 0x%llx", hex, len > shown ? " ..." : "",
                 (unsigned long long)pc);
}

int dec_one(struct dec *d, const uint8_t *bytes, size_t len, uint64_t pc, struct rt_insn *out, char *err,
            size_t errlen)
{
    const uint8_t *p = bytes;
    size_t left = len;
    uint64_t addr = pc;
    memset(out, 0, sizeof *out);
    if (!len || !cs_disasm_iter(d->cs, &p, &left, &addr, d->ci)) {
        hex_error(bytes, len, pc, err, errlen);
        return 0;
    }
    const cs_insn *ci = d->ci;
    out->pc = pc;
    out->len = (uint8_t)ci->size;
    memcpy(out->bytes, bytes, ci->size < sizeof out->bytes ? ci->size : sizeof out->bytes);
    append_trunc(out->disasm, sizeof out->disasm, ci->mnemonic);
    if (ci->op_str[0]) {
        append_trunc(out->disasm, sizeof out->disasm, " ");
        append_trunc(out->disasm, sizeof out->disasm, ci->op_str);
    }
    if (d->isa == MDL_ISA_X86_64)
        x86_fill(d, ci, out);
    else
        a64_fill(d, ci, out);
    return (int)ci->size;
}

uint64_t dec_last_target(const struct dec *d, const struct rt_insn *in)
{
    if (in->branch != RT_BR_COND && in->branch != RT_BR_DIRECT)
        return 0;
    if (d->isa == MDL_ISA_X86_64) {
        const cs_x86 *x = &d->ci->detail->x86;
        return x->op_count && x->operands[0].type == X86_OP_IMM ? (uint64_t)x->operands[0].imm : 0;
    }
    const cs_arm64 *a = &d->ci->detail->arm64;   /* b, b.cond, cbz, tbz: the label is the last operand */
    return a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM ? (uint64_t)a->operands[a->op_count - 1].imm
                                                                              : 0;
}
