/* mdlsim: analyses code on a machine compiled from its description. `block` runs a basic
 * block statically (repeated back to back); `machines` lists the machines compiled in. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "asm.h"
#include "batch.h"
#include "block.h"
#include "elfsym.h"
#include "classify.h"
#include "decode.h"
#include "report.h"
#include "run.h"
#include "transport.h"

extern const struct mdl_machine *const mdl_machines[];

static const char usage_text[] =
    "usage: mdlsim machines\n"
    "       mdlsim run --machine M [--roi SYMBOL] [--weight PERCENT]... [--no-sensitivity] [--json FILE]\n"
    "                  [--html FILE] [--record FILE] [--causality-sample N] -- PROGRAM [ARGS...]\n"
    "       mdlsim replay --machine M [--roi SYMBOL --program PROGRAM] [same report options] TRACE\n"
    "       mdlsim block --machine M (FILE.s | --function NAME PROGRAM | --hex HEX | --hex-file FILE)\n"
    "                    [--iterations N] [--weight PERCENT]... [--no-sensitivity] [--no-causality] [--json]\n"
    "                    [--jobs N]\n";

static const char help_text[] =
    "\n"
    "run: runs PROGRAM under QEMU user mode (qemu-x86_64 or qemu-aarch64, with the CPU model the\n"
    "machine names) and models every instruction it executes, or those of every call of the\n"
    "function SYMBOL (callees included) with --roi. The program keeps its input, output and exit\n"
    "status; the report goes to stderr, as JSON to FILE with --json, as a self-contained HTML page\n"
    "(sensitivity bars, instruction heat map) with --html. --record writes the event\n"
    "stream to FILE, which 'replay' analyses again on any machine of the same ISA. Causality\n"
    "(the critical path) is sampled: a period follows twice the ROB's worth of instructions and\n"
    "counts them as they leave a window of that size; one period in N runs (--causality-sample N,\n"
    "default 8; 1: periods back to back, which follow every other window of instructions).\n"
    "block: predicts the steady-state cycles per iteration of a basic block repeated back to back,\n"
    "the bottleneck (each resource accelerated in turn: the speed-up is the bound of the gain),\n"
    "the instructions on the critical path, and a per-instruction resource table.\n"
    "  --machine M        a machine listed by 'mdlsim machines'\n"
    "  FILE.s             assembly (AT&T by default; '.intel_syntax noprefix' switches)\n"
    "  --function NAME PROGRAM  the code of function NAME of the ELF program PROGRAM\n"
    "  --hex HEX          the block's bytes in hex\n"
    "  --hex-file FILE    one hex block per line ('-': standard input; '#' starts a comment line);\n"
    "                     one result per line with --json, in the order of the file\n"
    "  --jobs N           analyse the blocks of --hex-file on N threads (default: one per\n"
    "                     processor online); the output is the same whatever N\n"
    "  --iterations N     at most N copies measured (default 100): the run stops once the timing\n"
    "                     repeats, else the second half is measured; causality may run longer\n"
    "  --weight PERCENT   acceleration of each resource in sensitivity lanes (default 15; repeatable)\n"
    "  --no-sensitivity   baseline only\n"
    "  --no-causality     no critical-path analysis\n"
    "  --json             one JSON object per block\n"
    "Exit status: 0 success, 1 when a block or file could not be analysed, 2 usage errors.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mdlsim: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return 2;
}

static const struct mdl_machine *find_machine(const char *name)
{
    for (size_t i = 0; mdl_machines[i]; i++)
        if (strcmp(mdl_machines[i]->name, name) == 0)
            return mdl_machines[i];
    return NULL;
}

static int cmd_machines(void)
{
    for (size_t i = 0; mdl_machines[i]; i++)
        printf("%s\n", mdl_machines[i]->name);
    return 0;
}

struct block_opts {
    const struct mdl_machine *m;
    const char *file, *hex, *hex_file, *function;
    unsigned iterations, jobs;
    double weights[8];
    unsigned n_weights;
    bool sensitivity, causality, json;
};

/* ---- one block ------------------------------------------------------------------------------ */

struct hex_lines;

