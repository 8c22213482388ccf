/* Instruction forms under test: each one's key (as the uops.info tables and the decoder spell it),
 * its encoding, and its latency and inverse throughput nano-benchmarks. */
#ifndef PROBE_FORMS_H
#define PROBE_FORMS_H
#include <stdbool.h>
#include <stddef.h>
#include "nano.h"

struct forms_entry;

size_t forms_count(void);
const struct forms_entry *forms_get(size_t i);
const char *forms_key(const struct forms_entry *f);
/* The instruction of the latency chain in assembly, for comments: "imul rax, rcx". */
const char *forms_asm(const struct forms_entry *f);
/* Whether this processor has the instructions (CPUID); false on a host that is not x86-64. */
bool forms_supported(const struct forms_entry *f);
/* The bytes of the chain's instruction, for checking the key against the decoder. */
void forms_encode_chain(const struct forms_entry *f, struct x86_code *c);

/* Cycles from one instance's start to the next dependent one's: UNROLL instances chained. */
bool forms_latency(const struct timer *t, const struct forms_entry *f, struct nano_stat *out, char *err,
                   size_t errlen);
/* Cycles per instance when instances are independent (every stream register in turn). */
bool forms_throughput(const struct timer *t, const struct forms_entry *f, struct nano_stat *out, char *err,
                      size_t errlen);
/* The form whose latency chain is the clock's reference: ADD (R64, R64). */
const struct forms_entry *forms_reference(void);
/* The form of KEY, or NULL. */
const struct forms_entry *forms_find(const char *key);

#endif
