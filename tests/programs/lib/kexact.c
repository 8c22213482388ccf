/* A shared library's function whose executed instruction count is known exactly (as exact.c's):
 * 4 + 4*n for n > 0. */
#include "../exact-kernel.h"

EXACT_KERNEL(lib_kernel_exact);
