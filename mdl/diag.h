/* Compiler diagnostics: `file:line:col: error: message`, the source line and an underline,
 * counted so that a run reports many errors and then fails. */
#ifndef MDL_DIAG_H
#define MDL_DIAG_H
#include <stdbool.h>
#include <stdio.h>
#include "source.h"

enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

/* Bounds on what one diagnostic prints, whatever the input holds (a number of megabytes, a line
 * without end): a message of at most DIAG_MAX_MESSAGE bytes, a source line shown as a window of
 * DIAG_MAX_LINE bytes around the place, a token quoted as its first DIAG_MAX_QUOTE bytes. */
enum { DIAG_MAX_MESSAGE = 1024, DIAG_MAX_LINE = 160, DIAG_MAX_QUOTE = 64 };

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
/* The N bytes of S as a message quotes them: whole up to DIAG_MAX_QUOTE, else their start
 * (whole UTF-8 characters) and "..."; in BUF of LEN bytes (DIAG_MAX_QUOTE + 4 holds it all). */
const char *diag_quote(char *buf, size_t len, const char *s, size_t n);

#endif
