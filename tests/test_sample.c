/* Sampling a stream: the schedule's phases and marks instruction by instruction, and the
 * estimators on units whose answer is known (constant, proportional, and random populations
 * sampled as the schedule does, whose intervals must hold the true total about 95% of the time). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "block.h"
#include "classify.h"
#include "decode.h"
#include "model.h"
#include "result.h"
#include "sample.h"

extern const struct mdl_machine mdl_machine_skylake;

/* The flags of the first N instructions under plan P, one letter each: 'm' modelled, '.' skipped;
 * before it 'E' (exact part ended), 'S' (unit starts), 'U' (unit ended), 'R' (the lanes rest),
 * 'J' (they join the baseline), 'N' (the end phase begins); the clock told the end is near before
 * instruction END (none when END is N or more). */
static void trace_clock_ending(const struct sample_plan *p, unsigned n, unsigned end, char *out)
{
    struct sample_clock c;
    sample_clock_start(&c, p);
    for (unsigned i = 0; i < n; i++) {
        if (i == end)
            sample_clock_end(&c);
        unsigned f = sample_tick(&c, 0);
        if (f & SAMPLE_EXACT_END)
            *out++ = 'E';
        if (f & SAMPLE_UNIT_END)
            *out++ = 'U';
        if (f & SAMPLE_REST)
            *out++ = 'R';
        if (f & SAMPLE_JOIN)
            *out++ = 'J';
        if (f & SAMPLE_UNIT_START)
            *out++ = 'S';
        if (f & SAMPLE_END)
            *out++ = 'N';
        *out++ = f & SAMPLE_MODEL ? 'm' : '.';
    }
    *out = 0;
}

static void trace_clock(const struct sample_plan *p, unsigned n, char *out)
{
    trace_clock_ending(p, n, n, out);
}

/* Each period: a lead skipped (at most what the warm-up and unit leave of the period, its length a
 * hash of the period's number: here 3 then 1), the warm-up, the unit, the rest skipped. */
Test(sample, the_schedule_models_the_exact_part_then_warms_measures_and_skips_each_period)
{
    struct sample_plan p = { .exact = 3, .period = 8, .warm = 2, .unit = 3, .epoch = 0 };
    char got[128];
    trace_clock(&p, 3 + 16, got);
    cr_expect_str_eq(got, "mmmE...mmSmmmU.mmSmmmU..");
}

/* The lanes rest through the first REST instructions of each warm-up and join before the rest of
 * it; a rest as long as the warm-up joins them at the unit's start. */
Test(sample, the_lanes_rest_through_the_first_part_of_each_warm_up)
{
    struct sample_plan p = { .exact = 3, .period = 8, .warm = 3, .rest = 2, .unit = 2, .epoch = 0 };
    char got[128];
    trace_clock(&p, 3 + 16, got);
    cr_expect_str_eq(got, "mmmE...RmmJmSmmU.RmmJmSmmU..");
    p.rest = p.warm;
    trace_clock(&p, 3 + 10, got);
    cr_expect_str_eq(got, "mmmE...RmmmJSmmU.Rm");
}

Test(sample, the_period_doubles_after_each_epoch)
{
    struct sample_plan p = { .exact = 0, .period = 4, .warm = 1, .unit = 1, .epoch = 2 };
    char got[128];
    trace_clock(&p, 4 + 4 + 8 + 8, got);
    cr_expect_str_eq(got, "E.mSmU...mSmU....mSmU....mSmU....");     /* leads 1, 2, then 4, 2 */
}

/* A loop whose length divides the period is not seen from one place: the units start at each of
 * its places about equally often (at one place, the model's readings there, not the loop's
 * average, would end up in the estimate); and each unit is a draw from anywhere its period leaves
 * room for, so that what recurs in step with the period is met too: the starts fill the room
 * evenly. */
