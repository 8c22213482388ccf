/* Decoder and classifier: machine code in, canonical data flow, form keys and templates of the
 * generated Skylake and Cortex-A72 tables out, with their idioms and fusions applied. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "block.h"
#include "classify.h"
#include "cortex-a72.h"
#include "check.h"
#include "decode.h"
#include "icelake.h"
#include "isa.h"
#include "skylake.h"

enum {
    RAX = RT_X86_GPR, RCX = RT_X86_GPR + 1, RDX = RT_X86_GPR + 2, RBX = RT_X86_GPR + 3,
    RSP = RT_X86_GPR + 4, RSI = RT_X86_GPR + 6,
    X0 = RT_A64_X, X1 = RT_A64_X + 1, X2 = RT_A64_X + 2,
};

/* Bytes written as hex digits, spaces allowed. */
static size_t hex_bytes(const char *hex, uint8_t *out, size_t max)
{
    size_t n = 0;
    for (const char *p = hex; *p && n < max;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        unsigned v;
        cr_assert(sscanf(p, "%2x", &v) == 1, "bad hex in test: %s", hex);
        out[n++] = (uint8_t)v;
        p += 2;
    }
    return n;
}

/* Decodes the first instruction of HEX at PC; the test fails if it does not decode. */
static struct rt_insn decode_at(enum mdl_isa isa, const char *hex, uint64_t pc)
{
    char err[200];
    uint8_t bytes[32];
    size_t n = hex_bytes(hex, bytes, sizeof bytes);
    struct dec *d = dec_open(isa, err, sizeof err);
    cr_assert(d, "dec_open: %s", err);
    struct rt_insn in;
    int len = dec_one(d, bytes, n, pc, &in, err, sizeof err);
    dec_close(d);
    cr_assert(len > 0, "%s did not decode: %s", hex, err);
    cr_assert_eq(in.len, (uint8_t)len);
    return in;
}

static struct rt_insn decode_x86(const char *hex) { return decode_at(MDL_ISA_X86_64, hex, 0x400000); }
static struct rt_insn decode_a64(const char *hex) { return decode_at(MDL_ISA_AARCH64, hex, 0x400000); }

/* Decoded and classified on M. */
static struct rt_insn classified(const struct mdl_machine *m, const char *hex, uint64_t pc)
{
    struct rt_insn in = decode_at((enum mdl_isa)m->isa, hex, pc);
    struct cls_index *ci = cls_build(m);
    cr_assert(ci);
    cls_apply(ci, m, &in);
    cls_free(ci);
    return in;
}

static bool has(const uint8_t *set, unsigned n, uint8_t r)
{
    for (unsigned i = 0; i < n; i++)
        if (set[i] == r)
            return true;
    return false;
}

static const char *tmpl_name(const struct mdl_machine *m, const struct rt_insn *in)
{
    return m->templates[in->tmpl].name;
}

/* ---- x86-64: registers and data flow ---------------------------------------------------------- */

Test(decode, maps_al_ah_eax_rax_to_one_register)
{
    struct rt_insn a = decode_x86("88 e0");             /* mov al, ah */
    struct rt_insn b = decode_x86("89 d8");             /* mov eax, ebx */
    struct rt_insn c = decode_x86("48 89 d8");          /* mov rax, rbx */
    cr_assert_eq(a.op_reg[0], RAX);
    cr_assert_eq(a.op_reg[1], RAX);
    cr_assert_eq(b.op_reg[0], RAX);
    cr_assert_eq(c.op_reg[0], RAX);
    cr_assert_str_eq(a.key, "MOV (R8l, R8h)");
}

Test(decode, maps_xmm_and_ymm_of_one_number_to_one_register)
{
    struct rt_insn x = decode_x86("0f 58 c1");          /* addps xmm0, xmm1 */
    struct rt_insn y = decode_x86("c5 fc 58 c1");       /* vaddps ymm0, ymm0, ymm1 */
    cr_assert_eq(x.op_reg[0], RT_X86_VEC);
    cr_assert_eq(y.op_reg[0], RT_X86_VEC);
    cr_assert_eq(y.op_reg[2], RT_X86_VEC + 1);
    cr_assert_str_eq(y.key, "VADDPS (YMM, YMM, YMM)");
}

Test(decode, finds_the_opcode_byte_past_prefixes_rex_vex_and_escapes)
{
    cr_expect_eq(decode_x86("83 f8 47").opcode_at, 0);              /* cmp eax, 71 */
    cr_expect_eq(decode_x86("4c 39 e3").opcode_at, 1);              /* cmp rbx, r12 */
    cr_expect_eq(decode_x86("66 0f 1f 44 00 00").opcode_at, 2);     /* nop word ptr [rax + rax] */
    cr_expect_eq(decode_x86("c5 fb 2a c0").opcode_at, 2);           /* vcvtsi2sd xmm0, xmm0, eax */
    cr_expect_eq(decode_x86("c4 e1 eb 2a d0").opcode_at, 3);        /* vcvtsi2sd xmm2, xmm2, rax */
    cr_expect_eq(decode_x86("66 0f 38 00 c1").opcode_at, 3);        /* pshufb xmm0, xmm1 */
}

Test(decode, add_reads_both_registers_and_writes_the_destination_and_flags)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "48 01 d8", 0);    /* add rax, rbx */
    cr_assert_str_eq(in.key, "ADD (R64, R64)");
    cr_assert_eq(in.n_src, 2);
    cr_assert(has(in.src, in.n_src, RAX) && has(in.src, in.n_src, RBX));
    cr_assert_eq(in.n_dst, 2);
    cr_assert(has(in.dst, in.n_dst, RAX) && has(in.dst, in.n_dst, RT_X86_FLAGS));
    cr_assert_eq(in.cls, MDL_CLASS_INT_ALU);
    cr_assert_not(in.unknown);
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &in), "ADD_01 (R64, R64)");
}

