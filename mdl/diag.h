/* Compiler diagnostics: `file:line:col: error: message`, the source line and an underline,
 * counted so that a run reports many errors and then fails. */
#ifndef MDL_DIAG_H
#define MDL_DIAG_H
#include <stdbool.h>
#include <stdio.h>
#include "source.h"

enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

struct diag {
    const struct src_manager *sm;
    FILE *out;
    unsigned errors, warnings;
    unsigned max_errors;        /* 0: unlimited */
    bool too_many;              /* max_errors reached: callers should stop */
    bool werror;                /* warnings count as errors */
};

void diag_init(struct diag *d, const struct src_manager *sm, FILE *out);
void diag_at(struct diag *d, enum diag_level lvl, struct span at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define diag_error(d, at, ...)   diag_at((d), DIAG_ERROR, (at), __VA_ARGS__)
#define diag_warning(d, at, ...) diag_at((d), DIAG_WARNING, (at), __VA_ARGS__)
#define diag_note(d, at, ...)    diag_at((d), DIAG_NOTE, (at), __VA_ARGS__)
/* A diagnostic with no place in a source file (`mdlc: error: ...`). */
void diag_plain(struct diag *d, enum diag_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool diag_failed(const struct diag *d);

#endif
