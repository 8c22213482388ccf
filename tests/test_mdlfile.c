/* --mdl FILE: a description outside the tree compiled, cached by content, reused, rebuilt when a
 * file it reads changes, and refused with mdlc's own diagnostics; the cache trusted as ssh trusts
 * its files. Tests run in tests/. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "capture.h"
#include "mdl_machine.h"
#include "sha256.h"
#include "scratch.h"

/* A directory of its own for each test: its descriptions, and the cache (XDG_CACHE_HOME). */
static char dir[64];              /* (a TMPDIR of at most 20 characters) */

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s", scratch_path("mdlfile-test.XXXXXX"));
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
    char cmd[2048];
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
    /* a description beside a machine is compared with it, and must be read first */
    r = mdlsim("block --machine skylake --mdl /nonexistent/x.mdl --hex 4801d8", "2>&1 >/dev/null");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, "mdlsim: error: cannot read the machine description '/nonexistent/x.mdl': No such file "
                            "or directory\n");
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

/* ---- the cache as ssh treats its files ------------------------------------------------------ */

/* slow.mdl built once: the path of its entry's shared object into SO. */
static void build_slow(char *so, size_t len)
{
    write_file("slow.mdl", slow_add);
    cr_assert_float_eq(chain_cycles("slow.mdl", NULL), 4.0, 1e-9);
    char pattern[128];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/cache/mdlsim/[0-9a-f]*/[0-9a-f]*.so", dir);
    cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no object in the cache");
    cr_assert_eq(g.gl_pathc, 1u);
    snprintf(so, len, "%s", g.gl_pathv[0]);
    globfree(&g);
}

