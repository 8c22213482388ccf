/* Pass 4: writing a lowered machine as C (generated/<machine>.c, .h) or as JSON. */
#ifndef MDLC_EMIT_H
#define MDLC_EMIT_H
#include <stdbool.h>
#include <stdio.h>
#include "arena.h"
#include "mdl_machine.h"

struct emit_info {
    const char *source_name;    /* the .mdl file, named in the banner */
    const char *ident;          /* the machine's name as a C identifier */
    const char *header;         /* file name of the emitted header, "<machine>.h" */
};

const char *emit_c_ident(struct arena *ar, const char *name);
void emit_c_source(FILE *out, const struct mdl_machine *m, const struct emit_info *info);
void emit_c_header(FILE *out, const struct mdl_machine *m, const struct emit_info *info);
/* The whole lowered machine as one JSON document (`mdlc --dump-json`); false, with nothing
 * written, when the document could not be built. Strings from the description are made valid
 * UTF-8 (a byte that starts no character is U+FFFD). */
bool emit_json(FILE *out, const struct mdl_machine *m);
/* A short human summary (`mdlc --summary`). */
void emit_summary(FILE *out, const struct mdl_machine *m);

#endif
