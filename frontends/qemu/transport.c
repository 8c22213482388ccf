/* The two ends of the plugin's event stream (wire.h): a pipe and, where memfd exists, a shared
 * area of chunks that the plugin fills in place and the reader gives back over a socket. */
#include "transport.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "wire.h"

/* 32 chunks of half a megabyte: with four threads on two processors (QEMU, the caches, the reader,
 * the model), each runs further ahead while another has the processor, and fewer wait for one
 * another. From 8: gemm 320 live with every lane 5.84-5.87 s -> 5.68-5.74 s; 64 gained nothing more. */
enum { TRANSPORT_CHUNKS = 32 };

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void transport_close_child(struct transport *t)
{
    close_fd(&t->pipe[1]);
    close_fd(&t->shm_fd);
    close_fd(&t->free_child);
    close_fd(&t->life[0]);
}

/* The reader's side of the shared area, or what was made of it when it could not be set up. */
static void transport_drop_shared(struct transport *t)
{
    if (t->src.shm)
        munmap((void *)t->src.shm, TRANSPORT_CHUNKS * WIRE_CHUNK_WORDS * sizeof(uint64_t));
    if (t->src.free_fd >= 0)
        close(t->src.free_fd);
    t->src = (struct run_source){ .fd = t->pipe[0], .free_fd = -1 };
}

void transport_free(struct transport *t)
{
    transport_drop_shared(t);
    close(t->pipe[0]);
}

void transport_cut_lifeline(struct transport *t) { close_fd(&t->life[1]); }

/* Every chunk starts free: their indices wait on the free channel. */
static bool transport_shared(struct transport *t)
{
    size_t bytes = TRANSPORT_CHUNKS * WIRE_CHUNK_WORDS * sizeof(uint64_t);
    int sv[2];
    t->shm_fd = memfd_create("mdlsim-stream", 0);
    if (t->shm_fd < 0 || ftruncate(t->shm_fd, (off_t)bytes) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return false;
    fcntl(sv[0], F_SETFD, FD_CLOEXEC);
    t->src.free_fd = sv[0];
    t->free_child = sv[1];
    void *area = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, t->shm_fd, 0);
    if (area == MAP_FAILED)
        return false;
    t->src.shm = area;
    t->src.chunks = TRANSPORT_CHUNKS;
    for (uint32_t i = 0; i < TRANSPORT_CHUNKS; i++)
        if (send(sv[0], &i, sizeof i, MSG_NOSIGNAL) != sizeof i)
            return false;
    return true;
}

bool transport_open(struct transport *t, char *err, size_t errlen)
{
    *t = (struct transport){ .pipe = { -1, -1 }, .shm_fd = -1, .free_child = -1, .life = { -1, -1 },
                             .src = { .fd = -1, .free_fd = -1 } };
    if (pipe(t->pipe) != 0) {
        snprintf(err, errlen, "cannot create a pipe for the event stream: %s", strerror(errno));
        return false;
    }
    fcntl(t->pipe[0], F_SETFD, FD_CLOEXEC);
    /* without a lifeline, a guest's child outlives a SIGKILL of mdlsim, but the run goes on */
    if (pipe(t->life) == 0)
        fcntl(t->life[1], F_SETFD, FD_CLOEXEC);
    else
        t->life[0] = t->life[1] = -1;
    t->src.fd = t->pipe[0];
    if (!transport_shared(t)) {
        /* no shared memory here: the words themselves go through the pipe */
        transport_drop_shared(t);
        close_fd(&t->shm_fd);
        close_fd(&t->free_child);
    }
    return true;
}


void transport_plugin_options(const struct transport *t, char *out, size_t len)
{
    int n;
    if (t->src.shm)
        n = snprintf(out, len, "fd=%d,shm=%d,free=%d", t->pipe[1], t->shm_fd, t->free_child);
    else
        n = snprintf(out, len, "fd=%d", t->pipe[1]);
    if (t->life[0] >= 0 && n >= 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, ",life=%d", t->life[0]);
}
