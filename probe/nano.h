/* Nano-benchmarks (X-Ray's term): a loop body generated at run time into executable memory, and
 * timed until stable (the minimum of several runs, and its spread to the median). */
#ifndef PROBE_NANO_H
#define PROBE_NANO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "timer.h"
#include "x86.h"

/* The register conventions of a kernel's body: independent streams on general registers and
 * on xmm0..xmm14; rcx and xmm15 hold constants; rsi points to the state, rdx to the caller's
 * auxiliary data (the body may advance rdx); rdi counts the iterations down. */
enum { NANO_STREAMS = 11, NANO_XMM_STREAMS = 15, NANO_CONST_XMM = 15 };
extern const uint8_t nano_stream_gpr[NANO_STREAMS];
#define NANO_CONST_GPR X86_RCX
#define NANO_AUX_GPR   X86_RDX
#define NANO_STATE_GPR X86_RSI

/* What a kernel starts from: the streams are loaded from gpr[] and stored back at the end (so a
 * pointer chase resumes where the last run stopped), rcx from gpr[NANO_STREAMS], every xmm from xmm[]. */
struct nano_state {
    uint64_t gpr[NANO_STREAMS + 1];
    uint64_t xmm[16][2];
};

typedef void (*nano_fn)(uint64_t iters, struct nano_state *s, void *aux);

struct nano_kernel {
    void *mem;
    size_t len;
    nano_fn fn;
    unsigned units;             /* instructions (or accesses) under test per iteration */
    uint64_t warm_iters;        /* run untimed before each timed run (a chase's lap: another
                                   process may have evicted its lines since the last run) */
};

/* The result of timing a kernel: cycles per unit. */
struct nano_stat {
    double min, median, spread; /* spread = median / min - 1 */
    unsigned runs;
};

enum { NANO_AVX = 1 };          /* the body uses 256-bit registers: end with vzeroupper */

/* Wraps BODY, one iteration doing UNITS units of work, into a callable kernel. */
bool nano_build(struct nano_kernel *k, const struct x86_code *body, unsigned units, unsigned flags, char *err,
                size_t errlen);
void nano_free(struct nano_kernel *k);

/* Times K on S and AUX: ITERS iterations per run, or (ITERS 0) as many as make a run last about
 * 2^18 ticks. The runs are repeated while their spread is large, up to three sets of runs. */
struct nano_stat nano_time(const struct timer *t, const struct nano_kernel *k, struct nano_state *s, void *aux,
                           uint64_t iters);
/* Builds BODY into a kernel, times it once as nano_time does and frees it. False with ERR when
 * the code could not be made executable. */
bool nano_measure(const struct timer *t, const struct x86_code *body, unsigned units, unsigned flags,
                  struct nano_state *s, void *aux, uint64_t iters, struct nano_stat *out, char *err, size_t errlen);
/* A state whose streams and constant are 1 and whose xmm registers hold 1.0 (as doubles when
 * DOUBLES, else as floats): no chain of adds, multiplies, divides or roots meets a denormal. */
void nano_state_ones(struct nano_state *s, bool doubles);

#endif
