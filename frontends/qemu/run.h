/* Analysis of a dynamic instruction stream (from the QEMU plugin or a recorded trace): static
 * instructions decoded once, caches and branch prediction computed once per event, the model
 * advanced in every lane, restricted to a region of interest. */
#ifndef RUN_H
#define RUN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "mdl_machine.h"
#include "model.h"
#include "pace.h"
#include "sample.h"
#include "symbols.h"
#include "trace.h"

/* How far the stream has come: EXECUTED instructions read, MODELLED of them in the region. */
typedef void run_progress_fn(void *ctx, uint64_t executed, uint64_t modelled);
enum { RUN_PROGRESS_MS = 250 };
enum { RUN_PACE_UNIT = 1024 };

struct run_opts {
    const struct mdl_machine *m;
    const char *const *roi;         /* the regions' function names (every function of that name in the
                                       program and the libraries it maps); none: the whole run */
    unsigned n_roi;
    const char *roi_label;          /* the names, as the report shows them */
    const struct rt_lane_cfg *lanes;
    unsigned n_lanes;
    bool causality;
    unsigned causality_sample;      /* causality on one period in this many (1: always) */
    const struct sample_plan *sample;   /* which instructions of the region are modelled; NULL: all */
    struct trace_writer *record;    /* where the stream is recorded, or NULL */
    bool one_thread;                /* the model steps on the reader's thread (passes side by side) */
    unsigned cores;                 /* the cores of a comparison, modelled at once (0: this one alone) */
    struct pace *pace;              /* replays of one trace on several cores kept in step (told
                                       how far the model is, in RUN_PACE_UNIT words), or NULL */
    unsigned pace_core;             /* this run's core there */
    struct symbols_lines *lines;    /* source lines shared with the other cores, or NULL */
    /* Told between buffers of the stream, never per event: at most every RUN_PROGRESS_MS, and
     * at once when the first instructions have been read (the program has started). */
    run_progress_fn *progress;
    void *progress_ctx;
};

enum { RUN_MAX_ROI = 16 };
/* Static instructions (and blocks) one run may have: far beyond any program's code (a browser has
 * some tens of millions of bytes of it), and a bound on what a forged id can make mdlsim allocate. */
#define RUN_MAX_STATIC (1u << 26)
struct run;

struct run *run_new(const struct run_opts *o, char *err, size_t errlen);
void run_free(struct run *r);
/* Where the stream comes from: FD alone (a pipe, a trace file); with SHM, the plugin's
 * shared-memory transport (wire.h): FD carries the tokens of the CHUNKS chunks at SHM, and each
 * is given back on FREE_FD, a socket, once read; with WORDS, memory holding the whole stream
 * (a mapped trace file). */
struct run_source {
    int fd;
    const uint64_t *shm;
    size_t chunks;
    int free_fd;
    struct trace_reader *trace;     /* a trace file, opened; NULL for a live stream */
};

/* Consumes the stream until its exit record or its end. False with ERR when the stream is
 * malformed, cannot be decoded, or the guest started a second thread, and for a trace file,
 * when it is truncated or corrupt (ERR names the byte). */
bool run_consume(struct run *r, const struct run_source *src, char *err, size_t errlen);
/* The machine the run models. */
const struct mdl_machine *run_machine(const struct run *r);
/* The first region whose function no mapped object had, or NULL. */
const char *run_missing_roi(const struct run *r);
/* The function name closest to NAME (did-you-mean) among those of every object mapped so far, in
 * OUT; false when none is close. */
bool run_closest_function(struct run *r, const char *name, char *out, size_t outlen);
/* The guest's exit code, or -1 if the stream ended without one. */
int run_exit_code(const struct run *r);
/* The instructions the stream has shown executing (0: the program never started). */
uint64_t run_executed(const struct run *r);
/* The path of the program the guest replaced itself with (an execve that succeeded: the stream
 * ends at the call, and the new program runs outside QEMU's plugin); "" when the plugin could not
 * read it; NULL when the run did not end that way. */
const char *run_replaced_by(const struct run *r);

/* The run as the views' result: counts, the lanes' cycles, one row per executed address, caches
 * and branches; TD: the baseline's issue slots. RES must have been given the lanes (analysis_start); analysis_finish comes after.
 * R must outlive RES's use. */
struct result;
void run_fill(const struct run *r, struct result *res, struct rt_topdown *td);

#endif
