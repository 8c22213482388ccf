/* Write-if-changed through temporary files renamed into place once all are written. */
#include "output.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool output_open(struct output *o)
{
    memset(o, 0, sizeof *o);
    o->fp = open_memstream(&o->buf, &o->len);
    return o->fp != NULL;
}

void output_discard(struct output *o)
{
    if (o->fp)
        fclose(o->fp);
    if (o->tmp) {
        unlink(o->tmp);
        free(o->tmp);
    }
    free(o->buf);
    memset(o, 0, sizeof *o);
}

static bool same_content(const char *path, const char *buf, size_t len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    bool same = true;
    char chunk[65536];
    size_t off = 0, got;
    while (same && (got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        same = off + got <= len && memcmp(chunk, buf + off, got) == 0;
        off += got;
    }
    fclose(fp);
    return same && off == len;
}

bool output_stage(struct output *o, const char *path, char *err, size_t errlen)
{
    fclose(o->fp);
    o->fp = NULL;
    o->path = path;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "'%s' exists and is not a regular file", path);
        return false;
    }
    if (same_content(path, o->buf, o->len))
        return true;
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    snprintf(o->tmp, n, "%s.tmp%ld", path, (long)getpid());
    FILE *fp = fopen(o->tmp, "wb");
    bool ok = fp && fwrite(o->buf, 1, o->len, fp) == o->len;
    if (fp && fclose(fp) != 0)
        ok = false;
    if (!ok)
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return ok;
}

bool output_publish(struct output *o, char *err, size_t errlen)
{
    if (o->tmp && rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno));
        return false;
    }
    free(o->tmp);
    o->tmp = NULL;
    return true;
}

bool output_commit(struct output *o, const char *path, char *err, size_t errlen)
{
    bool ok = output_stage(o, path, err, errlen) && output_publish(o, err, errlen);
    output_discard(o);
    return ok;
}
