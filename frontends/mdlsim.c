/* mdlsim: analyses code on a machine compiled from its description. `block` runs a basic
 * block statically (repeated back to back), `run` a program under QEMU, `replay` a recorded
 * trace, all three through one pipeline to the views; `machines` lists the machines compiled in. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "alloc.h"
#include "analysis.h"
#include "robust.h"
#include "asm.h"
#include "safefile.h"
#include "suggest.h"
#include "version.h"
#include "batch.h"
#include "cpus.h"
#include "fdio.h"
#include "block.h"
#include "elfsym.h"
#include "loops.h"
#include "console.h"
#include "launch.h"
#include "classify.h"
#include "decode.h"
#include "isa.h"
#include "run.h"
#include "tee.h"
#include "symbols.h"
#include "transport.h"
#include "mdlfile.h"
#include "mdlset.h"
#include "result.h"
#include "view_callgrind.h"
#include "view_html.h"
#include "view_json.h"
#include "view_text.h"

extern const struct mdl_machine *const mdl_machines[];

/* The views of a result, listed once: the options, the help and the writing all read this
 * table, so a new view is its module, a line here and its golden test. run and replay write each
 * view asked for (--NAME FILE) into its file, and the text on stderr besides. Block mode prints
 * the text on stdout, or the JSON in its place (--json takes no FILE there: one object per block,
 * a stream), and writes a file for each other view it offers. */
enum view_id { VIEW_JSON, VIEW_HTML, VIEW_CALLGRIND, N_VIEWS };
static const struct view {
    const char *name;                               /* its option, --NAME */
    bool (*write)(FILE *, const struct result *);
    bool (*compare)(FILE *, const struct result_comparison *);    /* several cores' (NULL: not offered) */
    const char *what;                               /* what its file holds, for block's errors */
    const char *run_help;                           /* its lines in run's help ("": said on another's) */
    const char *block_help;                         /* in block's (NULL: block does not offer it) */
} views[N_VIEWS] = {
    [VIEW_JSON] = { "json", view_json, view_json_comparison, "report", "  --json FILE        the report as JSON; --html FILE: as a page\n",
                    "  --json             one JSON object per block, on stdout\n" },
    [VIEW_HTML] = { "html", view_html, view_html_comparison, "page", "",
                    "  --html FILE        the block's page (not with --hex-file)\n" },
    [VIEW_CALLGRIND] = { "callgrind", view_callgrind, NULL, "profile",
                         "  --callgrind FILE   valgrind's callgrind format (KCachegrind, callgrind_annotate)\n", NULL },
};

/* The usage and help of each subcommand, put together for `mdlsim --help` and apart for
 * `mdlsim COMMAND --help`: continuation lines are indented for "usage: " or its width. */

#define USAGE_MACHINES \
    "mdlsim machines\n"

#define USAGE_RUN \
    "mdlsim run MACHINE [--roi SYMBOL]... [LANES] [SAMPLING] [--json FILE] [--html FILE] [--callgrind FILE]\n" \
    "                  [--record FILE] [--sysroot DIR] [--quiet] [--causality-sample N] [--robustness]\n" \
    "                  -- PROGRAM [ARGS...]\n"

#define USAGE_REPLAY \
    "mdlsim replay MACHINE [--roi SYMBOL]... [--program PROGRAM] [LANES] [SAMPLING] [--json FILE] [--html FILE]\n" \
    "                  [--callgrind FILE] [--quiet] [--robustness] TRACE\n"

#define USAGE_BLOCK \
    "mdlsim block MACHINE (FILE.s | --function NAME PROGRAM | --hex HEX | --hex-file FILE)\n" \
    "                    [--whole | --loop N | --region NAME] [LANES] [--iterations N] [--json] [--html FILE]\n" \
    "                    [--jobs N] [--robustness | --no-robustness]\n"

#define USAGE_OPTIONS \
    "       MACHINE: [--machine NAME[,NAME]...] [--mdl FILE.mdl]... [-I DIR]... [--set KEY=VALUE]...\n" \
    "       LANES: [--weight PERCENT]... [--weights P1,P2,...] [--no-sensitivity] [--no-causality]\n"

#define USAGE_SAMPLING \
    "       SAMPLING (run, replay): [--exact | --sample] [--sample-period N]\n"

#define HELP_INTRO \
    "\n" \
    "Every analysis reports the same facts under the same names, as text (block: stdout; run and\n" \
    "replay: stderr, ending with the verdict), JSON (--json; the keys are documented in\n" \
    "frontends/views/mdlsim.schema.json) and a self-contained HTML page (--html FILE): cycles and\n" \
    "IPC, the top-down breakdown of the issue slots, the speed-up when each resource is made\n" \
    "faster (sensitivity: the largest is the bottleneck and bounds the gain), pairs accelerated\n" \
    "together, the bounds with infinite resources and without dependencies, the verdict, the\n" \
    "instructions on the critical path (causality) and a per-instruction resource table.\n" \
    "\n"

#define HELP_RUN \
    "run: runs PROGRAM under QEMU user mode (qemu-x86_64 or qemu-aarch64, with the CPU model the\n" \
    "machine names) and models every instruction it executes. PROGRAM is found through PATH as a\n" \
    "shell finds a command (a \"#!\" script runs its interpreter, as the kernel starts it), and\n" \
    "keeps its input, output (its stderr passes through mdlsim) and exit status. Every instruction\n" \
    "is named module!function+offset, with file:line where the object has debug information, and\n" \
    "the cycles are summed per function. When QEMU cannot start the program, mdlsim says why in\n" \
    "QEMU's words, exits 125 and writes no report.\n" \
    "replay: analyses a trace written by 'run --record' on any machine of the same ISA.\n" \
    "  --roi SYMBOL       only the calls of function SYMBOL (callees included), in the program\n" \
    "                     (position independent or not) or a library it loads; repeatable. A\n" \
    "                     SYMBOL no function has is refused with the closest name: before the\n" \
    "                     run when the program is static (exit 2), when it ends otherwise\n"

/* run's options after the views' */
#define HELP_RUN_MORE \
    "  --record FILE      (run) the event stream, for replay\n" \
    "                     The directory of every report is checked before the run: one that\n" \
    "                     cannot be written fails at once.\n" \
    "  --sysroot DIR      (run) where QEMU finds a dynamically linked program's interpreter and\n" \
    "                     libraries (its -L); for AArch64, /usr/aarch64-linux-gnu by default\n" \
    "                     (gcc-aarch64-linux-gnu's), unless QEMU_LD_PREFIX names one\n" \
    "  --quiet            no progress line (on a terminal, once the run has taken a second:\n" \
    "                     instructions modelled, MIPS and the time, on stderr)\n" \
    "  --exact            model every instruction of the scope (the default for a scope of at most\n" \
    "                     1,000,000 instructions, and for a run, region or not, that ends within\n" \
    "                     about 1,500,000 more: too few for the sample to tell its spread)\n" \
    "  --sample           sample from the first instruction to the last. By default, the first\n" \
    "                     1,000,000 instructions of the scope are modelled in full, and of a\n" \
    "                     whole run the last 100,000 or more too (a program's end: its exit,\n" \
    "                     frees, flushes and output), and the rest between is sampled:\n" \
    "                     in each period (20,000 instructions at first, doubling every 500\n" \
    "                     periods), 2,000 (4 reorder buffers if more) and 0 to 4 reorder buffers\n" \
    "                     more, drawn for each period (Skylake 2,000 to 2,896, Ice Lake 2,000 to\n" \
    "                     3,408, Alder Lake 2,048 to 4,096, Cortex-A72 2,000 to 2,512), are\n" \
    "                     modelled to warm the pipeline (each sensitivity lane going on from\n" \
    "                     its own state, as it was at its last unit) and the next\n" \
    "                     1,000 are measured. A warm-up starts at the first instruction, up to\n" \
    "                     1,000 further, whose address followed the baseline's last unit, and\n" \
    "                     the lanes join at the one that followed theirs: in a loop the model\n" \
    "                     goes on as if nothing had been skipped. Measured: the baseline's in\n" \
    "                     every period, the lanes' in one period of four, all in the same,\n" \
    "                     after the first 125; the caches, the\n" \
    "                     branch predictor and the uop cache see every instruction. Cycles and\n" \
    "                     speed-ups are estimates with 95% confidence intervals (cycles_low/high,\n" \
    "                     speedup_low/high in JSON); instruction and event counts stay exact.\n" \
    "                     The units' rate is corrected by the mispredictions and misses (by\n" \
    "                     level) the reader counts on every instruction, and a repeated string\n" \
    "                     instruction's cycles are counted as the description times it, modelled\n" \
    "                     or skipped: the intervals sample the rest. Every 50 periods, where the\n" \
    "                     units so far (but the last 50's) would give the cycles an interval\n" \
    "                     over +-2.5% if the run ended 500 periods later, the period halves (at\n" \
    "                     most 8 times, to no less than twice a warm-up and unit); where they\n" \
    "                     would at twice the period, it is kept, not doubled (at most 16 times)\n" \
    "  --sample-period N  the first period, in instructions (10000 to 1000000000; default 20000)\n" \
    "  --robustness       check the verdict at both ends of every value the machine gives with a\n" \
    "                     plausible range (as block's --robustness) by replaying the run's trace:\n" \
    "                     --record's, else one written to $TMPDIR and removed. It costs a replay\n" \
    "                     per end (about twice the number of estimates, and again for each end\n" \
    "                     that moves the cycles), so it is not the default\n" \
    "  --causality-sample N  causality (the critical path) follows one period in N (default 8;\n" \
    "                     1: periods back to back); a period is twice the ROB's worth of\n" \
    "                     instructions, counted as they leave a window of that size\n"

#define HELP_BLOCK \
    "block: predicts the steady-state cycles per iteration of a basic block repeated back to back.\n" \
    "  FILE.s             assembly (AT&T by default; '.intel_syntax noprefix' switches); a file\n" \
    "                     with llvm-mca's markers ('# LLVM-MCA-BEGIN [NAME]' ... '# LLVM-MCA-END')\n" \
    "                     gives its regions, each analysed as a block; the code of .text and of\n" \
    "                     every .text.NAME section (gcc -O2 puts main in .text.startup), in order\n" \
    "  --function NAME PROGRAM  the code of function NAME of the ELF program PROGRAM\n" \
    "                     A function or a file without markers gives its innermost loops (a\n" \
    "                     branch back to an earlier address closes one), each analysed as a block\n" \
    "                     and named by its addresses; without a loop, the whole code is one block.\n" \
    "  --whole            the whole code as one block (prologue, returns and all)\n" \
    "  --loop N           only the Nth of those loops or regions (in address order)\n" \
    "  --region NAME      only the region marked '# LLVM-MCA-BEGIN NAME'\n" \
    "  --hex HEX          the block's bytes in hex\n" \
    "  --hex-file FILE    one hex block per line ('-': standard input; '#' starts a comment line);\n" \
    "                     one result per line with --json, in the order of the file\n" \
    "  --jobs N           analyse the blocks of --hex-file on N threads (default: one per\n" \
    "                     processor it may use); the output is the same whatever N\n" \
    "  --iterations N     at most N copies measured (default 200): the run stops once the timing\n" \
    "                     repeats, else the second half is measured; causality may run longer\n" \
    "  --robustness       check the verdict at both ends of every value the machine gives with a\n" \
    "                     plausible range (an estimate, spec.md §8.1): each end is measured with\n" \
    "                     the baseline alone, and where that moves the cycles, with every lane; the\n" \
    "                     report says whether the verdict holds, or on which values it depends\n" \
    "                     (text: 'Robustness:', JSON: \"robustness\"). The default for FILE.s,\n" \
    "                     --function and --hex; not for --hex-file, where it costs about 5x\n" \
    "  --no-robustness    no such check\n"

#define HELP_OPTIONS \
    "Machines (all subcommands):\n" \
    "  --machine NAME     a machine compiled into mdlsim (see 'mdlsim machines')\n" \
    "  --machine A,B,...  several (of one ISA, at most 8) compared in one command: the same code\n" \
    "                     (block), the same trace (replay: each core on a thread of its own) or\n" \
    "                     the same run (run: live on the first core, its trace replayed on the\n" \
    "                     others as it is written) modelled on each, and one report with a column\n" \
    "                     per core: cycles, their interval when sampled, speed relative to the\n" \
    "                     fastest, IPC, top-down, the functions whose cycles differ most, each\n" \
    "                     core's verdict. JSON: each core's whole result under \"comparison\";\n" \
    "                     --html: the cores side by side.\n" \
    "                     Each --mdl FILE given besides adds its core after them (--machine\n" \
    "                     skylake --mdl mine.mdl compares the two); --machine itself once.\n" \
    "                     Not with --set, --callgrind, or --robustness for run and replay\n" \
    "  --mdl FILE         a machine description anywhere (spec.md): compiled with mdlc and the C\n" \
    "                     compiler ($CC, else cc) on first use, cached in $XDG_CACHE_HOME/mdlsim\n" \
    "                     (else ~/.cache/mdlsim) under the content of every file it reads, and\n" \
    "                     reused while none of them changes; errors in it are mdlc's, exit 1\n" \
    "  -I DIR             where FILE's includes and parent machines are looked for, after FILE's\n" \
    "                     own directory (repeatable); the bundled machines/ is searched last, so\n" \
    "                     'extends skylake' works from anywhere\n" \
    "  --set KEY=VALUE    one value of the machine changed for this analysis (repeatable): the\n" \
    "                     machine with it is a description that extends the machine and sets it,\n" \
    "                     checked by mdlc (a wrong value is mdlc's error, naming the --set; exit 2)\n" \
    "                     and built and cached as --mdl's. KEY: BLOCK.KEY for a key of the\n" \
    "                     frontend, window, memory, branch or strings block (window.rob=512,\n" \
    "                     memory.latency=300), cache.NAME.KEY for a cache of the machine\n" \
    "                     (cache.L1D.size=64KiB, cache.L2.policy=lru), machine.qemu_cpu or\n" \
    "                     machine.description (spec.md §12; not the isa). VALUE as a description\n" \
    "                     writes it, its unit beside the number or apart ('64 KiB'). The report\n" \
    "                     names them ('Machine: skylake with window.rob=512'; JSON: \"set\")\n" \
    "Lanes (all subcommands):\n" \
    "  --weight PERCENT   acceleration of each resource in the sensitivity lanes (default 15;\n" \
    "                     repeatable, at most 8 weights in all)\n" \
    "  --weights LIST     several at once, e.g. 1,2,5,10,15,20,30,50: every resource at every\n" \
    "                     weight in the same pass, giving each resource's curve (the heat map)\n" \
    "  --no-sensitivity   baseline only\n" \
    "  --no-causality     no critical-path analysis\n"

