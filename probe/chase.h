/* Pointer chases (X-Ray's memory nano-benchmark, p = *p): addresses in one buffer linked into a
 * random cycle, so that no prefetcher guesses the next, timed as mean cycles per access. */
#ifndef PROBE_CHASE_H
#define PROBE_CHASE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nano.h"

/* The buffer is 2 MiB-aligned and asks for huge pages, so that virtual strides up to 2 MiB are
 * physical strides and the set a stride lands in is the one chosen (unless a hypervisor maps the
 * guest's memory in 4 KiB pages: xray.c checks). */
struct chase {
    const struct timer *timer;
    uint8_t *base;              /* 2 MiB-aligned */
    size_t len;
    void *map;                  /* the mapping that holds base */
    size_t map_len;
    bool huge;                  /* the kernel gave the buffer transparent huge pages */
    struct nano_kernel kernel;  /* mov rax, [rax], unrolled */
    size_t *order;              /* scratch: the visiting order */
    size_t order_cap;
    uint64_t rng;
};

/* Maps LEN bytes (a multiple of 2 MiB) and builds the chase kernel. False with ERR. */
bool chase_open(struct chase *c, const struct timer *t, size_t len, char *err, size_t errlen);
void chase_close(struct chase *c);

/* A set of addresses: N at START + i * STRIDE, then N2 at START2 + i * STRIDE (X-Ray's <m0, S, N>
 * and the union of two such sequences). Every address must be 8-byte aligned and in the buffer. */
struct chase_seq {
    size_t start, stride, n;
    size_t start2, n2;
};

/* Mean cycles per access when the addresses of SEQ are visited in one random cycle: a full lap
 * first (the caches settle), then the timed runs. False when out of memory. */
bool chase_time(struct chase *c, const struct chase_seq *seq, struct nano_stat *out);
/* Links the addresses of SEQ into a random cycle and returns the first; for kernels of their own. */
void *chase_link(struct chase *c, const struct chase_seq *seq);

#endif