/* A shared object compiled from C into the test's directory as NAME (its path into PATH). */
static void compile_object(const char *name, const char *c, char *path, size_t len)
{
    char cmd[1024];
    write_file("object.c", c);
    snprintf(path, len, "%s/%s", dir, name);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o %s %s/object.c", path, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A constructor that leaves the file "ran" in the test's directory: the proof of a dlopen. */
static void planted_object(char *path, size_t len)
{
    char c[512];
    snprintf(c, sizeof c, "#include <stdio.h>\n"
             "__attribute__((constructor)) static void ran(void) { fclose(fopen(\"%s/ran\", \"w\")); }\n"
             "const int mdl_machine_slowadd = 1;\n", dir);
    compile_object("planted.so", c, path, len);
}

static bool exists_in_dir(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* The manifest beside SO with its "so" line replaced by "so NAME". */
static void point_manifest(const char *so, const char *name)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed -i 's|^so .*|so %s|' %.*s/manifest", name, (int)(strrchr(so, '/') - so), so);
    cr_assert_eq(system(cmd), 0);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp %s %s", from, to);
    cr_assert_eq(system(cmd), 0);
}

/* mdlsim's stderr on slow.mdl, which must still give two adds of latency 2. */
static char *slow_stderr(void)
{
    char args[256];
    snprintf(args, sizeof args, "block --mdl %s/slow.mdl --hex 4801d84801c3 --no-sensitivity", dir);
    struct run r = mdlsim(args, "2>&1 >/dev/null");
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect_float_eq(block_cycles("slow.mdl", "4801d84801c3"), 4.0, 1e-9);
    return r.out;
}

Test(mdlfile, does_not_load_a_cached_object_whose_content_is_not_the_hash_in_its_name, .init = make_dir,
     .fini = remove_dir)
{
    char so[256], planted[256];
    build_slow(so, sizeof so);
    planted_object(planted, sizeof planted);
    copy_file(planted, so);
    char *err = slow_stderr(), want[512];
    snprintf(want, sizeof want, "mdlsim: warning: the cached %s does not have the content its name gives", so);
    cr_expect(strstr(err, want), "%s", err);
    cr_expect(strstr(err, "building it again\nmdlsim: compiled "), "%s", err);
    cr_expect_not(exists_in_dir("ran"), "the planted object's constructor ran");
    free(err);
}

Test(mdlfile, does_not_follow_a_manifest_name_out_of_its_entry, .init = make_dir, .fini = remove_dir)
{
    char so[256], planted[256], beside[300];
    build_slow(so, sizeof so);
    planted_object(planted, sizeof planted);
    snprintf(beside, sizeof beside, "%s/cache/mdlsim/planted.so", dir);
    copy_file(planted, beside);
    point_manifest(so, "../planted.so");
    char *err = slow_stderr();
    cr_expect(strstr(err, "mdlsim: compiled "), "an entry naming ../planted.so was not built again: %s", err);
    cr_expect_not(exists_in_dir("ran"), "the object the manifest named outside its entry was loaded");
    free(err);
}

/* An object with the machine's symbol, named by its own hash as a build would be: loaded, then
 * its table refused before it is read, and the entry built again. */
static void expect_foreign_refused(const char *c, const char *why)
{
    char so[256], foreign[256], hex[SHA256_HEX], named[400];
    build_slow(so, sizeof so);
    compile_object("foreign.so", c, foreign, sizeof foreign);
    cr_assert(sha256_file_hex(foreign, hex));
    snprintf(named, sizeof named, "%.*s/%s.so", (int)(strrchr(so, '/') - so), so, hex);
    copy_file(foreign, named);
    point_manifest(so, strrchr(named, '/') + 1);
    char *err = slow_stderr(), want[1024];
    snprintf(want, sizeof want, "mdlsim: warning: mdl_machine_slowadd in %s is not a machine table of this mdlsim (%s); "
             "building it again\n", named, why);
    cr_expect(strstr(err, want), "want %s in: %s", want, err);
    free(err);
}

Test(mdlfile, refuses_a_foreign_object_whose_symbol_has_the_size_of_a_table_but_not_its_magic, .init = make_dir,
     .fini = remove_dir)
{
    char c[256], why[128];
    snprintf(c, sizeof c, "const struct { unsigned magic, abi; char rest[%zu]; } mdl_machine_slowadd = { 0xdeadbeef, 7 };\n",
             sizeof(struct mdl_machine) - 8);
    snprintf(why, sizeof why, "magic 0xdeadbeef, ABI 0x00000007; this mdlsim reads 0x%08x, 0x%08x", MDL_MACHINE_MAGIC,
             (unsigned)MDL_MACHINE_ABI);
    expect_foreign_refused(c, why);
}

Test(mdlfile, refuses_a_foreign_object_whose_symbol_is_not_the_size_of_a_table, .init = make_dir, .fini = remove_dir)
{
    char why[128];
    snprintf(why, sizeof why, "an object of 4 bytes, not %zu", sizeof(struct mdl_machine));
    expect_foreign_refused("const int mdl_machine_slowadd = 7;\n", why);
}

Test(mdlfile, builds_again_an_entry_whose_object_is_truncated_and_then_reuses_it, .init = make_dir, .fini = remove_dir)
{
    char so[256];
    build_slow(so, sizeof so);
    cr_assert_eq(truncate(so, 100), 0);
    char *err = slow_stderr();
    cr_expect(strstr(err, "does not have the content its name gives"), "%s", err);
    cr_expect(strstr(err, "mdlsim: compiled "), "%s", err);
    free(err);
    bool compiled = true;
    chain_cycles("slow.mdl", &compiled);
    cr_expect_not(compiled, "the entry built again is not reused");
}

Test(mdlfile, builds_again_an_entry_whose_object_has_its_hash_but_is_no_shared_object, .init = make_dir,
     .fini = remove_dir)
{
    char so[256], junk[256], hex[SHA256_HEX], named[400];
    build_slow(so, sizeof so);
    write_file("junk", "not an ELF file\n");
    snprintf(junk, sizeof junk, "%s/junk", dir);
    cr_assert(sha256_file_hex(junk, hex));
    snprintf(named, sizeof named, "%.*s/%s.so", (int)(strrchr(so, '/') - so), so, hex);
    copy_file(junk, named);
    point_manifest(so, strrchr(named, '/') + 1);
    char *err = slow_stderr(), want[512];
    snprintf(want, sizeof want, "mdlsim: warning: cannot load the compiled machine %s: ", named);
    cr_expect(strstr(err, want), "%s", err);
    cr_expect(strstr(err, "mdlsim: compiled "), "%s", err);
    free(err);
}

/* slow.mdl refused with exit status 1 and the one line WANT on stderr. */
static void expect_slow_fails(const char *want)
{
    char args[256];
    snprintf(args, sizeof args, "block --mdl %s/slow.mdl --hex 4801d8", dir);
    struct run r = mdlsim(args, "2>&1 >/dev/null");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, want);
    free(r.out);
}

