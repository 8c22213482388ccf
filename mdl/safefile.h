/* Output files written whole or not at all, for mdlc and mdlsim alike: a temporary file created
 * exclusively beside the target, renamed onto it once every write and the close succeeded; and
 * input files read whole, which must be regular files. */
#ifndef SAFEFILE_H
#define SAFEFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct safefile {
    FILE *fp;                   /* the temporary file, while open */
    char *tmp;                  /* its name: TARGET's directory, an unpredictable name */
    char *path;                 /* the target */
};

/* Whether PATH may be written: absent or a regular file (a symlink, a device, a directory are
 * refused and left as they are), in a directory that exists. False with ERR naming PATH. */
bool safefile_check(const char *path, char *err, size_t errlen);
/* Whether A and B name the same file: by device and inode when both exist, else by their
 * directories resolved (symbolic links, "..") and their names. An output must never replace an
 * input or another output. */
bool safefile_same(const char *a, const char *b);
/* Creates F's temporary file for PATH (O_EXCL, mode 0666 less the umask). */
bool safefile_open(struct safefile *f, const char *path, char *err, size_t errlen);
/* Flushes and closes the temporary file; false with ERR when a write or the close failed. */
bool safefile_close(struct safefile *f, char *err, size_t errlen);
/* Renames the closed temporary file onto the target. */
bool safefile_publish(struct safefile *f, char *err, size_t errlen);
/* Closes and removes what was not published; frees F. Safe on a zeroed F. */
void safefile_discard(struct safefile *f);

/* Opens PATH to be read whole: a regular file only. A FIFO, a device or a directory is refused
 * before anything blocks on it (opened without waiting, then checked). The descriptor, or -1
 * with the reason in ERR ("not a regular file", "Is a directory" or the errno text) for the
 * caller's "cannot read 'PATH': REASON". */
int safefile_read_fd(const char *path, char *err, size_t errlen);
/* The same as a stdio stream ("rb"), or NULL with the reason in ERR. */
FILE *safefile_read(const char *path, char *err, size_t errlen);

/* Flushes and closes standard output, once, at the end of main: false with ERR when a write to
 * it failed (a full disk, a closed pipe), so that a truncated result never ends with exit
 * status 0. Every tool calls it on every path that may have printed (--help, --version too). */
bool safefile_stdout(char *err, size_t errlen);

#endif
