/* libFuzzer harness: a trace file (as 'mdlsim replay' reads it) through the frame checks, the
 * stream's records, decoding, caches, predictor and the model on Skylake, then the JSON view. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "analysis.h"
#include "result.h"
#include "run.h"
#include "trace.h"
#include "view_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct mdl_machine mdl_machine_skylake;

/* The input as a file a path names: the trace reader maps it as it maps a file on disk. An
 * odd first byte makes the rest the events of a trace written whole (checksums right, so that
 * mutations reach the stream's records); an even one (a trace's own 'D'), the file itself (the
 * frames' checks). */
static int as_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("trace", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    bool ok;
    if (size && data[0] % 2 == 1) {
        FILE *fp = fdopen(dup(fd), "wb");
        struct trace_writer w;
        char err[256];
        size_t n = (size - 1) / 8;
        uint64_t *words = calloc(n + 1, sizeof *words);
        memcpy(words, data + 1, n * 8);
        ok = fp && words && trace_write_start(&w, fp, MDL_ISA_X86_64, "/dev/null", err, sizeof err) &&
             trace_write_events(&w, words, n) && trace_write_end(&w, data[0] & 2 ? 11 : 0);
        free(words);
        ok = fp && fclose(fp) == 0 && ok;
    } else {
        ok = write(fd, data, size) == (ssize_t)size;
    }
    if (!ok) {
        close(fd);
        return -1;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

static void analyse(struct run *r, const struct analysis_plan *plan)
{
    static struct result res;
    struct rt_topdown td;
    result_reset(&res, &mdl_machine_skylake);
    res.command = "replay";
    analysis_start(&res, plan);
    run_fill(r, &res, &td);
    analysis_finish(&res, &td);
    FILE *sink = fopen("/dev/null", "w");
    view_json(sink, &res);
    fclose(sink);
    result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct analysis_plan plan;
    static bool planned;
    char err[1024], path[64];
    double w = 1.15;
    if (size > 1 << 20)
        return 0;
    if (!planned)
        planned = analysis_plan_init(&plan, &mdl_machine_skylake, &w, 1, false, err, sizeof err);
    int fd = as_file(data, size, path, sizeof path);
    struct trace_reader t;
    if (fd < 0 || !trace_open(&t, path, err, sizeof err)) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    static const char *roi[] = { "main" };
    struct run_opts ro = { .m = &mdl_machine_skylake, .lanes = plan.lanes, .n_lanes = plan.n_lanes,
                           .causality = true, .causality_sample = 1, .roi = roi, .n_roi = size % 2 };
    struct run *r = run_new(&ro, err, sizeof err);
    struct run_source src = { .fd = -1, .free_fd = -1, .trace = &t };
    if (r && run_consume(r, &src, err, sizeof err))
        analyse(r, &plan);
    run_free(r);
    trace_close(&t);
    close(fd);
    return 0;
}