struct session {
    const struct block_opts *o;
    struct dec *dec;
    struct cls_index *ci;
    struct rt_lane_cfg lanes[RT_MAX_LANES];
    unsigned n_lanes, n_common;     /* all lanes; those every block gets */
    const struct hex_lines *lines;  /* the blocks of --hex-file */
    struct rt_model *model;         /* the last block's, reused for the next */
    struct block_cache *cache;      /* the instructions this thread has decoded */
};

static void add_pair_lanes(struct session *s, const struct block *b);

static int analyse_bytes(struct session *s, const uint8_t *bytes, size_t len, const char *label, FILE *out)
{
    char err[512];
    struct block b = { 0 };
    struct block_result r = { 0 };
    bool decoded = block_decode(&b, s->dec, s->ci, s->o->m, s->cache, bytes, len, err, sizeof err);
    if (decoded)
        add_pair_lanes(s, &b);
    if (!decoded ||
        !block_run(&b, s->o->m, s->lanes, s->n_lanes, s->o->causality, s->o->iterations, &s->model, &r, err,
                   sizeof err)) {
        report_error(out, s->o->json, label, err);
        block_free(&b);
        return 1;
    }
    struct report rep = { .m = s->o->m, .b = &b, .r = &r, .lanes = s->lanes, .n_lanes = s->n_lanes,
                          .iterations = s->o->iterations, .causality = s->o->causality };
    if (s->o->json)
        report_json(out, &rep);
    else
        report_text(out, &rep, label);
    free(r.crit);
    free(r.seen);
    block_free(&b);
    return 0;
}

static int analyse_hex(struct session *s, const char *hex, const char *label, FILE *out)
{
    uint8_t *bytes;
    size_t len;
    char err[256];
    if (!block_parse_hex(hex, &bytes, &len, err, sizeof err)) {
        report_error(out, s->o->json, label, err);
        return 1;
    }
    int rc = analyse_bytes(s, bytes, len, label, out);
    free(bytes);
    return rc;
}

/* The blocks of a hex file, each with its label (FILE:LINE). */
struct hex_lines {
    char **hex, **label;
    size_t n;
};

static int analyse_line(void *worker, size_t item, FILE *out)
{
    const struct hex_lines *h = ((struct session *)worker)->lines;
    return analyse_hex(worker, h->hex[item], h->label[item], out);
}

static bool read_hex_lines(const char *path, struct hex_lines *h)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "mdlsim: error: cannot read '%s': %s\n", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0, room = 0;
    unsigned lineno = 0;
    while (getline(&line, &cap, fp) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        if (h->n == room) {
            room = room ? 2 * room : 1024;
            h->hex = realloc(h->hex, room * sizeof *h->hex);
            h->label = realloc(h->label, room * sizeof *h->label);
            if (!h->hex || !h->label)
                abort();
        }
        char label[64];
        snprintf(label, sizeof label, "%s:%u", path, lineno);
        h->hex[h->n] = strdup(line);
        h->label[h->n++] = strdup(label);
    }
    free(line);
    if (fp != stdin)
        fclose(fp);
    return true;
}

/* One thread per processor online, no more than there are blocks. */
static unsigned default_jobs(size_t blocks)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned jobs = cpus > 1 ? (unsigned)(cpus < 256 ? cpus : 256) : 1;
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
    struct session *ss = calloc(jobs, sizeof *ss);
    void **workers = calloc(jobs, sizeof *workers);
    int rc = 0;
    unsigned opened = 0;
    for (; opened < jobs && rc == 0; opened++) {
        char err[256];
        ss[opened] = *s;
        ss[opened].lines = &h;
        workers[opened] = &ss[opened];
        if (opened > 0 && !(ss[opened].dec = dec_open((enum mdl_isa)s->o->m->isa, err, sizeof err))) {
            fprintf(stderr, "mdlsim: error: %s\n", err);
            rc = 1;
        }
        if (opened > 0)
            ss[opened].cache = block_cache_new();   /* none: decoding goes on without */
    }
    /* One result per block: large writes, unless someone watches them come. */
    static char buf[1 << 16];
    if (!isatty(fileno(stdout)))
        setvbuf(stdout, buf, _IOFBF, sizeof buf);
    if (rc == 0 && (rc = batch_run(h.n, analyse_line, workers, jobs, stdout)) < 0) {
        fprintf(stderr, "mdlsim: error: cannot start %u threads\n", jobs);
        rc = 1;
    }
    for (unsigned i = 1; i < opened; i++) {
        dec_close(ss[i].dec);
        block_cache_free(ss[i].cache);
    }
    for (unsigned i = 0; i < opened; i++)
        rt_model_free(ss[i].model);
    for (size_t i = 0; i < h.n; i++) {
        free(h.hex[i]);
        free(h.label[i]);
    }
    free(h.hex);
    free(h.label);
    free(ss);
    free(workers);
    return rc;
}

