/* Unit tests of the passes after parsing: resolve (includes, extends, duplicates), check (unit
 * sets, instances, warnings), lower (conjunctive resources, groups, templates, async costs,
 * class defaults, rules, parameters), emit (the C output compiles, names and strings are made
 * safe, files are written only when they change and never on error), and garbage input.
 * Descriptions are written to a fresh temporary directory, removed after each test. */
#include <criterion/criterion.h>
#include "files.h"
#include "fixture.h"
#include "suggest.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "driver.h"
#include "emit.h"
#include "lower.h"
#include "mdl_machine.h"
#include "program.h"
#include "resolve.h"
#include "scratch.h"

extern const struct mdl_machine mdl_machine_skylake;

/* ---- temporary files ----------------------------------------------------------------------- */

static char tmpdir[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s", scratch_path("mdlc-test.XXXXXX"));
    cr_assert(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void remove_tmpdir(void)
{
    if (tmpdir[0])
        nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(resolve, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(check, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(lower, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(emit, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(garbage, .init = make_tmpdir, .fini = remove_tmpdir);

/* TMPDIR/REL (in a static rotation, so a few can be held at once). */
static const char *tmp_path(const char *rel)
{
    static char bufs[8][PATH_MAX];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, PATH_MAX, "%s/%s", tmpdir, rel);
    return b;
}

static void write_bytes(const char *rel, const char *text, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", tmp_path(rel));
    for (char *s = path + strlen(tmpdir) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(path, 0777);
        *s = '/';
    }
    FILE *fp = fopen(path, "wb");
    cr_assert(fp, "cannot write %s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(text, 1, len, fp), len);
    fclose(fp);
}

static void write_file(const char *rel, const char *text) { write_bytes(rel, text, strlen(text)); }

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A description's usual head: one machine, three ports, a generic class. */
#define HEAD "machine t { isa x86_64; }\nports p0, p1, p5;\nclass generic latency 1 ports 1*p0;\n"

/* ---- running the passes directly -------------------------------------------------------------- */

static struct arena ar;
static struct src_manager sm;
static struct diag dg;
static struct program prog;
static char *errbuf;
static size_t errlen;
static FILE *errf;

static const char *diags(void)
{
    fflush(errf);
    return errbuf ? errbuf : "";
}

/* What the last resolve_and_check built, released before the next. */
static bool resolved;

static void release(void) { fixture_release(&ar, &sm, &errf, &errbuf, &resolved); }

/* Resolves and checks tmpdir/REL; returns whether both passes succeeded. */
static bool resolve_and_check(const char *rel, const char *const *dirs, size_t ndirs)
{
    release();
    resolved = true;
    arena_init(&ar);
    src_init(&sm);
    errf = open_memstream(&errbuf, &errlen);
    cr_assert(errf);
    diag_init(&dg, &sm, errf);
    prog = (struct program){ .ar = &ar, .sm = &sm, .diag = &dg };
    struct resolve_opts ro = { dirs, ndirs };
    if (!resolve_program(&prog, tmp_path(rel), &ro))
        return false;
    return check_program(&prog) && !diag_failed(&dg);
}

/* Writes TEXT as m.mdl, runs every pass up to lowering and requires that nothing failed. */
static const struct mdl_machine *lower_text(const char *text)
{
    write_file("m.mdl", text);
    cr_assert(resolve_and_check("m.mdl", NULL, 0), "the description has errors:\n%s", diags());
    const struct mdl_machine *m = lower_program(&prog);
    cr_assert(m, "lower_program failed:\n%s", diags());
    cr_assert_eq(dg.errors, 0, "%s", diags());
    return m;
}

static const struct mdl_template *tmpl(const struct mdl_machine *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_templates; i++)
        if (strcmp(m->templates[i].name, name) == 0)
            return &m->templates[i];
    cr_assert_fail("no template '%s'", name);
    return NULL;
}

static int res_index(const struct mdl_machine *m, const char *name)
{
    for (int i = 0; i < m->n_resources; i++)
        if (m->resources[i].name && strcmp(m->resources[i].name, name) == 0)
            return i;
    return -1;
}

static const struct mdl_resource *res(const struct mdl_machine *m, const char *name)
{
    int i = res_index(m, name);
    cr_assert_geq(i, 0, "no resource '%s'", name);
    return &m->resources[i];
}

/* The cost of template NAME on resource RES, or -1 when it has no use of it. */
static double cost(const struct mdl_machine *m, const char *name, const char *resource)
{
    const struct mdl_template *t = tmpl(m, name);
    int r = res_index(m, resource);
    cr_assert_geq(r, 0, "no resource '%s'", resource);
    for (uint32_t u = t->use_first; u < t->use_first + t->use_count; u++)
        if (m->uses[u].resource == r)
            return m->uses[u].cost;
    return -1;
}

static uint32_t template_index(const struct mdl_machine *m, const char *name)
{
    return (uint32_t)(tmpl(m, name) - m->templates);
}

/* ---- running the whole compiler ---------------------------------------------------------------- */

struct run {
    int status;
    char *err;
};

static struct run run_opts(struct mdlc_opts o)
{
    struct run r = { 0 };
    size_t len = 0, outlen = 0;
    char *out = NULL;
    FILE *e = open_memstream(&r.err, &len), *f = open_memstream(&out, &outlen);
    cr_assert(e && f);
    o.err = e;
    o.out = f;
    r.status = mdlc_run(&o);
    fclose(e);
    fclose(f);
    free(out);
    return r;
}

static struct run check_path(const char *path)
{
    return run_opts((struct mdlc_opts){ .action = MDLC_CHECK, .input = path, .outdir = "." });
}

static struct run emit_to(const char *input, const char *outdir)
{
    return run_opts((struct mdlc_opts){ .action = MDLC_EMIT, .input = input, .outdir = outdir });
}

static const char *runtime_dir(void)
{
    static char dir[PATH_MAX];
    cr_assert(realpath("../runtime", dir), "run the tests from tests/ (../runtime not found)");
    return dir;
}

/* Compiles C_FILE as the Makefile compiles generated/ (warnings are errors). */
static int cc_compile(const char *c_file, const char *incdir, const char *obj)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Wextra -Werror -I'%s' -I'%s' -c '%s' -o '%s' 2>'%s'",
             runtime_dir(), incdir, c_file, obj, tmp_path("cc.log"));
    return system(cmd);
}

static const char *cc_log(void)
{
    static char *log;
    free(log);
    log = files_read(tmp_path("cc.log"), NULL);
    return log ? log : "";
}

/* ======================================== resolve ========================================== */

Test(resolve, reads_includes_relative_to_the_including_file)
{
    write_file("m.mdl", HEAD "include \"sub/a.mdl\";\n");
    write_file("sub/a.mdl", "include \"b.mdl\";\ninsn A latency 1 ports 1*p0;\n");
    write_file("sub/b.mdl", "insn B latency 1 ports 1*p1;\n");
    write_file("b.mdl", "insn WRONG latency 1 ports 1*p1;\n");
    cr_assert(resolve_and_check("m.mdl", NULL, 0), "%s", diags());
    cr_expect_eq(prog.forms.n, 2);
    cr_expect_not_null(map_get(&prog.form_map, "A"));
    cr_expect_not_null(map_get(&prog.form_map, "B"));
    cr_expect_null(map_get(&prog.form_map, "WRONG"), "b.mdl next to m.mdl is not the one sub/a.mdl includes");
    cr_expect_eq(prog.files.n, 3, "every file read is listed for the depfile");
}

Test(resolve, searches_include_dirs_after_the_including_directory)
{
    write_file("m.mdl", HEAD "include \"lib.mdl\";\ninclude \"only-in-dir.mdl\";\n");
    write_file("lib.mdl", "insn LOCAL latency 1 ports 1*p0;\n");
    write_file("dir/lib.mdl", "insn REMOTE latency 1 ports 1*p0;\n");
    write_file("dir/only-in-dir.mdl", "insn FROM_DIR latency 1 ports 1*p0;\n");
    const char *dirs[] = { tmp_path("dir") };
    cr_assert(resolve_and_check("m.mdl", dirs, 1), "%s", diags());
    cr_expect_not_null(map_get(&prog.form_map, "LOCAL"));
    cr_expect_null(map_get(&prog.form_map, "REMOTE"));
    cr_expect_not_null(map_get(&prog.form_map, "FROM_DIR"));
}

Test(resolve, reports_an_include_missing_everywhere)
{
    write_file("m.mdl", HEAD "include \"nowhere.mdl\";\n");
    const char *dirs[] = { tmp_path("dir") };
    cr_expect_not(resolve_and_check("m.mdl", dirs, 1));
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), ":4:9: error: included file 'nowhere.mdl' not found"), "%s", diags());
}

static const char base_mdl[] =
    "machine base { isa aarch64; description \"base\"; }\n"
    "ports p0, p1;\n"
    "units U*2;\n"
    "class generic latency 1 ports 1*p0;\n"
    "insn A latency 1 ports 1*p0;\n"
    "insn B latency 2 ports 1*p0;\n"
    "window { rob 10; scheduler 4; }\n";

Test(resolve, lets_a_child_override_its_parent_and_inherit_the_rest)
{
    write_file("base.mdl", base_mdl);
    write_file("child.mdl", "machine child extends base { description \"child\"; }\n"
                            "units U*4;\n"
                            "insn A latency 3 ports 1*p1;\n"
                            "window { scheduler 5; }\n");
    cr_assert(resolve_and_check("child.mdl", NULL, 0), "%s", diags());
    cr_expect_eq(prog.layers.n, 2);
    cr_expect_str_eq(prog.name, "child");
    const struct prog_unit *u = map_get(&prog.unit_map, "U");
    cr_assert_not_null(u);
    cr_expect_eq(u->unit->count, 4, "the child's units replace the parent's");

    const struct mdl_machine *m = lower_program(&prog);
    cr_assert_not_null(m, "%s", diags());
    cr_expect_eq(m->isa, MDL_ISA_AARCH64, "the isa is inherited");
    cr_expect_str_eq(m->description, "child");
    cr_expect_eq(m->rob, 10, "a key the child does not give keeps the parent's value");
    cr_expect_eq(m->scheduler, 5, "a key the child gives replaces the parent's value");
    cr_expect_eq(m->n_forms, 2);
    cr_expect_float_eq(tmpl(m, "A")->latency_min, 3.0, 1e-6);
    cr_expect_float_eq(tmpl(m, "B")->latency_min, 2.0, 1e-6);
    cr_expect_float_eq(cost(m, "A", "p1"), 1.0, 1e-6);
    cr_expect_lt(cost(m, "A", "p0"), 0, "the parent's mapping of A is gone");
}

Test(resolve, rejects_a_duplicate_in_one_layer_but_not_across_layers)
{
    write_file("base.mdl", base_mdl);
    write_file("child.mdl", "machine child extends base { }\n"
                            "insn A latency 3 ports 1*p1;\n"
                            "insn A latency 4 ports 1*p1;\n");
    cr_expect_not(resolve_and_check("child.mdl", NULL, 0));
    cr_expect_eq(dg.errors, 1, "only the child's second A is an error:\n%s", diags());
    cr_expect(strstr(diags(), "child.mdl:3:6: error: redefinition of instruction form 'A'"), "%s", diags());
    cr_expect(strstr(diags(), "child.mdl:2:6: note: previous definition is here"), "%s", diags());
}

Test(resolve, finds_a_parent_given_by_path)
{
    write_file("intel/base.mdl", base_mdl);
    write_file("child.mdl", "machine child extends \"intel/base.mdl\" { }\n");
    cr_assert(resolve_and_check("child.mdl", NULL, 0), "%s", diags());
    cr_expect_str_eq(prog.layers.v[0].machine->name.name, "base");
}

Test(resolve, reports_a_missing_parent_at_its_name)
{
    write_file("child.mdl", "machine child extends nobody { isa x86_64; }\n");
    cr_expect_not(resolve_and_check("child.mdl", NULL, 0));
    cr_expect(strstr(diags(), "child.mdl:1:23: error: machine 'nobody' not found (looked for 'nobody.mdl')"),
              "%s", diags());
}

Test(resolve, stops_includes_nested_too_deep)
{
    char name[32], text[64];
    write_file("m.mdl", HEAD "include \"i0.mdl\";\n");
    for (int i = 0; i < 80; i++) {
        snprintf(name, sizeof name, "i%d.mdl", i);
        snprintf(text, sizeof text, "include \"i%d.mdl\";\n", i + 1);
        write_file(name, text);
    }
    write_file("i80.mdl", "insn END latency 1;\n");
    cr_expect_not(resolve_and_check("m.mdl", NULL, 0));
    cr_expect_eq(dg.errors, 1, "%s", diags());
    cr_expect(strstr(diags(), "includes nested deeper than 64 files"), "%s", diags());
}

Test(resolve, lists_every_file_read_in_the_depfile)
{
    write_file("m.mdl", HEAD "include \"a.mdl\";\n");
    write_file("a.mdl", "insn A latency 1 ports 1*p0;\n");
    char *out = NULL;
    struct run r = run_opts((struct mdlc_opts){ .action = MDLC_CHECK, .input = tmp_path("m.mdl"), .outdir = ".",
                                                .depfile = tmp_path("m.d"), .deptarget = "stamp" });
    cr_assert_eq(r.status, 0, "%s", r.err);
    out = files_read(tmp_path("m.d"), NULL);
    cr_assert_not_null(out, "no depfile written");
    char want[4 * PATH_MAX];
    snprintf(want, sizeof want, "stamp: %s %s\n%s:\n%s:\n", tmp_path("m.mdl"), tmp_path("a.mdl"), tmp_path("m.mdl"),
             tmp_path("a.mdl"));
    cr_expect_str_eq(out, want);
    free(out);
    free(r.err);
}

Test(resolve, escapes_spaces_of_paths_in_the_depfile)
{
    /* make splits prerequisites at spaces: a path with one must be written 'my\ dir/m.mdl' */
    write_file("my dir/m.mdl", HEAD);
    struct run r = run_opts((struct mdlc_opts){ .action = MDLC_CHECK, .input = tmp_path("my dir/m.mdl"),
                                                .outdir = ".", .depfile = tmp_path("m.d"), .deptarget = "stamp" });
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = files_read(tmp_path("m.d"), NULL);
    cr_assert_not_null(out);
    cr_expect(strstr(out, "/my\\ dir/m.mdl"), "the space is not escaped:\n%s", out);
    cr_expect_null(strstr(out, "/my dir/"), "an unescaped space splits the path:\n%s", out);
    free(out);
    free(r.err);
}

Test(resolve, checks_that_an_extended_file_declares_the_machine_named)
{
    write_file("base.mdl", "machine other { isa x86_64; }\n");
    write_file("child.mdl", "machine child extends base { }\nports p0;\nclass generic latency 1 ports 1*p0;\n");
    cr_expect_not(resolve_and_check("child.mdl", NULL, 0));
    cr_expect(strstr(diags(), "child.mdl:1:23: error: "), "the error is not at 'base':\n%s", diags());
    cr_expect(strstr(diags(), "'other'"), "%s", diags());
}

Test(resolve, suggests_the_closest_name_only_when_it_is_close)
{
    static const char *const names[] = { "frontend", "window", "cache", "memory", "branch" };
    cr_expect_str_eq(suggest_closest("frontnd", names, 5), "frontend");
    cr_expect_str_eq(suggest_closest("windwo", names, 5), "window");
    cr_expect_null(suggest_closest("pipeline", names, 5));
    cr_expect_null(suggest_closest("x", names, 5));
}

/* "mian" is one swap from "main" and two substitutions from "mmap": the swap is the closer. */
Test(resolve, counts_two_neighbours_swapped_as_one_edit)
{
    static const char *const names[] = { "mmap", "main" };
    cr_expect_str_eq(suggest_closest("mian", names, 2), "main");
    cr_expect_str_eq(suggest_closest("kernel_exatc", (const char *const[]){ "kernel_exact" }, 1), "kernel_exact");
}

/* ========================================= check =========================================== */

Test(check, expands_compact_unit_sets_to_instances)
{
    write_file("m.mdl", "machine t { isa x86_64; }\nports p0, p1, p5, p6;\nunits U*2;\n"
                        "class generic latency 1 ports 1*p0;\n");
    cr_assert(resolve_and_check("m.mdl", NULL, 0), "%s", diags());
    const struct prog_unit *p0 = map_get(&prog.unit_map, "p0"), *p6 = map_get(&prog.unit_map, "p6"),
                           *u = map_get(&prog.unit_map, "U");
    cr_assert(p0 && p6 && u);
    cr_expect_eq(p0->first, 0, "instances are numbered in declaration order");
    cr_expect_eq(p6->first, 3);
    cr_expect_eq(u->first, 4);
    cr_expect_eq(prog.n_atoms, 6);
    cr_expect_eq(check_unit_set(&prog, "p0156"), 0xfull);
    cr_expect_eq(check_unit_set(&prog, "p06"), 0x9ull);
    cr_expect_eq(check_unit_set(&prog, "U"), 0x30ull);
    cr_expect_eq(check_unit_set(&prog, "p07"), 0, "p7 is not declared");
    cr_expect_eq(check_unit_set(&prog, "q01"), 0);
    cr_expect_str_eq(check_atom_name(&prog, 5), "U[1]");
    cr_expect_str_eq(check_atom_name(&prog, 2), "p5");
}

Test(check, knows_the_classes_of_class_def)
{
    cr_expect_eq(check_class_index("generic"), 0);
    cr_expect_eq(check_class_index("int_alu"), MDL_CLASS_INT_ALU);
    cr_expect_eq(check_class_index("system"), MDL_CLASS_SYSTEM);
    cr_expect_eq(check_class_index("no_such_class"), -1);
    cr_expect_eq(check_class_count, MDL_CLASS_COUNT);
}

Test(check, refuses_more_than_64_unit_instances)
{
    write_file("m.mdl", "machine t { isa x86_64; }\nports p0;\nunits A*40, B*30;\n"
                        "class generic latency 1 ports 1*p0;\n");
    cr_expect_not(resolve_and_check("m.mdl", NULL, 0));
    cr_expect(strstr(diags(), "m.mdl:3:13: error: too many unit instances: at most 64 in one machine"), "%s", diags());
}

Test(check, converts_parameter_values_to_base_units)
{
    write_file("m.mdl", HEAD "cache L2 { level 2; size 1 MiB; ways 16; line 64 B; latency 12 cycles; "
                             "bandwidth 32 B/cycle; }\n");
    cr_assert(resolve_and_check("m.mdl", NULL, 0), "%s", diags());
    const struct prog_block *b = map_get(&prog.block_map, "block:cache:L2");
    cr_assert_not_null(b);
    cr_expect_float_eq(b->vals[P_CACHE_size].num, 1048576.0, 1e-6);
    cr_expect_float_eq(b->vals[P_CACHE_bandwidth].num, 32.0, 1e-6);
    cr_expect_float_eq(b->vals[P_CACHE_latency].num, 12.0, 1e-6);
}

Test(check, lets_warnings_pass_unless_werror)
{
    write_file("m.mdl", HEAD "maximum 3 from p0, p1, p5;\n");
    struct run r = check_path(tmp_path("m.mdl"));
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "m.mdl:4:9: warning: 'maximum 3' never binds: the group has only 3 instances"), "%s", r.err);
    free(r.err);

    r = run_opts((struct mdlc_opts){ .action = MDLC_CHECK, .input = tmp_path("m.mdl"), .outdir = ".", .werror = true });
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "m.mdl:4:9: error: 'maximum 3' never binds"), "%s", r.err);
    cr_expect(strstr(r.err, " generated.\n"), "%s", r.err);
    free(r.err);
}

