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
#include "plan.h"
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

/* The draft of F on skylake, written with INFO and checked by mdlc -Wmissing-source --Werror:
 * mdlc's status; the draft's text and mdlc's diagnostics in *TEXT and *DIAG (to free). */
static int draft_checked(const struct findings *f, struct draft_info *info, size_t *values, char **text, char **diag)
{
    const char *dirs[] = { "../machines" };
    char err[512], path[256];
    snprintf(path, sizeof path, "%s", scratch_path("mdlprobe-draft-XXXXXX"));
    struct base *b = base_load("skylake", dirs, 1, err, sizeof err);
    cr_assert(b, "%s", err);
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    cr_assert(fp);
    *values = draft_write(fp, f, b, info);
    fclose(fp);
    size_t len = 0;
    FILE *e = open_memstream(diag, &len);
    struct mdlc_opts o = { .action = MDLC_CHECK, .input = path, .include_dirs = dirs, .n_include_dirs = 1,
                           .warn_missing_source = true, .werror = true, .no_warn_qemu_cpu = true, .out = stdout,
                           .err = e };
    int rc = mdlc_run(&o);
    fclose(e);
    *text = read_all(path);
    unlink(path);
    base_free(b);
    return rc;
}

Test(probe_draft, compiles_with_every_number_sourced)
{
    struct findings f = { 0 };
    made_up(&f);
    struct draft_info info = { "host", "Made-up \"CPU\"", "2025-01-01", "made-up clock", NULL, 0, NULL };
    size_t values;
    char *text, *diag;
    int rc = draft_checked(&f, &info, &values, &text, &diag);
    cr_expect_eq(rc, 0, "mdlc -Wmissing-source --Werror on the draft:\n%s\n%s", diag, text);
    cr_expect_eq(values, 18, "values written");
    static const char *const wanted[] = {
        "machine host extends skylake {\n    description \"Made-up \\\"CPU\\\", as measured by mdlprobe\";",
        "    issue_width        6            @probe;",
        "window {\n    // rob: not used (register-holding fillers stop at 240)",
        "    retire_width       6            @probe;  // the measured issue width 6: skylake's 4 would retire fewer "
        "instructions per cycle than issue\n}",
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
    free(text);
    free(diag);
    findings_free(&f);
}

/* ---- the plan: measurements to draft values --------------------------------------------------- */

static struct finding measured(const char *key, double value, bool reliable)
{
    struct finding x = { .block = FB_FRONTEND, .value = value, .raw = value, .reliable = reliable };
    snprintf(x.key, sizeof x.key, "%s", key);
    return x;
}

/* The audit's case: an issue width of 5 measured over skylake's retire width of 4. */
Test(probe_plan, retire_width_is_at_least_the_measured_issue_width)
{
    struct finding five = measured("issue_width", 5, true), four = measured("issue_width", 4, true);
    struct finding noisy = measured("issue_width", 5, false);
    struct plan_value v = plan_retire_width(&five, 4, "skylake");
    cr_expect_eq(v.src, PLAN_PROBE);
    cr_expect_float_eq(v.value, 5, 1e-9);
    cr_expect_str_eq(v.why, "the measured issue width 5: skylake's 4 would retire fewer instructions per cycle than issue");
    cr_expect_eq(plan_retire_width(&four, 4, "skylake").src, PLAN_BASE, "equal: the base's stands");
    cr_expect_eq(plan_retire_width(&five, 8, "icelake").src, PLAN_BASE, "wider already");
    cr_expect_eq(plan_retire_width(&noisy, 4, "skylake").src, PLAN_BASE, "an issue width not used");
    cr_expect_eq(plan_retire_width(NULL, 4, "skylake").src, PLAN_BASE, "none measured");
}

Test(probe_plan, an_add_throughput_beyond_the_alu_ports_is_said_not_applied)
{
    struct finding fast = measured("tp", 0.19, true), four = measured("tp", 0.25, true), slow = measured("tp", 0.23, true);
    struct finding noisy = measured("tp", 0.19, false);
    char why[400] = "";
    cr_expect(plan_alu_ports(&fast, 4, "skylake", why, sizeof why));
    cr_expect_str_eq(why, "ALU ports: ADD_01 (R64, R64) at tp 0.19 is 5.3 per cycle, more than the 4 ALU ports of "
                          "skylake's entry; not applied: a port added here would serve this entry only, every other "
                          "ALU form of skylake keeping its 4 (add the port and widen the ALU sets by hand)");
    cr_expect_not(plan_alu_ports(&four, 4, "skylake", why, sizeof why), "4 per cycle on 4 ports");
    cr_expect_not(plan_alu_ports(&slow, 4, "skylake", why, sizeof why), "4.3 per cycle rounds to the 4 ports");
    cr_expect_not(plan_alu_ports(&noisy, 4, "skylake", why, sizeof why), "a throughput not used");
    cr_expect_not(plan_alu_ports(&fast, 0, "skylake", why, sizeof why), "no entry in the base");
    cr_expect_not(plan_alu_ports(NULL, 4, "skylake", why, sizeof why), "none measured");
}

static const struct sysfs_cache l2_kernel = { 2, 2, "Unified", 1 << 20, 16, 64 };

Test(probe_plan, a_cache_key_is_measured_else_the_kernels_else_the_bases)
{
    struct finding size = measured("size", 512 << 10, true), rejected = measured("size", 0, false);
    struct plan_value v = plan_cache_key(&size, &l2_kernel, "size");
    cr_expect(v.src == PLAN_PROBE && v.value == 512 << 10, "measured and reliable: the measurement");
    v = plan_cache_key(&rejected, &l2_kernel, "size");
    cr_expect(v.src == PLAN_SYSFS && v.value == 1 << 20, "not reliable: the kernel's");
    cr_expect_str_eq(v.why, "the kernel's: /sys/devices/system/cpu/cpu0/cache/index2/size (level 2, Unified)");
    v = plan_cache_key(NULL, &l2_kernel, "ways");
    cr_expect(v.src == PLAN_SYSFS && v.value == 16, "not measured: the kernel's");
    cr_expect_str_eq(v.why, "the kernel's: /sys/devices/system/cpu/cpu0/cache/index2/ways_of_associativity (level 2, "
                            "Unified)");
    cr_expect_eq(plan_cache_key(&rejected, NULL, "size").src, PLAN_BASE, "no sysfs: the base's");
    cr_expect_eq(plan_cache_key(NULL, &l2_kernel, "latency").src, PLAN_BASE, "the kernel gives no latency");
    static const struct sysfs_cache odd = { 3, 2, "Unified", 1 << 20, 0, 96 };
    cr_expect_eq(plan_cache_key(NULL, &odd, "ways").src, PLAN_BASE, "ways 0: unknown");
    cr_expect_eq(plan_cache_key(NULL, &odd, "line").src, PLAN_BASE, "a line of 96 bytes: mdlc refuses it");
}

Test(probe_plan, a_size_that_is_no_whole_number_of_sets_is_dropped)
{
    struct findings f = { 0 };
    struct plan_cache pc;
    findings_reject(add(&f, FB_CACHE, 2, "size", NULL, 0), "no capacity edge");
    add(&f, FB_CACHE, 2, "latency", NULL, 14);
    plan_cache(&f, 2, &l2_kernel, 4, 64, &pc);
    cr_expect(pc.size.src == PLAN_SYSFS && pc.ways.src == PLAN_SYSFS && pc.line.src == PLAN_SYSFS &&
              pc.latency.src == PLAN_PROBE && !pc.size_dropped, "the kernel's geometry, the measured latency");
    static const struct sysfs_cache sizes_only = { 2, 2, "Unified", 1280 << 10, 0, 0 };
    plan_cache(&f, 2, &sizes_only, 16, 64, &pc);
    cr_expect(pc.size.src == PLAN_SYSFS && !pc.size_dropped, "1.25 MiB in 1280 sets of the base's 16 ways of 64 B");
    plan_cache(&f, 2, &sizes_only, 12, 128, &pc);
    cr_expect(pc.size.src == PLAN_BASE && pc.size_dropped, "1.25 MiB is no whole number of 12 ways of 128 B");
    findings_free(&f);
}

Test(probe_plan, the_deepest_level_is_the_kernels_when_deeper)
{
    struct findings f = { 0 };
    add(&f, FB_CACHE, 2, "latency", NULL, 14);
    static const struct sysfs_cache sc[] = { { 0, 1, "Data", 32 << 10, 8, 64 }, { 1, 1, "Instruction", 32 << 10, 8, 64 },
                                             { 3, 3, "Unified", 32 << 20, 16, 64 } };
    cr_expect_eq(plan_deepest_level(&f, sc, 3), 3);
    cr_expect_eq(plan_deepest_level(&f, sc, 0), 2);
    findings_free(&f);
}

/* ---- the draft as mdlprobe writes it: the summary is the file ---------------------------------- */

/* The values of a draft, one a line as the summary says them ("SCOPE: KEY VALUE @SOURCE"), read
 * back from its text: block keys with their block's name, an entry's @probe attributes with its
 * form; and its "ALU ports" comment, as a note. */
static char *values_of(const char *text)
{
    char *out = NULL, scope[128] = "";
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        char buf[1024], key[64], value[64], src[64];
        snprintf(buf, sizeof buf, "%.*s", (int)n, line);
        line += n + (line[n] != 0);
        if (strstr(buf, "  //"))
            *strstr(buf, "  //") = 0;
        if (!strncmp(buf, "// ALU ports:", 13))
            fprintf(fp, "note: %s\n", buf + 3);
        else if (n > 2 && !strcmp(buf + strlen(buf) - 2, " {"))
            snprintf(scope, sizeof scope, "%.*s", (int)strlen(buf) - 2, buf);
        else if (!strncmp(buf, "    ", 4) && sscanf(buf, " %63s %63[^@]@%63[^;];", key, value, src) == 3) {
            for (size_t end = strlen(value); end && value[end - 1] == ' ';)
                value[--end] = 0;
            fprintf(fp, "%s: %s %s @%s\n", scope, key, value, src);
        } else if (!strncmp(buf, "insn ", 5)) {
            char *form_end = strchr(buf, ')');
            cr_assert(form_end);
            for (const char *attr = form_end; (attr = strstr(attr, " @probe")); attr += 7) {
                const char *v = attr;
                while (v > buf && v[-1] != ' ')
                    v--;
                const char *k = v - 1;
                while (k > buf && k[-1] != ' ')
                    k--;
                fprintf(fp, "%.*s: %.*s %.*s @probe\n", (int)(form_end + 1 - buf), buf, (int)(v - 1 - k), k,
                        (int)(attr - v), v);
            }
        }
    }
    fclose(fp);
    return out;
}