static int analyse_file(struct session *s, const char *path)
{
    uint8_t *bytes;
    size_t len;
    uint64_t addr;
    char err[1024];
    enum mdl_isa isa = (enum mdl_isa)s->o->m->isa;
    bool ok;
    if (s->o->function)
        ok = elfsym_function(path, s->o->function, isa, &bytes, &len, &addr, err, sizeof err);
    else if (elfsym_is_elf(path))
        ok = snprintf(err, sizeof err, "'%s' is a compiled program: name the function with --function NAME", path) < 0;
    else
        ok = asm_assemble(path, isa, &bytes, &len, err, sizeof err);
    if (!ok) {
        fprintf(stderr, "mdlsim: error: %s\n", err);
        return 1;
    }
    int rc = analyse_bytes(s, bytes, len, path, stdout);
    free(bytes);
    return rc;
}

/* ---- lanes ---------------------------------------------------------------------------------- */

static void add_lane(struct session *s, enum rt_knob k, int arg, double w)
{
    if (s->n_lanes < RT_MAX_LANES)
        s->lanes[s->n_lanes++] = (struct rt_lane_cfg){ { k, RT_KNOB_NONE }, { arg, 0 }, w };
}

/* Baseline, then every resource the model can vary, for every weight, then the two bounds. */
static void build_lanes(struct session *s)
{
    const struct mdl_machine *m = s->o->m;
    s->n_lanes = 0;
    add_lane(s, RT_KNOB_NONE, 0, 1);
    s->n_common = s->n_lanes;
    if (!s->o->sensitivity)
        return;
    for (unsigned w = 0; w < s->o->n_weights; w++) {
        double x = s->o->weights[w];
        for (unsigned r = 0; r < m->n_resources; r++)
            add_lane(s, RT_KNOB_RESOURCE, (int)r, x);
        static const enum rt_knob knobs[] = { RT_KNOB_LATENCY, RT_KNOB_FRONTEND, RT_KNOB_ROB, RT_KNOB_RETIRE,
                                              RT_KNOB_LOAD_BUFFER, RT_KNOB_STORE_BUFFER, RT_KNOB_MISPREDICT,
                                              RT_KNOB_MEMORY_LATENCY };
        for (size_t k = 0; k < sizeof knobs / sizeof *knobs; k++)
            add_lane(s, knobs[k], 0, x);
        for (unsigned c = 0; c < m->n_caches; c++)
            if (m->caches[c].bandwidth > 0 && m->caches[c].kind != MDL_CACHE_INSTRUCTION)
                add_lane(s, RT_KNOB_CACHE_BW, (int)c, x);
    }
    add_lane(s, RT_KNOB_ALL_RESOURCES, 0, 1);
    add_lane(s, RT_KNOB_NO_DEPS, 0, 1);
    s->n_common = s->n_lanes;
}

struct candidate {
    enum rt_knob knob;
    int arg;
    double busy;                    /* cycles per iteration the block keeps it busy */
};

static int by_busy(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    return x->busy < y->busy ? 1 : x->busy > y->busy ? -1 : 0;
}

/* Balanced kernels have no single bottleneck: two resources bind together and accelerating
 * either alone gains nothing. Lanes accelerating pairs of the likely ones (latency, and the
 * three resources, front end or retirement the block keeps busiest) show it. */