Test(check, reports_missing_sources_only_with_wmissing_source)
{
    write_file("m.mdl", HEAD "window { rob 224; scheduler 97 @\"measured\"; }\n");
    struct run r = check_path(tmp_path("m.mdl"));
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_null(strstr(r.err, "has no source"), "a first description gets no source warnings:\n%s", r.err);
    free(r.err);

    r = run_opts((struct mdlc_opts){ .action = MDLC_CHECK, .input = tmp_path("m.mdl"), .outdir = ".",
                                     .warn_missing_source = true });
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "m.mdl:4:14: warning: 'rob' has no source"), "%s", r.err);
    cr_expect_null(strstr(r.err, "'scheduler' has no source"), "%s", r.err);
    free(r.err);
}

/* The Makefile compiles them so; this says which value lacks a source when make is not run. */
Test(check, finds_a_source_for_every_number_of_the_bundled_machines)
{
    const char *machines[] = { "skylake", "icelake", "alderlake", "cortex-a72" };
    const char *dirs[] = { "../machines" };
    for (size_t i = 0; i < sizeof machines / sizeof *machines; i++) {
        char path[128];
        snprintf(path, sizeof path, "../machines/%s.mdl", machines[i]);
        struct run r = run_opts((struct mdlc_opts){ .action = MDLC_CHECK, .input = path, .outdir = ".",
                                                    .include_dirs = dirs, .n_include_dirs = 1,
                                                    .warn_missing_source = true, .werror = true });
        cr_expect_eq(r.status, 0, "%s:\n%s", path, r.err);
        free(r.err);
    }
}

