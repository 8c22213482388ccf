/* x86-64 encodings for generated kernels: legacy and VEX instructions with register or
 * [base + index*scale + disp] operands, and the scaffolding of a counted loop. */
#include "x86.h"
#include <stdlib.h>
#include <string.h>

void x86_free(struct x86_code *c)
{
    free(c->b);
    memset(c, 0, sizeof *c);
}

void x86_bytes(struct x86_code *c, const void *bytes, size_t n)
{
    if (c->oom)
        return;
    if (c->n + n > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->n + n)
            cap *= 2;
        uint8_t *b = realloc(c->b, cap);
        if (!b) {
            c->oom = true;
            return;
        }
        c->b = b, c->cap = cap;
    }
    memcpy(c->b + c->n, bytes, n);
    c->n += n;
}

void x86_u8(struct x86_code *c, uint8_t v) { x86_bytes(c, &v, 1); }

void x86_u32(struct x86_code *c, uint32_t v)
{
    uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    x86_bytes(c, le, 4);
}

static unsigned reg_field(const struct x86_op *op, unsigned reg) { return op->ext >= 0 ? (unsigned)op->ext : reg; }

/* Prefix, REX (only when needed: W or an extended register) or VEX, then the opcode. R, X and B
 * are the high bits of ModRM.reg, SIB.index and ModRM.rm/SIB.base; V is VEX.vvvv's register. */
static void head(struct x86_code *c, const struct x86_op *op, unsigned r, unsigned x, unsigned b, unsigned v)
{
    r = (r >> 3) & 1, x = (x >> 3) & 1, b = (b >> 3) & 1;
    if (op->vex) {
        static const uint8_t pp[256] = { [0x66] = 1, [0xF3] = 2, [0xF2] = 3 };
        x86_u8(c, 0xC4);
        x86_u8(c, (uint8_t)((!r << 7) | (!x << 6) | (!b << 5) | op->vex_map));
        x86_u8(c, (uint8_t)((op->w << 7) | ((~v & 15) << 3) | (op->vex_l << 2) | pp[op->prefix]));
    } else {
        if (op->prefix)
            x86_u8(c, op->prefix);
        if (op->w || r || x || b)
            x86_u8(c, (uint8_t)(0x40 | (op->w << 3) | (r << 2) | (x << 1) | b));
    }
    x86_bytes(c, op->opcode, op->nopcode);
}

static void modrm(struct x86_code *c, unsigned mod, unsigned reg, unsigned rm)
{
    x86_u8(c, (uint8_t)((mod << 6) | ((reg & 7) << 3) | (rm & 7)));
}

void x86_rr(struct x86_code *c, const struct x86_op *op, unsigned reg, unsigned rm)
{
    head(c, op, reg_field(op, reg), 0, rm, 0);
    modrm(c, 3, reg_field(op, reg), rm);
}

void x86_vrrr(struct x86_code *c, const struct x86_op *op, unsigned reg, unsigned v, unsigned rm)
{
    head(c, op, reg, 0, rm, v);
    modrm(c, 3, reg, rm);
}

/* ModRM (and SIB) of a memory operand: a SIB byte when there is an index or the base is
 * rsp/r12, a displacement when it is not 0 or the base is rbp/r13 (mod 00 means no base there). */
void x86_rm(struct x86_code *c, const struct x86_op *op, unsigned reg, unsigned base, int index, unsigned scale,
            int32_t disp)
{
    unsigned rf = reg_field(op, reg);
    head(c, op, rf, index < 0 ? 0 : (unsigned)index, base, 0);
    unsigned mod = disp == 0 && (base & 7) != X86_RBP ? 0 : disp >= -128 && disp <= 127 ? 1 : 2;
    bool sib = index >= 0 || (base & 7) == X86_RSP;
    modrm(c, mod, rf, sib ? X86_RSP : base);
    if (sib) {
        unsigned ss = scale == 8 ? 3 : scale == 4 ? 2 : scale == 2 ? 1 : 0;
        x86_u8(c, (uint8_t)((ss << 6) | ((index < 0 ? X86_RSP : (unsigned)index) & 7) << 3 | (base & 7)));
    }
    if (mod == 1)
        x86_u8(c, (uint8_t)(int8_t)disp);
    else if (mod == 2)
        x86_u32(c, (uint32_t)disp);
}

static void short_op(struct x86_code *c, uint8_t opcode, unsigned r)
{
    if (r >= 8)
        x86_u8(c, 0x41);
    x86_u8(c, (uint8_t)(opcode + (r & 7)));
}

void x86_push(struct x86_code *c, unsigned r) { short_op(c, 0x50, r); }
void x86_pop(struct x86_code *c, unsigned r) { short_op(c, 0x58, r); }

void x86_mov_load(struct x86_code *c, unsigned dst, unsigned base, int32_t disp)
{
    static const struct x86_op mov = { .w = true, .opcode = { 0x8B }, .nopcode = 1, .ext = -1 };
    x86_rm(c, &mov, dst, base, -1, 1, disp);
}

void x86_mov_store(struct x86_code *c, unsigned base, int32_t disp, unsigned src)
{
    static const struct x86_op mov = { .w = true, .opcode = { 0x89 }, .nopcode = 1, .ext = -1 };
    x86_rm(c, &mov, src, base, -1, 1, disp);
}

void x86_movups_load(struct x86_code *c, unsigned xmm, unsigned base, int32_t disp)
{
    static const struct x86_op movups = { .opcode = { 0x0F, 0x10 }, .nopcode = 2, .ext = -1 };
    x86_rm(c, &movups, xmm, base, -1, 1, disp);
}

void x86_add_imm32(struct x86_code *c, unsigned r, int32_t imm)
{
    static const struct x86_op add = { .w = true, .opcode = { 0x81 }, .nopcode = 1, .ext = 0 };
    x86_rr(c, &add, 0, r);
    x86_u32(c, (uint32_t)imm);
}

void x86_nop4(struct x86_code *c)
{
    static const uint8_t nop[4] = { 0x0F, 0x1F, 0x40, 0x00 };
    x86_bytes(c, nop, sizeof nop);
}

void x86_align(struct x86_code *c, size_t align)
{
    while (!c->oom && c->n % align)
        x86_u8(c, 0x90);
}

void x86_loop_back(struct x86_code *c, size_t target)
{
    static const uint8_t dec_rdi[3] = { 0x48, 0xFF, 0xCF }, jnz[2] = { 0x0F, 0x85 };
    x86_bytes(c, dec_rdi, sizeof dec_rdi);
    x86_bytes(c, jnz, sizeof jnz);
    x86_u32(c, (uint32_t)(int32_t)((int64_t)target - (int64_t)(c->n + 4)));
}