/* slow.mdl refused with the one line "mdlsim: error: the cache WHAT PATH WHY". */
static void expect_refused(const char *what, const char *path, const char *why)
{
    char want[512];
    snprintf(want, sizeof want, "mdlsim: error: the cache %s %s %s: mdlsim loads code from it%s\n", what, path, why,
             strstr(why, "writable") ? "; run chmod go-w on it" : "");
    expect_slow_fails(want);
}

Test(mdlfile, refuses_a_cache_directory_writable_by_group_or_owned_by_another_user, .init = make_dir,
     .fini = remove_dir)
{
    char so[256], root[128];
    build_slow(so, sizeof so);
    snprintf(root, sizeof root, "%s/cache/mdlsim", dir);
    cr_assert_eq(chmod(root, 0770), 0);
    expect_refused("directory", root, "is writable by group (mode 0770)");
    cr_assert_eq(chmod(root, 0700), 0);
    cr_assert_eq(chmod(so, 0757), 0);
    expect_refused("file", so, "is writable by others (mode 0757)");
    cr_assert_eq(chmod(so, 0755), 0);
    if (geteuid() != 0)
        return;                         /* only root can give a directory to another user */
    cr_assert_eq(chown(root, 65534, (gid_t)-1), 0);
    expect_refused("directory", root, "is owned by uid 65534, not by you (uid 0)");
}

/* slow.mdl refused with the one line "mdlsim: error: the cache's parent directory PATH WHY" about
 * DIR/cache (by its real path), the parent of the cache root. */
static void expect_parent_refused(const char *why)
{
    char want[PATH_MAX + 256], named[128], parent[PATH_MAX];
    snprintf(named, sizeof named, "%s/cache", dir);
    cr_assert(realpath(named, parent), "%s: %s", named, strerror(errno));
    snprintf(want, sizeof want, "mdlsim: error: the cache's parent directory %s %s\n", parent, why);
    expect_slow_fails(want);
}

Test(mdlfile, refuses_a_cache_whose_parent_directory_the_group_can_write_or_another_user_owns, .init = make_dir,
     .fini = remove_dir)
{
    char parent[128];
    write_file("slow.mdl", slow_add);
    snprintf(parent, sizeof parent, "%s/cache", dir);
    cr_assert_eq(mkdir(parent, 0700), 0);
    cr_assert_eq(chmod(parent, 0775), 0);
    expect_parent_refused("is writable by group (mode 0775) and not sticky: they could move the cache aside; "
                          "run chmod go-w on it");
    cr_assert_eq(chmod(parent, 0707), 0);
    expect_parent_refused("is writable by others (mode 0707) and not sticky: they could move the cache aside; "
                          "run chmod go-w on it");
    cr_assert_eq(chmod(parent, 0755), 0);
    if (geteuid() != 0)
        return;                         /* only root can give a directory to another user */
    cr_assert_eq(chown(parent, 65534, (gid_t)-1), 0);
    expect_parent_refused("is owned by uid 65534, neither you (uid 0) nor root: its owner could move the cache aside");
}

/* /tmp's case: a directory all may write to but where no one may move what is not theirs. */
Test(mdlfile, uses_a_cache_whose_parent_directory_all_can_write_but_is_sticky, .init = make_dir, .fini = remove_dir)
{
    char parent[128], so[256];
    snprintf(parent, sizeof parent, "%s/cache", dir);
    cr_assert_eq(mkdir(parent, 0700), 0);
    cr_assert_eq(chmod(parent, 01777), 0);
    build_slow(so, sizeof so);
    char *err = slow_stderr();
    cr_expect_str_eq(err, "");
    free(err);
}

Test(mdlfile, keeps_its_cache_private_under_a_umask_that_lets_the_group_write, .init = make_dir, .fini = remove_dir)
{
    char cmd[1024];
    write_file("slow.mdl", slow_add);
    for (int run = 0; run < 2; run++) {
        snprintf(cmd, sizeof cmd, "umask 002 && XDG_CACHE_HOME=%s/cache ../build/mdlsim block --mdl %s/slow.mdl "
                 "--hex 4801d84801c3 --no-sensitivity 2>&1 >/dev/null", dir, dir);
        struct run r = capture(cmd);
        cr_expect_eq(r.status, 0, "run %d: %s", run, r.out);
        cr_expect_eq(strstr(r.out, "warning"), NULL, "run %d: %s", run, r.out);
        free(r.out);
    }
}

