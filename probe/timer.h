/* The clock: the core's cycle counter through perf_event_open where the kernel offers it, else the
 * time-stamp counter, scaled to core cycles by the calibration (calib.h). */
#ifndef PROBE_TIMER_H
#define PROBE_TIMER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum timer_kind { TIMER_PERF_CYCLES, TIMER_TSC };

struct timer {
    enum timer_kind kind;
    int fd;                     /* the perf event, -1 for the TSC */
    double ticks_per_cycle;     /* 1 for perf cycles; the calibration's for the TSC (1 until then) */
    char why_not_perf[160];     /* why perf was not used, for the report */
    /* Paired timing (TSC only): a workload of ref_cycles core cycles, run beside each timed run so
     * that a change of the core's clock during the probe cancels out. Set by the calibration. */
    void (*ref_run)(void *ctx);
    void *ref_ctx;
    double ref_cycles;
};

/* Opens the best clock of this host. False with ERR when there is none (not an x86-64 host). */
bool timer_open(struct timer *t, char *err, size_t errlen);
void timer_close(struct timer *t);
/* The clock's raw count now (serialised against the instructions around it). */
uint64_t timer_read(const struct timer *t);
/* Ticks as core cycles. */
double timer_cycles(const struct timer *t, uint64_t ticks);
/* Ticks of one run of the reference workload; 0 when the clock has none (perf counts cycles). */
uint64_t timer_reference(const struct timer *t);
/* One line naming the clock, e.g. "RDTSC, 2.10 ticks per cycle (dependent add chain); perf: ...". */
void timer_describe(const struct timer *t, char *out, size_t len);
/* The short name of the clock in the JSON: "perf-cycles" or "tsc". */
const char *timer_name(const struct timer *t);

#endif
