/* The text view: any analysis result (block, run, replay) for the terminal, ending with the
 * verdict. */
#ifndef VIEW_TEXT_H
#define VIEW_TEXT_H
#include <stdbool.h>
#include <stdio.h>
#include "result.h"

/* Writes R to OUT; false when OUT reports an error. */
bool view_text(FILE *out, const struct result *r);
/* A block that could not be analysed: its label and the message, on stderr's format. */
void view_text_error(FILE *out, const char *label, const char *msg);

/* Several cores' results of one analysis side by side: a column per core (cycles, relative speed,
 * IPC, top-down), the functions where they differ most, each core's verdict. */
bool view_text_comparison(FILE *out, const struct result_comparison *c);

#endif
