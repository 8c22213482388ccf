/* mdlprobe: measures the x86-64 core it runs on with generated nano-benchmarks (X-Ray, seed paper
 * 002) and drafts its machine description, extending a bundled one. */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base.h"
#include "calib.h"
#include "chase.h"
#include "core.h"
#include "draft.h"
#include "emulator.h"
#include "forms.h"
#include "output.h"
#include "rawjson.h"
#include "safefile.h"
#include "sysfs.h"
#include "version.h"
#include "xray.h"

enum { EXIT_USAGE = 2, EXIT_CANNOT_MEASURE = 3, MAX_DIRS = 16 };
#define ARENA ((size_t)128 << 20)   /* the memory benchmarks' buffer: 4x the largest L3 share measured */
#define MAX_SPREAD 0.05             /* a form's timing whose runs spread more is not used */

static const char usage[] =
    "usage: mdlprobe -o DRAFT.mdl [--base NAME|PATH.mdl] [-I DIR]... [--json RAW.json] [--quiet]\n"
    "       mdlprobe --list-forms\n";

static const char help[] =
    "Measures the x86-64 core mdlprobe runs on with nano-benchmarks generated at run time (X-Ray's\n"
    "method: dependent chains for latency, independent streams for throughput, pointer chases for the\n"
    "caches; Henry Wong's for the reorder buffer) and drafts its description: a machine 'host' that\n"
    "extends a bundled one and overrides what was measured (@probe) and the cache geometry the kernel\n"
    "gives where it could not be measured (@sysfs), every value with its source. The 'draft:' lines\n"
    "at the end on stderr are the values written, as the draft has them.\n"
    "\n"
    "  -o FILE          the draft description (written whole or not at all)\n"
    "  --base NAME      the machine the draft extends (default skylake): NAME.mdl in the -I\n"
    "                   directories, or a path to any description (with a '/' or ending in .mdl)\n"
    "  -I DIR           where --base NAME is looked for (repeatable; default: machines/ beside\n"
    "                   mdlprobe's build directory, then ./machines)\n"
    "  --json FILE      every measurement with its statistics, reliable or not, and the curves\n"
    "  --quiet          no progress on stderr\n"
    "  --list-forms     print the instruction forms measured (key, then the bytes timed) and exit\n"
    "  -h, --help       show this help\n"
    "  --version        print mdlprobe's version (and the commit built) and exit\n"
    "\n"
    "The draft extends the base by name (extends skylake) or by file name (extends \"x.mdl\"); compile\n"
    "it with the base's directory as -I: build/mdlc -I machines draft.mdl. Its first lines say so.\n"
    "\n"
    "Exit status: 0 success, 1 failure (base not found, an output not writable), 2 usage error,\n"
    "3 this host cannot be measured: not x86-64 (AArch64), an emulator (QEMU, known by CPUID's\n"
    "hypervisor signature; a VM such as KVM is measured), or timing too noisy (a loaded host).\n";

struct opts {
    const char *out, *json, *base;
    const char *dirs[MAX_DIRS];
    size_t n_dirs;
    bool quiet, list_forms;
};

