/* The bad-input catalogue: each hostile or mistaken input gets its precise message and a non-zero
 * status, and leaves no partial output behind. Tests run in tests/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture.h"
#include "scratch.h"

/* CMD's standard error (its standard output goes where CMD sends it) and its status. */
static struct run stderr_of(const char *cmd)
{
    char full[1024];
    snprintf(full, sizeof full, "{ %s; } 2>&1", cmd);
    return capture(full);
}

static void expect_failure(const char *cmd, int status, const char *message)
{
    struct run r = stderr_of(cmd);
    cr_expect_eq(r.status, status, "%s: status %d", cmd, r.status);
    char want[1024];
    scratch_expand(message, want, sizeof want);
    cr_expect(strstr(r.out, want), "%s:\n%s\nhas no '%s'", cmd, r.out, want);
    free(r.out);
}

Test(badinput, fails_when_standard_output_is_a_full_disk)
{
    expect_failure("../build/mdlc -I ../machines --dump-json ../machines/skylake.mdl >/dev/full", 1,
                   "mdlc: error: cannot write standard output: No space left on device");
    expect_failure("../build/mdlc -I ../machines --summary ../machines/skylake.mdl >/dev/full", 1,
                   "mdlc: error: cannot write standard output: No space left on device");
    expect_failure("../build/mdlc --dump-ast ../machines/skylake.mdl >/dev/full", 1,
                   "mdlc: error: cannot write standard output: No space left on device");
    expect_failure("../build/mdlsim block --machine skylake --hex 4801d8 >/dev/full", 1,
                   "mdlsim: error: cannot write standard output: No space left on device");
    expect_failure("../build/mdlsim machines >/dev/full", 1,
                   "mdlsim: error: cannot write standard output: No space left on device");
    static const char *const printers[] = {
        "mdlc --help", "mdlc --version", "mdlsim --help", "mdlsim --version",
        "mdlprobe --list-forms", "mdlprobe --help", "mdlprobe --version",
    };
    for (size_t i = 0; i < sizeof printers / sizeof *printers; i++) {
        char cmd[128], message[128];
        snprintf(cmd, sizeof cmd, "../build/%s >/dev/full", printers[i]);
        snprintf(message, sizeof message, "%.*s: error: cannot write standard output: No space left on device\n",
                 (int)strcspn(printers[i], " "), printers[i]);
        expect_failure(cmd, 1, message);
    }
}

Test(badinput, names_an_output_directory_that_is_a_file_as_not_a_directory)
{
    expect_failure("../build/mdlc -I ../machines -o /dev/null ../machines/skylake.mdl", 2,
                   "mdlc: error: '/dev/null' is not a directory\n");
    expect_failure("../build/mdlc -I ../machines -o /nonexistent/dir ../machines/skylake.mdl", 2,
                   "mdlc: error: output directory '/nonexistent/dir' does not exist\n");
}

Test(badinput, checks_the_depfile_directory_before_writing_any_output)
{
    char dir[256], cmd[768], c_file[512];
    snprintf(dir, sizeof dir, "%s", scratch_path("mdlc-dep.XXXXXX"));
    cr_assert(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "../build/mdlc -I ../machines -o %s --depfile /nonexistent/dir/x.d ../machines/skylake.mdl",
             dir);
    expect_failure(cmd, 1, "mdlc: error: cannot write '/nonexistent/dir/x.d': No such file or directory");
    snprintf(c_file, sizeof c_file, "%s/skylake.c", dir);
    cr_expect_neq(access(c_file, F_OK), 0, "the .c was written before the depfile failed");
    rmdir(dir);
}

Test(badinput, refuses_a_directory_as_a_hex_file)
{
    expect_failure("../build/mdlsim block --machine skylake --hex-file /tmp", 1,
                   "mdlsim: error: cannot read '/tmp': Is a directory");
}

Test(badinput, shows_a_control_byte_of_a_hex_block_by_its_code)
{
    expect_failure("../build/mdlsim block --machine skylake --hex \"$(printf '48\\0330')\"", 1,
                   "mdlsim: error: --hex: invalid hex digit '\\x1b' at offset 2");
}