Test(sample, units_start_at_every_place_of_a_loop_whose_length_divides_the_period)
{
    struct sample_plan p = { .exact = 0, .period = 200, .warm = 20, .unit = 10, .epoch = 0 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    unsigned at[5] = { 0 }, quarter[4] = { 0 }, units = 0;
    for (unsigned t = 0; t < 200 * 4000; t++)
        if (sample_tick(&c, 0) & SAMPLE_UNIT_START) {
            unsigned in = t % 200;
            cr_assert(in >= 20 && in <= 200 - 10, "a unit starts %u into its period", in);
            at[t % 5]++, units++;
            quarter[(in - 20) * 4 / 171]++;
        }
    cr_assert_eq(units, 4000);
    for (unsigned k = 0; k < 5; k++)
        cr_expect(at[k] > units / 5 * 3 / 4 && at[k] < units / 5 * 5 / 4, "%u units of %u start at place %u", at[k],
                  units, k);
    for (unsigned k = 0; k < 4; k++)
        cr_expect(quarter[k] > units / 4 * 3 / 4 && quarter[k] < units / 4 * 5 / 4,
                  "%u units of %u start in quarter %u of the room", quarter[k], units, k);
}

/* Each warm-up is its plan's length and 0 to WARM_SPREAD more, drawn for each period: every length
 * about equally often, the unit's start moving with it, and the period's length kept (the skip
 * after the unit gives back what the warm-up took). */
Test(sample, each_warm_up_takes_a_length_drawn_between_its_own_and_the_spread_more)
{
    struct sample_plan p = { .exact = 0, .period = 200, .warm = 20, .warm_spread = 15, .unit = 10, .epoch = 0 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    unsigned seen[16] = { 0 }, periods = 0, warm = 0, model = 0;
    for (unsigned t = 0; t < 200 * 3200; t++) {
        unsigned f = sample_tick(&c, 0);
        if (f & SAMPLE_UNIT_START) {
            cr_assert(warm >= 20 && warm <= 35, "a warm-up of %u", warm);
            seen[warm - 20]++, periods++;
        }
        warm = f & SAMPLE_MODEL ? warm + 1 : 0;
        model += !!(f & SAMPLE_MODEL);
        if (t % 200 == 199)
            cr_assert_eq(c.periods, t / 200 + 1, "period %u keeps its length", t / 200);
    }
    cr_assert_eq(periods, 3200);
    for (unsigned k = 0; k < 16; k++)
        cr_expect(seen[k] > 200 * 3 / 4 && seen[k] < 200 * 5 / 4, "%u warm-ups of %u", seen[k], 20 + k);
    cr_expect(model > 3200 * 37 && model < 3200 * 38, "%u modelled: 27.5 + 10 a period on average", model);
}

/* The last unit-long part of each warm-up is marked as it starts (the drift is read over it),
 * whatever the warm-up's drawn length, and nothing changes what is modelled; a warm-up shorter
 * than a unit after the lanes' rest has no such part. */
Test(sample, the_last_unit_long_part_of_each_warm_up_is_marked_where_the_warm_up_is_that_long)
{
    struct sample_plan p = { .exact = 0, .period = 200, .warm = 20, .warm_spread = 15, .unit = 10, .epoch = 0 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    unsigned since = 0, marks = 0, units = 0;
    for (unsigned t = 0; t < 200 * 400; t++) {
        unsigned f = sample_tick(&c, 0);
        if (f & SAMPLE_PRE_START)
            marks++, since = 0;
        if (f & SAMPLE_UNIT_START) {
            cr_assert_eq(marks, units + 1, "one mark before each unit");
            cr_assert_eq(since, 10, "the part before unit %u: %u instructions", units, since);
            units++;
        }
        cr_assert(!(f & SAMPLE_PRE_START) || (f & SAMPLE_MODEL), "the part is modelled");
        since++;
    }
    cr_expect_eq(units, 400);
    char got[128];
    struct sample_plan q = { .exact = 3, .period = 8, .warm = 2, .unit = 3, .epoch = 0 };
    sample_clock_start(&c, &q);
    for (unsigned t = 0; t < 3 + 16; t++)
        cr_expect(!(sample_tick(&c, 0) & SAMPLE_PRE_START), "a warm-up of 2 has no part of 3");
    trace_clock(&q, 3 + 16, got);
    cr_expect_str_eq(got, "mmmE...mmSmmmU.mmSmmmU..", "the schedule is the same");
}

/* As a skip begins, the clock tells how many instructions it skips at most before the next
 * warm-up: the rest of its period, the next one's lead (which a doubling period draws from its own
 * room) and as far as that warm-up may move on
 * to start where the model left off. Exactly as many where no address recurs, fewer in a loop. */
Test(sample, a_skip_knows_how_far_it_may_go_through_the_next_periods_lead)
{
    struct sample_plan p = { .exact = 50, .period = 100, .warm = 10, .warm_spread = 10, .unit = 5, .epoch = 3 };
    for (unsigned loop = 0; loop < 2; loop++) {
        struct sample_clock c;
        sample_clock_start(&c, &p);
        uint64_t told = 0, run = 0;
        unsigned skips = 0, shorter = 0;
        for (unsigned t = 0; t < 100 * 3 * 15; t++) {
            unsigned f = sample_tick(&c, loop ? t % 7 : t);
            if (!(f & SAMPLE_MODEL) && !run) {
                told = sample_clock_skip_left(&c);
                run = 1;
            } else if (!(f & SAMPLE_MODEL)) {
                run++;
            } else if (run) {
                cr_assert(loop ? run <= told : run == told, "skip %u: %llu skipped, %llu told", skips,
                          (unsigned long long)run, (unsigned long long)told);
                shorter += run < told;
                skips++, run = 0;
            }
        }
        cr_expect_gt(skips, 3 * 3, "skips in three epochs and more");
        if (loop)
            cr_expect_gt(shorter, 0, "a loop's warm-ups start before the furthest they may");
    }
}

/* The period that C's instruction belongs to has the lanes (sample_rec's turns; no epochs). */
static bool lanes_period(const struct sample_clock *c)
{
    return (c->begun - 1) % c->plan.lanes_every == 0;
}

/* A skip is seamless in a loop (7 addresses here): the first instruction modelled after it is the
 * one whose address followed the last unit, and the lanes, which join one period in two, join where
 * they left off, the baseline modelled from where it did. A period whose lead was drawn near the
 * end of its room waits beyond it; the next one begins that much later, and periods go on from
 * where they would have begun once the skips after it gave it back. */
Test(sample, a_warm_up_starts_where_the_model_left_off_and_the_lanes_join_where_they_did)
{
    struct sample_plan p = { .exact = 10, .period = 60, .warm = 6, .warm_spread = 4, .unit = 5, .epoch = 0,
                             .lanes_every = 2 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    uint64_t base_at = UINT64_MAX, lanes_at = UINT64_MAX, begun = 0;
    unsigned starts = 0, joins = 0, apart = 0, late = 0, room = 60 - 6 - 4 - 5;
    bool modelled = true, unit_lanes = false;
    for (unsigned t = 0; t < 10 + 60 * 40; t++) {
        uint64_t pc = 0x1000 + 4 * (t % 7);
        unsigned f = sample_tick(&c, pc);
        if (c.begun != begun) {
            unsigned at = 10 + 60 * (unsigned)(c.begun - 1);
            cr_assert(t >= at && t < at + room, "period %llu begins at %u, not %u", (unsigned long long)c.begun, t, at);
            begun = c.begun, late += t > at;
        }
        if (f & (SAMPLE_EXACT_END | SAMPLE_UNIT_END)) {     /* (the next period may begin with it) */
            base_at = pc;
            lanes_at = f & SAMPLE_EXACT_END || unit_lanes ? pc : lanes_at;
        }
        if (f & SAMPLE_UNIT_START)
            unit_lanes = lanes_period(&c);
        if ((f & SAMPLE_MODEL) && !modelled) {
            cr_assert_eq(pc, base_at, "a warm-up starts at %#llx", (unsigned long long)pc);
            starts++;
        }
        if ((f & SAMPLE_JOIN) && lanes_period(&c)) {
            cr_assert_eq(pc, lanes_at, "the lanes join at %#llx", (unsigned long long)pc);
            joins++, apart += lanes_at != base_at;
        }
        modelled = f & SAMPLE_MODEL;
    }
    cr_expect_eq(starts, 40);
    cr_expect_eq(joins, 20);
    cr_expect_gt(apart, 0, "the lanes left off elsewhere than the baseline");
    cr_expect_lt(late, 40 / 4, "%u of 40 periods begin late", late);
}

/* Where no address recurs, a warm-up starts as far after its lead as it may wait (half the period's
 * room here, less than SAMPLE_ALIGN_MAX), and periods still begin where they would have, but for what
 * those before took beyond their length and the next ones give back. */
Test(sample, a_warm_up_that_meets_no_address_where_the_model_left_off_starts_as_late_as_it_may)
{
    struct sample_plan p = { .exact = 10, .period = 60, .warm = 6, .warm_spread = 4, .unit = 5, .epoch = 0 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    unsigned starts = 0, room = 60 - 6 - 4 - 5;
    uint64_t begun = 0;
    bool modelled = true;
    for (unsigned t = 0; t < 10 + 60 * 40; t++) {
        unsigned f = sample_tick(&c, t);
        if (c.begun != begun) {
            unsigned at = 10 + 60 * (unsigned)(c.begun - 1);
            cr_assert(t >= at && t < at + 2 * room, "period %llu begins at %u, not %u", (unsigned long long)c.begun, t,
                      at);
            begun = c.begun;
        }
        if ((f & SAMPLE_MODEL) && !modelled) {
            cr_assert_eq(c.moved, room / 2, "a warm-up waited %llu", (unsigned long long)c.moved);
            starts++;
        }
        modelled = f & SAMPLE_MODEL;
    }
    cr_expect_geq(starts, 39);
    cr_expect_geq(begun, 40, "the periods kept their places: %llu began", (unsigned long long)begun);
}

/* A machine's reorder buffer sets the warm-ups: at least four of it, and four of it more drawn,
 * as far as the first period leaves room (half of what its warm-up and unit leave); an exact plan
 * has none. */
Test(sample, the_warm_ups_scale_with_the_reorder_buffer_as_far_as_the_period_allows)
{
    struct sample_plan p = sample_plan_default(false, 20000);
    sample_plan_fit_window(&p, 224);
    cr_expect_eq(p.warm, 2000);
    cr_expect_eq(p.warm_spread, 896);
    p = sample_plan_default(false, 20000);
    sample_plan_fit_window(&p, 512);
    cr_expect_eq(p.warm, 2048);
    cr_expect_eq(p.warm_spread, 2048);
    p = sample_plan_default(false, 10000);
    sample_plan_fit_window(&p, 2000);
    cr_expect_eq(p.warm, 2000, "8,000 and a unit leave no room in a period of 10,000");
    cr_expect_eq(p.warm_spread, 3500);
    p = sample_plan_default(false, 20000);
    sample_plan_fit_window(&p, 0);
    cr_expect_eq(p.warm, 2000, "a description silent on its window");
    cr_expect_eq(p.warm_spread, 0);
    p = sample_plan_exact();
    sample_plan_fit_window(&p, 224);
    cr_expect_eq(p.warm, 0);
    cr_expect_eq(p.warm_spread, 0);
}

/* Told that the stream's end is near, the clock models every instruction from then on: after the
 * unit in progress (a warm-up goes on to its unit), at once in a skip or a lead, and after the
 * exact part. 'N' marks where the end phase begins. */
Test(sample, near_the_end_the_clock_models_everything_after_the_unit_in_progress)
{
    struct sample_plan p = { .exact = 3, .period = 8, .warm = 2, .unit = 3, .epoch = 0 };
    char got[128];
    trace_clock_ending(&p, 3 + 16, 8, got);     /* in the first unit */
    cr_expect_str_eq(got, "mmmE...mmSmmmUNmmmmmmmm");
    trace_clock_ending(&p, 3 + 16, 4, got);     /* in the first lead */
    cr_expect_str_eq(got, "mmmE.Nmmmmmmmmmmmmmmm");
    trace_clock_ending(&p, 3 + 16, 7, got);     /* in the warm-up */
    cr_expect_str_eq(got, "mmmE...mmSmmmUNmmmmmmmm");
    trace_clock_ending(&p, 3 + 16, 11, got);    /* as the second period's lead begins */
    cr_expect_str_eq(got, "mmmE...mmSmmmUNmmmmmmmm");
    trace_clock_ending(&p, 3 + 16, 1, got);     /* in the exact part */
    cr_expect_str_eq(got, "mmmENmmmmmmmmmmmmmmmm");
}

Test(sample, an_exact_plan_models_everything_and_marks_nothing)
{
    struct sample_plan p = sample_plan_exact();
    char got[64];
    trace_clock(&p, 40, got);
    cr_expect_str_eq(got, "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm");
}

/* A lane of N units of the given values (time only; the asynchronous bound stays 0). */
static struct sample_lane lane_of(double exact, double *units)
{
    static double zeros[4096];
    return (struct sample_lane){ .exact = { exact, 0 }, .unit = { units, zeros } };
}

Test(sample, units_that_all_agree_give_the_total_and_an_interval_of_no_width)
{
    double u[50];
    for (int i = 0; i < 50; i++)
        u[i] = 400;                 /* 0.4 cycles per instruction */
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000 }, .n_exact = 1000,
                               .n_rest = 1000000, .n_units = 50 };
    struct sample_lane l = lane_of(700, u);
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, 700 + 400000, 1e-6);
    cr_expect_float_eq(e.low, e.cycles, 1e-6);
    cr_expect_float_eq(e.high, e.cycles, 1e-6);
}

Test(sample, a_lane_twice_as_fast_in_every_unit_and_the_exact_part_is_a_speed_up_of_two_exactly)
{
    double base[64], fast[64];
    unsigned seed = 7;
    for (int i = 0; i < 64; i++) {
        base[i] = 300 + rand_r(&seed) % 500;
        fast[i] = base[i] / 2;
    }
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000 }, .n_exact = 5000,
                               .n_rest = 64 * 20000, .n_units = 64 };
    struct sample_lane b = lane_of(9000, base), f = lane_of(4500, fast);
    struct sample_estimate sp = sample_speedup(&s, &b, &f), c = sample_cycles(&s, &b);
    cr_expect_float_eq(sp.cycles, 2, 1e-12);
    cr_expect_float_eq(sp.low, 2, 1e-9);
    cr_expect_float_eq(sp.high, 2, 1e-9);
    cr_expect_gt(c.high - c.low, 0, "the cycles themselves vary: their interval has a width");
}

