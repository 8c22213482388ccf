/* Open addressing with linear probing; grows at half load. */
#include "map.h"
#include <string.h>

void map_init(struct map *m, struct arena *ar)
{
    m->ar = ar;
    m->n = 0;
    m->cap = 64;
    m->slots = arena_alloc(ar, m->cap * sizeof *m->slots);
}

static size_t map_hash(const char *s)
{
    size_t h = 1469598103934665603u;          /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static struct map_slot *map_find(const struct map *m, const char *key)
{
    size_t i = map_hash(key) & (m->cap - 1);
    while (m->slots[i].key && strcmp(m->slots[i].key, key) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

void *map_get(const struct map *m, const char *key)
{
    return map_find(m, key)->value;
}

static void map_grow(struct map *m)
{
    struct map_slot *old = m->slots;
    size_t oldcap = m->cap;
    m->cap *= 2;
    m->slots = arena_alloc(m->ar, m->cap * sizeof *m->slots);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key)
            *map_find(m, old[i].key) = old[i];
}

void *map_put(struct map *m, const char *key, void *value)
{
    if (2 * (m->n + 1) > m->cap)
        map_grow(m);
    struct map_slot *s = map_find(m, key);
    void *prev = s->value;
    if (!s->key) {
        s->key = key;
        m->n++;
    }
    s->value = value;
    return prev;
}
