/* The forms mdlprobe times, after X-Ray's instruction benchmarks: latency from a dependent chain,
 * inverse throughput from instances spread over every stream register. Keys as spec.md 10.1. */
#include "forms.h"
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

enum { CHAIN_UNROLL = 128, TP_UNROLL = 132 };   /* 132 = 11 x 12: the 11 general streams share it evenly */

enum reg_file { GPR, XMM };
enum feature { F_NONE, F_SSE41, F_SSE42, F_POPCNT, F_FMA, F_AVX, F_AVX2 };

typedef void emit_fn(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src);

struct forms_entry {
    const char *key, *asm_text;
    struct x86_op op;
    emit_fn *emit;
    enum reg_file file;
    bool chain_self;            /* the chain reads only its own result (sqrtsd x0, x0; mov rax, [rax]) */
    bool tp_from_state;         /* independent instances read [rsi] (loads) */
    bool doubles;               /* the xmm registers start as doubles (else floats) */
    enum feature need;
};

/* ---- encodings --------------------------------------------------------------------------------- */

static void dst_in_rm(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_rr(c, op, src, dst);
}

static void dst_in_reg(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_rr(c, op, dst, src);
}

static void shift_by_1(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    (void)src;
    x86_rr(c, op, 0, dst);
    x86_u8(c, 1);
}

/* lea dst, [src + dst]: the chained register is the index, so a base of rbp or r13 (which would
 * need a displacement and change the form) never occurs. */
static void lea_base_index(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_rm(c, op, dst, src, (int)dst, 1, 0);
}

static void lea_base_scaled_d8(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_rm(c, op, dst, src, (int)dst, 4, 8);
}

static void load(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_rm(c, op, dst, src, -1, 1, 0);
}

static void vex_dst_dst_src(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_vrrr(c, op, dst, dst, src);
}

static void vex_dst_src_src(struct x86_code *c, const struct x86_op *op, unsigned dst, unsigned src)
{
    x86_vrrr(c, op, dst, src, src);
}

#define OP(...) { __VA_ARGS__ }
#define LEGACY(pfx, w_, n, ...) OP(.prefix = pfx, .w = w_, .opcode = { __VA_ARGS__ }, .nopcode = n, .ext = -1)
#define VEX(pfx, map, l, w_, opc) OP(.prefix = pfx, .w = w_, .opcode = { opc }, .nopcode = 1, .ext = -1, \
                                     .vex = true, .vex_l = l, .vex_map = map)

static const struct forms_entry table[] = {
    { "ADD_01 (R64, R64)", "add rax, rcx", LEGACY(0, true, 1, 0x01), dst_in_rm, GPR, false, false, false, F_NONE },
    { "IMUL (R64, R64)", "imul rax, rcx", LEGACY(0, true, 2, 0x0F, 0xAF), dst_in_reg, GPR, false, false, false, F_NONE },
    { "SHL (R64, I8)", "shl rax, 1", OP(.w = true, .opcode = { 0xC1 }, .nopcode = 1, .ext = 4), shift_by_1, GPR,
      false, false, false, F_NONE },
    { "LEA_B_I (R64)", "lea rax, [rcx+rax]", LEGACY(0, true, 1, 0x8D), lea_base_index, GPR, false, false, false,
      F_NONE },
    { "LEA_B_IS_D8 (R64)", "lea rax, [rcx+rax*4+8]", LEGACY(0, true, 1, 0x8D), lea_base_scaled_d8, GPR, false, false,
      false, F_NONE },
    { "MOV (R64, M64)", "mov rax, [rax]", LEGACY(0, true, 1, 0x8B), load, GPR, true, true, false, F_NONE },
    { "POPCNT (R64, R64)", "popcnt rax, rax", LEGACY(0xF3, true, 2, 0x0F, 0xB8), dst_in_reg, GPR, true, false, false,
      F_POPCNT },
    { "CRC32 (R64, R64)", "crc32 rax, rcx", LEGACY(0xF2, true, 3, 0x0F, 0x38, 0xF1), dst_in_reg, GPR, false, false,
      false, F_SSE42 },
    { "ADDPS (XMM, XMM)", "addps xmm0, xmm15", LEGACY(0, false, 2, 0x0F, 0x58), dst_in_reg, XMM, false, false, false,
      F_NONE },
    { "MULPS (XMM, XMM)", "mulps xmm0, xmm15", LEGACY(0, false, 2, 0x0F, 0x59), dst_in_reg, XMM, false, false, false,
      F_NONE },
    { "ADDSD (XMM, XMM)", "addsd xmm0, xmm15", LEGACY(0xF2, false, 2, 0x0F, 0x58), dst_in_reg, XMM, false, false,
      true, F_NONE },
    { "MULSD (XMM, XMM)", "mulsd xmm0, xmm15", LEGACY(0xF2, false, 2, 0x0F, 0x59), dst_in_reg, XMM, false, false,
      true, F_NONE },
    { "DIVSD (XMM, XMM)", "divsd xmm0, xmm15", LEGACY(0xF2, false, 2, 0x0F, 0x5E), dst_in_reg, XMM, false, false,
      true, F_NONE },
    { "SQRTSD (XMM, XMM)", "sqrtsd xmm0, xmm0", LEGACY(0xF2, false, 2, 0x0F, 0x51), dst_in_reg, XMM, true, false,
      true, F_NONE },
    { "PADDD (XMM, XMM)", "paddd xmm0, xmm15", LEGACY(0x66, false, 2, 0x0F, 0xFE), dst_in_reg, XMM, false, false,
      false, F_NONE },
    { "PMULLD (XMM, XMM)", "pmulld xmm0, xmm15", LEGACY(0x66, false, 3, 0x0F, 0x38, 0x40), dst_in_reg, XMM, false,
      false, false, F_SSE41 },
    { "VADDPD (YMM, YMM, YMM)", "vaddpd ymm0, ymm0, ymm15", VEX(0x66, 1, true, false, 0x58), vex_dst_dst_src, XMM,
      false, false, true, F_AVX },
    { "VPADDD (YMM, YMM, YMM)", "vpaddd ymm0, ymm0, ymm15", VEX(0x66, 1, true, false, 0xFE), vex_dst_dst_src, XMM,
      false, false, false, F_AVX2 },
    { "VFMADD231PD (XMM, XMM, XMM)", "vfmadd231pd xmm0, xmm15, xmm15", VEX(0x66, 2, false, true, 0xB8),
      vex_dst_src_src, XMM, false, false, true, F_FMA },
};

