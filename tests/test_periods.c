/* The period search of block mode: each copy the build makes (one per vector extension) gives
 * the default copy's mask, and the mask is the plain comparison's. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "periods.h"

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
