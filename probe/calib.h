/* The clock's calibration (X-Ray's frequency benchmark: dependent single-cycle adds define the
 * cycle), and the verdict on a host that cannot be measured. */
#ifndef PROBE_CALIB_H
#define PROBE_CALIB_H
#include <stddef.h>
#include "nano.h"

/* A host cannot be measured when the add chain's timing is not stable, or when the timings are not
 * a core's: independent adds no faster than dependent ones, or multiplies and loads as fast as adds
 * (no x86-64 core has an IMUL or a load latency below 3 cycles). An emulator times like that, but
 * is refused before by what CPUID says (emulator.h); here it means a host too loaded to measure. */
struct calib {
    struct nano_kernel chain;   /* the reference: a dependent add chain */
    struct nano_state state;
    uint64_t iters;             /* per reference run */
    struct nano_stat add;       /* clock ticks per dependent add */
    struct nano_stat parallel;  /* cycles per add when independent */
    struct nano_stat imul, load; /* cycles per link of an IMUL chain and of a load chain */
};

enum calib_status { CALIB_OK, CALIB_NOISY, CALIB_SERIAL, CALIB_ERROR };

/* Calibrates T (ticks per cycle, and with the TSC the reference run beside every timing, owned by
 * C: C must outlive T's use). WHY says what went wrong when the status is not CALIB_OK. */
enum calib_status calib_run(struct calib *c, struct timer *t, char *why, size_t len);
void calib_free(struct calib *c);

#endif
