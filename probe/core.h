/* The pipeline's widths and penalties: issue width, mispredict penalty, and the reorder buffer
 * (Henry Wong's method: cache misses N fillers apart overlap until the buffer cannot hold two). */
#ifndef PROBE_CORE_H
#define PROBE_CORE_H
#include <stdbool.h>
#include <stdio.h>
#include "chase.h"
#include "findings.h"

/* Instructions per cycle: frontend issue_width. */
bool core_issue_width(const struct timer *t, struct findings *f, char *err, size_t errlen);
/* branch mispredict_penalty. */
bool core_mispredict(const struct timer *t, struct findings *f, char *err, size_t errlen);
/* window rob, with the curve "rob" (cycles per iteration against fillers). Uses C's buffer. */
bool core_rob(struct chase *c, struct findings *f, char *err, size_t errlen);

#endif
