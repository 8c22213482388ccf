/* Causality (Gus, seed 001): every time value of the baseline lane carries the set of recent
 * dynamic instructions that may have set it; an instruction leaving a window of twice the
 * ROB counts as critical when it is still in the dispatch time's set. */
#ifndef RT_TAINT_H
#define RT_TAINT_H
#include <stdbool.h>
#include <stdint.h>

enum tn_fixed { TN_DISPATCH, TN_FRONTEND, TN_INSN, TN_LOAD, TN_RETIRE, TN_RETIRED, TN_FIXED };

struct taint;

/* ROB_CAP, LB_CAP, SB_CAP: sizes (powers of two) of the window, load and store buffer rings. */
struct taint *taint_new(uint32_t window, unsigned n_res, unsigned n_caches, unsigned n_regs, uint32_t rob_cap,
                        uint32_t lb_cap, uint32_t sb_cap);
void taint_free(struct taint *tn);

/* Set identifiers: the fixed ones, then one per resource, cache level, register, window entry. */
unsigned taint_res(const struct taint *tn, unsigned res);
unsigned taint_cache(const struct taint *tn, unsigned level);
unsigned taint_reg(const struct taint *tn, unsigned reg);
unsigned taint_rob(const struct taint *tn, uint64_t pos);
unsigned taint_lb(const struct taint *tn, uint64_t pos);
unsigned taint_sb(const struct taint *tn, uint64_t pos);

/* ConstrainBy: set S with time *t is bound by time C whose set is CS. */
void taint_constrain(struct taint *tn, unsigned s, double *t, double c, unsigned cs);
/* ConstrainBy a value set by the single dynamic instruction SEQ (0: none). */
void taint_constrain_seq(struct taint *tn, unsigned s, double *t, double c, uint64_t seq);
/* UsedBy: a resource (set S, time *t) used by the current instruction no earlier than TMIN. */
void taint_used(struct taint *tn, unsigned s, double *t, double tmin);
/* SetBy: DST takes SRC's set. */
void taint_copy(struct taint *tn, unsigned dst, unsigned src);
void taint_add_current(struct taint *tn, unsigned s);

/* Enters a new dynamic instruction of static index SIDX; returns the static index of the one
 * that left the window (UINT32_MAX if none) and whether dispatch was still tainted by it. */
uint32_t taint_enter(struct taint *tn, uint32_t sidx, bool *critical);
/* Instructions a dynamic instruction stays in the window before it is counted. */
uint32_t taint_window(const struct taint *tn);
/* N instructions passed without taints: every set and slot from before is forgotten. */
void taint_skip(struct taint *tn, uint64_t n);
/* Sequence number of the current instruction (1 for the first). */
uint64_t taint_seq(const struct taint *tn);

#endif
