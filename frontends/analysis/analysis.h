/* The analysis of a result, without I/O: which lanes to run (the plan), their labels, the
 * rankings, the sensitivity curves, the verdict, the bounds and the top-down fractions. The
 * driver and the engines call it; the views read what it leaves in the result. */
#ifndef ANALYSIS_H
#define ANALYSIS_H
#include <stdbool.h>
#include <stddef.h>
#include "mdl_machine.h"
#include "model.h"
#include "result.h"

struct analysis_plan {
    const struct mdl_machine *m;
    struct rt_lane_cfg lanes[RT_MAX_LANES];
    unsigned n_lanes;
    unsigned n_common;              /* the lanes every analysis gets; pair lanes follow */
    unsigned n_weights;
    double weights[RESULT_MAX_WEIGHTS];     /* factors: 1.15 is 15% faster */
    bool sensitivity;
};

/* The baseline; with SENSITIVITY, every swept knob (knob.def) of M at every weight (each
 * resource, each data-side cache level with a bandwidth), then the bounds. False with ERR when
 * the lanes would not fit in a model (too many weights for the machine). */
bool analysis_plan_init(struct analysis_plan *p, const struct mdl_machine *m, const double *weights,
                        unsigned n_weights, bool sensitivity, char *err, size_t errlen);
/* Pair lanes for balanced kernels, at the largest weight: latency and the three resources (front
 * end, retirement) the code keeps busiest, BUSY[r] cycles for resource r (NULL when the code is not
 * known beforehand: latency, front end and memory latency then pair up). Replaces earlier pairs. */
void analysis_plan_pairs(struct analysis_plan *p, const double *busy, double frontend, double retire);

/* R takes the plan's lanes (their cycles for the engine to fill) and weights. */
void analysis_start(struct result *r, const struct analysis_plan *p);
/* Everything derived from the engine's numbers: IPC, lane labels and speed-ups, rankings,
 * curves, bounds, busy times and shares, critical order, verdict, and the top-down fractions
 * from the slot counts TD (NULL: none). */
void analysis_finish(struct result *r, const struct rt_topdown *td);

/* C's fastest core, each core's cycles relative to it, and the functions whose cycles differ most
 * between the cores (C's results finished). */
void analysis_compare(struct result_comparison *c);

#endif
