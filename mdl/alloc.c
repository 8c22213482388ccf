/* Allocation for the tools: an end to the process when memory runs out (alloc.h says why). */
#include "alloc.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The report of a failed allocation of N objects of SIZE bytes; never returns. The program's
 * name is the one it was started under (mdlc, mdlsim, uops2mdl), as its other errors say it. */
_Noreturn void alloc_out_of_memory(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        fprintf(stderr, "%s: error: out of memory (%zu x %zu bytes)\n", program_invocation_short_name, n, size);
    else
        fprintf(stderr, "%s: error: out of memory (%zu bytes)\n", program_invocation_short_name, n * size);
    abort();
}

void *alloc_zeroed(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        alloc_out_of_memory(n, size);
    return p;
}

void *alloc_vectors(size_t n, size_t size)
{
    n = n ? n : 1;
    size = size ? size : 1;
    size_t bytes = n > (SIZE_MAX - 63) / size ? 0 : (n * size + 63) / 64 * 64;
    void *p = bytes ? aligned_alloc(64, bytes) : NULL;
    if (!p)
        alloc_out_of_memory(n, size);
    memset(p, 0, bytes);
    return p;
}

void *alloc_resize(void *p, size_t n, size_t size)
{
    n = n ? n : 1;
    size = size ? size : 1;
    void *q = n > SIZE_MAX / size ? NULL : realloc(p, n * size);
    if (!q)
        alloc_out_of_memory(n, size);
    return q;
}

void *alloc_grow(void *p, size_t *cap, size_t need, size_t first, size_t size)
{
    if (need <= *cap && p)
        return p;
    size_t c = *cap ? *cap : first;
    while (c < need)
        c = c > SIZE_MAX / 2 ? SIZE_MAX : 2 * c;
    *cap = c;
    return alloc_resize(p, c, size);
}

char *alloc_strndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        alloc_out_of_memory(strnlen(s, n) + 1, 1);
    return p;
}

char *alloc_strdup(const char *s) { return alloc_strndup(s, SIZE_MAX); }
