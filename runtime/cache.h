/* The data side of a machine's cache hierarchy as hits and misses: set-associative levels,
 * inclusive fills, next-line or stride prefetch. Latency and bandwidth are the caller's. */
#ifndef CACHE_H
#define CACHE_H
#include <stdbool.h>
#include <stdint.h>
#include "mdl_machine.h"

struct cache_hier;

/* The data and unified caches of M in level order (instruction caches are left out). M's cache
 * descriptions must outlive the hierarchy. NULL when out of memory. A machine without data
 * caches gives a hierarchy of no levels, where every access goes to memory. */
struct cache_hier *cache_new(const struct mdl_machine *m);
void cache_free(struct cache_hier *h);

/* Loads or stores SIZE bytes at ADDR and returns the level that served them: 0 for the first
 * level, cache_levels(h) for memory. An access spanning lines is served as its slowest line.
 * The line is filled into every level above the one that served it. STORE is accepted for
 * symmetry: stores allocate like loads and write-backs are not modelled. */
int cache_access(struct cache_hier *h, uint64_t addr, unsigned size, bool store);

unsigned cache_levels(const struct cache_hier *h);
/* The description of level I, NULL past the last level. */
const struct mdl_cache *cache_level(const struct cache_hier *h, unsigned i);
/* Accesses that reached LEVEL and the hits among them (one per line touched; prefetches are not
 * counted). LEVEL == cache_levels(h) gives memory, where every access hits. */
void cache_stats(const struct cache_hier *h, unsigned level, uint64_t *accesses, uint64_t *hits);

#endif
