/* Lanes and slots of the model (lanes.c): a lane is stepped in a slot of its own, shares the
 * baseline's state while it does not differ from it, or is done and keeps its readings. */
#ifndef RT_LANES_H
#define RT_LANES_H
#include <stdbool.h>
#include <stdint.h>
#include "model.h"

struct step;
/* The lanes' parameters (N of LANES): the baseline in slot 0, a slot each for the lanes that read
 * a parameter of their own at every step, the others sharing the baseline's state. */
void lanes_set(struct rt_model *md, const struct rt_lane_cfg *lanes, unsigned n);
/* What the live slots have in common changed: the odd window sizes, the lanes without ports. */
void lanes_changed(struct rt_model *md);
/* LANE keeps its readings and is no longer stepped (rt_model_lane_done). */
void lanes_done(struct rt_model *md, unsigned lane);
/* The lanes but the baseline rest (frozen, not stepped; those in a slot keep their state there),
 * then join again from it, or from the baseline's (rt_model_lanes_rest, rt_model_lanes_join). */
void lanes_rest(struct rt_model *md);
void lanes_join(struct rt_model *md, const bool *which);
/* The resting lanes from FIRST on lose the state they kept: they join with the baseline's
 * (rt_model_lanes_forget). */
void lanes_forget(struct rt_model *md, unsigned first);
/* Before step S: the lanes sharing the baseline's state that S touches take a slot each. */
void lanes_split(struct rt_model *md, const struct step *s);
/* A done lane's readings (FROZEN_* and its async totals); the slot of a lane not done. */
const double *lanes_frozen(const struct rt_model *md, unsigned lane);
unsigned lanes_reading_slot(const struct rt_model *md, unsigned lane);

#endif
