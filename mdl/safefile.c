/* Temporary file beside the target (mkstemp: exclusive, unpredictable), checked, renamed; inputs
 * opened only when they are regular files. */
#include "safefile.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool fail(const char *path, int e, char *err, size_t errlen)
{
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(e));
    return false;
}

/* Added to a target's name by its temporary file (".NAME.XXXXXX", safefile_open). */
enum { TMP_EXTRA = sizeof "..XXXXXX" - 1 };

/* Whether PATH, in directory DIR, and its temporary file have names the file system takes (its
 * NAME_MAX for the last component, PATH_MAX for the whole), so that a long name fails before
 * the work whose result it was to hold; false with ERR. */
static bool name_fits(const char *path, const char *dir, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    size_t name = strlen(slash ? slash + 1 : path), whole = strlen(dir) + 1 + name + TMP_EXTRA;
    long most = pathconf(dir, _PC_NAME_MAX);
    if (most <= 0)
        most = NAME_MAX;
    if (name + TMP_EXTRA > (size_t)most)
        snprintf(err, errlen, "cannot write '%s': a name of %zu bytes is too long (at most %ld: it is written as "
                 "'.NAME.XXXXXX' beside it first, and a name here has at most %ld)", path, name,
                 most - (long)TMP_EXTRA, most);
    else if (whole >= PATH_MAX)
        snprintf(err, errlen, "cannot write '%s': a path of %zu bytes is too long (at most %zu here: its temporary "
                 "file's is %zu bytes longer, and a path has at most %d)", path, strlen(path),
                 strlen(path) - (whole - (PATH_MAX - 1)), whole - strlen(path), PATH_MAX - 1);
    else
        return true;
    return false;
}

bool safefile_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot write '%s': %s", path,
                 S_ISLNK(st.st_mode) ? "it is a symbolic link (give the file it points to)"
                 : S_ISDIR(st.st_mode) ? strerror(EISDIR) : "it is not a regular file");
        return false;
    }
    char *copy = strdup(path);
    if (!copy)
        return fail(path, ENOMEM, err, errlen);
    const char *dir = dirname(copy);
    bool ok = access(dir, W_OK | X_OK) == 0;
    int e = errno;
    bool fits = ok && name_fits(path, dir, err, errlen);
    free(copy);
    return fits || (!ok && fail(path, e, err, errlen));
}

/* PATH with its directory resolved, in OUT (PATH itself when the directory cannot be). */
static void resolved(const char *path, char *out, size_t len)
{
    char copy[PATH_MAX], base[PATH_MAX], dir[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(base, sizeof base, "%s", basename(copy));
    snprintf(copy, sizeof copy, "%s", path);
    if (realpath(dirname(copy), dir))
        snprintf(out, len, "%s/%s", strcmp(dir, "/") ? dir : "", base);
    else
        snprintf(out, len, "%s", path);
}

bool safefile_same(const char *a, const char *b)
{
    struct stat sa, sb;
    bool has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
    if (has_a || has_b)
        return has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ra[2 * PATH_MAX], rb[2 * PATH_MAX];
    resolved(a, ra, sizeof ra);
    resolved(b, rb, sizeof rb);
    return strcmp(ra, rb) == 0;
}

bool safefile_open(struct safefile *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (!safefile_check(path, err, errlen))
        return false;
    char *copy = strdup(path), *base = copy ? strdup(basename(copy)) : NULL;
    char *dir = copy ? dirname(copy) : NULL;
    size_t n = (dir ? strlen(dir) : 0) + (base ? strlen(base) : 0) + 16;
    f->path = strdup(path);
    f->tmp = malloc(n);
    if (!copy || !base || !f->path || !f->tmp) {
        free(copy), free(base);
        safefile_discard(f);
        return fail(path, ENOMEM, err, errlen);
    }
    snprintf(f->tmp, n, "%s/.%s.XXXXXX", dir, base);
    free(copy), free(base);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        safefile_discard(f);
        return fail(path, e, err, errlen);
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);       /* mkstemp makes 0600; a report is as any file the user writes */
    if (!(f->fp = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        safefile_discard(f);
        return fail(path, e, err, errlen);
    }
    return true;
}

bool safefile_close(struct safefile *f, char *err, size_t errlen)
{
    if (!f->fp)
        return true;
    bool ok = fflush(f->fp) == 0 && !ferror(f->fp);
    int e = errno;
    if (fclose(f->fp) != 0 && ok)
        ok = false, e = errno;
    f->fp = NULL;
    return ok || fail(f->path, e ? e : EIO, err, errlen);
}

bool safefile_publish(struct safefile *f, char *err, size_t errlen)
{
    /* checked again: the target may have become a link meanwhile (a long run) */
    if (!safefile_check(f->path, err, errlen))
        return false;
    if (rename(f->tmp, f->path) != 0)
        return fail(f->path, errno, err, errlen);
    free(f->tmp);
    f->tmp = NULL;
    return true;
}

void safefile_discard(struct safefile *f)
{
    if (f->fp)
        fclose(f->fp);
    if (f->tmp) {
        unlink(f->tmp);
        free(f->tmp);
    }
    free(f->path);
    memset(f, 0, sizeof *f);
}

int safefile_read_fd(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO with no writer would wait for one forever */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s", S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
    } else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0) {
        return fd;
    } else {
        snprintf(err, errlen, "%s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    return -1;
}

FILE *safefile_read(const char *path, char *err, size_t errlen)
{
    int fd = safefile_read_fd(path, err, errlen);
    FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !fp) {
        snprintf(err, errlen, "%s", strerror(errno));
        close(fd);
    }
    return fp;
}

bool safefile_stdout(char *err, size_t errlen)
{
    /* as coreutils' close_stdout: the close reports what the last flush could not (NFS, a full
     * disk seen only at close). errno is kept: after a write that failed earlier (output larger
     * than the buffer) the flush has nothing left to write and errno still holds the reason. */
    bool ok = fflush(stdout) == 0 && !ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && ok)
        ok = false, e = errno;
    if (ok)
        return true;
    snprintf(err, errlen, "cannot write standard output: %s", strerror(e ? e : EIO));
    return false;
}