Test(decode, load_has_its_base_displacement_and_size)
{
    struct rt_insn in = decode_x86("48 8b 43 08");      /* mov rax, [rbx + 8] */
    cr_assert_str_eq(in.key, "MOV (R64, M64)");
    cr_assert_eq(in.n_mem, 1);
    cr_assert_eq(in.mem[0].base, RBX);
    cr_assert_eq(in.mem[0].index, RT_REG_NONE);
    cr_assert_eq(in.mem[0].disp, 8);
    cr_assert_eq(in.mem[0].size, 8);
    cr_assert(in.mem[0].load && !in.mem[0].store);
    cr_assert_eq(in.n_addr, 1);
    cr_assert_eq(in.addr[0], RBX);
    cr_assert_eq(in.n_src, 0, "the base register is an address, not data");
    cr_assert_eq(in.cls, MDL_CLASS_LOAD);
}

Test(decode, store_reads_its_data_register_and_writes_memory)
{
    struct rt_insn in = decode_x86("48 89 43 08");      /* mov [rbx + 8], rax */
    cr_assert_str_eq(in.key, "MOV (M64, R64)");
    cr_assert(in.mem[0].store && !in.mem[0].load);
    cr_assert(has(in.src, in.n_src, RAX));
    cr_assert_eq(in.n_dst, 0);
    cr_assert_eq(in.cls, MDL_CLASS_STORE);
}

Test(decode, indexed_address_keeps_index_and_scale)
{
    struct rt_insn in = decode_x86("8b 04 b3");         /* mov eax, [rbx + rsi*4] */
    cr_assert_eq(in.mem[0].base, RBX);
    cr_assert_eq(in.mem[0].index, RSI);
    cr_assert_eq(in.mem[0].scale, 4);
    cr_assert_eq(in.mem[0].size, 4);
    cr_assert(has(in.addr, in.n_addr, RBX) && has(in.addr, in.n_addr, RSI));
}

Test(decode, push_and_pop_use_rsp_implicitly)
{
    struct rt_insn push = decode_x86("50");             /* push rax */
    struct rt_insn pop = decode_x86("58");              /* pop rax */
    cr_assert(has(push.src, push.n_src, RSP) && has(push.src, push.n_src, RAX));
    cr_assert_eq(push.mem[0].base, RSP);
    cr_assert_eq(push.mem[0].disp, -8);
    cr_assert(push.mem[0].store);
    cr_assert(has(pop.src, pop.n_src, RSP));
    cr_assert(has(pop.dst, pop.n_dst, RAX));
    cr_assert(pop.mem[0].load);
    cr_assert_not(has(push.dst, push.n_dst, RSP), "the stack engine updates rsp: no chain through it");
    cr_assert_not(has(pop.dst, pop.n_dst, RSP));
}

Test(decode, call_and_ret_are_branches_with_a_stack_slot)
{
    struct rt_insn call = decode_x86("e8 00 00 00 00");
    struct rt_insn ret = decode_x86("c3");
    cr_assert_eq(call.branch, RT_BR_CALL);
    cr_assert_str_eq(call.key, "CALL (Rel32)");
    cr_assert(call.mem[0].store && call.mem[0].base == RSP);
    cr_assert_eq(ret.branch, RT_BR_RET);
    cr_assert(ret.mem[0].load && has(ret.src, ret.n_src, RSP));
    cr_assert_eq(ret.cls, MDL_CLASS_RET);
}

Test(decode, gives_the_stack_engine_s_moves_of_push_pop_call_and_ret_on_rsp)
{
    static const struct { const char *hex, *what; int stack; } c[] = {
        { "50", "push rax", -8 }, { "9c", "pushfq", -8 }, { "e8 00 00 00 00", "call", -8 },
        { "58", "pop rax", 8 }, { "c3", "ret", 8 }, { "c9", "leave", 0 },
        { "f3 48 0f b8 c3", "popcnt rax, rbx", 0 }, { "48 89 e5", "mov rbp, rsp", 0 },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct rt_insn in = decode_x86(c[i].hex);
        cr_expect_eq(in.stack, c[i].stack, "%s moves rsp by %d, not %d", c[i].what, in.stack, c[i].stack);
        cr_expect_eq(in.stack_reg, RSP, "%s: the stack engine's register is rsp", c[i].what);
        cr_expect_eq(in.flags_reg, RT_X86_FLAGS);
    }
}

Test(decode, leave_writes_rsp_as_an_operation_and_loads_through_rbp)
{
    struct rt_insn in = decode_x86("c9");               /* leave: mov rsp, rbp; pop rbp */
    cr_expect_eq(in.stack, 0);
    cr_expect(has(in.dst, in.n_dst, RSP), "rsp is written by a uop, not by the stack engine");
    cr_expect(has(in.dst, in.n_dst, RT_X86_GPR + 5));
    cr_expect(in.n_mem == 1 && in.mem[0].load && in.mem[0].base == RT_X86_GPR + 5);
}

Test(decode, aarch64_ret_reads_the_link_register_and_moves_no_stack_pointer)
{
    struct rt_insn in = decode_a64("c0 03 5f d6");      /* ret */
    cr_expect_eq(in.branch, RT_BR_RET);
    cr_expect_eq(in.stack, 0);
    cr_expect_eq(in.stack_reg, RT_REG_NONE, "AArch64 has no stack engine");
    cr_expect(in.n_src == 1 && in.src[0] == RT_A64_X + 30, "ret reads x30 alone");
    cr_expect_eq(in.n_dst, 0);
    cr_expect_eq(in.n_mem, 0);
    cr_expect_eq(in.flags_reg, RT_A64_NZCV);
}