#define HELP_EXIT \
    "Exit status: block and replay: 0 success, 1 when a block or file could not be analysed, 2 usage\n" \
    "errors. run: the program's own exit status; 128 + N when signal N killed it (as a shell says it:\n" \
    "the report of what ran before is still written, and says so); 125 when mdlsim could not run or\n" \
    "analyse it (the error says why), 126 when PROGRAM cannot be executed, 127 when it is not found,\n" \
    "2 usage errors. A program that a fault kills (not raise or abort) may lose its last few\n" \
    "thousand instructions: QEMU ends without a word to the plugin. SIGINT, SIGTERM or SIGHUP to\n" \
    "mdlsim end QEMU too, remove the files being written (trace, reports) and exit 128 + the signal\n" \
    "(one ignored when mdlsim starts, as under nohup, stays ignored). Nothing the program starts\n" \
    "outlives the run: its children are ended with it. A program that replaces itself (exec) is\n" \
    "reported up to the exec; the new program runs natively, and its exit status is the run's.\n"

#define HELP_TRACES \
    "Traces: frames of the event stream, each checked by a checksum; a truncated or damaged trace\n" \
    "is refused with the byte where the damage is, and one of another program (--program) too.\n"

static const char usage_text[] =
    "usage: " USAGE_MACHINES "       " USAGE_RUN "       " USAGE_REPLAY "       " USAGE_BLOCK USAGE_OPTIONS USAGE_SAMPLING
    "       mdlsim --version; mdlsim COMMAND --help: that command's help only\n";

/* In a help's parts, where the views' lines go: run's (and replay's), block's. */
static const char run_views[1], block_views[1];

/* `mdlsim --help` (NULL), `mdlsim COMMAND --help`: that command's usage and options only. */
static const struct command_help {
    const char *name, *usage;
    const char *help[6];            /* its parts, up to a NULL */
} command_helps[] = {
    { NULL, usage_text,
      { HELP_INTRO HELP_RUN, run_views, HELP_RUN_MORE HELP_BLOCK, block_views, HELP_OPTIONS HELP_EXIT HELP_TRACES } },
    { "machines", "usage: " USAGE_MACHINES,
      { "\nLists the machines compiled into mdlsim, one name a line: the NAMEs of --machine.\n" } },
    { "run", "usage: " USAGE_RUN USAGE_OPTIONS USAGE_SAMPLING,
      { HELP_INTRO HELP_RUN, run_views, HELP_RUN_MORE HELP_OPTIONS HELP_EXIT HELP_TRACES } },
    { "replay", "usage: " USAGE_REPLAY USAGE_OPTIONS USAGE_SAMPLING,
      { HELP_INTRO HELP_RUN, run_views, HELP_RUN_MORE HELP_OPTIONS HELP_EXIT HELP_TRACES } },
    { "block", "usage: " USAGE_BLOCK USAGE_OPTIONS, { HELP_INTRO HELP_BLOCK, block_views, HELP_OPTIONS HELP_EXIT } },
};

/* Prints the help of COMMAND (NULL: of every command) on stdout; 0, the exit status. */
static int print_help(const char *command)
{
    const struct command_help *h = &command_helps[0];
    for (size_t i = 1; command && i < sizeof command_helps / sizeof *command_helps; i++)
        if (strcmp(command_helps[i].name, command) == 0)
            h = &command_helps[i];
    fputs(h->usage, stdout);
    for (const char *const *part = h->help; *part; part++) {
        if (*part != run_views && *part != block_views) {
            fputs(*part, stdout);
            continue;
        }
        for (size_t v = 0; v < N_VIEWS; v++) {
            const char *lines = *part == run_views ? views[v].run_help : views[v].block_help;
            if (lines)
                fputs(lines, stdout);
        }
    }
    return 0;
}

/* run's exit status when mdlsim itself fails, as env(1), nice(1) and timeout(1) do, so that it
 * differs from the program's own; 126 and 127 as a shell says them. */
enum { RUN_FAILED = 125, RUN_CANNOT_EXECUTE = 126, RUN_NOT_FOUND = 127 };

/* "mdlsim: error: MESSAGE" on stderr, its control bytes as '?': a message may quote a path, a
 * symbol or a name from a trace, and a terminal must print them, never obey them. False. */
__attribute__((format(printf, 1, 2))) static bool say_error(const char *fmt, ...)
{
    char msg[2 * PATH_MAX + 1024];     /* two paths of PATH_MAX and the words around them */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mdlsim: error: %s\n", result_printable(msg));
    return false;
}

/* The usage a usage error shows: the command's being parsed (set once, by command()), so that a
 * mistake in `mdlsim run` is followed by run's usage, not by every command's. */
static const char *usage_shown = usage_text;

/* FMT: one of this file's literals, with one %s for ARG. */
static int usage_error(const char *fmt, const char *arg)
{
    say_error(fmt, arg);
    fputs(usage_shown, stderr);
    return 2;
}

/* The usage of COMMAND (the whole usage for one mdlsim does not have). */
static const char *command_usage(const char *command)
{
    for (size_t i = 1; i < sizeof command_helps / sizeof *command_helps; i++)
        if (strcmp(command_helps[i].name, command) == 0)
            return command_helps[i].usage;
    return usage_text;
}

/* The directory mdlsim runs from: its plugin and mdlc are there. */
static bool self_dir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    snprintf(out, len, "%s", dirname(exe));
    return true;
}

/* Case folded: 'SkyLake' is skylake, as a user may write it after a vendor's spelling. */
static const struct mdl_machine *find_machine(const char *name)
{
    for (size_t i = 0; mdl_machines[i]; i++)
        if (strcasecmp(mdl_machines[i]->name, name) == 0)
            return mdl_machines[i];
    return NULL;
}

/* The usage error of an unknown machine NAME: the closest name compiled in, when one is close,
 * and every name, so that the next try needs no 'mdlsim machines'. */
static int unknown_machine(const char *name)
{
    const char *names[64];
    char lower[64], known[1024] = "", msg[1536];
    size_t n = 0, k = 0;
    for (; mdl_machines[n] && n < sizeof names / sizeof *names; n++) {
        names[n] = mdl_machines[n]->name;
        k += (size_t)snprintf(known + k, k < sizeof known ? sizeof known - k : 0, "%s%s", n ? ", " : "", names[n]);
    }
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    lower[i] = '\0';
    const char *close = name[i] ? NULL : suggest_closest(lower, names, n);
    snprintf(msg, sizeof msg, "unknown machine '%s'%s%s%s; known: %s (or give a description FILE.mdl)", name,
             close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "", known);
    return usage_error("%s", msg);
}

static int cmd_machines(void)
{
    for (size_t i = 0; mdl_machines[i]; i++)
        printf("%s\n", mdl_machines[i]->name);
    return 0;
}

enum { MAX_INCLUDE_DIRS = 16 };

struct block_opts {
    const struct mdl_machine *m;
    const char *machine, *mdl;      /* --machine NAME, --mdl FILE: M is found after the options */
    const char *machine_opt;        /* the option that gave one, for the error when another does */
    const char *dirs[MAX_INCLUDE_DIRS];     /* -I: where --mdl's includes and parents are */
    unsigned n_dirs;
    const char *file, *hex, *hex_file, *function;
    const char *view[N_VIEWS];      /* the file of each view block offers as one (NULL: none) */
    const char *region;             /* --region NAME of an assembly file */
    bool whole;                     /* --whole: the code as one block, not its loops */
    unsigned loop;                  /* --loop N: the Nth loop or region only (0: all) */
    unsigned iterations, jobs;
    double weights[RESULT_MAX_WEIGHTS];
    unsigned n_weights;
    bool sensitivity, causality;
    int robustness;                 /* --robustness 1, --no-robustness -1, else 0: the command's default */
    /* --machine a,b,c: the cores compared (M is the first); 0 with one machine */
    const struct mdl_machine *cores[RESULT_MAX_CORES];
    unsigned n_cores;
    const char *more_mdl[RESULT_MAX_CORES];  /* the --mdl files after the first, compared with it */
    unsigned n_more_mdl;
    bool json;                      /* --json: the JSON on stdout instead of the text */
    struct mdlset set;              /* --set KEY=VALUE: M is the machine with these values */
};

/* ---- one block ------------------------------------------------------------------------------ */

struct hex_lines;

struct session {
    const struct block_opts *o;
    struct dec *dec;
    struct cls_index *ci;
    struct analysis_plan *plan;     /* the lanes: those of every block, then the block's pairs */
    struct result *res;             /* the last block's, its memory reused for the next */
    const struct hex_lines *lines;  /* the blocks of --hex-file */
    struct rt_model *model;         /* the last block's, reused for the next */
    struct block_cache *cache;      /* the instructions this thread has decoded */
    const struct robust_set *robust;    /* the machines at the ends of the estimates (NULL: not checked) */
    struct result *scratch;         /* where their analyses are made */
    struct peers *peers;            /* --machine a,b,c: each core's session (NULL: one machine) */
};

static void block_error(FILE *out, bool json, const char *label, const char *msg)
{
    if (json)
        view_json_error(out, label, msg);
    view_text_error(stderr, label, msg);
}

/* Pairs of the resources the block keeps busiest (balanced kernels), then the block's run. */
static bool run_block(struct session *s, const struct block *b, struct block_result *r, char *err, size_t errlen)
{
    const struct mdl_machine *m = s->o->m;
    double *busy = alloc_zeroed(m->n_resources + 1u, sizeof *busy), fe, ret;
    block_busy(b, m, busy, &fe, &ret);
    analysis_plan_pairs(s->plan, busy, fe, ret);
    free(busy);
    return block_run(b, m, s->plan->lanes, s->plan->n_lanes, s->o->causality, s->o->iterations, &s->model, r, err,
                     errlen);
}

/* What a view writes: one result, or several cores' (SEVERAL not NULL). */
struct report {
    const struct result *one;
    const struct result_comparison *several;
};

static bool view_report(size_t v, FILE *out, const struct report *rep)
{
    return rep->several ? views[v].compare(out, rep->several) : views[v].write(out, rep->one);
}

static bool write_report(const char *path, size_t v, const struct report *rep, char *err, size_t errlen);

/* ---- the pipeline every analysis ends with ------------------------------------------------------- */

/* Where the views of a result go: each view asked for into its file (FILES[v]; NULL: not asked
 * for), then the text, or the JSON when JSON_STREAM, on STREAM. */
struct report_to {
    const char *const *files;       /* [N_VIEWS] */
    FILE *stream;
    bool json_stream;
    bool stream_is_result;          /* a block's stdout: failing to write it fails the command (the
                                     * text of a run on stderr is a message, not its result) */
};

/* The facts of one analysis from SOURCE into RES, and its top-down slots into TD: a block's
 * measurement, a run's counts. */
typedef void (*fill_fn)(const void *source, struct result *res, struct rt_topdown *td);

/* Robustness (robust.h) for analyse_result: the ends of SET measured by MEASURE in SCRATCH. */
struct robust_job {
    const struct robust_set *set;
    robust_measure_fn measure;
    void *ctx;
    struct result *scratch;
    unsigned threads;               /* measuring ends at once (robust_check) */
};

/* The analysis of RES (reset for its machine, its command and scope named) on PLAN's lanes:
 * started, filled by FILL from SOURCE, finished, and its views written as TO says, the files
 * first (a reader of the stream that stops early, | head, must not cost them). False with ERR
 * when one could not be written, or RJ's robustness measured; the stream is written even then. */
static bool measure_result(struct result *res, const struct analysis_plan *plan, fill_fn fill, const void *source,
                           const struct robust_job *rj, char *err, size_t errlen)
{
    struct rt_topdown td;
    analysis_start(res, plan);
    fill(source, res, &td);
    analysis_finish(res, &td);
    return !rj || robust_check(res, plan, rj->set, rj->measure, rj->ctx, rj->scratch, rj->threads, err, errlen);
}

/* REP's views as TO says, the files only while OK (the analysis held together). */
static bool show_report(const struct report *rep, const struct report_to *to, bool ok, char *err, size_t errlen)
{
    for (size_t v = 0; v < N_VIEWS && ok; v++)
        if (to->files[v])
            ok = write_report(to->files[v], v, rep, err, errlen);
    bool shown = to->json_stream ? view_report(VIEW_JSON, to->stream, rep)
                 : rep->several  ? view_text_comparison(to->stream, rep->several)
                                 : view_text(to->stream, rep->one);
    if (ok && !shown && to->stream_is_result) {
        snprintf(err, errlen, "cannot write the report: %s", strerror(errno));
        ok = false;
    }
    return ok;
}

static bool analyse_result(struct result *res, const struct analysis_plan *plan, fill_fn fill, const void *source,
                           const struct robust_job *rj, const struct report_to *to, char *err, size_t errlen)
{
    bool ok = measure_result(res, plan, fill, source, rj, err, errlen);
    return show_report(&(struct report){ res, NULL }, to, ok, err, errlen);
}

/* A block's measurement R of B, for analyse_result. */
struct block_source {
    const struct block *b;
    const struct block_result *r;
    bool causality;
};

static void fill_block(const void *source, struct result *res, struct rt_topdown *td)
{
    const struct block_source *bs = source;
    block_fill(bs->b, bs->r, bs->causality, res);
    *td = bs->r->topdown;
}

/* R's memory and R (NULL: none). */
static void free_result(struct result *r)
{
    if (r)
        result_free(r);
    free(r);
}

/* The block B of session S measured again on another machine, for robust_check. */
struct block_measure {
    const struct session *s;
    const struct block *b;
};

static bool measure_block(void *ctx, const struct mdl_machine *m, const struct analysis_plan *plan,
                          struct result *res, char *err, size_t errlen)
{
    const struct block_measure *bm = ctx;
    struct block_result r = { 0 };
    bool ok = block_run(bm->b, m, plan->lanes, plan->n_lanes, false, bm->s->o->iterations, NULL, &r, err, errlen);
    if (ok) {
        result_reset(res, m);
        const struct block_source bs = { bm->b, &r, false };
        ok = measure_result(res, plan, fill_block, &bs, NULL, err, errlen);
    }
    free(r.crit);
    free(r.seen);
    return ok;
}

