/* Views of a block analysis: text like llvm-mca's summary plus the Gus tables, or JSON. They
 * only read the results; the model knows nothing of them. */
#ifndef REPORT_H
#define REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "block.h"

struct report {
    const struct mdl_machine *m;
    const struct block *b;
    const struct block_result *r;
    const struct rt_lane_cfg *lanes;
    unsigned n_lanes, iterations;
    bool causality;
};

void report_text(FILE *out, const struct report *rep, const char *label);
/* One JSON object on one line. */
void report_json(FILE *out, const struct report *rep);
void report_error(FILE *out, bool json, const char *label, const char *msg);
/* X as printf's "%.6g" writes it, into BUF (at least 32 bytes); the JSON numbers' format. */
void report_g6(char *buf, double x);

#endif