static int usage_error(const char *fmt, const char *arg)
{
    fputs("mdlprobe: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fputs(usage, stderr);
    return EXIT_USAGE;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct opts *o)
{
    enum { OPT_BASE = 256, OPT_JSON, OPT_QUIET, OPT_LIST, OPT_VERSION };
    static const struct option longopts[] = {
        { "base", required_argument, NULL, OPT_BASE }, { "json", required_argument, NULL, OPT_JSON },
        { "quiet", no_argument, NULL, OPT_QUIET }, { "list-forms", no_argument, NULL, OPT_LIST },
        { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, OPT_VERSION }, { NULL, 0, NULL, 0 },
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:I:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'I':
            if (o->n_dirs == MAX_DIRS)
                return usage_error("more than %s -I directories", "16");
            o->dirs[o->n_dirs++] = optarg;
            break;
        case OPT_BASE: o->base = optarg; break;
        case OPT_JSON: o->json = optarg; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_LIST: o->list_forms = true; break;
        case 'h': fputs(usage, stdout); fputs(help, stdout); return 0;
        case OPT_VERSION: printf(MDL_VERSION_LINE("mdlprobe")); return 0;
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->out && !o->list_forms)
        return usage_error("%s", "no draft to write: give -o FILE");
    return -1;
}

/* machines/ beside the build directory mdlprobe is in (build/mdlprobe -> ./machines). */
static void default_dirs(struct opts *o, char *exe_dir, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0 && o->n_dirs < MAX_DIRS) {
        self[n] = 0;
        snprintf(exe_dir, len, "%s/../machines", dirname(self));
        o->dirs[o->n_dirs++] = exe_dir;
    }
    if (o->n_dirs < MAX_DIRS)
        o->dirs[o->n_dirs++] = "machines";
}

static int list_forms(void)
{
    for (size_t i = 0; i < forms_count(); i++) {
        struct x86_code c = { 0 };
        forms_encode_chain(forms_get(i), &c);
        printf("%s\t", forms_key(forms_get(i)));
        for (size_t k = 0; k < c.n; k++)
            printf("%02x", c.b[k]);
        printf("\n");
        x86_free(&c);
    }
    return 0;
}

/* ---- measuring --------------------------------------------------------------------------------- */

/* Says MSG (an error, or why the host cannot be measured) and returns STATUS. */
static int stop(int status, const char *msg)
{
    fprintf(stderr, "mdlprobe: %s%s\n", status == EXIT_CANNOT_MEASURE ? "cannot measure: " : "error: ", msg);
    return status;
}

struct probe {
    const struct opts *o;
    FILE *progress;             /* NULL with --quiet */
    struct timer timer;
    struct calib calib;
    struct chase chase;
    struct findings f;
    struct base *base;
    char err[512];
};

static void say(struct probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct probe *p, const char *fmt, ...)
{
    if (!p->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("mdlprobe: ", p->progress);
    vfprintf(p->progress, fmt, ap);
    fputc('\n', p->progress);
    va_end(ap);
}

static void form_finding(struct probe *p, const struct forms_entry *fe, const char *key, const struct nano_stat *st)
{
    struct finding *x = findings_add(&p->f, FB_FORM, 0, key, forms_key(fe));
    if (!x)
        return;
    bool lat = strcmp(key, "latency") == 0;
    x->stat = *st;
    x->raw = st->min;
    x->value = lat ? findings_round_cycles(st->min) : round(st->min * 100) / 100;
    if (lat)
        snprintf(x->method, sizeof x->method, "a chain of %s", forms_asm(fe));
    else
        snprintf(x->method, sizeof x->method, "%s on independent registers", forms_asm(fe));
    if (st->spread > MAX_SPREAD)
        findings_reject(x, "runs spread %.1f%%", 100 * st->spread);
}

static bool measure_forms(struct probe *p, bool second)
{
    for (size_t i = 0; i < forms_count(); i++) {
        const struct forms_entry *fe = forms_get(i);
        struct nano_stat lat, tp;
        if (!forms_supported(fe))
            continue;
        if (!forms_latency(&p->timer, fe, &lat, p->err, sizeof p->err) ||
            !forms_throughput(&p->timer, fe, &tp, p->err, sizeof p->err))
            return false;
        form_finding(p, fe, "latency", &lat);
        form_finding(p, fe, "tp", &tp);
        say(p, "forms, pass %d: %-28s latency %6.2f  tp %5.2f", second ? 2 : 1, forms_key(fe), lat.min, tp.min);
    }
    return true;
}

/* What the kernel says beside each measured cache value. */
static void compare_sysfs(struct probe *p, const struct sysfs_cache *sc, size_t n)
{
    for (size_t i = 0; i < p->f.n; i++) {
        struct finding *x = &p->f.v[i];
        const struct sysfs_cache *k = x->block == FB_CACHE ? sysfs_data_level(sc, n, x->level) : NULL;
        if (k)
            x->sysfs = (double)(!strcmp(x->key, "size") ? k->size : !strcmp(x->key, "ways") ? k->ways
                                : !strcmp(x->key, "line") ? k->line : 0);
    }
}

static void say_pipeline(struct probe *p)
{
    static const struct { enum findings_block b; const char *key, *what; } shown[] = {
        { FB_FRONTEND, "issue_width", "issue width" }, { FB_BRANCH, "mispredict_penalty", "mispredict penalty" },
        { FB_WINDOW, "rob", "reorder buffer" },
    };
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        const struct finding *x = findings_get(&p->f, shown[i].b, 0, shown[i].key, NULL);
        if (x)
            say(p, "core: %s %.4g%s%s", shown[i].what, x->raw, x->reliable ? "" : ", not used: ",
                x->reliable ? "" : x->note);
    }
}

