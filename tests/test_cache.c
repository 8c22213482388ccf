/* The data-cache hierarchy on hand-built machines: victims of each replacement policy worked
 * out by hand, inclusive fills, prefetchers and per-level counts. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "policy/policy.h"

enum { L1 = 0, L2 = 1 };
enum { KIB = 1024, MIB = 1024 * 1024 };

static struct mdl_cache level(const char *name, unsigned lv, uint64_t size, unsigned ways,
                              unsigned policy, unsigned prefetch)
{
    return (struct mdl_cache){
        .name = name, .level = (uint8_t)lv, .kind = lv == 1 ? MDL_CACHE_DATA : MDL_CACHE_UNIFIED,
        .policy = (uint8_t)policy, .prefetch = (uint8_t)prefetch, .size = size, .ways = ways,
        .line = 64, .latency = lv == 1 ? 4.0f : 12.0f
    };
}

static struct mdl_machine machine_of(const struct mdl_cache *c, unsigned n)
{
    return (struct mdl_machine){ .name = "test", .caches = c, .n_caches = (uint16_t)n,
                                 .memory_latency = 200 };
}

/* One 4-way set of 64-byte lines in front of a 64 KiB L2: every 4 KiB-aligned line collides. */
static struct cache_hier *one_set(unsigned policy, unsigned ways, struct mdl_cache *c,
                                  struct mdl_machine *m)
{
    c[0] = level("L1D", 1, 64 * ways, ways, policy, MDL_PREFETCH_NONE);
    c[1] = level("L2", 2, 64 * KIB, 8, MDL_POLICY_LRU, MDL_PREFETCH_NONE);
    *m = machine_of(c, 2);
    struct cache_hier *h = cache_new(m);
    cr_assert(h);
    return h;
}

static int load(struct cache_hier *h, uint64_t addr)
{
    return cache_access(h, addr, 8, false);
}

#define A 0x0000
#define B 0x1000
#define C 0x2000
#define D 0x3000
#define E 0x4000

/* Fills A B C D into ways 0-3, touches A, then brings E into the full set. */
static void fill_touch_a_then_e(struct cache_hier *h)
{
    const uint64_t seq[] = { A, B, C, D };
    for (int i = 0; i < 4; i++)
        cr_assert_eq(load(h, seq[i]), 2);
    cr_assert_eq(load(h, A), L1);
    cr_assert_eq(load(h, E), 2);
}

Test(cache, keeps_only_the_data_side_levels_in_order)
{
    struct mdl_cache c[3] = {
        level("L1I", 1, 32 * KIB, 8, MDL_POLICY_PLRU, MDL_PREFETCH_NEXT_LINE),
        level("L1D", 1, 32 * KIB, 8, MDL_POLICY_PLRU, MDL_PREFETCH_NONE),
        level("L2", 2, 256 * KIB, 4, MDL_POLICY_PLRU, MDL_PREFETCH_NONE),
    };
    c[0].kind = MDL_CACHE_INSTRUCTION;
    struct mdl_machine m = machine_of(c, 3);
    struct cache_hier *h = cache_new(&m);
    cr_assert_eq(cache_levels(h), 2);
    cr_assert_str_eq(cache_level(h, 0)->name, "L1D");
    cr_assert_str_eq(cache_level(h, 1)->name, "L2");
    cr_assert_null(cache_level(h, 2));
    cache_free(h);
}

Test(cache, sends_every_access_to_memory_without_data_caches)
{
    struct mdl_cache c = level("L1I", 1, 32 * KIB, 8, MDL_POLICY_PLRU, MDL_PREFETCH_NONE);
    c.kind = MDL_CACHE_INSTRUCTION;
    struct mdl_machine m = machine_of(&c, 1);
    struct cache_hier *h = cache_new(&m);
    uint64_t acc, hits;
    cr_assert_eq(cache_levels(h), 0);
    cr_assert_eq(load(h, 0x40), 0);
    cache_stats(h, 0, &acc, &hits);
    cr_assert_eq(acc, 1);
    cache_free(h);
}

