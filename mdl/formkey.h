/* Form keys as the decoder spells them (spec §10.1): the operand kinds of mdl/opkind.def, the
 * normalisation of Capstone's mnemonics, and the mnemonics Capstone can print. Shared by the
 * decoder (frontends/decode.c), which spells keys, and mdlc, which checks a description's. */
#ifndef MDL_FORMKEY_H
#define MDL_FORMKEY_H
#include <stdbool.h>
#include <stddef.h>
#include "isa_enum.h"

enum formkey_kind {
#define K(isa, id, s) FK_##isa##_##id,
#include "opkind.def"
#undef K
    FK_COUNT
};

const char *formkey_kind_name(enum formkey_kind k);
enum mdl_isa formkey_kind_isa(enum formkey_kind k);
/* The kind of ISA spelt S, or FALLBACK when ISA has none of that spelling. */
enum formkey_kind formkey_kind_find(enum mdl_isa isa, const char *s, enum formkey_kind fallback);
/* "x86-64" or "AArch64", for messages. */
const char *formkey_isa_name(enum mdl_isa isa);
/* The key that covers every conditional branch without an entry of its own (AArch64's "B.cond"),
 * or NULL where the ISA has none. */
const char *formkey_cond_family(enum mdl_isa isa);
/* Whether the ISA's mnemonics may hold a '.' (AArch64's B.EQ). */
bool formkey_dotted(enum mdl_isa isa);

/* Set by formkey_mnemonic when the name held a compare predicate (CMPLTPS): uops.info's form has
 * it as an immediate operand instead (CMPPS (XMM, XMM, I8)). */
enum { FORMKEY_PREDICATE = 1 };

/* Capstone's mnemonic as form keys spell it: the last word (prefixes such as lock or rep are
 * read from the encoding), upper case, and on x86-64 uops.info's name of the instruction (JE ->
 * JZ, MOVABS -> MOV, CMPLTPS -> CMPPS). Returns FORMKEY_PREDICATE or 0. */
unsigned formkey_mnemonic(enum mdl_isa isa, const char *printed, char *out, size_t size);
/* The first step alone: the last word of PRINTED in upper case. */
void formkey_upper_word(const char *printed, char *out, size_t size);

/* Every mnemonic the decoder can give on one ISA, sorted: Capstone's instruction names through
 * formkey_mnemonic, with the spellings its printer adds (ADDS, B.EQ). */
struct formkey_names {
    const char **v;
    size_t n;
};

/* Fills NAMES from the Capstone library mdlsim decodes with; false with ERR when it cannot be
 * opened or memory runs out. */
bool formkey_names_load(enum mdl_isa isa, struct formkey_names *names, char *err, size_t errlen);
void formkey_names_free(struct formkey_names *names);
bool formkey_names_has(const struct formkey_names *names, const char *mnemonic);

#endif