Test(decode, aarch64_bl_writes_the_link_register_and_no_stack_slot)
{
    struct rt_insn in = decode_a64("00 00 00 94");      /* bl . */
    cr_expect_eq(in.branch, RT_BR_CALL);
    cr_expect(in.stack == 0 && in.stack_reg == RT_REG_NONE);
    cr_expect(in.n_dst == 1 && in.dst[0] == RT_A64_X + 30);
    cr_expect_eq(in.n_mem, 0);
}

Test(decode, aarch64_stp_with_writeback_writes_sp_as_an_ordinary_register)
{
    struct rt_insn in = decode_a64("fd 7b bf a9");      /* stp x29, x30, [sp, #-16]! */
    cr_expect_str_eq(in.key, "STP (X, X, M)");
    cr_expect(in.stack == 0 && in.stack_reg == RT_REG_NONE);
    cr_expect(has(in.dst, in.n_dst, RT_A64_SP), "the writeback is the instruction's own write");
    cr_expect(has(in.addr, in.n_addr, RT_A64_SP));
    cr_expect(in.n_mem == 1 && in.mem[0].store && in.mem[0].base == RT_A64_SP && in.mem[0].disp == -16 &&
              in.mem[0].size == 16);
}

Test(decode, aarch64_x4_is_an_ordinary_register_in_every_role)
{
    /* x4 is register number 4 as rsp is on x86: nothing about it is a stack's */
    const uint8_t x4 = RT_A64_X + 4;
    struct rt_insn ld = decode_a64("80 00 40 f9");      /* ldr x0, [x4] */
    struct rt_insn add = decode_a64("84 20 00 91");     /* add x4, x4, #8 */
    struct rt_insn chase = decode_a64("84 00 40 f9");   /* ldr x4, [x4] */
    struct rt_insn wb = decode_a64("80 8c 40 f8");      /* ldr x0, [x4, #8]! */
    struct rt_insn blr = decode_a64("80 00 3f d6");     /* blr x4 */
    struct rt_insn all[] = { ld, add, chase, wb, blr };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        cr_expect(all[i].stack == 0 && all[i].stack_reg == RT_REG_NONE, "%s", all[i].disasm);
    cr_expect(ld.mem[0].base == x4 && has(ld.addr, ld.n_addr, x4) && !has(ld.dst, ld.n_dst, x4));
    cr_expect(has(add.src, add.n_src, x4) && has(add.dst, add.n_dst, x4));
    cr_expect(has(chase.addr, chase.n_addr, x4) && has(chase.dst, chase.n_dst, x4));
    cr_expect(has(wb.dst, wb.n_dst, x4), "a writeback on x4 writes it");
    cr_expect(has(blr.src, blr.n_src, x4) && has(blr.dst, blr.n_dst, RT_A64_X + 30));
}

Test(decode, says_which_instructions_name_addresses_computed_from_their_own)
{
    static const struct { const char *hex, *what; bool x86, rel; } c[] = {
        { "75 f4", "jne", true, true }, { "e8 00 00 00 00", "call rel32", true, true },
        { "ff d0", "call rax", true, false }, { "48 8b 05 10 00 00 00", "mov rax, [rip + 0x10]", true, false },
        { "40 00 00 54", "b.eq", false, true }, { "00 00 00 10", "adr x0, .", false, true },
        { "00 00 00 58", "ldr x0, (literal)", false, true }, { "80 00 40 f9", "ldr x0, [x4]", false, false },
        { "c0 03 5f d6", "ret", false, false },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct rt_insn in = c[i].x86 ? decode_x86(c[i].hex) : decode_a64(c[i].hex);
        cr_expect_eq(in.pc_relative, c[i].rel, "%s", c[i].what);
    }
}

Test(decode, names_the_register_a_scalar_simd_operation_merges_into)
{
    struct rt_insn cvt = decode_x86("f2 48 0f 2a ca");  /* cvtsi2sd xmm1, rdx */
    struct rt_insn vadd = decode_x86("c5 f3 58 c2");    /* vaddsd xmm0, xmm1, xmm2 */
    struct rt_insn same = decode_x86("f2 0f 51 c9");    /* sqrtsd xmm1, xmm1: the value is xmm1 */
    struct rt_insn packed = decode_x86("0f 58 c1");     /* addps xmm0, xmm1 */
    cr_expect_eq(cvt.merge, RT_X86_VEC + 1);
    cr_expect_eq(vadd.merge, RT_REG_NONE, "a VEX form writes xmm0, which it does not read");
    cr_expect_eq(same.merge, RT_REG_NONE);
    cr_expect_eq(packed.merge, RT_X86_VEC, "addps reads and writes xmm0 besides xmm1");
    cr_expect_eq(decode_a64("20 cc 22 4e").merge, RT_REG_NONE);     /* fmla v0.4s, v1.4s, v2.4s */
}

Test(decode, div_reads_and_writes_rax_and_rdx_implicitly)
{
    struct rt_insn in = decode_x86("48 f7 f1");         /* div rcx */
    cr_assert_str_eq(in.key, "DIV (R64)");
    cr_assert(has(in.src, in.n_src, RAX) && has(in.src, in.n_src, RDX) && has(in.src, in.n_src, RCX));
    cr_assert(has(in.dst, in.n_dst, RAX) && has(in.dst, in.n_dst, RDX));
    cr_assert_eq(in.cls, MDL_CLASS_INT_DIV);
}

