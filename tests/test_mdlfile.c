/* --mdl FILE: a description outside the tree compiled, cached by content, reused, rebuilt when a
 * file it reads changes, and refused with mdlc's own diagnostics. Tests run in tests/. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "capture.h"
#include "sha256.h"

/* A directory of its own for each test: its descriptions, and the cache (XDG_CACHE_HOME). */
static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/mdlfile-test.XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* mdlsim ARGS with the test's cache; REDIRECT picks the stream read ("2>/dev/null": stdout). */
static struct run mdlsim(const char *args, const char *redirect)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s/cache ../build/mdlsim %s %s", dir, args, redirect);
    return capture(cmd);
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    cr_assert(fp, "cannot write %s", path);
    fputs(text, fp);
    cr_assert_eq(fclose(fp), 0);
}

/* Cycles per iteration of HEX on --mdl NAME (baseline only). */
static double block_cycles(const char *name, const char *hex)
{
    char args[512];
    snprintf(args, sizeof args, "block --mdl %s/%s --hex %s --no-sensitivity --json", dir, name, hex);
    struct run out = mdlsim(args, "2>/dev/null");
    cr_assert_eq(out.status, 0, "mdlsim %s", args);
    json_t *o = json_loads(out.out, 0, NULL);
    cr_assert(o, "not JSON: %s", out.out);
    double c = json_number_value(json_object_get(o, "cycles_per_iteration"));
    json_decref(o);
    free(out.out);
    return c;
}

/* Cycles per iteration of `add rax, rbx; add rbx, rax` (a chain of two adds) on --mdl NAME;
 * whether this call compiled it (else it came from the cache). */
static double chain_cycles(const char *name, bool *compiled)
{
    char args[512];
    snprintf(args, sizeof args, "block --mdl %s/%s --hex 4801d84801c3 --no-sensitivity --json", dir, name);
    struct run err = mdlsim(args, "2>&1 >/dev/null");
    cr_assert_eq(err.status, 0, "mdlsim %s: %s", args, err.out);
    if (compiled)
        *compiled = strstr(err.out, "mdlsim: compiled ") != NULL;
    free(err.out);
    return block_cycles(name, "4801d84801c3");
}

static const char slow_add[] =
    "// a user's core: Skylake with a two-cycle add\n"
    "machine slowadd extends skylake { description \"Skylake, two-cycle add\"; }\n"
    "insn ADD (R64, R64) latency 2 uops 1 ports 1*p0156 tp 0.25;\n";

Test(mdlfile, analyses_a_block_on_a_description_outside_the_tree_and_reuses_its_build, .init = make_dir,
     .fini = remove_dir)
{
    write_file("slow.mdl", slow_add);
    bool compiled;
    /* chain_cycles runs mdlsim twice: the first run compiles, the second finds the build */
    cr_expect_float_eq(chain_cycles("slow.mdl", &compiled), 4.0, 1e-9, "two adds of latency 2");
    cr_expect_not(compiled, "the second run of the same description compiled it again");
    struct run r = mdlsim("machines", "2>&1");
    cr_expect_eq(strstr(r.out, "slowadd"), NULL, "a description given by path is not compiled in");
    free(r.out);
}

Test(mdlfile, builds_again_when_a_file_the_description_includes_changes, .init = make_dir, .fini = remove_dir)
{
    write_file("core.mdl", "machine core extends skylake { }\ninclude \"adds.mdl\";\n");
    write_file("adds.mdl", "insn ADD (R64, R64) latency 2 uops 1 ports 1*p0156;\n");
    cr_expect_float_eq(chain_cycles("core.mdl", NULL), 4.0, 1e-9);
    write_file("adds.mdl", "insn ADD (R64, R64) latency 3 uops 1 ports 1*p0156;\n");
    bool compiled;
    cr_expect_float_eq(chain_cycles("core.mdl", &compiled), 6.0, 1e-9, "the edited include is used");
    cr_expect_not(compiled, "chain_cycles' second run compiled again");
}

Test(mdlfile, finds_includes_in_the_I_directories_and_takes_a_path_given_to_machine, .init = make_dir,
     .fini = remove_dir)
{
    char args[512], sub[128];
    snprintf(sub, sizeof sub, "%s/lib", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    write_file("lib/adds.mdl", "insn ADD (R64, R64) latency 5 uops 1 ports 1*p0156;\n");
    write_file("core.mdl", "machine core extends skylake { }\ninclude \"adds.mdl\";\n");
    snprintf(args, sizeof args, "block --machine %s/core.mdl -I %s --hex 4801d84801c3 --no-sensitivity --json", dir,
             sub);
    struct run r = mdlsim(args, "2>/dev/null");
    cr_assert_eq(r.status, 0);
    json_t *o = json_loads(r.out, 0, NULL);
    cr_expect_float_eq(json_number_value(json_object_get(o, "cycles_per_iteration")), 10.0, 1e-9);
    cr_expect_str_eq(json_string_value(json_object_get(o, "machine")), "core");
    json_decref(o);
    free(r.out);
}

/* mdlsim's stderr is mdlc's, word for word, then one line of its own; nothing is cached. */
Test(mdlfile, shows_the_diagnostics_of_mdlc_unchanged_and_caches_nothing_for_a_wrong_description,
     .init = make_dir, .fini = remove_dir)
{
    write_file("bad.mdl", "machine bad extends skylake { }\nwindow { robb 300; }\n");
    char cmd[2048], want[2048], cwd[512];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "cd %s && %s/../build/mdlc --check -I %s/../machines bad.mdl 2>&1", dir, cwd, cwd);
    struct run mdlc = capture(cmd);
    cr_assert_eq(mdlc.status, 1);
    snprintf(want, sizeof want,
             "%smdlsim: error: the machine description 'bad.mdl' has errors (mdlc's diagnostics above)\n", mdlc.out);
    snprintf(cmd, sizeof cmd, "cd %s && XDG_CACHE_HOME=%s/cache %s/../build/mdlsim block --mdl bad.mdl --hex 4801d8 2>&1",
             dir, dir, cwd);
    struct run r = capture(cmd);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, want);
    snprintf(cmd, sizeof cmd, "ls -A %s/cache/mdlsim 2>/dev/null", dir);
    struct run ls = capture(cmd);
    cr_expect_str_eq(ls.out, "", "the cache holds something after a failed build");
    free(mdlc.out);
    free(r.out);
    free(ls.out);
}

