/* The stepping kernel's copies proven equal on random blocks of the four bundled machines: lane 0
 * alone in the baseline ISA (with its taints and without) against the vector copies over every
 * lane, each copy this processor runs (AVX-512, AVX2, the baseline ISA), lanes sharing the
 * baseline's state against lanes each stepped, lanes done half-way. Serial forms, bypass rules,
 * fused pairs, stores and loads of every width at overlapping addresses, every knob at every
 * weight and the pair lanes; each lane's time and the critical counts must agree to the bit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "block.h"
#include "classify.h"
#include "decode.h"
#include "model.h"

extern const struct mdl_machine mdl_machine_skylake, mdl_machine_icelake, mdl_machine_alderlake,
    mdl_machine_cortex_a72;

/* Instructions a random block draws from: each kind of dependency the two paths encode. */
static const char *const x86_pool[] = {
    "4801d8",           /* add rax, rbx */
    "480fafc1",         /* imul rax, rcx */
    "48f7f1",           /* div rcx: the serial unit */
    "f20f51c1",         /* sqrtsd xmm0, xmm1: the serial unit */
    "4889442408",       /* mov [rsp+8], rax */
    "488b442408",       /* mov rax, [rsp+8] */
    "8344241001",       /* add dword [rsp+0x10], 1: load, store */
    "c744241400000000", /* mov dword [rsp+0x14], 0: a narrower store inside a word */
    "0fb6442409",       /* movzx eax, byte [rsp+9]: a narrower load */
    "4839d8750e",       /* cmp rax, rbx; jne: a fused pair */
    "c5fdfec1",         /* vpaddd ymm0, ymm0, ymm1: vec_alu, a bypass to fp_add */
    "c5fc58c2",         /* vaddps ymm0, ymm0, ymm2 */
    "c4e27db8ca",       /* vfmadd231ps ymm1, ymm0, ymm2 */
    "c5fc101c24",       /* vmovups ymm3, [rsp]: a wide load over narrower stores */
    "c5fc114c2404",     /* vmovups [rsp+4], ymm1: a wide store, misaligned */
    "31c0",             /* xor eax, eax: a zero idiom */
    "50", "59",         /* push rax; pop rcx: the stack engine */
    "488d548808",       /* lea rdx, [rax+rcx*4+8] */
    "48c1e203",         /* shl rdx, 3 */
};
static const char *const a64_pool[] = {
    "0000018b", "027c019b", "030cc29a" /* sdiv */, "20c0611e" /* fsqrt */, "0218611e" /* fdiv */,
    "e00740f9", "e10700f9", "e4274039", "e5170079", "1f0001eb81000054" /* cmp; b.ne */,
    "20cc224e" /* fmla */, "e303c03d" /* ldr q3 */, "e143803c" /* str q1, misaligned */, "02d4234e", "06f07dd3",
};

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A block of N instructions drawn from the machine's pool, decoded (fusion, idioms and all). */
static void random_block(const struct mdl_machine *m, struct dec *dec, const struct cls_index *ci, unsigned n,
                         uint64_t *x, struct block *b)
{
    const char *const *pool = m->isa == MDL_ISA_AARCH64 ? a64_pool : x86_pool;
    size_t n_pool = m->isa == MDL_ISA_AARCH64 ? sizeof a64_pool / sizeof *a64_pool : sizeof x86_pool / sizeof *x86_pool;
    char hex[1024] = "";
    for (unsigned i = 0; i < n; i++)
        strcat(hex, pool[next_random(x) % n_pool]);
    uint8_t *bytes;
    size_t len;
    char err[256];
    cr_assert(block_parse_hex(hex, strlen(hex), &bytes, &len, err, sizeof err), "%s", err);
    cr_assert(block_decode(b, dec, ci, m, NULL, bytes, len, BLOCK_PC, err, sizeof err), "%s: %s", hex, err);
    free(bytes);
}

