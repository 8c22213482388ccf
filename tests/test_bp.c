/* Branch prediction on hand-built machines: what each direction predictor can learn, the
 * return stack, the BTB's LRU and the indirect predictors, on synthetic branch streams. */
#include <criterion/criterion.h>
#include "bp.h"

static struct mdl_machine machine_with(unsigned predictor, unsigned indirect)
{
    return (struct mdl_machine){ .name = "test", .predictor = (uint8_t)predictor,
                                 .indirect = (uint8_t)indirect, .mispredict_penalty = 15 };
}

static struct bp *new_bp(const struct mdl_machine *m)
{
    struct bp *bp = bp_new(m);
    cr_assert(bp);
    return bp;
}

/* A conditional branch at PC jumping back to a loop head. */
static bool cond(struct bp *bp, uint64_t pc, bool taken)
{
    return bp_branch(bp, pc, RT_BR_COND, taken, pc - 0x40, pc + 2);
}

static uint32_t xorshift(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* Mispredictions of a loop-closing branch over ROUNDS runs of TRIP iterations, counting only
 * the second half of the rounds (after warm-up). */
static unsigned loop_misses(unsigned predictor, unsigned trip, unsigned rounds)
{
    struct mdl_machine m = machine_with(predictor, MDL_INDIRECT_BTB);
    struct bp *bp = new_bp(&m);
    unsigned misses = 0;
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned i = 0; i < trip; i++) {
            bool miss = cond(bp, 0x401000, i + 1 < trip);
            misses += miss && r >= rounds / 2;
        }
    bp_free(bp);
    return misses;
}

Test(bp, predicts_backward_branches_taken_and_forward_ones_not_with_static)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_STATIC, MDL_INDIRECT_NONE);
    struct bp *bp = new_bp(&m);
    cr_assert_not(bp_branch(bp, 0x1000, RT_BR_COND, true, 0x0f00, 0x1002));
    cr_assert(bp_branch(bp, 0x1000, RT_BR_COND, false, 0x0f00, 0x1002));
    cr_assert_not(bp_branch(bp, 0x2000, RT_BR_COND, false, 0x2100, 0x2002));
    cr_assert(bp_branch(bp, 0x2000, RT_BR_COND, true, 0x2100, 0x2002));
    bp_free(bp);
}

/* What a trace gives: the next pc, so a loop branch not taken shows only its fall-through. */
Test(bp, takes_the_target_of_a_branch_not_taken_from_the_btb)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_STATIC, MDL_INDIRECT_NONE);
    struct bp *bp = new_bp(&m);
    cr_assert_not(bp_branch(bp, 0x1000, RT_BR_COND, false, 0x1002, 0x1002),
                  "no target known yet: predicted not taken");
    cr_assert_not(bp_branch(bp, 0x1000, RT_BR_COND, true, 0x0f00, 0x1002));
    cr_assert(bp_branch(bp, 0x1000, RT_BR_COND, false, 0x1002, 0x1002),
              "the BTB knows the branch goes backward: predicted taken");
    bp_free(bp);
}

Test(bp, learns_a_biased_branch_with_bimodal)
{
    cr_assert_eq(loop_misses(MDL_PREDICTOR_BIMODAL, 1000, 4), 2,
                 "one exit per round, and nothing else, after warm-up");
}

/* T N T N ...: a 2-bit counter flips between weak states and misses every time it can; one
 * bit of history separates the two cases. */
Test(bp, learns_an_alternating_branch_with_gshare_but_not_bimodal)
{
    struct mdl_machine mg = machine_with(MDL_PREDICTOR_GSHARE, MDL_INDIRECT_BTB);
    struct mdl_machine mb = machine_with(MDL_PREDICTOR_BIMODAL, MDL_INDIRECT_BTB);
    struct bp *g = new_bp(&mg), *b = new_bp(&mb);
    unsigned gm = 0, bm = 0;
    for (int i = 0; i < 2000; i++) {
        bool gmiss = cond(g, 0x400800, i & 1), bmiss = cond(b, 0x400800, i & 1);
        gm += gmiss && i >= 1000;
        bm += bmiss && i >= 1000;
    }
    cr_assert_eq(gm, 0);
    cr_assert(bm >= 500, "bimodal missed %u of 1000", bm);
    bp_free(g);
    bp_free(b);
}

