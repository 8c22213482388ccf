/* A list of work items analysed on several threads, each item's output written in item order:
 * the result of a batch does not depend on how many threads ran it. */
#ifndef BATCH_H
#define BATCH_H
#include <stddef.h>
#include <stdio.h>

/* Analyses ITEM with the context WORKER of the thread running it, writing to OUT; returns an
 * exit status (0 success). */
typedef int (*batch_fn)(void *worker, size_t item, FILE *out);

/* Runs FN on items 0..N-1 with one thread per context of WORKERS (N_WORKERS of them; 1 runs
 * on the calling thread). Each item's output reaches OUT once it and every item before it are
 * done. Returns the OR of the statuses, or -1 when the threads could not be made. */
int batch_run(size_t n, batch_fn fn, void **workers, unsigned n_workers, FILE *out);

#endif