Test(decode, conditional_instructions_read_the_flags_and_use_intel_names)
{
    struct rt_insn jne = decode_x86("75 05");
    struct rt_insn cmov = decode_x86("48 0f 45 c3");    /* cmovne rax, rbx */
    struct rt_insn adc = decode_x86("48 11 d8");        /* adc rax, rbx */
    cr_assert_str_eq(jne.key, "JNZ (Rel8)");
    cr_assert_eq(jne.branch, RT_BR_COND);
    cr_assert(has(jne.src, jne.n_src, RT_X86_FLAGS));
    cr_assert_str_eq(cmov.key, "CMOVNZ (R64, R64)");
    cr_assert(has(cmov.src, cmov.n_src, RT_X86_FLAGS));
    cr_assert(has(adc.src, adc.n_src, RT_X86_FLAGS));
}

Test(decode, writing_an_8_bit_register_depends_on_the_full_register)
{
    struct rt_insn in = decode_x86("b0 05");            /* mov al, 5 */
    cr_assert(has(in.src, in.n_src, RAX));
    struct rt_insn wide = decode_x86("b8 05 00 00 00"); /* mov eax, 5: zero-extends */
    cr_assert_eq(wide.n_src, 0);
}

Test(decode, shift_count_kinds_follow_uops_info)
{
    cr_assert_str_eq(decode_x86("d3 e0").key, "SHL (R32, CL)");
    cr_assert_str_eq(decode_x86("d1 e0").key, "SHL (R32, 1)");
    cr_assert_str_eq(decode_x86("c1 e0 05").key, "SHL (R32, I8)");
    cr_assert_not(classified(&mdl_machine_skylake, "d1 e0", 0).unknown);
}

Test(decode, accumulator_encodings_name_the_fixed_register)
{
    cr_assert_str_eq(decode_x86("48 05 00 01 00 00").key, "ADD (RAX, I32)");
    cr_assert_str_eq(decode_x86("04 05").key, "ADD (AL, I8)");
    cr_assert_str_eq(decode_x86("48 83 c0 05").key, "ADD (R64, I8)");
}

Test(decode, test_of_the_accumulator_with_an_immediate_reads_it_and_writes_only_the_flags)
{
    const char *const forms[] = { "a9 00 01 00 00", "a8 01", "48 a9 00 01 00 00" };    /* test eax/al/rax, imm */
    for (unsigned k = 0; k < sizeof forms / sizeof *forms; k++) {
        struct rt_insn in = decode_x86(forms[k]);
        cr_assert(has(in.src, in.n_src, RAX), "%s", in.disasm);
        cr_assert_eq(in.n_dst, 1, "%s", in.disasm);
        cr_assert_eq(in.dst[0], RT_X86_FLAGS, "%s", in.disasm);
    }
}

Test(decode, register_moves_and_constant_additions_say_what_value_their_destination_takes)
{
    static const struct { const char *hex; uint8_t of; int64_t add; } cases[] = {
        { "48 89 d8", RBX, 0 },                 /* mov rax, rbx */
        { "48 0f b6 c3", RBX, 0 },              /* movzx rax, bl */
        { "48 83 c3 08", RBX, 8 },              /* add rbx, 8 */
        { "48 83 eb 10", RBX, -16 },            /* sub rbx, 16 */
        { "48 ff c3", RBX, 1 },                 /* inc rbx */
        { "48 ff cb", RBX, -1 },                /* dec rbx */
        { "b3 06", RBX, 0 },                    /* mov bl, 6: the rest of rbx is kept */
        { "b8 05 00 00 00", RT_REG_NONE, 0 },   /* mov eax, 5 */
        { "48 8d 43 08", RT_REG_NONE, 0 },      /* lea rax, [rbx + 8] */
        { "48 01 d8", RT_REG_NONE, 0 },         /* add rax, rbx */
        { "48 83 03 08", RT_REG_NONE, 0 },      /* add qword ptr [rbx], 8 */
    };
    for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct rt_insn in = decode_x86(cases[k].hex);
        cr_expect_eq(in.value_of, cases[k].of, "%s", in.disasm);
        cr_expect_eq(in.value_add, cases[k].add, "%s", in.disasm);
    }
}

Test(decode, vex_and_evex_stores_write_their_memory_operand_and_read_none)
{
    /* vmovsd [rsi-8], xmm0; vextractf128 [rsi-8], ymm0, 1; vmovups [rsi-64], zmm0 */
    const char *const stores[] = { "c5 fb 11 46 f8", "c4 e3 7d 19 46 f8 01", "62 f1 7c 48 11 46 ff" };
    for (unsigned k = 0; k < sizeof stores / sizeof *stores; k++) {
        struct rt_insn in = decode_x86(stores[k]);
        cr_assert_eq(in.n_mem, 1, "%s", in.disasm);
        cr_expect(in.mem[0].store && !in.mem[0].load, "%s", in.disasm);
    }
    struct rt_insn add = decode_x86("c5 fb 58 46 f8");     /* vaddsd xmm0, xmm0, [rsi-8]: a load */
    cr_expect(add.mem[0].load && !add.mem[0].store);
}

Test(decode, vfmadd231pd_on_ymm_has_its_form_and_reads_the_accumulator)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "c4 e2 f5 b8 c2", 0);
    cr_assert_str_eq(in.key, "VFMADD231PD (YMM, YMM, YMM)");
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &in), in.key);
    cr_assert(has(in.src, in.n_src, RT_X86_VEC));
    cr_assert_eq(in.cls, MDL_CLASS_FP_FMA);
}