/* ---- several cores: --machine a,b,c ------------------------------------------------------------ */

/* The sessions of the cores compared: each its own options (naming it), decoder index, plan,
 * result, model and decoded instructions; they share the decoder (one ISA). */
struct peers {
    unsigned n;
    struct block_opts o[RESULT_MAX_CORES];
    struct session s[RESULT_MAX_CORES];
    struct robust_set robust[RESULT_MAX_CORES];
};

static void peers_close(struct peers *p)
{
    if (!p)
        return;
    for (unsigned k = 0; k < p->n; k++) {
        struct session *ps = &p->s[k];
        cls_free(ps->ci);
        free(ps->plan);
        free_result(ps->res);
        free_result(ps->scratch);
        rt_model_free(ps->model);
        block_cache_free(ps->cache);
        robust_set_free(&p->robust[k]);
    }
    free(p);
}

/* The sessions of S's cores (S's options name them). NULL with ERR when a core's lanes cannot be
 * planned. */
static struct peers *peers_open(const struct session *s, char *err, size_t errlen)
{
    const struct block_opts *o = s->o;
    struct peers *p = alloc_zeroed(1, sizeof *p);
    for (; p->n < o->n_cores; p->n++) {
        unsigned k = p->n;
        struct session *ps = &p->s[k];
        p->o[k] = *o;
        p->o[k].m = o->cores[k];
        *ps = (struct session){ .o = &p->o[k], .dec = s->dec, .ci = cls_build(o->cores[k]),
                                .plan = alloc_zeroed(1, sizeof *ps->plan), .res = alloc_zeroed(1, sizeof *ps->res),
                                .cache = block_cache_new() };
        if (s->robust) {
            robust_set_init(&p->robust[k], o->cores[k]);
            ps->robust = &p->robust[k];
            ps->scratch = alloc_zeroed(1, sizeof *ps->scratch);
        }
        if (!analysis_plan_init(ps->plan, o->cores[k], o->weights, o->n_weights, o->sensitivity, err, errlen)) {
            p->n++;
            peers_close(p);
            return NULL;
        }
    }
    return p;
}

/* Core session PS's analysis of the block B it measured (R), named LABEL, into its result. */
static bool core_result(struct session *ps, const struct block *b, const struct block_result *r, const char *label,
                        char *err, size_t errlen)
{
    result_reset(ps->res, ps->o->m);
    ps->res->command = "block";
    ps->res->scope_name = label;
    const struct block_source bs = { b, r, ps->o->causality };
    struct block_measure bm = { ps, b };
    const struct robust_job rj = { ps->robust, measure_block, &bm, ps->scratch, 1 };
    return measure_result(ps->res, ps->plan, fill_block, &bs, ps->robust ? &rj : NULL, err, errlen);
}

/* The block's bytes analysed on every core of S, and reported side by side. */
static int compare_bytes(struct session *s, const uint8_t *bytes, size_t len, uint64_t pc, const char *label,
                         FILE *out)
{
    struct peers *p = s->peers;
    struct block b[RESULT_MAX_CORES] = { 0 };
    struct block_result br[RESULT_MAX_CORES] = { 0 };
    struct result_comparison c = { .n = p->n };
    char err[512];
    bool ok = true;
    for (unsigned k = 0; k < p->n && ok; k++) {
        struct session *ps = &p->s[k];
        ok = block_decode(&b[k], ps->dec, ps->ci, ps->o->m, ps->cache, bytes, len, pc, err, sizeof err) &&
             run_block(ps, &b[k], &br[k], err, sizeof err) && core_result(ps, &b[k], &br[k], label, err, sizeof err);
        c.core[k] = ps->res;
    }
    if (ok) {
        analysis_compare(&c);
        const struct report_to to = { s->o->view, out, s->o->json, true };
        if (!(ok = show_report(&(struct report){ NULL, &c }, &to, true, err, sizeof err)))
            say_error("%s", err);
    } else {
        block_error(out, s->o->json, label, err);
    }
    for (unsigned k = 0; k < p->n; k++) {
        free(br[k].crit);
        free(br[k].seen);
        block_free(&b[k]);
    }
    return ok ? 0 : 1;
}

static int analyse_bytes(struct session *s, const uint8_t *bytes, size_t len, uint64_t pc, const char *label,
                         FILE *out)
{
    if (s->peers)
        return compare_bytes(s, bytes, len, pc, label, out);
    char err[512];
    struct block b = { 0 };
    struct block_result r = { 0 };
    if (!block_decode(&b, s->dec, s->ci, s->o->m, s->cache, bytes, len, pc, err, sizeof err) ||
        !run_block(s, &b, &r, err, sizeof err)) {
        block_error(out, s->o->json, label, err);
        block_free(&b);
        return 1;
    }
    result_reset(s->res, s->o->m);
    s->res->set = s->o->set.args;
    s->res->n_set = s->o->set.n;
    s->res->command = "block";
    s->res->scope_name = label;
    const struct block_source bs = { &b, &r, s->o->causality };
    const struct report_to to = { s->o->view, out, s->o->json, true };
    if (s->robust && !s->scratch)
        s->scratch = alloc_zeroed(1, sizeof *s->scratch);
    struct block_measure bm = { s, &b };
    const struct robust_job rj = { s->robust, measure_block, &bm, s->scratch, 1 };
    bool ok = analyse_result(s->res, s->plan, fill_block, &bs, s->robust ? &rj : NULL, &to, err, sizeof err);
    if (!ok)
        say_error("%s", err);
    free(r.crit);
    free(r.seen);
    block_free(&b);
    return ok ? 0 : 1;
}

static int analyse_hex(struct session *s, const char *hex, size_t chars, const char *label, FILE *out)
{
    uint8_t *bytes;
    size_t len;
    char err[256];
    if (!block_parse_hex(hex, chars, &bytes, &len, err, sizeof err)) {
        block_error(out, s->o->json, label, err);
        return 1;
    }
    int rc = analyse_bytes(s, bytes, len, BLOCK_PC, label, out);
    free(bytes);
    return rc;
}

/* The blocks of a hex file, each with its length (a NUL in it is a bad digit) and its label
 * (FILE:LINE). */
struct hex_lines {
    char **hex, **label;
    size_t *len;
    size_t n;
};

/* The longest line of a hex file: a block's bytes as two digits and room for separators. */
enum { HEX_MAX_LINE = 4 * BLOCK_MAX_BYTES };

static int analyse_line(void *worker, size_t item, FILE *out)
{
    const struct hex_lines *h = ((struct session *)worker)->lines;
    return analyse_hex(worker, h->hex[item], h->len[item], h->label[item], out);
}

/* The next line of FP into LINE (at most HEX_MAX_LINE bytes, NULs kept, the end of line dropped),
 * its length in *LEN: 1, 0 at the end of the file, -1 for a longer line (never read whole: a
 * device such as /dev/zero has no end). */
static int read_hex_line(FILE *fp, char *line, size_t *len)
{
    int c;
    *len = 0;
    while ((c = getc_unlocked(fp)) != EOF && c != '\n') {
        if (*len == HEX_MAX_LINE)
            return -1;
        line[(*len)++] = (char)c;
    }
    if (c == EOF && *len == 0)
        return 0;
    if (*len && line[*len - 1] == '\r')
        (*len)--;
    return 1;
}

/* Adds the line LINE (LEN bytes) of PATH to H. */
static void add_hex_line(struct hex_lines *h, size_t *room, const char *path, unsigned lineno, const char *line,
                         size_t len)
{
    if (h->n == *room) {
        *room = *room ? 2 * *room : 1024;
        h->hex = alloc_resize(h->hex, *room, sizeof *h->hex);
        h->label = alloc_resize(h->label, *room, sizeof *h->label);
        h->len = alloc_resize(h->len, *room, sizeof *h->len);
    }
    char label[64];
    snprintf(label, sizeof label, "%s:%u", path, lineno);
    h->label[h->n] = alloc_strdup(label);
    h->hex[h->n] = alloc_resize(NULL, len + 1, 1);     /* a NUL in LINE is kept, as a bad digit */
    memcpy(h->hex[h->n], line, len);
    h->hex[h->n][len] = '\0';
    h->len[h->n++] = len;
}

static void hex_lines_free(struct hex_lines *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->hex[i]);
        free(h->label[i]);
    }
    free(h->hex);
    free(h->label);
    free(h->len);
}

static bool read_hex_lines(const char *path, struct hex_lines *h)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!fp) {
        say_error("cannot read '%s': %s", path, strerror(errno));
        return false;
    }
    char *line = alloc_resize(NULL, HEX_MAX_LINE, 1);
    size_t len, room = 0;
    unsigned lineno = 0;
    int got;
    while ((got = read_hex_line(fp, line, &len)) > 0) {
        lineno++;
        if (len && line[0] != '#')
            add_hex_line(h, &room, path, lineno, line, len);
    }
    free(line);
    bool ok = !ferror(fp) && got == 0 && h->n;
    if (ferror(fp))
        say_error("cannot read '%s': %s", path, strerror(errno));
    else if (got < 0)
        say_error("%s:%u: a line longer than %d bytes (a block is at most %d bytes, two hex digits each)", path,
                  lineno + 1, HEX_MAX_LINE, BLOCK_MAX_BYTES);
    else if (!h->n)
        say_error("'%s' holds no block (one block in hex per line)", path);
    if (fp != stdin)
        fclose(fp);
    if (!ok)
        hex_lines_free(h);
    return ok;
}

/* One thread per processor mdlsim may use, no more than there are blocks. */
static unsigned default_jobs(size_t blocks)
{
    unsigned cpus = cpus_available(), jobs = cpus < 256 ? cpus : 256;
    return blocks && blocks < jobs ? (unsigned)blocks : jobs;
}

/* Every thread has a session of its own (its decoder, its lanes); the form index and the
 * machine are shared, read only. */

static int analyse_hex_file(struct session *s, const char *path)
{
    struct hex_lines h = { 0 };
    if (!read_hex_lines(path, &h))
        return 1;
    unsigned jobs = s->o->jobs ? s->o->jobs : default_jobs(h.n);
    struct session *ss = alloc_zeroed(jobs, sizeof *ss);
    void **workers = alloc_zeroed(jobs, sizeof *workers);
    int rc = 0;
    unsigned opened = 0;
    for (; opened < jobs && rc == 0; opened++) {
        char err[256];
        ss[opened] = *s;
        ss[opened].lines = &h;
        if (opened > 0) {
            ss[opened].plan = alloc_zeroed(1, sizeof *ss[opened].plan);
            *ss[opened].plan = *s->plan;
            ss[opened].res = alloc_zeroed(1, sizeof *ss[opened].res);
        }
        workers[opened] = &ss[opened];
        if (opened > 0 && !(ss[opened].dec = dec_open((enum mdl_isa)s->o->m->isa, err, sizeof err))) {
            say_error("%s", err);
            rc = 1;
        }
        if (opened > 0)
            ss[opened].cache = block_cache_new();
        /* the cores compared: a session of each per thread, on the thread's decoder */
        if (opened > 0)
            ss[opened].peers = NULL;
        if (opened > 0 && rc == 0 && s->peers && !(ss[opened].peers = peers_open(&ss[opened], err, sizeof err))) {
            say_error("%s", err);
            rc = 1;
        }
    }
    /* One result per block: large writes, unless someone watches them come. */
    static char buf[1 << 16];
    if (!isatty(fileno(stdout)))
        setvbuf(stdout, buf, _IOFBF, sizeof buf);
    if (rc == 0 && (rc = batch_run(h.n, analyse_line, workers, jobs, stdout)) < 0) {
        say_error("cannot start %u threads", jobs);
        rc = 1;
    }
    for (unsigned i = 1; i < opened; i++) {
        peers_close(ss[i].peers);
        dec_close(ss[i].dec);
        block_cache_free(ss[i].cache);
        free(ss[i].plan);
        if (ss[i].res)
            result_free(ss[i].res);
        free(ss[i].res);
    }
    for (unsigned i = 0; i < opened; i++) {
        rt_model_free(ss[i].model);
        if (ss[i].scratch != s->scratch)
            free_result(ss[i].scratch);
    }
    hex_lines_free(&h);
    free(ss);
    free(workers);
    return rc;
}

/* The first view that O asks block mode to write into a file (N_VIEWS: none): a file holds one
 * block's. */
static size_t block_file_view(const struct block_opts *o)
{
    size_t v = 0;
    while (v < N_VIEWS && !o->view[v])
        v++;
    return v;
}

/* A part of a function or an assembly file analysed as a block of its own. */
struct part {
    char label[1024];
    size_t start, end;
};

/* "NAME+0x10" for the byte at OFF: the symbol of CODE holding it, or .text. */
static void where(const struct asm_code *code, const char *name, size_t off, char *buf, size_t len)
{
    const char *sym = name ? name : ".text";
    size_t base = 0;
    for (size_t i = 0; code && i < code->n_symbols; i++)
        if (code->symbols[i].start <= off && off < code->symbols[i].end)
            sym = code->symbols[i].name, base = code->symbols[i].start;
    snprintf(buf, len, "%.100s+%#zx", sym, off - base);
}

/* Room for N parts (at least one, the whole); never NULL. */
static struct part *new_parts(size_t n)
{
    return alloc_zeroed(n, sizeof(struct part));
}

static size_t whole_part(struct part *p, const char *label, size_t len)
{
    *p = (struct part){ "", 0, len };
    snprintf(p->label, sizeof p->label, "%s", label);
    return 1;
}

/* The parts of the code LABEL names (a function NAME, or an assembly file's CODE): its marked
 * regions (only --region's when given), else its innermost loops, every one of them, else the
 * whole; --whole: the whole. Their count, and their array in *PARTS (the caller frees it);
 * 0 with ERR when --region names no region. */