/* ========================================= lower =========================================== */

Test(lower, makes_a_conjunctive_resource_for_each_set_of_a_mapping)
{
    const struct mdl_machine *m = lower_text("machine t { isa x86_64; }\nports p0, p1;\n"
                                             "class generic latency 1 ports 1*p0;\n"
                                             "insn A latency 1 ports 1*p01+1*p0;\n"
                                             "insn B latency 1 ports 1*p01;\n");
    cr_expect_eq(m->n_resources, 2, "p0 and p01, and no other");
    cr_expect_eq(res(m, "p01")->units, 0x3ull);
    cr_expect_eq(res(m, "p01")->width, 2);
    cr_expect_eq(res(m, "p0")->width, 1);
    /* A: a uop on p0 and one on p0|p1. p0 takes 1 of its 1 instance; p01 takes both uops on 2 */
    cr_expect_float_eq(cost(m, "A", "p0"), 1.0, 1e-6);
    cr_expect_float_eq(cost(m, "A", "p01"), 1.0, 1e-6);
    /* B: one uop on p0|p1 costs half of p01 and nothing on p0 alone */
    cr_expect_float_eq(cost(m, "B", "p01"), 0.5, 1e-6);
    cr_expect_lt(cost(m, "B", "p0"), 0);
}

Test(lower, makes_no_union_of_disjoint_sets)
{
    const struct mdl_machine *m = lower_text(HEAD "insn A latency 1 ports 1*p0;\ninsn B latency 1 ports 1*p5;\n");
    cr_expect_eq(m->n_resources, 2);
    for (int i = 0; i < m->n_resources; i++)
        cr_expect_neq(m->resources[i].units, 0x5ull, "p05 was made from disjoint p0 and p5");
    cr_expect_eq(res_index(m, "p05"), -1);
}

Test(lower, makes_the_union_of_overlapping_sets)
{
    const struct mdl_machine *m = lower_text(HEAD "insn A latency 1 ports 1*p01;\ninsn B latency 1 ports 1*p15;\n");
    cr_expect_eq(m->n_resources, 4, "p01, p15, p0 and their union p015");
    const struct mdl_resource *u = res(m, "p015");
    cr_expect_eq(u->units, 0x7ull);
    cr_expect_eq(u->width, 3);
    cr_expect_float_eq(cost(m, "A", "p015"), 1.0 / 3, 1e-6);
    cr_expect_float_eq(cost(m, "B", "p015"), 1.0 / 3, 1e-6);
    cr_expect_float_eq(cost(m, "A", "p01"), 0.5, 1e-6);
    cr_expect_lt(cost(m, "A", "p15"), 0);
}