/* LRU order after A B C D A: B is the least recent. */
Test(cache, evicts_the_lru_victim_when_the_set_is_full)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_LRU, 4, c, &m);
    fill_touch_a_then_e(h);
    cr_assert_eq(load(h, C), L1);
    cr_assert_eq(load(h, D), L1);
    cr_assert_eq(load(h, B), L2, "LRU evicts B, the least recently used");
    cache_free(h);
}

/* Tree bits after A B C D A: the root points right (A was touched on the left) and the right
 * node points at way 2 (D, way 3, was touched after C), so C goes although B is older. */
Test(cache, evicts_the_plru_victim_when_the_set_is_full)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_PLRU, 4, c, &m);
    fill_touch_a_then_e(h);
    cr_assert_eq(load(h, B), L1, "PLRU keeps B, which true LRU would evict");
    cr_assert_eq(load(h, D), L1);
    cr_assert_eq(load(h, C), L2, "PLRU evicts C, the way its tree points at");
    cache_free(h);
}

/* A hit on a set's most recent line skips the lookup: a prefetch that evicts that line (here
 * into a direct-mapped set, while a miss in the other set was served) must end the shortcut. */
Test(cache, misses_a_line_a_prefetch_evicted_since_it_was_its_sets_last)
{
    struct mdl_cache c[2] = { level("L1D", 1, 2 * 64, 1, MDL_POLICY_LRU, MDL_PREFETCH_NEXT_LINE),
                              level("L2", 2, 64 * KIB, 8, MDL_POLICY_LRU, MDL_PREFETCH_NONE) };
    struct mdl_machine m = machine_of(c, 2);
    struct cache_hier *h = cache_new(&m);
    const uint64_t x = 0 * 64, z = 3 * 64;   /* lines 0 (set 0) and 3 (set 1) */
    cr_assert_eq(load(h, x), 2);
    cr_assert_eq(load(h, x), L1, "x is set 0's last line");
    cr_assert_eq(load(h, z), 2, "z misses and prefetches line 4 into set 0, over x");
    cr_assert_eq(load(h, x), L2, "x was evicted");
    cr_assert_eq(load(h, x + 64), L1, "x's miss prefetched line 1 over z");
    cache_free(h);
}

/* Three ways sit under a 4-leaf tree: after A B C, D takes way 0 (A); after touching B the root
 * points right, at way 2 and the missing way 3, so the victim must be way 2 (C). */
Test(cache, never_picks_the_missing_way_of_a_three_way_plru_set)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_PLRU, 3, c, &m);
    const uint64_t seq[] = { A, B, C, D };
    for (int i = 0; i < 4; i++)
        cr_assert_eq(load(h, seq[i]), 2);
    cr_assert_eq(load(h, B), L1);
    cr_assert_eq(load(h, E), 2);
    cr_assert_eq(load(h, B), L1);
    cr_assert_eq(load(h, D), L1);
    cr_assert_eq(load(h, E), L1);
    cr_assert_eq(load(h, C), L2);
    cache_free(h);
}

Test(cache, evicts_the_oldest_fill_with_fifo_despite_a_recent_hit)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_FIFO, 4, c, &m);
    fill_touch_a_then_e(h);
    cr_assert_eq(load(h, B), L1);
    cr_assert_eq(load(h, A), L2, "FIFO evicts A, filled first, although it was just used");
    cache_free(h);
}

static void random_run(int *out, int n)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_RANDOM, 4, c, &m);
    uint32_t x = 7;
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        out[i] = load(h, (uint64_t)(x >> 16) % 6 * 0x1000);
    }
    cache_free(h);
}

