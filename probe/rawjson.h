/* raw.json: every measurement with its statistics (reliable or not), the curves behind the cache
 * and window values, the clock's calibration and what sysfs says, for scripts and for checking. */
#ifndef PROBE_RAWJSON_H
#define PROBE_RAWJSON_H
#include <stdbool.h>
#include <stdio.h>
#include "calib.h"
#include "findings.h"
#include "sysfs.h"

struct rawjson_info {
    const char *cpu, *date, *clock_text, *base, *base_dir;
    const struct timer *timer;
    const struct calib *calib;
    const struct sysfs_cache *sysfs;
    size_t n_sysfs;
    bool huge_pages;
    double seconds;
};

/* Writes the JSON to OUT; false when out of memory. */
bool rawjson_write(FILE *out, const struct findings *f, const struct rawjson_info *info);

#endif