Test(mdlfile, takes_a_description_path_that_starts_with_a_dash, .init = make_dir, .fini = remove_dir)
{
    char cmd[1024], cwd[512];
    cr_assert(getcwd(cwd, sizeof cwd));
    write_file("-slow.mdl", slow_add);
    snprintf(cmd, sizeof cmd, "cd %s && XDG_CACHE_HOME=%s/cache %s/../build/mdlsim block --mdl -slow.mdl "
             "--hex 4801d84801c3 --no-sensitivity --json 2>&1", dir, dir, cwd);
    struct run r = capture(cmd);
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.out, "\"cycles_per_iteration\":4,"), "%s", r.out);
    free(r.out);
}

/* A C compiler (CC) that is the shell script BODY. */
static void fake_cc(const char *body, char *path, size_t len)
{
    char text[512];
    snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
    write_file("cc", text);
    snprintf(path, len, "%s/cc", dir);
    cr_assert_eq(chmod(path, 0700), 0);
}

static void expect_no_build_directory(void)
{
    char pattern[128];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/cache/mdlsim/tmp.*", dir);
    cr_expect_eq(glob(pattern, 0, NULL, &g), GLOB_NOMATCH, "a build directory is left: %s",
                 g.gl_pathc ? g.gl_pathv[0] : "");
    globfree(&g);
}

Test(mdlfile, says_the_c_compiler_was_killed_by_a_signal, .init = make_dir, .fini = remove_dir)
{
    char cc[256], cmd[1024];
    fake_cc("kill -9 $$", cc, sizeof cc);
    write_file("slow.mdl", slow_add);
    snprintf(cmd, sizeof cmd, "CC=%s XDG_CACHE_HOME=%s/cache ../build/mdlsim block --mdl %s/slow.mdl --hex 4801d8 2>&1",
             cc, dir, dir);
    struct run r = capture(cmd);
    char want[512];
    snprintf(want, sizeof want, "mdlsim: error: the C compiler '%s' was killed by signal 9 (Killed) on the generated ", cc);
    cr_expect_eq(r.status, 1);
    cr_expect(strncmp(r.out, want, strlen(want)) == 0, "%s", r.out);
    free(r.out);
    expect_no_build_directory();
}

/* The pid the fake compiler wrote into the file "ccpid" once started; 0 while it is not there. */
static pid_t compiler_pid(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/ccpid", dir);
    FILE *fp = fopen(path, "r");
    int pid = 0;
    if (fp && fscanf(fp, "%d", &pid) != 1)
        pid = 0;
    if (fp)
        fclose(fp);
    return pid;
}

Test(mdlfile, kills_the_compiler_and_removes_the_build_directory_when_terminated, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    char cc[256], cache[128], mdl[128];
    /* the pid is written to a temporary name first: the test never reads half of it */
    char body[512];
    snprintf(body, sizeof body, "echo $$ > %s/ccpid.part && mv %s/ccpid.part %s/ccpid && exec sleep 600", dir, dir, dir);
    fake_cc(body, cc, sizeof cc);
    write_file("slow.mdl", slow_add);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(mdl, sizeof mdl, "%s/slow.mdl", dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGTERM, SIG_DFL);
        setenv("CC", cc, 1);
        setenv("XDG_CACHE_HOME", cache, 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
        execl("../build/mdlsim", "mdlsim", "block", "--mdl", mdl, "--hex", "4801d8", (char *)NULL);
        _exit(127);
    }
    pid_t ccpid;
    /* waits for an event (the compiler started), bounded by the test's timeout */
    while (!(ccpid = compiler_pid()))
        usleep(10000);
    cr_assert_eq(kill(pid, SIGTERM), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "mdlsim did not end by its SIGTERM: status %#x",
              status);
    cr_expect(kill(ccpid, 0) != 0 && errno == ESRCH, "the compiler (pid %d) outlived mdlsim", (int)ccpid);
    if (kill(ccpid, 0) == 0)
        kill(ccpid, SIGKILL);
    expect_no_build_directory();
}