/* The findings of a run on a VM like this project's: L2's geometry not measured, the kernel's in
 * sysfs; an issue width of 5 over skylake's retire width of 4; ADD at 0.19 cycles (5 a cycle) over
 * skylake's 4 ALU ports. */
static void vm_run(struct findings *f)
{
    add(f, FB_FRONTEND, 0, "issue_width", NULL, 5);
    add(f, FB_WINDOW, 0, "rob", NULL, 453);
    add(f, FB_CACHE, 1, "size", NULL, 48 << 10)->sysfs = 48 << 10;
    add(f, FB_CACHE, 1, "ways", NULL, 12);
    add(f, FB_CACHE, 1, "line", NULL, 64);
    add(f, FB_CACHE, 1, "latency", NULL, 4);
    findings_reject(add(f, FB_CACHE, 2, "size", NULL, 0), "no capacity edge holds at four places in the buffer");
    findings_reject(add(f, FB_CACHE, 2, "ways", NULL, 0), "no capacity edge holds at four places in the buffer");
    add(f, FB_CACHE, 2, "latency", NULL, 14);
    add(f, FB_CACHE, 3, "latency", NULL, 50);
    add(f, FB_FORM, 0, "latency", PLAN_ALU_FORM, 1);
    add(f, FB_FORM, 0, "tp", PLAN_ALU_FORM, 0.19);
}