static size_t code_parts(struct session *s, const char *label, const char *name, const struct asm_code *code,
                         const uint8_t *bytes, size_t len, uint64_t pc, struct part **parts, char *err, size_t errlen)
{
    size_t n = 0;
    *parts = new_parts(code ? code->n_regions : 0);
    for (size_t i = 0; code && !s->o->whole && i < code->n_regions; i++)
        if (!s->o->region || strcmp(s->o->region, code->regions[i].name) == 0) {
            (*parts)[n] = (struct part){ "", code->regions[i].start, code->regions[i].end };
            snprintf((*parts)[n++].label, sizeof (*parts)->label, "%s region %s", label, code->regions[i].name);
        }
    if (s->o->region && !n) {
        snprintf(err, errlen, "no region '%s' in '%s' (regions are marked '# LLVM-MCA-BEGIN %s' ... "
                 "'# LLVM-MCA-END')", s->o->region, label, s->o->region);
        return 0;
    }
    if (n)
        return n;
    if (s->o->whole)
        return whole_part(*parts, label, len);
    size_t found;
    struct loop *loops = loops_find(s->dec, bytes, len, pc, &found);
    free(*parts);
    *parts = new_parts(found);
    for (size_t i = 0; i < found; i++, n++) {
        char from[160], to[160];
        where(code, name, loops[i].start, from, sizeof from);
        where(code, name, loops[i].end, to, sizeof to);
        (*parts)[n] = (struct part){ "", loops[i].start, loops[i].end };
        snprintf((*parts)[n].label, sizeof (*parts)->label, "%s loop %zu of %zu, %s to %s", label, i + 1, found, from,
                 to);
    }
    free(loops);
    return n ? n : whole_part(*parts, label, len);
}

/* Each part as a block; --loop N: the Nth only. */
static int analyse_parts(struct session *s, const struct part *parts, size_t n, const uint8_t *bytes, uint64_t pc)
{
    if (s->o->loop > n) {
        say_error("--loop %u: '%s' has %zu part%s (its innermost loops, or its regions)",
                s->o->loop, parts[0].label, n, n == 1 ? "" : "s");
        return 1;
    }
    size_t v = block_file_view(s->o);
    if (v < N_VIEWS && n > 1 && !s->o->loop) {
        say_error("--%s writes one block's %s, and the code has %zu loops or regions: pick "
                  "one with --loop N, or --whole", views[v].name, views[v].what, n);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (!s->o->loop || s->o->loop == i + 1) {
            if (!s->o->json && rc == 0 && i && !s->o->loop)
                fputc('\n', stdout);
            rc |= analyse_bytes(s, bytes + parts[i].start, parts[i].end - parts[i].start, pc + parts[i].start,
                                parts[i].label, stdout);
        }
    return rc;
}

static int analyse_file(struct session *s, const char *path)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    uint64_t addr = BLOCK_PC;
    char err[1024], label[512];
    enum mdl_isa isa = (enum mdl_isa)s->o->m->isa;
    struct asm_code code = { 0 };
    bool ok;
    if (s->o->function)
        ok = elfsym_function(path, s->o->function, isa, &bytes, &len, &addr, err, sizeof err);
    else if (elfsym_is_elf(path))
        ok = snprintf(err, sizeof err, "'%s' is a compiled program: name the function with --function NAME", path) < 0;
    else if ((ok = asm_assemble(path, isa, &code, err, sizeof err)))
        bytes = code.bytes, len = code.len;
    struct part *parts = NULL;
    size_t n = 0;
    snprintf(label, sizeof label, s->o->function ? "%s!%s" : "%s", path, s->o->function);
    if (ok && !(n = code_parts(s, label, s->o->function, s->o->function ? NULL : &code, bytes, len, addr, &parts, err,
                               sizeof err)))
        ok = false;
    if (!ok)
        say_error("%s", err);
    int rc = ok ? analyse_parts(s, parts, n, bytes, addr) : 1;
    free(parts);
    if (s->o->function)
        free(bytes);
    asm_free(&code);
    return rc;
}

/* ---- command line ----------------------------------------------------------------------------- */

static bool parse_weight(const char *arg, double *w)
{
    char *end;
    errno = 0;
    double p = strtod(arg, &end);
    if (*end == '%')
        end++;
    if (errno || *end || !(p > 0) || p > 1000)
        return false;
    *w = 1 + p / 100;
    return true;
}

static bool parse_uint(const char *arg, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(arg, &end, 10);
    if (errno || *end || !*arg || v < lo || v > hi)
        return false;
    *out = (unsigned)v;
    return true;
}

/* A comma-separated list of percentages, added to the weights; an empty item is an error. */
static bool parse_weights(const char *list, struct block_opts *o)
{
    char buf[256], *rest = buf, *tok;
    if (strlen(list) >= sizeof buf)
        return false;
    snprintf(buf, sizeof buf, "%s", list);
    while ((tok = strsep(&rest, ",")))
        if (o->n_weights == RESULT_MAX_WEIGHTS || !parse_weight(tok, &o->weights[o->n_weights++]))
            return false;
    return true;
}

/* Options of both `block` and `run`/`replay`; O_VIEW + v is views[v]'s. */
enum { O_MACHINE = 256, O_MDL, O_SET, O_WEIGHT, O_WEIGHTS, O_NOSENS, O_NOCAUS, O_ROBUST, O_NOROBUST, O_FIRST_OWN, O_VIEW = 512 };

/* The options OWN (up to their NULL entry), then one for each view (for BLOCK, each view it
 * offers; its --json takes no FILE), into OUT: room for OWN's and N_VIEWS more. */