Test(decode, lock_and_rep_prefixes_select_uops_info_variants)
{
    struct rt_insn lock = classified(&mdl_machine_skylake, "f0 48 01 00", 0);   /* lock add [rax], rax */
    struct rt_insn rep = classified(&mdl_machine_skylake, "f3 a4", 0);          /* rep movsb */
    cr_assert_str_eq(lock.key, "ADD_LOCK (M64, R64)");
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &lock), "ADD_LOCK (M64, R64)");
    cr_assert_eq(lock.cls, MDL_CLASS_SYSTEM);
    cr_assert_str_eq(rep.key, "MOVSB_REPE");
    cr_assert_eq(rep.cls, MDL_CLASS_STRING);
    cr_assert_not(rep.unknown);
}

Test(decode, lea_takes_uops_info_addressing_variant_and_loads_nothing)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "48 8d 44 30 08", 0);  /* lea rax, [rax+rsi+8] */
    cr_assert_str_eq(in.key, "LEA (R64, M64)");
    cr_assert_str_eq(in.alt_key, "LEA_B_I_D8 (R64)");
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &in), "LEA_B_I_D8 (R64)");
    cr_assert(has(in.src, in.n_src, RAX) && has(in.src, in.n_src, RSI));
    cr_assert_not(in.mem[0].load || in.mem[0].store);
    cr_assert_eq(in.cls, MDL_CLASS_LEA);
}

Test(decode, compare_predicates_become_an_immediate)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "f3 0f c2 c1 00", 0);  /* cmpeqss xmm0, xmm1 */
    cr_assert_str_eq(in.key, "CMPSS (XMM, XMM, I8)");
    cr_assert_not(in.unknown);
}

Test(decode, has_one_table_entry_per_isa_of_the_descriptions)
{
    for (unsigned isa = 0; isa < MDL_ISA_COUNT; isa++) {
        const struct isa_ops *ops = isa_get(isa);
        const struct isainfo *info = isainfo_get(isa);
        cr_assert(ops && info, "ISA %u has its tables", isa);
        cr_expect_str_eq(info->name, check_enum_name("ISA", isa), "the description's name of ISA %u", isa);
        cr_expect(ops->reg_info && ops->fill && ops->direct_target && ops->as && ops->objcopy && ops->objdump);
        char err[128];
        struct dec *d = dec_open((enum mdl_isa)isa, err, sizeof err);
        cr_expect(d, "%s: %s", info->name, err);
        dec_close(d);
    }
    cr_expect_null(isa_get(MDL_ISA_COUNT));
    cr_expect_null(isainfo_get(MDL_ISA_COUNT));
    char err[128], want[64];
    cr_expect_null(dec_open(MDL_ISA_COUNT, err, sizeof err));
    snprintf(want, sizeof want, "no decoder for ISA %d", MDL_ISA_COUNT);
    cr_expect_str_eq(err, want);
    char list[128];
    isa_list(list, sizeof list);
    cr_expect_str_eq(list, "x86_64 (0) nor aarch64 (1)");
}

Test(decode, undecodable_bytes_give_an_error_naming_them)
{
    char err[200] = "";
    uint8_t bytes[] = { 0xff, 0xff };
    struct dec *d = dec_open(MDL_ISA_X86_64, err, sizeof err);
    cr_assert(d);
    struct rt_insn in;
    cr_assert_eq(dec_one(d, bytes, sizeof bytes, 0x1000, &in, err, sizeof err), 0);
    cr_assert(strstr(err, "ff ff"), "message: %s", err);
    cr_assert_eq(dec_one(d, bytes, 0, 0x1000, &in, err, sizeof err), 0);
    dec_close(d);
}

Test(decode, aarch64_unallocated_or_cut_encoding_gives_an_error_naming_the_bytes)
{
    char err[200] = "";
    uint8_t bytes[] = { 0xff, 0xff, 0xff, 0xff };
    struct dec *d = dec_open(MDL_ISA_AARCH64, err, sizeof err);
    cr_assert(d);
    struct rt_insn in;
    cr_assert_eq(dec_one(d, bytes, sizeof bytes, 0, &in, err, sizeof err), 0);
    cr_assert(strstr(err, "ff ff ff ff"), "message: %s", err);
    cr_assert_eq(dec_one(d, bytes, 2, 0, &in, err, sizeof err), 0, "half an instruction");
    dec_close(d);
}

/* ---- x86-64 on Skylake: idioms and fusion ---------------------------------------------------- */

Test(classify, xor_of_a_register_with_itself_is_an_eliminated_zero_idiom)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "31 c0", 0);           /* xor eax, eax */
    cr_assert(in.eliminated);
    cr_assert_eq(in.n_src, 0);
    cr_assert(has(in.dst, in.n_dst, RAX));
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &in), "XOR_31 (R32, R32)");
}

Test(classify, xor_of_two_registers_is_no_idiom)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "31 d8", 0);           /* xor eax, ebx */
    cr_assert_not(in.eliminated);
    cr_assert_eq(in.n_src, 2);
}

Test(classify, register_move_is_eliminated_and_keeps_its_source)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "48 89 d8", 0);        /* mov rax, rbx */
    cr_assert(in.eliminated);
    cr_assert_eq(in.n_src, 1);
    cr_assert_eq(in.src[0], RBX);
    cr_assert(has(in.dst, in.n_dst, RAX));
}

