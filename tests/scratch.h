/* The test run's private scratch directory: the files tests write and the programs they start live
 * there, so two runs on one machine (two checkouts, two users) never meet in /tmp. */
#ifndef TESTS_SCRATCH_H
#define TESTS_SCRATCH_H
#include <stddef.h>

/* The variable naming the directory in the environment, for the shell commands tests build
 * ("--json $MDLSIM_TMP/x.json"): every worker Criterion starts inherits it. */
#define SCRATCH_ENV "MDLSIM_TMP"

/* The directory: made once under $TMPDIR (default /tmp) before the tests start, removed when
 * they end. */
const char *scratch_dir(void);

/* NAME in the directory, in one of a rotation of 32 static buffers (a test may hold a few). */
const char *scratch_path(const char *name);

/* TEXT with each "$MDLSIM_TMP" replaced by the directory, in BUF (LEN bytes): the message a
 * test expects about a file it named in a shell command. */
const char *scratch_expand(const char *text, char *buf, size_t len);

#endif
