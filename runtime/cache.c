/* Set-associative cache levels with tags in one flat array per level, inclusive fills on a
 * miss, and a next-line or stride prefetcher per level. */
#include "cache.h"
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"

enum { CACHE_STREAM_SET_BITS = 4, CACHE_STREAM_WAYS = 4, CACHE_REGION_SHIFT = 12 };
#define CACHE_NONE UINT64_MAX

/* A stride stream, found without the load's pc (the prefetcher sees addresses only). Streams
 * live in a small set-associative table by 4 KiB region, so training probes a few entries. */
struct cache_stream {
    uint64_t last;              /* last line; CACHE_NONE for an unused entry */
    uint64_t next;              /* the line that continues the stream; CACHE_NONE if none */
};

struct cache_lvl {
    const struct mdl_cache *desc;
    const struct policy_ops *pol;
    uint64_t *tags;             /* [set * ways + way]: line + 1, 0 for an invalid way */
    /* [set * byte_stride + way]: a byte of each way's line (cache_tag_byte; 0 for an invalid way
     * and the padding), so that a lookup reads its set's full tags only where a byte matches:
     * a scan of the tags, with its exit at a different way each time, mispredicted a branch per
     * lookup and read a set's whole tags (a large last level's do not stay in the host's caches) */
    uint8_t *bytes;
    size_t byte_stride;         /* ways rounded up to 8 */
    uint8_t *state;             /* [set * state_stride]: the policy's bytes */
    size_t state_stride;
    uint64_t sets, set_mask;    /* set_mask is 0 when sets is not a power of two */
    unsigned ways, line_shift, region_shift;
    /* Touching a set's most recently used line again changes no policy state (policy.h), so
     * such a hit needs no lookup. MRU[set] is that line + 1 as the latest lookup or fill in
     * the set left it (0 before any); only the first level has it, the one such hits reach
     * (kept for the others, it cost the reader a host cache line per access). LAST is the
     * line + 1 of the level's latest access (0 after a fill into its set): a repeat of it does
     * not train the prefetcher either. */
    uint64_t *mru;
    uint64_t last;
    uint64_t accesses, hits, fills;
    struct cache_stream streams[1 << CACHE_STREAM_SET_BITS][CACHE_STREAM_WAYS];  /* MRU first */
};

struct cache_hier {
    unsigned n;
    uint64_t memory;
    struct cache_lvl lv[];
};

static unsigned cache_log2(uint64_t v)
{
    unsigned s = 0;
    while ((UINT64_C(1) << s) < v)
        s++;
    return s;
}

static uint64_t cache_set(const struct cache_lvl *l, uint64_t line)
{
    return l->set_mask ? line & l->set_mask : line % l->sets;
}

static bool cache_level_init(struct cache_lvl *l, const struct mdl_cache *c, bool first)
{
    uint64_t line = c->line ? c->line : 64;
    l->desc = c;
    l->pol = policy_for(c->policy);
    l->line_shift = cache_log2(line);           /* a line that is not a power of two rounds up */
    line = UINT64_C(1) << l->line_shift;
    l->ways = c->ways ? c->ways : (unsigned)(c->size / line);   /* 0 ways: fully associative */
    if (!l->ways)
        l->ways = 1;
    l->sets = c->size / (line * l->ways);
    if (!l->sets)
        l->sets = 1;
    l->set_mask = (l->sets & (l->sets - 1)) ? 0 : l->sets - 1;
    l->region_shift = l->line_shift < CACHE_REGION_SHIFT ? CACHE_REGION_SHIFT - l->line_shift : 0;
    /* Rounded to 8 bytes so that every policy can keep aligned words per set. */
    l->state_stride = (l->pol->state_size(l->ways) + 7) & ~(size_t)7;
    l->tags = calloc(l->sets * l->ways, sizeof *l->tags);
    l->byte_stride = (l->ways + 7) & ~(size_t)7;
    l->bytes = calloc(l->sets, l->byte_stride);
    l->state = calloc(l->sets, l->state_stride);
    l->mru = first ? calloc(l->sets, sizeof *l->mru) : NULL;
    if (!l->tags || !l->bytes || !l->state || (first && !l->mru))
        return false;
    for (unsigned i = 0; i < 1 << CACHE_STREAM_SET_BITS; i++)
        for (unsigned w = 0; w < CACHE_STREAM_WAYS; w++)
            l->streams[i][w] = (struct cache_stream){ CACHE_NONE, CACHE_NONE };
    for (uint64_t s = 0; s < l->sets; s++)
        l->pol->init(l->state + s * l->state_stride, l->ways, (uint32_t)s);
    return true;
}

