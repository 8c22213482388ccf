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

#endif