Test(classify, move_of_a_register_onto_itself_is_not_eliminated_and_executes_on_an_alu_port)
{
    const char *const same[] = { "89 ff", "8b ff", "48 89 c0", "0f b6 c0" };  /* mov edi, edi ... movzx eax, al */
    for (unsigned k = 0; k < sizeof same / sizeof *same; k++) {
        struct rt_insn in = classified(&mdl_machine_skylake, same[k], 0);
        cr_assert_not(in.eliminated, "%s", in.disasm);
        const struct mdl_template *t = &mdl_machine_skylake.templates[in.tmpl];
        cr_assert_eq(t->latency_max, 1, "%s", in.disasm);
        cr_assert_gt(t->use_count, 0, "%s: executes on a port", in.disasm);
    }
    cr_assert(classified(&mdl_machine_skylake, "0f b6 c3", 0).eliminated, "movzx eax, bl still is");
}

Test(classify, pcmpeqd_of_a_register_with_itself_executes_without_inputs)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "66 0f 76 c0", 0);     /* pcmpeqd xmm0, xmm0 */
    cr_assert_not(in.eliminated);
    cr_assert_eq(in.n_src, 0);
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &in), "PCMPEQD (XMM, XMM)");
}

Test(classify, a_depends_rule_makes_the_destination_a_source_and_only_where_the_machine_says_so)
{
    struct rt_insn sky = classified(&mdl_machine_skylake, "f3 48 0f b8 c3", 0);    /* popcnt rax, rbx */
    struct rt_insn icl = classified(&mdl_machine_icelake, "f3 48 0f b8 c3", 0);
    struct rt_insn bsr = classified(&mdl_machine_icelake, "48 0f bd c2", 0);        /* bsr rax, rdx */
    cr_assert(has(sky.src, sky.n_src, RAX), "Skylake's popcnt waits for its destination");
    cr_assert(has(sky.src, sky.n_src, RBX));
    cr_assert_not(has(sky.src, sky.n_src, RT_X86_FLAGS), "only the destination operand: not the flags it writes");
    cr_assert_not(has(icl.src, icl.n_src, RAX), "Ice Lake's does not");
    cr_assert(has(bsr.src, bsr.n_src, RAX), "bsr keeps its destination when the source is zero");
    cr_assert(has(bsr.src, bsr.n_src, RDX));
}

Test(classify, cmp_and_jne_fuse_into_one_branch)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    struct rt_insn cmp = classified(m, "48 39 d8", 0x1000);                     /* cmp rax, rbx */
    struct rt_insn jne = classified(m, "75 05", 0x1003);
    struct cls_index *ci = cls_build(m);
    cr_assert(cls_fuse(ci, m, &cmp, &jne));
    cls_free(ci);
    cr_assert_str_eq(tmpl_name(m, &cmp), "JZ (Rel8)");
    cr_expect_str_eq(m->templates[cmp.form[0]].name, "CMP_39 (R64, R64)", "the forms as written are kept");
    cr_expect_str_eq(m->templates[cmp.form[1]].name, "JNZ (Rel8)");
    cr_expect_neq(cmp.rule, RT_NO_INDEX);
    cr_assert_eq(cmp.branch, RT_BR_COND);
    cr_assert_eq(cmp.len, 5);
    cr_expect_eq(memcmp(cmp.bytes, "\x48\x39\xd8\x75\x05", 5), 0, "both encodings");
    cr_assert(has(cmp.src, cmp.n_src, RAX) && has(cmp.src, cmp.n_src, RBX));
    cr_assert_not(has(cmp.src, cmp.n_src, RT_X86_FLAGS), "the flags pass inside the pair");
    cr_assert(has(cmp.dst, cmp.n_dst, RT_X86_FLAGS));
}

/* mov eax, eax is not eliminated: a rule times it as the 16-bit move, and its form stays the
 * 32-bit one that the key found. */
Test(classify, a_move_onto_itself_keeps_its_form_under_the_rule_that_times_it)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    struct rt_insn mov = classified(m, "89 c0", 0);                              /* mov eax, eax */
    cr_expect_str_eq(mov.key, "MOV (R32, R32)");
    cr_expect_str_eq(m->templates[mov.form[0]].name, "MOV_89 (R32, R32)");
    cr_expect_eq(mov.form[1], RT_NO_INDEX);
    cr_expect_str_eq(tmpl_name(m, &mov), "MOV_89 (R16, R16)");
    cr_expect_neq(mov.rule, RT_NO_INDEX);
    cr_expect_not(mov.eliminated);
    struct rt_insn add = classified(m, "48 83 c0 01", 0);                        /* add rax, 1 */
    cr_expect_eq(add.tmpl, add.form[0]);
    cr_expect_eq(add.rule, RT_NO_INDEX, "no rule applies");
}

Test(classify, fusion_needs_the_jump_right_after_the_compare)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    struct rt_insn cmp = classified(m, "48 39 d8", 0x1000);
    struct rt_insn jne = classified(m, "75 05", 0x2000);
    struct rt_insn mov = classified(m, "48 8b 43 08", 0x1003);
    struct cls_index *ci = cls_build(m);
    cr_assert_not(cls_fuse(ci, m, &cmp, &jne));
    cr_assert_not(cls_fuse(ci, m, &cmp, &mov));
    cls_free(ci);
}

Test(classify, an_instruction_without_a_form_takes_its_class_default)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "d9 c9", 0);           /* fxch st(1) */
    cr_assert(in.unknown);
    cr_assert_eq(in.tmpl, mdl_machine_skylake.class_default[in.cls]);
}

Test(classify, immediate_zero_falls_back_to_the_encoded_width)
{
    struct rt_insn in = classified(&mdl_machine_skylake, "48 c7 03 00 00 00 00", 0);  /* mov qword [rbx], 0 */
    cr_assert_str_eq(in.key, "MOV (M64, 0)");
    cr_assert_str_eq(tmpl_name(&mdl_machine_skylake, &in), "MOV (M64, I32)");
}

