/* Random-cycle pointer chases in one huge-page buffer: each access's address comes from the
 * previous load, so the mean time per access is the latency of the level that serves it. */
#include "chase.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { UNROLL = 64, MIN_ACCESSES = 1 << 14, MAX_ACCESSES = 1 << 16, MAX_WARM = 1 << 18, MAX_WARM_EACH = 1 << 15 };
#define HUGE_PAGE ((size_t)2 << 20)

/* Whether the mapping holding ADDR is backed by transparent huge pages (AnonHugePages > 0 in
 * /proc/self/smaps): without them a stride beyond 4 KiB is not a physical stride. */
static bool backed_by_huge_pages(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return false;
    char line[512];
    bool inside = false, huge = false;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        uintmax_t lo, hi, kb;
        if (sscanf(line, "%jx-%jx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a >= lo && a < hi;
        else if (inside && sscanf(line, "AnonHugePages: %ju kB", &kb) == 1)
            huge = kb > 0;
    }
    fclose(f);
    return huge;
}

static bool map_buffer(struct chase *c, size_t len, char *err, size_t errlen)
{
    c->map_len = len + HUGE_PAGE;
    c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (c->map == MAP_FAILED) {
        c->map = NULL;
        snprintf(err, errlen, "cannot map %zu MiB for the memory benchmarks: %s", len >> 20, strerror(errno));
        return false;
    }
    c->base = (uint8_t *)(((uintptr_t)c->map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    c->len = len;
    madvise(c->base, len, MADV_HUGEPAGE);     /* a request: smaps tells whether it was granted */
    memset(c->base, 0, len);                  /* fault every page in now, not during a timing */
    c->huge = backed_by_huge_pages(c->base);
    return true;
}

bool chase_open(struct chase *c, const struct timer *t, size_t len, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->timer = t;
    c->rng = 0x9E3779B97F4A7C15ull;
    if (!map_buffer(c, len, err, errlen))
        return false;
    struct x86_code body = { 0 };
    for (unsigned i = 0; i < UNROLL; i++)
        x86_mov_load(&body, X86_RAX, X86_RAX, 0);
    bool ok = nano_build(&c->kernel, &body, UNROLL, 0, err, errlen);
    x86_free(&body);
    if (!ok)
        chase_close(c);
    return ok;
}

void chase_close(struct chase *c)
{
    nano_free(&c->kernel);
    if (c->map)
        munmap(c->map, c->map_len);
    free(c->order);
    memset(c, 0, sizeof *c);
}

static uint64_t next_random(struct chase *c)
{
    c->rng ^= c->rng >> 12, c->rng ^= c->rng << 25, c->rng ^= c->rng >> 27;
    return c->rng * 0x2545F4914F6CDD1Dull;
}

static size_t seq_size(const struct chase_seq *s) { return s->n + s->n2; }

static size_t seq_offset(const struct chase_seq *s, size_t i)
{
    return i < s->n ? s->start + i * s->stride : s->start2 + (i - s->n) * s->stride;
}

/* A random permutation of 0 .. N-1 in c->order (Fisher-Yates). */
static bool shuffle(struct chase *c, size_t n)
{
    if (n > c->order_cap) {
        size_t *o = realloc(c->order, n * sizeof *o);
        if (!o)
            return false;
        c->order = o, c->order_cap = n;
    }
    for (size_t i = 0; i < n; i++)
        c->order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_random(c) % i), tmp = c->order[i - 1];
        c->order[i - 1] = c->order[j], c->order[j] = tmp;
    }
    return true;
}

void *chase_link(struct chase *c, const struct chase_seq *seq)
{
    size_t n = seq_size(seq);
    if (!n || !shuffle(c, n))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint8_t *here = c->base + seq_offset(seq, c->order[i]);
        uint8_t *next = c->base + seq_offset(seq, c->order[(i + 1) % n]);
        memcpy(here, &next, sizeof next);
    }
    return c->base + seq_offset(seq, c->order[0]);
}

static uint64_t iterations(size_t accesses) { return (accesses + UNROLL - 1) / UNROLL; }

bool chase_time(struct chase *c, const struct chase_seq *seq, struct nano_stat *out)
{
    void *first = chase_link(c, seq);
    if (!first)
        return false;
    struct nano_state s;
    memset(&s, 0, sizeof s);
    s.gpr[0] = (uint64_t)(uintptr_t)first;
    size_t n = seq_size(seq);
    c->kernel.fn(iterations(n < MAX_WARM ? n : MAX_WARM), &s, NULL);   /* a lap: the caches settle */
    size_t accesses = n < MIN_ACCESSES ? MIN_ACCESSES : n > MAX_ACCESSES ? MAX_ACCESSES : n;
    /* a lap again before each run of a set that fits the caches (beyond, every access misses anyway) */
    c->kernel.warm_iters = n <= MAX_WARM_EACH ? iterations(n) : 0;
    *out = nano_time(c->timer, &c->kernel, &s, NULL, iterations(accesses));
    return true;
}
