/* What the kernel says of this host, to compare with the measurements: the data caches of cpu0
 * (/sys/devices/system/cpu/cpu0/cache/index*) and the processor's name (/proc/cpuinfo). */
#ifndef PROBE_SYSFS_H
#define PROBE_SYSFS_H
#include <stdbool.h>
#include <stddef.h>

enum { SYSFS_MAX_CACHES = 8 };

struct sysfs_cache {
    unsigned index;             /* the N of cpu0/cache/indexN */
    unsigned level;
    char type[16];              /* "Data", "Instruction", "Unified" */
    size_t size, ways, line;    /* bytes, count, bytes; 0 when the kernel does not say */
};

/* The caches of cpu0; returns how many (0 when sysfs has none, as in some containers). */
size_t sysfs_caches(struct sysfs_cache *out, size_t max);
/* The data or unified cache of LEVEL among V, or NULL. */
const struct sysfs_cache *sysfs_data_level(const struct sysfs_cache *v, size_t n, unsigned level);
/* The first "model name" of /proc/cpuinfo, or "unknown processor". */
void sysfs_cpu_name(char *out, size_t len);

#endif
