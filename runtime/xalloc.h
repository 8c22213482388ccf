/* Allocation for the runtime's modules: zeroed, and an end to the run when memory is out (no
 * caller can go on without its tables), said as the tools say it (mdl/alloc.h). */
#ifndef RT_XALLOC_H
#define RT_XALLOC_H
#include "alloc.h"

/* N zeroed objects of SIZE bytes (at least one, so that N = 0 is not taken for a failure). */
static inline void *xalloc(size_t n, size_t size)
{
    return alloc_zeroed(n, size);
}

#endif
