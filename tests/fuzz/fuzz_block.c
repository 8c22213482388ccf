/* libFuzzer harness: a basic block's bytes decoded and analysed on every bundled machine (the first
 * byte picks the machine), with sensitivity lanes, causality, the analysis and the JSON view. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "analysis.h"
#include "block.h"
#include "classify.h"
#include "decode.h"
#include "result.h"
#include "view_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct mdl_machine *const mdl_machines[];

struct machine_ctx {
    const struct mdl_machine *m;
    struct dec *dec;
    struct cls_index *ci;
    struct analysis_plan plan;
};

static struct machine_ctx *context(unsigned pick)
{
    static struct machine_ctx ctx[8];
    static unsigned n;
    if (!n)
        while (mdl_machines[n] && n < 8)
            n++;
    struct machine_ctx *c = &ctx[pick % n];
    if (!c->m) {
        char err[256];
        double w = 1.15;
        c->m = mdl_machines[pick % n];
        c->dec = dec_open((enum mdl_isa)c->m->isa, err, sizeof err);
        c->ci = cls_build(c->m);
        analysis_plan_init(&c->plan, c->m, &w, 1, true, err, sizeof err);
    }
    return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 512)
        return 0;
    struct machine_ctx *c = context(data[0]);
    if (!c->dec)
        return 0;
    char err[512];
    struct block b = { 0 };
    struct block_result r = { 0 };
    static struct result res;
    if (block_decode(&b, c->dec, c->ci, c->m, NULL, data + 1, size - 1, BLOCK_PC, err, sizeof err)) {
        double *busy = calloc(c->m->n_resources + 1u, sizeof *busy), fe, ret;
        block_busy(&b, c->m, busy, &fe, &ret);
        analysis_plan_pairs(&c->plan, busy, fe, ret);
        free(busy);
        if (block_run(&b, c->m, c->plan.lanes, c->plan.n_lanes, true, 20, NULL, &r, err, sizeof err)) {
            result_reset(&res, c->m);
            res.command = "block";
            res.scope_name = "fuzz";
            analysis_start(&res, &c->plan);
            block_fill(&b, &r, true, &res);
            analysis_finish(&res, &r.topdown);
            FILE *sink = fopen("/dev/null", "w");
            view_json(sink, &res);
            fclose(sink);
        }
        free(r.crit);
        free(r.seen);
    }
    block_free(&b);
    return 0;
}
