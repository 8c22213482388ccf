/* mdlprobe's parts that do not depend on the host's timing: the code it emits, the merge of its
 * passes, and the draft, which must compile with every number sourced. Tests run in tests/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base.h"
#include "draft.h"
#include "driver.h"
#include "emulator.h"
#include "findings.h"
#include "x86.h"
#include "scratch.h"

static void expect_bytes(const struct x86_code *c, const char *hex, const char *what)
{
    char got[256] = "";
    for (size_t i = 0; i < c->n && 2 * i + 2 < sizeof got; i++)
        snprintf(got + 2 * i, 3, "%02x", c->b[i]);
    cr_expect_str_eq(got, hex, "%s", what);
}

Test(probe_x86, memory_operands)
{
    static const struct {
        unsigned dst, base;
        int32_t disp;
        const char *hex, *what;
    } cases[] = {
        { X86_RAX, X86_RAX, 0, "488b00", "mov rax, [rax]" },
        { X86_R9, X86_RSP, 8, "4c8b4c2408", "mov r9, [rsp+8]: a SIB byte for rsp" },
        { X86_RAX, X86_R13, 0, "498b4500", "mov rax, [r13]: a zero disp8 for r13" },
        { X86_RCX, X86_RSI, 1000, "488b8ee8030000", "mov rcx, [rsi+1000]: disp32" },
        { X86_R15, X86_R12, -8, "4d8b7c24f8", "mov r15, [r12-8]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct x86_code c = { 0 };
        x86_mov_load(&c, cases[i].dst, cases[i].base, cases[i].disp);
        expect_bytes(&c, cases[i].hex, cases[i].what);
        x86_free(&c);
    }
}

Test(probe_x86, index_vex_and_loop)
{
    static const struct x86_op lea = { .w = true, .opcode = { 0x8D }, .nopcode = 1, .ext = -1 };
    static const struct x86_op fma = { .prefix = 0x66, .w = true, .opcode = { 0xB8 }, .nopcode = 1, .ext = -1,
                                       .vex = true, .vex_map = 2 };
    struct x86_code c = { 0 };
    x86_rm(&c, &lea, X86_RAX, X86_RCX, X86_RAX, 4, 8);
    expect_bytes(&c, "488d448108", "lea rax, [rcx+rax*4+8]");
    c.n = 0;
    x86_vrrr(&c, &fma, 0, 15, 15);
    expect_bytes(&c, "c4c281b8c7", "vfmadd231pd xmm0, xmm15, xmm15");
    c.n = 0;
    x86_loop_back(&c, 0);
    expect_bytes(&c, "48ffcf0f85f7ffffff", "dec rdi; jnz back to the start");
    x86_free(&c);
}

static struct finding *add(struct findings *f, enum findings_block b, unsigned level, const char *key,
                           const char *form, double value)
{
    struct finding *x = findings_add(f, b, level, key, form);
    cr_assert(x);
    x->value = x->raw = value;
    x->stat = (struct nano_stat){ value, value * 1.01, 0.01, 7 };
    snprintf(x->method, sizeof x->method, "made up for the test");
    return x;
}

/* QEMU's signature is an emulator; the hypervisors that run code on the core are measured (this
 * machine is a bhyve VM). */
Test(probe_emulator, only_qemus_translator_is_an_emulator)
{
    cr_expect_str_eq(emulator_of_signature("TCGTCGTCGTCG"), "QEMU (TCG, its binary translator)");
    static const char *const vms[] = { "KVMKVMKVM\0\0\0", "bhyve bhyve ", "Microsoft Hv", "VMwareVMware",
                                       "XenVMMXenVMM", "TCGTCGTCGTC\0" };
    for (size_t i = 0; i < sizeof vms / sizeof vms[0]; i++)
        cr_expect_null(emulator_of_signature(vms[i]), "signature %zu", i);
}

Test(probe_findings, the_faster_pass_is_kept)
{
    struct findings f = { 0 };
    add(&f, FB_FORM, 0, "latency", "IMUL (R64, R64)", 3.6);
    add(&f, FB_FORM, 0, "tp", "IMUL (R64, R64)", 1);
    add(&f, FB_FORM, 0, "latency", "IMUL (R64, R64)", 3);
    findings_keep_best(&f);
    cr_assert_eq(f.n, 2);
    cr_expect_float_eq(f.v[0].value, 3, 1e-9);
    cr_expect_str_eq(f.v[0].note, "the other pass was 20% slower (a busy sibling thread?)");
    cr_expect_str_eq(f.v[1].key, "tp");
    cr_expect_float_eq(findings_round_cycles(2.98), 3, 1e-9);
    cr_expect_float_eq(findings_round_cycles(4.3), 4.3, 1e-9);
    cr_expect_float_eq(findings_round_cycles(20.85), 20.9, 1e-9);
    findings_free(&f);
}