Test(badinput, refuses_a_block_longer_than_its_limit_before_decoding_it)
{
    FILE *fp = fopen(scratch_path("mdlsim-long.hex"), "w");
    cr_assert(fp);
    for (int i = 0; i < 262145; i++)
        fputs("90", fp);
    fputc('\n', fp);
    fclose(fp);
    expect_failure("../build/mdlsim block --machine skylake --hex-file $MDLSIM_TMP/mdlsim-long.hex", 1,
                   "mdlsim: error: $MDLSIM_TMP/mdlsim-long.hex:1: a block of 262145 bytes: at most 262144");
    remove(scratch_path("mdlsim-long.hex"));
}

/* A function name holding terminal escapes (a crafted object) is printed with '?' for each
 * control byte in the text report, and with spaces in the callgrind file. */
Test(badinput, prints_the_control_bytes_of_a_guest_symbol_as_question_marks, .timeout = 60)
{
    const char *build =
        "printf '#include <stdio.h>\\n__attribute__((noinline)) long spin_evil_name_x(long n) { long s = 0; "
        "for (long i = 0; i < n; i++) s += i * i; return s; }\\nint main(void) { printf(\"%%ld\\\\n\", "
        "spin_evil_name_x(1000)); return 0; }\\n' > $MDLSIM_TMP/mdlsim-evil.c && gcc -O1 -o $MDLSIM_TMP/mdlsim-evil $MDLSIM_TMP/mdlsim-evil.c "
        "&& python3 -c \"import sys; p='$MDLSIM_TMP/mdlsim-evil'; d=open(p,'rb').read(); "
        "open(p,'wb').write(d.replace(b'_evil_name_', bytes([27])+b'[2J'+bytes([27])+b'[31m!!'))\"";
    cr_assert_eq(system(build), 0);
    struct run r = stderr_of("../build/mdlsim run --machine skylake --no-sensitivity --callgrind $MDLSIM_TMP/mdlsim-evil.cg "
                             "-- $MDLSIM_TMP/mdlsim-evil >/dev/null");
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.out, "mdlsim-evil!spin?[2J?[31m!!x"), "%s", r.out);
    cr_expect_null(strchr(r.out, 27), "an escape reached the terminal");
    free(r.out);
    r = capture("grep -c '^fn=spin \\[2J \\[31m!!x' $MDLSIM_TMP/mdlsim-evil.cg");
    cr_expect_str_eq(r.out, "1\n");
    free(r.out);
    remove(scratch_path("mdlsim-evil.c"));
    remove(scratch_path("mdlsim-evil"));
    remove(scratch_path("mdlsim-evil.cg"));
}

/* Events of another wire version (a plugin of another build) are named as such. */
Test(badinput, names_the_wire_version_of_events_from_another_build)
{
    expect_failure("python3 traces/mktrace.py $MDLSIM_TMP/mdlsim-wire.trace 0 4d444c5349570003 4 && "
                   "../build/mdlsim replay --machine skylake $MDLSIM_TMP/mdlsim-wire.trace", 1,
                   "mdlsim: error: the events are of wire version 3; this mdlsim reads versions 1 to 2 (the plugin "
                   "and mdlsim come from different builds: run make)");
    remove(scratch_path("mdlsim-wire.trace"));
}

/* A trace that cannot be written whole (a file size limit, as a full disk) fails the run with the
 * reason and leaves no trace, partial or temporary. The write that fails stops the run at once:
 * a guest that never ends (it was found only at the run's end) ends with it, and no report is
 * written. A device as the trace is refused before the run. */
