/* Prints diagnostics in the compiler-standard shape with the offending span underlined. */
#include "diag.h"
#include <stdarg.h>
#include <string.h>

static const char *const diag_names[] = { "error", "warning", "note" };

void diag_init(struct diag *d, const struct src_manager *sm, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->sm = sm;
    d->out = out;
    d->max_errors = 20;
}

static bool diag_count(struct diag *d, enum diag_level lvl)
{
    if (d->too_many)
        return false;
    if (lvl == DIAG_WARNING && d->werror)
        lvl = DIAG_ERROR;
    if (lvl == DIAG_ERROR)
        d->errors++;
    else if (lvl == DIAG_WARNING)
        d->warnings++;
    return true;
}

static void diag_after(struct diag *d)
{
    if (d->max_errors && d->errors >= d->max_errors && !d->too_many) {
        d->too_many = true;
        fprintf(d->out, "mdlc: fatal: too many errors (%u), stopping\n", d->errors);
    }
}

/* Bytes that would garble a terminal are shown as '?', one column each, so the
 * underline stays aligned; UTF-8 continuation bytes take no column of their own. */
static void diag_echo_line(FILE *out, const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        fputc(c == '\t' || c >= 0x80 || (c >= 0x20 && c != 0x7f) ? c : '?', out);
    }
}

static void diag_underline(FILE *out, const char *line, size_t len, size_t from, size_t to)
{
    for (size_t i = 0; i < from && i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c & 0xC0) != 0x80)
            fputc(c == '\t' ? '\t' : ' ', out);
    }
    fputc('^', out);
    for (size_t i = from + 1; i < to && i < len; i++)
        if (((unsigned char)line[i] & 0xC0) != 0x80)
            fputc('~', out);
    fputc('\n', out);
}

/* The line holding AT, underlined; a long line (a token of megabytes) as a window of
 * DIAG_MAX_LINE bytes from a little before the place, "..." marking what is left out. */
static void diag_source(struct diag *d, struct span at)
{
    size_t len;
    const char *line = src_line(d->sm, at.file, at.lo, &len);
    size_t from = (size_t)(d->sm->files[at.file]->text + at.lo - line);
    size_t to = from + (at.hi > at.lo ? at.hi - at.lo : 1);
    size_t lo = 0, hi = len;
    if (len > DIAG_MAX_LINE) {
        lo = from > DIAG_MAX_LINE / 4 ? from - DIAG_MAX_LINE / 4 : 0;
        while (lo > 0 && ((unsigned char)line[lo] & 0xC0) == 0x80)
            lo--;
        hi = lo + DIAG_MAX_LINE < len ? lo + DIAG_MAX_LINE : len;
        while (hi < len && ((unsigned char)line[hi] & 0xC0) == 0x80)
            hi++;
    }
    fputs(lo > 0 ? "..." : "", d->out);
    diag_echo_line(d->out, line + lo, hi - lo);
    fputs(hi < len ? "...\n" : "\n", d->out);
    fputs(lo > 0 ? "   " : "", d->out);
    from -= lo, to -= lo, len = hi - lo;
    diag_underline(d->out, line + lo, len, from, to > len ? (len > from ? len : from + 1) : to);
}

/* One diagnostic: the located form when AT names a file, `mdlc: level: ...` otherwise. */
static void diag_v(struct diag *d, enum diag_level lvl, const struct span *at, const char *fmt, va_list ap)
{
    if (!diag_count(d, lvl))
        return;
    if (lvl == DIAG_WARNING && d->werror)
        lvl = DIAG_ERROR;
    const struct src_file *f = at ? src_get(d->sm, at->file) : NULL;
    struct span s = at ? *at : (struct span){ 0 };
    if (f) {
        unsigned line, col;
        if (s.lo > f->len) s.lo = (uint32_t)f->len;
        if (s.hi > f->len) s.hi = (uint32_t)f->len;
        src_position(d->sm, s.file, s.lo, &line, &col);
        fprintf(d->out, "%s:%u:%u: %s: ", f->path, line, col, diag_names[lvl]);
    } else {
        fprintf(d->out, "mdlc: %s: ", diag_names[lvl]);
    }
    char msg[DIAG_MAX_MESSAGE];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    fputs(msg, d->out);
    fputs(n >= (int)sizeof msg ? "...\n" : "\n", d->out);
    if (f)
        diag_source(d, s);
    diag_after(d);
}

void diag_at(struct diag *d, enum diag_level lvl, struct span at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_v(d, lvl, &at, fmt, ap);
    va_end(ap);
}

void diag_plain(struct diag *d, enum diag_level lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_v(d, lvl, NULL, fmt, ap);
    va_end(ap);
}

bool diag_failed(const struct diag *d) { return d->errors > 0; }

const char *diag_quote(char *buf, size_t len, const char *s, size_t n)
{
    if (n <= DIAG_MAX_QUOTE) {
        snprintf(buf, len, "%.*s", (int)n, s);
        return buf;
    }
    size_t k = DIAG_MAX_QUOTE;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    snprintf(buf, len, "%.*s...", (int)k, s);
    return buf;
}