Test(lower, adds_a_group_resource_for_maximum)
{
    const struct mdl_machine *m = lower_text("machine t { isa x86_64; }\nports p0, p1, p5, p6;\n"
                                             "class generic latency 1 ports 1*p0;\n"
                                             "maximum 2 from p0, p1, p5;\n"
                                             "insn A latency 1 ports 1*p0+1*p5;\n"
                                             "insn B latency 1 ports 1*p6;\n");
    int g = -1;
    for (int i = 0; i < m->n_resources; i++)
        if (m->resources[i].is_group) {
            cr_expect_eq(g, -1, "more than one group");
            g = i;
        }
    cr_assert_geq(g, 0, "no group resource");
    cr_expect_eq(m->resources[g].units, 0x7ull);
    cr_expect_eq(m->resources[g].width, 2);
    /* two uops inside the group, two of them may issue per cycle */
    cr_expect_float_eq(cost(m, "A", m->resources[g].name), 1.0, 1e-6);
    cr_expect_lt(cost(m, "B", m->resources[g].name), 0, "p6 is outside the group");
}

Test(lower, merges_template_alternatives_position_by_position)
{
    const struct mdl_machine *m = lower_text("machine t { isa x86_64; }\nports p0, p1;\nunits U*2;\n"
                                             "class generic latency 1 ports 1*p0;\n"
                                             "insn M template = p0+U[0], p1 | p1+U[1], p1;\n");
    /* cycle 1: p0 or p1, and U[0] or U[1]; cycle 2: p1 */
    const struct mdl_template *t = tmpl(m, "M");
    cr_expect_float_eq(t->latency_min, 2.0, 1e-6, "the template is two cycles long");
    cr_expect_float_eq(t->latency_max, 2.0, 1e-6);
    cr_expect_eq(res(m, "U")->units, 0xcull);
    cr_expect_float_eq(cost(m, "M", "p01"), 1.0, 1e-6);
    cr_expect_float_eq(cost(m, "M", "U"), 0.5, 1e-6);
    cr_expect_float_eq(cost(m, "M", "p1"), 1.0, 1e-6);
    cr_expect_lt(cost(m, "M", "p0"), 0);
}

Test(lower, counts_repeats_and_empty_cycles_in_a_template)
{
    const struct mdl_machine *m = lower_text(HEAD "insn D template = p0, NOTHING*3;\n"
                                             "insn R template = p0*3;\n"
                                             "insn L latency 2 template = p0, NOTHING*3;\n");
    cr_expect_float_eq(tmpl(m, "D")->latency_min, 4.0, 1e-6);
    cr_expect_float_eq(cost(m, "D", "p0"), 1.0, 1e-6);
    cr_expect_float_eq(tmpl(m, "R")->latency_min, 3.0, 1e-6);
    cr_expect_float_eq(cost(m, "R", "p0"), 3.0, 1e-6);
    cr_expect_float_eq(tmpl(m, "L")->latency_min, 2.0, 1e-6, "an explicit latency wins over the length");
}

Test(lower, costs_an_asynchronous_use_its_quantity_over_the_capacity)
{
    const struct mdl_machine *m = lower_text(HEAD "async RD*4, WR;\n"
                                             "insn L latency 4 ports 1*p1 async RD(2), WR;\n");
    cr_assert_eq(m->n_async, 2);
    cr_expect_str_eq(m->async[0].name, "RD");
    cr_expect_eq(m->async[0].capacity, 4);
    const struct mdl_template *t = tmpl(m, "L");
    cr_assert_eq(t->async_count, 2);
    const struct mdl_async_use *u = &m->async_uses[t->async_first];
    cr_expect_eq(u[0].resource, 0);
    cr_expect_float_eq(u[0].cost, 0.5, 1e-6);
    cr_expect_eq(u[1].resource, 1);
    cr_expect_float_eq(u[1].cost, 1.0, 1e-6);
    cr_expect_eq(res_index(m, "RD"), -1, "asynchronous resources are not port resources");
}

Test(lower, falls_back_to_the_generic_default_for_undescribed_classes)
{
    const struct mdl_machine *m = lower_text(HEAD "class int_alu latency 1 ports 1*p01;\n"
                                             "insn A latency 1 ports 1*p5;\n");
    uint32_t generic = m->class_default[MDL_CLASS_GENERIC], alu = m->class_default[MDL_CLASS_INT_ALU];
    cr_assert_lt(generic, m->n_templates);
    cr_expect_str_eq(m->templates[generic].name, "class:generic");
    cr_expect_str_eq(m->templates[alu].name, "class:int_alu");
    cr_expect_eq(m->templates[alu].cls, MDL_CLASS_INT_ALU);
    for (int c = 0; c < MDL_CLASS_COUNT; c++)
        if (c != MDL_CLASS_INT_ALU)
            cr_expect_eq(m->class_default[c], generic, "class %d does not fall back to generic", c);
}

Test(lower, sorts_forms_by_name_before_the_class_defaults)
{
    const struct mdl_machine *m = lower_text(HEAD "insn Z latency 1;\ninsn ADD (R64, R64) latency 1;\n"
                                             "insn ADD (R64, M64) latency 1;\ninsn M latency 1;\n");
    cr_assert_eq(m->n_forms, 4);
    cr_assert_eq(m->n_templates, 5);
    cr_expect_str_eq(m->templates[0].name, "ADD (R64, M64)");
    cr_expect_str_eq(m->templates[1].name, "ADD (R64, R64)");
    cr_expect_str_eq(m->templates[2].name, "M");
    cr_expect_str_eq(m->templates[3].name, "Z");
    cr_expect_str_eq(m->templates[4].name, "class:generic");
}

Test(lower, fills_instruction_defaults_and_given_values)
{
    const struct mdl_machine *m = lower_text(HEAD "insn N;\ninsn A latency 1..6 uops 1/2 tp 0.25 class load;\n");
    const struct mdl_template *n = tmpl(m, "N"), *a = tmpl(m, "A");
    cr_expect_float_eq(n->latency_min, 1.0, 1e-6, "the default latency is 1");
    cr_expect_eq(n->uops_fused, 1);
    cr_expect_eq(n->uops_unfused, 1);
    cr_expect_eq(n->cls, MDL_CLASS_UNSET, "a form naming no class takes the decoder's class");
    cr_expect_eq(n->use_count, 0, "no mapping, no resource used");
    cr_expect_float_eq(a->latency_min, 1.0, 1e-6);
    cr_expect_float_eq(a->latency_max, 6.0, 1e-6);
    cr_expect_eq(a->uops_fused, 1);
    cr_expect_eq(a->uops_unfused, 2);
    cr_expect_float_eq(a->tp, 0.25, 1e-6);
    cr_expect_eq(a->cls, MDL_CLASS_LOAD);
}

Test(lower, shares_one_run_of_uses_between_identical_mappings)
{
    const struct mdl_machine *m = lower_text(HEAD "insn A latency 1 ports 1*p01+1*p5;\n"
                                             "insn B latency 3 ports 1*p01+1*p5;\n");
    const struct mdl_template *a = tmpl(m, "A"), *b = tmpl(m, "B");
    cr_expect_gt(a->use_count, 0);
    cr_expect_eq(a->use_first, b->use_first);
    cr_expect_eq(a->use_count, b->use_count);
}

