/* AArch64 for the decoder: its registers, cortex-a72.mdl's form keys, no stack engine (sp is an
 * ordinary register), and what runs AArch64 code on an x86-64 host (QEMU, the cross binutils). */
#include <capstone/capstone.h>
#include <ctype.h>
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode_impl.h"
#include "formkey.h"
#include "isa.h"

static void a64_reg_info(const char *name, uint8_t *canon, uint8_t *rc)
{
    unsigned n;
    *canon = RT_REG_NONE;
    *rc = DEC_RC_NONE;
    static const struct { const char *p; uint8_t rc; } vec[] = {
        { "v", DEC_RC_V }, { "q", DEC_RC_Q }, { "d", DEC_RC_D }, { "s", DEC_RC_S }, { "h", DEC_RC_H }, { "b", DEC_RC_B },
    };
    if (dec_reg_num(name, "x", 30, &n) || dec_reg_num(name, "w", 30, &n)) {
        *canon = (uint8_t)(RT_A64_X + n);
        *rc = name[0] == 'x' ? DEC_RC_X : DEC_RC_W;
        return;
    }
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        if (dec_reg_num(name, vec[i].p, 31, &n)) {
            *canon = (uint8_t)(RT_A64_V + n);
            *rc = vec[i].rc;
            return;
        }
    if (strcmp(name, "fp") == 0 || strcmp(name, "lr") == 0)
        *canon = (uint8_t)(RT_A64_X + (name[0] == 'f' ? 29 : 30)), *rc = DEC_RC_X;
    else if (strcmp(name, "sp") == 0 || strcmp(name, "wsp") == 0)
        *canon = RT_A64_SP, *rc = name[0] == 's' ? DEC_RC_SP : DEC_RC_WSP;
    else if (strcmp(name, "xzr") == 0 || strcmp(name, "wzr") == 0)
        *rc = name[0] == 'x' ? DEC_RC_XZR : DEC_RC_WZR;     /* reads as zero: never a dependency */
    else if (strcmp(name, "nzcv") == 0)
        *canon = RT_A64_NZCV, *rc = DEC_RC_FLAGS;
    else if (strcmp(name, "fpsr") == 0)
        *canon = RT_A64_FPSR, *rc = DEC_RC_SYS;
}

struct a64_ctx {
    char mn[DEC_MN_LEN];
    bool load, store, excl, nodst, acc, label;
    int mem_at;                 /* operand index of the memory operand, -1 if none */
};

static bool a64_is_branch_name(const char *mn)
{
    static const char *const names[] = { "B", "BL", "BR", "BLR", "RET", "CBZ", "CBNZ", "TBZ", "TBNZ", NULL };
    return dec_in_list(mn, names) || dec_starts(mn, "B.");
}

static bool a64_has_simd(const struct dec *d, const cs_arm64 *a)
{
    for (unsigned i = 0; i < a->op_count; i++) {
        uint8_t rc = a->operands[i].type == ARM64_OP_REG ? dec_rclass(d, a->operands[i].reg) : DEC_RC_NONE;
        if (rc >= DEC_RC_V && rc <= DEC_RC_B)
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
    return dec_in_list(mn, names) || dec_ends(mn, "N2");
}

static bool a64_no_dst(const char *mn)
{
    static const char *const names[] = {
        "CMP", "CMN", "TST", "FCMP", "FCMPE", "CCMP", "CCMN", "FCCMP", "FCCMPE", "CBZ", "CBNZ", "TBZ", "TBNZ",
        "BR", "BLR", "RET", "B", "BL", "MSR", "PRFM", "PRFUM", "DMB", "DSB", "ISB", "NOP", "HINT", "SVC", "HVC",
        "SMC", "BRK", "HLT", "SYS", "DC", "IC", "TLBI", "AT", "CLREX", "YIELD", "WFE", "WFI", "SEV", "SEVL",
        NULL,
    };
    return dec_in_list(mn, names) || dec_starts(mn, "B.");
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
    c->load = mem_like && (dec_starts(c->mn, "LD") || dec_in_list(c->mn, prf));
    c->store = c->mem_at >= 0 && dec_starts(c->mn, "ST");
    static const char *const excl[] = { "STXR", "STLXR", "STXP", "STLXP", "STXRB", "STXRH", "STLXRB",
                                        "STLXRH", NULL };
    c->excl = dec_in_list(c->mn, excl);
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
        *k = len == 1 || q[len] == '[' ? FK_AARCH64_VE : dec_sized_kind(MDL_ISA_AARCH64, FK_AARCH64_V, "V%s", arr);
        return true;
    }
    return false;
}