/* The forms and the pipeline: throughput timings, which a busy sibling thread of the same core
 * slows down; measured twice, at the start and at the end, the faster pass kept. */
static bool measure_core(struct probe *p, bool second)
{
    if (second)
        say(p, "forms and core: second pass");
    return measure_forms(p, second) && core_issue_width(&p->timer, &p->f, p->err, sizeof p->err) &&
           core_mispredict(&p->timer, &p->f, p->err, sizeof p->err);
}

/* L1's latency is X-Ray's sequence of one address: the load chain MOV (R64, M64) timed among
 * the forms, twice; the faster of those and the caches' own run stands for both. */
static void same_l1_latency(struct probe *p)
{
    struct finding *load = findings_edit(&p->f, FB_FORM, 0, "latency", "MOV (R64, M64)");
    struct finding *l1 = findings_edit(&p->f, FB_CACHE, 1, "latency", NULL);
    if (!load || !l1)
        return;
    struct finding *fast = load->stat.min < l1->stat.min ? load : l1, *slow = fast == l1 ? load : l1;
    slow->stat = fast->stat, slow->raw = fast->raw, slow->value = fast->value, slow->reliable = fast->reliable;
    snprintf(slow->note, sizeof slow->note, "%s", fast->note);
}

/* Returns 0, or the exit status of a failure (reported). */
static int measure(struct probe *p)
{
    char clock[320];
    if (emulator_detect(p->err, sizeof p->err))
        return stop(EXIT_CANNOT_MEASURE, p->err);
    say(p, "host: %s", p->err);
    if (!timer_open(&p->timer, p->err, sizeof p->err))
        return stop(EXIT_CANNOT_MEASURE, p->err);
    enum calib_status cs = calib_run(&p->calib, &p->timer, p->err, sizeof p->err);
    if (cs != CALIB_OK)
        return stop(cs == CALIB_ERROR ? 1 : EXIT_CANNOT_MEASURE, p->err);
    timer_describe(&p->timer, clock, sizeof clock);
    say(p, "clock: %s", clock);
    if (!measure_core(p, false) || !chase_open(&p->chase, &p->timer, ARENA, p->err, sizeof p->err))
        return stop(1, p->err);
    say(p, "caches: %zu MiB buffer, %s", ARENA >> 20, p->chase.huge ? "huge pages" : "no huge pages (4 KiB)");
    if (!xray_run(&p->chase, &p->f, p->progress) || !core_rob(&p->chase, &p->f, p->err, sizeof p->err))
        return stop(1, p->err[0] ? p->err : "out of memory");
    if (!measure_core(p, true))
        return stop(1, p->err);
    findings_keep_best(&p->f);
    same_l1_latency(p);
    say_pipeline(p);
    return p->f.oom ? stop(1, "out of memory") : 0;
}

/* ---- writing ----------------------------------------------------------------------------------- */

/* What the draft holds, one value a line as it has it: the passes' timings above are measurements,
 * some refined or not used, this is what was written. */
