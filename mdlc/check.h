/* Pass 2: validates what the names denote: value types, units and ranges, references to
 * units, sources, classes and forms, template shapes; computes the checked parameter values. */
#ifndef MDLC_CHECK_H
#define MDLC_CHECK_H
#include <stdint.h>
#include "program.h"

enum { CHECK_MAX_ATOMS = 64 };          /* unit instances, so a set of them fits a bit mask */
enum { CHECK_MAX_COUNT = 10000000 };    /* uops, latencies: microcoded WBINVD reaches 10^6 */

/* Returns false when errors were reported. */
bool check_program(struct program *p);

/* The unit instances a name in a mapping denotes: a unit (all its instances) or a compact set
 * of one-instance units sharing a prefix (`p0156`, `I01`). 0 when it denotes none. */
uint64_t check_unit_set(const struct program *p, const char *name);
/* Instance bits of a declared unit (after check assigned them). */
uint64_t check_unit_atoms(const struct prog_unit *u);
/* Names of the atoms, for messages and the emitted tables ("p0", "U_ALU[1]"). */
const char *check_atom_name(const struct program *p, unsigned atom);
/* Whether X is a power of two of at least 1: what a cache line and a uop cache window must be. */
bool check_pow2(double x);
/* The class index of NAME in class.def, or -1. */
int check_class_index(const char *name);
/* The index in mdl/depend.def of a `depends` target, or -1. */
int check_depend_index(const char *name);
/* The name of value INDEX of enum TYPE of enum.def ("PORT_CHOICE", 1: "least_used"), or "?". */
const char *check_enum_name(const char *type, unsigned index);
/* The source text of a span, as the user wrote it (`40 KiB`, not the bare number). */
const char *check_span_text(const struct program *p, struct span s);
/* The annotation that gives attribute I of entry D its source (§7: its own, else the next one of
 * the entry), or NULL: for a value with a range, its reason. */
const struct ast_src *check_attr_source(const struct ast_decl *d, size_t i);
/* The reason an annotation gives: its text, or the text of the source it names ("" if unknown). */
const char *check_source_text(const struct program *p, const struct ast_src *s);
extern const char *const check_class_names[];
extern const size_t check_class_count;

#endif