Test(sample, a_run_too_short_for_two_units_gives_the_rest_as_nothing_to_twice_its_estimate)
{
    double u[1] = { 500 };
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000 }, .n_exact = 1000,
                               .n_rest = 4000, .n_units = 1 };
    struct sample_lane l = lane_of(800, u);
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, 800 + 2000, 1e-9);
    cr_expect_float_eq(e.low, 800, 1e-9);
    cr_expect_float_eq(e.high, 800 + 4000, 1e-9);
}

/* A program of phases: each of its PIECES unit-sized pieces costs a phase's rate plus noise; with
 * FAST, a lane's pieces too, faster by a rate of each phase's and noise of their own. Its totals
 * in TOTAL[0] and TOTAL[1]. */
enum { PIECES = 60000, PROGRAMS = 200 };
static void phased_program(unsigned *seed, double *piece, double *fast, double *total)
{
    double rate = 0, gain = 0;
    total[0] = total[1] = 0;
    for (int i = 0; i < PIECES; i++) {
        if (i % 7000 == 0) {
            rate = 200 + rand_r(seed) % 2000;
            gain = fast ? 0.7 + (rand_r(seed) % 300) / 1000.0 : 1;
        }
        piece[i] = rate * (0.5 + (rand_r(seed) % 1000) / 1000.0);
        total[0] += piece[i];
        if (fast)
            total[1] += fast[i] = piece[i] * gain * (0.95 + (rand_r(seed) % 100) / 1000.0);
    }
}

/* What the reader knows of a program sampled (sample_stream): each piece's KNOWN, summed by unit
 * (UNIT) and by period (PERIOD). */
struct known_parts {
    const double *piece;
    double *unit, *period;
};

/* The schedule, at a tenth of the scale (a piece is a unit of 10 instructions), over the
 * program: its stream, each unit's piece in UNIT, and in UNIT_FAST, where not NULL, the lane's
 * pieces in its units (all in the first epoch, then the odd ones; the others are never read);
 * with KNOWN, what the reader knows of the pieces too. */
static struct sample_stream sample_program(const double *piece, const double *fast, double *unit, double *unit_fast,
                                           const struct known_parts *known)
{
    struct sample_plan p = { .exact = 0, .period = 200, .warm = 20, .unit = 10, .epoch = 500 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    size_t n = 0;
    if (known)
        memset(known->period, 0, PIECES * sizeof *known->period);
    for (int t = 0; t < PIECES * 10; t++) {
        unsigned f = sample_tick(&c, 0);
        if (f & SAMPLE_UNIT_START) {
            unit[n] = piece[t / 10];
            if (unit_fast)
                unit_fast[n] = n < 500 || n % 2 == 1 ? fast[t / 10] : NAN;
            if (known)
                known->unit[n] = known->piece[t / 10];
            n++;
        }
        if (known && t % 10 == 0)
            known->period[c.begun - 1] += known->piece[t / 10];
    }
    struct sample_stream s = { .plan = p, .n_exact = 0, .n_rest = (uint64_t)PIECES * 10, .n_units = n };
    if (known) {
        s.known_unit = known->unit;
        s.known_period = known->period;
        s.n_periods = c.begun;
    }
    return s;
}

/* How often the intervals over the PROGRAMS held the truth, and the estimates' mean relative error. */
struct tally {
    unsigned held;
    double bias;
};

static void tally_add(struct tally *t, struct sample_estimate e, double truth)
{
    t->held += e.low <= truth && truth <= e.high;
    t->bias += (e.cycles - truth) / truth / PROGRAMS;
}

/* About 95% held (at least 180 of the 200), and no bias beyond 0.5%. */
static void expect_tally(struct tally t, const char *what)
{
    cr_expect_geq(t.held, 180, "the interval held the %s in %u of %d programs", what, t.held, PROGRAMS);
    cr_expect_lt(fabs(t.bias), 0.005, "mean relative error %g", t.bias);
}

/* Sampled as the schedule samples (epochs included), the interval holds the true total of such a
 * program in about 95% of 200, and the estimate is unbiased. */
Test(sample, intervals_over_random_phased_programs_hold_the_true_total_about_95_percent_of_the_time)
{
    static double piece[PIECES], unit[PIECES];
    unsigned seed = 2026;
    struct tally t = { 0 };
    for (int prog = 0; prog < PROGRAMS; prog++) {
        double total[2];
        phased_program(&seed, piece, NULL, total);
        struct sample_stream s = sample_program(piece, NULL, unit, NULL, NULL);
        struct sample_lane l = lane_of(0, unit);
        tally_add(&t, sample_cycles(&s, &l), total[0]);
    }
    expect_tally(t, "total");
}

/* With a faster lane measured in one unit of two after the first epoch, the speed-up's interval
 * (paired with the baseline's same units) holds the true one in about 95% of 200 programs. */
Test(sample, a_lane_measured_in_one_unit_of_two_holds_the_true_speed_up_about_95_percent_of_the_time)
{
    static double piece[PIECES], fast[PIECES], unit[PIECES], unit_fast[PIECES];
    unsigned seed = 2027;
    struct tally t = { 0 };
    for (int prog = 0; prog < PROGRAMS; prog++) {
        double total[2];
        phased_program(&seed, piece, fast, total);
        struct sample_stream s = sample_program(piece, fast, unit, unit_fast, NULL);
        cr_assert_gt(s.n_units, 1000, "units in the later epochs");
        struct sample_lane b = lane_of(0, unit), l = lane_of(0, unit_fast);
        l.every = 2, l.first = 1, l.from = 500;
        struct sample_estimate e = sample_speedup(&s, &b, &l);
        cr_assert(isfinite(e.cycles) && isfinite(e.low) && isfinite(e.high));
        tally_add(&t, e, total[0] / total[1]);
    }
    expect_tally(t, "speed-up");
}

/* The lanes measure every unit of the first LANES_FROM periods, then one in four: for them, the
 * periods before the turns are a stratum of their own, so that the units taken more densely do not
 * stand for the rest of the epoch. A lane twice as fast through the first 125 units only (600
 * units, every one alike but for that) has its speed-up exactly; counted with the epoch's other
 * units, the first 125 would have been 125 of its 218 and the speed-up 1.26. The baseline, which
 * measures every unit, keeps its epochs whole. */
Test(sample, the_units_before_the_lanes_take_turns_are_a_stratum_of_their_own)
{
    double base[600], lane[600];
    struct sample_plan p = { .period = 200, .warm = 20, .unit = 10, .epoch = 500, .lanes_every = 4, .lanes_from = 125 };
    struct sample_lane b = lane_of(0, base), l = lane_of(0, lane);
    l.every = 4, l.first = 0, l.from = 125;
    for (int i = 0; i < 600; i++) {
        base[i] = 100;
        lane[i] = i < 125 ? 50 : i % 4 == 0 ? 100 : NAN;
    }
    /* periods of 200 through the first epoch, of 400 in the second */
    struct sample_stream s = { .plan = p, .n_exact = 0, .n_rest = 500 * 200 + 100 * 400, .n_units = 600 };
    double truth = (500.0 * 20 * 100 + 100.0 * 40 * 100) / (125.0 * 20 * 50 + 375.0 * 20 * 100 + 100.0 * 40 * 100);
    struct sample_estimate e = sample_speedup(&s, &b, &l);
    cr_expect_float_eq(e.cycles, truth, 1e-9, "%.6f against %.6f", e.cycles, truth);
    size_t hi[SAMPLE_MAX_STRATA];
    double est[SAMPLE_MAX_STRATA];
    cr_expect_eq(sample_strata(&s, &b, hi, est), 2, "the baseline's two epochs");
    cr_expect_eq(hi[0], 500);
}

/* A scope too short for a unit (a function of a dozen instructions called a hundred times, sampled
 * on request): the rest goes at the rate of the part the model stepped after the exact part (the
 * tail, then), with no spread known; all of it stepped, the estimate is exact. */
Test(sample, a_scope_with_no_unit_goes_at_the_rate_of_what_the_model_stepped)
{
    double none[1] = { 0 };
    struct sample_stream s = { .plan = { .period = 10000, .warm = 2000, .unit = 1000, .epoch = 500 }, .n_exact = 0,
                               .n_rest = 1200, .n_units = 0, .n_tail = 600 };
    struct sample_lane l = lane_of(0, none);
    l.tail[SAMPLE_TIME] = 200000;
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, 400000, 1e-6);
    cr_expect_float_eq(e.low, 0, 1e-6, "nothing known of the spread: from nothing");
    cr_expect_float_eq(e.high, 800000, 1e-6, "to twice the estimate");
    s.n_tail = 1200;
    e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, 200000, 1e-6);
    cr_expect_float_eq(e.high - e.low, 0, 1e-6, "every instruction modelled");
}