Test(cache, picks_the_same_random_victims_on_every_run)
{
    int a[1000], b[1000], l1 = 0;
    random_run(a, 1000);
    random_run(b, 1000);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    for (int i = 0; i < 1000; i++)
        l1 += a[i] == L1;
    /* six lines in four ways: about 4/6 of the accesses hit */
    cr_assert(l1 > 500 && l1 < 800, "%d L1 hits of 1000", l1);
}

/* A set of W ways (a few, a dozen, twenty, 64) under LRU finds each line it holds as a list kept
 * by recency says, over random accesses to one and a half times W random lines: the lookup's
 * filter on a byte of each line (14 of the 96 lines share one with another) never hides a line
 * nor finds one it lost, whether W is a multiple of the eight bytes it compares at once or not. */
Test(cache, finds_every_line_a_set_holds_whatever_its_ways)
{
    const unsigned ways[] = { 3, 12, 20, 64 };
    for (unsigned k = 0; k < sizeof ways / sizeof ways[0]; k++) {
        unsigned w = ways[k], pool = w + w / 2, n = 0;
        struct mdl_cache c[2];
        struct mdl_machine m;
        struct cache_hier *h = one_set(MDL_POLICY_LRU, w, c, &m);
        uint64_t held[64], lines[96];               /* HELD: most recent first */
        uint64_t rng = 12345u + w;
        for (unsigned i = 0; i < pool; i++) {       /* random, unlike a progression, whose bytes differ */
            rng = rng * UINT64_C(6364136223846793005) + 1442695040888963407u;
            lines[i] = rng >> 24;
        }
        for (int i = 0; i < 5000; i++) {
            rng = rng * UINT64_C(6364136223846793005) + 1442695040888963407u;
            uint64_t line = lines[(rng >> 33) % pool];
            unsigned at = 0;
            while (at < n && held[at] != line)
                at++;
            bool hit = at < n;
            cr_assert_eq(load(h, line * 64) == L1, hit, "%u ways, access %d: line %llu %s", w, i,
                         (unsigned long long)line, hit ? "held" : "not held");
            if (!hit)
                at = n < w ? n++ : w - 1;
            memmove(held + 1, held, at * sizeof *held);
            held[0] = line;
        }
        cache_free(h);
    }
}

Test(cache, fills_every_level_above_the_one_that_hit_and_counts_them)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_LRU, 2, c, &m);
    cr_assert_eq(load(h, A), 2);
    cr_assert_eq(load(h, B), 2);
    cr_assert_eq(load(h, C), 2);   /* evicts A from L1 only */
    cr_assert_eq(load(h, A), L2);
    cr_assert_eq(load(h, A), L1);
    uint64_t acc, hits;
    cache_stats(h, L1, &acc, &hits);
    cr_assert(acc == 5 && hits == 1, "L1 %lu/%lu", (unsigned long)hits, (unsigned long)acc);
    cache_stats(h, L2, &acc, &hits);
    cr_assert(acc == 4 && hits == 1, "L2 %lu/%lu", (unsigned long)hits, (unsigned long)acc);
    cache_stats(h, 2, &acc, &hits);
    cr_assert_eq(acc, 3);
    cache_free(h);
}

Test(cache, serves_a_line_crossing_access_as_its_slower_line)
{
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *h = one_set(MDL_POLICY_LRU, 4, c, &m);
    cr_assert_eq(load(h, 0), 2);
    cr_assert_eq(load(h, 0x40), 2);
    cr_assert_eq(cache_access(h, 0x3c, 8, false), L1);
    cr_assert_eq(cache_access(h, 0x7c, 8, true), 2, "line 0x80 was never loaded");
    uint64_t acc;
    cache_stats(h, L1, &acc, NULL);
    cr_assert_eq(acc, 6, "a crossing access looks up both lines");
    cache_free(h);
}

/* 96 sets: lines 0, 128 and 256 fall in sets 0, 32 and 64, where a 7-bit mask would put all
 * three in set 0 and evict line 0 from its two ways. */
