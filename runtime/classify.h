/* Classifier: picks the machine's template for a decoded instruction and applies the machine's
 * replacement rules (zero idioms, move elimination, macro-fusion and other pair fusions). */
#ifndef CLASSIFY_H
#define CLASSIFY_H
#include <stdbool.h>
#include "insn.h"
#include "mdl_machine.h"

struct cls_index;

/* Lookup tables for M (form names, encoding variants, looser spellings, rules by template).
 * NULL when out of memory. M must outlive the index. */
struct cls_index *cls_build(const struct mdl_machine *m);
void cls_free(struct cls_index *ci);

/* Sets IN's tmpl, form, rule, unknown, eliminated and fusible from its key (and, for LEA, its
 * address shape). The template, and the form, is the first of: the exact key; an encoding
 * variant (`ADD_01 (R64, R64)` for `ADD (R64, R64)`, never a _LOCK/_REPE/_REPNE one); a form
 * with `*` kinds; a related spelling (LEA's addressing shape; `B.cond`; kinds of the same width
 * or family, such as I8/I32, R8l/R8h, AL/R8l, M64/M32, V2S/V4S, XS/X, the closest kept); the
 * bare mnemonic; else the class default of IN->cls with unknown set (and no form). The form's
 * `depends` marks add what it writes to its sources (the destination operands' registers, the
 * flags). Then the last-declared single-instruction `replace` rule that matches applies (rule):
 * nop sets eliminated, a form rule the template, and a nop or form rule with a flow keeps as
 * sources only the operands it reads. Fusible says that a pair rule starts with the resulting
 * template. */
void cls_apply(const struct cls_index *ci, const struct mdl_machine *m, struct rt_insn *in);

/* When a pair rule matches FIRST followed by SECOND (SECOND at FIRST's pc + len), merges SECOND
 * into FIRST: the rule's target template, the union of their data flow (what FIRST produces for
 * SECOND passes inside the pair), SECOND's branch kind, both lengths and encodings, SECOND's form
 * as form[1], the rule, and "KEY1 ++ KEY2" as key. Both must have been through cls_apply; a fused
 * entry never fuses again, an eliminated or unknown instruction never fuses. Returns whether it
 * fused. */
bool cls_fuse(const struct cls_index *ci, const struct mdl_machine *m, struct rt_insn *first,
              const struct rt_insn *second);

#endif
