/* Form keys of a description against what the decoder spells (spec §10.1): a mnemonic Capstone
 * can give (mdl/formkey.c), as the classifier matches it, and operand kinds of the machine's ISA
 * (mdl/opkind.def). A key that fails can never model an instruction. */
#ifndef MDLC_FORMCHECK_H
#define MDLC_FORMCHECK_H
#include <stdbool.h>
#include <stddef.h>
#include "mdl_machine.h"

struct formcheck;

/* The decoder's own lists for ISA; NULL with ERR when Capstone cannot be opened. */
struct formcheck *formcheck_open(enum mdl_isa isa, char *err, size_t errlen);
/* Given lists instead (a test's altered vocabulary): the strings must outlive the result. */
struct formcheck *formcheck_new(enum mdl_isa isa, const char *const *mnemonics, size_t n_mnemonics,
                                const char *const *kinds, size_t n_kinds);
void formcheck_free(struct formcheck *fc);

enum formcheck_problem {
    FORMCHECK_OK,
    FORMCHECK_MNEMONIC,         /* not spelt as mnemonics are (lower case): an error */
    FORMCHECK_KIND,             /* not an operand kind of any ISA: an error */
    FORMCHECK_OTHER_ISA_KIND,   /* a kind of the other ISA: an error */
    FORMCHECK_UNKNOWN,          /* well spelt, but no instruction decodes with that mnemonic: a warning */
};

struct formcheck_key {
    const char *mnemonic;
    const char *const *kinds;   /* `*` for a wildcard */
    size_t n_kinds;
    bool has_kinds;             /* `ADD ()` has, `ADD` has not */
};

struct formcheck_verdict {
    enum formcheck_problem problem;
    size_t kind;                /* the kind at fault, for FORMCHECK_KIND and FORMCHECK_OTHER_ISA_KIND */
};

/* Checks KEY; the first problem found (the mnemonic's spelling, then the kinds in order, then
 * whether the mnemonic is the decoder's) is the verdict. */
void formcheck_key(const struct formcheck *fc, const struct formcheck_key *key, struct formcheck_verdict *v);
/* What V says is wrong with KEY, with "; did you mean 'KEY'?" when every part of it has a close
 * spelling ("'add' is not an x86-64 mnemonic; did you mean 'ADD (R64, R64)'?"). */
void formcheck_message(const struct formcheck *fc, const struct formcheck_key *key,
                       const struct formcheck_verdict *v, char *out, size_t size);
/* The verdict on a key as text, "ADD (R64, M64)" or "ADD"; false when it is not shaped like one. */
bool formcheck_text(const struct formcheck *fc, const char *text, struct formcheck_verdict *v);

#endif
