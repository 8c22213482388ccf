/* Shadow memory: the newest store to a word gives its time; words not written for a horizon of
 * instructions are forgotten, those written since are kept through the purge. */
#include <criterion/criterion.h>
#include "shadow.h"

static void run(struct shadow *sh, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        shadow_tick(sh);
}

Test(shadow, gives_the_time_of_the_newest_store_even_when_it_completes_earlier)
{
    struct shadow sh;
    shadow_init(&sh, 1, 100);
    shadow_store(&sh, 0x1000, 8, 0, 50, 1);
    shadow_store(&sh, 0x1000, 8, 0, 20, 2);
    cr_expect_eq(shadow_load(&sh, 0x1000, 8, 0), 20);
    cr_expect_eq(shadow_producer(&sh, 0x1000, 8), 2);
    shadow_free(&sh);
}

Test(shadow, reads_the_latest_of_the_words_an_access_spans)
{
    struct shadow sh;
    shadow_init(&sh, 2, 100);
    shadow_store(&sh, 0x1000, 8, 1, 7, 0);
    shadow_store(&sh, 0x1008, 8, 1, 9, 0);
    cr_expect_eq(shadow_load(&sh, 0x1004, 8, 1), 9);
    cr_expect_eq(shadow_load(&sh, 0x1004, 8, 0), 0, "lane 0 never saw a store");
    shadow_free(&sh);
}

Test(shadow, forgets_a_word_not_written_for_the_horizon_and_keeps_a_recent_one)
{
    struct shadow sh;
    shadow_init(&sh, 1, 100);
    shadow_store(&sh, 0x2000, 8, 0, 5, 1);
    run(&sh, 150);
    shadow_store(&sh, 0x3000, 8, 0, 6, 2);
    run(&sh, 150);     /* the purge just after 200 keeps the words written since about 100 */
    cr_expect_eq(shadow_load(&sh, 0x2000, 8, 0), 0, "written 300 instructions ago");
    cr_expect_eq(shadow_load(&sh, 0x3000, 8, 0), 6, "written 150 instructions ago");
    cr_expect_eq(shadow_class(&sh, 0x2000), 0xff);
    shadow_free(&sh);
}

Test(shadow, keeps_every_word_while_the_run_is_shorter_than_two_horizons)
{
    struct shadow sh;
    shadow_init(&sh, 1, 100);
    for (unsigned i = 0; i < 1000; i++)
        shadow_store(&sh, 0x10000 + 8ull * i, 8, 0, i + 1, i + 1);
    run(&sh, 199);
    for (unsigned i = 0; i < 1000; i++)
        cr_assert_eq(shadow_load(&sh, 0x10000 + 8ull * i, 8, 0), i + 1);
    shadow_free(&sh);
}
