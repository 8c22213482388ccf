/* The JSON view: any analysis result (block, run, replay) as one object on one line, with the
 * keys of frontends/views/mdlsim.schema.json. */
#ifndef VIEW_JSON_H
#define VIEW_JSON_H
#include <stdbool.h>
#include <stdio.h>
#include "result.h"

/* Writes R to OUT; false when OUT reports an error. Only the calling thread may write to OUT
 * meanwhile (its writes are not locked). */
bool view_json(FILE *out, const struct result *r);
/* A block that could not be analysed, in --hex-file's output: its label and the message. */
void view_json_error(FILE *out, const char *label, const char *msg);
/* X as printf's "%.6g" writes it, into BUF (at least 32 bytes); the JSON numbers' format. */
void view_json_g6(char *buf, double x);

#endif
