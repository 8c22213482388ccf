/* What mdlprobe found: every measured value with how it was measured, its spread and whether
 * it is reliable enough for the draft, plus the curves behind the values (for raw.json). */
#ifndef PROBE_FINDINGS_H
#define PROBE_FINDINGS_H
#include <stdbool.h>
#include <stddef.h>
#include "nano.h"

/* Where a value goes in a description (spec.md 12 and 10). */
enum findings_block { FB_FRONTEND, FB_WINDOW, FB_CACHE, FB_MEMORY, FB_BRANCH, FB_FORM, FB_CLOCK };

struct finding {
    enum findings_block block;
    unsigned level;             /* FB_CACHE: 1 = nearest the core */
    char key[32];               /* the parameter key ("size", "rob"), or "latency"/"tp" of a form */
    char form[48];              /* FB_FORM: the form key */
    double value;               /* what the draft writes, in base units (bytes, cycles, a count) */
    double raw;                 /* the measurement it was rounded from */
    struct nano_stat stat;      /* the timing behind it (runs 0: derived from several timings) */
    bool reliable;
    char method[160];           /* how it was measured */
    char note[240];             /* why it is unreliable; or a remark */
    double sysfs;               /* the kernel's value (/sys/devices/system/cpu), 0 when unknown */
};

struct findings_curve {
    char name[32], x_unit[16], y_unit[16];
    struct findings_xy { double x, y; } *p;
    size_t n, cap;
};

struct findings {
    struct finding *v;
    size_t n, cap;
    struct findings_curve *curves;
    size_t n_curves;
    bool oom;                   /* an addition failed: the findings are incomplete */
};

void findings_free(struct findings *f);
/* A new zeroed finding (reliable until said otherwise), or NULL when out of memory. */
struct finding *findings_add(struct findings *f, enum findings_block b, unsigned level, const char *key,
                             const char *form);
/* The finding of that block, level, key and form (NULL form: any), or NULL. */
const struct finding *findings_get(const struct findings *f, enum findings_block b, unsigned level,
                                   const char *key, const char *form);
/* The same, to change it. */
struct finding *findings_edit(struct findings *f, enum findings_block b, unsigned level, const char *key,
                              const char *form);
/* Marks F unreliable with the reason (printf-style). */
void findings_reject(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new curve; returns its index for findings_point (an index stays valid as curves are added). */
size_t findings_curve(struct findings *f, const char *name, const char *x_unit, const char *y_unit);
void findings_point(struct findings *f, size_t curve, double x, double y);

/* Of findings measured twice (same block, level, key and form), keeps the faster (the lower
 * stat.min: a core shared with a busy sibling thread only ever slows a timing down) and notes
 * how far the other was. */
void findings_keep_best(struct findings *f);

/* X-Ray's rounding of a cycle count: whole cycles when within 0.1 of one, else tenths. */
double findings_round_cycles(double cycles);

#endif