static void with_view_options(const struct option *own, bool block, struct option *out)
{
    size_t n = 0;
    for (; own[n].name; n++)
        out[n] = own[n];
    for (size_t v = 0; v < N_VIEWS; v++)
        if (!block || views[v].block_help)
            out[n++] = (struct option){ views[v].name, block && v == VIEW_JSON ? no_argument : required_argument,
                                        NULL, O_VIEW + (int)v };
    out[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* Each name of LIST (--machine a,b,c) is a machine compiled in, named once: -1, else 2 once said why. */
static int machine_list(const char *list)
{
    char buf[1024], *rest = buf, *name, msg[1536];
    const struct mdl_machine *seen[RESULT_MAX_CORES];
    unsigned n = 0;
    snprintf(buf, sizeof buf, "%s", list);
    while ((name = strsep(&rest, ","))) {
        const struct mdl_machine *m = find_machine(name);
        if (!*name)
            return usage_error("--machine takes names separated by commas, got an empty one in '%s'", list);
        if (!m)
            return unknown_machine(name);
        for (unsigned k = 0; k < n; k++)
            if (seen[k] == m) {
                snprintf(msg, sizeof msg, "--machine names '%s' twice in '%s'", m->name, list);
                return usage_error("%s", msg);
            }
        if (n == RESULT_MAX_CORES) {
            snprintf(msg, sizeof msg, "--machine compares at most %d cores, got more in '%s'", RESULT_MAX_CORES, list);
            return usage_error("%s", msg);
        }
        seen[n++] = m;     /* their ISAs are compared with the --mdl cores' (find_cores) */
    }
    return -1;
}

/* --machine or --mdl (C) with value optarg: -1 when taken, 2 on a usage error. A second machine
 * is one: taking the last silently would analyse on a machine the user may not have meant. */
static int machine_option(int c, struct block_opts *o)
{
    bool list = c == O_MACHINE && strchr(optarg, ',');
    bool file = c == O_MDL || (!list && mdlfile_is_path(optarg));
    const char *opt = c == O_MACHINE ? "--machine" : "--mdl";
    if (!file && o->machine) {
        char msg[2 * PATH_MAX];
        snprintf(msg, sizeof msg, "two machines: --machine '%s' and --machine '%s' (give one, or compare them: "
                 "--machine %s,%s)", o->machine, optarg, o->machine, optarg);
        return usage_error("%s", msg);
    }
    int listed = list ? machine_list(optarg) : 0;
    if (listed > 0)
        return listed;
    if (!file && !list && !find_machine(optarg))
        return unknown_machine(optarg);
    if (!file)
        o->machine = optarg;
    else if (!o->mdl)
        o->mdl = optarg;
    else if (o->n_more_mdl + 1 < RESULT_MAX_CORES)
        o->more_mdl[o->n_more_mdl++] = optarg;
    else
        return usage_error("at most 8 machines are compared, got another: '%s'", optarg);
    o->machine_opt = opt;
    return -1;
}

/* Handles an option common to every analysis: -1 when handled, 2 on a usage error, 0 when C
 * is not one of them. */
static int common_option(int c, struct block_opts *o)
{
    switch (c) {
    case O_MACHINE:
    case O_MDL:
        return machine_option(c, o);
    case O_SET: {
        char err[512];
        return mdlset_add(&o->set, optarg, err, sizeof err) ? -1 : usage_error("%s", err);
    }
    case 'I':
        if (o->n_dirs == MAX_INCLUDE_DIRS)
            return usage_error("at most 16 -I, got another: '%s'", optarg);
        o->dirs[o->n_dirs++] = optarg;
        return -1;
    case O_WEIGHT:
        if (o->n_weights == RESULT_MAX_WEIGHTS || !parse_weight(optarg, &o->weights[o->n_weights++]))
            return usage_error("--weight takes a percentage above 0 and at most 1000 (at most 8 of them), got '%s'",
                               optarg);
        return -1;
    case O_WEIGHTS:
        if (!parse_weights(optarg, o))
            return usage_error("--weights takes percentages above 0 and at most 1000, separated by commas (at most 8 "
                               "in all), got '%s'", optarg);
        return -1;
    case O_NOSENS: o->sensitivity = false; return -1;
    case O_NOCAUS: o->causality = false; return -1;
    case O_ROBUST: o->robustness = 1; return -1;
    case O_NOROBUST: o->robustness = -1; return -1;
    default: return 0;
    }
}

/* mdlc's diagnostics on the description of --set's values, as the values' (mdlset_diagnostics). */
struct set_diagnostics {
    const struct mdlset *set;
    const char *label;
    bool all_set;                   /* every error was at a --set's value */
};

static void show_set_diagnostics(const char *text, const char *path, void *arg)
{
    struct set_diagnostics *d = arg;
    d->all_set = mdlset_diagnostics(d->set, d->label, path, text, stderr);
}

/* O->m with O->set's values: a description that extends it (by name when it is compiled in, by
 * its path for --mdl: its directory joins the -I ones, a description reading its own tree only),
 * checked by mdlc, built and cached as --mdl's. -1 when found, 2 when a key or value is wrong (a
 * usage error: mdlc's diagnostic names the --set, so no usage follows it), 1 when it could not be
 * built. */
static int set_machine(struct block_opts *o, const char *tools)
{
    char err[2 * PATH_MAX], label[4096], parent[PATH_MAX], dir[PATH_MAX];
    const char *dirs[MAX_INCLUDE_DIRS + 1];
    size_t n_dirs = 0;
    if (!mdlset_check(&o->set, o->m, err, sizeof err))
        return usage_error("%s", err);
    if (o->mdl && !realpath(o->mdl, parent)) {
        say_error("cannot read the machine description '%s': %s", o->mdl, strerror(errno));
        return 1;
    }
    for (; o->mdl && n_dirs < o->n_dirs; n_dirs++)
        dirs[n_dirs] = o->dirs[n_dirs];
    if (o->mdl) {
        snprintf(dir, sizeof dir, "%s", parent);
        dirs[n_dirs++] = dirname(dir);
    }
    mdlset_label(&o->set, o->m->name, label, sizeof label);
    char *text = mdlset_description(&o->set, o->m->name, o->mdl ? parent : o->m->name, o->mdl != NULL);
    struct set_diagnostics d = { &o->set, label, true };
    struct mdlfile_opts mo = { .text = text, .label = label, .dirs = dirs, .n_dirs = n_dirs, .tools = tools,
                               .diagnostics = show_set_diagnostics, .arg = &d };
    const struct mdl_machine *m = mdlfile_load(&mo, err, sizeof err);
    free(text);
    if (m) {
        o->m = m;
        return -1;
    }
    if (*err) {
        say_error("%s", err);
        return 1;
    }
    if (!d.all_set)
        say_error("%s cannot be built (mdlc's diagnostics above)", label);
    return 2;
}

/* The description FILE compiled and cached (--mdl): NULL once said why. */
static const struct mdl_machine *load_mdl(const struct block_opts *o, const char *file, const char *tools)
{
    char err[2 * PATH_MAX];
    struct mdlfile_opts mo = { .path = file, .dirs = o->dirs, .n_dirs = o->n_dirs, .tools = tools };
    const struct mdl_machine *m = mdlfile_load(&mo, err, sizeof err);
    if (m)
        return m;
    if (*err)
        say_error("%s", err);
    else
        say_error("the machine description '%s' has errors (mdlc's diagnostics above)", file);
    return NULL;
}

/* The cores compared: --machine's list, then each --mdl file. -1, or 1 / 2 as find_options_machine. */
static int find_cores(struct block_opts *o, const char *tools)
{
    if (o->set.n)
        return usage_error("%s", "--set changes one machine: not with several (--machine a,b)");
    char buf[1024], *rest = buf, *name, msg[1024];
    snprintf(buf, sizeof buf, "%s", o->machine ? o->machine : "");
    while (o->machine && (name = strsep(&rest, ",")))
        o->cores[o->n_cores++] = find_machine(name);
    const char *files[RESULT_MAX_CORES + 1] = { o->mdl };
    memcpy(files + 1, o->more_mdl, o->n_more_mdl * sizeof *files);
    for (unsigned i = 0; i <= o->n_more_mdl && o->mdl; i++) {
        if (o->n_cores == RESULT_MAX_CORES)
            return usage_error("at most 8 machines are compared, got another: '%s'", files[i]);
        if (!(o->cores[o->n_cores++] = load_mdl(o, files[i], tools)))
            return 1;
    }
    for (unsigned k = 1; k < o->n_cores; k++) {
        const struct mdl_machine *m = o->cores[k], *first = o->cores[0];
        msg[0] = '\0';
        for (unsigned j = 0; j < k; j++)
            if (strcmp(o->cores[j]->name, m->name) == 0)
                snprintf(msg, sizeof msg, "two of the cores compared are named '%s': give each description a "
                         "machine name of its own", m->name);
        if (m->isa != first->isa)
            snprintf(msg, sizeof msg, "the cores compared run one ISA: %s is %s, %s is %s", first->name,
                     isainfo_get(first->isa)->name, m->name, isainfo_get(m->isa)->name);
        if (*msg)
            return usage_error("%s", msg);
    }
    o->m = o->cores[0];
    return -1;
}

/* The machine of --machine NAME or --mdl FILE, compiled and cached for a FILE, with the values of
 * --set: -1 when found, 1 when the description could not be built, 2 on a usage error. */
static int find_options_machine(struct block_opts *o)
{
    if (!o->machine && !o->mdl)
        return usage_error("%s", "--machine (or --mdl) is required");
    char tools[PATH_MAX], err[2 * PATH_MAX];
    if ((o->mdl || o->set.n) && !self_dir(tools, sizeof tools)) {
        say_error("cannot find mdlsim's own directory (/proc/self/exe)");
        return 1;
    }
    if ((o->machine && strchr(o->machine, ',')) || (o->machine && o->mdl) || o->n_more_mdl)
        return find_cores(o, tools);
    if (o->machine) {
        o->m = find_machine(o->machine);
        return o->set.n ? set_machine(o, tools) : -1;
    }
    struct mdlfile_opts mo = { .path = o->mdl, .dirs = o->dirs, .n_dirs = o->n_dirs, .tools = tools };
    o->m = mdlfile_load(&mo, err, sizeof err);
    if (o->m)
        return o->set.n ? set_machine(o, tools) : -1;
    if (*err)
        say_error("%s", err);
    else
        say_error("the machine description '%s' has errors (mdlc's diagnostics above)", o->mdl);
    return 1;
}

/* `--json -- prog`: getopt takes the separator as the option's value; a file named '--' is
 * never what was meant. NAME: the option's long name. */
static int separator_as_value(const char *name)
{
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", name);
    return usage_error("%s takes a value, and '--' is not one (the options go before '--')", opt);
}

/* The usage error of option --NAME whose value (optarg) is not a whole number in [LO, HI]. */
static int uint_error(const char *name, unsigned lo, unsigned hi)
{
    char msg[256];
    snprintf(msg, sizeof msg, "--%s needs a whole number from %u to %u, got '%s'", name, lo, hi, optarg);
    return usage_error("%s", msg);
}

static int parse_block_opts(int argc, char **argv, struct block_opts *o)
{
    enum { O_HEX = O_FIRST_OWN, O_HEXFILE, O_ITER, O_FUNCTION, O_JOBS, O_WHOLE, O_LOOP, O_REGION };
    static const struct option own[] = {
        { "machine", required_argument, NULL, O_MACHINE }, { "mdl", required_argument, NULL, O_MDL },
        { "set", required_argument, NULL, O_SET },
        { "hex", required_argument, NULL, O_HEX },
        { "hex-file", required_argument, NULL, O_HEXFILE }, { "iterations", required_argument, NULL, O_ITER },
        { "weight", required_argument, NULL, O_WEIGHT }, { "no-sensitivity", no_argument, NULL, O_NOSENS },
        { "weights", required_argument, NULL, O_WEIGHTS }, { "no-causality", no_argument, NULL, O_NOCAUS },
        { "function", required_argument, NULL, O_FUNCTION }, { "jobs", required_argument, NULL, O_JOBS },
        { "whole", no_argument, NULL, O_WHOLE }, { "loop", required_argument, NULL, O_LOOP },
        { "region", required_argument, NULL, O_REGION },
        { "robustness", no_argument, NULL, O_ROBUST }, { "no-robustness", no_argument, NULL, O_NOROBUST },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    struct option longopts[sizeof own / sizeof *own + N_VIEWS];
    with_view_options(own, true, longopts);
    /* 200: a scheduler of about a hundred entries fills over a hundred copies of a block whose
     * issue outruns its ports, and where the machine chooses ports, the steady state is the full
     * scheduler's (spec.md §12.2) */
    *o = (struct block_opts){ .iterations = 200, .jobs = 0, .sensitivity = true, .causality = true };
    int c, idx = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hI:", longopts, &idx)) != -1) {
        if (optarg && strcmp(optarg, "--") == 0)
            return separator_as_value(longopts[idx].name);
        int rc = common_option(c, o);
        if (rc > 0)
            return rc;
        if (c == O_VIEW + VIEW_JSON)
            o->json = true;
        else if (c >= O_VIEW && c < O_VIEW + N_VIEWS)
            o->view[c - O_VIEW] = optarg;
        switch (rc || c >= O_VIEW ? 0 : c) {
        case 0: break;
        case O_HEX: o->hex = optarg; break;
        case O_HEXFILE: o->hex_file = optarg; break;
        case O_ITER:
            if (!parse_uint(optarg, 2, 100000000, &o->iterations))
                return uint_error("iterations", 2, 100000000);
            break;
        case O_FUNCTION: o->function = optarg; break;
        case O_WHOLE: o->whole = true; break;
        case O_REGION: o->region = optarg; break;
        case O_LOOP:
            /* a loop has at least a byte: a block's bound bounds their count */
            if (!parse_uint(optarg, 1, BLOCK_MAX_BYTES, &o->loop))
                return uint_error("loop", 1, BLOCK_MAX_BYTES);
            break;
        case O_JOBS:
            if (!parse_uint(optarg, 1, 256, &o->jobs))
                return uint_error("jobs", 1, 256);
            break;
        case 'h': return print_help("block");
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        o->file = argv[optind++];
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!!o->file + !!o->hex + !!o->hex_file != 1)
        return usage_error("%s", "give exactly one of FILE.s, --function NAME PROGRAM, --hex or --hex-file");
    if (o->function && !o->file)
        return usage_error("%s", "--function needs the PROGRAM that holds it");
    if ((o->whole || o->loop || o->region) && !o->file)
        return usage_error("%s", "--whole, --loop and --region are for FILE.s and --function NAME PROGRAM");
    if (o->region && o->function)
        return usage_error("%s", "--region names a marked region of FILE.s, not of a program's function");
    if (o->whole && (o->loop || o->region))
        return usage_error("%s", "--whole analyses the code as one block: not with --loop or --region");
    size_t v = block_file_view(o);
    if (v < N_VIEWS && o->hex_file) {
        char msg[128];
        snprintf(msg, sizeof msg, "--%s writes one block's %s: not with --hex-file", views[v].name, views[v].what);
        return usage_error("%s", msg);
    }
    if (o->robustness > 0 && !o->sensitivity)
        return usage_error("%s", "--robustness checks the verdict across the estimates: not with --no-sensitivity");
    if (!o->n_weights)
        o->weights[o->n_weights++] = 1.15;
    return find_options_machine(o);
}

/* A report is written beside PATH and renamed over it: a directory that cannot take a new file
 * fails the command at once, not after a run of minutes. */
/* PATH can take a report (safefile_check), said on stderr when not. */
static bool writable(const char *path)
{
    char err[2 * PATH_MAX + 256];       /* the path, and room to say why it is too long */
    if (!*path)
        return say_error("cannot write '': %s", strerror(ENOENT));
    if (safefile_check(path, err, sizeof err))
        return true;
    say_error("%s", err);
    return false;
}

static int cmd_block(int argc, char **argv)
{
    struct block_opts o;
    int rc = parse_block_opts(argc, argv, &o);
    if (rc >= 0)
        return rc;
    for (size_t v = 0; v < N_VIEWS; v++)
        if (o.view[v] && !writable(o.view[v]))
            return 1;
    char err[256];
    struct analysis_plan *plan = alloc_zeroed(1, sizeof *plan);
    if (!analysis_plan_init(plan, o.m, o.weights, o.n_weights, o.sensitivity, err, sizeof err)) {
        free(plan);
        return usage_error("%s", err);
    }
    struct session s = { .o = &o, .plan = plan, .res = alloc_zeroed(1, sizeof *s.res) };
    if (!(s.dec = dec_open((enum mdl_isa)o.m->isa, err, sizeof err))) {
        say_error("%s", err);
        free(s.res);
        free(plan);
        return 1;
    }
    s.ci = cls_build(o.m);
    s.cache = block_cache_new();
    struct robust_set robust = { 0 };
    if (o.m->n_uncertain && o.sensitivity && o.robustness >= 0 && (o.robustness > 0 || (!o.hex_file && !o.n_cores))) {
        robust_set_init(&robust, o.m);
        s.robust = &robust;
    }
    if (o.n_cores && !(s.peers = peers_open(&s, err, sizeof err)))
        rc = 1, say_error("%s", err);
    else if (o.hex)
        rc = analyse_hex(&s, o.hex, strlen(o.hex), "--hex", stdout);
    else if (o.hex_file)
        rc = analyse_hex_file(&s, o.hex_file);
    else
        rc = analyse_file(&s, o.file);
    peers_close(s.peers);
    rt_model_free(s.model);
    result_free(s.res);
    free(s.res);
    free_result(s.scratch);
    free(plan);
    robust_set_free(&robust);
    block_cache_free(s.cache);
    cls_free(s.ci);
    dec_close(s.dec);
    return rc;
}

/* ---- run and replay -------------------------------------------------------------------------- */

struct run_cli {
    struct block_opts b;            /* machine, weights, sensitivity, causality */
    unsigned sample;
    const char *roi[RUN_MAX_ROI];
    unsigned n_roi;
    char roi_label[512];            /* the names, comma-separated */
    const char *view[N_VIEWS];      /* the file of each view (NULL: not asked for) */
    const char *record, *program, *trace;
    const char *sysroot;            /* run: QEMU's -L, given or found (NULL: none) */
    bool dynamic;                   /* PROGRAM loads libraries: a --roi it lacks may be in one */
    bool quiet;                     /* no progress line */
    int sampling;                   /* 1: --sample, -1: --exact, 0: sampled past the exact part */
    struct sample_plan sample_plan;
    char **argv;                    /* PROGRAM ARGS... as typed */
    char found[PATH_MAX];           /* run: PROGRAM as found in PATH, which PROGRAM then names */
    const char *script;             /* run: a "#!" script found: PROGRAM is then its interpreter */
    char interp[PATH_MAX], interp_arg[256];
};

static int parse_run_opts(int argc, char **argv, struct run_cli *o, bool replay)
{
    enum { O_ROI = O_FIRST_OWN, O_RECORD, O_PROGRAM, O_SAMPLE, O_SYSROOT, O_QUIET, O_EXACT, O_SAMPLED, O_PERIOD };
    static const struct option own[] = {
        { "machine", required_argument, NULL, O_MACHINE }, { "mdl", required_argument, NULL, O_MDL },
        { "set", required_argument, NULL, O_SET },
        { "roi", required_argument, NULL, O_ROI },
        { "weight", required_argument, NULL, O_WEIGHT }, { "no-sensitivity", no_argument, NULL, O_NOSENS },
        { "weights", required_argument, NULL, O_WEIGHTS },
        { "no-causality", no_argument, NULL, O_NOCAUS }, { "record", required_argument, NULL, O_RECORD },
        { "program", required_argument, NULL, O_PROGRAM }, { "help", no_argument, NULL, 'h' },
        { "causality-sample", required_argument, NULL, O_SAMPLE },
        { "sysroot", required_argument, NULL, O_SYSROOT }, { "quiet", no_argument, NULL, O_QUIET },
        { "exact", no_argument, NULL, O_EXACT }, { "sample", no_argument, NULL, O_SAMPLED },
        { "sample-period", required_argument, NULL, O_PERIOD },
        { "robustness", no_argument, NULL, O_ROBUST }, { "no-robustness", no_argument, NULL, O_NOROBUST },
        { NULL, 0, NULL, 0 },
    };
    struct option longopts[sizeof own / sizeof *own + N_VIEWS];
    with_view_options(own, false, longopts);
    *o = (struct run_cli){ .b = { .iterations = 2, .sensitivity = true, .causality = true }, .sample = 8 };
    int c, idx = 0;
    unsigned period = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, replay ? ":hI:" : "+:hI:", longopts, &idx)) != -1) {
        if (optarg && strcmp(optarg, "--") == 0)
            return separator_as_value(longopts[idx].name);
        int rc = common_option(c, &o->b);
        if (rc > 0)
            return rc;
        if (c >= O_VIEW && c < O_VIEW + N_VIEWS)
            o->view[c - O_VIEW] = optarg;
        switch (rc || c >= O_VIEW ? 0 : c) {
        case 0: break;
        case O_ROI:
            if (o->n_roi == RUN_MAX_ROI)
                return usage_error("at most 16 --roi, got another: '%s'", optarg);
            o->roi[o->n_roi++] = optarg;
            break;
        case O_RECORD: o->record = optarg; break;
        case O_PROGRAM: o->program = optarg; break;
        case O_SYSROOT: o->sysroot = optarg; break;
        case O_QUIET: o->quiet = true; break;
        case O_EXACT:
        case O_SAMPLED:
            if (o->sampling && o->sampling != (c == O_EXACT ? -1 : 1))
                return usage_error("%s", "--exact and --sample exclude each other");
            o->sampling = c == O_EXACT ? -1 : 1;
            break;
        case O_PERIOD:
            if (!parse_uint(optarg, 10000, 1000000000, &period))
                return usage_error("--sample-period needs a whole number from 10000 to 1000000000, got '%s'", optarg);
            break;
        case O_SAMPLE:
            if (!parse_uint(optarg, 1, 1000000, &o->sample))
                return usage_error("--causality-sample needs a whole number from 1 to 1000000, got '%s'", optarg);
            break;
        case 'h': return print_help(replay ? "replay" : "run");
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (replay) {
        if (optind != argc - 1)
            return usage_error("%s", "replay takes exactly one TRACE file");
        o->trace = argv[optind];
        if (o->record || o->sysroot)
            return usage_error("%s", o->record ? "--record is for 'run'" : "--sysroot is for 'run'");
    } else {
        if (optind >= argc)
            return usage_error("%s", "no PROGRAM to run (mdlsim run --machine M -- PROGRAM [ARGS...])");
        o->argv = argv + optind;
        o->program = argv[optind];
    }
    if (!o->b.n_weights)
        o->b.weights[o->b.n_weights++] = 1.15;
    if (period && o->sampling < 0)
        return usage_error("%s", "--sample-period samples: not with --exact");
    if (o->b.robustness > 0 && !o->b.sensitivity)
        return usage_error("%s", "--robustness checks the verdict across the estimates: not with --no-sensitivity");
    if (o->b.robustness > 0 && o->b.machine && strchr(o->b.machine, ','))
        return usage_error("%s", "--robustness checks one machine's verdict: not with several (--machine a,b)");
    for (size_t v = 0; v < N_VIEWS; v++)
        if (o->view[v] && !views[v].compare && o->b.machine && strchr(o->b.machine, ',')) {
            char msg[128];
            snprintf(msg, sizeof msg, "--%s writes one machine's %s: not with several (--machine a,b)", views[v].name,
                     views[v].what);
            return usage_error("%s", msg);
        }
    o->sample_plan = sample_plan_default(o->sampling > 0, period);
    return find_options_machine(&o->b);
}

static bool reports_writable(const struct run_cli *o)
{
    for (size_t v = 0; v < N_VIEWS; v++)
        if (o->view[v] && !writable(o->view[v]))
            return false;
    return !o->record || writable(o->record);
}

/* No output replaces an input or another output: --record X --json X replaced the trace with
 * the report, --json PROGRAM the program. Checked before the run, the files compared as
 * safefile_same does; false once said why. */
static bool paths_apart(const struct run_cli *o)
{
    struct { char what[32]; const char *path; } out[N_VIEWS + 1];       /* the views' files, the trace */
    const struct { const char *what, *path; } in[] = {
        { "the program", o->program }, { "the script", o->script }, { "the trace", o->trace },
        { "the description", o->b.mdl },
    };
    enum { N_OUT = sizeof out / sizeof *out, N_IN = sizeof in / sizeof *in };
    for (size_t v = 0; v <= N_VIEWS; v++) {
        snprintf(out[v].what, sizeof out[v].what, "--%s", v < N_VIEWS ? views[v].name : "record");
        out[v].path = v < N_VIEWS ? o->view[v] : o->record;
    }
    for (size_t i = 0; i < N_OUT; i++) {
        for (size_t j = 0; out[i].path && j < i; j++)
            if (out[j].path && safefile_same(out[i].path, out[j].path))
                return say_error("%s '%s' and %s '%s' are the same file", out[j].what, out[j].path, out[i].what,
                                 out[i].path);
        for (size_t j = 0; out[i].path && j < N_IN; j++)
            if (in[j].path && safefile_same(out[i].path, in[j].path))
                return say_error("%s '%s' would replace %s '%s'", out[i].what, out[i].path, in[j].what, in[j].path);
        for (size_t j = 0; out[i].path && j < o->b.n_more_mdl; j++)
            if (safefile_same(out[i].path, o->b.more_mdl[j]))
                return say_error("%s '%s' would replace the description '%s'", out[i].what, out[i].path,
                                 o->b.more_mdl[j]);
    }
    return true;
}

/* The region's address range from the program's symbol table. */
/* The region's lanes pair the resources its function's code keeps busiest (read as one block:
 * the code is known before it runs); code that does not decode as a whole keeps the knob pairs. */
static void roi_pairs(struct analysis_plan *plan, struct run_opts *ro, const uint8_t *bytes, size_t len)
{
    const struct mdl_machine *m = plan->m;
    char err[256];
    struct dec *dec = dec_open((enum mdl_isa)m->isa, err, sizeof err);
    struct cls_index *ci = dec ? cls_build(m) : NULL;
    struct block b = { 0 };
    double *busy = alloc_zeroed(m->n_resources + 1u, sizeof *busy), fe, ret;
    if (ci && block_decode(&b, dec, ci, m, NULL, bytes, len, BLOCK_PC, err, sizeof err)) {
        block_busy(&b, m, busy, &fe, &ret);
        analysis_plan_pairs(plan, busy, fe, ret);
        ro->n_lanes = plan->n_lanes;
    }
    block_free(&b);
    free(busy);
    cls_free(ci);
    dec_close(dec);
}

/* Whether PROGRAM lacks NAME for want of a symbol table: a packaged program keeps only its
 * exported symbols. */
static bool stripped_of(const char *program, const char *name, enum mdl_isa isa)
{
    uint8_t *bytes = NULL;
    size_t len;
    uint64_t addr;
    char why[512];
    bool stripped = program && elfsym_is_elf(program) &&
                    !elfsym_function(program, name, isa, &bytes, &len, &addr, why, sizeof why) &&
                    strstr(why, "stripped");
    free(bytes);
    return stripped;
}

/* The error of a --roi NAME that no function of PROGRAM (AFTER_RUN: nor of the libraries it
 * loaded) has: why it could not be found (a stripped program, and what would help), else the
 * closest name known, CLOSE (NULL: none is close). */
static void no_such_roi(char *err, size_t errlen, const char *name, const char *program, bool after_run,
                        const char *close, enum mdl_isa isa)
{
    bool stripped = stripped_of(program, name, isa);
    close = stripped ? NULL : close;
    snprintf(err, errlen, "--roi '%s': no such function in '%s'%s%s%s%s%s", name, program,
             after_run ? " or the libraries it loaded" : "",
             stripped ? ": the program is stripped (install its debug symbols, e.g. the -dbgsym package, or name a "
                        "function it exports)" : "",
             close ? "; did you mean '" : "", close ? close : "", close ? "'?" : "");
}

/* Every region's function was in the program or a library it mapped. Checked when the stream
 * has ended: a library may be mapped at any moment (dlopen), so no earlier one is final. */
static bool regions_found(struct run *r, const char *program, char *err, size_t errlen)
{
    const char *missing = run_missing_roi(r);
    if (!missing)
        return true;
    /* a shim (a script, a launcher) that execs the real program: what the exec started ran natively */
    const char *exec = run_replaced_by(r);
    if (exec && *exec) {
        snprintf(err, errlen, "no function '%s' ran before '%s' replaced itself with '%s' (exec), which ran natively, "
                 "outside the analysis: run '%s' under mdlsim itself", missing, program, exec, exec);
        return false;
    } else if (exec) {
        snprintf(err, errlen, "no function '%s' ran before '%s' replaced itself with another program (exec), which "
                 "ran natively, outside the analysis", missing, program);
        return false;
    }
    char close[256];
    bool near = run_closest_function(r, missing, close, sizeof close);
    no_such_roi(err, errlen, missing, program, true, near ? close : NULL, (enum mdl_isa)run_machine(r)->isa);
    return false;
}

/* Before the run, each --roi is looked up in the program's own symbols, read as the run reads
 * them (a separate debug file included). A static program maps no other object: a name it lacks
 * is refused at once, with the closest it has. A program linked dynamically may call functions
 * of the libraries it names or of those it loads with dlopen long after main has started
 * (python3's 'import zlib' maps zlib then): a name it lacks is sought in each object as the
 * guest maps it, and only the end of the run, the one moment no object can follow, shows it is
 * nowhere (regions_found, with the closest name of every object mapped). False once said. */
static bool roi_defined(const struct run_cli *o)
{
    if (!o->program || o->dynamic || !o->n_roi)
        return true;
    char err[PATH_MAX + 512], close[256];
    struct symbols *s = symbols_new();
    int m = s ? symbols_read_object(s, o->program, err, sizeof err) : -1;
    bool ok = true;
    for (unsigned i = 0; m >= 0 && ok && i < o->n_roi; i++) {
        uint64_t lo, hi;
        if (symbols_find(s, m, o->roi[i], &lo, &hi))
            continue;
        no_such_roi(err, sizeof err, o->roi[i], o->program, false,
                    symbols_closest(s, o->roi[i], close, sizeof close) ? close : NULL, (enum mdl_isa)o->b.m->isa);
        ok = say_error("%s", err);
    }
    symbols_free(s);        /* (an object it cannot read is the run's to name) */
    return ok;
}

/* The program is checked, and the regions' names are kept for the run: a region's function is
 * found where the guest maps it (a position-independent program, a shared library). The first
 * one the program itself holds gives the pair lanes. */
static bool resolve_roi(struct run_cli *o, struct analysis_plan *plan, struct run_opts *ro, char *err,
                        size_t errlen)
{
    struct elfsym_program kind = { .dynamic = true };
    if (o->program && !elfsym_check(o->program, (enum mdl_isa)o->b.m->isa, &kind, err, errlen))
        return false;
    o->dynamic = kind.dynamic;
    size_t n = 0;
    for (unsigned i = 0; i < o->n_roi; i++)
        n += (size_t)snprintf(o->roi_label + n, n < sizeof o->roi_label ? sizeof o->roi_label - n : 0, "%s%s",
                              i ? "," : "", o->roi[i]);
    ro->roi = o->roi;
    ro->n_roi = o->n_roi;
    ro->roi_label = o->roi_label;
    for (unsigned i = 0; o->program && i < o->n_roi; i++) {
        uint8_t *bytes;
        size_t len;
        uint64_t addr;
        char why[256];
        if (elfsym_function(o->program, o->roi[i], (enum mdl_isa)o->b.m->isa, &bytes, &len, &addr, why, sizeof why)) {
            roi_pairs(plan, ro, bytes, len);
            free(bytes);
            break;
        }
    }
    return true;
}

static bool plugin_path(char *out, size_t len)
{
    char dir[PATH_MAX];
    if (!self_dir(dir, sizeof dir))
        return false;
    snprintf(out, len, "%s/libmdlplugin.so", dir);
    return access(out, R_OK) == 0;
}

/* Starts QEMU with the plugin writing to T and its stderr on STDERR_FD (-1: mdlsim's); returns
 * its pid or -1. */
/* ---- signals: what a SIGINT, SIGTERM, SIGHUP or SIGABRT must clean up -----------------------------
 * The guest's QEMU and the files being written (a trace, a report's temporary file). A signal
 * handler can find them nowhere else than here; the run sets them, the handler only reads them.
 * SIGABRT is how memory running out ends mdlsim (alloc.h), after saying so: the same clean-up,
 * and no core file. */
enum { DOOMED_PATHS = 4 };
static volatile sig_atomic_t doomed_pid;
static const char *volatile doomed_path[DOOMED_PATHS];

static void on_fatal_signal(int sig)
{
    if (doomed_pid > 0)
        kill((pid_t)doomed_pid, SIGKILL);
    launch_end_descendants();       /* a guest's children too (mdlsim adopted them) */
    for (int i = 0; i < DOOMED_PATHS; i++)
        if (doomed_path[i])
            unlink(doomed_path[i]);
    _exit(128 + sig);
}

static void doom_path(int slot, const char *path) { doomed_path[slot] = path; }

/* A signal ignored when mdlsim started stays ignored (nohup, a background job of sh): its
 * sender asked for that, and QEMU inherits it as the program would. */
static void catch_fatal_signals(void)
{
    static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGABRT };
    struct sigaction sa = { .sa_handler = on_fatal_signal }, old;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaddset(&sa.sa_mask, fatal[i]);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        if (sigaction(fatal[i], NULL, &old) != 0 || old.sa_handler != SIG_IGN)
            sigaction(fatal[i], &sa, NULL);
}

static pid_t start_qemu(const struct run_cli *o, const struct transport *t, int stderr_fd, char *err, size_t errlen)
{
    char plugin[PATH_MAX + 32], popt[2 * PATH_MAX + 96];
    if (!plugin_path(plugin, sizeof plugin)) {
        snprintf(err, errlen, "the QEMU plugin libmdlplugin.so is not next to mdlsim (run make)");
        return -1;
    }
    /* a comma in the plugin's path (mdlsim's directory) would end it: QEMU reads ",," as one */
    launch_qemu_value(plugin, popt, sizeof popt - 96);
    strcat(popt, ",");
    transport_plugin_options(t, popt + strlen(popt), sizeof popt - strlen(popt));
    const char *qemu = isainfo_get(o->b.m->isa)->qemu;
    size_t n = 0;
    while (o->argv[n])
        n++;
    char **args = alloc_zeroed(n + 12, sizeof *args);
    size_t k = 0;
    args[k++] = (char *)qemu;
    if (*o->b.m->qemu_cpu) {
        args[k++] = "-cpu";
        args[k++] = (char *)o->b.m->qemu_cpu;
    }
    if (o->sysroot) {
        args[k++] = "-L";
        args[k++] = (char *)o->sysroot;
    }
    if (!o->script && strcmp(o->program, o->argv[0]) != 0) {
        args[k++] = "-0";           /* found in PATH: the guest sees the name typed, as from a shell */
        args[k++] = o->argv[0];
    }
    args[k++] = "-plugin";
    args[k++] = popt;
    args[k++] = (char *)o->program;
    if (o->script && *o->interp_arg)    /* as the kernel starts a script: INTERP [ARG] SCRIPT ARGS */
        args[k++] = (char *)o->interp_arg;
    if (o->script)
        args[k++] = (char *)o->script;
    for (size_t i = 1; i < n; i++)
        args[k++] = o->argv[i];
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        /* QEMU does not outlive mdlsim, whatever ends it (SIGKILL included) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        if (stderr_fd >= 0)
            dup2(stderr_fd, STDERR_FILENO);
        execvp(qemu, args);
        /* among QEMU's words: the reason the program did not start */
        fprintf(stderr, "cannot run %s: %s (install qemu-user)\n", qemu, strerror(errno));
        _exit(127);
    }
    free(args);
    if (pid < 0)
        snprintf(err, errlen, "cannot start %s: %s", qemu, strerror(errno));
    return pid;
}

