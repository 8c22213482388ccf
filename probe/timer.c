/* Cycle clock: perf_event_open(PERF_COUNT_HW_CPU_CYCLES) counted in user mode, or RDTSC scaled by
 * a calibration (a VM without a virtual PMU has no cycle event; the TSC runs at a fixed rate). */
#include "timer.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static int perf_open_cycles(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.exclude_kernel = 1;       /* the kernel's time (interrupts) is not the kernel under test's */
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t perf_count(int fd)
{
    uint64_t v = 0;
    return read(fd, &v, sizeof v) == (ssize_t)sizeof v ? v : 0;
}

/* Whether the event counts: some hypervisors accept the event and never advance it. */
static bool perf_counts(int fd)
{
    uint64_t a = perf_count(fd);
    volatile uint64_t sink = 0;
    for (unsigned i = 0; i < 1000000; i++)
        sink += i;
    return perf_count(fd) - a > 100000;
}

static bool try_perf(struct timer *t)
{
    int fd = perf_open_cycles();
    if (fd < 0) {
        snprintf(t->why_not_perf, sizeof t->why_not_perf, "perf_event_open(cycles): %s", strerror(errno));
        return false;
    }
    if (!perf_counts(fd)) {
        snprintf(t->why_not_perf, sizeof t->why_not_perf, "perf cycle event opened but does not count");
        close(fd);
        return false;
    }
    t->fd = fd;
    t->kind = TIMER_PERF_CYCLES;
    return true;
}

bool timer_open(struct timer *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    t->ticks_per_cycle = 1;
#if defined(__x86_64__)
    (void)err, (void)errlen;
    if (!try_perf(t))
        t->kind = TIMER_TSC;
    return true;
#else
    (void)try_perf;
    snprintf(err, errlen, "no x86-64 time-stamp counter on this host");
    return false;
#endif
}

void timer_close(struct timer *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}

static uint64_t tsc(void)
{
#if defined(__x86_64__)
    _mm_lfence();               /* no earlier instruction (load) still in flight when the count is taken */
    uint64_t v = __rdtsc();
    _mm_lfence();               /* and no later one started before */
    return v;
#else
    return 0;
#endif
}

uint64_t timer_read(const struct timer *t)
{
    return t->kind == TIMER_PERF_CYCLES ? perf_count(t->fd) : tsc();
}

double timer_cycles(const struct timer *t, uint64_t ticks) { return (double)ticks / t->ticks_per_cycle; }

uint64_t timer_reference(const struct timer *t)
{
    if (t->kind != TIMER_TSC || !t->ref_run)
        return 0;
    uint64_t t0 = timer_read(t);
    t->ref_run(t->ref_ctx);
    return timer_read(t) - t0;
}

const char *timer_name(const struct timer *t) { return t->kind == TIMER_PERF_CYCLES ? "perf-cycles" : "tsc"; }

void timer_describe(const struct timer *t, char *out, size_t len)
{
    if (t->kind == TIMER_PERF_CYCLES)
        snprintf(out, len, "core cycles (perf_event_open, user mode)");
    else
        snprintf(out, len, "RDTSC at %.3f ticks per core cycle, calibrated by a dependent add chain (%s)",
                 t->ticks_per_cycle, t->why_not_perf);
}