/* Ten periods of 20,000 instructions whose units all cost 400 cycles but for the copies in them;
 * the reader knew every copy's cycles, those in units (3 and 7) and one skipped (period 5), and
 * one in the tail: the estimate is the total, with no width. Not knowing them, each unit stands
 * for twenty, and so does each copy met. */
Test(sample, copies_the_reader_knows_are_counted_once_each_and_the_units_sample_the_rest)
{
    double u[10], unit_known[10] = { 0 }, period_known[10] = { 0 };
    for (int i = 0; i < 10; i++)
        u[i] = 400;
    u[3] += 50000, unit_known[3] = period_known[3] = 50000;
    u[7] += 50000, unit_known[7] = period_known[7] = 50000;
    period_known[5] = 80000;
    period_known[9] = 3000;         /* in the tail, after the last unit */
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000, .epoch = 500 }, .n_exact = 0,
                               .n_rest = 200000 + 7000, .n_units = 10, .n_tail = 7000 };
    struct sample_lane l = lane_of(0, u);
    l.tail[SAMPLE_TIME] = 9000;     /* its copy's 3,000 cycles included */
    struct sample_estimate blind = sample_cycles(&s, &l);
    cr_expect_float_eq(blind.cycles, 200 * 400 + 40 * 50000 + 9000, 1e-6);
    s.known_unit = unit_known, s.known_period = period_known, s.n_periods = 10, s.known_tail = 3000;
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, 200 * 400 + 2 * 50000 + 80000 + 9000, 1e-6);
    cr_expect_float_eq(e.high - e.low, 0, 1e-6, "the units agree on what is not known");
}

/* Programs of phases with rare long copies (one piece in 2,000 takes 200 to 1,000 times a piece's
 * cycles more), whose cycles the reader knows to within 10% (the model's own may differ): knowing
 * them, the interval holds the true total about 95% of the time and is several times narrower
 * than not knowing them. */
Test(sample, knowing_the_copies_cycles_narrows_the_interval_and_it_still_holds_the_true_total)
{
    static double piece[PIECES], known[PIECES], unit[PIECES], unit_known[PIECES], period_known[PIECES];
    unsigned seed = 2028;
    struct tally t = { 0 };
    double narrower = 0;
    for (int prog = 0; prog < PROGRAMS; prog++) {
        double total[2];
        phased_program(&seed, piece, NULL, total);
        for (int i = 0; i < PIECES; i++) {
            known[i] = rand_r(&seed) % 2000 ? 0 : piece[i] * (200 + rand_r(&seed) % 800);
            double took = known[i] * (0.9 + (rand_r(&seed) % 200) / 1000.0);
            piece[i] += took;
            total[0] += took;
        }
        struct known_parts k = { known, unit_known, period_known };
        struct sample_stream blind = sample_program(piece, NULL, unit, NULL, NULL);
        struct sample_stream s = sample_program(piece, NULL, unit, NULL, &k);
        struct sample_lane l = lane_of(0, unit);
        struct sample_estimate e = sample_cycles(&s, &l), b = sample_cycles(&blind, &l);
        tally_add(&t, e, total[0]);
        narrower += (b.high - b.low) / (e.high - e.low) / PROGRAMS;
    }
    expect_tally(t, "total");
    cr_expect_gt(narrower, 3, "knowing the copies made the interval %.2f times narrower", narrower);
}

/* Units whose cycles follow their misses (300 + 40 a miss), the units meeting 5 a unit on average
 * where their stratum has 6: each stratum's mean is moved by the misses it has more than its units
 * at the units' slope, and the estimate is the true total, where the plain mean of the units is 7%
 * low. The misses explain every unit, but the interval keeps half the width of the units' own
 * spread (EVENTS_NARROW_AT_MOST). Without the events, or with too few units for a slope, the plain
 * mean. */
Test(sample, a_stratums_mean_moves_by_the_misses_it_has_more_of_than_its_units)
{
    enum { N = 200 };
    static double u[N];
    static struct sample_events ev[N], at[N];
    unsigned seed = 11;
    for (int i = 0; i < N; i++) {
        ev[i].n[2] = rand_r(&seed) % 11;
        u[i] = 300 + 40 * ev[i].n[2];
        at[i].n[2] = 120.0 * i;     /* 20 units' worth of instructions a period, 6 misses each */
    }
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000, .epoch = 500 }, .n_exact = 0,
                               .n_rest = N * 20000, .n_units = N };
    struct sample_lane l = lane_of(0, u);
    struct sample_estimate plain = sample_cycles(&s, &l);
    s.event_unit = ev, s.event_at = at, s.n_event_periods = N, s.event_end.n[2] = 120.0 * N;
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, N * 20 * (300 + 40 * 6), 1e-6);
    cr_expect_lt(plain.cycles, 0.95 * e.cycles, "the units alone: %g", plain.cycles);
    cr_expect_float_eq(e.high - e.low, (plain.high - plain.low) / 2, 1e-6);
    s.n_units = 40, s.n_rest = 40 * 20000, s.n_event_periods = 40, s.event_end.n[2] = 120.0 * 40;
    struct sample_estimate few = sample_cycles(&s, &l);
    s.event_unit = NULL;
    cr_expect_float_eq(few.cycles, sample_cycles(&s, &l).cycles, 1e-9, "40 units: no slope");
}

