/* The ports' calendars (runtime/ports.h) against a plain set of busy cycles: the window of two
 * words, shifted as it moves on, must give each uop the cycles the set gives it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "ports.h"

enum { REF_CYCLES = 1 << 16 };

/* The reference: every cycle's state, and the window's start by the same rules (it never moves
 * back; a search beyond its end moves it on; cycles before it are never read again). */
struct ref {
    int64_t base;
    bool busy[REF_CYCLES];
};

static void ref_advance(struct ref *r, int64_t k)
{
    if (k > r->base)
        r->base = k;
}

static bool ref_free_run(const struct ref *r, int64_t k, int64_t n)
{
    for (int64_t j = k; j < k + n; j++)
        if (r->busy[j])
            return false;
    return true;
}

static double ref_take(struct ref *r, double per, double scale, double t, double len, double disp)
{
    if (len <= 0 || per == 0)
        return t;
    int64_t k = (int64_t)(t * per + PORTS_EPS);
    ref_advance(r, (int64_t)(disp * per + PORTS_EPS) - 1);
    if (k < r->base)
        k = r->base;
    int64_t n = len <= 1 ? 1 : (int64_t)ceil(len - PORTS_EPS);
    if (k + n > r->base + CAL_CYCLES)
        return t;
    for (;; k++) {
        if (k + n > r->base + CAL_CYCLES)
            ref_advance(r, k + n - CAL_CYCLES);
        if (ref_free_run(r, k, n))
            break;
    }
    for (int64_t j = k; j < k + n; j++)
        r->busy[j] = true;
    double at = (double)k * scale;
    return at > t ? at : t;
}

/* A port at SCALE cycles a cycle: uops ready at random times after a dispatch time that moves on
 * (by every distance the window may shift, now and then), most of one cycle, some of several (a
 * divider), some far ahead (to the window's end and beyond it). */
static void expect_same_as_reference(double scale, unsigned seed)
{
    struct ref *r = calloc(1, sizeof *r);
    struct ports_cal cal = { .scale = scale, .per = 1 / scale };
    struct ports_lanes pl = { .L = 1, .cal = &cal };
    srand(seed);
    double disp = 0;
    static const double lens[] = { 1, 1, 1, 1, 0.5, 2, 3, 1.5, 0 };
    for (unsigned i = 0; i < 20000 && disp * cal.per < REF_CYCLES - 4 * CAL_CYCLES; i++) {
        disp += rand() % 20 == 0 ? rand() % 140 : (rand() % 4) * 0.25;    /* now and then a jump */
        int far = rand() % 4 == 0;
        double t = disp + (far ? rand() % 140 : (rand() % 64) * 0.5 - 4);   /* ready before it too */
        t = t < 0 ? 0 : t;
        double len = lens[rand() % (sizeof lens / sizeof *lens)];
        double want = ref_take(r, cal.per, scale, t, len, disp);
        double got = ports_take(&pl, 0, 0, t, len, disp);
        cr_assert_eq(got, want, "uop %u (scale %g): ready at %g for %g cycles after %g: %g, the set says %g", i,
                     scale, t, len, disp, got, want);
    }
    free(r);
}

Test(ports, a_calendar_gives_each_uop_the_cycles_a_set_of_busy_cycles_gives_it)
{
    for (unsigned seed = 1; seed <= 8; seed++) {
        expect_same_as_reference(1, seed);
        expect_same_as_reference(0.87, seed);
        expect_same_as_reference(1.15, seed);
    }
}

/* A uop at every place of the window, then the dispatch time moved on so that the window starts
 * at that uop's cycle (every shift from one cycle to beyond the window): a uop ready before the
 * dispatch time finds that cycle taken exactly when the set says so. */
Test(ports, a_calendar_keeps_the_cycle_before_dispatch_across_a_shift_of_any_length)
{
    for (int64_t at = 1; at < CAL_CYCLES + 8; at++) {
        struct ref *r = calloc(1, sizeof *r);
        struct ports_cal cal = { .scale = 1, .per = 1 };
        struct ports_lanes pl = { .L = 1, .cal = &cal };
        double first[2] = { ports_take(&pl, 0, 0, (double)at, 1, 1), ref_take(r, 1, 1, (double)at, 1, 1) };
        cr_assert_eq(first[0], first[1], "a uop ready at %lld", (long long)at);
        double disp = (double)at + 1;
        double got = ports_take(&pl, 0, 0, 0, 1, disp), want = ref_take(r, 1, 1, 0, 1, disp);
        cr_assert_eq(got, want, "after a uop at %lld and a dispatch at %g: %g, the set says %g", (long long)at,
                     disp, got, want);
        free(r);
    }
}
