/* One compilation: parse -> resolve -> check -> lower -> emit, each pass run only when the
 * ones before it succeeded. Used by the command line and by the tests. */
#ifndef MDLC_DRIVER_H
#define MDLC_DRIVER_H
#include <stdbool.h>
#include <stdio.h>

enum mdlc_action { MDLC_EMIT, MDLC_CHECK, MDLC_DUMP_AST, MDLC_DUMP_JSON, MDLC_SUMMARY };

struct mdlc_opts {
    enum mdlc_action action;
    const char *input;
    const char *outdir;             /* for MDLC_EMIT */
    const char *basename;           /* OUTDIR/BASENAME.{c,h}; NULL: the machine's name */
    const char *const *include_dirs;
    size_t n_include_dirs;
    const char *depfile, *deptarget;
    bool werror;
    bool warn_missing_source;       /* -Wmissing-source */
    bool no_warn_qemu_cpu;          /* -Wno-qemu-cpu */
    bool no_warn_unmatched_form;    /* -Wno-unmatched-form */
    FILE *out;                      /* dumps */
    FILE *err;                      /* diagnostics */
};

/* Returns the exit status: 0 success, 1 errors in the input (reported to opts->err). */
int mdlc_run(const struct mdlc_opts *opts);

#endif
