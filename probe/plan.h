/* The draft's decisions, from what was measured to what is written: pure functions of the findings,
 * the kernel's cache topology and the base's values, so that they are tested without timing. */
#ifndef PROBE_PLAN_H
#define PROBE_PLAN_H
#include <stdbool.h>
#include <stddef.h>
#include "findings.h"
#include "sysfs.h"

/* The form whose throughput counts the ALUs: one uop on any ALU port on every x86-64 core. */
#define PLAN_ALU_FORM "ADD_01 (R64, R64)"

/* Where a drafted value comes from: the base (not written: inherited), a measurement (@probe), the
 * kernel (@sysfs). */
enum plan_source { PLAN_BASE, PLAN_PROBE, PLAN_SYSFS };

struct plan_value {
    enum plan_source src;
    double value;               /* base units: bytes, cycles, a count */
    char why[240];              /* PLAN_SYSFS and a derived PLAN_PROBE: where the value comes from */
};

/* window retire_width: the measured issue width when it is used (reliable) and above the base's
 * BASE_RETIRE, since a core cannot retire fewer instructions per cycle than it sustains issuing;
 * else the base's. BASE names the base in WHY. */
struct plan_value plan_retire_width(const struct finding *issue_width, double base_retire, const char *base);

/* Whether the measured inverse throughput of PLAN_ALU_FORM (ADD_TP, may be NULL or unreliable) shows
 * more ALUs than the BASE_PORTS ports of the base's entry; if so WHY holds the comment the draft
 * writes: the measured count, and why the draft does not add ports. */
bool plan_alu_ports(const struct finding *add_tp, unsigned base_ports, const char *base, char *why, size_t len);

/* One key of a cache level (size, ways, line, latency): the measurement MEASURED (may be NULL) when
 * reliable, else the kernel's value from K (NULL when sysfs has no such level; it gives no
 * latency), else the base's. */
struct plan_value plan_cache_key(const struct finding *measured, const struct sysfs_cache *k, const char *key);

/* The four keys of a cache level, size reset to the base's when it would not be a whole number of
 * sets of a power-of-two line with the ways and line in force (what mdlc requires, spec.md 12.3);
 * BASE_WAYS and BASE_LINE are the base's (0 when it has no such level). */
struct plan_cache {
    struct plan_value size, ways, line, latency;
    bool size_dropped;          /* a size was measured or known but does not fit */
};
void plan_cache(const struct findings *f, unsigned level, const struct sysfs_cache *k, double base_ways,
                double base_line, struct plan_cache *out);

/* The deepest cache level measured or known to the kernel. */
unsigned plan_deepest_level(const struct findings *f, const struct sysfs_cache *sc, size_t n);

#endif