Test(lower, lowers_replacements_to_templates_and_operand_slots)
{
    const struct mdl_machine *m = lower_text(HEAD "insn MOV (R64, R64) latency 1 ports 1*p0;\n"
                                             "insn XOR (R32, R32) latency 1 ports 1*p0;\n"
                                             "insn CMP (R64, R64) latency 1 ports 1*p0;\n"
                                             "insn JZ (Rel32) latency 1 ports 1*p5;\n"
                                             "replace MOV (R64, R64) $d, $s with nop $s -> $d;\n"
                                             "replace XOR (R32, R32) $a, $a with nop -> $a;\n"
                                             "replace CMP (R64, R64) ++ JZ (Rel32) with JZ (Rel32);\n");
    cr_assert_eq(m->n_replaces, 3);
    const struct mdl_replace *mov = &m->replaces[0], *xor = &m->replaces[1], *fuse = &m->replaces[2];
    cr_expect_eq(mov->kind, MDL_REPLACE_NOP);
    cr_assert_eq(mov->first_count, 1);
    cr_expect_eq(m->match[mov->first], template_index(m, "MOV (R64, R64)"));
    cr_expect_eq(mov->reads, 0x2, "$s is operand slot 1");
    cr_expect_eq(mov->writes, 0x1, "$d is operand slot 0");
    cr_expect_eq(mov->n_same, 0);
    cr_expect_eq(mov->target, -1);

    cr_expect_eq(xor->reads, 0);
    cr_expect_eq(xor->writes, 0x1);
    cr_assert_eq(xor->n_same, 1, "$a, $a: both operands must be the same register");
    cr_expect_eq(xor->same[0][0], 0);
    cr_expect_eq(xor->same[0][1], 1);

    cr_expect_eq(fuse->kind, MDL_REPLACE_FORM);
    cr_expect(fuse->pair);
    cr_assert_eq(fuse->second_count, 1);
    cr_expect_eq(m->match[fuse->second], template_index(m, "JZ (Rel32)"));
    cr_expect_eq(fuse->target, (int32_t)template_index(m, "JZ (Rel32)"));
}

Test(lower, lowers_bypasses_to_classes_and_forms)
{
    const struct mdl_machine *m = lower_text(HEAD "insn MOV (R64, R64) latency 1 ports 1*p0;\n"
                                             "insn MOV (R64, M64) latency 1 ports 1*p0;\n"
                                             "bypass latency +1 for vec_alu -> int_alu;\n"
                                             "bypass latency 5 for store -> memory load;\n"
                                             "bypass latency -2 for MOV -> int_alu;\n");
    cr_assert_eq(m->n_bypasses, 3);
    const struct mdl_bypass *b = m->bypasses;
    cr_expect_eq(b[0].from_classes, 1ull << MDL_CLASS_VEC_ALU);
    cr_expect_eq(b[0].to_classes, 1ull << MDL_CLASS_INT_ALU);
    cr_expect_eq(b[0].sign, 1);
    cr_expect_float_eq(b[0].latency, 1.0, 1e-6);
    cr_expect_eq(b[0].from_count, 0);
    cr_expect(b[1].memory);
    cr_expect_eq(b[1].sign, 0);
    cr_expect_float_eq(b[1].latency, 5.0, 1e-6);
    cr_expect_eq(b[2].sign, -1);
    cr_expect_eq(b[2].from_classes, 0);
    cr_expect_eq(b[2].from_count, 2, "a bare mnemonic names all its forms");
}

Test(lower, marks_the_forms_a_depends_rule_selects_with_what_they_read)
{
    const struct mdl_machine *m = lower_text(HEAD "insn BSR (R64, R64) latency 3 ports 1*p0;\n"
                                             "insn BSR (R64, M64) latency 3 ports 1*p0;\n"
                                             "insn SHL (R64, CL) latency 1 ports 1*p0;\n"
                                             "insn SHL (R64, I8) latency 1 ports 1*p0;\n"
                                             "depends BSR on destination;\n"
                                             "depends SHL (R64, CL) on flags;\n"
                                             "depends {SHL} (R64, CL) on destination, flags;\n");
    uint8_t dest = 1u << MDL_DEPEND_DESTINATION, flags = 1u << MDL_DEPEND_FLAGS;
    cr_expect_eq(tmpl(m, "BSR (R64, R64)")->depends, dest, "a bare mnemonic names all its forms");
    cr_expect_eq(tmpl(m, "BSR (R64, M64)")->depends, dest);
    cr_expect_eq(tmpl(m, "SHL (R64, CL)")->depends, dest | flags, "rules add up");
    cr_expect_eq(tmpl(m, "SHL (R64, I8)")->depends, 0);
    cr_expect_eq(tmpl(m, "class:generic")->depends, 0);
    cr_expect_eq(m->n_bypasses, 0);
}

Test(lower, orders_caches_by_level_with_sizes_in_bytes)
{
    const struct mdl_machine *m = lower_text(
        HEAD "cache L2 { level 2; size 1 MiB; ways 16; line 64 B; latency 12 cycles; }\n"
             "cache L1D { level 1; type data; size 32 KiB; ways 8; line 64 B; latency 4; bandwidth 64 B/cycle;"
             " policy lru; prefetch stride; }\n"
             "frontend { decode_width 4; fetch_bytes 16 B; }\nwindow { rob 224; }\n"
             "memory { latency 200 cycles; bandwidth 16 B/cycle; }\n");
    cr_assert_eq(m->n_caches, 2);
    cr_expect_str_eq(m->caches[0].name, "L1D");
    cr_expect_eq(m->caches[0].size, 32768);
    cr_expect_eq(m->caches[0].ways, 8);
    cr_expect_eq(m->caches[0].line, 64);
    cr_expect_eq(m->caches[0].kind, MDL_CACHE_DATA);
    cr_expect_eq(m->caches[0].policy, MDL_POLICY_LRU);
    cr_expect_eq(m->caches[0].prefetch, MDL_PREFETCH_STRIDE);
    cr_expect_float_eq(m->caches[0].latency, 4.0, 1e-6);
    cr_expect_float_eq(m->caches[0].bandwidth, 64.0, 1e-6);
    cr_expect_str_eq(m->caches[1].name, "L2");
    cr_expect_eq(m->caches[1].size, 1048576);
    cr_expect_eq(m->caches[1].kind, MDL_CACHE_UNIFIED, "the default cache type");
    cr_expect_eq(m->caches[1].policy, MDL_POLICY_PLRU, "the default policy");
    cr_expect_eq(m->decode_width, 4);
    cr_expect_eq(m->fetch_bytes, 16);
    cr_expect_eq(m->rob, 224);
    cr_expect_float_eq(m->memory_latency, 200.0, 1e-6);
    cr_expect_float_eq(m->memory_bandwidth, 16.0, 1e-6);
}

/* The uncertain values of M, one line each: "name [vary param index] value lo..hi | reason | where". */
static char *uncertain_lines(const struct mdl_machine *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert(out);
    for (uint32_t i = 0; i < m->n_uncertain; i++) {
        const struct mdl_uncertain *u = &m->uncertain[i];
        fprintf(out, "%s [%u %u %u] %g %g..%g | %s | %s\n", u->name, u->vary, u->param, u->index, u->value, u->lo,
                u->hi, u->reason, u->where);
    }
    fclose(out);
    return text;
}

Test(lower, lists_each_value_given_with_a_range_where_it_lives_in_base_units)
{
    const struct mdl_machine *m = lower_text(
        HEAD "source sdm \"the manual\";\n"
             "cache L2 { level 2; size 1 MiB; ways 16; line 64 B; latency 12 cycles range 11..14 @sdm;\n"
             "           bandwidth 1 KiB/cycle range 0.5..2 \"one to four beats\" @sdm; }\n"
             "cache L1D { level 1; size 32 KiB; ways 8; line 64 B; latency 4 cycles; }\n"
             "memory { store_forward_fail 16 cycles range 11..20 @\"estimate\"; latency 200 cycles; }\n"
             "class int_mul latency 3 range 3..4 \"other forms\" ports 1*p1 @sdm;\n"
             "insn IMUL (R64, R64) latency 3 range 3..5 ports 1*p1 @\"estimate\";\n"
             "insn ADD (R64, R64) latency 1 ports 1*p0;\n"
             "bypass latency 5 range 4..5 for store -> memory load @\"estimate\";\n");
    char *lines = uncertain_lines(m);
    char want[1024];
    snprintf(want, sizeof want,
             "cache.L2.latency [0 %d 1] 12 11..14 | the manual | %s:5\n"
             "cache.L2.bandwidth [0 %d 1] 1024 512..2048 | one to four beats | %s:6\n"
             "memory.store_forward_fail [0 %d 0] 16 11..20 | estimate | %s:8\n"
             "insn.IMUL (R64, R64).latency [1 0 1] 3 3..5 | estimate | %s:10\n"
             "class.int_mul.latency [1 0 3] 3 3..4 | other forms | %s:9\n"
             "bypass.store -> memory load [2 0 0] 5 4..5 | estimate | %s:12\n",
             MDL_PARAM_CACHE_latency, tmp_path("m.mdl"), MDL_PARAM_CACHE_bandwidth, tmp_path("m.mdl"),
             MDL_PARAM_MEMORY_store_forward_fail, tmp_path("m.mdl"), tmp_path("m.mdl"), tmp_path("m.mdl"),
             tmp_path("m.mdl"));
    cr_expect_str_eq(lines, want, "the cache's index is its place among the caches, sorted by level");
    free(lines);
}