static void add_pair_lanes(struct session *s, const struct block *b)
{
    const struct mdl_machine *m = s->o->m;
    s->n_lanes = s->n_common;
    if (!s->o->sensitivity)
        return;
    unsigned nc = m->n_resources + 2u;
    struct candidate *c = calloc(nc, sizeof *c);
    double *busy = calloc(m->n_resources + 1u, sizeof *busy), fe, ret;
    block_busy(b, m, busy, &fe, &ret);
    for (unsigned r = 0; r < m->n_resources; r++)
        c[r] = (struct candidate){ RT_KNOB_RESOURCE, (int)r, busy[r] };
    c[m->n_resources] = (struct candidate){ RT_KNOB_FRONTEND, 0, fe };
    c[m->n_resources + 1] = (struct candidate){ RT_KNOB_RETIRE, 0, ret };
    free(busy);
    qsort(c, nc, sizeof *c, by_busy);
    struct candidate top[4] = { { RT_KNOB_LATENCY, 0, 0 } };
    unsigned n = 1;
    for (unsigned i = 0; i < nc && n < 4; i++)
        if (c[i].busy > 0)
            top[n++] = c[i];
    free(c);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n && s->n_lanes < RT_MAX_LANES; j++)
            s->lanes[s->n_lanes++] = (struct rt_lane_cfg){ { top[i].knob, top[j].knob }, { top[i].arg, top[j].arg },
                                                           s->o->weights[0] };
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

/* Options of both `block` and `run`/`replay`. */
enum { O_MACHINE = 256, O_WEIGHT, O_NOSENS, O_NOCAUS, O_FIRST_OWN };

/* Handles an option common to every analysis: -1 when handled, 2 on a usage error, 0 when C
 * is not one of them. */
static int common_option(int c, struct block_opts *o)
{
    switch (c) {
    case O_MACHINE:
        if (!(o->m = find_machine(optarg)))
            return usage_error("unknown machine '%s' (see 'mdlsim machines')", optarg);
        return -1;
    case O_WEIGHT:
        if (o->n_weights == 8 || !parse_weight(optarg, &o->weights[o->n_weights++]))
            return usage_error("--weight takes a percentage above 0 (at most 8 of them), got '%s'", optarg);
        return -1;
    case O_NOSENS: o->sensitivity = false; return -1;
    case O_NOCAUS: o->causality = false; return -1;
    default: return 0;
    }
}

