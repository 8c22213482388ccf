/* Allocation for the tools (mdlc, uops2mdl, mdlsim's frontends): one policy when memory runs out,
 * so that no caller has to check, and none forgets to.
 *
 * The policy: say "PROG: error: out of memory (N bytes)" on stderr and abort(). Why not a NULL for
 * the caller to report: every allocation here is sized by an input whose bound is checked before
 * (README's "Limits"), so a failure says the host is out of memory, not that the input is wrong;
 * there is no offending value to name and nothing a caller can do but stop, and a hundred error
 * paths that no test can reach were where the unchecked allocations hid. abort() is not exit():
 * it is the end of a process that cannot go on (as the runtime's xalloc.h ends one), it flushes
 * no half-written output as if it were whole, and exit() stays main's alone.
 * An allocation sized by a value the user gives and no bound holds (the caches of a machine)
 * keeps its own check, so that its error names that value. */
#ifndef ALLOC_H
#define ALLOC_H
#include <stddef.h>

/* N zeroed objects of SIZE bytes (at least one, so that N = 0 is not taken for a failure). */
void *alloc_zeroed(size_t n, size_t size);
/* The same on a 64-byte boundary, padded to whole 64 bytes: the rows of a vector pass, which
 * loads whole vectors from the first and whose loop peels nothing when they are aligned. Freed
 * by free(). */
void *alloc_vectors(size_t n, size_t size);
/* The policy's end, for an allocation made otherwise (aligned, a library's): N objects of SIZE
 * bytes could not be had. Never returns. */
_Noreturn void alloc_out_of_memory(size_t n, size_t size);
/* P (NULL: none yet) resized to N objects of SIZE bytes (at least one); the new ones not zeroed. */
void *alloc_resize(void *p, size_t n, size_t size);
/* P (NULL: none yet), an array of *CAP objects of SIZE bytes, with room for NEED of them: when it
 * has less, its capacity doubles (from FIRST) until NEED fit, and *CAP says the new one. */
void *alloc_grow(void *p, size_t *cap, size_t need, size_t first, size_t size);
/* A copy of S; of its first N bytes at most (and a NUL). */
char *alloc_strdup(const char *s);
char *alloc_strndup(const char *s, size_t n);

#endif
