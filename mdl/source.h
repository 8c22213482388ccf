/* The source files of one compilation, addressed by byte spans; line and column are
 * derived only when a diagnostic is printed. */
#ifndef MDL_SOURCE_H
#define MDL_SOURCE_H
#include <stddef.h>
#include <stdint.h>

struct span {
    uint32_t file;              /* index in the source manager */
    uint32_t lo, hi;            /* byte offsets, hi exclusive */
};

struct src_file {
    char *path;                 /* as the user or the include named it, for messages */
    char *real;                 /* canonical path, to detect cycles and double includes */
    char *text;                 /* NUL-terminated copy; may contain other NULs */
    size_t len;
    size_t *lines;              /* offsets of line starts, built on first use */
    size_t nlines;
};

struct src_manager {
    struct src_file **files;
    size_t n, cap;
};

enum { SRC_MAX_BYTES = 64 << 20 };    /* a description above this is refused, not read */

void src_init(struct src_manager *sm);
void src_free(struct src_manager *sm);
/* Reads PATH; returns its index, or -1 with a reason in ERR (errno text or size limit). */
int src_load(struct src_manager *sm, const char *path, char *err, size_t errlen);
/* Registers an in-memory text (tests, stdin). */
int src_add_text(struct src_manager *sm, const char *name, const char *text, size_t len);
const struct src_file *src_get(const struct src_manager *sm, uint32_t file);
/* 1-based line and column (in bytes) of OFFSET. */
void src_position(const struct src_manager *sm, uint32_t file, uint32_t offset,
                  unsigned *line, unsigned *col);
/* Start and length of the line containing OFFSET, without its newline. */
const char *src_line(const struct src_manager *sm, uint32_t file, uint32_t offset, size_t *len);
struct span span_join(struct span a, struct span b);

#endif
