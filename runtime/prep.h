/* What the step needs of an instruction, the same in every lane (prep.c). */
#ifndef RT_PREP_H
#define RT_PREP_H
#include <stdbool.h>
#include <stdint.h>
#include "insn.h"
#include "model.h"

struct step;
/* S for this execution of IN, static index SIDX, at ADDR (one per access), served by LEVELS. */
void prep_step(struct rt_model *md, struct step *s, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
               const uint8_t *levels, bool mispredicted);
/* S, prepared for a repeated string instruction, as the machine's `strings` facts cost STR: its
 * start-up, its bytes' time and the cache traffic of its lines. */
void prep_string(const struct rt_model *md, struct step *s, const struct rt_string *str);
/* The stores S's loads read, then the ones it writes (shadow memory). */
void prep_memory(struct rt_model *md, struct step *s);
/* Which registers IN leaves holding a pointer loaded from memory. */
void prep_mark_loaded(struct rt_model *md, const struct rt_insn *in, uint8_t cls);

#endif
