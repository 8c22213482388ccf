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
/* Several cores' results of one analysis as one object: the machines, the fastest, each core's
 * cycles relative to it, the functions that differ most, and each core's whole result under
 * "comparison". As view_json for OUT. */
bool view_json_comparison(FILE *out, const struct result_comparison *c);
/* A block that could not be analysed, in --hex-file's output: its label and the message. */
void view_json_error(FILE *out, const char *label, const char *msg);
/* X as the JSON numbers write it, into BUF (at least 32 bytes): "%.15g", "%.16g" or "%.17g", the
 * first that reads back as X (the shortest that does, up to 15 digits). */
void view_json_number(char *buf, double x);

#endif
