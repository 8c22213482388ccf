/* Replays kept in step: a core ahead of the slowest by more than the window waits for it, and
 * for none that has stopped. A correct pace passes whatever the scheduling; one that lets a core
 * through too early is caught by what the core saw when it went on. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "pace.h"

struct ahead {
    struct pace *p;
    uint64_t at;
    atomic_int slowest;         /* where the other core is, as the test has set it */
    atomic_int seen;            /* that, when pace_at let this core go on; -1 before */
};

static void *go_ahead(void *arg)
{
    struct ahead *a = arg;
    pace_at(a->p, 0, a->at);
    atomic_store(&a->seen, atomic_load(&a->slowest));
    return NULL;
}

/* Gives a core that pace_at wrongly let through the time to do so (up to 200 ms): the test
 * is as right on a slow machine, where it may only catch the fault less often. */
static void let_it_run(struct ahead *a)
{
    for (int i = 0; i < 200 && atomic_load(&a->seen) < 0; i++)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

/* Core 0 of A's pace on a thread of its own, going to A's AT, given the time to go too early. */
static pthread_t start_ahead(struct ahead *a)
{
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, go_ahead, a), 0);
    let_it_run(a);
    return t;
}

Test(pace, lets_a_core_within_the_window_go_on_at_once)
{
    struct pace *p = pace_new(2, 4);
    pace_at(p, 0, 4);
    pace_at(p, 1, 2);
    pace_at(p, 0, 6);
    pace_free(p);
}

Test(pace, holds_a_core_ahead_until_the_slowest_comes_within_the_window)
{
    struct ahead a = { .p = pace_new(2, 2), .at = 10, .slowest = 0, .seen = -1 };
    pthread_t t = start_ahead(&a);
    atomic_store(&a.slowest, 7);
    pace_at(a.p, 1, 7);
    let_it_run(&a);
    atomic_store(&a.slowest, 8);
    pace_at(a.p, 1, 8);
    pthread_join(t, NULL);
    cr_assert_eq(atomic_load(&a.seen), 8, "the core ahead went on when the slowest was at %d", atomic_load(&a.seen));
    pace_free(a.p);
}

Test(pace, waits_for_no_core_that_has_stopped)
{
    struct ahead a = { .p = pace_new(2, 2), .at = 1000, .slowest = 0, .seen = -1 };
    pthread_t t = start_ahead(&a);
    atomic_store(&a.slowest, 1);
    pace_done(a.p, 1);
    pthread_join(t, NULL);
    cr_assert_eq(atomic_load(&a.seen), 1, "the core ahead went on before the other stopped");
    pace_at(a.p, 0, 5000);         /* and goes on alone, never waiting again */
    pace_free(a.p);
}
