/* Robustness: whether a verdict holds when each value the description estimates (given with a
 * plausible range, spec.md §8.1) lies at either end of its range. Each end is a machine of its
 * own, measured by the engine that measured the result, on the same decoded code. */
#ifndef ROBUST_H
#define ROBUST_H
#include <stdbool.h>
#include <stddef.h>
#include "analysis.h"
#include "mdl_machine.h"
#include "result.h"

/* M with its uncertain value U at VALUE: the arrays the value lives in are copies of M's (owned). */
struct robust_machine {
    struct mdl_machine m;
    struct mdl_cache *caches;
    struct mdl_template *templates;
    struct mdl_bypass *bypasses;
};

/* The machines of every end of every uncertain value of M that differs from its value: ends[2 i]
 * at value i's low end, ends[2 i + 1] at its high end (m.magic 0 where the end is the value). */
struct robust_set {
    const struct mdl_machine *m;
    struct robust_machine *ends;
    unsigned n_values;
};

/* Sets key PARAM (enum mdl_param) of M, or of its cache CACHE for a cache's key, to VALUE. False
 * when the key is not one a range may vary (mdl/param.def's `fixed`). */
bool robust_set_param(struct mdl_machine *m, struct mdl_cache *caches, unsigned param, unsigned cache, double value);
void robust_machine_init(struct robust_machine *out, const struct mdl_machine *m, const struct mdl_uncertain *u,
                         double value);
void robust_machine_free(struct robust_machine *rm);
void robust_set_init(struct robust_set *s, const struct mdl_machine *m);
void robust_set_free(struct robust_set *s);

/* The engine's measurement of the analysed code on machine M with PLAN's lanes into RES, filled
 * and finished as the analysis itself was (result_reset for M, analysis_start, analysis_finish).
 * False with ERR. */
typedef bool (*robust_measure_fn)(void *ctx, const struct mdl_machine *m, const struct analysis_plan *plan,
                                  struct result *res, char *err, size_t errlen);

/* R's robustness (R finished with PLAN's lanes): each end of each uncertain value measured by
 * MEASURE, first with the baseline alone; where that leaves the cycles as they are, the value does
 * not matter at that end and its lanes are not run; else with all of PLAN's lanes, and its verdict
 * compared with R's. SCRATCH is a result to measure in. THREADS measure ends at once (MEASURE must
 * then be safe to call from several threads); 1: on this thread alone. False with ERR when a
 * measurement fails. */
bool robust_check(struct result *r, const struct analysis_plan *plan, const struct robust_set *set,
                  robust_measure_fn measure, void *ctx, struct result *scratch, unsigned threads, char *err,
                  size_t errlen);

#endif
