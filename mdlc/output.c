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
    safefile_discard(&o->staged);
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
    if (!safefile_check(path, err, errlen))
        return false;
    if (same_content(path, o->buf, o->len))
        return true;
    if (!safefile_open(&o->staged, path, err, errlen))
        return false;
    bool wrote = fwrite(o->buf, 1, o->len, o->staged.fp) == o->len;
    return safefile_close(&o->staged, err, errlen) && (wrote || snprintf(err, errlen, "cannot write '%s': %s", path,
                                                                           strerror(errno)) < 0);
}

bool output_publish(struct output *o, char *err, size_t errlen)
{
    return !o->staged.tmp || safefile_publish(&o->staged, err, errlen);
}

bool output_commit(struct output *o, const char *path, char *err, size_t errlen)
{
    bool ok = output_stage(o, path, err, errlen) && output_publish(o, err, errlen);
    output_discard(o);
    return ok;
}