Test(mdlfile, refuses_a_missing_description_and_two_machines_with_a_message, .init = make_dir, .fini = remove_dir)
{
    struct run r = mdlsim("block --mdl /nonexistent/x.mdl --hex 4801d8", "2>&1 >/dev/null");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, "mdlsim: error: cannot read the machine description '/nonexistent/x.mdl': No such file "
                             "or directory\n");
    free(r.out);
    r = mdlsim("block --mdl /tmp --hex 4801d8", "2>&1 >/dev/null");
    cr_expect_str_eq(r.out, "mdlsim: error: cannot read the machine description '/tmp': not a regular file\n");
    free(r.out);
    r = mdlsim("block --machine skylake --mdl x.mdl --hex 4801d8", "2>&1 >/dev/null");
    cr_expect_eq(r.status, 2);
    cr_expect(strncmp(r.out, "mdlsim: error: give --machine NAME or --mdl FILE, not both\n", 59) == 0, "%s", r.out);
    free(r.out);
}

Test(mdlfile, runs_and_replays_a_program_on_a_description_outside_the_tree, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    write_file("slow.mdl", slow_add);
    char args[512], json[128];
    snprintf(json, sizeof json, "%s/run.json", dir);
    snprintf(args, sizeof args, "run --mdl %s/slow.mdl --roi kernel_exact --no-sensitivity --json %s --record %s/t "
             "-- ../build/programs/exact.x86 1000", dir, json, dir);
    struct run r = mdlsim(args, "2>/dev/null");
    cr_assert_eq(r.status, 0, "%s", args);
    cr_expect_str_eq(r.out, "3000\n", "the program's own output");
    json_t *o = json_load_file(json, 0, NULL);
    cr_assert(o);
    cr_expect_str_eq(json_string_value(json_object_get(o, "machine")), "slowadd");
    cr_expect_eq(json_integer_value(json_object_get(o, "instructions")), 4 + 4 * 1000);
    json_decref(o);
    free(r.out);
    snprintf(args, sizeof args, "replay --mdl %s/slow.mdl --roi kernel_exact --no-sensitivity "
             "--program ../build/programs/exact.x86 --json %s %s/t", dir, json, dir);
    r = mdlsim(args, "2>&1");
    cr_assert_eq(r.status, 0, "%s", r.out);
    cr_expect_eq(strstr(r.out, "mdlsim: compiled"), NULL, "replay reused the build of run");
    free(r.out);
}

Test(sha256, gives_the_digests_of_fips_180_examples)
{
    static const struct { const char *in; size_t repeat; const char *hex; } v[] = {
        { "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        { "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
        { "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        struct sha256 s;
        char hex[SHA256_HEX];
        sha256_init(&s);
        for (size_t r = 0; r < v[i].repeat; r++)
            sha256_update(&s, v[i].in, strlen(v[i].in));
        sha256_hex(&s, hex);
        cr_expect_str_eq(hex, v[i].hex, "example %zu", i);
    }
}

/* add rdx, 4; add rax, 64; cmp rdx, rbp: two one-cycle chains and a compare on p0156. Skylake's
 * scheduler gives each uop a port as it issues, and the chains sometimes meet on one: uiCA has
 * 1.25 cycles per iteration, mdlsim 1.27. The same core with its port sets as abstract resources
 * (port_choice none) spreads them perfectly: 1.00. */
Test(mdlfile, loses_a_cycle_where_two_chains_meet_on_a_port_unless_the_description_turns_port_choice_off,
     .init = make_dir, .fini = remove_dir)
{
    write_file("noports.mdl", "machine noports extends skylake { description \"Skylake, abstract ports\"; }\n"
                              "window { port_choice none @\"spec 15's abstract port sets\"; }\n");
    write_file("skl.mdl", "machine skl extends skylake { description \"Skylake as bundled\"; }\n");
    cr_expect_float_eq(block_cycles("skl.mdl", "4883c2044883c0404839ea"), 1.25, 0.05);
    cr_expect_float_eq(block_cycles("noports.mdl", "4883c2044883c0404839ea"), 1.00, 1e-9);
}