/* How a run goes beyond its lanes: whether every lane is stepped from the start (rather than
 * sharing the baseline's state until it differs), from which repetition on the odd lanes are done
 * (0: never), how many repetitions, and with which copy of the kernel. */
struct how {
    bool every_lane;
    unsigned odd_done_at;
    unsigned reps;              /* repetitions (0: REPS) */
    unsigned rest_at, join_at;  /* the lanes rest from this repetition on, join from that (0: never) */
    unsigned join_every;        /* > 1: only the lanes L with L % JOIN_EVERY == 1 join */
    bool done_resting;          /* the odd lanes are done as they rest, not at odd_done_at */
    unsigned rejoin_at;         /* they rest again and all join from this repetition (0: never) */
    unsigned rest_again_at;     /* they rest again from this repetition, resting (0: never) */
    unsigned forget_from;       /* resting, the lanes from this one on lose their state (0: none do) */
    double *joined;             /* each lane's time as it joined (rejoin_at's join, if any) */
    bool *shared;               /* whether each lane shared the baseline's state as it rested */
    const char *isa;            /* the kernel's copy (rt_model_vectors); NULL: the widest */
};

enum { REPS = 300 };

/* The block repeated on a model of LANES: addresses within 48 bytes (every width overlaps others),
 * cache levels and mispredictions at random, the same sequence for every run. Each lane's time,
 * and with causality the critical and seen counts of each instruction. */
static bool run_how(const struct mdl_machine *m, const struct block *b, const struct rt_lane_cfg *lanes, unsigned n,
                    bool causality, struct how how, double *times, uint64_t *crit, uint64_t *seen)
{
    char err[256];
    struct rt_model *md = rt_model_new(m, lanes, n, causality, (unsigned)b->n_orig, err, sizeof err);
    cr_assert(md, "%s", err);
    if (how.isa && !rt_model_vectors(md, how.isa)) {
        rt_model_free(md);
        return false;           /* this processor lacks it */
    }
    if (causality)
        rt_model_sample_causality(md, 2);
    if (how.every_lane)
        rt_model_share_baseline(md, false);
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (unsigned rep = 0; rep < (how.reps ? how.reps : REPS); rep++) {
        for (unsigned l = 1; rep == how.odd_done_at && rep && l < n; l += 2)
            rt_model_lane_done(md, l);
        for (unsigned l = 0; how.shared && rep && rep == how.rest_at && l < n; l++)
            how.shared[l] = rt_model_lane_shared(md, l);
        if (rep && rep == how.rest_at)
            rt_model_lanes_rest(md);
        for (unsigned l = 1; how.done_resting && rep == how.rest_at && rep && l < n; l += 2)
            rt_model_lane_done(md, l);
        if (rep && rep == how.rest_again_at)
            rt_model_lanes_rest(md);
        if (rep && rep == how.join_at && how.forget_from)
            rt_model_lanes_forget(md, how.forget_from);
        if (rep && rep == how.join_at) {
            bool which[RT_MAX_LANES];
            for (unsigned l = 0; l < n; l++)
                which[l] = how.join_every < 2 || l % how.join_every == 1;
            rt_model_lanes_join(md, which);
        }
        if (rep && rep == how.rejoin_at) {
            rt_model_lanes_rest(md);
            rt_model_lanes_join(md, NULL);
        }
        for (unsigned l = 0; how.joined && rep && rep == (how.rejoin_at ? how.rejoin_at : how.join_at) && l < n; l++)
            how.joined[l] = rt_model_time(md, l);
        for (size_t i = 0; i < b->n; i++) {
            uint64_t addr[RT_MAX_MEM];
            uint8_t level[RT_MAX_MEM];
            for (unsigned k = 0; k < RT_MAX_MEM; k++) {
                addr[k] = 0x7fff0000 + next_random(&x) % 48;
                level[k] = (uint8_t)(next_random(&x) % 4 == 0 ? next_random(&x) % 3 : 0);
            }
            bool miss = b->insns[i].branch != RT_BR_NONE && next_random(&x) % 5 == 0;
            rt_model_step(md, &b->insns[i], b->orig[i], addr, level, miss);
        }
    }
    for (unsigned l = 0; l < n; l++)
        times[l] = rt_model_time(md, l);
    for (uint32_t i = 0; crit && i < b->n_orig; i++)
        crit[i] = rt_model_critical(md, i, &seen[i]);
    rt_model_free(md);
    return true;
}