Test(probe_draft, writes_what_it_says_and_compiles)
{
    static const struct sysfs_cache sc[] = {
        { 0, 1, "Data", 48 << 10, 12, 64 }, { 1, 1, "Instruction", 32 << 10, 8, 64 },
        { 2, 2, "Unified", 1 << 20, 8, 64 }, { 3, 3, "Unified", 32 << 20, 16, 64 },
    };
    struct findings f = { 0 };
    vm_run(&f);
    char *summary = NULL;
    size_t len = 0, values;
    struct draft_info info = { "host", "AMD EPYC", "2026-11-28", "made-up clock", sc, 4, open_memstream(&summary, &len) };
    char *text, *diag;
    int rc = draft_checked(&f, &info, &values, &text, &diag);
    fclose(info.summary);
    cr_expect_eq(rc, 0, "mdlc -Wmissing-source --Werror on the draft:\n%s\n%s", diag, text);
    char *read_back = values_of(text);
    cr_expect_str_eq(summary, read_back, "the summary is not the draft's values:\n%s", text);
    static const char *const wanted =
        "frontend: issue_width 5 @probe\n"
        "window: rob 453 @probe\n"
        "window: retire_width 5 @probe\n"
        "cache L1D: size 48 KiB @probe\n"
        "cache L1D: ways 12 @probe\n"
        "cache L1D: line 64 B @probe\n"
        "cache L1D: latency 4 cycles @probe\n"
        "cache L2: size 1 MiB @sysfs\n"
        "cache L2: ways 8 @sysfs\n"
        "cache L2: line 64 B @sysfs\n"
        "cache L2: latency 14 cycles @probe\n"
        "cache L3: size 32 MiB @sysfs\n"
        "cache L3: ways 16 @sysfs\n"
        "cache L3: line 64 B @sysfs\n"
        "cache L3: latency 50 cycles @probe\n"
        "note: ALU ports: ADD_01 (R64, R64) at tp 0.19 is 5.3 per cycle, more than the 4 ALU ports of "
        "skylake's entry; not applied: a port added here would serve this entry only, every other ALU form of "
        "skylake keeping its 4 (add the port and widen the ALU sets by hand)\n"
        "insn ADD_01 (R64, R64): latency 1 @probe\n"
        "insn ADD_01 (R64, R64): tp 0.19 @probe\n";
    cr_expect_str_eq(summary, wanted);
    cr_expect_eq(values, 17, "values written");
    cr_expect(strstr(text, "    // size: not used (no capacity edge holds at four places in the buffer): 0.00, "
                           "spread 1.0%, 7 runs: made up for the test\n    size               1 MiB        @sysfs;  // the kernel's: "
                           "/sys/devices/system/cpu/cpu0/cache/index2/size (level 2, Unified)\n"),
              "L2's size:\n%s", text);
    free(read_back);
    free(summary);
    free(text);
    free(diag);
    findings_free(&f);
}