Test(resolve, drops_a_parents_range_where_the_child_gives_the_value_without_one)
{
    write_file("base.mdl", "machine base { isa x86_64; }\nports p0, p1;\nclass generic latency 1 ports 1*p0;\n"
                           "class int_mul latency 3 range 3..4 ports 1*p1 @\"estimate\";\n"
                           "window { rob 10 range 8..12 @\"estimate\"; scheduler 4 range 3..6 @\"estimate\"; }\n"
                           "bypass latency 5 range 4..5 for store -> memory load @\"estimate\";\n"
                           "bypass latency 6 range 5..7 for vec_store -> memory vec_load @\"estimate\";\n");
    write_file("child.mdl", "machine child extends base { }\n"
                            "class int_mul latency 4 ports 1*p1;\n"
                            "window { rob 20; scheduler 5 range 4..8 @\"estimate\"; }\n"
                            "bypass latency 4 for store -> memory load @\"measured\";\n");
    cr_assert(resolve_and_check("child.mdl", NULL, 0), "%s", diags());
    const struct mdl_machine *m = lower_program(&prog);
    cr_assert_not_null(m, "%s", diags());
    char *lines = uncertain_lines(m);
    char want[512];
    snprintf(want, sizeof want,
             "window.scheduler [0 %d 0] 5 4..8 | estimate | %s:3\n"
             "bypass.vec_store -> memory vec_load [2 0 1] 6 5..7 | estimate | %s:7\n",
             MDL_PARAM_WINDOW_scheduler, tmp_path("child.mdl"), tmp_path("base.mdl"));
    cr_expect_str_eq(lines, want, "an override without a range drops the parent's; a restated rule replaces its range:\n%s", lines);
    free(lines);
}

/* ========================================== emit =========================================== */

static const char full_mdl[] =
    "machine full { isa x86_64; qemu_cpu \"Skylake-Client\"; description \"a test machine\"; }\n"
    "source s \"somewhere\";\n"
    "ports p0, p1, p5 @s;\nunits DIV, U*2;\nasync RD*2;\n"
    "maximum 2 from p0, p1, p5;\n"
    "class generic latency 1 ports 1*p0;\nclass int_alu latency 1 ports 1*p015;\n"
    "insn ADD (R64, R64) latency 1 ports 1*p015 tp 0.33 @s;\n"
    "insn DIV (R64) class int_div latency 20..26 template = p0+DIV*6, U[0] | p0+DIV*6, U[1];\n"
    "insn MOV (R64, M64) latency 5 ports 1*p1 async RD(1);\n"
    "insn MOV (R64, R64) latency 1 ports 1*p015;\n"
    "insn CMP (R64, R64) latency 1 ports 1*p05;\ninsn JZ (Rel32) latency 1 ports 1*p5;\n"
    "replace MOV (R64, R64) $d, $s with nop $s -> $d;\n"
    "replace CMP (R64, R64) ++ JZ (Rel32) with JZ (Rel32);\n"
    "bypass latency +1 for vec_alu -> int_alu;\n"
    "frontend { decode_width 4; issue_width 4; }\nwindow { rob 224; retire_width 4; }\n"
    "cache L1D { level 1; size 32 KiB; ways 8; line 64 B; latency 4 cycles; bandwidth 64 B/cycle; }\n"
    "branch { predictor tage; btb_entries 4096; mispredict_penalty 16 cycles range 15..20 @\"estimate\"; }\n";

Test(emit, writes_c_that_compiles_with_warnings_as_errors)
{
    write_file("full.mdl", full_mdl);
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(exists(tmp_path("out/full.c")) && exists(tmp_path("out/full.h")));
    cr_expect_eq(cc_compile(tmp_path("out/full.c"), tmp_path("out"), tmp_path("full.o")), 0, "%s", cc_log());
    char *c = files_read(tmp_path("out/full.c"), NULL);
    cr_expect(strstr(c, "const struct mdl_machine mdl_machine_full = {"), "the machine object is missing");
    free(c);
    free(r.err);
}