static void run(const struct mdl_machine *m, const struct block *b, const struct rt_lane_cfg *lanes, unsigned n,
                bool causality, double *times, uint64_t *crit, uint64_t *seen)
{
    run_how(m, b, lanes, n, causality, (struct how){ 0 }, times, crit, seen);
}

/* Every lane of the plan together (the passes; lane 0 scalar with its taints) against each lane
 * beside the baseline, each lane as lane 0 alone (the scalar path) against the same before
 * another lane (the passes), the baseline alone with its taints and without, and the
 * baseline's critical counts with and without the other lanes. */
static void expect_paths_agree(const struct mdl_machine *m, const struct analysis_plan *plan, const struct block *b,
                               unsigned seed)
{
    double together[RT_MAX_LANES], alone;
    uint64_t *crit_t = calloc(b->n_orig, sizeof *crit_t), *seen_t = calloc(b->n_orig, sizeof *seen_t);
    uint64_t *crit_s = calloc(b->n_orig, sizeof *crit_s), *seen_s = calloc(b->n_orig, sizeof *seen_s);
    run(m, b, plan->lanes, plan->n_lanes, true, together, crit_t, seen_t);
    /* the lanes sharing the baseline's state until they differ, as the lanes each stepped */
    double every[RT_MAX_LANES];
    run_how(m, b, plan->lanes, plan->n_lanes, true, (struct how){ .every_lane = true }, every, NULL, NULL);
    for (unsigned l = 0; l < plan->n_lanes; l++)
        cr_expect_eq(together[l], every[l], "%s, seed %u, lane %u: %.17g sharing the baseline's state, %.17g stepped",
                     m->name, seed, l, together[l], every[l]);
    /* every copy of the kernel this processor runs: each lane's time and the critical counts */
    for (unsigned k = 0; rt_model_vector_isa(k); k++) {
        const char *isa = rt_model_vector_isa(k);
        double other[RT_MAX_LANES];
        uint64_t *crit_v = calloc(b->n_orig, sizeof *crit_v), *seen_v = calloc(b->n_orig, sizeof *seen_v);
        if (run_how(m, b, plan->lanes, plan->n_lanes, true, (struct how){ .isa = isa }, other, crit_v, seen_v)) {
            for (unsigned l = 0; l < plan->n_lanes; l++)
                cr_expect_eq(together[l], other[l], "%s, seed %u, lane %u: %.17g, %.17g with the %s copy", m->name,
                             seed, l, together[l], other[l], isa);
            for (size_t i = 0; i < b->n_orig; i++)
                cr_expect(crit_v[i] == crit_t[i] && seen_v[i] == seen_t[i],
                          "%s, seed %u, instruction %zu: critical %llu/%llu, %llu/%llu with the %s copy", m->name, seed,
                          i, (unsigned long long)crit_t[i], (unsigned long long)seen_t[i],
                          (unsigned long long)crit_v[i], (unsigned long long)seen_v[i], isa);
        }
        free(crit_v);
        free(seen_v);
    }
    run(m, b, plan->lanes, 1, true, &alone, crit_s, seen_s);
    cr_expect_eq(together[0], alone, "%s, seed %u: the baseline", m->name, seed);
    run(m, b, plan->lanes, 1, false, &alone, NULL, NULL);
    cr_expect_eq(together[0], alone, "%s, seed %u: the baseline without its taints", m->name, seed);
    for (size_t i = 0; i < b->n_orig; i++) {
        cr_expect_eq(crit_t[i], crit_s[i], "%s, seed %u, instruction %zu: critical", m->name, seed, i);
        cr_expect_eq(seen_t[i], seen_s[i], "%s, seed %u, instruction %zu: seen", m->name, seed, i);
    }
    for (unsigned l = 1; l < plan->n_lanes; l++) {
        /* Beside the baseline alone, a lane has the times it has among all the others; in lane
         * 0 it has the same times on both paths (alone: the scalar path; before another lane:
         * the passes). */
        const struct rt_lane_cfg *c = &plan->lanes[l];
        struct rt_lane_cfg pair[2] = { plan->lanes[0], *c }, first[2] = { *c, plan->lanes[0] };
        double two[2], passes[2];
        run(m, b, pair, 2, false, two, NULL, NULL);
        run(m, b, &plan->lanes[l], 1, false, &alone, NULL, NULL);
        run(m, b, first, 2, false, passes, NULL, NULL);
        char what[160];
        snprintf(what, sizeof what, "%s, seed %u, lane %u (%s%s%s x%g)", m->name, seed, l, rt_knob_name(c->knob[0]),
                 c->knob[1] ? "+" : "", c->knob[1] ? rt_knob_name(c->knob[1]) : "", c->weight);
        cr_expect_eq(together[l], two[1], "%s: %.17g with every lane, %.17g beside the baseline", what, together[l],
                     two[1]);
        cr_expect_eq(alone, passes[0], "%s in lane 0: %.17g alone, %.17g on the passes", what, alone, passes[0]);
    }
    free(crit_t);
    free(seen_t);
    free(crit_s);
    free(seen_s);
}