static int parse_block_opts(int argc, char **argv, struct block_opts *o)
{
    enum { O_HEX = O_FIRST_OWN, O_HEXFILE, O_ITER, O_JSON, O_FUNCTION, O_JOBS };
    static const struct option longopts[] = {
        { "machine", required_argument, NULL, O_MACHINE }, { "hex", required_argument, NULL, O_HEX },
        { "hex-file", required_argument, NULL, O_HEXFILE }, { "iterations", required_argument, NULL, O_ITER },
        { "weight", required_argument, NULL, O_WEIGHT }, { "no-sensitivity", no_argument, NULL, O_NOSENS },
        { "no-causality", no_argument, NULL, O_NOCAUS }, { "json", no_argument, NULL, O_JSON },
        { "function", required_argument, NULL, O_FUNCTION }, { "jobs", required_argument, NULL, O_JOBS },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    *o = (struct block_opts){ .iterations = 100, .jobs = 0, .sensitivity = true, .causality = true };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int rc = common_option(c, o);
        if (rc > 0)
            return rc;
        switch (rc ? 0 : c) {
        case 0: break;
        case O_HEX: o->hex = optarg; break;
        case O_HEXFILE: o->hex_file = optarg; break;
        case O_ITER:
            if (!parse_uint(optarg, 2, 100000000, &o->iterations))
                return usage_error("--iterations needs a whole number from 2 to 100000000, got '%s'", optarg);
            break;
        case O_JSON: o->json = true; break;
        case O_FUNCTION: o->function = optarg; break;
        case O_JOBS:
            if (!parse_uint(optarg, 1, 256, &o->jobs))
                return usage_error("--jobs needs a whole number from 1 to 256, got '%s'", optarg);
            break;
        case 'h': printf("%s%s", usage_text, help_text); return 0;
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        o->file = argv[optind++];
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->m)
        return usage_error("%s", "--machine is required");
    if (!!o->file + !!o->hex + !!o->hex_file != 1)
        return usage_error("%s", "give exactly one of FILE.s, --function NAME PROGRAM, --hex or --hex-file");
    if (o->function && !o->file)
        return usage_error("%s", "--function needs the PROGRAM that holds it");
    if (!o->n_weights)
        o->weights[o->n_weights++] = 1.15;
    return -1;
}

static int cmd_block(int argc, char **argv)
{
    struct block_opts o;
    int rc = parse_block_opts(argc, argv, &o);
    if (rc >= 0)
        return rc;
    struct session s = { .o = &o };
    char err[256];
    if (!(s.dec = dec_open((enum mdl_isa)o.m->isa, err, sizeof err))) {
        fprintf(stderr, "mdlsim: error: %s\n", err);
        return 1;
    }
    s.ci = cls_build(o.m);
    s.cache = block_cache_new();
    build_lanes(&s);
    if (o.hex)
        rc = analyse_hex(&s, o.hex, "--hex", stdout);
    else if (o.hex_file)
        rc = analyse_hex_file(&s, o.hex_file);
    else
        rc = analyse_file(&s, o.file);
    rt_model_free(s.model);
    block_cache_free(s.cache);
    cls_free(s.ci);
    dec_close(s.dec);
    return rc;
}

/* ---- run and replay -------------------------------------------------------------------------- */

struct run_cli {
    struct block_opts b;            /* machine, weights, sensitivity, causality */
    unsigned sample;
    const char *roi, *json, *record, *html, *program, *trace;
    char **argv;                    /* PROGRAM ARGS... */
};

static int parse_run_opts(int argc, char **argv, struct run_cli *o, bool replay)
{
    enum { O_ROI = O_FIRST_OWN, O_JSON, O_HTML, O_RECORD, O_PROGRAM, O_SAMPLE };
    static const struct option longopts[] = {
        { "machine", required_argument, NULL, O_MACHINE }, { "roi", required_argument, NULL, O_ROI },
        { "weight", required_argument, NULL, O_WEIGHT }, { "no-sensitivity", no_argument, NULL, O_NOSENS },
        { "no-causality", no_argument, NULL, O_NOCAUS }, { "json", required_argument, NULL, O_JSON },
        { "html", required_argument, NULL, O_HTML }, { "record", required_argument, NULL, O_RECORD },
        { "program", required_argument, NULL, O_PROGRAM }, { "help", no_argument, NULL, 'h' },
        { "causality-sample", required_argument, NULL, O_SAMPLE },
        { NULL, 0, NULL, 0 },
    };
    *o = (struct run_cli){ .b = { .iterations = 2, .sensitivity = true, .causality = true }, .sample = 8 };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, replay ? ":h" : "+:h", longopts, NULL)) != -1) {
        int rc = common_option(c, &o->b);
        if (rc > 0)
            return rc;
        switch (rc ? 0 : c) {
        case 0: break;
        case O_ROI: o->roi = optarg; break;
        case O_JSON: o->json = optarg; break;
        case O_HTML: o->html = optarg; break;
        case O_RECORD: o->record = optarg; break;
        case O_PROGRAM: o->program = optarg; break;
        case O_SAMPLE:
            if (!parse_uint(optarg, 1, 1000000, &o->sample))
                return usage_error("--causality-sample needs a whole number from 1 to 1000000, got '%s'", optarg);
            break;
        case 'h': printf("%s%s", usage_text, help_text); return 0;
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!o->b.m)
        return usage_error("%s", "--machine is required");
    if (replay) {
        if (optind != argc - 1)
            return usage_error("%s", "replay takes exactly one TRACE file");
        o->trace = argv[optind];
        if (o->roi && !o->program)
            return usage_error("%s", "--roi on a replay needs --program PROGRAM to find the symbol");
        if (o->record)
            return usage_error("%s", "--record is for 'run'");
    } else {
        if (optind >= argc)
            return usage_error("%s", "no PROGRAM to run (mdlsim run --machine M -- PROGRAM [ARGS...])");
        o->argv = argv + optind;
        o->program = argv[optind];
    }
    if (!o->b.n_weights)
        o->b.weights[o->b.n_weights++] = 1.15;
    return -1;
}

