/* The draft description: `machine host extends BASE` overriding what was measured (@probe, with its
 * method and spread in a comment) and the cache geometry the kernel gives (@sysfs); what is not
 * reliable stays in comments only. */
#ifndef PROBE_DRAFT_H
#define PROBE_DRAFT_H
#include <stdio.h>
#include "base.h"
#include "findings.h"
#include "sysfs.h"

struct draft_info {
    const char *machine;        /* the draft's machine name */
    const char *cpu;            /* the processor's name */
    const char *date;           /* YYYY-MM-DD */
    const char *clock;          /* how cycles were counted */
    const struct sysfs_cache *sysfs;    /* the kernel's caches: the geometry not measured */
    size_t n_sysfs;
    FILE *summary;              /* NULL, or where each value written is said again, one a line */
};

/* Writes the draft to OUT; returns how many values it holds. Each value also goes to
 * INFO->summary as "SCOPE: KEY VALUE @SOURCE" ("cache L2: size 1 MiB @sysfs", "insn IMUL (R64,
 * R64): latency 3 @probe"), with VALUE as the draft writes it, and each measurement the draft
 * cannot apply as "note: WHY". */
size_t draft_write(FILE *out, const struct findings *f, const struct base *b, const struct draft_info *info);

#endif