/* A loop of 10: gshare's 12 bits of history see the exit coming. */
Test(bp, learns_a_short_loop_exit_with_gshare)
{
    cr_assert_eq(loop_misses(MDL_PREDICTOR_GSHARE, 10, 400), 0);
}

/* A loop of 30: the exit needs 30 outcomes of history. gshare's 12 bits (its table's index)
 * cannot tell the last iteration from the others; TAGE's 32- and 64-bit tables can. */
Test(bp, learns_a_loop_exit_pattern_with_tage)
{
    unsigned tage = loop_misses(MDL_PREDICTOR_TAGE, 30, 400);
    unsigned gshare = loop_misses(MDL_PREDICTOR_GSHARE, 30, 400);
    cr_assert_eq(tage, 0, "TAGE missed %u loop exits of 200", tage);
    cr_assert(gshare >= 190, "gshare missed only %u loop exits of 200", gshare);
}

/* Several branches with different patterns at once: TAGE keeps them apart. */
Test(bp, learns_interleaved_patterns_with_tage)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_TAGE, MDL_INDIRECT_BTB);
    struct bp *bp = new_bp(&m);
    unsigned misses = 0;
    for (unsigned i = 0; i < 20000; i++) {
        bool a = cond(bp, 0x1000, i % 7 != 6);
        bool b = cond(bp, 0x1100, i % 3 == 0);
        bool c = cond(bp, 0x1200, (i / 5) & 1);
        misses += (a + b + c) * (i >= 10000);
    }
    cr_assert(misses < 30, "%u misses of 30000", misses);
    bp_free(bp);
}

Test(bp, mispredicts_about_half_of_random_branches)
{
    const unsigned kinds[] = { MDL_PREDICTOR_BIMODAL, MDL_PREDICTOR_GSHARE, MDL_PREDICTOR_TAGE };
    for (int k = 0; k < 3; k++) {
        struct mdl_machine m = machine_with(kinds[k], MDL_INDIRECT_BTB);
        struct bp *bp = new_bp(&m);
        uint32_t x = 2463534242u;
        for (int i = 0; i < 20000; i++)
            cond(bp, 0x402000, xorshift(&x) >> 31);
        uint64_t n, miss;
        bp_stats(bp, &n, &miss);
        cr_assert_eq(n, 20000);
        cr_assert(miss > 9000 && miss < 11000, "predictor %u: %lu of 20000", kinds[k],
                  (unsigned long)miss);
        bp_free(bp);
    }
}

/* A digest of every miss of TAGE on a stream of 400,000 branches at 64 pcs, some following
 * patterns of their own or of the others' outcomes, some random: long enough to pass an aging
 * of the useful bits. The digests were recorded before the predictor was made cheaper, which
 * must not change a single prediction, at the default geometry and at a smaller, longer one. */
static uint64_t tage_miss_digest(uint32_t table_entries, uint32_t history_bits)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_TAGE, MDL_INDIRECT_BTB);
    m.table_entries = table_entries;
    m.history_bits = history_bits;
    struct bp *bp = new_bp(&m);
    uint32_t x = 88172645u;
    uint64_t digest = 14695981039346656037u, last = 0;
    for (uint32_t i = 0; i < 400000; i++) {
        uint32_t r = xorshift(&x), site = r & 63;
        bool taken = site < 16 ? (i / (site + 2)) % 3 != 0
                   : site < 40 ? ((last >> (site & 15)) ^ (last >> 3)) & 1
                   : site < 48 ? (r >> 20) % 5 != 0
                   : r >> 31;
        last = last << 1 | taken;
        bool miss = cond(bp, 0x400000 + site * 6 + (site & 1), taken);
        digest = (digest ^ (miss + 2 * (uint64_t)i)) * 1099511628211u;
    }
    bp_free(bp);
    return digest;
}

Test(bp, makes_the_same_tage_predictions_as_recorded)
{
    cr_assert_eq(tage_miss_digest(0, 0), UINT64_C(0xd019b6c9ab45c039), "%#lx", (unsigned long)tage_miss_digest(0, 0));
    cr_assert_eq(tage_miss_digest(1024, 300), UINT64_C(0x682313930fb10cfc), "%#lx",
                 (unsigned long)tage_miss_digest(1024, 300));
}