struct cache_hier *cache_new(const struct mdl_machine *m)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->n_caches; i++)
        n += m->caches[i].kind != MDL_CACHE_INSTRUCTION;
    struct cache_hier *h = calloc(1, sizeof *h + n * sizeof h->lv[0]);
    if (!h)
        return NULL;
    for (unsigned i = 0; i < m->n_caches; i++) {
        if (m->caches[i].kind == MDL_CACHE_INSTRUCTION)
            continue;
        struct cache_lvl *l = &h->lv[h->n++];
        if (!cache_level_init(l, &m->caches[i], l == h->lv)) {
            cache_free(h);
            return NULL;
        }
    }
    return h;
}

void cache_free(struct cache_hier *h)
{
    if (!h)
        return;
    for (unsigned i = 0; i < h->n; i++) {
        free(h->lv[i].tags);
        free(h->lv[i].bytes);
        free(h->lv[i].state);
        free(h->lv[i].mru);
    }
    free(h);
}

/* LINE's byte in the ways' bytes: a hash, since the lines of one set differ in their high bits;
 * never 0, the byte of an invalid way. */
static uint8_t cache_tag_byte(uint64_t line)
{
    uint8_t b = (uint8_t)(line * UINT64_C(0x9e3779b97f4a7c15) >> 56);
    return b | (b == 0);
}

/* Eight bytes from P as a word whose first byte is the lowest, on any host (one load on x86-64):
 * cache_find counts its bytes from the low end. */