/* ---- AArch64 on Cortex-A72 ---------------------------------------------------------------------- */

Test(decode, fmla_on_four_singles_has_its_a72_form)
{
    struct rt_insn in = classified(&mdl_machine_cortex_a72, "20 cc 22 4e", 0);  /* fmla v0.4s, v1.4s, v2.4s */
    cr_assert_str_eq(in.key, "FMLA (V4S, V4S, V4S)");
    cr_assert_str_eq(tmpl_name(&mdl_machine_cortex_a72, &in), in.key);
    cr_assert_not(in.unknown);
    cr_assert(has(in.src, in.n_src, RT_A64_V), "the accumulator is read");
    cr_assert_eq(in.cls, MDL_CLASS_FP_FMA);
}

Test(decode, by_element_operand_is_a_vector_element)
{
    struct rt_insn in = decode_a64("20 10 a2 4f");      /* fmla v0.4s, v1.4s, v2.s[1] */
    cr_assert_str_eq(in.key, "FMLA (V4S, V4S, VE)");
}

Test(decode, ldr_with_offset_is_a_load_from_base_plus_displacement)
{
    struct rt_insn in = classified(&mdl_machine_cortex_a72, "20 04 40 f9", 0);  /* ldr x0, [x1, #8] */
    cr_assert_str_eq(in.key, "LDR (X, M)");
    cr_assert_not(in.unknown);
    cr_assert_eq(in.mem[0].base, X1);
    cr_assert_eq(in.mem[0].disp, 8);
    cr_assert_eq(in.mem[0].size, 8);
    cr_assert(in.mem[0].load);
    cr_assert(has(in.dst, in.n_dst, X0));
    cr_assert_eq(in.cls, MDL_CLASS_LOAD);
}

Test(decode, post_indexed_load_writes_its_base)
{
    struct rt_insn in = decode_a64("20 84 40 f8");      /* ldr x0, [x1], #8 */
    cr_assert_str_eq(in.key, "LDR (X, M, I)");
    cr_assert(has(in.dst, in.n_dst, X1));
}

Test(decode, shifted_register_operand_is_xs)
{
    struct rt_insn in = decode_a64("20 0c 02 8b");      /* add x0, x1, x2, lsl #3 */
    cr_assert_str_eq(in.key, "ADD (X, X, XS)");
    cr_assert(has(in.src, in.n_src, X2));
}

Test(decode, zero_register_is_no_dependency)
{
    struct rt_insn in = decode_a64("e0 03 1f aa");      /* mov x0, xzr */
    cr_assert_str_eq(in.key, "MOV (X, X)");
    cr_assert_eq(in.n_src, 0);
    cr_assert_eq(in.op_reg[1], RT_REG_NONE);
}

Test(decode, conditional_branch_reads_nzcv)
{
    struct rt_insn in = classified(&mdl_machine_cortex_a72, "40 00 00 54", 0);  /* b.eq .+8 */
    cr_assert_str_eq(in.key, "B.EQ (L)");
    cr_assert_str_eq(in.alt_key, "B.cond (L)");
    cr_assert_eq(in.branch, RT_BR_COND);
    cr_assert(has(in.src, in.n_src, RT_A64_NZCV));
    cr_assert_not(in.unknown);
}

Test(classify, bare_mnemonic_entry_covers_every_form)
{
    struct rt_insn in = classified(&mdl_machine_cortex_a72, "20 0c a2 4e", 0);  /* sqadd v0.4s, ... */
    cr_assert_str_eq(in.key, "SQADD (V4S, V4S, V4S)");
    cr_assert_not(in.unknown);
    cr_assert_str_eq(tmpl_name(&mdl_machine_cortex_a72, &in), "SQADD");
}

Test(classify, aese_and_aesmc_fuse_on_the_a72)
{
    const struct mdl_machine *m = &mdl_machine_cortex_a72;
    struct rt_insn aese = classified(m, "20 48 28 4e", 0x100);                  /* aese v0.16b, v1.16b */
    struct rt_insn aesmc = classified(m, "02 68 28 4e", 0x104);                 /* aesmc v2.16b, v0.16b */
    struct cls_index *ci = cls_build(m);
    cr_assert(cls_fuse(ci, m, &aese, &aesmc));
    cls_free(ci);
    cr_assert_str_eq(tmpl_name(m, &aese), "AESE (V16B, V16B)");
    cr_assert_eq(aese.len, 8);
    cr_assert(has(aese.dst, aese.n_dst, RT_A64_V + 2));
}

Test(classify, aesmc_of_another_register_does_not_fuse)
{
    const struct mdl_machine *m = &mdl_machine_cortex_a72;
    struct rt_insn aese = classified(m, "20 48 28 4e", 0x100);                  /* aese v0.16b, v1.16b */
    struct rt_insn aesmc = classified(m, "22 68 28 4e", 0x104);                 /* aesmc v2.16b, v1.16b */
    struct cls_index *ci = cls_build(m);
    cr_assert_not(cls_fuse(ci, m, &aese, &aesmc));
    cls_free(ci);
}

Test(classify, a_fused_pair_does_not_fuse_again)
{
    const struct mdl_machine *m = &mdl_machine_cortex_a72;
    struct rt_insn movz = classified(m, "23 00 80 d2", 0x100);                  /* movz x3, #1 */
    struct rt_insn movk = classified(m, "43 00 a0 f2", 0x104);                  /* movk x3, #2, lsl #16 */
    struct rt_insn movk2 = classified(m, "63 00 c0 f2", 0x108);                 /* movk x3, #3, lsl #32 */
    struct cls_index *ci = cls_build(m);
    cr_assert(cls_fuse(ci, m, &movz, &movk));
    cr_assert_eq(movz.len, 8);
    cr_assert_eq(movz.n_src, 0, "movk's read of x3 is movz's write, inside the pair");
    cr_assert_not(cls_fuse(ci, m, &movz, &movk2));
    cls_free(ci);
}

