/* String-keyed hash map for symbol tables (forms, units, classes, sources). */
#ifndef MDL_MAP_H
#define MDL_MAP_H
#include <stddef.h>
#include "arena.h"

struct map_slot { const char *key; void *value; };
struct map {
    struct arena *ar;
    struct map_slot *slots;
    size_t n, cap;
};

void map_init(struct map *m, struct arena *ar);
void *map_get(const struct map *m, const char *key);
/* Sets KEY to VALUE; returns the previous value or NULL. KEY must outlive the map. */
void *map_put(struct map *m, const char *key, void *value);

#endif