/* What a machine's random blocks are made and planned with. */
struct setup {
    struct dec *dec;
    struct cls_index *ci;
    struct analysis_plan plan;
};

static void setup_machine(const struct mdl_machine *m, const double *weights, unsigned n_weights, struct setup *su)
{
    char err[256];
    su->dec = dec_open((enum mdl_isa)m->isa, err, sizeof err);
    cr_assert(su->dec, "%s", err);
    su->ci = cls_build(m);
    cr_assert(analysis_plan_init(&su->plan, m, weights, n_weights, true, err, sizeof err), "%s", err);
}

static void setup_free(struct setup *su)
{
    cls_free(su->ci);
    dec_close(su->dec);
}

Test(lanes, time_every_knob_and_pair_alike_on_both_step_paths_on_every_machine, .timeout = 300)
{
    const struct mdl_machine *const machines[] = { &mdl_machine_skylake, &mdl_machine_icelake,
                                                   &mdl_machine_alderlake, &mdl_machine_cortex_a72 };
    const double weights[] = { 1.15, 2 };
    for (size_t k = 0; k < sizeof machines / sizeof *machines; k++) {
        const struct mdl_machine *m = machines[k];
        struct setup su;
        setup_machine(m, weights, 2, &su);
        for (unsigned seed = 1; seed <= 3; seed++) {
            uint64_t x = seed * 0x9e3779b97f4a7c15ull + k;
            struct block b = { 0 };
            random_block(m, su.dec, su.ci, 12, &x, &b);
            double *busy = calloc(m->n_resources + 1u, sizeof *busy), fe, ret;
            block_busy(&b, m, busy, &fe, &ret);
            analysis_plan_pairs(&su.plan, busy, fe, ret);
            free(busy);
            expect_paths_agree(m, &su.plan, &b, seed);
            block_free(&b);
        }
        setup_free(&su);
    }
}

/* A lane done keeps the time it had, and the lanes still stepped (which take the done ones'
 * slots) go on as they would have: every lane's time after REPS / 2 repetitions and after REPS,
 * against a run whose odd lanes are done half-way. */