Test(emit, turns_a_hyphenated_machine_name_into_a_c_identifier)
{
    write_file("m.mdl", "machine cortex-a72.r1 { isa aarch64; }\nports p0;\nclass generic latency 1 ports 1*p0;\n");
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("m.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(exists(tmp_path("out/cortex-a72.r1.c")), "outputs are named after the machine");
    cr_assert(exists(tmp_path("out/cortex-a72.r1.h")));
    char *c = files_read(tmp_path("out/cortex-a72.r1.c"), NULL), *h = files_read(tmp_path("out/cortex-a72.r1.h"), NULL);
    cr_expect(strstr(c, "mdl_machine_cortex_a72_r1 = {"), "%s", c);
    cr_expect(strstr(h, "extern const struct mdl_machine mdl_machine_cortex_a72_r1;"), "%s", h);
    cr_expect(strstr(h, "#define MDL_CORTEX_A72_R1_ISA 1"), "%s", h);
    free(c);
    free(h);
    cr_expect_eq(cc_compile(tmp_path("out/cortex-a72.r1.c"), tmp_path("out"), tmp_path("m.o")), 0, "%s", cc_log());
    struct arena a;
    arena_init(&a);
    cr_expect_str_eq(emit_c_ident(&a, "cortex-a72.r1"), "cortex_a72_r1");
    cr_expect_str_eq(emit_c_ident(&a, "skylake"), "skylake");
    arena_free(&a);
    free(r.err);
}

/* Compiles the machine with a program printing STRING_FIELD and returns what it printed. */
static char *print_field(const char *machine, const char *field)
{
    char main_c[2048];
    snprintf(main_c, sizeof main_c,
             "#include <stdio.h>\n#include \"%s.h\"\n"
             "int main(void) { fputs(mdl_machine_%s.%s, stdout); return 0; }\n", machine, machine, field);
    write_file("main.c", main_c);
    char cmd[6 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -Wall -Wextra -Werror -I'%s' -I'%s' '%s/%s.c' '%s' -o '%s' 2>'%s' && '%s' >'%s'",
             runtime_dir(), tmp_path("out"), tmp_path("out"), machine, tmp_path("main.c"), tmp_path("prog"),
             tmp_path("cc.log"), tmp_path("prog"), tmp_path("printed"));
    cr_assert_eq(system(cmd), 0, "the emitted C did not build or run:\n%s", cc_log());
    return files_read(tmp_path("printed"), NULL);
}

Test(emit, writes_the_uncertain_values_as_a_table_of_the_machine)
{
    /* "?\?" keeps this file free of trigraphs */
    write_file("m.mdl", "machine unc { isa x86_64; }\nports p0;\nclass generic latency 1 ports 1*p0;\n"
                        "memory { latency 200 cycles range 150..250 \"a \\\"guess\\\" ?\?= */\" @\"x\"; }\n");
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("m.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *c = files_read(tmp_path("out/unc.c"), NULL);
    cr_expect(strstr(c, "{ \"memory.latency\", MDL_VARY_PARAM, MDL_PARAM_MEMORY_latency, 0, 200.0f, 150.0f, 250.0f,"),
              "%s", c);
    cr_expect(strstr(c, "    .n_uncertain = 1,\n"), "%s", c);
    free(c);
    char *reason = print_field("unc", "uncertain[0].reason");
    cr_expect_str_eq(reason, "a \"guess\" ?\?= */");
    free(reason);
    free(r.err);
}

Test(emit, lists_the_estimates_of_the_bundled_skylake_with_their_ranges)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert(out);
    for (uint32_t i = 0; i < m->n_uncertain; i++)
        fprintf(out, "%s %g %g..%g\n", m->uncertain[i].name, m->uncertain[i].value, m->uncertain[i].lo,
                m->uncertain[i].hi);
    fclose(out);
    cr_expect_str_eq(text,
                     "frontend.uop_cache_switch 3 2..4\n"
                     "window.wakeup_delay 1 0..1\n"
                     "cache.L2.outstanding 16 12..20\n"
                     "cache.L3.latency 42 40..44\n"
                     "cache.L3.bandwidth 32 16..32\n"
                     "memory.latency 250 240..260\n"
                     "memory.bandwidth 8 6..9\n"
                     "memory.store_forward_fail 16 11..20\n"
                     "strings.unaligned_rate 21 16..32\n"
                     "strings.element_cycles 2 1..3\n"
                     "branch.mispredict_penalty 16 15..20\n"
                     "class.int_mul.latency 3 3..4\n"
                     "class.vec_mul.latency 10 5..10\n"
                     "class.vec_shuffle.latency 1 1..3\n"
                     "class.crypto.latency 4 3..8\n"
                     "bypass.store -> memory load 5 4..5\n"
                     "bypass.vec_store -> memory vec_load 6 5..7\n");
    for (uint32_t i = 0; i < m->n_uncertain; i++) {
        const struct mdl_uncertain *u = &m->uncertain[i];
        cr_expect(u->reason[0], "%s has no reason", u->name);
        cr_expect(strncmp(u->where, "machines/skylake.mdl:", 21) == 0, "%s: %s", u->name, u->where);
        if (u->vary == MDL_VARY_PARAM && u->param == MDL_PARAM_MEMORY_store_forward_fail)
            cr_expect_float_eq(u->value, m->store_forward_fail, 1e-6, "the entry's value is the field's");
        if (u->vary == MDL_VARY_LATENCY)
            cr_expect_float_eq(u->value, m->templates[u->index].latency_max, 1e-6, "%s", u->name);
        if (u->vary == MDL_VARY_BYPASS)
            cr_expect_float_eq(u->value, m->bypasses[u->index].latency, 1e-6, "%s", u->name);
    }
    free(text);
}

Test(emit, escapes_strings_so_that_they_cannot_inject_c)
{
    /* in MDL: quote, backslash, trigraphs, newline and tab escapes, a comment end and an attempt
     * to close the literal and add a declaration ("?\?" keeps this file free of trigraphs) */
    write_file("m.mdl", "machine esc {\n"
                        "    isa x86_64;\n"
                        "    description \"say \\\"hi\\\" \\\\ ?\?= ?\?/ \\n*/ \\t\\\"; int evil = 1; //\";\n"
                        "    qemu_cpu \"?\?)\";\n"
                        "}\nports p0;\nclass generic latency 1 ports 1*p0;\n");
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("m.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *got = print_field("esc", "description");
    cr_expect_str_eq(got, "say \"hi\" \\ ?\?= ?\?/ \n*/ \t\"; int evil = 1; //");
    free(got);
    got = print_field("esc", "qemu_cpu");
    cr_expect_str_eq(got, "?\?)");
    free(got);
    char *c = files_read(tmp_path("out/esc.c"), NULL);
    cr_expect_null(strstr(c, "?\?"), "a trigraph survived into the C file");
    free(c);
    free(r.err);
}

Test(emit, keeps_a_comment_end_in_the_input_path_out_of_the_c)
{
    /* the banner names the input file: its path must not end the banner comment early */
    write_file("a*/m.mdl", "machine inj { isa x86_64; }\nports p0;\nclass generic latency 1 ports 1*p0;\n");
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("a*/m.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(cc_compile(tmp_path("out/inj.c"), tmp_path("out"), tmp_path("inj.o")), 0,
                 "an input path containing '*/' breaks the emitted C:\n%s", cc_log());
    free(r.err);
}

static struct timespec mtime_of(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
    return st.st_mtim;
}

static void set_old_mtime(const char *path)
{
    struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
    cr_assert_eq(utimensat(AT_FDCWD, path, old, 0), 0);
}

Test(emit, leaves_unchanged_outputs_untouched)
{
    write_file("full.mdl", full_mdl);
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    set_old_mtime(tmp_path("out/full.c"));
    set_old_mtime(tmp_path("out/full.h"));
    free(r.err);
    r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(mtime_of(tmp_path("out/full.c")).tv_sec, 1000000000, "full.c was rewritten with the same content");
    cr_expect_eq(mtime_of(tmp_path("out/full.h")).tv_sec, 1000000000, "full.h was rewritten with the same content");
    free(r.err);
}

Test(emit, rewrites_only_the_output_whose_content_changed)
{
    write_file("full.mdl", full_mdl);
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    set_old_mtime(tmp_path("out/full.c"));
    set_old_mtime(tmp_path("out/full.h"));
    char *text = strdup(full_mdl);
    memcpy(strstr(text, "a test machine"), "A test machine", 14);
    write_file("full.mdl", text);
    free(text);
    free(r.err);
    r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_neq(mtime_of(tmp_path("out/full.c")).tv_sec, 1000000000, "the new description was not written");
    cr_expect_eq(mtime_of(tmp_path("out/full.h")).tv_sec, 1000000000, "the header did not change");
    char *c = files_read(tmp_path("out/full.c"), NULL);
    cr_expect(strstr(c, "A test machine"));
    free(c);
    free(r.err);
}

Test(emit, writes_nothing_when_the_description_has_errors)
{
    write_file("full.mdl", full_mdl);
    mkdir(tmp_path("out"), 0777);
    mkdir(tmp_path("fresh"), 0777);
    struct run r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t before_len = 0;
    char *before = files_read(tmp_path("out/full.c"), &before_len);

    char *text = malloc(sizeof full_mdl + 64);
    snprintf(text, sizeof full_mdl + 64, "%sinsn BAD latency 1 ports 1*p9;\n", full_mdl);
    memcpy(strstr(text, "a test machine"), "A test machine", 14);
    write_file("full.mdl", text);
    free(text);
    free(r.err);
    r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_expect_eq(r.status, 1);
    size_t after_len = 0;
    char *after = files_read(tmp_path("out/full.c"), &after_len);
    cr_expect(after && after_len == before_len && memcmp(before, after, before_len) == 0,
              "a failed run changed the previous output");
    free(before);
    free(after);

    free(r.err);

    r = emit_to(tmp_path("full.mdl"), tmp_path("fresh"));
    cr_expect_eq(r.status, 1);
    cr_expect_not(exists(tmp_path("fresh/full.c")), "an output was written for a description with errors");
    cr_expect_not(exists(tmp_path("fresh/full.h")));
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", tmp_path("fresh"));
    cr_expect_eq(system(cmd), 0, "files were left in the output directory");
    free(r.err);
}

Test(emit, leaves_no_temporary_file_behind)
{
    write_file("full.mdl", full_mdl);
    mkdir(tmp_path("out"), 0777);
    struct run r = emit_to(tmp_path("full.mdl"), tmp_path("out"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'full.c full.h '", tmp_path("out"));
    cr_expect_eq(system(cmd), 0, "the output directory holds more than full.c and full.h");
    free(r.err);
}

/* ======================================== garbage ========================================== */

/* Compiles LEN bytes with --check; the process must survive and the run must fail. */
static struct run check_bytes(const char *text, size_t len)
{
    write_bytes("g.mdl", text, len);
    return check_path(tmp_path("g.mdl"));
}

static unsigned count(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

Test(garbage, random_bytes_fail_cleanly)
{
    enum { LEN = 64 * 1024 };
    char *buf = malloc(LEN);
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    for (int seed = 0; seed < 8; seed++) {
        for (size_t i = 0; i < LEN; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (char)(x >> 24);
        }
        struct run r = check_bytes(buf, LEN);
        cr_expect_eq(r.status, 1, "seed %d", seed);
        cr_expect_leq(count(r.err, ": error: "), 20, "seed %d: more errors than the limit", seed);
        free(r.err);
    }
    free(buf);
}

Test(garbage, random_tokens_fail_cleanly)
{
    static const char *const words[] = { "machine", "t", "{", "}", ";", "insn", "ports", "1*p0", "(", ")",
                                         "template", "=", "|", ",", "+", "[", "]", "latency", "1..2", "$a",
                                         "replace", "with", "nop", "->", "++", "\"s\"", "@x", "bypass", "cache",
                                         "0", "*", "units", "U*2", "include", "extends", "class", "generic" };
    enum { N = sizeof words / sizeof *words };
    char *text = malloc(200000);
    unsigned long long x = 12345;
    for (int seed = 0; seed < 10; seed++) {
        size_t len = 0;
        for (int i = 0; i < 20000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            len += (size_t)sprintf(text + len, "%s ", words[x % N]);
        }
        struct run r = check_bytes(text, len);
        cr_expect_neq(r.status, 0, "seed %d compiled", seed);
        free(r.err);
    }
    free(text);
}

Test(garbage, an_empty_file_has_no_machine)
{
    struct run r = check_bytes("", 0);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "g.mdl:1:1: error: no machine declaration"), "%s", r.err);
    free(r.err);
}

Test(garbage, a_file_of_nul_bytes_fails_cleanly)
{
    static const char zeros[4096];
    struct run r = check_bytes(zeros, sizeof zeros);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "unexpected byte 0x00"), "%s", r.err);
    free(r.err);
}

/* Processor time of this process (the passes run in it): what other work on the machine takes
 * does not count, as it would in wall-clock time (a loaded CI machine, a sanitizer build beside). */
static double seconds_since(struct timespec t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* SIZE bytes of valid declarations compiled; the processor time it took. */
static double compile_declarations(size_t size, unsigned *forms)
{
    char *text = malloc(size + 256);
    size_t len = (size_t)sprintf(text, "%s", HEAD);
    unsigned n = 0;
    for (; len < size; n++)
        len += (size_t)sprintf(text + len, "insn ADD_%u (R64, M64) latency 1..%u uops 1/2 ports 1*p0+1*p15 tp 0.5;\n",
                               n, 2 + n % 5);
    write_bytes("big.mdl", text, len);
    free(text);
    struct timespec t0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    struct run r = check_path(tmp_path("big.mdl"));
    double t = seconds_since(t0);
    cr_expect_eq(r.status, 0, "%.2000s", r.err);
    free(r.err);
    *forms = n;
    return t;
}

/* Compile time grows with the input, not faster: ten times the declarations take well under
 * thirty times as long (a quadratic pass would take a hundred). A ratio of two runs of one
 * process, so that neither the host's speed nor the sanitizers' cost decides it (an absolute
 * bound of 10 s failed under ASan on a slower host: 13.8 s). */
Test(garbage, ten_megabytes_of_valid_declarations_compile_in_time_linear_in_their_size, .timeout = 120)
{
    unsigned n1, n10;
    double t1 = compile_declarations(1 << 20, &n1), t10 = compile_declarations(10 << 20, &n10);
    cr_expect_lt(t10, 30 * (t1 > 0.01 ? t1 : 0.01), "%u forms took %.2f s, %u forms %.2f s", n1, t1, n10, t10);
}

Test(garbage, ten_megabytes_of_junk_stop_at_the_error_limit, .timeout = 60)
{
    enum { SIZE = 10 << 20 };
    static const char line[] = "%% ??? ][ 12ab }{ <> ;;\n";
    char *text = malloc(SIZE + sizeof line);
    size_t len = 0;
    while (len < SIZE) {
        memcpy(text + len, line, sizeof line - 1);
        len += sizeof line - 1;
    }
    struct timespec t0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    struct run r = check_bytes(text, len);
    double t = seconds_since(t0);
    free(text);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "mdlc: fatal: too many errors (20), stopping\n"), "%.3000s", r.err);
    cr_expect_eq(count(r.err, ": error: "), 20);
    cr_expect(strstr(r.err, "20 errors generated.\n"), "%.3000s", r.err);
    cr_expect_lt(t, 5.0, "junk took %.1f s", t);
    free(r.err);
}