Test(cache, indexes_a_set_count_that_is_not_a_power_of_two_by_modulo)
{
    struct mdl_cache c[2] = {
        level("L1D", 1, 96 * 2 * 64, 2, MDL_POLICY_LRU, MDL_PREFETCH_NONE),
        level("L2", 2, 1 * MIB, 16, MDL_POLICY_LRU, MDL_PREFETCH_NONE),
    };
    struct mdl_machine m = machine_of(c, 2);
    struct cache_hier *h = cache_new(&m);
    load(h, 0);
    load(h, 128 * 64);
    load(h, 256 * 64);
    cr_assert_eq(load(h, 0), L1);
    load(h, 96 * 64);
    load(h, 192 * 64);             /* the third line of set 0: evicts line 0 */
    cr_assert_eq(load(h, 0), L2);
    cache_free(h);
}

static struct cache_hier *a72_like(struct mdl_cache *c, struct mdl_machine *m, unsigned l1_prefetch)
{
    c[0] = level("L1D", 1, 32 * KIB, 2, MDL_POLICY_PLRU, l1_prefetch);
    c[1] = level("L2", 2, 1 * MIB, 16, MDL_POLICY_PLRU, MDL_PREFETCH_NONE);
    *m = machine_of(c, 2);
    return cache_new(m);
}

static uint64_t l1_misses_streaming(struct cache_hier *h, uint64_t bytes)
{
    for (uint64_t a = 0; a < bytes; a += 8)
        load(h, 0x10000000 + a);
    uint64_t acc, hits;
    cache_stats(h, L1, &acc, &hits);
    cr_assert_eq(acc, bytes / 8);
    return acc - hits;
}

/* A miss on line n fills n+1 too, so every other line misses: one access in 16. */
Test(cache, serves_a_streaming_access_from_l1_with_next_line_prefetch)
{
    enum { BYTES = 4 * MIB, LINES = BYTES / 64 };
    struct mdl_cache c[2];
    struct mdl_machine m;
    struct cache_hier *with = a72_like(c, &m, MDL_PREFETCH_NEXT_LINE), *without = NULL;
    cr_assert_eq(l1_misses_streaming(with, BYTES), LINES / 2);
    cache_free(with);
    without = a72_like(c, &m, MDL_PREFETCH_NONE);
    cr_assert_eq(l1_misses_streaming(without, BYTES), LINES);
    cache_free(without);
}

static struct cache_hier *skylake_like(struct mdl_cache *c, struct mdl_machine *m, bool l3)
{
    c[0] = level("L1D", 1, 32 * KIB, 8, MDL_POLICY_PLRU, MDL_PREFETCH_STRIDE);
    c[1] = level("L2", 2, 256 * KIB, 4, MDL_POLICY_PLRU, MDL_PREFETCH_STRIDE);
    c[2] = level("L3", 3, 8 * MIB, 16, MDL_POLICY_PLRU, MDL_PREFETCH_NONE);
    *m = machine_of(c, l3 ? 3 : 2);
    return cache_new(m);
}

/* Lines 0 and 4 train a stride of 4, line 8 confirms it and prefetches 12, and from then on
 * each access prefetches the next: three misses, the stream following across pages. */
Test(cache, serves_a_strided_stream_from_l1_after_three_misses)
{
    struct mdl_cache c[3];
    struct mdl_machine m;
    struct cache_hier *h = skylake_like(c, &m, true);
    for (uint64_t a = 0; a < 4 * MIB; a += 256)
        load(h, 0x20000000 + a);
    uint64_t acc, hits;
    cache_stats(h, L1, &acc, &hits);
    cr_assert_eq(acc, 4 * MIB / 256);
    cr_assert_eq(acc - hits, 3);
    cache_stats(h, 3, &acc, NULL);
    cr_assert_eq(acc, 3, "only the training misses reach memory");
    cache_free(h);
}

