/* Causality's answers pinned on 2000 real basic blocks (BHive's, under the MIT licence:
 * causality/blocks.txt): the critical and seen counts of each instruction of each block on Skylake
 * and Ice Lake, word for word against causality/<machine>.expected. The taint hooks of the
 * stepping kernel have no second copy to be compared with (the times do: test_lanes), so a change
 * to the sets they keep shows here. A change meant to move them writes <machine>.actual beside the
 * expected file: read the difference, then make it the expected one. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "block.h"
#include "classify.h"
#include "decode.h"
#include "files.h"
#include "model.h"

extern const struct mdl_machine mdl_machine_skylake, mdl_machine_icelake;

/* The counts of every block of causality/blocks.txt on M, one line a block: its number, then
 * crit/seen of each instruction. */
static char *critical_counts(const struct mdl_machine *m, size_t *len)
{
    char err[256];
    struct dec *dec = dec_open((enum mdl_isa)m->isa, err, sizeof err);
    cr_assert(dec, "%s", err);
    struct cls_index *ci = cls_build(m);
    FILE *in = fopen("causality/blocks.txt", "r");
    cr_assert(in, "causality/blocks.txt: run the tests from tests/");
    char *out = NULL;
    FILE *o = open_memstream(&out, len);
    struct rt_lane_cfg base = { { RT_KNOB_NONE, RT_KNOB_NONE }, { 0, 0 }, 1 };
    struct rt_model *md = NULL;
    char line[8192];
    for (unsigned n = 1; fgets(line, sizeof line, in); n++) {
        uint8_t *bytes;
        size_t nb;
        struct block b = { 0 };
        struct block_result r = { 0 };
        line[strcspn(line, "\n")] = 0;
        cr_assert(block_parse_hex(line, strlen(line), &bytes, &nb, err, sizeof err), "block %u: %s", n, err);
        cr_assert(block_decode(&b, dec, ci, m, NULL, bytes, nb, BLOCK_PC, err, sizeof err), "block %u: %s", n, err);
        cr_assert(block_run(&b, m, &base, 1, true, 200, &md, &r, err, sizeof err), "block %u: %s", n, err);
        fprintf(o, "%u", n);
        for (size_t i = 0; i < b.n_orig; i++)
            fprintf(o, " %llu/%llu", (unsigned long long)r.crit[i], (unsigned long long)r.seen[i]);
        fputc('\n', o);
        free(r.crit);
        free(r.seen);
        free(bytes);
        block_free(&b);
    }
    fclose(o);
    fclose(in);
    rt_model_free(md);
    cls_free(ci);
    dec_close(dec);
    return out;
}

/* The first line where A and B differ (1-based), 0 when they are equal. */
static unsigned first_difference(const char *a, const char *b)
{
    unsigned line = 1;
    for (; *a && *a == *b; a++, b++)
        line += *a == '\n';
    return *a == *b ? 0 : line;
}

static void expect_golden(const struct mdl_machine *m)
{
    size_t got_len, want_len;
    char *got = critical_counts(m, &got_len), path[128], actual[128];
    snprintf(path, sizeof path, "causality/%s.expected", m->name);
    snprintf(actual, sizeof actual, "causality/%s.actual", m->name);
    char *want = files_read(path, &want_len);
    if (!want) {                            /* none yet: every line differs */
        want = calloc(1, 1);
        want_len = 0;
    }
    unsigned line = first_difference(got, want);
    if (line) {
        FILE *f = fopen(actual, "w");
        if (f) {
            fputs(got, f);
            fclose(f);
        }
    } else {
        remove(actual);
    }
    cr_expect_eq(line, 0, "%s: the critical counts differ from line %u on (all of them in %s)", m->name, line, actual);
    free(got);
    free(want);
}

Test(causality, counts_the_critical_instructions_of_real_blocks_on_skylake_as_before, .timeout = 120)
{
    expect_golden(&mdl_machine_skylake);
}

Test(causality, counts_the_critical_instructions_of_real_blocks_on_icelake_as_before, .timeout = 120)
{
    expect_golden(&mdl_machine_icelake);
}

/* Causality follows the baseline lane from its measurement on, whichever other lanes run (the
 * baseline does not depend on them): every lane of the plan, pairs included, and the baseline
 * alone give each instruction the same counts, on the first 300 blocks. */
Test(causality, finds_the_same_critical_path_whichever_lanes_run, .timeout = 120)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    char err[256];
    struct dec *dec = dec_open((enum mdl_isa)m->isa, err, sizeof err);
    cr_assert(dec, "%s", err);
    struct cls_index *ci = cls_build(m);
    const double weight = 1.15;
    struct analysis_plan *plan = malloc(sizeof *plan);
    cr_assert(analysis_plan_init(plan, m, &weight, 1, true, err, sizeof err), "%s", err);
    FILE *in = fopen("causality/blocks.txt", "r");
    cr_assert(in, "causality/blocks.txt: run the tests from tests/");
    char line[8192];
    struct rt_model *alone = NULL, *every = NULL;
    for (unsigned n = 1; n <= 300 && fgets(line, sizeof line, in); n++) {
        uint8_t *bytes;
        size_t nb;
        struct block b = { 0 };
        struct block_result r1 = { 0 }, r2 = { 0 };
        line[strcspn(line, "\n")] = 0;
        cr_assert(block_parse_hex(line, strlen(line), &bytes, &nb, err, sizeof err), "block %u: %s", n, err);
        cr_assert(block_decode(&b, dec, ci, m, NULL, bytes, nb, BLOCK_PC, err, sizeof err), "block %u: %s", n, err);
        double *busy = calloc(m->n_resources + 1u, sizeof *busy), fe, ret;
        block_busy(&b, m, busy, &fe, &ret);
        analysis_plan_pairs(plan, busy, fe, ret);
        free(busy);
        cr_assert(block_run(&b, m, plan->lanes, 1, true, 200, &alone, &r1, err, sizeof err), "%s", err);
        cr_assert(block_run(&b, m, plan->lanes, plan->n_lanes, true, 200, &every, &r2, err, sizeof err), "%s", err);
        for (size_t i = 0; i < b.n_orig; i++)
            cr_expect(r1.crit[i] == r2.crit[i] && r1.seen[i] == r2.seen[i],
                      "block %u, instruction %zu: %llu/%llu alone, %llu/%llu with %u lanes", n, i,
                      (unsigned long long)r1.crit[i], (unsigned long long)r1.seen[i], (unsigned long long)r2.crit[i],
                      (unsigned long long)r2.seen[i], plan->n_lanes);
        free(r1.crit);
        free(r1.seen);
        free(r2.crit);
        free(r2.seen);
        free(bytes);
        block_free(&b);
    }
    fclose(in);
    rt_model_free(alone);
    rt_model_free(every);
    free(plan);
    cls_free(ci);
    dec_close(dec);
}
