/* A stream written to several descriptors: a stdio cookie whose write goes to each in turn, all
 * of the buffer to one before the next (a pipe that is full holds up the others). */
#include "tee.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "fdio.h"

struct tee {
    unsigned n;
    int fd[];
};

static ssize_t tee_write(void *cookie, const char *buf, size_t size)
{
    const struct tee *t = cookie;
    for (unsigned i = 0; i < t->n; i++)
        if (!fdio_write_all(t->fd[i], buf, size))
            return -1;
    return (ssize_t)size;
}

static int tee_close(void *cookie)
{
    free(cookie);
    return 0;
}

FILE *tee_open(const int *fds, unsigned n)
{
    struct tee *t = alloc_zeroed(1, sizeof *t + n * sizeof t->fd[0]);
    t->n = n;
    memcpy(t->fd, fds, n * sizeof *fds);
    FILE *f = fopencookie(t, "w", (cookie_io_functions_t){ .write = tee_write, .close = tee_close });
    if (!f) {
        free(t);
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, TEE_BUFFER);
    return f;
}
