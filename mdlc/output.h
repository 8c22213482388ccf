/* Output files that are replaced atomically and only when their content changes, so that a
 * failed run leaves nothing half-written and make sees no change where there is none. */
#ifndef MDLC_OUTPUT_H
#define MDLC_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "safefile.h"

struct output {
    FILE *fp;                   /* writes go to memory until staged */
    char *buf;
    size_t len;
    const char *path;
    struct safefile staged;     /* the content beside PATH; none when PATH already holds it */
};

bool output_open(struct output *o);
/* Writes the content next to PATH (unless PATH already holds exactly it). */
bool output_stage(struct output *o, const char *path, char *err, size_t errlen);
/* Renames the staged content onto PATH; call once every output of a run is staged. */
bool output_publish(struct output *o, char *err, size_t errlen);
/* Frees the buffer and removes a staged file that was not published. */
void output_discard(struct output *o);
/* Stage and publish one file. */
bool output_commit(struct output *o, const char *path, char *err, size_t errlen);

#endif
