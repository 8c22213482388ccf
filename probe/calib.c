/* Calibration: dependent adds (one per cycle on every out-of-order x86-64 core, X-Ray's
 * assumption) give ticks per cycle; a short run of them becomes the reference timed beside every
 * measurement; independent adds must then run several per cycle, or nothing here is a core. */
#include "calib.h"
#include <stdio.h>
#include <string.h>
#include "forms.h"

enum { UNROLL = 128, REF_ADDS = 1 << 14, REF_RUNS = 64 };
#define MAX_SPREAD 0.02         /* the chain's runs must agree this closely */
#define MIN_PARALLEL 0.7        /* independent adds must take less than this many cycles each */
#define MIN_SLOW 2.0            /* IMUL and load chains must take at least this many cycles a link */

static void run_reference(void *ctx)
{
    struct calib *c = ctx;
    c->chain.fn(c->iters, &c->state, NULL);
}

static bool build_chain(struct calib *c, char *why, size_t len)
{
    struct x86_code body = { 0 };
    for (unsigned i = 0; i < UNROLL; i++)
        forms_encode_chain(forms_reference(), &body);
    bool ok = nano_build(&c->chain, &body, UNROLL, 0, why, len);
    x86_free(&body);
    return ok;
}

/* The TSC's ticks per cycle, and the reference run beside every timing: a short add chain whose
 * own cycles (call and loop included) are its fastest of several runs. */
static void scale_tsc(struct calib *c, struct timer *t)
{
    t->ticks_per_cycle = c->add.min;
    c->iters = REF_ADDS / UNROLL;
    uint64_t best = UINT64_MAX;
    for (unsigned r = 0; r < REF_RUNS; r++) {
        uint64_t t0 = timer_read(t);
        run_reference(c);
        uint64_t ticks = timer_read(t) - t0;
        best = ticks < best ? ticks : best;
    }
    t->ref_run = run_reference, t->ref_ctx = c, t->ref_cycles = timer_cycles(t, best);
}

/* Whether the timings are a core's: independent adds overlap, imuls and loads take longer. An
 * emulator is refused before this, by CPUID (emulator.h): here a miss means the host is too busy. */
static enum calib_status core_like(struct calib *c, const struct timer *t, char *why, size_t len)
{
    if (!forms_throughput(t, forms_reference(), &c->parallel, why, len))
        return CALIB_ERROR;
    if (c->parallel.min > MIN_PARALLEL) {
        snprintf(why, len, "independent adds take %.2f cycles each, as long as dependent ones: no instruction-level "
                 "parallelism: timing too noisy (a loaded host?)",
                 c->parallel.min);
        return CALIB_SERIAL;
    }
    if (!forms_latency(t, forms_find("IMUL (R64, R64)"), &c->imul, why, len) ||
        !forms_latency(t, forms_find("MOV (R64, M64)"), &c->load, why, len))
        return CALIB_ERROR;
    if (c->imul.min < MIN_SLOW || c->load.min < MIN_SLOW) {
        snprintf(why, len, "a chain of imuls takes %.2f cycles per imul and a chain of loads %.2f per load, where "
                 "every x86-64 core takes 3 or more: timing too noisy (a loaded host?)",
                 c->imul.min, c->load.min);
        return CALIB_SERIAL;
    }
    return CALIB_OK;
}

enum calib_status calib_run(struct calib *c, struct timer *t, char *why, size_t len)
{
    memset(c, 0, sizeof *c);
    nano_state_ones(&c->state, true);
    if (!build_chain(c, why, len))
        return CALIB_ERROR;
    c->add = nano_time(t, &c->chain, &c->state, NULL, 0);
    if (c->add.spread > MAX_SPREAD) {
        snprintf(why, len, "timing is too noisy: runs of a dependent add chain differ by %.1f%%", 100 * c->add.spread);
        return CALIB_NOISY;
    }
    if (t->kind == TIMER_TSC)
        scale_tsc(c, t);
    return core_like(c, t, why, len);
}

void calib_free(struct calib *c) { nano_free(&c->chain); }