static uint64_t cache_load_le(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The way holding LINE, or -1. Eight ways' bytes at a time: the bytes equal to LINE's are those
 * of (word ^ key) that are zero, found with the borrow trick; a byte above a zero one may show
 * too (a padding byte as well), and the full tag settles every candidate. */
static int cache_find(const struct cache_lvl *l, uint64_t line, uint64_t set)
{
    const uint64_t *t = l->tags + set * l->ways;
    const uint8_t *b = l->bytes + set * l->byte_stride;
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    uint64_t key = cache_tag_byte(line) * ones;
    for (unsigned w = 0; w < l->ways; w += 8) {
        uint64_t x = cache_load_le(b + w) ^ key;
        for (uint64_t m = (x - ones) & ~x & highs; m; m &= m - 1) {
            unsigned k = w + (unsigned)__builtin_ctzll(m) / 8;
            if (k < l->ways && t[k] == line + 1)
                return (int)k;
        }
    }
    return -1;
}

static bool cache_lookup(struct cache_lvl *l, uint64_t line)
{
    uint64_t set = cache_set(l, line);
    int w = cache_find(l, line, set);
    if (w < 0)
        return false;
    l->pol->touch(l->state + set * l->state_stride, l->ways, (unsigned)w);
    if (l->mru)
        l->mru[set] = line + 1;
    l->last = line + 1;
    return true;
}

/* Fills LINE into SET. Ways are never invalidated, so the valid ways of a set are a prefix and
 * a set whose last way is valid is full. The filled way is the set's most recent one: touching
 * it again changes nothing (policy.h), so it is the set's MRU line for the fast path. */
static void cache_fill_set(struct cache_lvl *l, uint64_t line, uint64_t set)
{
    uint64_t *t = l->tags + set * l->ways;
    void *st = l->state + set * l->state_stride;
    unsigned w;
    if (t[l->ways - 1]) {
        w = l->pol->victim(st, l->ways);
    } else {
        w = 0;
        while (t[w])
            w++;
    }
    t[w] = line + 1;
    l->bytes[set * l->byte_stride + w] = cache_tag_byte(line);
    l->pol->insert(st, l->ways, w);
    l->fills++;
    if (l->mru)
        l->mru[set] = line + 1;
    if (l->last && cache_set(l, l->last - 1) == set)
        l->last = 0;
}

static void cache_prefetch(struct cache_lvl *l, uint64_t line)
{
    uint64_t set = cache_set(l, line);
    if (cache_find(l, line, set) < 0)
        cache_fill_set(l, line, set);
}

static struct cache_stream *cache_stream_set(struct cache_lvl *l, uint64_t line)
{
    /* A multiplicative hash: region numbers of separate arrays often share their low bits. */
    uint64_t region = line >> l->region_shift;
    return l->streams[region * UINT64_C(0x9e3779b97f4a7c15) >> (64 - CACHE_STREAM_SET_BITS)];
}

/* Puts S first in SET, shifting the entries before AT down; AT = the last way drops it. */
static void cache_stream_put(struct cache_stream *set, unsigned at, struct cache_stream s)
{
    for (; at > 0; at--)
        set[at] = set[at - 1];
    set[0] = s;
}

static void cache_stream_remove(struct cache_stream *set, unsigned at)
{
    for (; at + 1 < CACHE_STREAM_WAYS; at++)
        set[at] = set[at + 1];
    set[at] = (struct cache_stream){ CACHE_NONE, CACHE_NONE };
}

/* A stream continues when the line is its next stride step, which prefetches one step more (a
 * stride seen twice running) and moves the stream to the region of that step; another line of
 * the region of its last access retrains the stride; any other line starts a new stream. */
static void cache_stride_train(struct cache_lvl *l, uint64_t line)
{
    struct cache_stream *set = cache_stream_set(l, line);
    uint64_t region = line >> l->region_shift;
    unsigned same = CACHE_STREAM_WAYS;      /* the first stream whose last line is in LINE's region */
    for (unsigned i = 0; i < CACHE_STREAM_WAYS; i++) {
        if (set[i].next == line) {
            struct cache_stream step = { line, 2 * line - set[i].last };
            struct cache_stream *to = cache_stream_set(l, step.next);
            /* Removing the entry and putting the step first in the same set is one shift. */
            if (to == set) {
                cache_stream_put(set, i, step);
            } else {
                cache_stream_remove(set, i);
                cache_stream_put(to, CACHE_STREAM_WAYS - 1, step);
            }
            cache_prefetch(l, step.next);
            return;
        }
        if (same == CACHE_STREAM_WAYS && set[i].last != CACHE_NONE && set[i].last >> l->region_shift == region)
            same = i;
    }
    if (same < CACHE_STREAM_WAYS) {
        struct cache_stream s = set[same];
        if (line != s.last)
            s = (struct cache_stream){ line, 2 * line - s.last };
        cache_stream_put(set, same, s);
        return;
    }
    cache_stream_put(set, CACHE_STREAM_WAYS - 1, (struct cache_stream){ line, CACHE_NONE });
}

static void cache_prefetch_after(struct cache_lvl *l, uint64_t line, bool hit)
{
    if (l->desc->prefetch == MDL_PREFETCH_NEXT_LINE && !hit)
        cache_prefetch(l, line + 1);
    else if (l->desc->prefetch == MDL_PREFETCH_STRIDE)
        cache_stride_train(l, line);
}

/* One line: the level that served it. */
static unsigned cache_line_access(struct cache_hier *h, uint64_t addr)
{
    struct cache_lvl *l0 = &h->lv[0];
    uint64_t line0 = addr >> l0->line_shift;
    if (line0 + 1 == l0->last || l0->mru[cache_set(l0, line0)] == line0 + 1) {
        l0->accesses++;
        l0->hits++;
        if (line0 + 1 != l0->last) {
            l0->last = line0 + 1;
            cache_prefetch_after(l0, line0, true);
        }
        return 0;
    }
    unsigned hit = 0;
    while (hit < h->n && !cache_lookup(&h->lv[hit], addr >> h->lv[hit].line_shift))
        hit++;
    for (unsigned i = 0; i <= hit && i < h->n; i++) {
        struct cache_lvl *l = &h->lv[i];
        uint64_t line = addr >> l->line_shift;
        l->accesses++;
        if (i == hit) {
            l->hits++;
        } else {
            cache_fill_set(l, line, cache_set(l, line));
            l->last = line + 1;
        }
        cache_prefetch_after(l, line, i == hit);
    }
    h->memory += hit == h->n;
    return hit;
}

int cache_access(struct cache_hier *h, uint64_t addr, unsigned size, bool store)
{
    (void)store;
    if (!h->n) {
        h->memory++;
        return 0;
    }
    unsigned shift = h->lv[0].line_shift, worst = 0;
    uint64_t last = (addr + (size ? size - 1 : 0)) >> shift;
    for (uint64_t line = addr >> shift; line <= last; line++) {
        unsigned r = cache_line_access(h, line == addr >> shift ? addr : line << shift);
        if (r > worst)
            worst = r;
    }
    return (int)worst;
}

/* Whether training L's stride prefetcher with LINE would continue a stream, and so prefetch. */
static bool cache_would_prefetch(struct cache_lvl *l, uint64_t line)
{
    if (l->desc->prefetch != MDL_PREFETCH_STRIDE)
        return false;     /* next-line prefetches only on a miss */
    const struct cache_stream *set = cache_stream_set(l, line);
    for (unsigned i = 0; i < CACHE_STREAM_WAYS; i++)
        if (set[i].next == line)
            return true;
    return false;
}

/* Accesses to LINES (N first-level line numbers, in order) that repeat the line accesses just
 * made, the same lines in the same order, all of which hit the first level, with no fill of it
 * since. They hit again, and since touching the ways of a sequence again right after it
 * changes no policy's state (policy.h), only the counts, the fast paths' lines and the stride
 * training move, as cache_access would move them. Returns how many it took: it stops before a
 * line whose training would start a prefetch (the ways of those it took touched then), and the
 * caller makes the rest with cache_access. The training is not skipped too: repeated, it does
 * not always come back to where it was (a stream of a copy within one region retrained). */
static unsigned cache_repeat(struct cache_hier *h, const uint64_t *lines, unsigned n)
{
    struct cache_lvl *l0 = &h->lv[0];
    unsigned k = 0;
    for (; k < n; k++) {
        uint64_t line = lines[k];
        if (line + 1 != l0->last && cache_would_prefetch(l0, line))
            break;
        l0->accesses++;
        l0->hits++;
        if (line + 1 != l0->last) {     /* the sets' MRU lines are those the last iteration left */
            l0->last = line + 1;
            cache_prefetch_after(l0, line, true);
        }
    }
    /* stopped before a prefetch: the lines taken get the touches they skipped, in their order */
    for (unsigned j = 0; k < n && j < k; j++)
        cache_lookup(l0, lines[j]);
    return k;
}

unsigned cache_iterate(struct cache_hier *h, struct cache_iter *it, const uint64_t *addr, const unsigned *size,
                       const bool *store, unsigned n, unsigned *levels)
{
    if (!h->n) {
        for (unsigned k = 0; k < n; k++)
            levels[k] = (unsigned)cache_access(h, addr[k], size[k], store[k]);
        return 0;
    }
    /* A repeat takes whole accesses of one line each, the last iteration's lines; only the first
     * level's fills matter, as only its state the repeat skips. */
    struct cache_lvl *l0 = &h->lv[0];
    unsigned shift = l0->line_shift, taken = 0;
    bool one = n <= CACHE_ITER_MAX, same = one && it->hits && it->n == n && it->fills == l0->fills;
    for (unsigned k = 0; one && k < n; k++) {
        uint64_t line = addr[k] >> shift;
        one = (addr[k] + (size[k] ? size[k] - 1 : 0)) >> shift == line;
        same = same && one && it->lines[k] == line;
        it->lines[k] = line;
    }
    if (same)
        taken = cache_repeat(h, it->lines, n);
    uint64_t fills = l0->fills;
    it->n = one ? n : 0;
    it->hits = one;
    for (unsigned k = 0; k < n; k++) {
        levels[k] = k < taken ? 0 : (unsigned)cache_access(h, addr[k], size[k], store[k]);
        it->hits &= levels[k] == 0;
    }
    /* a fill among the iteration's touches leaves a state the next repeat would change */
    it->fills = l0->fills;
    it->hits &= it->fills == fills;
    return taken;
}

unsigned cache_levels(const struct cache_hier *h)
{
    return h->n;
}

const struct mdl_cache *cache_level(const struct cache_hier *h, unsigned i)
{
    return i < h->n ? h->lv[i].desc : NULL;
}

void cache_stats(const struct cache_hier *h, unsigned level, uint64_t *accesses, uint64_t *hits)
{
    uint64_t a = 0, k = 0;
    if (level < h->n) {
        a = h->lv[level].accesses;
        k = h->lv[level].hits;
    } else if (level == h->n) {
        a = k = h->memory;
    }
    if (accesses)
        *accesses = a;
    if (hits)
        *hits = k;
}
