/* Pass 1: reads the file compiled, its includes and the machines it extends, and decides
 * which declaration each name denotes (a child's declaration replaces its parent's). */
#ifndef MDLC_RESOLVE_H
#define MDLC_RESOLVE_H
#include "program.h"

struct resolve_opts {
    const char *const *include_dirs;
    size_t n_include_dirs;
};

/* Fills P (whose ar, sm and diag are set). Returns false when errors were reported. */
bool resolve_program(struct program *p, const char *path, const struct resolve_opts *opts);

#endif