Test(badinput, fails_a_run_whose_trace_cannot_be_written_at_once_and_leaves_none, .timeout = 60)
{
    remove(scratch_path("mdlsim-full.json"));
    expect_failure("sh -c 'trap \"\" XFSZ; ulimit -f 64; exec ../build/mdlsim run --machine skylake --no-sensitivity "
                   "--quiet --json $MDLSIM_TMP/mdlsim-full.json --record $MDLSIM_TMP/mdlsim-full.trace -- sh -c \"while :; do :; done\" $MDLSIM_TMP "
                   ">/dev/null'", 125, "mdlsim: error: cannot write '$MDLSIM_TMP/mdlsim-full.trace': File too large");
    cr_expect_neq(access(scratch_path("mdlsim-full.trace"), F_OK), 0, "a partial trace was left");
    cr_expect_neq(access(scratch_path("mdlsim-full.json"), F_OK), 0, "a report was written");
    struct run q = capture("pgrep -f 'while [:]; do :; done '\"$MDLSIM_TMP\" || true");
    cr_expect_str_eq(q.out, "", "the guest outlived mdlsim");
    free(q.out);
    expect_failure("../build/mdlsim run --machine skylake --quiet --record /dev/full -- ../build/programs/exact.x86 1", 125,
                   "mdlsim: error: cannot write '/dev/full': it is not a regular file");
    remove(scratch_path("mdlsim-full.trace"));
    expect_failure("sh -c 'trap \"\" XFSZ; ulimit -f 64; exec ../build/mdlsim run --machine skylake --no-sensitivity "
                   "--quiet --record $MDLSIM_TMP/mdlsim-full.trace -- ../build/programs/exact.x86 100 >/dev/null'",
                   125, "mdlsim: error: cannot write '$MDLSIM_TMP/mdlsim-full.trace': File too large");
    cr_expect_neq(access(scratch_path("mdlsim-full.trace"), F_OK), 0, "a partial trace was left");
    struct run r = capture("ls -a $MDLSIM_TMP | grep -c '^\\.mdlsim-full\\.trace' || true");
    cr_expect_str_eq(r.out, "0\n", "a temporary file was left");
    free(r.out);
}

/* A message quoting what the user or a trace gave (a name, a path) shows its control bytes as '?'. */
Test(badinput, shows_the_control_bytes_of_a_quoted_name_as_question_marks, .timeout = 60)
{
    struct run r = stderr_of("../build/mdlsim run --machine skylake --roi \"$(printf 'a\\033[31mb')\" -- "
                             "../build/programs/exact.x86 5 >/dev/null");
    cr_expect_eq(r.status, 125);
    cr_expect(strstr(r.out, "mdlsim: error: --roi 'a?[31mb': no such function in '../build/programs/exact.x86' or "
                            "the libraries it loaded\n"), "%s", r.out);
    cr_expect_null(strchr(r.out, 27), "an escape reached the terminal");
    free(r.out);
    r = stderr_of("../build/mdlsim block --mdl \"$(printf '%s/no\\033such.mdl' \"$MDLSIM_TMP\")\" --hex 90");
    char want[512];
    scratch_expand("mdlsim: error: cannot read the machine description '$MDLSIM_TMP/no?such.mdl': No such file or "
                   "directory\n", want, sizeof want);
    cr_expect_str_eq(r.out, want);
    free(r.out);
}

