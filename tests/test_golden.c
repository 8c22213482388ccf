/* Golden diagnostics: every tests/diag/NAME.mdl is compiled with --check in-process and what
 * the compiler prints must be, byte for byte, tests/diag/NAME.expected (the exact stderr of
 * `../build/mdlc --check diag/NAME.mdl` run from tests/). A case whose first line is
 * `// mdlc OPTIONS` is compiled with those options (-Wmissing-source, -Wno-unmatched-form, --Werror). A case fails
 * with exit status 1 exactly when its expected output ends in `N error(s) generated.`; one with
 * warnings only succeeds. The tests run with the current directory tests/. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "files.h"
#include "scratch.h"

enum { MIN_GOLDEN_CASES = 30 };

struct golden_case {
    char name[200];             /* diag/NAME.mdl */
};

struct run {
    int status;
    char *err;                  /* everything printed on the diagnostics stream */
    size_t len;
};

/* The options of a case's first line `// mdlc -Wmissing-source --Werror`, as main() sets them. */
static void case_options(const char *path, struct mdlc_opts *o)
{
    char line[256] = "";
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    if (!fgets(line, sizeof line, fp) || strncmp(line, "// mdlc ", 8) != 0)
        line[0] = '\0';
    fclose(fp);
    for (char *save, *w = strtok_r(line + (line[0] ? 8 : 0), " \t\n", &save); w && line[0];
         w = strtok_r(NULL, " \t\n", &save)) {
        if (strcmp(w, "-Wmissing-source") == 0)
            o->warn_missing_source = true;
        else if (strcmp(w, "-Wno-unmatched-form") == 0)
            o->no_warn_unmatched_form = true;
        else if (strcmp(w, "--Werror") == 0)
            o->werror = true;
        else
            cr_assert_fail("%s: the golden tests know no option '%s'", path, w);
    }
}

static struct run check_file(const char *path)
{
    struct run r = { 0 };
    char *out = NULL;
    size_t outlen = 0;
    FILE *err = open_memstream(&r.err, &r.len);
    FILE *outf = open_memstream(&out, &outlen);
    cr_assert(err && outf, "open_memstream failed");
    struct mdlc_opts o = { .action = MDLC_CHECK, .input = path, .outdir = ".", .out = outf, .err = err };
    case_options(path, &o);
    r.status = mdlc_run(&o);
    fclose(err);
    fclose(outf);
    free(out);
    return r;
}

/* The .mdl files of diag/ (not those of diag/include/, which the cases include). */
static size_t list_cases(glob_t *g)
{
    int rc = glob("diag/*.mdl", 0, NULL, g);
    return rc == 0 ? g->gl_pathc : 0;
}

ParameterizedTestParameters(golden, prints_the_expected_diagnostics_and_fails_only_on_errors)
{
    glob_t g;
    size_t n = list_cases(&g);
    struct golden_case *cases = cr_calloc(n ? n : 1, sizeof *cases);
    for (size_t i = 0; i < n; i++)
        snprintf(cases[i].name, sizeof cases[i].name, "%s", g.gl_pathv[i]);
    if (n)
        globfree(&g);
    return cr_make_param_array(struct golden_case, cases, n);
}

ParameterizedTest(struct golden_case *c, golden, prints_the_expected_diagnostics_and_fails_only_on_errors)
{
    char expected_path[256];
    size_t base = strlen(c->name) - strlen(".mdl");
    snprintf(expected_path, sizeof expected_path, "%.*s.expected", (int)base, c->name);
    size_t want_len = 0;
    char *want = files_read(expected_path, &want_len);
    cr_assert(want, "%s: missing %s (generate it with ../build/mdlc --check %s 2> %s, then read it)",
              c->name, expected_path, c->name, expected_path);

    struct run r = check_file(c->name);
    bool same = r.len == want_len && memcmp(r.err, want, want_len) == 0;
    cr_expect(same,
              "%s: the diagnostics differ from %s\n"
              "---- expected ----\n%s"
              "---- actual ------\n%s"
              "------------------",
              c->name, expected_path, want, r.err);
    bool fails = want_len >= strlen(" generated.\n") && strcmp(want + want_len - strlen(" generated.\n"), " generated.\n") == 0;
    cr_expect_eq(r.status, fails, "%s: exit status %d, expected %d (%s)", c->name, r.status, fails,
                 fails ? "the description has a mistake" : "warnings only");
    free(want);
    free(r.err);
}

