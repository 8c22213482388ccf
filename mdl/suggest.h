/* Did-you-mean: the closest of a list of names to a misspelled one, shared by mdlc's
 * diagnostics and mdlsim's command line. */
#ifndef MDL_SUGGEST_H
#define MDL_SUGGEST_H
#include <stddef.h>

/* The closest of CANDIDATES to WORD within a small edit distance (a third of WORD's length,
 * plus one), or NULL. */
const char *suggest_closest(const char *word, const char *const *candidates, size_t n);

#endif