static void say_summary(struct probe *p, const char *summary)
{
    for (const char *line = summary; line && *line;) {
        size_t n = strcspn(line, "\n");
        say(p, "draft: %.*s", (int)n, line);
        line += n + (line[n] != 0);
    }
}

/* Both outputs are built in memory, staged, then renamed into place together: a failure leaves
 * neither written nor replaced. */
static int write_outputs(struct probe *p, struct draft_info *di, const struct rawjson_info *ri)
{
    struct output d = { 0 }, j = { 0 };
    char *summary = NULL;
    size_t summary_len = 0;
    di->summary = open_memstream(&summary, &summary_len);
    bool ok = di->summary && output_open(&d) && output_open(&j);
    size_t values = ok ? draft_write(d.fp, &p->f, p->base, di) : 0;
    if (di->summary)
        ok = fclose(di->summary) == 0 && ok;
    di->summary = NULL;
    ok = ok && (!p->o->json || rawjson_write(j.fp, &p->f, ri));
    char err[512] = "out of memory";
    ok = ok && output_stage(&d, p->o->out, err, sizeof err) &&
         (!p->o->json || output_stage(&j, p->o->json, err, sizeof err)) && output_publish(&d, err, sizeof err) &&
         (!p->o->json || output_publish(&j, err, sizeof err));
    output_discard(&d);
    output_discard(&j);
    if (ok)
        say_summary(p, summary);
    free(summary);
    if (!ok)
        return stop(1, err);
    say(p, "wrote %s: %zu values%s%s", p->o->out, values, p->o->json ? ", every measurement in " : "",
        p->o->json ? p->o->json : "");
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One processor for the whole run: a migration would change caches and clocks under a timing. */
static void stay_on_this_cpu(void)
{
    int cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0) {
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
}

static int report(struct probe *p, double start)
{
    char cpu[200], date[16], clock[320];
    struct sysfs_cache sc[SYSFS_MAX_CACHES];
    size_t n = sysfs_caches(sc, SYSFS_MAX_CACHES);
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&t));
    sysfs_cpu_name(cpu, sizeof cpu);
    timer_describe(&p->timer, clock, sizeof clock);
    compare_sysfs(p, sc, n);
    struct draft_info di = { "host", cpu, date, clock, sc, n, NULL };
    struct rawjson_info ri = { cpu, date, clock, base_extends(p->base), base_dir(p->base), &p->timer, &p->calib,
                               sc, n, p->chase.huge, now() - start };
    int rc = write_outputs(p, &di, &ri);
    say(p, "done in %.0f s", now() - start);
    return rc;
}

static int run(const struct opts *o)
{
    double start = now();
    char err[512];
    if (!safefile_check(o->out, err, sizeof err) || (o->json && !safefile_check(o->json, err, sizeof err)))
        return stop(1, err);    /* now, not after the measurements */
    struct probe p = { .o = o, .progress = o->quiet ? NULL : stderr };
    p.base = base_load(o->base, o->dirs, o->n_dirs, err, sizeof err);
    if (!p.base)
        return stop(1, err);
    stay_on_this_cpu();
    int rc = measure(&p);
    if (!rc)
        rc = report(&p, start);
    chase_close(&p.chase);
    calib_free(&p.calib);
    timer_close(&p.timer);
    findings_free(&p.f);
    base_free(p.base);
    return rc;
}

static int probe(int argc, char **argv)
{
    struct opts o = { .base = "skylake" };
    char exe_dir[PATH_MAX + 16];
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.list_forms)
        return list_forms();
#if !defined(__x86_64__)
    return stop(EXIT_CANNOT_MEASURE, "this host is not x86-64; mdlprobe generates and times x86-64 code");
#endif
    default_dirs(&o, exe_dir, sizeof exe_dir);
    return run(&o);
}

/* A result that could not be written whole (--list-forms into a full disk) is a failure. */
int main(int argc, char **argv)
{
    int rc = probe(argc, argv);
    char err[256];
    if (!safefile_stdout(err, sizeof err))
        rc = rc ? rc : stop(1, err);
    return rc;
}