Test(mdlfile, sweeps_build_directories_untouched_for_an_hour_at_the_next_build, .init = make_dir, .fini = remove_dir)
{
    char old[256], fresh[256], file[300];
    snprintf(old, sizeof old, "%s/cache", dir);
    cr_assert_eq(mkdir(old, 0700), 0);
    snprintf(old, sizeof old, "%s/cache/mdlsim", dir);
    cr_assert_eq(mkdir(old, 0700), 0);
    snprintf(old, sizeof old, "%s/cache/mdlsim/tmp.Abc123", dir);
    snprintf(fresh, sizeof fresh, "%s/cache/mdlsim/tmp.Def456", dir);
    cr_assert_eq(mkdir(old, 0700), 0);
    cr_assert_eq(mkdir(fresh, 0700), 0);
    snprintf(file, sizeof file, "%s/gen", old);
    cr_assert_eq(mkdir(file, 0700), 0);
    struct timespec two_hours_ago[2] = { { .tv_sec = time(NULL) - 7200 }, { .tv_sec = time(NULL) - 7200 } };
    cr_assert_eq(utimensat(AT_FDCWD, old, two_hours_ago, 0), 0);
    char so[256];
    build_slow(so, sizeof so);
    cr_expect_neq(access(old, F_OK), 0, "the build directory left two hours ago is still there");
    cr_expect_eq(access(fresh, F_OK), 0, "a build directory in use was removed");
}

/* ---- --set KEY=VALUE: a description that extends the machine, built as --mdl's -------------- */

/* JSON with its "set" list taken out: what a description that sets the values itself reports. */
static void drop_set(char *json)
{
    char *at = strstr(json, ",\"set\":[");
    char *end = at ? strchr(at, ']') : NULL;
    if (end)
        memmove(at, end + 1, strlen(end + 1) + 1);
}

/* The file at PATH, whole (the caller frees it). */
static char *read_all(const char *path)
{
    FILE *fp = fopen(path, "r");
    cr_assert(fp, "cannot read %s", path);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    for (int c; (c = getc(fp)) != EOF;)
        putc(c, mem);
    fclose(mem);
    fclose(fp);
    return text;
}

static const char rob_512[] = "machine skylake extends skylake { }\nwindow { rob 512; }\n";

/* tests/kernels/rob-bound.s overlaps its iterations as far as the ROB holds them: the --set run
 * differs from Skylake's, and equals the description's byte for byte, its set list aside. */
Test(set, gives_a_block_the_result_of_a_description_that_extends_the_machine_and_sets_the_value,
     .init = make_dir, .fini = remove_dir)
{
    write_file("rob512.mdl", rob_512);
    char args[512];
    struct run plain = mdlsim("block --machine skylake --json kernels/rob-bound.s", "2>/dev/null");
    struct run set = mdlsim("block --machine skylake --set window.rob=512 --json kernels/rob-bound.s", "2>/dev/null");
    snprintf(args, sizeof args, "block --mdl %s/rob512.mdl --json kernels/rob-bound.s", dir);
    struct run desc = mdlsim(args, "2>/dev/null");
    cr_assert_eq(plain.status, 0);
    cr_assert_eq(set.status, 0);
    cr_assert_eq(desc.status, 0);
    cr_expect(strstr(set.out, "\"machine\":\"skylake\",\"set\":[{\"key\":\"window.rob\",\"value\":\"512\"}],"),
              "%.200s", set.out);
    cr_expect(strstr(plain.out, "\"cycles\":78.25,") && strstr(set.out, "\"cycles\":50.25,"),
              "the block does not depend on the ROB: %.400s", set.out);
    drop_set(set.out);
    cr_expect_str_eq(set.out, desc.out);
    struct run text = mdlsim("block --machine skylake --set window.rob=512 kernels/rob-bound.s", "2>&1");
    cr_expect_eq(text.status, 0);
    cr_expect(strstr(text.out, "\nMachine:            skylake with window.rob=512\n"), "%s", text.out);
    cr_expect_eq(strstr(text.out, "mdlsim: compiled"), NULL, "the second run compiled the values again");
    free(plain.out);
    free(set.out);
    free(desc.out);
    free(text.out);
}