/* Writes VIEW of RES to PATH whole or not at all: into a new file beside it, renamed over it. */
static bool write_report(const char *path, size_t v, const struct report *rep, char *err, size_t errlen)
{
    struct safefile f;
    if (!safefile_open(&f, path, err, errlen))
        return false;
    doom_path(1, f.tmp);
    bool viewed = view_report(v, f.fp, rep);
    int e = errno;
    bool ok = safefile_close(&f, err, errlen) && (viewed || snprintf(err, errlen, "cannot write '%s': %s", path,
                                                                      strerror(e ? e : EIO)) < 0);
    ok = ok && safefile_publish(&f, err, errlen);
    doom_path(1, NULL);
    safefile_discard(&f);
    return ok;
}

/* A run's counts, for analyse_result. */
static void fill_run(const void *source, struct result *res, struct rt_topdown *td) { run_fill(source, res, td); }

/* The trace at PATH replayed with options RO: the run (NULL with ERR), and how the program ended in
 * *EXIT_CODE and *KILLED_BY (-1: not; either may be NULL), as the report says it. */
static struct run *replay_trace(const char *path, const struct run_opts *ro, int *exit_code, int *killed_by, char *err,
                                size_t errlen)
{
    struct trace_reader t;
    if (!trace_open(&t, path, err, errlen)) {
        if (t.fd >= 0)
            trace_close(&t);
        return NULL;
    }
    struct run_source src = { .fd = -1, .free_fd = -1, .trace = &t };
    struct run *r = run_new(ro, err, errlen);
    if (r && !run_consume(r, &src, err, errlen)) {
        run_free(r);
        r = NULL;
    }
    bool killed = t.end == TRACE_KILLED;
    if (exit_code)
        *exit_code = killed ? -1 : t.end_value;
    if (killed_by)
        *killed_by = killed ? t.end_value : -1;
    trace_close(&t);
    return r;
}

