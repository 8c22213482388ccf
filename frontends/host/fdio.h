/* Whole reads and writes on a file descriptor: a signal that interrupts a call resumes it, and a
 * short transfer goes on until the count is done. */
#ifndef FDIO_H
#define FDIO_H
#include <stdbool.h>
#include <stddef.h>

/* All N bytes of BUF to FD; false on an error (errno says which). */
bool fdio_write_all(int fd, const void *buf, size_t n);
/* N bytes from FD into BUF, fewer only at the end of the file or on an error (errno says which,
 * and it is set to 0 at the end of the file): how many were read. */
size_t fdio_read_full(int fd, void *buf, size_t n);

#endif