Test(set, gives_a_replay_the_result_of_a_description_that_extends_the_machine_and_sets_the_value,
     .init = make_dir, .fini = remove_dir, .timeout = 120)
{
    write_file("rob512.mdl", rob_512);
    char args[1024], json[3][128], machine[3][128];
    for (int i = 0; i < 3; i++)
        snprintf(json[i], sizeof json[i], "%s/r%d.json", dir, i);
    snprintf(args, sizeof args, "run --machine skylake --roi kernel_gemm --quiet --no-causality --record %s/t "
             "-- ../build/programs/gemm.x86 24", dir);
    struct run r = mdlsim(args, "2>/dev/null >/dev/null");
    cr_assert_eq(r.status, 0, "%s", args);
    free(r.out);
    snprintf(machine[0], sizeof machine[0], "--machine skylake");
    snprintf(machine[1], sizeof machine[1], "--machine skylake --set window.rob=512");
    snprintf(machine[2], sizeof machine[2], "--mdl %s/rob512.mdl", dir);
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "replay %s --roi kernel_gemm --quiet --no-causality --json %s %s/t", machine[i],
                 json[i], dir);
        r = mdlsim(args, "2>&1 >/dev/null");
        cr_assert_eq(r.status, 0, "%s: %s", args, r.out);
        free(r.out);
    }
    char *plain = read_all(json[0]), *set = read_all(json[1]), *desc = read_all(json[2]);
    cr_expect(strstr(set, "\"set\":[{\"key\":\"window.rob\",\"value\":\"512\"}]"), "%.200s", set);
    drop_set(set);
    cr_expect_str_neq(plain, set, "the replay does not depend on the ROB");
    cr_expect_str_eq(set, desc);
    free(plain);
    free(set);
    free(desc);
}

/* A --set that cannot be: mdlsim's message (a key) or mdlc's (a value) naming the --set, exit 2,
 * no report written, nothing cached. */