/* The misses of each piece of a program sampled as sample_program samples it (MISSES, one per
 * piece) as S's events: each unit's (UNIT) and the count so far at each period's start (AT). */
static void sample_misses(const double *misses, struct sample_events *unit, struct sample_events *at,
                          struct sample_stream *s)
{
    struct sample_clock c;
    sample_clock_start(&c, &s->plan);
    size_t n = 0, seen = 0;
    double sum = 0;
    for (int t = 0; t < PIECES * 10; t++) {
        unsigned f = sample_tick(&c, 0);
        for (; seen < c.begun; seen++)
            at[seen] = (struct sample_events){ .n = { 0, 0, 0, sum } };
        if (f & SAMPLE_UNIT_START)
            unit[n++] = (struct sample_events){ .n = { 0, 0, 0, misses[t / 10] } };
        if (t % 10 == 0)
            sum += misses[t / 10];
    }
    s->event_unit = unit;
    s->event_at = at;
    s->n_event_periods = seen;
    s->event_end.n[3] = sum;
}

/* Programs of phases whose pieces cost their phase's rate with noise plus their misses, each at
 * its phase's cost (20 to 200 cycles: one slope cannot fit them all), as memory-bound code does:
 * moved by the misses the reader counts, the interval still holds the true total about 95% of the
 * time, and it is narrower than the units' own spread, but never below half of it. */
Test(sample, intervals_moved_by_the_misses_hold_the_true_total_and_narrow_by_at_most_half)
{
    static double piece[PIECES], misses[PIECES], unit[PIECES];
    static struct sample_events ev[PIECES], at[PIECES];
    unsigned seed = 2029;
    struct tally t = { 0 };
    double narrower = 0, narrowest = INFINITY;
    for (int prog = 0; prog < PROGRAMS; prog++) {
        double total[2], rate = 0, cost = 0;
        phased_program(&seed, piece, NULL, total);
        for (int i = 0; i < PIECES; i++) {
            if (i % 7000 == 0) {
                rate = rand_r(&seed) % 20;
                cost = 20 + rand_r(&seed) % 180;
            }
            misses[i] = floor(rate * (rand_r(&seed) % 2000) / 1000.0);
            piece[i] += cost * misses[i];
            total[0] += cost * misses[i];
        }
        struct sample_stream s = sample_program(piece, NULL, unit, NULL, NULL);
        struct sample_lane l = lane_of(0, unit);
        struct sample_estimate plain = sample_cycles(&s, &l);
        sample_misses(misses, ev, at, &s);
        struct sample_estimate e = sample_cycles(&s, &l);
        tally_add(&t, e, total[0]);
        double r = (plain.high - plain.low) / (e.high - e.low);
        narrower += r / PROGRAMS;
        narrowest = fmin(narrowest, 1 / r);
    }
    expect_tally(t, "total");
    cr_expect_gt(narrower, 1.5, "the misses made the interval %.2f times narrower", narrower);
    cr_expect_geq(narrowest, 0.5 - 1e-9, "one interval %.3f of the units' spread", narrowest);
}

/* Units whose mean is known to within 5% at 95% (the first forty alike, then 400 and 440 in turn:
 * a half-width of 0.6%) leave the period to double; units of 400 with one in ten at 4,000 (13%)
 * keep it; fewer than two say nothing. Known cycles are left out first: the same spread, known,
 * doubles. */
Test(sample, an_epoch_keeps_the_period_only_when_its_units_spread_widely)
{
    enum { N = 500 };
    static double even[N], wide[N], known[N];
    for (int i = 0; i < N; i++) {
        even[i] = i < 40 ? 400 : 400 + 40 * (i % 2);
        wide[i] = i % 10 ? 400 : 4000;
        known[i] = wide[i] - 400;
    }
    cr_expect_not(sample_keeps_period(even, NULL, N));
    cr_expect(sample_keeps_period(wide, NULL, N));
    cr_expect_not(sample_keeps_period(wide, known, N), "the reader knew the long ones");
    cr_expect_not(sample_keeps_period(wide, NULL, 1));
}

/* The N units UNIT of a stream of 600,000 instructions the clock C sampled under P give its
 * TOTAL exactly by the strata the clock's spans give, and not as if every epoch doubled. */
static void expect_strata_follow_the_clock(const struct sample_plan *p, const struct sample_clock *c, double *unit,
                                           size_t n, double total)
{
    struct sample_stream s = { .plan = *p, .span = c->span, .n_spans = c->n_spans, .n_exact = 0, .n_rest = 600000,
                               .n_units = n };
    struct sample_lane l = lane_of(0, unit);
    cr_expect_float_eq(sample_cycles(&s, &l).cycles, total, 1e-9 * total);
    s.span = NULL;
    cr_expect_gt(fabs(sample_cycles(&s, &l).cycles - total), 0.01 * total, "the strata as if every epoch doubled");
}

/* A stream of 600,000 instructions at a tenth of the scale (periods of 200 at first, epochs of 500
 * periods), each epoch's instructions costing more than the last's, whose third epoch keeps the
 * period of the second (asked while the second's last period runs, as run.c asks): the clock
 * counts 1,500 periods of 200, 400 and 400, then 125 of 800, and the strata follow it, so the
 * units, each exact for its epoch, give the total exactly. Taken as doubling, they would not. */