/* Findings of every kind the draft writes: reliable values, rejected ones, a cache level the base
 * lacks, a size that is no whole number of sets, a form the base lacks, a form half measured. */
static void made_up(struct findings *f)
{
    add(f, FB_FRONTEND, 0, "issue_width", NULL, 6);
    findings_reject(add(f, FB_WINDOW, 0, "rob", NULL, 637), "register-holding fillers stop at 240");
    add(f, FB_CACHE, 1, "size", NULL, 32768)->sysfs = 32768;
    add(f, FB_CACHE, 1, "ways", NULL, 8);
    add(f, FB_CACHE, 1, "line", NULL, 64);
    add(f, FB_CACHE, 1, "latency", NULL, 4);
    findings_reject(add(f, FB_CACHE, 2, "size", NULL, 0), "strides beyond 4 KiB are not physical here");
    add(f, FB_CACHE, 2, "latency", NULL, 14);
    add(f, FB_CACHE, 3, "size", NULL, 40000);
    add(f, FB_CACHE, 3, "latency", NULL, 50.3);
    add(f, FB_CACHE, 4, "size", NULL, 64 << 20);
    add(f, FB_CACHE, 4, "ways", NULL, 16);
    add(f, FB_CACHE, 4, "line", NULL, 64);
    add(f, FB_CACHE, 4, "latency", NULL, 80);
    add(f, FB_MEMORY, 0, "latency", NULL, 540);
    add(f, FB_BRANCH, 0, "mispredict_penalty", NULL, 15);
    add(f, FB_FORM, 0, "latency", "IMUL (R64, R64)", 3);
    add(f, FB_FORM, 0, "tp", "IMUL (R64, R64)", 1);
    add(f, FB_FORM, 0, "latency", "DIVSD (XMM, XMM)", 13);
    findings_reject(add(f, FB_FORM, 0, "tp", "DIVSD (XMM, XMM)", 5), "runs spread 9.0%%");
    add(f, FB_FORM, 0, "latency", "NOSUCH (R64)", 1);
}

static char *read_all(const char *path)
{
    FILE *fp = fopen(path, "r");
    cr_assert(fp);
    char *text = calloc(1, 1 << 16);
    cr_assert(text);
    fread(text, 1, (1 << 16) - 1, fp);
    fclose(fp);
    return text;
}

Test(probe_draft, compiles_with_every_number_sourced)
{
    const char *dirs[] = { "../machines" };
    char err[512], path[256];
    snprintf(path, sizeof path, "%s", scratch_path("mdlprobe-draft-XXXXXX"));
    struct base *b = base_load("skylake", dirs, 1, err, sizeof err);
    cr_assert(b, "%s", err);
    struct findings f = { 0 };
    made_up(&f);
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    cr_assert(fp);
    struct draft_info info = { "host", "Made-up \"CPU\"", "2025-01-01", "made-up clock" };
    cr_expect_eq(draft_write(fp, &f, b, &info), 17, "values written");
    fclose(fp);

    size_t len = 0;
    char *diag = NULL;
    FILE *e = open_memstream(&diag, &len);
    struct mdlc_opts o = { .action = MDLC_CHECK, .input = path, .include_dirs = dirs, .n_include_dirs = 1,
                           .warn_missing_source = true, .werror = true, .no_warn_qemu_cpu = true, .out = stdout,
                           .err = e };
    int rc = mdlc_run(&o);
    fclose(e);
    char *text = read_all(path);
    cr_expect_eq(rc, 0, "mdlc -Wmissing-source --Werror on the draft:\n%s\n%s", diag, text);
    static const char *const wanted[] = {
        "machine host extends skylake {\n    description \"Made-up \\\"CPU\\\", as measured by mdlprobe\";",
        "    issue_width        6            @probe;",
        "\n// rob: not used (register-holding fillers stop at 240)",
        "    size               32 KiB       @probe;  // 32768.00, spread 1.0%, 7 runs: made up for the test; "
        "sysfs: 32 KiB",
        "    // size: not used (strides beyond 4 KiB are not physical here)",
        "    // size: not used (not a whole number of sets with the ways and line in force)",
        "    latency            50.3 cycles  @probe;",
        "cache L4 {\n    level              4            @probe;",
        "    mispredict_penalty 15 cycles    @probe;",
        "insn IMUL (R64, R64) latency 3 @probe uops 1 @uops_skylake ports 1*p1 @uops_skylake tp 1.00 @probe;",
        "insn DIVSD (XMM, XMM) latency 13 @probe uops 1 @uops_skylake ports 1*p0 @uops_skylake tp 4.00 "
        "@uops_skylake;",
        "// NOSUCH (R64): the base has no entry to complete (add one by hand)",
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        cr_expect(strstr(text, wanted[i]), "the draft lacks:\n%s\n---\n%s", wanted[i], text);
    unlink(path);
    free(text);
    free(diag);
    findings_free(&f);
    base_free(b);
}