/* The region's address range from the program's symbol table. */
static bool resolve_roi(const struct run_cli *o, struct run_opts *ro, char *err, size_t errlen)
{
    bool pie;
    if (!elfsym_check(o->program, (enum mdl_isa)o->b.m->isa, &pie, err, errlen))
        return false;
    if (!o->roi)
        return true;
    if (pie) {
        snprintf(err, errlen, "'%s' is position independent: --roi needs a program linked with -no-pie "
                              "(or -static) so that '%s' has a fixed address", o->program, o->roi);
        return false;
    }
    uint8_t *bytes;
    size_t len;
    uint64_t addr;
    if (!elfsym_function(o->program, o->roi, (enum mdl_isa)o->b.m->isa, &bytes, &len, &addr, err, errlen))
        return false;
    free(bytes);
    ro->roi_lo = addr;
    ro->roi_hi = addr + len;
    ro->roi_name = o->roi;
    return true;
}

static bool plugin_path(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    snprintf(out, len, "%s/libmdlplugin.so", dirname(exe));
    return access(out, R_OK) == 0;
}

/* Starts QEMU with the plugin writing to T; returns its pid or -1. */
static pid_t start_qemu(const struct run_cli *o, const struct transport *t, char *err, size_t errlen)
{
    char plugin[PATH_MAX + 32], popt[PATH_MAX + 96];
    if (!plugin_path(plugin, sizeof plugin)) {
        snprintf(err, errlen, "the QEMU plugin libmdlplugin.so is not next to mdlsim (run make)");
        return -1;
    }
    snprintf(popt, sizeof popt, "%s,", plugin);
    transport_plugin_options(t, popt + strlen(popt), sizeof popt - strlen(popt));
    const char *qemu = o->b.m->isa == MDL_ISA_AARCH64 ? "qemu-aarch64" : "qemu-x86_64";
    size_t n = 0;
    while (o->argv[n])
        n++;
    char **args = calloc(n + 8, sizeof *args);
    size_t k = 0;
    args[k++] = (char *)qemu;
    if (*o->b.m->qemu_cpu) {
        args[k++] = "-cpu";
        args[k++] = (char *)o->b.m->qemu_cpu;
    }
    args[k++] = "-plugin";
    args[k++] = popt;
    for (size_t i = 0; i < n; i++)
        args[k++] = o->argv[i];
    pid_t pid = fork();
    if (pid == 0) {
        execvp(qemu, args);
        fprintf(stderr, "mdlsim: error: cannot run %s: %s (install qemu-user)\n", qemu, strerror(errno));
        _exit(127);
    }
    free(args);
    if (pid < 0)
        snprintf(err, errlen, "cannot start %s: %s", qemu, strerror(errno));
    return pid;
}

/* The files first: a reader of stderr that stops early (| head) must not cost them. */
static int finish_report(struct run *r, const struct run_cli *o)
{
    char err[512];
    bool ok = (!o->json || run_report_json(r, o->json, err, sizeof err)) &&
              (!o->html || run_report_html(r, o->html, err, sizeof err));
    run_report_text(r, stderr);
    if (!ok)
        fprintf(stderr, "mdlsim: error: %s\n", err);
    return ok ? 0 : 1;
}