Test(sample, an_epoch_that_keeps_the_period_is_a_stratum_of_that_period)
{
    struct sample_plan p = { .exact = 0, .period = 200, .warm = 20, .unit = 10, .epoch = 500 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    static double unit[2000];
    size_t n = 0;
    double total = 0;
    for (int t = 0; t < 600000; t++) {
        unsigned f = sample_tick(&c, 0);
        if (c.periods == p.epoch && c.begun / p.epoch == 2)
            sample_clock_keep(&c);
        double rate = 1 + (double)((c.begun - 1) / p.epoch);
        total += rate;
        if (f & SAMPLE_UNIT_START)
            unit[n++] = 10 * rate;
    }
    cr_assert_eq(n, 1625, "periods begun: %zu", n);
    cr_expect_eq(c.kept, 1);
    cr_expect_eq(c.plan.period, 800);
    expect_strata_follow_the_clock(&p, &c, unit, n, total);
}

/* The same stream, the period halved from the 101st period on (asked as the 100th begins, as run.c
 * asks every SAMPLE_CHECK periods): 100 periods of 200, then 400 of 100 to the epoch's end, 500 of
 * 200 and 500 of 400 (it doubles again, from the halved period), and the rest at 800; the unit
 * before each change of period ends a stratum (SAMPLE_STRATUM_END), as each epoch's last does,
 * and the strata follow the spans, so that the units, each exact for its span, give the total
 * exactly. */
Test(sample, a_period_that_halves_for_the_rest_of_its_epoch_begins_a_stratum_of_its_own)
{
    struct sample_plan p = { .exact = 0, .period = 200, .warm = 20, .unit = 10, .epoch = 500 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    static double unit[2000];
    size_t n = 0, ends[8], n_ends = 0;
    double total = 0;
    for (int t = 0; t < 600000; t++) {
        unsigned f = sample_tick(&c, 0);
        if (c.begun == 100 && !c.halve && !c.halved)
            sample_clock_halve(&c);
        if ((f & SAMPLE_STRATUM_END) && n_ends < 8)
            ends[n_ends++] = n;
        cr_assert(!(f & SAMPLE_STRATUM_END) || (f & SAMPLE_UNIT_END), "a stratum ends with a unit");
        double rate = c.n_spans == 1 ? 1 : c.n_spans == 2 ? 3 : c.n_spans == 3 ? 2 : c.n_spans == 4 ? 5 : 4;
        total += rate;
        if (f & SAMPLE_UNIT_START)
            unit[n++] = 10 * rate;
    }
    cr_expect_eq(c.halved, 1);
    cr_assert_eq(c.n_spans, 5);
    const struct sample_span want[] = { { 0, 200 }, { 100, 100 }, { 500, 200 }, { 1000, 400 }, { 1500, 800 } };
    for (unsigned i = 0; i < 5; i++)
        cr_expect(c.span[i].from == want[i].from && c.span[i].period == want[i].period, "span %u: %llu, %llu", i,
                  (unsigned long long)c.span[i].from, (unsigned long long)c.span[i].period);
    cr_assert_eq(n_ends, 4, "strata ended: %zu", n_ends);
    for (unsigned i = 0; i < 4; i++)
        cr_expect_eq(ends[i], want[i + 1].from, "stratum %u ended after %zu units", i, ends[i]);
    expect_strata_follow_the_clock(&p, &c, unit, n, total);
}

/* A period halves only to one that holds twice the warm-up and unit, and a few times in a run. */
Test(sample, the_period_halves_no_lower_than_twice_the_warm_up_and_unit_and_at_most_a_few_times)
{
    struct sample_plan p = { .exact = 0, .period = 100, .warm = 20, .unit = 10, .epoch = 500 };
    struct sample_clock c;
    sample_clock_start(&c, &p);
    sample_clock_halve(&c);
    cr_expect_not(c.halve, "50 does not hold 2 x (20 + 10)");
    p.period = 1u << 20;
    sample_clock_start(&c, &p);
    for (int t = 0; t < 1 << 24; t++) {
        sample_tick(&c, 0);
        sample_clock_halve(&c);
    }
    cr_expect_eq(c.halved, SAMPLE_HALVE_MAX);
    cr_expect_eq(c.span[SAMPLE_HALVE_MAX].period, (1u << 20) >> SAMPLE_HALVE_MAX, "halved each time");
}

/* Units of 400 cycles, a tenth of them 4,000 (their mean 760): 50 of them at a period of 20,000
 * leave the cycles' 95% half-width at 39% of a run measured by them alone, 19% with a million
 * instructions before them known exactly, and 11% with 500 periods more like them ahead: too wide
 * each way; a hundred million before them make it 0.4%. Units of 400 and 520 in turn (their
 * spread 18% of their mean) are too wide alone (5.0%), not with 500 periods ahead (1.5%). Units
 * alike are never too wide, nor are those whose long ones the reader knows. */
Test(sample, a_run_is_too_wide_while_its_units_spread_beyond_two_and_a_half_percent_of_its_estimate)
{
    struct sample_plan p = sample_plan_default(false, 0);
    struct sample_clock c;
    sample_clock_start(&c, &p);
    enum { N = 50 };
    double wide[N], even[N], known[N], turns[N];
    for (int i = 0; i < N; i++) {
        wide[i] = i % 10 ? 400 : 4000;
        even[i] = 400;
        known[i] = wide[i] - 400;
        turns[i] = i % 2 ? 520 : 400;
    }
    cr_expect(sample_too_wide(&c, wide, NULL, N, 0, 0, p.period));
    cr_expect(sample_too_wide(&c, wide, NULL, N, 1000000, 0, p.period));
    cr_expect(sample_too_wide(&c, wide, NULL, N, 1000000, 500, p.period));
    cr_expect_not(sample_too_wide(&c, wide, NULL, N, 100000000, 0, p.period));
    cr_expect(sample_too_wide(&c, turns, NULL, N, 0, 0, p.period));
    cr_expect_not(sample_too_wide(&c, turns, NULL, N, 0, 500, p.period), "the periods ahead narrow it");
    cr_expect_not(sample_too_wide(&c, even, NULL, N, 0, 0, p.period));
    cr_expect_not(sample_too_wide(&c, wide, known, N, 0, 0, p.period), "the reader knew the long ones");
    cr_expect_not(sample_too_wide(&c, wide, NULL, 1, 0, 0, p.period), "one unit has no spread");
}

/* ---- the verdict of a sampled result ------------------------------------------------------------ */

extern const struct mdl_machine mdl_machine_skylake;

/* The verdict of a sampled result whose lanes take CYCLES (of their configuration), each speed-up
 * HALF wide on either side; with PAIRS, the plan has the pair lanes too. */
static void sampled_verdict(bool pairs, double (*cycles)(const struct rt_lane_cfg *), double half, char *text,
                            size_t len)
{
    static struct analysis_plan plan;
    char err[256];
    cr_assert(analysis_plan_init(&plan, &mdl_machine_skylake, (const double[]){ 1.15 }, 1, true, err, sizeof err), "%s",
              err);
    if (pairs)
        analysis_plan_pairs(&plan, NULL, 0, 0);
    struct result *r = calloc(1, sizeof *r);
    result_reset(r, &mdl_machine_skylake);
    analysis_start(r, &plan);
    r->sampling.sampled = true;
    for (unsigned l = 0; l < r->n_lanes; l++) {
        struct result_lane *ln = &r->lanes[l];
        ln->cycles = l ? cycles(&ln->cfg) : 1000;
        ln->speedup_low = 1000 / ln->cycles - half;
        ln->speedup_high = 1000 / ln->cycles + half;
        ln->cycles_low = ln->cycles_high = ln->cycles;
    }
    analysis_finish(r, NULL);
    snprintf(text, len, "%s", r->verdict.text);
    result_free(r);
    free(r);
}

/* LATENCY's lane 880 cycles, ROB's 890; every other 1000. */
static double single_cycles(const struct rt_lane_cfg *c)
{
    bool single = c->knob[1] == RT_KNOB_NONE;
    return single && c->knob[0] == RT_KNOB_LATENCY ? 880 : single && c->knob[0] == RT_KNOB_ROB ? 890 : 1000;
}

Test(sample, a_verdict_names_both_resources_when_their_sampled_intervals_overlap)
{
    char text[320];
    sampled_verdict(false, single_cycles, 0.001, text, sizeof text);
    cr_expect_str_eq(text, "latency bound (1.136x when 15% faster)");
    sampled_verdict(false, single_cycles, 0.01, text, sizeof text);
    cr_expect_str_eq(text, "latency or rob bound (1.136x and 1.124x when 15% faster: not separable within the 95% "
                           "intervals)");
}

/* A balanced result: no knob alone helps; of the pairs, latency with the front end takes 900
 * cycles, latency with memory latency 905. */
static double pair_cycles(const struct rt_lane_cfg *c)
{
    bool latency = c->knob[0] == RT_KNOB_LATENCY;
    return latency && c->knob[1] == RT_KNOB_FRONTEND ? 900 : latency && c->knob[1] == RT_KNOB_MEMORY_LATENCY ? 905 : 1000;
}

Test(sample, a_balanced_verdict_names_both_pairs_when_their_sampled_intervals_overlap)
{
    char text[320];
    sampled_verdict(true, pair_cycles, 0.001, text, sizeof text);
    cr_expect_str_eq(text, "balanced: latency+frontend bind together (1.111x only when both are faster)");
    sampled_verdict(true, pair_cycles, 0.01, text, sizeof text);
    cr_expect_str_eq(text, "balanced: latency+frontend or latency+memory_latency bind together (1.111x and 1.105x "
                           "only when both are faster: not separable within the 95% intervals)");
}

/* A lane measured in one unit of two (the odd ones): its speed-up pairs its units with the
 * baseline's same ones (the baseline's units vary, the lane is 10% faster in each: exactly 1/0.9,
 * no spread), its cycles are the baseline's over all units at that speed-up, and the units it did
 * not measure are never read. */
Test(sample, a_lane_measured_in_one_unit_of_two_pairs_its_units_with_the_baselines_same_ones)
{
    double base[60], lane[60];
    for (int i = 0; i < 60; i++) {
        base[i] = 400 + 150 * (i % 3);
        lane[i] = i % 2 ? 0.9 * base[i] : NAN;
    }
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000, .epoch = 40 }, .n_exact = 1000,
                               .n_rest = 1200000, .n_units = 60 };
    struct sample_lane b = lane_of(700, base), l = lane_of(630, lane);
    l.every = 2;
    l.first = 1;
    struct sample_estimate sp = sample_speedup(&s, &b, &l), c = sample_lane_cycles(&s, &b, &l),
                           c0 = sample_cycles(&s, &b);
    cr_expect_float_eq(sp.cycles, 1 / 0.9, 1e-9);
    cr_expect_float_eq(sp.low, sp.cycles, 1e-9);
    cr_expect_float_eq(sp.high, sp.cycles, 1e-9);
    cr_expect_float_eq(c.cycles, 0.9 * c0.cycles, 1e-6 * c0.cycles, "%.17g against %.17g", c.cycles, c0.cycles);
    cr_expect(c0.high > c0.low, "the baseline's units vary");
    cr_expect_float_eq(c.low, c0.low * 0.9, 1e-6 * c0.cycles);
    cr_expect_float_eq(c.high, c0.high * 0.9, 1e-6 * c0.cycles);
    /* the second epoch has 20 units, 10 of them the lane's; one of 41 units would have none of the
     * lane's in the second: it joins the first */
    s.n_units = 41;
    s.n_rest = 40 * 20000 + 40000;
    sp = sample_speedup(&s, &b, &l);
    cr_expect(isfinite(sp.cycles) && isfinite(sp.low) && isfinite(sp.high), "%g [%g, %g]", sp.cycles, sp.low, sp.high);
    cr_expect_float_eq(sp.cycles, 1 / 0.9, 1e-9);
}