Test(set, refuses_a_wrong_key_a_wrong_value_and_one_out_of_range_with_the_option_named, .init = make_dir,
     .fini = remove_dir)
{
    static const struct {
        const char *set, *said;
    } cases[] = {
        { "windw.rob=512", "mdlsim: error: --set windw.rob=512: unknown key 'windw.rob'; did you mean 'window.rob'?\n" },
        { "window.issue_width=6", "mdlsim: error: --set window.issue_width=6: unknown key 'window.issue_width'; did "
                                  "you mean 'frontend.issue_width'?\n" },
        { "cache.L4.size=8MiB", "mdlsim: error: --set cache.L4.size=8MiB: unknown key 'cache.L4.size'; did you mean "
                                "'cache.L2.size'?\n" },
        { "machine.isa=aarch64", "mdlsim: error: --set machine.isa=aarch64: the isa cannot be changed: the machine's "
                                 "forms are written for its own\n" },
        { "window.rob", "mdlsim: error: --set takes KEY=VALUE (e.g. window.rob=512), got 'window.rob'\n" },
        { "window.robbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb=1",
          "mdlsim: error: --set window.robbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...: unknown key of 128 bytes (no key has "
          "more than 127)\n" },
        { "window.rob=1;rob 2", "mdlsim: error: --set window.rob=1;rob 2: a value is one number with its unit or one "
                                "name (spec.md §8); '1;rob 2' holds ';'\n" },
        { "window.rob=many", "mdlsim: error: --set window.rob=many: 'rob' takes a number, got 'many'\n" },
        { "window.rob=5cycles", "mdlsim: error: --set window.rob=5cycles: 'rob' is a count and takes no unit\n" },
        { "cache.L1D.policy=LRU", "mdlsim: error: --set cache.L1D.policy=LRU: invalid policy 'LRU': expected one of "
                                  "lru, plru, fifo, random\n" },
        { "window.rob=70000", "mdlsim: error: --set window.rob=70000: rob 70000 is out of range: it must be between 1 "
                              "and 65536\n" },
        { "cache.L1D.size=2048GiB", "mdlsim: error: --set cache.L1D.size=2048GiB: size 2048 GiB is out of range: it "
                                    "must be between 64 and 1073741824 bytes\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[512];
        snprintf(args, sizeof args, "block --machine skylake --set 'window.scheduler=97' --set '%s' --hex 4801d8 "
                 "--html %s/page.html", cases[i].set, dir);
        struct run r = mdlsim(args, "2>&1 >/dev/null");
        cr_expect_eq(r.status, 2, "%s", args);
        cr_expect(strncmp(r.out, cases[i].said, strlen(cases[i].said)) == 0, "%s:\n%s", args, r.out);
        /* mdlc's diagnostic names the --set: no usage after it */
        cr_expect((strstr(r.out, "usage:") != NULL) == (i < 7), "%s:\n%s", args, r.out);
        free(r.out);
    }
    char page[300], cmd[300];
    snprintf(page, sizeof page, "%s/page.html", dir);
    cr_expect_neq(access(page, F_OK), 0, "a refused --set wrote its report");
    snprintf(cmd, sizeof cmd, "ls -A %s/cache/mdlsim 2>/dev/null", dir);
    struct run ls = capture(cmd);
    cr_expect_str_eq(ls.out, "", "the cache holds something after a refused --set");
    free(ls.out);
}

/* On --mdl FILE, the description extends FILE by its path; a size takes its unit written with the
 * number, a string key its value without quotes. */
Test(set, changes_a_description_given_by_path_and_writes_units_and_strings_as_the_language_wants,
     .init = make_dir, .fini = remove_dir)
{
    write_file("slow.mdl", slow_add);
    write_file("same.mdl", "machine slowadd extends \"slow.mdl\" { description \"Skylake's \\\"slow\\\" add\"; }\n"
                           "window { rob 512; }\ncache L1D { size 64 KiB; }\n");
    char args[512];
    snprintf(args, sizeof args, "block --mdl %s/slow.mdl --set window.rob=512 --set cache.L1D.size=64KiB --set "
             "'machine.description=Skylake'\"'\"'s \"slow\" add' --json kernels/rob-bound.s", dir);
    struct run set = mdlsim(args, "2>/dev/null");
    snprintf(args, sizeof args, "block --mdl %s/same.mdl --json kernels/rob-bound.s", dir);
    struct run desc = mdlsim(args, "2>/dev/null");
    cr_assert_eq(set.status, 0);
    cr_assert_eq(desc.status, 0);
    cr_expect(strstr(set.out, "\"machine\":\"slowadd\",\"set\":[{\"key\":\"window.rob\",\"value\":\"512\"},"
                              "{\"key\":\"cache.L1D.size\",\"value\":\"64KiB\"},{\"key\":\"machine.description\","
                              "\"value\":\"Skylake's \\\"slow\\\" add\"}]"), "%.300s", set.out);
    drop_set(set.out);
    cr_expect_str_eq(set.out, desc.out);
    free(set.out);
    free(desc.out);
}

Test(mdlfile, compares_a_description_with_a_machine_and_another_description, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    write_file("slow.mdl", slow_add);
    write_file("wide.mdl", "machine wide extends skylake { description \"Skylake, a 512-entry ROB\"; }\n"
                           "window { rob 512; }\n");
    char args[1024];
    snprintf(args, sizeof args, "block --machine skylake --mdl %s/slow.mdl --mdl %s/wide.mdl --json --hex 4801d84801c3",
             dir, dir);
    struct run r = mdlsim(args, "2>/dev/null");
    cr_assert_eq(r.status, 0, "%s", args);
    json_error_t e;
    json_t *o = json_loads(r.out, 0, &e);
    cr_assert(o, "%s", r.out);
    free(r.out);
    json_t *names = json_object_get(o, "machines"), *cores = json_object_get(o, "comparison");
    static const char *const want[] = { "skylake", "slowadd", "wide" };
    for (unsigned k = 0; k < 3; k++)
        cr_expect_str_eq(json_string_value(json_array_get(names, k)), want[k]);
    /* the dependent adds take two cycles each on slowadd: twice Skylake's cycles */
    double sky = json_number_value(json_object_get(json_array_get(cores, 0), "cycles"));
    double slow = json_number_value(json_object_get(json_array_get(cores, 1), "cycles"));
    cr_expect_float_eq(slow, 2 * sky, 1e-9, "slowadd %g, skylake %g", slow, sky);
    cr_expect_str_eq(json_string_value(json_object_get(o, "fastest")), "skylake");
    json_decref(o);
    snprintf(args, sizeof args, "block --mdl %s/wide.mdl --mdl %s/wide.mdl --hex 90", dir, dir);
    r = mdlsim(args, "2>&1 >/dev/null");
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.out, "mdlsim: error: two of the cores compared are named 'wide': give each description a "
                            "machine name of its own\n"), "%s", r.out);
    free(r.out);
}
