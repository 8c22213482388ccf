/* Write-if-changed through a temporary file renamed into place. */
#include "output.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool output_open(struct output *o)
{
    o->buf = NULL;
    o->len = 0;
    o->fp = open_memstream(&o->buf, &o->len);
    return o->fp != NULL;
}

void output_discard(struct output *o)
{
    if (o->fp)
        fclose(o->fp);
    free(o->buf);
    o->fp = NULL;
    o->buf = NULL;
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

bool output_commit(struct output *o, const char *path, bool *changed, char *err, size_t errlen)
{
    fclose(o->fp);
    o->fp = NULL;
    *changed = false;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "'%s' exists and is not a regular file", path);
        output_discard(o);
        return false;
    }
    if (same_content(path, o->buf, o->len)) {
        output_discard(o);
        return true;
    }
    size_t plen = strlen(path) + 16;
    char *tmp = malloc(plen);
    snprintf(tmp, plen, "%s.tmp%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "wb");
    bool ok = fp && fwrite(o->buf, 1, o->len, fp) == o->len;
    if (fp && fclose(fp) != 0)
        ok = false;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    output_discard(o);
    *changed = ok;
    return ok;
}
