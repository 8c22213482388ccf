/* libFuzzer harness: a trace file (as 'mdlsim replay' reads it) through the frame checks, the
 * stream's records, decoding, caches, predictor and the model on Skylake, then the JSON view. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "analysis.h"
#include "result.h"
#include "run.h"
#include "trace.h"
#include "view_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct mdl_machine mdl_machine_skylake;

/* The input as a file a path names: the trace reader maps it as it maps a file on disk. */
static int as_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("trace", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
        if (fd >= 0)
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
