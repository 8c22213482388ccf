/* How the QEMU plugin's event stream reaches mdlsim: a pipe, and the shared-memory transport of
 * wire.h (a memfd area of chunks, the pipe naming each filled one, a socket giving it back). */
#ifndef TRANSPORT_H
#define TRANSPORT_H
#include <stdbool.h>
#include <stddef.h>
#include "run.h"

/* The child's ends are inheritable; the parent closes them once QEMU has started. */
struct transport {
    int pipe[2];
    int shm_fd, free_child;
    struct run_source src;          /* the reader's side */
};

/* A pipe, with the shared area when the system has memfd (else the words go through the pipe).
 * False with ERR when not even a pipe can be made. */
bool transport_open(struct transport *t, char *err, size_t errlen);
/* The plugin's options for the child's ends ("fd=N" or "fd=N,shm=N,free=N") in OUT. */
void transport_plugin_options(const struct transport *t, char *out, size_t len);
void transport_close_child(struct transport *t);
void transport_free(struct transport *t);

#endif