/* A run's stream measured again from its trace TRACE on another machine, for robust_check: the
 * options of the run (RO) but the machine and the lanes, and no causality. */
struct trace_measure {
    const char *path;
    const struct run_opts *ro;
    bool progress;                  /* a line on stderr counting the passes */
    bool one_thread;                /* passes run side by side, each on one thread */
    atomic_uint passes;
};

static bool measure_trace(void *ctx, const struct mdl_machine *m, const struct analysis_plan *plan,
                          struct result *res, char *err, size_t errlen)
{
    struct trace_measure *tm = ctx;
    if (tm->progress)
        fprintf(stderr, "\rmdlsim: robustness: pass %u over the trace", atomic_fetch_add(&tm->passes, 1) + 1);
    struct run_opts ro = *tm->ro;
    ro.m = m, ro.lanes = plan->lanes, ro.n_lanes = plan->n_lanes, ro.causality = false;
    ro.record = NULL, ro.progress = NULL, ro.progress_ctx = NULL, ro.one_thread = tm->one_thread;
    struct run *r = replay_trace(tm->path, &ro, NULL, NULL, err, errlen);
    bool ok = r != NULL;
    if (ok) {
        result_reset(res, m);
        ok = measure_result(res, plan, fill_run, r, NULL, err, errlen);
    }
    run_free(r);
    return ok;
}

/* RES reset for R's run of O's program, which ended with EXIT_CODE or was killed by signal
 * KILLED_BY (-1: not). */
static void run_result_head(struct result *res, const struct run *r, const struct run_cli *o, const char *command,
                            int exit_code, int killed_by)
{
    result_reset(res, o->b.m);
    res->set = o->b.set.args;
    res->n_set = o->b.set.n;
    res->command = command;
    res->program = o->program;
    res->program_args = o->argv ? o->argv + 1 : NULL;
    res->exit_code = exit_code;
    res->killed_by = killed_by;
    res->replaced_by = run_replaced_by(r);
}

/* The report of R, which ended with EXIT_CODE or was killed by signal KILLED_BY (-1: not): its
 * views' files, then the text on stderr. With TRACE, the trace of the run, its robustness across
 * the machine's estimates is checked by replaying it. */
static int finish_report(struct run *r, const struct run_cli *o, const struct analysis_plan *plan,
                         const struct run_opts *ro, const char *command, int exit_code, int killed_by, const char *trace)
{
    char err[512];
    struct result *res = alloc_zeroed(1, sizeof *res);
    run_result_head(res, r, o, command, exit_code, killed_by);
    const struct report_to to = { o->view, stderr, false, false };
    struct robust_set set = { 0 };
    struct result *scratch = NULL;
    unsigned threads = default_jobs(2 * (size_t)o->b.m->n_uncertain);     /* one per end at most */
    struct trace_measure tm = { trace, ro, !o->quiet && isatty(STDERR_FILENO), threads > 1, 0 };
    struct robust_job rj = { &set, measure_trace, &tm, NULL, threads };
    if (trace) {
        robust_set_init(&set, o->b.m);
        rj.scratch = scratch = alloc_zeroed(1, sizeof *scratch);
    }
    bool ok = measure_result(res, plan, fill_run, r, trace ? &rj : NULL, err, sizeof err);
    if (tm.progress && atomic_load(&tm.passes))
        fputs("\r\033[K", stderr);
    ok = show_report(&(struct report){ res, NULL }, &to, ok, err, sizeof err);
    if (!ok)
        say_error("%s", err);
    robust_set_free(&set);
    free_result(scratch);
    result_free(res);
    free(res);
    return ok ? 0 : 1;
}

/* The run's lanes: every knob at every weight, and pairs of the knobs that matter in any
 * program (the code is not known before it runs). */
static bool run_plan(struct analysis_plan *plan, const struct run_cli *o, struct run_opts *ro)
{
    char err[256];
    if (!analysis_plan_init(plan, o->b.m, o->b.weights, o->b.n_weights, o->b.sensitivity, err, sizeof err)) {
        say_error("%s", err);
        return false;
    }
    analysis_plan_pairs(plan, NULL, 0, 0);
    *ro = (struct run_opts){ .m = o->b.m, .lanes = plan->lanes, .n_lanes = plan->n_lanes,
                             .causality = o->b.causality, .causality_sample = o->sample,
                             .sample = o->sampling < 0 ? NULL : &o->sample_plan, .cores = o->b.n_cores };
    return true;
}

/* How far the stream has come: the first instructions mean the guest has started (QEMU's
 * stderr is its own from then on), and the progress line follows. */
static void on_progress(void *console, uint64_t executed, uint64_t modelled)
{
    if (executed)
        console_started(console);
    console_progress(console, executed, modelled);
}

struct guest {
    pid_t pid;                      /* QEMU's; -1: it could not be started */
    int status;                     /* its wait status */
    bool read;                      /* its stream was read to the end */
};

/* Runs the guest under QEMU, its stream into R and its stderr through CON; ERR says why when the
 * stream could not be read to its end. */
static void run_guest(const struct run_cli *o, struct run *r, struct console *con, struct guest *g, char *err,
                      size_t errlen)
{
    struct transport t;
    bool opened = transport_open(&t, err, errlen);
    /* a guest's children whose parent exits come to mdlsim, which ends them with the run */
    launch_adopt_orphans();
    if (opened) {
        int qemu_stderr = console_relay(con);
        g->pid = start_qemu(o, &t, qemu_stderr, err, errlen);
        doomed_pid = g->pid;
        transport_close_child(&t);
        if (qemu_stderr >= 0)
            close(qemu_stderr);
    }
    g->read = g->pid > 0 && run_consume(r, &t.src, err, errlen);
    if (g->pid > 0 && !g->read)
        kill(g->pid, SIGKILL);
    if (opened)
        transport_free(&t);
    if (g->pid > 0)
        while (waitpid(g->pid, &g->status, 0) < 0 && errno == EINTR)
            ;
    doomed_pid = 0;
    /* what the program left running (a child it forked and did not wait for) ends with the run */
    launch_end_descendants();
    if (opened)
        transport_cut_lifeline(&t);
}

/* Whether QEMU ran the program to its exit; else why not in ERR. */
static bool guest_exited(int status, char *err, size_t errlen)
{
    if (WIFSIGNALED(status)) {
        snprintf(err, errlen, "the guest was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return false;
    }
    return true;
}

/* QEMU exited before the program's first instruction: what QEMU SAID is why (its lines but the
 * last go out as they are, the last in ERR). Always false. */
static bool never_started(const struct run_cli *o, int status, char *said, char *err, size_t errlen)
{
    size_t n = strlen(said);
    while (n && said[n - 1] == '\n')
        said[--n] = '\0';
    char *last = strrchr(said, '\n');
    if (last)
        fwrite(said, 1, (size_t)(++last - said), stderr);
    if (n)
        snprintf(err, errlen, "cannot start '%s' under QEMU: %s", o->program, last ? last : said);
    else if (guest_exited(status, err, errlen))
        snprintf(err, errlen, "cannot start '%s' under QEMU: it exited with status %d before the program's "
                 "first instruction", o->program, WEXITSTATUS(status));
    return false;
}

/* The program exited (with its status) or was killed (128 + the signal, as a shell says it). */
static int guest_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

/* PATH (the interpreter of SCRIPT when not NULL) can be executed: it exists, is executable and is
 * not a directory. 0, or the status a shell gives it (126, 127 when absent) once said why. */
static int executable(const char *path, const char *script)
{
    struct stat st;
    int e = access(path, X_OK) != 0 ? errno : stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (!e)
        return 0;
    if (script)
        say_error("cannot execute '%s', the interpreter of '%s': %s", path, script, strerror(e));
    else
        say_error("cannot execute '%s': %s", path, strerror(e));
    return e == ENOENT ? RUN_NOT_FOUND : RUN_CANNOT_EXECUTE;
}

/* PATH, which is no script, is a whole ELF file (QEMU runs nothing else): 0, or 126 once said
 * why, as a shell says "cannot execute binary file" and a truncated file is not "stripped". */
static int elf_program(const char *path)
{
    char err[PATH_MAX + 256];
    if (!elfsym_is_elf(path))
        say_error("cannot execute '%s': neither an ELF program nor a '#!' script (Exec format error)", path);
    else if (!elfsym_complete(path, err, sizeof err))
        say_error("%s", err);
    else
        return 0;
    return RUN_CANNOT_EXECUTE;
}

/* ---- run and replay on several cores: --machine a,b,c --------------------------------------------- */

/* One core's analysis of a run: the live run's, or a replay of its trace on a thread of its own.
 * The result's rows point into the run, which lives as long as the report. */
struct core_run {
    struct run_cli o;               /* the command's options, naming this core */
    const char *trace, *command;
    struct analysis_plan plan;
    struct run_opts ro;
    struct run *run;
    struct result *res;
    int follows;                    /* the pipe a live run's trace comes through, or -1 */
    char path[32];                  /* the trace's name there */
    bool ok;
    char err[1024];
};

/* C's options, lanes and regions for core M of O's. False once said why. */
static bool core_setup(struct core_run *c, const struct run_cli *o, const struct mdl_machine *m, const char *trace,
                       const char *command)
{
    c->o = *o;
    c->o.b.m = m;
    c->follows = -1;
    c->trace = trace;
    c->command = command;
    c->res = alloc_zeroed(1, sizeof *c->res);
    if (!run_plan(&c->plan, &c->o, &c->ro))
        return false;
    if (!resolve_roi(&c->o, &c->plan, &c->ro, c->err, sizeof c->err)) {
        say_error("%s", c->err);
        return false;
    }
    c->ro.progress = NULL, c->ro.record = NULL;
    return true;
}

/* What is left of a pipe, read to its end and thrown away. */
static void drain(int fd)
{
    char buf[65536];
    while (fdio_read_full(fd, buf, sizeof buf) == sizeof buf)
        ;
}

static void *replay_core(void *arg)
{
    struct core_run *c = arg;
    int exit_code, killed_by;
    c->run = replay_trace(c->trace, &c->ro, &exit_code, &killed_by, c->err, sizeof c->err);
    if (c->ro.pace)
        pace_done(c->ro.pace, c->ro.pace_core);
    /* a core that stopped early still takes what the live run writes to it, which would else
     * wait on the pipe for ever */
    if (c->follows >= 0)
        drain(c->follows);
    if ((c->ok = c->run != NULL)) {
        run_result_head(c->res, c->run, &c->o, c->command, exit_code, killed_by);
        c->ok = measure_result(c->res, &c->plan, fill_run, c->run, NULL, c->err, sizeof c->err);
    }
    return NULL;
}

/* How far apart in the trace the cores' models may be when kept in step: two frames, about 200,000
 * instructions; enough that a core waits seldom, and once per frame at most. */
enum { PACE_WINDOW = 2 * TRACE_FRAME_MAX / RUN_PACE_UNIT };

/* The threads replaying cores FROM to N of a comparison, and the pace that keeps them in step. */
struct replays {
    unsigned from, n;
    pthread_t th[RESULT_MAX_CORES];
    bool started[RESULT_MAX_CORES];
    struct pace *pace;
};

/* The source lines the cores CS[0..N) share: each instruction's read from DWARF once. They live
 * until the cores' results are freed (cores_free's caller frees them after). */
static struct symbols_lines *share_lines(struct core_run *cs, unsigned n)
{
    struct symbols_lines *l = symbols_lines_new();
    for (unsigned k = 0; k < n; k++)
        cs[k].ro.lines = l;
    return l;
}

/* The trace replayed for cores FROM to N of CS, each on a thread of its own; false when one
 * could not start (it is then replayed by replays_join, after the others). */
static bool replays_start(struct replays *t, struct core_run *cs, unsigned from, unsigned n)
{
    *t = (struct replays){ .from = from, .n = n };
    /* a decoder opened before the threads start warms Capstone's lazy tables (isa.h), which the
     * threads' decoders would otherwise build at once, each over the others' */
    char err[256];
    dec_close(dec_open((enum mdl_isa)cs[from].o.b.m->isa, err, sizeof err));
    /* each core reads on one thread and models on another: when those outnumber the processors,
     * the cores go in step, so that the slowest is not left to finish alone */
    if (2 * (n - from) > (unsigned)default_jobs(UINT_MAX))
        t->pace = pace_new(n - from, PACE_WINDOW);
    for (unsigned k = from; k < n; k++) {
        cs[k].ro.pace = t->pace;
        cs[k].ro.pace_core = k - from;
    }
    bool all = true;
    for (unsigned k = from; k < n; k++)
        if (!(t->started[k] = pthread_create(&t->th[k], NULL, replay_core, &cs[k]) == 0)) {
            all = false;
            if (t->pace)
                pace_done(t->pace, k - from);   /* it runs after the others, which must not wait for it */
        }
    return all;
}

/* Once every replay T started has ended, those that did not start, on this thread. False when
 * one failed, each failure said if SAY. */
static bool replays_join(struct replays *t, struct core_run *cs, bool say)
{
    unsigned from = t->from, n = t->n;
    for (unsigned k = from; k < n; k++)
        if (t->started[k])
            pthread_join(t->th[k], NULL);
    for (unsigned k = from; k < n; k++)
        if (!t->started[k])
            replay_core(&cs[k]);
    pace_free(t->pace);
    t->pace = NULL;
    bool ok = true;
    for (unsigned k = from; k < n; k++)
        if (!cs[k].ok) {
            if (say)
                say_error("%s: %s", cs[k].o.b.m->name, cs[k].err);
            ok = false;
        }
    return ok;
}

/* The cores' results side by side, in O's views. */
static int compare_report(struct core_run *cs, unsigned n, const struct run_cli *o)
{
    struct result_comparison c = { .n = n };
    for (unsigned k = 0; k < n; k++)
        c.core[k] = cs[k].res;
    analysis_compare(&c);
    const struct report_to to = { o->view, stderr, false, false };
    char err[512];
    bool ok = show_report(&(struct report){ NULL, &c }, &to, true, err, sizeof err);
    if (!ok)
        say_error("%s", err);
    return ok ? 0 : 1;
}

static struct core_run *cores_new(unsigned n) { return alloc_zeroed(n, sizeof(struct core_run)); }

static void cores_free(struct core_run *cs, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        run_free(cs[k].run);
        free_result(cs[k].res);
    }
    free(cs);
}

