/* The data caches and memory, measured with X-Ray's algorithms (seed paper 002, section 4): a
 * latency curve over growing buffers finds the levels; per level, the stride at which the
 * longest compact sequence stops shrinking gives associativity and capacity, two halves of a
 * conflicting sequence moved apart give the line size; conflicts in the level above give the
 * level's hit latency. */
#ifndef PROBE_XRAY_H
#define PROBE_XRAY_H
#include <stdbool.h>
#include <stdio.h>
#include "chase.h"
#include "findings.h"

enum { XRAY_MAX_LEVELS = 4 };

/* Measures every cache level the curve shows and the memory latency into F (FB_CACHE for each
 * level: size, ways, line, latency; FB_MEMORY: latency), with the curve "latency". Progress
 * lines go to PROGRESS unless it is NULL. False only when out of memory. */
bool xray_run(struct chase *c, struct findings *f, FILE *progress);

#endif