Test(sample, the_tail_measured_in_full_adds_its_own_cycles_to_the_strata)
{
    double u[10];
    for (int i = 0; i < 10; i++)
        u[i] = 400;
    struct sample_stream s = { .plan = { .period = 20000, .warm = 2000, .unit = 1000, .epoch = 500 }, .n_exact = 0,
                               .n_rest = 200000 + 7000, .n_units = 10, .n_tail = 7000 };
    struct sample_lane l = lane_of(0, u);
    l.tail[SAMPLE_TIME] = 9000;     /* the program's exit: far slower than the units */
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, 200 * 400 + 9000, 1e-6);
    cr_expect_float_eq(e.high - e.low, 0, 1e-6, "every unit agrees and the tail is exact");
}

/* Units that all agree have no spread, but where each warm-up's last part took longer than its unit
 * the model had not settled: the interval holds the change that drift makes to the estimate, each
 * stratum's at its own units' mean (here 40 and 60 by turns, 50 cycles a unit, over the first
 * epoch's 40,000 instructions, -10 over the 160,000 after it), less its standard error (the first
 * stratum's turns: 160^2 x 200 / 20); units without a drift measured are left out. A drift within
 * its noise widens nothing. */
Test(sample, the_cycles_interval_holds_how_far_the_warm_ups_last_part_drifted_from_the_units)
{
    double u[60], d[60];
    for (int i = 0; i < 60; i++) {
        u[i] = 400;
        d[i] = i < 20 ? (i % 2 ? 60 : 40) : i == 30 ? NAN : -10;
    }
    struct sample_stream s = { .plan = { .period = 2000, .warm = 500, .unit = 250, .epoch = 20 }, .n_exact = 1000,
                               .n_rest = 20 * 2000 + 40 * 4000, .n_units = 60 };
    struct sample_lane l = lane_of(700, u);
    struct sample_estimate plain = sample_cycles(&s, &l);
    cr_expect_float_eq(plain.high - plain.low, 0, 1e-6, "no drift known: no width");
    s.drift_unit = d;
    double bias = 20 * 2000 * 50 / 250.0 + 40 * 4000 * -10 / 250.0, se, want_se = sqrt(160.0 * 160 * 200 / 20);
    cr_expect_float_eq(sample_drift(&s, &se), bias, 1e-6);
    cr_expect_float_eq(se, want_se, 1e-6);
    struct sample_estimate e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.cycles, plain.cycles, 1e-6, "the estimate stays");
    cr_expect_float_eq(e.low, e.cycles - (bias - want_se), 1e-6);
    cr_expect_float_eq(e.high, e.cycles + (bias - want_se), 1e-6);
    for (int i = 0; i < 60; i++)
        d[i] = i % 2 ? 40 : -40;
    cr_expect_lt(fabs(sample_drift(&s, &se)), se, "turns about nothing");
    e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.high - e.low, 0, 1e-6, "a drift within its noise widens nothing");
    s.plan.epoch = 0, s.n_rest = 60 * 2000;    /* one stratum: 1.2 standard errors, in the noise still */
    for (int i = 0; i < 60; i++)
        d[i] = i % 2 ? 167 : -107;
    double z = sample_drift(&s, &se) / se;
    cr_expect(z > 1.1 && z < 1.3, "%g standard errors", z);
    cr_expect_float_eq(sample_drift_widening(&s), 0, 1e-9);
    e = sample_cycles(&s, &l);
    cr_expect_float_eq(e.high - e.low, 0, 1e-6, "a drift within 1.5 standard errors widens nothing");
}

/* What the reader knows of the warm-up's last part and of the unit is left out of the drift, as of
 * the units: a long copy in that part, timed by the description, is no drift. */
Test(sample, a_copy_the_reader_knows_in_the_warm_ups_last_part_is_no_drift)
{
    double u[40], d[40], kp[40], ku[40];
    for (int i = 0; i < 40; i++) {
        u[i] = 400 + (i == 7 ? 3000 : 0);
        ku[i] = i == 7 ? 3000 : 0;          /* unit 7 met a copy */
        kp[i] = i == 20 ? 5000 : 0;         /* the part before unit 20 another */
        d[i] = 400 + kp[i] - u[i];
    }
    struct sample_stream s = { .plan = { .period = 2000, .warm = 500, .unit = 250 }, .n_exact = 1000,
                               .n_rest = 40 * 2000, .n_units = 40, .drift_unit = d, .known_pre = kp,
                               .known_unit = ku };
    double se;
    cr_expect_float_eq(sample_drift(&s, &se), 0, 1e-9);
    cr_expect_float_eq(se, 0, 1e-9);
    s.known_pre = NULL;
    cr_expect_gt(sample_drift(&s, &se), 0, "without what the reader knows, the copy is drift");
}

/* A chain of multiplies on Skylake, read by a sample_rec at the marks: the baseline, and a lane
 * with every latency 15% shorter (faster on the chain). */
struct chain {
    struct dec *dec;
    struct cls_index *ci;
    struct block b;
    struct rt_model *md;
    struct sample_rec rec;
};

/* EVERY: each lane joins one period in EVERY (sample_plan). */
static void chain_open(struct chain *c, unsigned every)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    char err[256];
    c->dec = dec_open((enum mdl_isa)m->isa, err, sizeof err);
    cr_assert(c->dec, "%s", err);
    c->ci = cls_build(m);
    const char hex[] = "480fafc1480fafc1";    /* imul rax, rcx (twice) */
    uint8_t *bytes;
    size_t len;
    cr_assert(block_parse_hex(hex, strlen(hex), &bytes, &len, err, sizeof err), "%s", err);
    cr_assert(block_decode(&c->b, c->dec, c->ci, m, NULL, bytes, len, BLOCK_PC, err, sizeof err), "%s", err);
    free(bytes);
    const struct rt_lane_cfg lanes[] = { { { RT_KNOB_NONE }, { 0 }, 1 }, { { RT_KNOB_LATENCY }, { 0 }, 1.15 } };
    c->md = rt_model_new(m, lanes, 2, false, (unsigned)c->b.n_orig, err, sizeof err);
    cr_assert(c->md, "%s", err);
    sample_rec_init(&c->rec, 2, true, &(struct sample_plan){ .rest = 1, .lanes_every = every });
}