/* Two interleaved streams, one descending, keep one stream entry each: three misses apiece. */
Test(cache, follows_two_interleaved_strided_streams)
{
    struct mdl_cache c[3];
    struct mdl_machine m;
    struct cache_hier *h = skylake_like(c, &m, true);
    for (uint64_t a = 0; a < 1 * MIB; a += 128) {
        load(h, 0x30000000 + a);
        load(h, 0x50000800 - a);
    }
    uint64_t acc, hits;
    cache_stats(h, L1, &acc, &hits);
    cr_assert_eq(acc - hits, 6);
    cache_free(h);
}

/* A random cyclic permutation of 4 MiB of lines (Sattolo's shuffle): no prefetcher can help
 * and 288 KiB of cache holds about 7% of the lines. */
Test(cache, misses_to_memory_on_a_pointer_chase_larger_than_l2)
{
    enum { LINES = 4 * MIB / 64 };
    uint32_t *next = malloc(LINES * sizeof *next), x = 12345;
    for (uint32_t i = 0; i < LINES; i++)
        next[i] = i;
    for (uint32_t i = LINES - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        uint32_t j = x % i, t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    struct mdl_cache c[3];
    struct mdl_machine m;
    struct cache_hier *h = skylake_like(c, &m, false);
    unsigned served[3] = { 0 };
    uint32_t p = 0;
    for (int i = 0; i < 2 * LINES; i++, p = next[p])
        served[load(h, 0x40000000 + (uint64_t)p * 64)]++;
    cr_assert(served[2] > 2 * LINES * 0.9, "memory served %u of %d", served[2], 2 * LINES);
    cr_assert(served[0] < 2 * LINES * 0.02, "L1 served %u", served[0]);
    free(next);
    cache_free(h);
}

/* ---- a loop's iterations through cache_iterate: the repeats skipped, the caches as if made ---- */

/* Each policy: touching the ways of a sequence again right after it leaves the state as it was
 * (policy.h), from random states, for random sequences of distinct ways, at several widths. */
Test(cache, every_policy_is_unchanged_by_a_sequence_of_touches_repeated_right_after_it)
{
    const struct policy_ops *pols[] = { &policy_lru, &policy_plru, &policy_fifo, &policy_random };
    const unsigned widths[] = { 2, 3, 4, 8, 12, 16 };
    unsigned seed = 99;
    for (unsigned p = 0; p < 4; p++)
        for (unsigned w = 0; w < 6; w++)
            for (int trial = 0; trial < 200; trial++) {
                unsigned ways = widths[w];
                size_t size = pols[p]->state_size(ways);
                unsigned char *st = calloc(1, size + 1), *once = calloc(1, size + 1);
                pols[p]->init(st, ways, (uint32_t)trial);
                for (int i = 0; i < 20; i++) {
                    unsigned way = (unsigned)rand_r(&seed) % ways;
                    if (rand_r(&seed) % 3)
                        pols[p]->touch(st, ways, way);
                    else
                        pols[p]->insert(st, ways, way);
                }
                unsigned seq[16], n = 1 + (unsigned)rand_r(&seed) % ways;
                for (unsigned i = 0; i < ways; i++)
                    seq[i] = i;
                for (unsigned i = 0; i < n; i++) {  /* the first N of a shuffle: distinct ways */
                    unsigned j = i + (unsigned)rand_r(&seed) % (ways - i), t = seq[i];
                    seq[i] = seq[j];
                    seq[j] = t;
                }
                for (unsigned i = 0; i < n; i++)
                    pols[p]->touch(st, ways, seq[i]);
                memcpy(once, st, size);
                for (unsigned i = 0; i < n; i++)
                    pols[p]->touch(st, ways, seq[i]);
                cr_assert(!memcmp(once, st, size), "%s, %u ways: a repeated sequence of %u touches moved it",
                          pols[p]->name, ways, n);
                free(st);
                free(once);
            }
}

/* Copies of random lengths, element sizes, directions and distances (a multiple of 4 KiB: source
 * and destination in one set; anywhere; or within 1 KiB), through two hierarchies alike: one access at a time
 * by cache_access, and an iteration at a time by cache_iterate. Every access is served alike, and
 * random loads after each copy too, with the same counts at every level: the repeats it skipped
 * changed nothing. Most iterations are repeats. */
static void expect_iterations_as_accesses(unsigned policy, unsigned prefetch, unsigned seed)
{
    struct mdl_cache c[2] = { level("L1D", 1, 32 * KIB, 8, policy, prefetch),
                              level("L2", 2, 256 * KIB, 4, policy, prefetch) };
    struct mdl_machine m = machine_of(c, 2);
    struct cache_hier *one = cache_new(&m), *it = cache_new(&m);
    uint64_t iterations = 0, repeats = 0;
    for (int copy = 0; copy < 40; copy++) {
        unsigned size = 1u << (rand_r(&seed) % 4), count = (unsigned)rand_r(&seed) % 3000;
        uint64_t src = 0x10000000 + (uint64_t)(rand_r(&seed) % 4096) * 64 + (unsigned)rand_r(&seed) % 64;
        unsigned how = (unsigned)rand_r(&seed) % 3;    /* one set, another place, or the same 4 KiB */
        uint64_t dst = how == 0   ? src + 0x40000 * (1 + (unsigned)rand_r(&seed) % 4)
                       : how == 1 ? 0x30000000 + (unsigned)rand_r(&seed) % 0x100000
                                  : src + 64 + (unsigned)rand_r(&seed) % 1024;
        int step = rand_r(&seed) % 4 ? (int)size : -(int)size;
        struct cache_iter iter = { 0 };
        for (unsigned i = 0; i < count; i++) {
            uint64_t addr[2] = { src + (uint64_t)((int64_t)i * step), dst + (uint64_t)((int64_t)i * step) };
            unsigned sizes[2] = { size, size }, levels[2];
            bool store[2] = { false, true };
            unsigned taken = cache_iterate(it, &iter, addr, sizes, store, 2, levels);
            iterations++;
            repeats += taken == 2;
            for (unsigned k = 0; k < 2; k++)
                cr_assert_eq(levels[k], (unsigned)cache_access(one, addr[k], size, store[k]),
                             "copy %d, iteration %u, access %u", copy, i, k);
        }
        for (int i = 0; i < 200; i++) {
            uint64_t a = 0x10000000 + (uint64_t)(rand_r(&seed) % 0x400000);
            cr_assert_eq(load(it, a), load(one, a), "a load after copy %d", copy);
        }
    }
    for (unsigned lv = 0; lv <= 2; lv++) {
        uint64_t a1, h1, a2, h2;
        cache_stats(one, lv, &a1, &h1);
        cache_stats(it, lv, &a2, &h2);
        cr_expect(a1 == a2 && h1 == h2, "level %u: %llu/%llu against %llu/%llu", lv, (unsigned long long)a1,
                  (unsigned long long)h1, (unsigned long long)a2, (unsigned long long)h2);
    }
    cr_expect_gt(repeats, iterations / 2, "%llu repeats of %llu iterations", (unsigned long long)repeats,
                 (unsigned long long)iterations);
    cache_free(one);
    cache_free(it);
}

Test(cache, a_copy_iterated_with_its_repeats_skipped_leaves_the_caches_as_access_by_access)
{
    const unsigned policies[] = { MDL_POLICY_LRU, MDL_POLICY_PLRU, MDL_POLICY_FIFO, MDL_POLICY_RANDOM };
    const unsigned prefetchers[] = { MDL_PREFETCH_NONE, MDL_PREFETCH_NEXT_LINE, MDL_PREFETCH_STRIDE };
    for (unsigned p = 0; p < 4; p++)
        for (unsigned f = 0; f < 3; f++)
            expect_iterations_as_accesses(policies[p], prefetchers[f], 7 + p * 3 + f);
}