size_t forms_count(void) { return sizeof table / sizeof table[0]; }
const struct forms_entry *forms_get(size_t i) { return i < forms_count() ? &table[i] : NULL; }
const char *forms_key(const struct forms_entry *f) { return f->key; }
const char *forms_asm(const struct forms_entry *f) { return f->asm_text; }
const struct forms_entry *forms_reference(void) { return &table[0]; }

const struct forms_entry *forms_find(const char *key)
{
    for (size_t i = 0; i < forms_count(); i++)
        if (strcmp(table[i].key, key) == 0)
            return &table[i];
    return NULL;
}

/* ---- features ---------------------------------------------------------------------------------- */

#if defined(__x86_64__)
/* AVX needs the OS to save the ymm state too (OSXSAVE, then XCR0 bits 1 and 2). */
static bool os_saves_ymm(unsigned ecx1)
{
    if (!(ecx1 & bit_OSXSAVE))
        return false;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return (lo & 6) == 6;
}

static bool has_feature(enum feature need)
{
    unsigned a, b, c, d, a7, b7, c7, d7;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return need == F_NONE;
    if (!__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7))
        b7 = 0;
    bool avx = (c & bit_AVX) && os_saves_ymm(c);
    switch (need) {
    case F_NONE: return true;
    case F_SSE41: return c & bit_SSE4_1;
    case F_SSE42: return c & bit_SSE4_2;
    case F_POPCNT: return c & bit_POPCNT;
    case F_FMA: return avx && (c & bit_FMA);
    case F_AVX: return avx;
    case F_AVX2: return avx && (b7 & bit_AVX2);
    }
    return false;
}
#else
static bool has_feature(enum feature need) { (void)need; return false; }
#endif

bool forms_supported(const struct forms_entry *f) { return has_feature(f->need); }

/* ---- the two benchmarks ------------------------------------------------------------------------ */

static unsigned chain_reg(const struct forms_entry *f) { return f->file == GPR ? nano_stream_gpr[0] : 0; }
static unsigned const_reg(const struct forms_entry *f) { return f->file == GPR ? NANO_CONST_GPR : NANO_CONST_XMM; }

void forms_encode_chain(const struct forms_entry *f, struct x86_code *c)
{
    unsigned dst = chain_reg(f);
    f->emit(c, &f->op, dst, f->chain_self ? dst : const_reg(f));
}

/* A state for F: ones everywhere (no denormal, no zero divisor); a load chain's first stream
 * points at itself, so `mov rax, [rax]` reads the same 8 bytes forever. */
static void start_state(const struct forms_entry *f, struct nano_state *s)
{
    nano_state_ones(s, f->doubles);
    if (f->tp_from_state)
        for (unsigned i = 0; i < NANO_STREAMS; i++)
            s->gpr[i] = (uint64_t)(uintptr_t)&s->gpr[0];
}

static bool run(const struct timer *t, const struct forms_entry *f, const struct x86_code *body, unsigned units,
                struct nano_stat *out, char *err, size_t errlen)
{
    struct nano_state s;
    start_state(f, &s);
    unsigned flags = f->op.vex && f->op.vex_l ? NANO_AVX : 0;
    return nano_measure(t, body, units, flags, &s, NULL, 0, out, err, errlen);
}

bool forms_latency(const struct timer *t, const struct forms_entry *f, struct nano_stat *out, char *err,
                   size_t errlen)
{
    struct x86_code body = { 0 };
    for (unsigned i = 0; i < CHAIN_UNROLL; i++)
        forms_encode_chain(f, &body);
    bool ok = run(t, f, &body, CHAIN_UNROLL, out, err, errlen);
    x86_free(&body);
    return ok;
}

bool forms_throughput(const struct timer *t, const struct forms_entry *f, struct nano_stat *out, char *err,
                      size_t errlen)
{
    unsigned streams = f->file == GPR ? NANO_STREAMS : NANO_XMM_STREAMS;
    struct x86_code body = { 0 };
    for (unsigned i = 0; i < TP_UNROLL; i++) {
        unsigned dst = f->file == GPR ? nano_stream_gpr[i % streams] : i % streams;
        f->emit(&body, &f->op, dst, f->tp_from_state ? NANO_STATE_GPR : const_reg(f));
    }
    bool ok = run(t, f, &body, TP_UNROLL, out, err, errlen);
    x86_free(&body);
    return ok;
}