/* A digest of every miss of TAGE on loops: nested counted loops of random trip counts (some of
 * hundreds of iterations, whose history fills with one outcome), a branch in the inner body now
 * and then, and stretches of random branches between the nests. Recorded before the repeats of
 * a loop's branch that change nothing were made cheaper, which must not change a prediction. */
static uint64_t tage_loop_digest(void)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_TAGE, MDL_INDIRECT_BTB);
    struct bp *bp = new_bp(&m);
    uint32_t x = 521288629u;
    uint64_t digest = 14695981039346656037u, n = 0;
    for (unsigned nest = 0; nest < 300; nest++) {
        uint32_t r = xorshift(&x);
        unsigned outer = 1 + r % 7, inner = 1 + (r >> 8) % 700, body = (r >> 20) % 4;
        uint64_t at = 0x500000 + ((r >> 24) % 8) * 0x40;
        for (unsigned o = 0; o < outer; o++) {
            for (unsigned i = 0; i < inner; i++) {
                if (body && i % (body + 1) == 0)
                    digest = (digest ^ (cond(bp, at + 8, (xorshift(&x) >> 31) != 0) + 2 * n++)) * 1099511628211u;
                digest = (digest ^ (cond(bp, at + 16, i + 1 < inner) + 2 * n++)) * 1099511628211u;
            }
            digest = (digest ^ (cond(bp, at + 32, o + 1 < outer) + 2 * n++)) * 1099511628211u;
        }
        for (unsigned k = (r >> 4) % 50; k; k--)
            digest = (digest ^ (cond(bp, 0x600000 + k * 4, xorshift(&x) & 1) + 2 * n++)) * 1099511628211u;
    }
    bp_free(bp);
    return digest;
}

Test(bp, makes_the_same_tage_predictions_on_loops_as_recorded)
{
    cr_assert_eq(tage_loop_digest(), UINT64_C(0xe6f039791ffaab4d), "%#lx", (unsigned long)tage_loop_digest());
}

/* Nested calls four deep from two call sites; every return goes where the RAS says. */
Test(bp, predicts_returns_with_the_ras)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_TAGE, MDL_INDIRECT_ITTAGE);
    struct bp *bp = new_bp(&m);
    for (int rep = 0; rep < 3; rep++) {
        uint64_t site = rep & 1 ? 0x5000 : 0x6000;
        for (int d = 0; d < 4; d++)
            cr_assert_not(bp_branch(bp, site + 0x100 * d, RT_BR_CALL, true, 0x9000 + 0x100 * d,
                                    site + 0x100 * d + 5));
        for (int d = 3; d >= 0; d--)
            cr_assert_not(bp_branch(bp, 0x90f0 + 0x100 * d, RT_BR_RET, true, site + 0x100 * d + 5,
                                    0));
    }
    uint64_t n, miss;
    bp_stats(bp, &n, &miss);
    cr_assert(n == 24 && miss == 0);
    bp_free(bp);
}

/* 20 nested calls on the default 16-entry stack: the oldest 4 return addresses are lost. */
Test(bp, mispredicts_returns_deeper_than_the_default_ras)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_BIMODAL, MDL_INDIRECT_NONE);
    struct bp *bp = new_bp(&m);
    for (uint64_t d = 0; d < 20; d++)
        bp_branch(bp, 0x1000 + 16 * d, RT_BR_CALL, true, 0x8000, 0x1000 + 16 * d + 5);
    unsigned misses = 0;
    for (uint64_t d = 20; d-- > 0;)
        misses += bp_branch(bp, 0x8010, RT_BR_RET, true, 0x1000 + 16 * d + 5, 0);
    cr_assert_eq(misses, 4);
    bp_free(bp);
}

Test(bp, never_mispredicts_direct_jumps_and_calls)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_STATIC, MDL_INDIRECT_NONE);
    m.btb_entries = 4;
    m.btb_ways = 1;
    struct bp *bp = new_bp(&m);
    for (uint64_t i = 0; i < 100; i++) {
        cr_assert_not(bp_branch(bp, 0x1000 + 8 * i, RT_BR_DIRECT, true, 0x3000 + i, 0x1002 + 8 * i));
        cr_assert_not(bp_branch(bp, 0x2000 + 8 * i, RT_BR_CALL, true, 0x4000 + i, 0x2005 + 8 * i));
    }
    cr_assert_not(bp_branch(bp, 0x1000, RT_BR_NONE, false, 0, 0));
    uint64_t n, miss;
    bp_stats(bp, &n, &miss);
    cr_assert(n == 200 && miss == 0, "RT_BR_NONE is not a branch");
    bp_free(bp);
}

