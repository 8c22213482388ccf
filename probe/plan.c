/* Measurements to draft values: which of a measurement, the kernel's word and the base's value each
 * key of the draft takes, and the values derived from measurements (retire width, ALU count). */
#include "plan.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

struct plan_value plan_retire_width(const struct finding *issue_width, double base_retire, const char *base)
{
    struct plan_value v = { PLAN_BASE, base_retire, "" };
    if (!issue_width || !issue_width->reliable || issue_width->value <= base_retire)
        return v;
    v.src = PLAN_PROBE, v.value = issue_width->value;
    snprintf(v.why, sizeof v.why,
             "the measured issue width %.0f: %s's %.0f would retire fewer instructions per cycle than issue",
             issue_width->value, base, base_retire);
    return v;
}

bool plan_alu_ports(const struct finding *add_tp, unsigned base_ports, const char *base, char *why, size_t len)
{
    if (!add_tp || !add_tp->reliable || add_tp->value <= 0 || base_ports == 0)
        return false;
    double per_cycle = 1 / add_tp->value;
    if (round(per_cycle) <= base_ports)
        return false;
    snprintf(why, len,
             "ALU ports: %s at tp %.2f is %.1f per cycle, more than the %u ALU ports of %s's entry; not applied: "
             "a port added here would serve this entry only, every other ALU form of %s keeping its %u (add the "
             "port and widen the ALU sets by hand)",
             PLAN_ALU_FORM, add_tp->value, per_cycle, base_ports, base, base, base_ports);
    return true;
}

/* The kernel's value of KEY in K (0 when unknown), and the file it is read from. */
static double sysfs_value(const struct sysfs_cache *k, const char *key, const char **file)
{
    *file = !strcmp(key, "size") ? "size" : !strcmp(key, "ways") ? "ways_of_associativity"
          : !strcmp(key, "line") ? "coherency_line_size" : NULL;
    if (!k || !*file)
        return 0;
    return (double)(!strcmp(key, "size") ? k->size : !strcmp(key, "ways") ? k->ways : k->line);
}

/* Whether V is a value mdlc takes for the cache KEY (its range, spec.md 12.3; a power-of-two line):
 * a kernel's odd word (a VM's ways 0, a line of 96) is not written. */
static bool takes(const char *key, double v)
{
    for (int p = 0; p < P_COUNT; p++)
        if (param_table[p].block == PB_CACHE && strcmp(param_table[p].key, key) == 0)
            return v >= param_table[p].lo && v <= param_table[p].hi && (strcmp(key, "line") != 0 || check_pow2(v));
    return false;
}

struct plan_value plan_cache_key(const struct finding *measured, const struct sysfs_cache *k, const char *key)
{
    struct plan_value v = { PLAN_BASE, 0, "" };
    const char *file;
    double kernel = sysfs_value(k, key, &file);
    if (measured && measured->reliable)
        v.src = PLAN_PROBE, v.value = measured->value;
    else if (kernel > 0 && takes(key, kernel)) {
        v.src = PLAN_SYSFS, v.value = kernel;
        snprintf(v.why, sizeof v.why, "the kernel's: /sys/devices/system/cpu/cpu0/cache/index%u/%s (level %u, %s)",
                 k->index, file, k->level, k->type);
    }
    return v;
}

static double in_force(const struct plan_value *v, double base) { return v->src != PLAN_BASE ? v->value : base; }

void plan_cache(const struct findings *f, unsigned level, const struct sysfs_cache *k, double base_ways,
                double base_line, struct plan_cache *out)
{
    out->size = plan_cache_key(findings_get(f, FB_CACHE, level, "size", NULL), k, "size");
    out->ways = plan_cache_key(findings_get(f, FB_CACHE, level, "ways", NULL), k, "ways");
    out->line = plan_cache_key(findings_get(f, FB_CACHE, level, "line", NULL), k, "line");
    out->latency = plan_cache_key(findings_get(f, FB_CACHE, level, "latency", NULL), k, "latency");
    double ways = in_force(&out->ways, base_ways), line = in_force(&out->line, base_line);
    out->size_dropped = out->size.src != PLAN_BASE &&
                        !(ways >= 1 && check_pow2(line) && fmod(out->size.value, ways * line) == 0);
    if (out->size_dropped)
        out->size = (struct plan_value){ PLAN_BASE, 0, "" };
}

unsigned plan_deepest_level(const struct findings *f, const struct sysfs_cache *sc, size_t n)
{
    unsigned deepest = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].block == FB_CACHE && f->v[i].level > deepest)
            deepest = f->v[i].level;
    for (size_t i = 0; i < n; i++)
        if (sysfs_data_level(sc, n, sc[i].level) && sc[i].level > deepest)
            deepest = sc[i].level;
    return deepest;
}
