/* The callgrind view: a run's predicted costs per function and source line in valgrind's callgrind
 * format, for KCachegrind and callgrind_annotate. */
#ifndef VIEW_CALLGRIND_H
#define VIEW_CALLGRIND_H
#include <stdbool.h>
#include <stdio.h>
#include "result.h"

/* Writes R to OUT (rows without a module are left out: a block's); false on a write error. */
bool view_callgrind(FILE *out, const struct result *r);

#endif
