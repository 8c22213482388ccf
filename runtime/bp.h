/* Branch prediction: a direction predictor for conditional branches, a BTB, a return address
 * stack and an indirect-target predictor, as a machine's branch block describes them. */
#ifndef BP_H
#define BP_H
#include <stdbool.h>
#include <stdint.h>
#include "insn.h"
#include "mdl_machine.h"

struct bp;

/* Sizes the machine leaves at 0 take defaults: tables of 4096 entries, 64 bits of history,
 * a 4096-entry 4-way BTB and a 16-entry return stack. NULL when out of memory. */
struct bp *bp_new(const struct mdl_machine *m);
void bp_free(struct bp *bp);

/* One executed branch of KIND at PC with its outcome, and whether it was mispredicted: in
 * direction for a conditional branch, in target for an indirect branch or a return. TARGET is
 * where the branch goes when taken; for a conditional branch not taken it may be FALLTHROUGH
 * (the next pc), and the taken target the BTB remembers is used (the static predictor needs
 * it). Calls push FALLTHROUGH on the return stack; direct jumps and calls are never mispredicted
 * (a BTB miss on them is a front-end bubble, not charged here). RT_BR_NONE is ignored. */
bool bp_branch(struct bp *bp, uint64_t pc, enum rt_branch kind, bool taken, uint64_t target,
               uint64_t fallthrough);

void bp_stats(const struct bp *bp, uint64_t *branches, uint64_t *mispredicts);

#endif
