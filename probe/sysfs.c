/* The kernel's cache topology and processor name: plain text files, read once. */
#include "sysfs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    return ok;
}

/* A number with an optional K/M suffix ("32K", "64"), as sysfs writes sizes. */
static size_t read_size(const char *dir, const char *name)
{
    char path[256], text[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!read_line(path, text, sizeof text))
        return 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    return (size_t)(v << (*end == 'K' ? 10 : *end == 'M' ? 20 : 0));
}

size_t sysfs_caches(struct sysfs_cache *out, size_t max)
{
    size_t n = 0;
    for (unsigned i = 0; i < 16 && n < max; i++) {
        char dir[128], path[160];
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%u", i);
        snprintf(path, sizeof path, "%s/type", dir);
        struct sysfs_cache *c = &out[n];
        memset(c, 0, sizeof *c);
        if (!read_line(path, c->type, sizeof c->type))
            continue;
        c->index = i;
        c->level = (unsigned)read_size(dir, "level");
        c->size = read_size(dir, "size");
        c->ways = read_size(dir, "ways_of_associativity");
        c->line = read_size(dir, "coherency_line_size");
        n++;
    }
    return n;
}

const struct sysfs_cache *sysfs_data_level(const struct sysfs_cache *v, size_t n, unsigned level)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].level == level && strcmp(v[i].type, "Instruction") != 0)
            return &v[i];
    return NULL;
}

void sysfs_cpu_name(char *out, size_t len)
{
    snprintf(out, len, "unknown processor");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 1 + strspn(colon + 1, " \t");
            colon[strcspn(colon, "\n")] = 0;
            snprintf(out, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}
