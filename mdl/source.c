/* Source files and the mapping from byte offsets to lines, computed lazily. */
#include "source.h"
#include "alloc.h"
#include "safefile.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void src_init(struct src_manager *sm) { memset(sm, 0, sizeof *sm); }

void src_free(struct src_manager *sm)
{
    for (size_t i = 0; i < sm->n; i++) {
        struct src_file *f = sm->files[i];
        free(f->path);
        free(f->real);
        free(f->text);
        free(f->lines);
        free(f);
    }
    free(sm->files);
    src_init(sm);
}

static int src_push(struct src_manager *sm, const char *name, const char *real, char *text, size_t len)
{
    if (sm->n == sm->cap) {
        sm->cap = sm->cap ? 2 * sm->cap : 8;
        sm->files = alloc_resize(sm->files, sm->cap, sizeof *sm->files);
    }
    struct src_file *f = alloc_resize(NULL, 1, sizeof *f);
    memset(f, 0, sizeof *f);
    f->path = alloc_strdup(name);
    f->real = alloc_strdup(real);
    f->text = text;
    f->len = len;
    sm->files[sm->n] = f;
    return (int)sm->n++;
}

int src_add_text(struct src_manager *sm, const char *name, const char *text, size_t len)
{
    char *copy = alloc_resize(NULL, len + 1, 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    return src_push(sm, name, name, copy, len);
}

static char *src_read(FILE *fp, size_t *len, char *err, size_t errlen)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = alloc_resize(NULL, cap, 1);
    for (;;) {
        /* room for one byte past the bound (which refuses the file) and the NUL: the bound is
         * SRC_MAX_BYTES exactly, not the next power of two that doubling reaches */
        if (n + 1 >= cap) {
            cap = cap * 2 < (size_t)SRC_MAX_BYTES + 2 ? cap * 2 : (size_t)SRC_MAX_BYTES + 2;
            buf = alloc_resize(buf, cap, 1);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (n > SRC_MAX_BYTES) {
            snprintf(err, errlen, "file is larger than %d MiB", SRC_MAX_BYTES >> 20);
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        snprintf(err, errlen, "%s", strerror(errno));
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int src_load(struct src_manager *sm, const char *path, char *err, size_t errlen)
{
    FILE *fp = safefile_read(path, err, errlen);
    if (!fp)
        return -1;
    size_t len;
    char *text = src_read(fp, &len, err, errlen);
    fclose(fp);
    if (!text)
        return -1;
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    return src_push(sm, path, real, text, len);
}

const struct src_file *src_get(const struct src_manager *sm, uint32_t file)
{
    return file < sm->n ? sm->files[file] : NULL;
}

static void src_index_lines(struct src_file *f)
{
    size_t cap = 64;
    f->lines = alloc_resize(NULL, cap, sizeof *f->lines);
    f->lines[0] = 0;
    f->nlines = 1;
    for (size_t i = 0; i < f->len; i++) {
        if (f->text[i] != '\n')
            continue;
        if (f->nlines == cap) {
            cap *= 2;
            f->lines = alloc_resize(f->lines, cap, sizeof *f->lines);
        }
        f->lines[f->nlines++] = i + 1;
    }
}

/* Index of the line holding OFFSET, by binary search over line starts. */
static size_t src_line_index(const struct src_manager *sm, uint32_t file, uint32_t offset)
{
    struct src_file *f = sm->files[file];
    if (!f->lines)
        src_index_lines(f);
    size_t lo = 0, hi = f->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->lines[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void src_position(const struct src_manager *sm, uint32_t file, uint32_t offset,
                  unsigned *line, unsigned *col)
{
    size_t i = src_line_index(sm, file, offset);
    *line = (unsigned)i + 1;
    *col = (unsigned)(offset - sm->files[file]->lines[i]) + 1;
}

const char *src_line(const struct src_manager *sm, uint32_t file, uint32_t offset, size_t *len)
{
    size_t i = src_line_index(sm, file, offset);
    const struct src_file *f = sm->files[file];
    size_t start = f->lines[i];
    size_t end = i + 1 < f->nlines ? f->lines[i + 1] - 1 : f->len;
    if (end > start && f->text[end - 1] == '\r')
        end--;
    *len = end - start;
    return f->text + start;
}

struct span span_join(struct span a, struct span b)
{
    struct span s = a;
    if (b.file == a.file) {
        if (b.lo < s.lo) s.lo = b.lo;
        if (b.hi > s.hi) s.hi = b.hi;
    }
    return s;
}
