/* The data caches and memory with X-Ray's algorithms (seed paper 002, section 4): levels and
 * latencies from a latency curve, then each level's associativity, capacity and line size. */
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
