/* The period search of block mode's steady state: which of the values before the newest one of a
 * series equal it, PERIODS_MAX comparisons at once in the widest vectors the processor has. */
#ifndef PERIODS_H
#define PERIODS_H
#include <stdbool.h>
#include <stdint.h>

enum { PERIODS_MAX = 32 };

/* The periods P (bit P - 1) whose value BEFORE[P - 1] is within TOL of X. */
uint32_t periods_match(const double *before, double x, double tol);
/* The same with the copy for vector extension ISA (periods_isa); false when this processor lacks
 * it. Every copy makes the same comparisons, so gives the same mask. */
bool periods_match_isa(const char *isa, const double *before, double x, double tol, uint32_t *mask);
/* The copies the build makes, by index (NULL beyond the last): "avx512f", "avx2" (x86-64 with
 * GCC), "default". */
const char *periods_isa(unsigned k);

#endif
