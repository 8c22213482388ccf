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

/* The accesses of a loop's iterations, one after the other (a repeated string instruction's): an
 * iteration whose first-level lines are the last one's, which all hit with no fill of the first
 * level among or after them, is counted rather than made again (cache.c, cache_repeat): a copy's
 * two streams, often in one set, touched a way each per byte. Zeroed to start. */
enum { CACHE_ITER_MAX = 16 };
struct cache_iter {
    uint64_t lines[CACHE_ITER_MAX];
    unsigned n;
    bool hits;                      /* the last iteration's accesses, one line each, all hit the first level */
    uint64_t fills;                 /* the first level's fills after it */
};
/* One iteration: N accesses of SIZE bytes at ADDR (STORE: stores), the level that served each to
 * LEVELS, as cache_access gives them one by one. Returns how many of the first repeated the last
 * iteration's (all N: the iteration is the last one's again, every access a first-level hit). */
unsigned cache_iterate(struct cache_hier *h, struct cache_iter *it, const uint64_t *addr, const unsigned *size,
                       const bool *store, unsigned n, unsigned *levels);

unsigned cache_levels(const struct cache_hier *h);
/* The description of level I, NULL past the last level. */
const struct mdl_cache *cache_level(const struct cache_hier *h, unsigned i);
/* Accesses that reached LEVEL and the hits among them (one per line touched; prefetches are not
 * counted). LEVEL == cache_levels(h) gives memory, where every access hits. */
void cache_stats(const struct cache_hier *h, unsigned level, uint64_t *accesses, uint64_t *hits);

#endif