static void chain_steps(struct chain *c, unsigned n)
{
    uint64_t addr[RT_MAX_MEM] = { 0 };
    uint8_t levels[RT_MAX_MEM] = { 0 };
    for (unsigned i = 0; i < n; i++)
        rt_model_step(c->md, &c->b.insns[i % c->b.n], c->b.orig[i % c->b.n], addr, levels, false);
}

static void chain_close(struct chain *c)
{
    sample_rec_free(&c->rec);
    rt_model_free(c->md);
    block_free(&c->b);
    cls_free(c->ci);
    dec_close(c->dec);
}

/* The exact part, a unit, the skip, then a warm-up whose first 30 instructions the lanes rest
 * through; the baseline's time when they began to. */
static double chain_rested(struct chain *c)
{
    chain_open(c, 1);
    chain_steps(c, 40);
    sample_rec_mark(&c->rec, c->md, SAMPLE_EXACT_END | SAMPLE_UNIT_START);
    chain_steps(c, 40);
    sample_rec_mark(&c->rec, c->md, SAMPLE_UNIT_END);
    cr_assert(rt_model_time(c->md, 1) < rt_model_time(c->md, 0), "the faster lane is not ahead");
    double b0 = rt_model_time(c->md, 0);
    sample_rec_mark(&c->rec, c->md, SAMPLE_REST);
    chain_steps(c, 30);
    return b0;
}

/* A stream that ends in a warm-up, the lanes resting: the tail moved every lane as it moved the
 * baseline (the lanes stood still, the baseline stood for them). */
Test(sample, a_tail_that_ends_while_the_lanes_rest_moves_them_as_the_baseline)
{
    struct chain c = { 0 };
    double b0 = chain_rested(&c);
    sample_rec_mark(&c.rec, c.md, SAMPLE_TAIL_END);
    double moved = rt_model_time(c.md, 0) - b0;
    cr_expect(moved > 0);
    cr_expect_eq(c.rec.lane[0].tail[SAMPLE_TIME], moved);
    cr_expect_eq(c.rec.lane[1].tail[SAMPLE_TIME], moved, "lane %.17g, baseline %.17g", c.rec.lane[1].tail[SAMPLE_TIME],
                 moved);
    chain_close(&c);
}

/* A stream that ends after the lanes joined: a lane goes on from its own state, and its tail counts
 * the baseline's cycles while it rested, then its own. */
Test(sample, a_tail_after_the_lanes_joined_counts_the_baselines_way_then_their_own)
{
    struct chain c = { 0 };
    double b0 = chain_rested(&c);
    double b1 = rt_model_time(c.md, 0), l1 = rt_model_time(c.md, 1);
    sample_rec_mark(&c.rec, c.md, SAMPLE_JOIN);
    cr_expect_eq(rt_model_time(c.md, 1), l1, "a lane that joins goes on from its own state");
    cr_expect_lt(l1, b0, "the faster lane is behind the baseline");
    chain_steps(&c, 60);
    sample_rec_mark(&c.rec, c.md, SAMPLE_TAIL_END);
    double own = rt_model_time(c.md, 1) - l1;
    cr_expect(own < rt_model_time(c.md, 0) - b1, "the lane is no faster after it joined");
    cr_expect_eq(c.rec.lane[1].tail[SAMPLE_TIME], (b1 - b0) + own, "lane %.17g, expected %.17g",
                 c.rec.lane[1].tail[SAMPLE_TIME], (b1 - b0) + own);
    chain_close(&c);
}

/* The baseline's time over the warm-up's last part, read at its marks, less the unit's, is the unit's
 * drift; a unit whose warm-up had no such part has none (NaN). */
Test(sample, a_unit_records_how_its_warm_ups_last_part_took_longer_or_shorter_than_itself)
{
    struct chain c = { 0 };
    chain_open(&c, 1);
    chain_steps(&c, 40);
    sample_rec_mark(&c.rec, c.md, SAMPLE_EXACT_END);
    sample_rec_mark(&c.rec, c.md, SAMPLE_PRE_START);
    double p0 = rt_model_time(c.md, 0);
    chain_steps(&c, 20);
    double p1 = rt_model_time(c.md, 0);
    sample_rec_mark(&c.rec, c.md, SAMPLE_UNIT_START);
    chain_steps(&c, 40);
    double u1 = rt_model_time(c.md, 0);
    sample_rec_mark(&c.rec, c.md, SAMPLE_UNIT_END);
    cr_assert_eq(c.rec.n_units, 1);
    cr_expect_gt(p1 - p0, 0);
    cr_expect_eq(c.rec.drift[0], (p1 - p0) - (u1 - p1), "drift %.17g", c.rec.drift[0]);
    sample_rec_mark(&c.rec, c.md, SAMPLE_UNIT_START);
    chain_steps(&c, 40);
    sample_rec_mark(&c.rec, c.md, SAMPLE_UNIT_END);
    cr_expect(isnan(c.rec.drift[1]), "no part measured before unit 1");
    chain_close(&c);
}

/* With each lane in one period of two, every lane joins period 0 and 2 and sits period 1 out (its
 * time stands while the baseline's moves), each time going on from its own state; a stream that
 * ends in period 2 counts for it the baseline's cycles until it joined, then its own. */
Test(sample, each_lane_joins_one_period_in_two_from_its_own_state_and_rests_through_the_other)
{
    struct chain c = { 0 };
    chain_open(&c, 2);
    chain_steps(&c, 40);
    sample_rec_mark(&c.rec, c.md, SAMPLE_EXACT_END);
    sample_rec_mark(&c.rec, c.md, SAMPLE_REST);
    double l0 = rt_model_time(c.md, 1);
    cr_expect_lt(l0, rt_model_time(c.md, 0), "the faster lane is behind the baseline");
    sample_rec_mark(&c.rec, c.md, SAMPLE_JOIN | SAMPLE_UNIT_START);
    cr_expect_eq(rt_model_time(c.md, 1), l0, "lane 1 joins period 0 from its own state");
    chain_steps(&c, 40);
    cr_expect_gt(rt_model_time(c.md, 1), l0, "and steps on");
    sample_rec_mark(&c.rec, c.md, SAMPLE_UNIT_END);
    sample_rec_mark(&c.rec, c.md, SAMPLE_REST);
    double l1 = rt_model_time(c.md, 1), b1 = rt_model_time(c.md, 0);
    sample_rec_mark(&c.rec, c.md, SAMPLE_JOIN | SAMPLE_UNIT_START);
    chain_steps(&c, 40);
    cr_expect_eq(rt_model_time(c.md, 1), l1, "lane 1 sits period 1 out");
    cr_expect_gt(rt_model_time(c.md, 0), b1, "while the baseline steps on");
    sample_rec_mark(&c.rec, c.md, SAMPLE_UNIT_END);
    cr_expect_eq(c.rec.n_units, 2);
    cr_expect_eq(c.rec.lane[1].every, 2);
    cr_expect_eq(c.rec.lane[1].first, 0, "lane 1 measured unit 0");
    double b_end = rt_model_time(c.md, 0);
    sample_rec_mark(&c.rec, c.md, SAMPLE_REST);
    chain_steps(&c, 10);
    double b2 = rt_model_time(c.md, 0);
    sample_rec_mark(&c.rec, c.md, SAMPLE_JOIN);
    cr_expect_eq(rt_model_time(c.md, 1), l1, "lane 1 joins period 2 from its own state");
    chain_steps(&c, 30);
    cr_expect_gt(rt_model_time(c.md, 1), l1, "and steps on");
    sample_rec_mark(&c.rec, c.md, SAMPLE_TAIL_END);
    double want = (b2 - b_end) + (rt_model_time(c.md, 1) - l1);
    cr_expect_eq(c.rec.lane[1].tail[SAMPLE_TIME], want, "lane %.17g, expected %.17g", c.rec.lane[1].tail[SAMPLE_TIME],
                 want);
    chain_close(&c);
}