/* replay on every core of O: one thread each. */
static int compare_replay(const struct run_cli *o)
{
    unsigned n = o->b.n_cores;
    struct core_run *cs = cores_new(n);
    bool ok = true;
    for (unsigned k = 0; k < n && ok; k++)
        ok = core_setup(&cs[k], o, o->b.cores[k], o->trace, "replay");
    struct symbols_lines *lines = share_lines(cs, n);
    struct replays t;
    if (ok)
        replays_start(&t, cs, 0, n);
    int rc = !ok ? 2 : replays_join(&t, cs, true) ? compare_report(cs, n, o) : 1;
    cores_free(cs, n);
    symbols_lines_free(lines);
    return rc;
}

/* The cores after the first of a run's comparison follow the live run as it goes: its trace is
 * written to a pipe for each as well as to --record's file, and each replays it on a thread. A core
 * the pace holds back fills its pipe and the run waits on it; the one behind has then been given
 * all but the stream's buffer, less than the window, so it can always catch up. */
_Static_assert((uint64_t)PACE_WINDOW * RUN_PACE_UNIT * 8 > TEE_BUFFER + TRACE_FRAME_MAX * 8,
               "the pace's window holds the stream's buffer and a frame");
struct followers {
    struct core_run *cs;            /* [n]: the first is the live run's */
    unsigned n;
    int wfd[RESULT_MAX_CORES];      /* the pipes' ends the trace is written to */
    FILE *tee;                      /* the trace's stream: RECORD's descriptor and the pipes */
    struct replays t;
    struct symbols_lines *lines;    /* the cores' source lines, the live run's included */
};

/* F's pipes, the stream over them and RECORD (NULL: none), and the replays started, for O's
 * cores. False once said why (F is then finished). */
static bool followers_start(struct followers *f, const struct run_cli *o, FILE *record)
{
    unsigned n = o->b.n_cores;
    *f = (struct followers){ .cs = cores_new(n), .n = n };
    for (unsigned k = 0; k < n; k++)
        f->wfd[k] = f->cs[k].follows = -1;
    int fds[RESULT_MAX_CORES + 1], n_fds = 0;
    if (record)
        fds[n_fds++] = fileno(record);
    bool ok = true;
    for (unsigned k = 1; k < n && ok; k++) {
        struct core_run *c = &f->cs[k];
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            say_error("cannot make a pipe for core '%s': %s", o->b.cores[k]->name, strerror(errno));
            ok = false;
            break;
        }
        fcntl(p[1], F_SETPIPE_SZ, 1 << 20);     /* fewer turns between the run and the cores */
        snprintf(c->path, sizeof c->path, "/proc/self/fd/%d", p[0]);
        ok = core_setup(c, o, o->b.cores[k], c->path, "run");
        c->follows = p[0];
        f->wfd[k] = fds[n_fds++] = p[1];
    }
    f->lines = share_lines(f->cs, n);
    if (ok && !(f->tee = tee_open(fds, (unsigned)n_fds))) {
        say_error("cannot write the trace to the other cores: %s", strerror(errno));
        ok = false;
    }
    if (ok && !replays_start(&f->t, f->cs, 1, n)) {
        say_error("cannot start a thread for each core");
        ok = false;
    }
    return ok;
}

/* The trace's stream closed, so the cores see its end, and their replays ended (their failures
 * said if SAY: not when the live run failed, which ended their traces early). False when the
 * stream's last write failed. */
static bool followers_finish(struct followers *f, bool say)
{
    bool ok = !f->tee || fclose(f->tee) == 0;
    f->tee = NULL;
    for (unsigned k = 1; k < f->n; k++)
        if (f->wfd[k] >= 0)
            close(f->wfd[k]);
    if (f->t.n)
        replays_join(&f->t, f->cs, say);
    for (unsigned k = 1; k < f->n; k++)
        if (f->cs[k].follows >= 0)
            close(f->cs[k].follows);
    return ok;
}

/* F's cores, the live run's with them, and the lines they shared. */
static void followers_free(struct followers *f)
{
    cores_free(f->cs, f->n);
    symbols_lines_free(f->lines);
}

/* run on every core of O: the live run R (which this takes) on the first, the others having
 * followed it (F, finished). */
static int compare_run(struct run *r, const struct run_cli *o, const struct analysis_plan *plan, int exit_code,
                       int killed_by, struct followers *f)
{
    struct core_run *cs = f->cs;
    cs[0].run = r;
    cs[0].res = alloc_zeroed(1, sizeof *cs[0].res);
    run_result_head(cs[0].res, r, o, "run", exit_code, killed_by);
    char err[512];
    bool ok = measure_result(cs[0].res, plan, fill_run, r, NULL, err, sizeof err);
    if (!ok)
        say_error("%s", err);
    bool followed = true;
    for (unsigned k = 1; k < f->n; k++)
        followed &= cs[k].ok;
    return ok && followed ? compare_report(cs, f->n, o) : 1;
}

static int cmd_run(int argc, char **argv)
{
    struct run_cli o;
    int rc = parse_run_opts(argc, argv, &o, false);
    if (rc >= 0)
        return rc == 1 ? RUN_FAILED : rc;
    char err[1024];
    if (!reports_writable(&o))
        return RUN_FAILED;
    if (!launch_find_program(o.argv[0], o.found, sizeof o.found)) {
        say_error("cannot find '%s' in PATH", o.argv[0]);
        return RUN_NOT_FOUND;
    }
    o.program = o.found;
    if ((rc = executable(o.program, NULL)) != 0)
        return rc;
    /* a script runs its interpreter (QEMU starts ELF programs only), found as the kernel finds it */
    if (launch_script(o.found, o.interp, sizeof o.interp, o.interp_arg, sizeof o.interp_arg)) {
        o.script = o.found;
        o.program = o.interp;
        if ((rc = executable(o.program, o.script)) != 0)
            return rc;
    }
    if ((rc = elf_program(o.program)) != 0)
        return rc;
    if (!paths_apart(&o))
        return RUN_FAILED;
    o.sysroot = launch_sysroot(o.sysroot, isa_get(o.b.m->isa)->sysroot, o.program);
    struct analysis_plan plan;
    struct run_opts ro;
    if (!run_plan(&plan, &o, &ro))
        return 2;
    if (!resolve_roi(&o, &plan, &ro, err, sizeof err)) {
        say_error("%s", err);
        return RUN_FAILED;
    }
    if (!roi_defined(&o))
        return 2;           /* a misspelled --roi is a usage error: the program has not started */
    catch_fatal_signals();
    /* --robustness replays the run's trace: one of its own, in $TMPDIR, when none is recorded */
    bool robust = o.b.robustness > 0 && o.b.m->n_uncertain, own_trace = robust && !o.record;
    char own[PATH_MAX];
    if (own_trace) {
        const char *dir = getenv("TMPDIR");
        snprintf(own, sizeof own, "%s/mdlsim-run-%ld.trace", dir && *dir ? dir : "/tmp", (long)getpid());
        o.record = own;
    }
    struct safefile trace = { 0 };
    struct trace_writer tw;
    /* a comparison's other cores follow the run through pipes, as its trace is written */
    struct followers f = { 0 };
    bool follow = o.b.n_cores > 0, writing = o.record || follow;
    if (o.record && !safefile_open(&trace, o.record, err, sizeof err)) {
        say_error("%s", err);
        return RUN_FAILED;
    }
    bool started = !follow || followers_start(&f, &o, o.record ? trace.fp : NULL);    /* says why not */
    if (started && writing &&
        !trace_write_start(&tw, follow ? f.tee : trace.fp, (enum mdl_isa)o.b.m->isa, o.program, err, sizeof err)) {
        say_error("%s", err);
        started = false;
    }
    if (!started) {
        followers_finish(&f, false);
        followers_free(&f);
        safefile_discard(&trace);
        return RUN_FAILED;
    }
    ro.record = writing ? &tw : NULL;
    ro.lines = f.lines;
    doom_path(0, trace.tmp);
    struct console *con = console_new(!o.quiet && isatty(STDERR_FILENO));
    ro.progress = on_progress;
    ro.progress_ctx = con;
    struct run *r = run_new(&ro, err, sizeof err);
    struct guest g = { .pid = -1 };
    if (r)
        run_guest(&o, r, con, &g, err, sizeof err);
    bool ok = g.read && regions_found(r, o.program, err, sizeof err);
    /* what QEMU said before the program ran is the error's; once it ran, its stderr's */
    char said[2048] = "";
    console_end_relay(con, r && run_executed(r) == 0 ? said : NULL, sizeof said);
    console_free(con);
    if (g.pid > 0 && run_executed(r) == 0)
        ok = never_started(&o, g.status, said, err, sizeof err);
    /* the trace takes its name once whole (a program killed is whole: its end says so); a failed
     * run leaves what the path held. A write that failed (a full disk) stopped the run at once. */
    if (writing && ok)
        trace_write_end(&tw, g.status);
    if (follow && !followers_finish(&f, ok) && !tw.error)
        tw.error = errno;           /* the stream's last write */
    if (writing && tw.error && o.record)
        ok = false, snprintf(err, sizeof err, "cannot write '%s': %s", o.record, strerror(tw.error));
    else if (writing && tw.error)
        ok = false, snprintf(err, sizeof err, "cannot write the trace to the other cores: %s", strerror(tw.error));
    if (o.record && ok)
        ok = safefile_close(&trace, err, sizeof err) && safefile_publish(&trace, err, sizeof err);
    doom_path(0, own_trace && ok ? own : NULL);
    safefile_discard(&trace);
    if (!ok) {
        say_error("%s", err);
        run_free(r);
        followers_free(&f);
        return RUN_FAILED;
    }
    bool killed = WIFSIGNALED(g.status);
    int exit_code = killed ? -1 : WEXITSTATUS(g.status), killed_by = killed ? WTERMSIG(g.status) : -1;
    if (follow) {
        rc = compare_run(r, &o, &plan, exit_code, killed_by, &f);
        followers_free(&f);         /* the live run with them */
        r = NULL;
    } else {
        rc = finish_report(r, &o, &plan, &ro, "run", exit_code, killed_by, robust ? o.record : NULL);
    }
    if (own_trace)
        unlink(own);
    doom_path(0, NULL);
    run_free(r);
    return rc ? RUN_FAILED : guest_status(g.status);
}

/* The trace's program is the one --program names (or it is read from where it was recorded). */
static bool same_program(const struct run_cli *o, const struct trace_reader *t, char *err, size_t errlen)
{
    char hex[SHA256_HEX], why[128];
    if (!o->program)
        return true;
    int fd = safefile_read_fd(o->program, why, sizeof why);     /* a FIFO would block the hash */
    if (fd < 0) {
        snprintf(err, errlen, "cannot read '%s': %s", o->program, why);
        return false;
    }
    close(fd);
    if (!sha256_file_hex(o->program, hex)) {
        snprintf(err, errlen, "cannot read '%s': %s", o->program, strerror(errno));
        return false;
    }
    if (strcmp(hex, t->program_sha) == 0)
        return true;
    snprintf(err, errlen, "'%s' is not the program '%s' was recorded from ('%.512s', whose content differs)", o->program,
             o->trace, t->program);
    return false;
}

static int cmd_replay(int argc, char **argv)
{
    struct run_cli o;
    int rc = parse_run_opts(argc, argv, &o, true);
    if (rc >= 0)
        return rc;
    char err[1024];
    struct analysis_plan plan;
    struct run_opts ro;
    if (!reports_writable(&o) || !paths_apart(&o))
        return 1;
    catch_fatal_signals();
    if (!run_plan(&plan, &o, &ro))
        return 2;
    struct trace_reader t;
    if (!trace_open(&t, o.trace, err, sizeof err) || !same_program(&o, &t, err, sizeof err)) {
        say_error("%s", err);
        if (t.fd >= 0)
            trace_close(&t);
        return 1;
    }
    if (t.isa != (enum mdl_isa)o.b.m->isa) {
        say_error("the trace was recorded for %s, the machine is %s", isainfo_get(t.isa)->name,
                  isainfo_get(o.b.m->isa)->name);
        trace_close(&t);
        return 1;
    }
    if (!resolve_roi(&o, &plan, &ro, err, sizeof err)) {
        say_error("%s", err);
        trace_close(&t);
        return 1;
    }
    if (!roi_defined(&o)) {
        trace_close(&t);
        return 2;           /* a misspelled --roi: a usage error, as before a run */
    }
    if (o.b.n_cores) {
        char program[PATH_MAX];
        snprintf(program, sizeof program, "%s", o.program ? o.program : t.program);
        o.program = program;
        trace_close(&t);
        return compare_replay(&o);
    }
    struct console *con = console_new(!o.quiet && isatty(STDERR_FILENO));
    ro.progress = on_progress;
    ro.progress_ctx = con;
    struct run *r = NULL;
    struct run_source src = { .fd = -1, .free_fd = -1, .trace = &t };
    bool ok = (r = run_new(&ro, err, sizeof err)) && run_consume(r, &src, err, sizeof err) &&
              regions_found(r, o.program ? o.program : t.program, err, sizeof err);
    trace_close(&t);
    console_free(con);
    if (!ok) {
        say_error("%s", err);
        run_free(r);
        return 1;
    }
    bool killed = t.end == TRACE_KILLED;
    if (!o.program)
        o.program = t.program;
    rc = finish_report(r, &o, &plan, &ro, "replay", killed ? -1 : t.end_value, killed ? t.end_value : -1,
                       o.b.robustness > 0 && o.b.m->n_uncertain ? o.trace : NULL);
    run_free(r);
    return rc;
}

static int command(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "no command");
    usage_shown = command_usage(argv[1]);
    if (strcmp(argv[1], "machines") == 0)
        return argc == 2 ? cmd_machines()
             : strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0 ? print_help("machines")
             : usage_error("unexpected argument '%s'", argv[2]);
    if (strcmp(argv[1], "block") == 0)
        return cmd_block(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return print_help(NULL);
    if (strcmp(argv[1], "--version") == 0) {
        printf(MDL_VERSION_LINE("mdlsim"));
        return 0;
    }
    return usage_error("unknown command '%s'", argv[1]);
}

/* A result that could not be written whole (a full disk, a closed pipe) is a failure. */
int main(int argc, char **argv)
{
    int rc = command(argc, argv);
    char err[256];
    if (!safefile_stdout(err, sizeof err)) {
        say_error("%s", err);
        rc = rc ? rc : argc > 1 && strcmp(argv[1], "run") == 0 ? RUN_FAILED : 1;
    }
    return rc;
}
