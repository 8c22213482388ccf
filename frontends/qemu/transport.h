/* How the QEMU plugin's event stream reaches mdlsim: a pipe, and the shared-memory transport of
 * wire.h (a memfd area of chunks, the pipe naming each filled one, a socket giving it back). */
#ifndef TRANSPORT_H
#define TRANSPORT_H
#include <stdbool.h>
#include <stddef.h>
#include "run.h"

/* The child's ends are inheritable; the parent closes them once QEMU has started. LIFE is the
 * lifeline: a pipe whose read end the plugin keeps in every QEMU process of the run (a guest's
 * fork included) and whose write end only mdlsim holds, so that its end of file tells each of
 * them that mdlsim is gone, however it ended (SIGKILL included). */
struct transport {
    int pipe[2];
    int shm_fd, free_child;
    int life[2];
    struct run_source src;          /* the reader's side */
};

/* A pipe, with the shared area when the system has memfd (else the words go through the pipe).
 * False with ERR when not even a pipe can be made. */
bool transport_open(struct transport *t, char *err, size_t errlen);
/* The plugin's options for the child's ends ("fd=N" or "fd=N,shm=N,free=N", then ",life=N"
 * when there is a lifeline) in OUT. */
void transport_plugin_options(const struct transport *t, char *out, size_t len);
void transport_close_child(struct transport *t);
/* Closes the reader's ends; the lifeline stays (transport_cut_lifeline). */
void transport_free(struct transport *t);
/* Every QEMU process still running that sees it ends itself: once QEMU's exit is known. */
void transport_cut_lifeline(struct transport *t);

#endif
