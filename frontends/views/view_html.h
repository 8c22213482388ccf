/* The HTML view: one self-contained page (inline CSS and SVG, no script, nothing fetched) of a
 * block, region or run result, with the Gus heat map and per-instruction resource table. */
#ifndef VIEW_HTML_H
#define VIEW_HTML_H
#include <stdbool.h>
#include <stdio.h>
#include "result.h"

/* Writes the page of R to OUT; false when writing failed. Reads only R (and the names of its
 * machine's resources). */
bool view_html(FILE *out, const struct result *r);

/* The page of several cores' results of one analysis: a table with a column per core (cycles,
 * relative speed, IPC, verdict), their top-down bars one above the other, and the functions where
 * they differ most. */
bool view_html_comparison(FILE *out, const struct result_comparison *c);

#endif