Test(garbage, ten_thousand_open_braces_fail_cleanly)
{
    static char text[20000];
    memset(text, '{', sizeof text);
    struct run r = check_bytes(text, sizeof text);
    cr_expect_eq(r.status, 1);
    free(r.err);
    static const char head[] = "machine t { isa x86_64; }\nfrontend ";
    memcpy(text, head, sizeof head - 1);
    r = check_bytes(text, sizeof text);
    cr_expect_eq(r.status, 1);
    free(r.err);
}

Test(garbage, unterminated_comment_and_string_at_the_end_fail)
{
    struct run r = check_bytes(HEAD "/* open", strlen(HEAD "/* open"));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "g.mdl:4:1: error: unterminated comment"), "%s", r.err);
    free(r.err);
    r = check_bytes(HEAD "source s \"open", strlen(HEAD "source s \"open"));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "g.mdl:4:10: error: missing terminating '\"' character"), "%s", r.err);
    free(r.err);
}

Test(garbage, very_long_names_fail_cleanly)
{
    enum { LONG = 1 << 20 };
    char *text = malloc(LONG + 512);
    size_t len = (size_t)sprintf(text, "%s", HEAD);
    memset(text + len, 'a', LONG);
    len += LONG;
    len += (size_t)sprintf(text + len, " { x 1; }\ninsn A latency 1 ports 1*");
    memset(text + len, 'p', 300);
    len += 300;
    len += (size_t)sprintf(text + len, ";\n");
    struct run r = check_bytes(text, len);
    free(text);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "g.mdl:4:1: error: unknown declaration 'aaaa"), "%.200s", r.err);
    free(r.err);
}

Test(garbage, an_include_of_a_directory_is_an_error)
{
    mkdir(tmp_path("dir"), 0777);
    struct run r = check_bytes(HEAD "include \"dir\";\n", strlen(HEAD "include \"dir\";\n"));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "g.mdl:4:9: error: included file 'dir' is not a regular file\n"), "%s", r.err);
    free(r.err);
}

/* A description reads its own tree only: not /etc or /proc, not a file beside its directory, not
 * a FIFO (which hung mdlc), and never echoes their lines. */
Test(garbage, reads_only_regular_files_of_the_descriptions_tree)
{
    static const char *const outside[] = { "/etc/passwd", "/proc/self/environ", "../outside.mdl" };
    write_file("../outside.mdl", "insn A latency 1;\n");
    for (size_t i = 0; i < sizeof outside / sizeof *outside; i++) {
        char text[256], want[256];
        snprintf(text, sizeof text, HEAD "include \"%s\";\n", outside[i]);
        struct run r = check_bytes(text, strlen(text));
        cr_expect_eq(r.status, 1);
        snprintf(want, sizeof want, "error: included file '%s' is outside the description's tree (the directory of the "
                 "machine described and the -I directories)\n", outside[i]);
        cr_expect(strstr(r.err, want), "%s", r.err);
        cr_expect_null(strstr(r.err, "root:"), "no line of the file echoed");
        free(r.err);
    }
    cr_assert_eq(mkfifo(tmp_path("fifo.mdl"), 0600), 0);
    struct run r = check_bytes(HEAD "include \"fifo.mdl\";\n", strlen(HEAD "include \"fifo.mdl\";\n"));
    cr_expect(strstr(r.err, "error: included file 'fifo.mdl' is not a regular file\n"), "%s", r.err);
    free(r.err);
}