/* A wrong working directory would make the parameterized test above vacuous. */
Test(golden, has_at_least_thirty_cases_each_with_an_expected_file)
{
    glob_t g;
    size_t n = list_cases(&g);
    cr_assert_geq(n, MIN_GOLDEN_CASES, "found %zu golden cases in diag/ (run the tests from tests/)", n);
    for (size_t i = 0; i < n; i++) {
        char path[256];
        size_t base = strlen(g.gl_pathv[i]) - strlen(".mdl");
        snprintf(path, sizeof path, "%.*s.expected", (int)base, g.gl_pathv[i]);
        FILE *fp = fopen(path, "r");
        cr_expect(fp != NULL, "%s has no %s", g.gl_pathv[i], path);
        if (fp)
            fclose(fp);
    }
    globfree(&g);
}

static unsigned count_lines_with(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = memmem(line, len, needle, strlen(needle));
        if (hit)
            n++;
        line = end ? end + 1 : NULL;
    }
    return n;
}

Test(golden, reports_all_three_independent_errors_in_one_run)
{
    struct run r = check_file("diag/three_independent_errors.mdl");
    cr_assert_eq(r.status, 1);
    cr_expect_eq(count_lines_with(r.err, ": error: "), 3, "expected exactly 3 errors, got:\n%s", r.err);
    /* one in each of the three declarations: lines 8, 10 and 11 */
    cr_expect(strstr(r.err, "diag/three_independent_errors.mdl:8:"), "no error on line 8:\n%s", r.err);
    cr_expect(strstr(r.err, "diag/three_independent_errors.mdl:10:"), "no error on line 10:\n%s", r.err);
    cr_expect(strstr(r.err, "diag/three_independent_errors.mdl:11:"), "no error on line 11:\n%s", r.err);
    size_t tail = strlen("3 errors generated.\n");
    cr_expect(r.len >= tail && strcmp(r.err + r.len - tail, "3 errors generated.\n") == 0,
              "the summary line is not '3 errors generated.':\n%s", r.err);
    free(r.err);
}

Test(golden, a_missing_input_is_reported_without_a_source_line)
{
    struct run r = check_file("diag/no-such-file.mdl");
    cr_assert_eq(r.status, 1);
    cr_expect_str_eq(r.err, "mdlc: error: cannot read 'diag/no-such-file.mdl': No such file or directory\n"
                            "1 error generated.\n");
    free(r.err);
}

/* The machines of machines/ compile as make compiles them (every number with a source, warnings
 * as errors) without a word: no form key the decoder cannot spell, no form that never matches. */
Test(golden, the_bundled_machines_compile_without_a_diagnostic)
{
    glob_t g;
    cr_assert_eq(glob("../machines/*.mdl", 0, NULL, &g), 0, "no machines in ../machines");
    cr_expect_geq(g.gl_pathc, 4);
    static const char *const dirs[] = { "../machines" };
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct run r = { 0 };
        FILE *err = open_memstream(&r.err, &r.len);
        struct mdlc_opts o = { .action = MDLC_CHECK, .input = g.gl_pathv[i], .outdir = ".", .include_dirs = dirs,
                               .n_include_dirs = 1, .warn_missing_source = true, .werror = true,
                               .out = stdout, .err = err };
        r.status = mdlc_run(&o);
        fclose(err);
        cr_expect_eq(r.status, 0, "%s does not compile", g.gl_pathv[i]);
        cr_expect_eq(r.len, 0, "%s: %.2000s", g.gl_pathv[i], r.err);
        free(r.err);
    }
    globfree(&g);
}

/* ---- the command line (build/mdlc), when it is built ------------------------------------------ */