static enum formkey_kind a64_scalar_kind(uint8_t rc, bool shifted)
{
    switch (rc) {
    case DEC_RC_X: case DEC_RC_XZR: case DEC_RC_SP: return shifted ? FK_AARCH64_XS : FK_AARCH64_X;
    case DEC_RC_W: case DEC_RC_WZR: case DEC_RC_WSP: return shifted ? FK_AARCH64_WS : FK_AARCH64_W;
    case DEC_RC_Q: return FK_AARCH64_Q;
    case DEC_RC_D: return FK_AARCH64_D;
    case DEC_RC_S: return FK_AARCH64_S;
    case DEC_RC_H: return FK_AARCH64_H;
    case DEC_RC_B: return FK_AARCH64_B;
    default: return FK_AARCH64_R;
    }
}

static enum formkey_kind a64_reg_kind(const struct dec *d, const cs_insn *ci, const cs_arm64_op *op, size_t *cursor,
                                      unsigned *elem)
{
    uint8_t rc = dec_rclass(d, op->reg);
    enum formkey_kind k;
    *elem = 0;
    if (rc == DEC_RC_V) {
        unsigned num = (unsigned)(dec_canon(d, op->reg) - RT_A64_V);
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
    case DEC_RC_X: case DEC_RC_XZR: case DEC_RC_SP: case DEC_RC_D: return 8;
    case DEC_RC_W: case DEC_RC_WZR: case DEC_RC_WSP: case DEC_RC_S: return 4;
    case DEC_RC_Q: return 16;
    case DEC_RC_H: return 2;
    case DEC_RC_B: return 1;
    case DEC_RC_V:
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
    bool replicate = (dec_starts(c->mn, "LD") && isdigit((unsigned char)c->mn[2]) && dec_ends(c->mn, "R"));
    if (replicate && elem)
        per = elem;
    else if (dec_ends(s, "SW"))
        per = 4;
    else if (dec_ends(s, "B") && !isdigit((unsigned char)c->mn[2]))
        per = 1;
    else if (dec_ends(s, "H") && !isdigit((unsigned char)c->mn[2]))
        per = 2;
    return per * (nregs ? nregs : 1);
}

struct a64_data {
    unsigned per, elem, nregs;  /* of the transfer registers of a load or store */
};

static void a64_reg_flow(const struct dec *d, const struct a64_ctx *c, unsigned i, const cs_arm64_op *op,
                         enum formkey_kind kind, unsigned elem, struct a64_data *data, struct rt_insn *o)
{
    uint8_t r = dec_canon(d, op->reg);
    unsigned role = a64_role(c, i, kind == FK_AARCH64_VE);
    if (role & RD)
        dec_add_src(o, r);
    if (role & WR)
        dec_add_dst(o, r);
    bool transfer = (c->load || c->store) && (c->mem_at < 0 ? i == 0 : (int)i < c->mem_at) && !(c->excl && i == 0);
    if (transfer) {
        data->per = a64_reg_bytes(dec_rclass(d, op->reg), kind, elem);
        data->elem = elem;
        data->nregs++;
    }
}

static void a64_mem_flow(const struct dec *d, const cs_insn *ci, const cs_arm64_op *op, struct rt_insn *o)
{
    uint8_t base = dec_canon(d, op->mem.base), index = dec_canon(d, op->mem.index);
    dec_add_addr(o, base);
    dec_add_addr(o, index);
    if (ci->detail->arm64.writeback)
        dec_add_dst(o, base);       /* pre/post-indexed: the base register is updated */
    unsigned scale = index && op->shift.type == ARM64_SFT_LSL ? 1u << op->shift.value : 1;
    dec_add_mem(o, base, index, scale, 0, op->mem.disp, false, false);
}

/* Flags and the link register, which no operand shows. */
static void a64_implicit(const cs_insn *ci, const struct a64_ctx *c, struct rt_insn *o)
{
    const cs_arm64 *a = &ci->detail->arm64;
    static const char *const carry[] = { "ADC", "ADCS", "SBC", "SBCS", "NGC", "NGCS", NULL };
    if ((a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV) || dec_in_list(c->mn, carry))
        dec_add_src(o, RT_A64_NZCV);
    if (a->update_flags)
        dec_add_dst(o, RT_A64_NZCV);
    if (strcmp(c->mn, "BL") == 0 || strcmp(c->mn, "BLR") == 0)
        dec_add_dst(o, RT_A64_X + 30);
    if (strcmp(c->mn, "RET") == 0 && a->op_count == 0)
        dec_add_src(o, RT_A64_X + 30);
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
    dec_key_kind(o, nk, kind);
    if (i < RT_MAX_OPS) {
        o->op_reg[i] = op->type == ARM64_OP_REG ? dec_canon(d, op->reg) : RT_REG_NONE;
        o->n_ops = (uint8_t)(i + 1);
    }
}

static void a64_finish_mem(const cs_insn *ci, const struct a64_ctx *c, const struct a64_data *data,
                           struct rt_insn *o)
{
    const cs_arm64 *a = &ci->detail->arm64;
    if (c->mem_at < 0 && c->load) {     /* literal: a PC-relative load */
        int64_t target = a->op_count > 1 ? a->operands[a->op_count - 1].imm : 0;
        dec_add_mem(o, RT_REG_NONE, RT_REG_NONE, 1, 0, target, false, false);
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
    return dec_starts(mn, "B.") || dec_in_list(mn, cond) ? RT_BR_COND : RT_BR_NONE;
}

/* ---- AArch64 classes ---- */

static int a64_fp_class(const char *mn)
{
    static const struct dec_name_class exact[] = {
        { "FMLA", MDL_CLASS_FP_FMA }, { "FMLS", MDL_CLASS_FP_FMA }, { "FMADD", MDL_CLASS_FP_FMA },
        { "FMSUB", MDL_CLASS_FP_FMA }, { "FNMADD", MDL_CLASS_FP_FMA }, { "FNMSUB", MDL_CLASS_FP_FMA },
        { "FDIV", MDL_CLASS_FP_DIV }, { "FSQRT", MDL_CLASS_FP_SQRT }, { "FMUL", MDL_CLASS_FP_MUL },
        { "FNMUL", MDL_CLASS_FP_MUL }, { "FMULX", MDL_CLASS_FP_MUL }, { "SCVTF", MDL_CLASS_FP_CVT },
        { "UCVTF", MDL_CLASS_FP_CVT }, { "FMOV", MDL_CLASS_FP_MOV }, { "FCSEL", MDL_CLASS_FP_MOV },
        { NULL, 0 },
    };
    static const struct dec_name_class prefix[] = {
        { "FCVT", MDL_CLASS_FP_CVT }, { "FRINT", MDL_CLASS_FP_CVT }, { "FJCVT", MDL_CLASS_FP_CVT },
        { "FRECP", MDL_CLASS_FP_MUL }, { "FRSQRT", MDL_CLASS_FP_MUL }, { "F", MDL_CLASS_FP_ADD },
        { NULL, 0 },
    };
    return dec_lookup_exact_prefix(mn, exact, prefix);
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
    if (dec_in_list(mn, mul))
        return MDL_CLASS_VEC_MUL;
    if (dec_in_list(mn, shift) || (strstr(mn, "SHRN") && mn[0] != 'F'))
        return MDL_CLASS_VEC_SHIFT;
    if (dec_in_list(mn, shuffle) || (strcmp(mn, "MOV") == 0 && element))
        return MDL_CLASS_VEC_SHUFFLE;
    if (dec_in_list(mn, moves))
        return MDL_CLASS_FP_MOV;
    return MDL_CLASS_VEC_ALU;
}

static uint8_t a64_int_class(const char *mn)
{
    static const struct dec_name_class exact[] = {
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
    int k = dec_lookup_class(mn, exact, false);
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
    if (dec_any_prefix(c->mn, atomics) || dec_in_list(c->mn, system))
        return MDL_CLASS_SYSTEM;
    if (c->load && !simd)
        return MDL_CLASS_LOAD;
    if (c->load || c->store)
        return simd ? (c->load ? MDL_CLASS_VEC_LOAD : MDL_CLASS_VEC_STORE) : MDL_CLASS_STORE;
    if (dec_in_list(c->mn, hints))
        return MDL_CLASS_NOP;
    if (dec_any_prefix(c->mn, crypto))
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
static void a64_facts(const cs_insn *ci, const struct a64_ctx *c, struct rt_insn *o)
{
    const cs_arm64 *a = &ci->detail->arm64;
    bool label = false;         /* br, blr and ret name none */
    for (unsigned i = 0; c->label && i < a->op_count; i++)
        label |= a->operands[i].type == ARM64_OP_IMM;
    o->stack = 0;
    o->stack_reg = RT_REG_NONE;
    o->flags_reg = RT_A64_NZCV;
    o->merge = RT_REG_NONE;
    o->pc_relative = label;
    if (dec_starts(c->mn, "B."))
        snprintf(o->alt_key, sizeof o->alt_key, "%s%s", formkey_cond_family(MDL_ISA_AARCH64), o->key + strlen(c->mn));
}

/* DC ZVA zeroes the block of DCZID_EL0 bytes that holds the address in its register: 64 bytes on
 * the Cortex cores described here (the A72 TRM's DCZID_EL0.BS = 4 words log2, and QEMU's
 * cortex-a72 model). It is a store of that block, not a barrier: memset takes it for large zero
 * fills. */
enum { A64_ZVA_BYTES = 64 };

static bool a64_zva(const cs_arm64 *a, const struct a64_ctx *c)
{
    return strcmp(c->mn, "DC") == 0 && a->op_count == 2 && a->operands[0].type == ARM64_OP_SYS &&
           a->operands[0].sys == ARM64_DC_ZVA && a->operands[1].type == ARM64_OP_REG;
}

/* The register of DC ZVA is its address: a store of a whole block there. */
static void a64_zva_store(const struct dec *d, const cs_arm64 *a, struct rt_insn *o)
{
    uint8_t base = dec_canon(d, a->operands[1].reg);
    o->n_src = 0;
    dec_add_addr(o, base);
    dec_add_mem(o, base, RT_REG_NONE, 1, A64_ZVA_BYTES, 0, false, true);
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
    dec_key_end(o, nk);
    a64_finish_mem(ci, &c, &data, o);
    a64_implicit(ci, &c, o);
    o->branch = a64_branch(c.mn);
    o->cls = a64_class(d, ci, &c, o);
    if (a64_zva(a, &c)) {
        a64_zva_store(d, a, o);
        o->cls = MDL_CLASS_STORE;
    }
    a64_facts(ci, &c, o);
}

/* The destination of b, b.cond, cbz or tbz: the label is the last operand. */
static uint64_t a64_direct_target(const cs_insn *ci)
{
    const cs_arm64 *a = &ci->detail->arm64;
    return a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM ? (uint64_t)a->operands[a->op_count - 1].imm
                                                                              : 0;
}

/* Block mode's cache of decodes by bytes is x86's: AArch64 blocks decode a word at a time. */
const struct isa_ops aarch64_ops = {
    .warm_up = NULL, .warm_up_len = 0,
    .cache_decodes = false,
    .elf_machine = EM_AARCH64,
    .sysroot = "/usr/aarch64-linux-gnu",
    .as = "aarch64-linux-gnu-as", .objcopy = "aarch64-linux-gnu-objcopy", .objdump = "aarch64-linux-gnu-objdump",
    .reg_info = a64_reg_info, .fill = a64_fill, .direct_target = a64_direct_target,
};