Test(lanes, a_lane_done_keeps_its_time_and_leaves_the_others_as_they_were)
{
    const struct mdl_machine *const machines[] = { &mdl_machine_skylake, &mdl_machine_cortex_a72 };
    const double weights[] = { 1.15 };
    for (size_t k = 0; k < sizeof machines / sizeof *machines; k++) {
        const struct mdl_machine *m = machines[k];
        struct setup su;
        setup_machine(m, weights, 1, &su);
        const struct analysis_plan *plan = &su.plan;
        analysis_plan_pairs(&su.plan, NULL, 0, 0);
        uint64_t x = 0x51ed270b27ull + k;
        struct block b = { 0 };
        random_block(m, su.dec, su.ci, 10, &x, &b);
        double half[RT_MAX_LANES], end[RT_MAX_LANES], done[RT_MAX_LANES];
        run_how(m, &b, plan->lanes, plan->n_lanes, false, (struct how){ .reps = REPS / 2 }, half, NULL, NULL);
        run(m, &b, plan->lanes, plan->n_lanes, false, end, NULL, NULL);
        run_how(m, &b, plan->lanes, plan->n_lanes, false, (struct how){ .odd_done_at = REPS / 2 }, done, NULL, NULL);
        for (unsigned l = 0; l < plan->n_lanes; l++) {
            double want = l % 2 ? half[l] : end[l];
            cr_expect_eq(done[l], want, "%s, lane %u (%s): %.17g, expected %.17g (%s)", m->name, l,
                         rt_knob_name(plan->lanes[l].knob[0]), done[l], want, l % 2 ? "done half-way" : "stepped");
        }
        block_free(&b);
        setup_free(&su);
    }
}

/* FN(machine, its plan of one weight (1.15) with its pairs, BLOCK, SEED, CTX) on SEEDS random blocks
 * of N instructions of each of the four machines. */
typedef void block_fn(const struct mdl_machine *m, const struct analysis_plan *plan, const struct block *b,
                      unsigned seed, void *ctx);
static void each_random_block(unsigned n, unsigned seeds, uint64_t stir, block_fn *fn, void *ctx)
{
    const struct mdl_machine *const machines[] = { &mdl_machine_skylake, &mdl_machine_icelake,
                                                   &mdl_machine_alderlake, &mdl_machine_cortex_a72 };
    const double weights[] = { 1.15 };
    for (size_t k = 0; k < sizeof machines / sizeof *machines; k++) {
        const struct mdl_machine *m = machines[k];
        struct setup su;
        setup_machine(m, weights, 1, &su);
        analysis_plan_pairs(&su.plan, NULL, 0, 0);
        for (unsigned seed = 1; seed <= seeds; seed++) {
            uint64_t x = seed * stir + k;
            struct block b = { 0 };
            random_block(m, su.dec, su.ci, n, &x, &b);
            fn(m, &su.plan, &b, seed, ctx);
            block_free(&b);
        }
        setup_free(&su);
    }
}

/* One block, lanes resting from a third of the repetitions to two thirds (some done before):
 * counts in *PARTED the even lanes whose time differs from the baseline's at the end. */
