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

/* One lane's calendar of one port, at SCALE cycles a cycle. */
struct one_cal {
    int64_t base;
    uint64_t bits[CAL_WORDS];
    double scale, per;
    struct ports_lanes pl;
};

static void one_cal_init(struct one_cal *c, double scale)
{
    *c = (struct one_cal){ .scale = scale, .per = 1 / scale };
    c->pl = (struct ports_lanes){ .L = 1, .base = &c->base, .scale = &c->scale, .per = &c->per };
    for (unsigned w = 0; w < CAL_WORDS; w++)
        c->pl.bits[w] = &c->bits[w];
}

/* A port at SCALE cycles a cycle: uops ready at random times after a dispatch time that moves on
 * (by every distance the window may shift, now and then), most of one cycle, some of several (a
 * divider), some far ahead (to the window's end and beyond it). */
static void expect_same_as_reference(double scale, unsigned seed)
{
    struct ref *r = calloc(1, sizeof *r);
    struct one_cal cal;
    one_cal_init(&cal, scale);
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
        double got = ports_take(&cal.pl, 0, 0, t, len, disp);
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
        struct one_cal cal;
        one_cal_init(&cal, 1);
        double first[2] = { ports_take(&cal.pl, 0, 0, (double)at, 1, 1), ref_take(r, 1, 1, (double)at, 1, 1) };
        cr_assert_eq(first[0], first[1], "a uop ready at %lld", (long long)at);
        double disp = (double)at + 1;
        double got = ports_take(&cal.pl, 0, 0, 0, 1, disp), want = ref_take(r, 1, 1, 0, 1, disp);
        cr_assert_eq(got, want, "after a uop at %lld and a dispatch at %g: %g, the set says %g", (long long)at,
                     disp, got, want);
        free(r);
    }
}

/* A port's row of calendars for PORTS_PASS lanes, each at its own speed (some taking no time). */
struct row {
    _Alignas(64) int64_t base[PORTS_PASS];
    _Alignas(64) uint64_t bits[CAL_WORDS][PORTS_PASS];
    _Alignas(64) double scale[PORTS_PASS], per[PORTS_PASS];
    struct ports_lanes pl;
};

static void row_init(struct row *r)
{
    static const double scales[] = { 1, 0.87, 1.15, 0.5, 0 };
    memset(r, 0, sizeof *r);
    r->pl = (struct ports_lanes){ .L = PORTS_PASS, .base = r->base, .scale = r->scale, .per = r->per };
    for (unsigned w = 0; w < CAL_WORDS; w++)
        r->pl.bits[w] = r->bits[w];
    for (unsigned l = 0; l < PORTS_PASS; l++) {
        r->scale[l] = scales[l % (sizeof scales / sizeof *scales)];
        r->per[l] = r->scale[l] > 0 ? 1 / r->scale[l] : 0;
    }
}

/* The pass over the lanes of a port (the one-cycle case without a branch, ports_take_on for what
 * it leaves; NATIVE: with AVX-512's conversions, else AVX2's) against ports_take_on alone, lane by
 * lane: random ready and dispatch times (far ahead now and then, so that the window moves by every
 * distance or cannot hold the uop, and once in a while beyond what a double's mantissa converts),
 * lanes without ports, lanes outside the range, ports that take no time; the same starts, the same
 * calendars after every uop. */
static void expect_pass_agrees(bool native)
{
    struct row *pass = malloc(sizeof *pass), *alone = malloc(sizeof *alone);
    row_init(pass);
    row_init(alone);
    srand(7);
    double disp[PORTS_PASS] = { 0 };
    uint64_t off[PORTS_PASS];
    for (unsigned l = 0; l < PORTS_PASS; l++)
        off[l] = l % 7 == 3;
    unsigned took_slow = 0;
    for (unsigned i = 0; i < 200000; i++) {
        double t[PORTS_PASS], at[PORTS_PASS], left[PORTS_PASS] = { 0 };
        uint64_t rest[PORTS_PASS];
        unsigned a = rand() % 3, b = PORTS_PASS - rand() % 3;
        for (unsigned l = 0; l < PORTS_PASS; l++) {
            disp[l] += rand() % 50 == 0 ? rand() % 400 : (rand() % 4) * 0.25;
            t[l] = disp[l] + (rand() % 8 == 0 ? rand() % 300 : (rand() % 64) * 0.5 - 4);
            t[l] = t[l] < 0 ? 0 : rand() % 5000 == 0 ? 0x1p53 : t[l];
        }
        double rank = rand() % 3;
        ports_take_lanes_(pass->base, pass->bits[0], pass->bits[1], pass->scale, pass->per, t, disp, off, rank, at,
                          rest, a, b, 0, PORTS_PASS, native);
        for (unsigned l = a; l < b; l++) {
            left[l] = rest[l] != 0;
            took_slow += rest[l] != 0;
            if (rest[l])
                at[l] = ports_take_on(&pass->pl, l, t[l], 1, 1, disp[l]) - rank;
            double want = off[l] ? -INFINITY : ports_take_on(&alone->pl, l, t[l], 1, 1, disp[l]) - rank;
            cr_assert_eq(at[l], want, "uop %u, lane %u (scale %g, left %g): ready at %.17g after %.17g: %.17g, "
                         "alone %.17g", i, l, pass->scale[l], left[l], t[l], disp[l], at[l], want);
        }
        cr_assert_arr_eq(pass->base, alone->base, sizeof pass->base, "uop %u: the windows' starts differ", i);
        cr_assert_arr_eq(pass->bits, alone->bits, sizeof pass->bits, "uop %u: the windows differ", i);
    }
    cr_expect_gt(took_slow, 0, "some uops found no free cycle in the window: the fallback was tried");
    free(pass);
    free(alone);
}

Test(ports, the_pass_over_lanes_takes_the_cycles_each_lane_takes_alone) { expect_pass_agrees(true); }

Test(ports, the_pass_in_avx2s_instructions_takes_the_cycles_each_lane_takes_alone) { expect_pass_agrees(false); }
