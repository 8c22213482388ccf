/* mdlc: compiles a machine description into simulator tables (see spec.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "driver.h"
#include "alloc.h"
#include "safefile.h"
#include "version.h"

static const char usage[] =
    "usage: mdlc [-I DIR]... [-o OUTDIR [--basename NAME]] [--check | --summary | --dump-ast | --dump-json] [-W...] FILE.mdl\n";

static const char help[] =
    "Compiles a machine description (spec.md) into OUTDIR/<machine>.c and .h.\n"
    "\n"
    "  -I DIR            search DIR for included files and extended machines (repeatable)\n"
    "  -o OUTDIR         where to write <machine>.c and <machine>.h (default: .)\n"
    "  --basename NAME   name them NAME.c and NAME.h instead (a build naming outputs after files)\n"
    "  --check           run every check, write nothing\n"
    "  --summary         print what the machine holds (widths, caches, resources), write nothing\n"
    "  --dump-ast        print the syntax tree of FILE (its includes are not read)\n"
    "  --dump-json       print the lowered machine as JSON on stdout, write nothing\n"
    "  --depfile FILE    also write a make rule listing every file read\n"
    "  --deptarget NAME  the target of that rule (default: FILE.mdl)\n"
    "  -Wmissing-source  warn about every number written without a source (@NAME or @\"...\");\n"
    "                    -Wno-missing-source turns it off again (the default)\n"
    "  -Wno-qemu-cpu     no warning when the installed QEMU lacks the machine's qemu_cpu model\n"
    "                    (on by default: 'mdlsim run' would fail on that machine)\n"
    "  -Wno-unmatched-form\n"
    "                    no warning for a form key whose mnemonic no instruction decodes as\n"
    "                    (on by default: the entry would never match)\n"
    "  --Werror, -Werror treat warnings as errors\n"
    "  -h, --help        show this help\n"
    "  --version         print mdlc's version (and the commit built) and exit\n"
    "\n"
    "Exit status: 0 success, 1 errors in the description, 2 usage errors.\n"
    "Outputs are rewritten only when their content changes; nothing is written on error.\n";

/* -W NAME and -Wno-NAME: the warnings that can be turned on or off, and -Werror as compilers spell it. */
static bool warning_option(struct mdlc_opts *o, const char *name)
{
    bool on = strncmp(name, "no-", 3) != 0;
    const char *w = on ? name : name + 3;
    if (strcmp(w, "missing-source") == 0)
        o->warn_missing_source = on;
    else if (strcmp(w, "qemu-cpu") == 0)
        o->no_warn_qemu_cpu = !on;
    else if (strcmp(w, "unmatched-form") == 0)
        o->no_warn_unmatched_form = !on;
    else if (strcmp(name, "error") == 0)
        o->werror = true;
    else
        return false;
    return true;
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("mdlc: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fputs(usage, stderr);
    return 2;
}

static int run(int argc, char **argv, const char **dirs)
{
    enum { OPT_CHECK = 256, OPT_SUMMARY, OPT_AST, OPT_JSON, OPT_DEPFILE, OPT_DEPTARGET, OPT_WERROR, OPT_BASENAME, OPT_VERSION };
    static const struct option longopts[] = {
        { "check", no_argument, NULL, OPT_CHECK }, { "summary", no_argument, NULL, OPT_SUMMARY }, { "dump-ast", no_argument, NULL, OPT_AST },
        { "dump-json", no_argument, NULL, OPT_JSON }, { "depfile", required_argument, NULL, OPT_DEPFILE },
        { "deptarget", required_argument, NULL, OPT_DEPTARGET }, { "Werror", no_argument, NULL, OPT_WERROR },
        { "basename", required_argument, NULL, OPT_BASENAME }, { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, OPT_VERSION }, { NULL, 0, NULL, 0 },
    };
    struct mdlc_opts o = { .action = MDLC_EMIT, .outdir = ".", .include_dirs = dirs, .out = stdout, .err = stderr };
    int c, actions = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":I:o:W:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'I': dirs[o.n_include_dirs++] = optarg; break;
        case 'o': o.outdir = optarg; break;
        case OPT_CHECK: o.action = MDLC_CHECK; actions++; break;
        case OPT_SUMMARY: o.action = MDLC_SUMMARY; actions++; break;
        case OPT_AST: o.action = MDLC_DUMP_AST; actions++; break;
        case OPT_JSON: o.action = MDLC_DUMP_JSON; actions++; break;
        case OPT_DEPFILE: o.depfile = optarg; break;
        case OPT_DEPTARGET: o.deptarget = optarg; break;
        case OPT_WERROR: o.werror = true; break;
        case OPT_BASENAME: o.basename = optarg; break;
        case 'W':
            if (!warning_option(&o, optarg)) {
                return usage_error("unknown warning option '-W%s'", optarg);
            }
            break;
        case 'h': fputs(usage, stdout); fputs(help, stdout); return 0;
        case OPT_VERSION: printf(MDL_VERSION_LINE("mdlc")); return 0;
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    int rc;
    struct stat st;
    if (actions > 1)
        rc = usage_error("%s", "--check, --summary, --dump-ast and --dump-json exclude each other");
    else if (o.basename && (!*o.basename || strchr(o.basename, '/')))
        rc = usage_error("--basename takes a file name without a directory, got '%s'", o.basename);
    else if (optind != argc - 1)
        rc = usage_error("%s", optind == argc ? "no input file" : "more than one input file");
    else if (o.action == MDLC_EMIT && stat(o.outdir, &st) != 0)
        rc = usage_error("output directory '%s' does not exist", o.outdir);
    else if (o.action == MDLC_EMIT && !S_ISDIR(st.st_mode))
        rc = usage_error("'%s' is not a directory", o.outdir);
    else {
        o.input = argv[optind];
        rc = mdlc_run(&o);
    }
    return rc;
}

/* A result that could not be written whole (--dump-json into a full disk) is a failure, and so
 * is --help's or --version's. */
int main(int argc, char **argv)
{
    const char **dirs = alloc_zeroed((size_t)argc + 1, sizeof *dirs);
    int rc = run(argc, argv, dirs);
    char err[256];
    if (!safefile_stdout(err, sizeof err)) {
        fprintf(stderr, "mdlc: error: %s\n", err);
        rc = rc ? rc : 1;
    }
    free(dirs);
    return rc;
}
