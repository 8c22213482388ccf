/* The decoded-uop cache and the loop stream detector on hand-built front ends: which path
 * delivers each instruction of streams worked out by hand. */
#include <criterion/criterion.h>
#include "uopcache.h"

/* Skylake's organisation (32-byte windows of at most 3 ways of 6 uops, 8 ways a set) in SETS sets,
 * and a loop buffer of LOOP uops. */
static struct mdl_machine front(unsigned sets, unsigned loop)
{
    return (struct mdl_machine){ .name = "test", .uop_cache_width = 6, .uop_cache_entries = sets * 8 * 6,
                                 .uop_cache_window = 32, .uop_cache_ways = 8, .uop_cache_line = 6,
                                 .uop_cache_window_ways = 3, .loop_buffer = loop };
}

/* N instructions of LEN bytes and UOPS uops each from AT on, in order: how many each path delivered. */
static void run(struct uopcache *uc, uint64_t at, unsigned n, unsigned len, unsigned uops, unsigned got[RT_PATH_COUNT])
{
    for (unsigned p = 0; p < RT_PATH_COUNT; p++)
        got[p] = 0;
    for (unsigned i = 0; i < n; i++)
        got[uopcache_next(uc, at + (uint64_t)i * len, len, uops)]++;
}

Test(uopcache, is_not_modelled_without_its_windows)
{
    struct mdl_machine m = front(32, 0);
    m.uop_cache_window = 0;
    cr_expect_null(uopcache_new(&m));
}

/* Passes of the same N instructions: how many PATH delivered in the last of PASSES. */
static unsigned last_pass(struct uopcache *uc, uint64_t at, unsigned n, unsigned len, unsigned uops, int passes,
                          enum rt_path path)
{
    unsigned got[RT_PATH_COUNT];
    for (int k = 0; k < passes; k++)
        run(uc, at, n, len, uops, got);
    return got[path];
}

Test(uopcache, decodes_a_loop_once_then_delivers_it_from_the_cache)
{
    struct mdl_machine m = front(32, 0);
    struct uopcache *uc = uopcache_new(&m);
    /* 256 bytes: 8 windows of 8 uops, 2 ways each */
    cr_expect_eq(last_pass(uc, 0x1000, 64, 4, 1, 1, RT_PATH_LEGACY), 64, "the first pass decodes");
    cr_expect_eq(last_pass(uc, 0x1000, 64, 4, 1, 1, RT_PATH_UOP_CACHE), 64, "the second hits");
    uopcache_free(uc);
}

Test(uopcache, decodes_every_pass_of_a_loop_larger_than_the_cache)
{
    /* one set of 8 ways: 5 windows of 2 ways each do not fit, and LRU evicts each before its reuse */
    struct mdl_machine m = front(1, 0);
    struct uopcache *uc = uopcache_new(&m);
    cr_expect_eq(last_pass(uc, 0x1000, 40, 4, 1, 3, RT_PATH_LEGACY), 40, "the third pass decodes too");
    /* 4 windows of 2 ways: 8 ways, they fit */
    cr_expect_eq(last_pass(uc, 0x1000, 32, 4, 1, 2, RT_PATH_UOP_CACHE), 32);
    uopcache_free(uc);
}

/* A window takes ways of 6 uops, a microcoded instruction one of its own (a pointer to the
 * sequencer); one that needs more than 3 is never cached. */
Test(uopcache, never_caches_a_window_that_needs_more_ways_than_a_window_may_take)
{
    struct mdl_machine m = front(32, 0);
    struct uopcache *uc = uopcache_new(&m);
    static const struct { uint64_t at; unsigned n, len, uops; enum rt_path path; } cases[] = {
        { 0x2000, 16, 2, 2, RT_PATH_LEGACY },       /* 32 uops: 6 ways */
        { 0x3000, 9, 2, 2, RT_PATH_UOP_CACHE },     /* 18 uops: 3 ways */
        { 0x4000, 3, 4, 36, RT_PATH_UOP_CACHE },    /* three microcoded: 3 ways */
        { 0x5000, 4, 4, 36, RT_PATH_LEGACY },       /* four: 4 ways */
    };
    for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++)
        cr_expect_eq(last_pass(uc, cases[k].at, cases[k].n, cases[k].len, cases[k].uops, 3, cases[k].path),
                     cases[k].n, "case %u", k);
    uopcache_free(uc);
}

/* ITER passes over a loop of N 4-byte instructions of one uop at 0x6000 (its last the jump back). */
static unsigned loop_passes(struct uopcache *uc, unsigned n, unsigned iter, enum rt_path p)
{
    unsigned count = 0, got[RT_PATH_COUNT];
    for (unsigned k = 0; k < iter; k++) {
        run(uc, 0x6000, n, 4, 1, got);
        count += got[p];
    }
    return count;
}

Test(uopcache, streams_a_loop_that_fits_the_loop_buffer_from_its_third_pass)
{
    struct mdl_machine m = front(32, 64);
    struct uopcache *uc = uopcache_new(&m);
    /* the first pass decodes, the second hits the uop cache, the rest stream */
    cr_expect_eq(loop_passes(uc, 10, 5, RT_PATH_LOOP), 3 * 10);
    /* falling through the loop ends the stream: the code after it, in the loop's last window, is
     * in the uop cache */
    cr_expect_eq(uopcache_next(uc, 0x6000 + 40, 4, 1), RT_PATH_UOP_CACHE);
    uopcache_free(uc);
    m = front(32, 8);               /* a loop buffer too small for it */
    uc = uopcache_new(&m);
    cr_expect_eq(loop_passes(uc, 10, 5, RT_PATH_LOOP), 0);
    uopcache_free(uc);
    m = front(32, 0);               /* none (Skylake's is disabled) */
    uc = uopcache_new(&m);
    cr_expect_eq(loop_passes(uc, 10, 5, RT_PATH_UOP_CACHE), 4 * 10);
    uopcache_free(uc);
}
