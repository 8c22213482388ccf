/* Generated kernels and their timing: prologue, the unrolled body in a counted loop, epilogue;
 * each timing the minimum of several runs, with the median beside it to tell a disturbed one. */
#include "nano.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const uint8_t nano_stream_gpr[NANO_STREAMS] = {
    X86_RAX, X86_RBX, X86_RBP, X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15,
};

/* The callee-saved registers the streams use (System V ABI). */
static const uint8_t saved_gpr[] = { X86_RBX, X86_RBP, X86_R12, X86_R13, X86_R14, X86_R15 };
enum { RUNS = 7, SETS = 3, TARGET_TICKS = 1 << 18 };
#define SPREAD_RETRY 0.02       /* a set of runs spread more than this is run again */

static void prologue(struct x86_code *c)
{
    for (size_t i = 0; i < sizeof saved_gpr; i++)
        x86_push(c, saved_gpr[i]);
    for (unsigned i = 0; i < NANO_STREAMS; i++)
        x86_mov_load(c, nano_stream_gpr[i], NANO_STATE_GPR, (int32_t)(8 * i));
    x86_mov_load(c, NANO_CONST_GPR, NANO_STATE_GPR, 8 * NANO_STREAMS);
    for (unsigned x = 0; x < 16; x++)
        x86_movups_load(c, x, NANO_STATE_GPR, (int32_t)(offsetof(struct nano_state, xmm) + 16 * x));
}

static void epilogue(struct x86_code *c, unsigned flags)
{
    for (unsigned i = 0; i < NANO_STREAMS; i++)
        x86_mov_store(c, NANO_STATE_GPR, (int32_t)(8 * i), nano_stream_gpr[i]);
    if (flags & NANO_AVX) {
        static const uint8_t vzeroupper[3] = { 0xC5, 0xF8, 0x77 };  /* no AVX-SSE transition after */
        x86_bytes(c, vzeroupper, sizeof vzeroupper);
    }
    for (size_t i = sizeof saved_gpr; i-- > 0;)
        x86_pop(c, saved_gpr[i]);
    x86_u8(c, 0xC3);
}

/* Copies CODE into fresh pages, then makes them executable and no longer writable. */
static bool make_executable(struct nano_kernel *k, const struct x86_code *code, char *err, size_t errlen)
{
    k->len = (code->n + 4095) & ~(size_t)4095;
    k->mem = mmap(NULL, k->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (k->mem == MAP_FAILED) {
        k->mem = NULL;
        snprintf(err, errlen, "cannot map memory for generated code: %s", strerror(errno));
        return false;
    }
    memcpy(k->mem, code->b, code->n);
    if (mprotect(k->mem, k->len, PROT_READ | PROT_EXEC) != 0) {
        snprintf(err, errlen, "cannot make generated code executable: %s", strerror(errno));
        nano_free(k);
        return false;
    }
    /* An object pointer to a function pointer: how any JIT calls its code on POSIX systems. */
    memcpy(&k->fn, &k->mem, sizeof k->fn);
    return true;
}

bool nano_build(struct nano_kernel *k, const struct x86_code *body, unsigned units, unsigned flags, char *err,
                size_t errlen)
{
    memset(k, 0, sizeof *k);
    k->units = units;
    struct x86_code c = { 0 };
    prologue(&c);
    x86_align(&c, 64);
    size_t top = c.n;
    x86_bytes(&c, body->b, body->n);
    x86_loop_back(&c, top);
    epilogue(&c, flags);
    bool ok = !c.oom && !body->oom;
    if (!ok)
        snprintf(err, errlen, "out of memory generating code");
    ok = ok && make_executable(k, &c, err, errlen);
    x86_free(&c);
    return ok;
}

void nano_free(struct nano_kernel *k)
{
    if (k->mem)
        munmap(k->mem, k->len);
    memset(k, 0, sizeof *k);
}

static uint64_t run_ticks(const struct timer *t, const struct nano_kernel *k, struct nano_state *s, void *aux,
                          uint64_t iters)
{
    uint64_t t0 = timer_read(t);
    k->fn(iters, s, aux);
    uint64_t t1 = timer_read(t);
    return t1 - t0;
}

/* A run in cycles: against the reference workload timed just before and after (the faster of the
 * two: an interrupt may slow one), so that the clock's rate at that moment is the one used. */
static double run_cycles(const struct timer *t, const struct nano_kernel *k, struct nano_state *s, void *aux,
                         uint64_t iters)
{
    uint64_t r0 = timer_reference(t), ticks = run_ticks(t, k, s, aux, iters), r1 = timer_reference(t);
    uint64_t r = r0 < r1 ? r0 : r1;
    return r ? (double)ticks * t->ref_cycles / (double)r : timer_cycles(t, ticks);
}

/* Doubles the iterations until one run lasts TARGET_TICKS (X-Ray's timing loop). */
static uint64_t calibrate_iters(const struct timer *t, const struct nano_kernel *k, struct nano_state *s, void *aux)
{
    uint64_t iters = 1;
    while (iters < (1ull << 40) && run_ticks(t, k, s, aux, iters) < TARGET_TICKS)
        iters *= 2;
    return iters;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static struct nano_stat one_set(const struct timer *t, const struct nano_kernel *k, struct nano_state *s, void *aux,
                                uint64_t iters)
{
    double v[RUNS];
    for (unsigned r = 0; r < RUNS; r++) {
        if (k->warm_iters)
            k->fn(k->warm_iters, s, aux);
        v[r] = run_cycles(t, k, s, aux, iters) / ((double)iters * k->units);
    }
    qsort(v, RUNS, sizeof v[0], cmp_double);
    struct nano_stat st = { v[0], v[RUNS / 2], v[0] > 0 ? v[RUNS / 2] / v[0] - 1 : 1, RUNS };
    return st;
}

struct nano_stat nano_time(const struct timer *t, const struct nano_kernel *k, struct nano_state *s, void *aux,
                           uint64_t iters)
{
    if (!iters)
        iters = calibrate_iters(t, k, s, aux);
    run_ticks(t, k, s, aux, iters);             /* warm: code, data and predictors */
    struct nano_stat best = one_set(t, k, s, aux, iters);
    for (unsigned set = 1; set < SETS && best.spread > SPREAD_RETRY; set++) {
        struct nano_stat st = one_set(t, k, s, aux, iters);
        if (st.spread < best.spread)
            best = st;
    }
    return best;
}

bool nano_measure(const struct timer *t, const struct x86_code *body, unsigned units, unsigned flags,
                  struct nano_state *s, void *aux, uint64_t iters, struct nano_stat *out, char *err, size_t errlen)
{
    struct nano_kernel k;
    if (!nano_build(&k, body, units, flags, err, errlen))
        return false;
    *out = nano_time(t, &k, s, aux, iters);
    nano_free(&k);
    return true;
}

void nano_state_ones(struct nano_state *s, bool doubles)
{
    memset(s, 0, sizeof *s);
    for (unsigned i = 0; i <= NANO_STREAMS; i++)
        s->gpr[i] = 1;
    const double d = 1.0;
    const float f = 1.0f;
    for (unsigned x = 0; x < 16; x++)
        for (unsigned lane = 0; lane < (doubles ? 2u : 4u); lane++)
            memcpy((char *)s->xmm[x] + lane * (doubles ? 8 : 4), doubles ? (const void *)&d : (const void *)&f,
                   doubles ? 8 : 4);
}