/* An assembly file that assembles to no code is an error, not a double free. */
Test(badinput, refuses_an_assembly_file_with_no_code, .timeout = 60)
{
    char dir[256], cmd[1024], cwd[512];
    snprintf(dir, sizeof dir, "%s", scratch_path("mdlsim-nocode.XXXXXX"));
    cr_assert(mkdtemp(dir) && getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "cd %s && : > empty.s && printf '.data\\n.byte 1\\n' > data.s", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s/../build/mdlsim block --machine skylake empty.s", dir, cwd);
    expect_failure(cmd, 1, "mdlsim: error: 'empty.s' assembles to no code: its .text section is empty\n");
    snprintf(cmd, sizeof cmd, "cd %s && %s/../build/mdlsim block --machine skylake data.s", dir, cwd);
    expect_failure(cmd, 1, "mdlsim: error: 'data.s' assembles to no code: its .text section is empty\n");
    snprintf(cmd, sizeof cmd, "../build/mdlsim block --machine skylake /dev/stdin < %s/empty.s", dir);
    expect_failure(cmd, 1, "mdlsim: error: '/dev/stdin' assembles to no code: its .text section is empty\n");
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A `.fill` of gigabytes stops the assembler once its object reaches the bound, at once. */
Test(badinput, stops_an_assembler_whose_object_outgrows_its_bound, .timeout = 60)
{
    FILE *fp = fopen(scratch_path("mdlsim-fill.s"), "w");
    cr_assert(fp);
    fputs(".text\n.fill 100000000000\n", fp);
    fclose(fp);
    expect_failure("../build/mdlsim block --machine skylake $MDLSIM_TMP/mdlsim-fill.s", 1,
                   "mdlsim: error: '$MDLSIM_TMP/mdlsim-fill.s' assembles to an object of more than 16 MiB (a block is at "
                   "most 256 KiB of code)\n");
    remove(scratch_path("mdlsim-fill.s"));
}

/* A named pipe given where a file is read whole is refused at once: nothing waits for a writer. */
Test(badinput, refuses_a_named_pipe_as_an_input_file, .timeout = 60)
{
    char dir[256], fifo[512], cmd[1024];
    snprintf(dir, sizeof dir, "%s", scratch_path("mdlsim-fifo.XXXXXX"));
    cr_assert(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/in.s", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(cmd, sizeof cmd, "../build/mdlsim block --machine skylake %s", fifo);
    expect_failure(cmd, 1, "mdlsim: error: cannot read '$MDLSIM_TMP/mdlsim-fifo.");
    expect_failure(cmd, 1, "/in.s': not a regular file\n");
    snprintf(cmd, sizeof cmd, "../build/mdlsim block --machine skylake --function main %s", fifo);
    expect_failure(cmd, 1, "/in.s': not a regular file\n");
    snprintf(cmd, sizeof cmd, "../build/mdlc --check %s", fifo);
    expect_failure(cmd, 1, "/in.s': not a regular file\n");
    snprintf(cmd, sizeof cmd, "../build/mdlprobe -o %s/draft.mdl --base %s", dir, fifo);
    expect_failure(cmd, 1, "/in.s': not a regular file\n");
    snprintf(cmd, sizeof cmd, "../build/mdlsim run --machine skylake --quiet --no-sensitivity --record %s/t.trace -- "
             "../build/programs/exact.x86 5 >/dev/null", dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "../build/mdlsim replay --machine skylake --program %s %s/t.trace", fifo, dir);
    expect_failure(cmd, 1, "/in.s': not a regular file\n");
    snprintf(cmd, sizeof cmd, "%s/t.trace", dir);
    remove(cmd);
    remove(fifo);
    rmdir(dir);
}

/* A hex file's line is read up to its bound, never further: /dev/zero is one endless line. */
Test(badinput, refuses_a_hex_line_longer_than_its_bound_without_reading_it_whole, .timeout = 60)
{
    expect_failure("../build/mdlsim block --machine skylake --hex-file /dev/zero", 1,
                   "mdlsim: error: /dev/zero:1: a line longer than 1048576 bytes (a block is at most 262144 bytes, "
                   "two hex digits each)\n");
}

Test(badinput, names_a_nul_byte_in_a_hex_line_as_an_invalid_digit)
{
    expect_failure("printf '4801d8\\n48\\00001d8\\n' | ../build/mdlsim block --machine skylake --hex-file - >/dev/null",
                   1, "mdlsim: error: -:2: invalid hex digit '\\x00' at offset 2\n");
}

Test(badinput, refuses_a_hex_file_that_holds_no_block)
{
    expect_failure("../build/mdlsim block --machine skylake --hex-file /dev/null", 1,
                   "mdlsim: error: '/dev/null' holds no block (one block in hex per line)\n");
    expect_failure("printf '# a comment\\n\\n' | ../build/mdlsim block --machine skylake --hex-file -", 1,
                   "mdlsim: error: '-' holds no block (one block in hex per line)\n");
}

/* A number of 10 MB gives a few lines of diagnostics (once 31 MB: the number in the message, the
 * line and its underline, each whole). */
Test(badinput, quotes_a_bounded_excerpt_of_a_number_of_megabytes, .timeout = 60)
{
    FILE *fp = fopen(scratch_path("mdlc-huge-number.mdl"), "w");
    cr_assert(fp);
    fputs("machine t {\n    isa x86_64;\n}\nports p0, p1, p5;\ninclude \"include/all-classes.mdl\";\nwindow { rob ", fp);
    for (int i = 0; i < 10 << 20; i++)
        fputc('9', fp);
    fputs("; }\n", fp);
    cr_assert_eq(fclose(fp), 0);
    struct run r = stderr_of("../build/mdlc --check -I diag $MDLSIM_TMP/mdlc-huge-number.mdl");
    cr_expect_eq(r.status, 1);
    cr_expect_lt(strlen(r.out), 1024, "%zu bytes of diagnostics", strlen(r.out));
    char want[512];
    scratch_expand("$MDLSIM_TMP/mdlc-huge-number.mdl:6:14: error: integer '99999999999999999999999999999999999999999"
                   "99999999999999999999999...' is too large (the limit is 2147483647)\n", want, sizeof want);
    cr_expect(strstr(r.out, want), "%.2000s", r.out);
    free(r.out);
    remove(scratch_path("mdlc-huge-number.mdl"));
}

/* A program that cannot be executed exits 126, as from a shell, with the reason: a directory, a
 * file that is neither ELF nor a '#!' script, an ELF file cut short (never called "stripped"). */
Test(badinput, refuses_a_program_that_cannot_be_executed_with_status_126, .timeout = 60)
{
    char dir[] = "/tmp/mdlsim-exec.XXXXXX", cmd[512], msg[512];
    cr_assert(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cd %s && mkdir sub && printf hello > text && head -c 3000 /bin/true > cut && "
             "chmod +x text cut", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "../build/mdlsim run --machine skylake -- %s/sub", dir);
    snprintf(msg, sizeof msg, "mdlsim: error: cannot execute '%s/sub': Is a directory\n", dir);
    expect_failure(cmd, 126, msg);
    snprintf(cmd, sizeof cmd, "../build/mdlsim run --machine skylake -- %s/text", dir);
    snprintf(msg, sizeof msg, "mdlsim: error: cannot execute '%s/text': neither an ELF program nor a '#!' script "
             "(Exec format error)\n", dir);
    expect_failure(cmd, 126, msg);
    snprintf(cmd, sizeof cmd, "../build/mdlsim run --machine skylake --roi main -- %s/cut", dir);
    snprintf(msg, sizeof msg, "mdlsim: error: '%s/cut' is not a complete ELF file: ", dir);
    expect_failure(cmd, 126, msg);
    expect_failure(cmd, 126, "past its end at byte 3000 (truncated?)\n");
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* A report whose name the file system cannot take (its temporary file's name is 8 bytes longer)
 * is refused before the run: the program never starts, no file is left. */
Test(badinput, refuses_a_report_name_too_long_before_the_run, .timeout = 60)
{
    char dir[] = "/tmp/mdlsim-long.XXXXXX", name[256], cmd[1024], msg[1024];
    cr_assert(mkdtemp(dir));
    memset(name, 'r', 254);
    name[254] = 0;
    const char *opts[] = { "--json", "--html", "--callgrind", "--record" };
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        snprintf(cmd, sizeof cmd, "../build/mdlsim run --machine skylake %s %s/%s -- /bin/touch %s/ran", opts[i], dir,
                 name, dir);
        snprintf(msg, sizeof msg, "mdlsim: error: cannot write '%s/%s': a name of 254 bytes is too long (at most 247: "
                 "it is written as '.NAME.XXXXXX' beside it first, and a name here has at most 255)\n", dir, name);
        expect_failure(cmd, 125, msg);
    }
    snprintf(cmd, sizeof cmd, "rmdir %s", dir);     /* fails if the program ran or a file was left */
    cr_expect_eq(system(cmd), 0);
}

/* A comma in a path reaches QEMU's -plugin doubled (QEMU splits its option list at a comma): a
 * program in a directory named with one runs, and so does an mdlsim (and its plugin) there. */
Test(badinput, runs_a_program_and_a_plugin_in_a_directory_named_with_a_comma, .timeout = 60)
{
    char dir[] = "/tmp/mdlsim-comma.XXXXXX", cmd[960];
    cr_assert(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "mkdir '%s/a,b' && cp ../build/mdlsim ../build/libmdlplugin.so /bin/true '%s/a,b/'", dir,
             dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s/a,b/mdlsim' run --machine skylake --quiet --no-sensitivity -- '%s/a,b/true'", dir,
             dir);
    struct run r = stderr_of(cmd);
    cr_expect_eq(r.status, 0, "%s: status %d\n%s", cmd, r.status, r.out);
    cr_expect(strstr(r.out, "\n== mdlsim run: skylake, whole run\n"), "%s", r.out);
    cr_expect_null(strstr(r.out, "error"), "%s", r.out);
    free(r.out);
    snprintf(cmd, sizeof cmd, "rm -r %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* A cache at the bound (1 GiB, one way of 8-byte lines: 2^27 sets) compiles; where its tags do not
 * fit in memory, mdlsim says which allocation failed instead of an empty "error: ". */
Test(badinput, names_the_cache_whose_tags_do_not_fit_in_memory, .timeout = 120)
{
    char dir[] = "/tmp/mdlc-bigcache.XXXXXX", cmd[768], path[128];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/big.mdl", dir);
    FILE *fp = fopen(path, "w");
    cr_assert(fp);
    fputs("machine t {\n    isa x86_64;\n}\nports p0, p1, p5;\ninclude \"include/all-classes.mdl\";\n"
          "cache L3 {\n    level 3;\n    size 1 GiB;\n    ways 1;\n    line 8 B;\n    latency 40 cycles;\n}\n", fp);
    cr_assert_eq(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "../build/mdlc --check -I diag %s", path);
    struct run r = stderr_of(cmd);
    cr_expect_eq(r.status, 0, "%s", r.out);
    free(r.out);
    /* memory refused by a bound on the address space; under AddressSanitizer (make sanitize), which
     * cannot start in one, by its allocator's bound on one allocation */
    snprintf(cmd, sizeof cmd, "if ldd ../build/mdlsim | grep -q libasan; then export ASAN_OPTIONS=\"$ASAN_OPTIONS:"
             "allocator_may_return_null=1:max_allocation_size_mb=512\"; else ulimit -v 1200000; fi; "
             "XDG_CACHE_HOME=%s/cache ../build/mdlsim run --mdl %s -I diag --quiet -- /bin/true", dir, path);
    expect_failure(cmd, 125, "mdlsim: error: out of memory for the caches of machine 't' (the largest, L3, holds "
                             "1073741824 bytes)\n");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* D/NAME: a valid description padded with a comment to SIZE bytes. */
static void write_padded(const char *dir, const char *name, long size)
{
    static const char head[] = "machine t {\n    isa x86_64;\n}\nports p0, p1, p5;\n"
                               "include \"include/all-classes.mdl\";\n// ";
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    cr_assert(fp);
    fputs(head, fp);
    for (long i = (long)sizeof head - 1; i < size - 1; i++)
        fputc('x', fp);
    fputc('\n', fp);
    cr_assert_eq(fclose(fp), 0);
}

/* The README's bound, 64 MiB, to the byte: not the 128 MiB that doubling a buffer reached. */
Test(badinput, reads_a_description_of_exactly_its_bound_and_refuses_one_byte_more, .timeout = 120)
{
    char dir[] = "/tmp/mdlc-bound.XXXXXX", cmd[512];
    cr_assert(mkdtemp(dir));
    write_padded(dir, "at.mdl", 64L << 20);
    write_padded(dir, "over.mdl", (64L << 20) + 1);
    snprintf(cmd, sizeof cmd, "../build/mdlc --check -I diag %s/at.mdl", dir);
    struct run r = stderr_of(cmd);
    cr_expect_eq(r.status, 0, "%s", r.out);
    free(r.out);
    snprintf(cmd, sizeof cmd, "../build/mdlc --check -I diag %s/over.mdl", dir);
    char message[256];
    snprintf(message, sizeof message, "mdlc: error: cannot read '%s/over.mdl': file is larger than 64 MiB\n", dir);
    expect_failure(cmd, 1, message);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}
