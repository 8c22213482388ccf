/* The period search of block mode: each copy the build makes (one per vector extension) gives
 * the default copy's mask, and the mask is the plain comparison's; and what a lane that never
 * repeats is measured by. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block.h"
#include "classify.h"
#include "decode.h"
#include "model.h"
#include "periods.h"

extern const struct mdl_machine mdl_machine_skylake;

/* The mask as one comparison at a time would give it. */
static uint32_t plain_mask(const double *before, double x, double tol)
{
    uint32_t same = 0;
    for (unsigned p = 0; p < PERIODS_MAX; p++)
        same |= (uint32_t)(fabs(x - before[p]) <= tol) << p;
    return same;
}

/* A value near one of a few (so that many compare equal), sometimes off by about the tolerance,
 * sometimes not a number or infinite. */
static double draw(unsigned *seed)
{
    static const double base[] = { 0.25, 0.5, 1.0, 1.0 / 1.15, 2.75, 1e6 / 3 };
    double v = base[rand_r(seed) % 6];
    switch (rand_r(seed) % 8) {
    case 0: return v * (1 + 5e-10);     /* within the tolerance */
    case 1: return v * (1 + 2e-9);      /* just beyond it */
    case 2: return rand_r(seed) % 2 ? NAN : INFINITY;
    default: return v;
    }
}

Test(periods, every_copy_of_the_period_search_gives_the_plain_comparisons_mask)
{
    unsigned seed = 12345, checked = 0, copies = 0;
    for (unsigned k = 0; periods_isa(k); k++) {
        double before[PERIODS_MAX];
        uint32_t mask;
        if (!periods_match_isa(periods_isa(k), before, 0, 0, &mask))
            continue;       /* this processor lacks it */
        copies++;
        for (unsigned trial = 0; trial < 20000; trial++) {
            for (unsigned p = 0; p < PERIODS_MAX; p++)
                before[p] = draw(&seed);
            double x = draw(&seed), tol = 1e-9 * (fabs(x) > 1 ? fabs(x) : 1);
            cr_assert(periods_match_isa(periods_isa(k), before, x, tol, &mask));
            cr_assert_eq(mask, plain_mask(before, x, tol), "copy %s, trial %u: %08x, plainly %08x", periods_isa(k),
                         trial, mask, plain_mask(before, x, tol));
            checked += mask != 0;
        }
    }
    cr_assert_geq(copies, 1, "the default copy runs everywhere");
    cr_assert_gt(checked, 1000, "the draws must make matches for the test to mean anything");
}

Test(periods, a_copy_the_build_does_not_make_is_refused)
{
    double before[PERIODS_MAX] = { 0 };
    uint32_t mask = 7;
    cr_assert_not(periods_match_isa("sse9", before, 0, 0, &mask));
    cr_assert_eq(mask, 7);
}

/* Skylake's cycles per iteration for BHive's block HEX (baseline only), ITERATIONS at most; the
 * iterations run go to *RAN, the period the timing repeats in to *PERIOD (0: none). */
static double block_cycles(const char *hex, unsigned iterations, unsigned *ran, unsigned *period)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    char err[256];
    struct dec *dec = dec_open((enum mdl_isa)m->isa, err, sizeof err);
    cr_assert(dec, "%s", err);
    struct cls_index *ci = cls_build(m);
    uint8_t *bytes;
    size_t nb;
    struct block b = { 0 };
    struct block_result r = { 0 };
    struct rt_lane_cfg base = { { RT_KNOB_NONE, RT_KNOB_NONE }, { 0, 0 }, 1 };
    cr_assert(block_parse_hex(hex, strlen(hex), &bytes, &nb, err, sizeof err), "%s", err);
    cr_assert(block_decode(&b, dec, ci, m, NULL, bytes, nb, BLOCK_PC, err, sizeof err), "%s", err);
    cr_assert(block_run(&b, m, &base, 1, false, iterations, NULL, &r, err, sizeof err), "%s", err);
    double cycles = r.cycles[0];
    *ran = r.iterations;
    *period = r.period;
    free(r.crit);
    free(r.seen);
    free(bytes);
    block_free(&b);
    cls_free(ci);
    dec_close(dec);
    return cycles;
}

/* A block whose time never repeats but swings over tens of iterations (BHive's, line 508 of
 * causality/blocks.txt: a sign extension and a byte test of memory through it): measured by the
 * whole second half, it comes out within a percent of itself however long it runs (by the last
 * sixty iterations alone it moved by 2.7% between 300 and 1000). */
Test(periods, a_lane_that_never_repeats_is_measured_alike_however_long_it_runs)
{
    static const unsigned runs[] = { 300, 400, 1000, 3000 };
    double c[4];
    for (unsigned k = 0; k < 4; k++) {
        unsigned ran, period;
        c[k] = block_cycles("4c63c041f680a0e34f0046", runs[k], &ran, &period);
        cr_assert_eq(ran, runs[k], "the block repeated after %u iterations: the test needs one that does not", ran);
        cr_assert_eq(period, 0, "no period, the report says, where the timing never repeats");
    }
    for (unsigned k = 0; k < 4; k++)
        cr_expect_leq(fabs(c[k] / c[3] - 1), 0.01, "%u iterations: %.4f cycles, %u: %.4f", runs[k], c[k], runs[3],
                      c[3]);
}

/* A block whose fetch blocks line up again every 16 copies (BHive's first: four register moves,
 * bound by the front end) says so: its period is 16, found long before the last iteration. */
Test(periods, a_block_whose_timing_repeats_reports_its_period)
{
    unsigned ran, period;
    double c = block_cycles("4989c54889da4c89e689ef", 200, &ran, &period);
    cr_expect_eq(period, 16, "period %u", period);
    cr_expect_lt(ran, 200, "%u iterations", ran);
    cr_expect(fabs(c - 1.375) < 1e-9, "%.17g cycles", c);
}