Test(decode, legacy_sse_scalar_operation_keeps_the_rest_of_its_destination)
{
    struct rt_insn in = decode_x86("f3 0f 51 c1");      /* sqrtss xmm0, xmm1 */
    cr_assert(has(in.src, in.n_src, RT_X86_VEC) && has(in.src, in.n_src, RT_X86_VEC + 1));
    struct rt_insn load = decode_x86("f3 0f 10 03");    /* movss xmm0, [rbx]: clears the rest */
    cr_assert_eq(load.n_src, 0);
}

Test(decode, cmpxchg_reads_and_writes_memory_and_the_accumulator)
{
    struct rt_insn in = decode_x86("f0 48 0f b1 1b");   /* lock cmpxchg [rbx], rbx */
    cr_assert_str_eq(in.key, "CMPXCHG_LOCK (M64, R64)");
    cr_assert(in.mem[0].load && in.mem[0].store);
    cr_assert(has(in.src, in.n_src, RAX) && has(in.dst, in.n_dst, RAX));
}

Test(decode, flags_a_length_changing_prefix_only_on_full_16_bit_immediates)
{
    cr_expect(decode_x86("6681fa6a04").lcp, "cmp dx, 0x46a: imm16 after 0x66");
    cr_expect(!decode_x86("6683fa04").lcp, "cmp dx, 4: a sign-extended imm8 changes no length");
    cr_expect(!decode_x86("66b83412").lcp, "mov ax, imm16 is exempt");
    cr_expect(!decode_x86("4881fa6a040000").lcp, "no operand-size prefix");
}

/* Block mode keeps the instructions it has decoded, by their bytes: through that cache a block
 * must decode as it does without, a relative jump included (its text names its target, so it
 * is not kept) and an instruction that other bytes follow elsewhere. */
Test(decode, decodes_a_block_the_same_through_the_instruction_cache)
{
    const char *blocks[] = {
        "4801d8 4889c3 488b4308 75f4",             /* add, mov, load, jne back */
        "4889c3 4801d8 90 75f0 488b4308",          /* the same instructions elsewhere, a nop */
        "4801d8 31c0 75f4 c5fc1006 4801d8",        /* a zero idiom, the jump elsewhere, a VEX load */
    };
    const struct mdl_machine *m = &mdl_machine_skylake;
    char err[200];
    struct dec *d = dec_open(MDL_ISA_X86_64, err, sizeof err);
    struct cls_index *ci = cls_build(m);
    struct block_cache *cache = block_cache_new();
    cr_assert(d && ci && cache);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) {
            uint8_t bytes[64];
            size_t n = hex_bytes(blocks[i], bytes, sizeof bytes);
            struct block plain = { 0 }, cached = { 0 };
            cr_assert(block_decode(&plain, d, ci, m, NULL, bytes, n, BLOCK_PC, err, sizeof err), "%s", err);
            cr_assert(block_decode(&cached, d, ci, m, cache, bytes, n, BLOCK_PC, err, sizeof err), "%s", err);
            cr_assert_eq(cached.n, plain.n);
            for (size_t k = 0; k < plain.n; k++) {
                cr_expect_str_eq(cached.insns[k].disasm, plain.insns[k].disasm, "block %zu, insn %zu", i, k);
                cr_expect(memcmp(&cached.insns[k], &plain.insns[k], sizeof plain.insns[k]) == 0,
                          "block %zu, insn %zu (%s) differs through the cache", i, k, plain.insns[k].disasm);
            }
            block_free(&plain);
            block_free(&cached);
        }
    block_cache_free(cache);
    cls_free(ci);
    dec_close(d);
}

/* A repeat prefix makes a string instruction one the reader merges: movs copies, stos fills, the
 * others go an element at a time; without the prefix, or on another opcode, none. */
Test(decode, tells_the_kind_of_a_repeated_string_instruction)
{
    cr_expect_eq(decode_x86("f3 a4").rep, RT_REP_COPY, "rep movsb");
    cr_expect_eq(decode_x86("f3 48 a5").rep, RT_REP_COPY, "rep movsq");
    cr_expect_eq(decode_x86("f3 aa").rep, RT_REP_FILL, "rep stosb");
    cr_expect_eq(decode_x86("f3 a6").rep, RT_REP_SCAN, "repe cmpsb");
    cr_expect_eq(decode_x86("f2 ae").rep, RT_REP_SCAN, "repne scasb");
    cr_expect_eq(decode_x86("a4").rep, RT_REP_NONE, "movsb alone");
    cr_expect_eq(decode_x86("f3 0f b8 c1").rep, RT_REP_NONE, "popcnt (an f3 that is no repeat)");
}

/* dc zva, x3 zeroes the 64-byte block at x3: a store of the block, with x3 as its address. */
Test(decode, takes_dc_zva_as_a_store_of_a_whole_block)
{
    struct rt_insn in = decode_a64("23 74 0b d5");
    cr_assert_eq(in.n_mem, 1, "%s", in.disasm);
    cr_expect(in.mem[0].store && !in.mem[0].load);
    cr_expect_eq(in.mem[0].size, 64);
    cr_expect_eq(in.mem[0].base, RT_A64_X + 3);
    cr_expect_eq(in.cls, MDL_CLASS_STORE);
}