/* N indirect jumps, each always to its own target, cycling through one 4-way BTB set. */
static unsigned cycling_indirect_misses(unsigned n)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_STATIC, MDL_INDIRECT_NONE);
    m.btb_entries = 4;
    m.btb_ways = 4;
    struct bp *bp = new_bp(&m);
    unsigned misses = 0;
    for (unsigned rep = 0; rep < 10; rep++)
        for (uint64_t i = 0; i < n; i++)
            misses += bp_branch(bp, 0x1000 + 0x40 * i, RT_BR_INDIRECT, true, 0x7000 + 0x40 * i, 0);
    bp_free(bp);
    return misses;
}

/* Four targets fit the set; a fifth makes LRU evict exactly the one needed next, every time. */
Test(bp, keeps_indirect_targets_in_the_btb_until_lru_evicts_them)
{
    cr_assert_eq(cycling_indirect_misses(4), 4, "only the cold misses");
    cr_assert_eq(cycling_indirect_misses(5), 50, "LRU thrashes on a cycle one larger than the set");
}

/* Targets alternating A B A B: a last-target predictor is always one behind, a history of the
 * previous targets tells which one comes next. */
static unsigned alternating_indirect_misses(unsigned indirect)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_TAGE, indirect);
    struct bp *bp = new_bp(&m);
    unsigned misses = 0;
    for (int i = 0; i < 2000; i++) {
        bool miss = bp_branch(bp, 0x4000, RT_BR_INDIRECT, true, i & 1 ? 0x7000 : 0x7800, 0);
        misses += miss && i >= 1000;
    }
    bp_free(bp);
    return misses;
}

Test(bp, learns_alternating_indirect_targets_with_ittage_but_not_the_last_target)
{
    cr_assert_eq(alternating_indirect_misses(MDL_INDIRECT_ITTAGE), 0);
    cr_assert_eq(alternating_indirect_misses(MDL_INDIRECT_BTB), 1000);
    cr_assert_eq(alternating_indirect_misses(MDL_INDIRECT_NONE), 1000);
}

/* An indirect jump whose target follows the preceding conditional branch (a switch on a flag). */
Test(bp, correlates_indirect_targets_with_conditional_history_in_ittage)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_TAGE, MDL_INDIRECT_ITTAGE);
    struct bp *bp = new_bp(&m);
    uint32_t x = 99;
    unsigned misses = 0;
    for (int i = 0; i < 4000; i++) {
        bool flag = xorshift(&x) >> 31;
        bp_branch(bp, 0x3000, RT_BR_COND, flag, 0x3100, 0x3002);
        bool miss = bp_branch(bp, 0x3200, RT_BR_INDIRECT, true, flag ? 0x6000 : 0x6400, 0);
        misses += miss && i >= 2000;
    }
    cr_assert(misses < 20, "%u of 2000", misses);
    bp_free(bp);
}

Test(bp, counts_branches_and_mispredicts)
{
    struct mdl_machine m = machine_with(MDL_PREDICTOR_STATIC, MDL_INDIRECT_NONE);
    struct bp *bp = new_bp(&m);
    bp_branch(bp, 0x100, RT_BR_COND, false, 0x80, 0x102);          /* backward: miss */
    bp_branch(bp, 0x200, RT_BR_CALL, true, 0x900, 0x205);
    bp_branch(bp, 0x9f0, RT_BR_RET, true, 0x205, 0);
    bp_branch(bp, 0x300, RT_BR_INDIRECT, true, 0x700, 0);           /* cold BTB: miss */
    bp_branch(bp, 0x300, RT_BR_INDIRECT, true, 0x700, 0);
    uint64_t n, miss;
    bp_stats(bp, &n, &miss);
    cr_assert_eq(n, 5);
    cr_assert_eq(miss, 2);
    bp_free(bp);
}