static void expect_rest_and_join(const struct mdl_machine *m, const struct analysis_plan *plan, const struct block *b,
                                 unsigned seed, void *parted)
{
    const unsigned n = plan->n_lanes, rest = REPS / 3, join = 2 * REPS / 3;
    double plain[RT_MAX_LANES], at_rest[RT_MAX_LANES], resting[RT_MAX_LANES], all[RT_MAX_LANES], some[RT_MAX_LANES],
        at_once[RT_MAX_LANES], done_resting[RT_MAX_LANES], done_before[RT_MAX_LANES], joined[RT_MAX_LANES],
        joined_some[RT_MAX_LANES], again[RT_MAX_LANES], rejoined[RT_MAX_LANES], twice[RT_MAX_LANES],
        forgot[RT_MAX_LANES], joined_forgot[RT_MAX_LANES];
    bool shared[RT_MAX_LANES];
    struct how h = { .rest_at = rest, .join_at = join, .odd_done_at = rest / 2, .joined = joined, .shared = shared };
    run_how(m, b, plan->lanes, n, false, (struct how){ .odd_done_at = rest / 2 }, plain, NULL, NULL);
    run_how(m, b, plan->lanes, n, false, (struct how){ .odd_done_at = rest / 2, .reps = rest }, at_rest, NULL, NULL);
    run_how(m, b, plan->lanes, n, false, (struct how){ .rest_at = rest, .odd_done_at = rest / 2, .reps = join },
            resting, NULL, NULL);
    run_how(m, b, plan->lanes, n, false, h, all, NULL, NULL);
    h.rest_again_at = (rest + join) / 2;
    h.joined = NULL;
    h.shared = NULL;
    run_how(m, b, plan->lanes, n, false, h, twice, NULL, NULL);
    h.rest_again_at = 0;
    h.forget_from = n / 2;
    h.joined = joined_forgot;
    run_how(m, b, plan->lanes, n, false, h, forgot, NULL, NULL);
    h.forget_from = 0;
    h.join_every = 3;
    h.joined = joined_some;
    run_how(m, b, plan->lanes, n, false, h, some, NULL, NULL);
    h.rejoin_at = (join + REPS) / 2;
    h.joined = rejoined;
    run_how(m, b, plan->lanes, n, false, h, again, NULL, NULL);
    /* resting and joining at once, odd lanes done as they rest or before: nothing moves */
    run_how(m, b, plan->lanes, n, false, (struct how){ .rest_at = rest, .join_at = rest, .odd_done_at = rest / 2 },
            at_once, NULL, NULL);
    run_how(m, b, plan->lanes, n, false, (struct how){ .odd_done_at = rest }, done_before, NULL, NULL);
    run_how(m, b, plan->lanes, n, false, (struct how){ .rest_at = rest, .join_at = rest, .done_resting = true },
            done_resting, NULL, NULL);
    cr_expect_eq(all[0], plain[0], "%s, seed %u: the baseline %.17g, %.17g without a rest", m->name, seed, all[0],
                 plain[0]);
    for (unsigned l = 1; l < n; l++) {
        const char *knob = rt_knob_name(plan->lanes[l].knob[0]);
        bool odd = l % 2 == 1, third = l % 3 == 1;
        cr_expect_eq(resting[l], at_rest[l], "%s, seed %u, lane %u (%s) resting: %.17g, %.17g when it began", m->name,
                     seed, l, knob, resting[l], at_rest[l]);
        cr_expect_eq(twice[l], all[l], "%s, seed %u, lane %u (%s) rested again while resting: %.17g, %.17g", m->name,
                     seed, l, knob, twice[l], all[l]);
        cr_expect_eq(at_once[l], plain[l], "%s, seed %u, lane %u (%s) rested and joined at once: %.17g, %.17g", m->name,
                     seed, l, knob, at_once[l], plain[l]);
        cr_expect_eq(done_resting[l], done_before[l], "%s, seed %u, lane %u (%s) done as it rested: %.17g, %.17g",
                     m->name, seed, l, knob, done_resting[l], done_before[l]);
        cr_expect_eq(some[l], third ? all[l] : resting[l], "%s, seed %u, lane %u (%s) with a third of the lanes "
                     "joining: %.17g, %.17g", m->name, seed, l, knob, some[l], third ? all[l] : resting[l]);
        double from = shared[l] ? joined[0] : at_rest[l];   /* the time of the state it rested with */
        if (!odd)
            cr_expect_eq(joined[l], from, "%s, seed %u, lane %u (%s, %s as it rested) joined at %.17g, not %.17g",
                         m->name, seed, l, knob, shared[l] ? "shared" : "in a slot", joined[l], from);
        double want = l < n / 2 ? joined[l] : joined_forgot[0];     /* those forgetting take the baseline's */
        if (!odd)
            cr_expect_eq(joined_forgot[l], want, "%s, seed %u, lane %u (%s) joined at %.17g, %.17g (the lanes from %u "
                         "forgot their state)", m->name, seed, l, knob, joined_forgot[l], want, n / 2);
        if (!odd && l < n / 2)
            cr_expect_eq(forgot[l], all[l], "%s, seed %u, lane %u (%s) kept its state: %.17g, %.17g", m->name, seed, l,
                         knob, forgot[l], all[l]);
        if (!odd && third)
            cr_expect_eq(joined_some[l], joined[l], "%s, seed %u, lane %u (%s) joined with a third: %.17g, %.17g",
                         m->name, seed, l, knob, joined_some[l], joined[l]);
        if (!odd && !third)     /* it lost its state by not joining: it takes the baseline's */
            cr_expect_eq(rejoined[l], rejoined[0], "%s, seed %u, lane %u (%s) joined again: %.17g, the baseline %.17g",
                         m->name, seed, l, knob, rejoined[l], rejoined[0]);
        *(unsigned *)parted += !odd && all[l] != all[0];
    }
}

