/* The stepping kernel (kernel.c): the step of the live lanes, in the copy for a vector
 * extension. */
#ifndef RT_KERNEL_H
#define RT_KERNEL_H
#include <stdbool.h>
#include "model.h"

struct step;
struct kin;
/* The passes' inputs for lanes [a, b): the front end's delivery times (FE_READY) and the lane
 * arrays of the stores S reads and writes. */
void kernel_inputs(struct rt_model *md, const struct step *s, unsigned a, unsigned b, double *fe_ready,
                   struct kin *in);
/* Step S of the live lanes (lane 0 with its taints while a period is open); each lane's
 * retirement time to RETIRE. */
void kernel_step(struct rt_model *md, const struct step *s, const struct kin *in, double *retire);
/* The copies: the widest this processor runs for MD; doubles in its vectors; the name of copy K
 * (NULL beyond the last); MD on the copy named ISA (false when the processor lacks it). */
void kernel_widest(struct rt_model *md);
unsigned kernel_group(void);
const char *kernel_isa(unsigned k);
bool kernel_choose(struct rt_model *md, const char *isa);

#endif