static int cmd_run(int argc, char **argv)
{
    struct run_cli o;
    int rc = parse_run_opts(argc, argv, &o, false);
    if (rc >= 0)
        return rc;
    char err[1024];
    if (access(o.program, X_OK) != 0) {
        fprintf(stderr, "mdlsim: error: cannot execute '%s': %s\n", o.program, strerror(errno));
        return 1;
    }
    struct session s = { .o = &o.b };
    build_lanes(&s);
    struct run_opts ro = { .m = o.b.m, .lanes = s.lanes, .n_lanes = s.n_lanes, .causality = o.b.causality,
                           .causality_sample = o.sample };
    if (!resolve_roi(&o, &ro, err, sizeof err)) {
        fprintf(stderr, "mdlsim: error: %s\n", err);
        return 1;
    }
    if (o.record && (!(ro.record = fopen(o.record, "wb")) || !run_write_trace_header(ro.record, o.b.m->isa))) {
        fprintf(stderr, "mdlsim: error: cannot write '%s': %s\n", o.record, strerror(errno));
        return 1;
    }
    struct run *r = run_new(&ro, err, sizeof err);
    struct transport t;
    pid_t pid = -1;
    bool opened = r && transport_open(&t, err, sizeof err);
    if (opened) {
        pid = start_qemu(&o, &t, err, sizeof err);
        transport_close_child(&t);
    }
    bool ok = pid > 0 && run_consume(r, &t.src, err, sizeof err);
    if (pid > 0 && !ok)
        kill(pid, SIGKILL);
    if (opened)
        transport_free(&t);
    int status = 0;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    if (ro.record && fclose(ro.record) != 0)
        ok = false;
    if (ok && WIFSIGNALED(status)) {
        snprintf(err, sizeof err, "the guest was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
        ok = false;
    } else if (ok && WIFEXITED(status) && WEXITSTATUS(status) == 127 && run_exit_code(r) < 0) {
        snprintf(err, sizeof err, "QEMU could not run '%s'", o.program);
        ok = false;
    }
    if (!ok) {
        fprintf(stderr, "mdlsim: error: %s\n", err);
        if (o.record)
            unlink(o.record);
        run_free(r);
        return 1;
    }
    rc = finish_report(r, &o);
    run_free(r);
    return rc ? rc : (WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* A regular trace file is read in place; a pipe or a file that cannot be mapped is read. */
struct trace_map {
    void *base;
    size_t len;
};

static bool trace_map(int fd, struct trace_map *m)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size <= 2 * sizeof(uint64_t))
        return false;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return false;
    madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
    *m = (struct trace_map){ p, (size_t)st.st_size };
    return true;
}

static int cmd_replay(int argc, char **argv)
{
    struct run_cli o;
    int rc = parse_run_opts(argc, argv, &o, true);
    if (rc >= 0)
        return rc;
    char err[1024];
    struct session s = { .o = &o.b };
    build_lanes(&s);
    struct run_opts ro = { .m = o.b.m, .lanes = s.lanes, .n_lanes = s.n_lanes, .causality = o.b.causality,
                           .causality_sample = o.sample };
    if (o.program && !resolve_roi(&o, &ro, err, sizeof err)) {
        fprintf(stderr, "mdlsim: error: %s\n", err);
        return 1;
    }
    int fd = open(o.trace, O_RDONLY);
    struct run *r = NULL;
    struct trace_map map = { NULL, 0 };
    bool ok = fd >= 0 && run_read_trace_header(fd, (enum mdl_isa)o.b.m->isa, err, sizeof err) &&
              (r = run_new(&ro, err, sizeof err));
    if (ok) {
        struct run_source src = { .fd = fd, .free_fd = -1, .trace = o.trace };
        if (trace_map(fd, &map)) {
            src.words = (const uint64_t *)map.base + 2;     /* after the header */
            src.n_words = (map.len - 2 * sizeof(uint64_t)) / sizeof(uint64_t);
        }
        ok = run_consume(r, &src, err, sizeof err);
    }
    if (fd < 0)
        snprintf(err, sizeof err, "cannot read '%s': %s", o.trace, strerror(errno));
    if (map.base)
        munmap(map.base, map.len);
    if (fd >= 0)
        close(fd);
    if (!ok) {
        fprintf(stderr, "mdlsim: error: %s\n", err);
        run_free(r);
        return 1;
    }
    rc = finish_report(r, &o);
    run_free(r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "no command");
    if (strcmp(argv[1], "machines") == 0)
        return argc == 2 ? cmd_machines() : usage_error("unexpected argument '%s'", argv[2]);
    if (strcmp(argv[1], "block") == 0)
        return cmd_block(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("%s%s", usage_text, help_text);
        return 0;
    }
    return usage_error("unknown command '%s'", argv[1]);
}
