/* The draft description: `machine host extends BASE` overriding only what was measured, each value
 * @probe with its method and spread in a comment; what is not reliable stays in comments only. */
#ifndef PROBE_DRAFT_H
#define PROBE_DRAFT_H
#include <stdio.h>
#include "base.h"
#include "findings.h"

struct draft_info {
    const char *machine;        /* the draft's machine name */
    const char *cpu;            /* the processor's name */
    const char *date;           /* YYYY-MM-DD */
    const char *clock;          /* how cycles were counted */
};

/* Writes the draft to OUT; returns how many values it holds. */
size_t draft_write(FILE *out, const struct findings *f, const struct base *b, const struct draft_info *info);

#endif
