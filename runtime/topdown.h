/* Top-down slot accounting of the baseline lane (topdown.c). */
#ifndef RT_TOPDOWN_H
#define RT_TOPDOWN_H
#include <stdbool.h>
#include "model.h"

struct step;
/* No slots yet; no load outstanding. */
void topdown_clear(struct rt_model *md);
/* After lane 0's step S, before its window entries are pushed. */
void topdown_step(struct rt_model *md, const struct step *s);
/* The slots so far (rt_model_topdown). */
void topdown_read(const struct rt_model *md, bool with_tail, struct rt_topdown *out);

#endif
