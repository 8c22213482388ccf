/* A stream written to several descriptors at once: a live run's trace to its file and to the
 * pipes of the cores that replay it as it is written. */
#ifndef TEE_H
#define TEE_H
#include <stdio.h>

/* The bytes a stream holds before it writes them out. */
enum { TEE_BUFFER = 256 * 1024 };

/* A stream whose every write goes whole to each of the N descriptors FDS (which stay the
 * caller's to close, after fclose), in that order; NULL with errno when it cannot be made. A
 * write that fails on any of them fails the stream, with its errno. */
FILE *tee_open(const int *fds, unsigned n);

#endif
