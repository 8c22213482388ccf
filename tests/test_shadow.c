/* Shadow memory: a load reads the newest store of each of its bytes, forwarded when one store
 * holds them all; stores not written for a horizon of instructions are forgotten, those written
 * since are kept through the purge. */
#include <criterion/criterion.h>
#include "shadow.h"

static void run(struct shadow *sh, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        shadow_tick(sh);
}

/* A store of SIZE bytes at ADDR by SEQ, its data at T in lane LANE (0 elsewhere). */
static uint32_t store(struct shadow *sh, uint64_t addr, unsigned size, unsigned lane, double t, uint64_t seq)
{
    uint32_t st = shadow_write(sh, addr, size, seq, 0);
    for (unsigned l = 0; l < sh->lanes; l++)
        shadow_times(sh, st)[l] = l == lane ? t : 0;
    shadow_tick(sh);    /* one instruction each: the stores it frees are free for the next */
    return st;
}

/* The latest data time among the stores a load reads in LANE (0: none). */
static double load(struct shadow *sh, uint64_t addr, unsigned size, unsigned lane, struct shadow_read *r)
{
    shadow_read(sh, addr, size, r);
    double t = 0;
    for (unsigned k = 0; k < r->n; k++)
        if (shadow_times(sh, r->st[k])[lane] > t)
            t = shadow_times(sh, r->st[k])[lane];
    return t;
}

Test(shadow, gives_the_time_of_the_newest_store_even_when_it_completes_earlier)
{
    struct shadow sh;
    struct shadow_read r;
    shadow_init(&sh, 1, 100);
    store(&sh, 0x1000, 8, 0, 50, 1);
    store(&sh, 0x1000, 8, 0, 20, 2);
    cr_expect_eq(load(&sh, 0x1000, 8, 0, &r), 20);
    cr_expect(r.forwarded);
    cr_expect_eq(shadow_seq(&sh, r.st[0]), 2);
    shadow_free(&sh);
}

Test(shadow, reads_every_store_a_wider_load_spans_and_forwards_none)
{
    struct shadow sh;
    struct shadow_read r;
    shadow_init(&sh, 2, 100);
    store(&sh, 0x1000, 8, 1, 7, 0);
    store(&sh, 0x1008, 8, 1, 9, 0);
    cr_expect_eq(load(&sh, 0x1004, 8, 1, &r), 9);
    cr_expect_eq(r.n, 2);
    cr_expect_not(r.forwarded, "two stores cannot forward one load");
    cr_expect_eq(load(&sh, 0x1004, 8, 0, &r), 0, "lane 0 has its own times");
    shadow_free(&sh);
}

Test(shadow, forwards_a_load_within_a_store_and_not_one_partly_outside_it)
{
    struct shadow sh;
    struct shadow_read r;
    shadow_init(&sh, 1, 100);
    store(&sh, 0x1000, 8, 0, 7, 1);
    cr_expect_eq(load(&sh, 0x1004, 4, 0, &r), 7);
    cr_expect(r.forwarded, "4 bytes inside an 8-byte store");
    store(&sh, 0x2000, 4, 0, 3, 2);
    cr_expect_eq(load(&sh, 0x2000, 8, 0, &r), 3);
    cr_expect_eq(r.n, 1);
    cr_expect_not(r.forwarded, "the load's upper half was not written by the store");
    shadow_free(&sh);
}

Test(shadow, keeps_a_store_apart_from_its_neighbours_in_the_same_word)
{
    struct shadow sh;
    struct shadow_read r;
    shadow_init(&sh, 1, 100);
    store(&sh, 0x1010, 4, 0, 6, 1);
    store(&sh, 0x1014, 4, 0, 2, 2);     /* the other half of the word */
    cr_expect_eq(load(&sh, 0x1010, 4, 0, &r), 6);
    cr_expect(r.forwarded);
    for (unsigned b = 0; b < 8; b++)
        store(&sh, 0x3000 + b, 1, 0, 10 + b, 3 + b);
    cr_expect_eq(load(&sh, 0x3005, 1, 0, &r), 15, "each byte its own store");
    cr_expect_eq(shadow_seq(&sh, r.st[0]), 8);
    shadow_free(&sh);
}

Test(shadow, reuses_a_store_once_every_byte_of_it_is_written_again)
{
    struct shadow sh;
    shadow_init(&sh, 4, 100);
    for (unsigned i = 0; i < 1000; i++)
        store(&sh, 0x1000, 8, 0, i, i + 1);
    cr_expect_leq(sh.n_st, 2, "%u stores held for one location", sh.n_st);
    shadow_free(&sh);
}

Test(shadow, forgets_a_store_not_written_for_the_horizon_and_keeps_a_recent_one)
{
    struct shadow sh;
    struct shadow_read r;
    shadow_init(&sh, 1, 100);
    store(&sh, 0x2000, 8, 0, 5, 1);                 /* at clock 0 */
    run(&sh, 149);
    store(&sh, 0x3000, 8, 0, 6, 2);                 /* at clock 150 */
    run(&sh, 149);     /* the purge at 201 keeps the stores written since 101; the next is at 301 */
    cr_expect_eq(load(&sh, 0x2000, 8, 0, &r), 0, "written 300 instructions ago");
    cr_expect_eq(r.n, 0);
    cr_expect_eq(load(&sh, 0x3000, 8, 0, &r), 6, "written 150 instructions ago");
    shadow_free(&sh);
}

Test(shadow, keeps_every_store_while_the_run_is_shorter_than_two_horizons)
{
    struct shadow sh;
    struct shadow_read r;
    shadow_init(&sh, 1, 1000);
    for (unsigned i = 0; i < 1000; i++)
        store(&sh, 0x10000 + 8ull * i, 8, 0, i + 1, i + 1);
    run(&sh, 999);
    for (unsigned i = 0; i < 1000; i++)
        cr_assert_eq(load(&sh, 0x10000 + 8ull * i, 8, 0, &r), i + 1);
    shadow_free(&sh);
}