static int shell_status(const char *cmd)
{
    int rc = system(cmd);
    return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

static void need_binary(void)
{
    if (access("../build/mdlc", X_OK) != 0)
        cr_skip_test("../build/mdlc is not built");
}

/* Writes PATH: a machine extending skylake with copies of the insn lines of uops.info's Skylake
 * table (mnemonics renamed, so each is a form of its own) until it holds at least BYTES. */
static void write_large_description(const char *path, size_t bytes)
{
    FILE *in = fopen("../machines/uops/skylake.mdl", "r"), *out = fopen(path, "w");
    cr_assert(in && out);
    char *line = NULL;
    size_t cap = 0, written = (size_t)fprintf(out, "machine large extends skylake { description \"large\"; }\n");
    for (unsigned copy = 0; written < bytes; copy++) {
        rewind(in);
        while (written < bytes && getline(&line, &cap, in) > 0)
            if (strncmp(line, "insn ", 5) == 0)
                written += (size_t)fprintf(out, "insn X%uX%s", copy, line + 5);
    }
    free(line);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

/* mdlc compiles 10 MB of insn lines within 600 MB of address space: about 24 bytes for each byte
 * read (248 MB at its peak), where it took 65 (a 20 MB description peaked at 1.36 GB). The
 * bound is an address-space limit on the child, not a timing: it fails only when memory per
 * byte grows back. (AddressSanitizer reserves terabytes of address space: skipped there.) */
Test(golden, the_command_line_compiles_ten_megabytes_within_six_hundred_megabytes, .timeout = 120)
{
#ifdef __SANITIZE_ADDRESS__
    cr_skip_test("an address-space limit cannot hold AddressSanitizer's shadow memory");
#endif
    need_binary();
    const char *mdl = scratch_path("golden-large.mdl");
    write_large_description(mdl, 10u << 20);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit rl = { 600u << 20, 600u << 20 };
        if (setrlimit(RLIMIT_AS, &rl) != 0 || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execl("../build/mdlc", "mdlc", "-I", "../machines", "-Wno-unmatched-form", "-o", scratch_dir(), mdl,
              (char *)NULL);
        _exit(127);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "mdlc %s under 600 MB: %s %d", mdl,
              WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    cr_expect_eq(access(scratch_path("large.c"), F_OK), 0, "no large.c written");
    remove(mdl);
    remove(scratch_path("large.c"));
    remove(scratch_path("large.h"));
}

Test(golden, the_command_line_exits_2_on_usage_errors)
{
    need_binary();
    cr_expect_eq(shell_status("../build/mdlc >/dev/null 2>&1"), 2, "no input file");
    cr_expect_eq(shell_status("../build/mdlc --check a.mdl b.mdl >/dev/null 2>&1"), 2, "two input files");
    cr_expect_eq(shell_status("../build/mdlc --no-such-option diag/empty_file.mdl >/dev/null 2>&1"), 2,
                 "an unknown option");
    cr_expect_eq(shell_status("../build/mdlc --check --dump-ast diag/empty_file.mdl >/dev/null 2>&1"), 2,
                 "two actions");
    cr_expect_eq(shell_status("../build/mdlc --check diag/empty_file.mdl >/dev/null 2>&1"), 1,
                 "an error in the description");
}

Test(golden, the_command_line_prints_what_the_expected_file_holds)
{
    need_binary();
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", scratch_path("mdlc-golden.XXXXXX"));
    int fd = mkstemp(tmp);
    cr_assert_geq(fd, 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "../build/mdlc --check diag/three_independent_errors.mdl 2>%s >/dev/null", tmp);
    cr_expect_eq(shell_status(cmd), 1);
    size_t got_len = 0, want_len = 0;
    char *got = files_read(tmp, &got_len), *want = files_read("diag/three_independent_errors.expected", &want_len);
    unlink(tmp);
    cr_assert(got && want);
    cr_expect_str_eq(got, want);
    free(got);
    free(want);
}

/* The exit status of `PREFIX../build/mdlc --check OPTIONS FILE`, its output dropped. */
static int check_status(const char *prefix, const char *options, const char *file)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s../build/mdlc --check %s %s >/dev/null 2>&1", prefix, options, file);
    return shell_status(cmd);
}

Test(golden, the_command_line_takes_warning_options_as_a_compiler_does)
{
    need_binary();
    const char *warn = "diag/values_without_a_source_are_warned_about_when_asked.mdl";
    cr_expect_eq(check_status("", "", warn), 0, "warnings alone do not fail");
    cr_expect_eq(check_status("", "-Wmissing-source -Werror", warn), 1, "-Werror makes the missing sources errors");
    cr_expect_eq(check_status("", "-Wmissing-source -Wno-missing-source --Werror", warn), 0,
                 "the last of -Wmissing-source and -Wno-missing-source wins");
    cr_expect_eq(check_status("", "-Wmissing-sources", "diag/empty_file.mdl"), 2,
                 "an unknown warning option is a usage error");
    const char *never = "diag/unknown_mnemonic_without_a_close_one.mdl";
    cr_expect_eq(check_status("", "--Werror", never), 1, "a form that never matches is a warning");
    cr_expect_eq(check_status("", "-Wno-unmatched-form --Werror", never), 0, "-Wno-unmatched-form turns it off");
    cr_expect_eq(check_status("", "-Wno-unmatched-form -Wunmatched-form --Werror", never), 1, "the last one applies");
}

/* A description may be compiled where QEMU is not installed (or lacks the model on purpose):
 * no warning then, and -Wno-qemu-cpu silences it where QEMU is. */
Test(golden, warns_about_an_unknown_qemu_cpu_only_where_qemu_can_tell)
{
    need_binary();
    const char *typo = "diag/qemu_cpu_model_unknown_to_qemu.mdl";
    cr_expect_eq(check_status("", "--Werror", typo), 1, "QEMU lists no such model: with --Werror, an error");
    cr_expect_eq(check_status("env PATH=/nonexistent ", "--Werror", typo), 0, "no QEMU in PATH: nothing to check");
    cr_expect_eq(check_status("", "--Werror -Wno-qemu-cpu", typo), 0, "-Wno-qemu-cpu turns the warning off");
}

/* --dump-json gives each front-end fact its own value (a format out of step with the values once
 * shifted every fact after uop_cache_switch and could crash). */
/* What `mdlc --dump-json ARGS` prints, parsed; it must exit 0. */
static json_t *dump_json(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "../build/mdlc --dump-json %s", args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    json_error_t e;
    json_t *o = json_loadf(p, 0, &e);
    cr_expect_eq(pclose(p), 0, "%s", cmd);
    cr_assert(o, "%s: not JSON: %s", cmd, e.text);
    return o;
}

Test(golden, the_json_dump_gives_each_front_end_fact_its_value)
{
    json_t *o = dump_json("-I ../machines ../machines/skylake.mdl");
    json_t *fe = json_object_get(o, "frontend");
    cr_expect_eq(json_integer_value(json_object_get(fe, "idq")), 64);
    cr_expect_eq(json_integer_value(json_object_get(fe, "loop_buffer")), 0);
    cr_expect_eq(json_integer_value(json_object_get(fe, "uop_cache_entries")), 1536);
    cr_expect_float_eq(json_real_value(json_object_get(fe, "uop_cache_switch")), 3.0, 1e-9);
    cr_expect_float_eq(json_real_value(json_object_get(fe, "taken_branch_bubble")), 0.0, 1e-9);
    json_decref(o);
}

/* A description's string that is not UTF-8 (a Latin-1 'é') is dumped with U+FFFD for the bad byte:
 * jansson refused it, and the dump printed nothing and exited 0. */
Test(golden, the_json_dump_is_valid_utf8_whatever_the_strings_hold)
{
    FILE *fp = fopen(scratch_path("mdlc-latin1.mdl"), "w");
    cr_assert(fp);
    fputs("machine t {\n    isa x86_64;\n    description \"caf\xe9 \xc3\xa9\";\n}\nports p0, p1, p5;\n"
          "include \"include/all-classes.mdl\";\n", fp);
    cr_assert_eq(fclose(fp), 0);
    json_t *o = dump_json("-I diag $MDLSIM_TMP/mdlc-latin1.mdl");
    cr_expect_str_eq(json_string_value(json_object_get(o, "description")), "caf\xef\xbf\xbd \xc3\xa9");
    json_decref(o);
    remove(scratch_path("mdlc-latin1.mdl"));
}