/* Lanes that rest keep their times while the baseline goes on as it would have, and join it again
 * from the state they rested with: their own where they had one (a slot), the baseline's where
 * they shared it or were told to forget theirs. Resting again while resting changes nothing, nor do
 * resting and joining at once, nor a lane done as it rests;
 * when only some join, those end as they would have with all joining, the others as they rested,
 * and those, having lost their state, take the baseline's when they join later. */
Test(lanes, lanes_rest_with_their_times_and_join_again_from_the_state_they_rested_with)
{
    unsigned parted = 0;
    each_random_block(10, 3, 0x2545f4914f6cdd1dull, expect_rest_and_join, &parted);
    cr_expect(parted > 0, "no lane that joined again parted from the baseline");
}

/* One block in block mode, its lanes sharing the baseline's state and each stepped alone: counts in
 * *LATE the lanes whose cycles differ from the baseline's. */
static void expect_parted_late_alike(const struct mdl_machine *m, const struct analysis_plan *plan,
                                     const struct block *b, unsigned seed, void *late)
{
    char err[256];
    struct rt_model *alone = rt_model_new(m, plan->lanes, plan->n_lanes, false, (unsigned)b->n_orig, err, sizeof err);
    cr_assert(alone, "%s", err);
    rt_model_share_baseline(alone, false);
    struct block_result shared = { 0 }, stepped = { 0 };
    cr_assert(block_run(b, m, plan->lanes, plan->n_lanes, false, 200, NULL, &shared, err, sizeof err), "%s", err);
    cr_assert(block_run(b, m, plan->lanes, plan->n_lanes, false, 200, &alone, &stepped, err, sizeof err), "%s", err);
    for (unsigned l = 0; l < plan->n_lanes; l++) {
        cr_expect_eq(shared.cycles[l], stepped.cycles[l], "%s, seed %u, lane %u (%s): %.17g, stepped alone %.17g",
                     m->name, seed, l, rt_knob_name(plan->lanes[l].knob[0]), shared.cycles[l], stepped.cycles[l]);
        *(unsigned *)late += l > 0 && shared.cycles[l] != shared.cycles[0];
    }
    free(shared.crit); free(shared.seen); free(stepped.crit); free(stepped.seen);
    rt_model_free(alone);
}

/* Block mode measures a lane that shares the baseline's state by the baseline's series, and one
 * that parts from it later (a window that fills after many iterations) by the series it had until
 * then: every lane's cycles equal those of a run in which each lane is stepped from the start. */
Test(lanes, block_mode_measures_a_lane_that_parts_from_the_baseline_late_as_one_stepped_alone)
{
    unsigned late = 0;
    each_random_block(12, 6, 0x9e3779b97f4a7c15ull, expect_parted_late_alike, &late);
    cr_expect(late > 0, "no lane's cycles differ from the baseline's: nothing parted from it");
}
