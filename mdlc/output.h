/* Output files that are replaced atomically and only when their content changes, so that a
 * failed run leaves nothing half-written and make sees no change where there is none. */
#ifndef MDLC_OUTPUT_H
#define MDLC_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct output {
    char *buf;
    size_t len;
    FILE *fp;                   /* writes go to memory until output_commit */
};

bool output_open(struct output *o);
/* Writes the buffer to PATH unless PATH already holds exactly it. Frees the buffer.
 * Returns false with ERR set when the file cannot be written (nothing is left behind). */
bool output_commit(struct output *o, const char *path, bool *changed, char *err, size_t errlen);
void output_discard(struct output *o);

#endif
