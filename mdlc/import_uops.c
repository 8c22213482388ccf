/* uops.info CSV importer: each row is one instruction form measured on a real core;
 * it becomes one MDL `insn` entry, keeping the measured numbers digit for digit. */
#include "import_uops.h"
#include "alloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "formcheck.h"

#define NFIELDS 6
#define LE "\xe2\x89\xa4" /* "≤" in UTF-8 */
#define NEVER "// never matches: "

static const char *const header[NFIELDS] = {
    "instruction", "family", "latency", "throughput", "uops", "ports",
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return IMPORT_UOPS_ERROR;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static bool is_word(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

static const char *scan_word(const char *p)
{
    while (is_word(*p))
        p++;
    return p;
}

bool import_uops_is_ident(const char *name)
{
    return (is_alpha(*name) || *name == '_') && !*scan_word(name);
}

/* ---- CSV ------------------------------------------------------------------ */

/* Reads the field at *pp (RFC 4180 quoting) into dst, which may be NULL for
 * surplus fields that are only counted; leaves *pp on the ',' or at end. */
static int read_field(const char **pp, const char *end, char *dst, int idx,
                      char *err, size_t errlen)
{
    const char *p = *pp;
    bool quoted = p < end && *p == '"';
    size_t n = 0;

    for (p += quoted; ; p++) {
        if (p == end) {
            if (quoted)
                return fail(err, errlen, "unterminated quoted field %d", idx + 1);
            break;
        }
        if (!quoted && *p == ',')
            break;
        if (*p == '"' && !quoted)
            return fail(err, errlen, "quote inside unquoted field %d", idx + 1);
        if (*p == '"' && (p + 1 == end || p[1] != '"')) {
            p++;
            if (p != end && *p != ',')
                return fail(err, errlen, "text after the closing quote of field %d", idx + 1);
            break;
        }
        p += *p == '"'; /* "" stands for one quote */
        if (n + 1 >= IMPORT_UOPS_FIELD_MAX)
            return fail(err, errlen, "field %d is longer than %d bytes", idx + 1,
                        IMPORT_UOPS_FIELD_MAX - 1);
        if (dst)
            dst[n] = *p;
        n++;
    }
    if (dst)
        dst[n] = '\0';
    *pp = p;
    return 0;
}

static int split_line(const char *line, char f[NFIELDS][IMPORT_UOPS_FIELD_MAX],
                      char *err, size_t errlen)
{
    const char *end = line + strlen(line);
    int n = 0;

    /* Tolerate both line-ending conventions; a CSV exported on Windows uses CRLF. */
    if (end > line && end[-1] == '\n')
        end--;
    if (end > line && end[-1] == '\r')
        end--;
    for (const char *p = line; ; p++) {
        if (read_field(&p, end, n < NFIELDS ? f[n] : NULL, n, err, errlen))
            return IMPORT_UOPS_ERROR;
        n++;
        if (p == end)
            break;
    }
    if (n != NFIELDS)
        return fail(err, errlen, "expected %d fields, found %d", NFIELDS, n);
    return 0;
}

/* ---- Fields --------------------------------------------------------------- */

/* Scans a number as MDL writes one (a digit is required after the dot);
 * returns its end or NULL. */
static const char *scan_num(const char *p, bool decimal)
{
    if (!is_digit(*p))
        return NULL;
    while (is_digit(*p))
        p++;
    if (decimal && *p == '.') {
        if (!is_digit(p[1]))
            return NULL;
        for (p++; is_digit(*p); p++)
            ;
    }
    return p;
}

static const char *copy_num(const char *p, bool decimal, char dst[IMPORT_UOPS_NUM_MAX])
{
    const char *e = scan_num(p, decimal);

    if (!e || e - p >= IMPORT_UOPS_NUM_MAX)
        return NULL;
    memcpy(dst, p, e - p);
    dst[e - p] = '\0';
    return e;
}

/* "≤N": uops.info could only bound the latency of that operand pair from above. */
static const char *copy_bound(const char *p, char dst[IMPORT_UOPS_NUM_MAX], bool *bound)
{
    *bound = strncmp(p, LE, strlen(LE)) == 0;
    return copy_num(p + (*bound ? strlen(LE) : 0), true, dst);
}

static bool same_num(const char *a, const char *b)
{
    return strtod(a, NULL) == strtod(b, NULL);
}

static int parse_latency(const char *s, struct import_uops_row *r, char *err, size_t errlen)
{
    const char *e;

    if (!*s)
        return 0;
    if (*s != '[') {
        e = copy_bound(s, r->lat_min, &r->lat_min_bound);
        if (e && !*e) {
            strcpy(r->lat_max, r->lat_min);
            r->lat_max_bound = r->lat_min_bound;
            return 0;
        }
    } else if ((e = copy_bound(s + 1, r->lat_min, &r->lat_min_bound)) && *e == ';') {
        e = copy_bound(e + 1, r->lat_max, &r->lat_max_bound);
        if (e && e[0] == ']' && !e[1]) {
            if (strtod(r->lat_min, NULL) > strtod(r->lat_max, NULL))
                return fail(err, errlen, "latency \"%s\" has its minimum above its maximum", s);
            return 0;
        }
    }
    return fail(err, errlen, "bad latency \"%s\": expected N, " LE "N or [A;B]", s);
}

/* "X / Y": X is the bound uops.info computes from the port usage, Y what it measured (a
 * divider shows the difference: DIVSD is "1.00 / 4.00"); the entry keeps the measurement. */
static int parse_tp(const char *s, struct import_uops_row *r, char *err, size_t errlen)
{
    char from_ports[IMPORT_UOPS_NUM_MAX];
    const char *e = copy_num(s, true, from_ports);

    if (e && !*e) {
        memcpy(r->tp, from_ports, sizeof from_ports);
        return 0;
    }
    if (e && !strncmp(e, " / ", 3) && (e = copy_num(e + 3, true, r->tp)) && !*e)
        return 0;
    return fail(err, errlen, "bad throughput \"%s\": expected X or X / Y", s);
}

static int parse_uops(const char *s, struct import_uops_row *r, char *err, size_t errlen)
{
    const char *e = copy_num(s, false, r->uops_fused);

    if (e && !strncmp(e, " / ", 3) && (e = copy_num(e + 3, false, r->uops_unfused)) && !*e)
        return 0;
    return fail(err, errlen, "bad uops \"%s\": expected FUSED / UNFUSED", s);
}

/* A port set is any MDL identifier: the checker, not the importer, knows the ports. */
static bool valid_ports(const char *p)
{
    if (!*p)
        return true;
    for (;; p++) {
        if (!(p = scan_num(p, false)) || *p++ != '*' || (!is_alpha(*p) && *p != '_'))
            return false;
        p = scan_word(p);
        if (!*p)
            return true;
        if (*p != '+')
            return false;
    }
}

static int parse_ports(const char *s, struct import_uops_row *r, char *err, size_t errlen)
{
    if (!valid_ports(s))
        return fail(err, errlen, "bad ports \"%s\": expected COUNT*SET(+COUNT*SET)*", s);
    strcpy(r->ports, s);
    return 0;
}

static const char *skip_spaces(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/* Appends s[0..n) while it fits; normalise_form rejects a form that overflowed. */
static size_t append(char *dst, size_t len, const char *s, size_t n)
{
    if (len + n < IMPORT_UOPS_FIELD_MAX) {
        memcpy(dst + len, s, n);
        dst[len + n] = '\0';
    }
    return len + n;
}

/* Appends " (K1, K2)" for the list at *pp ("(K1 ,K2 )"); false if malformed. */
static bool normalise_kinds(const char **pp, char *dst, size_t *len)
{
    const char *p = *pp, *e;

    *len = append(dst, *len, " (", 2);
    do {
        p = skip_spaces(p + 1);
        if ((e = scan_word(p)) == p)
            return false;
        *len = append(dst, *len, p, e - p);
        p = skip_spaces(e);
        if (*p == ',')
            *len = append(dst, *len, ", ", 2);
    } while (*p == ',');
    *len = append(dst, *len, ")", 1);
    *pp = p + 1;
    return *p == ')';
}

/* Spacing is normalised so that the same form always reads the same in MDL. */
static bool normalise_form(const char *p, char *dst)
{
    const char *e;
    size_t len;

    p = skip_spaces(p);
    if (!is_alpha(*p))
        return false;
    e = scan_word(p);
    len = append(dst, 0, p, e - p);
    p = skip_spaces(e);
    if (*p == '(' && !normalise_kinds(&p, dst, &len))
        return false;
    return !*skip_spaces(p) && len < IMPORT_UOPS_FIELD_MAX;
}

static int parse_form(const char *s, struct import_uops_row *r, char *err, size_t errlen)
{
    if (normalise_form(s, r->form))
        return 0;
    return fail(err, errlen,
                "bad instruction form \"%s\": expected MNEMONIC or MNEMONIC (KIND, ...)", s);
}

/* ---- Rows ----------------------------------------------------------------- */

static bool is_header(char f[NFIELDS][IMPORT_UOPS_FIELD_MAX])
{
    for (int i = 0; i < NFIELDS; i++)
        if (strcmp(f[i], header[i]))
            return false;
    return true;
}

int import_uops_parse_line(const char *line, struct import_uops_row *out,
                           char *err, size_t errlen)
{
    char f[NFIELDS][IMPORT_UOPS_FIELD_MAX];

    memset(out, 0, sizeof(*out));
    if (split_line(line, f, err, errlen))
        return IMPORT_UOPS_ERROR;
    if (is_header(f))
        return IMPORT_UOPS_HEADER;
    strcpy(out->family, f[1]);
    if (parse_form(f[0], out, err, errlen) || parse_latency(f[2], out, err, errlen) ||
        parse_tp(f[3], out, err, errlen) || parse_uops(f[4], out, err, errlen) ||
        parse_ports(f[5], out, err, errlen))
        return IMPORT_UOPS_ERROR;
    return IMPORT_UOPS_ROW;
}

int import_uops_format_row(const struct import_uops_row *r, const char *source,
                           char *buf, size_t len)
{
    char lat[2 * IMPORT_UOPS_NUM_MAX + 16] = "";
    bool one_uops = same_num(r->uops_fused, r->uops_unfused);

    if (*r->lat_min)
        snprintf(lat, sizeof(lat), same_num(r->lat_min, r->lat_max) ? " latency %s"
                 : " latency %s..%s", r->lat_min, r->lat_max);
    return snprintf(buf, len, "insn %s%s uops %s%s%s%s%s tp %s @%s;", r->form, lat,
                    r->uops_fused, one_uops ? "" : "/", one_uops ? "" : r->uops_unfused,
                    *r->ports ? " ports " : "", r->ports, r->tp, source);
}

/* ---- Files ---------------------------------------------------------------- */

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
            return true;
    return false;
}

static int check_opts(const struct import_uops_opts *o, char *err, size_t errlen)
{
    if (!import_uops_is_ident(o->source))
        return fail(err, errlen, "source name \"%s\" is not an MDL identifier", o->source);
    if (strchr(o->csv_name, '\n') || has_control(o->csv_name))
        return fail(err, errlen, "file name \"%s\" contains a control character", o->csv_name);
    /* MDL strings can escape only \n and \t among control characters. */
    if (has_control(o->desc))
        return fail(err, errlen, "description \"%s\" contains a control character", o->desc);
    return 0;
}

static void write_string(FILE *out, const char *s)
{
    putc('"', out);
    for (; *s; s++) {
        if (*s == '\n' || *s == '\t') {
            fputs(*s == '\n' ? "\\n" : "\\t", out);
            continue;
        }
        if (*s == '"' || *s == '\\')
            putc('\\', out);
        putc(*s, out);
    }
    putc('"', out);
}

static void write_preamble(FILE *out, const struct import_uops_opts *o)
{
    fprintf(out, "// Generated by uops2mdl from %s (uops.info, Apache-2.0): "
            "do not edit; regenerate instead.\n", o->csv_name);
    fputs("// Columns: latency min..max over operand pairs (an upper bound \"" LE "\" is kept"
          " as the bound itself),\n// uops fused/unfused domain, tp = measured inverse"
          " throughput in cycles.\n", out);
    if (o->keys)
        fputs("// A row whose form no instruction decodes as (the decoder, Capstone, lacks the instruction or\n"
              "// names it otherwise) stays a comment, \"" NEVER "insn ...\": mdlc would warn that it never\n"
              "// matches [-Wunmatched-form].\n", out);
    fprintf(out, "source %s ", o->source);
    write_string(out, o->desc);
    fputs(";\n\n", out);
}

/* Whether the decoder spells ROW's form, so that the entry can model an instruction. */
static bool decodable(const struct import_uops_row *row, const struct import_uops_opts *o)
{
    struct formcheck_verdict v;

    return !o->keys || (formcheck_text(o->keys, row->form, &v) && v.problem == FORMCHECK_OK);
}

static void write_row(FILE *out, const struct import_uops_row *row, const struct import_uops_opts *o)
{
    char fixed[1024], *entry = fixed;
    int n = import_uops_format_row(row, o->source, fixed, sizeof(fixed));

    if (n >= (int)sizeof(fixed)) { /* only with a very long source name */
        entry = alloc_resize(NULL, (size_t)n + 1, 1);
        import_uops_format_row(row, o->source, entry, n + 1);
    }
    fprintf(out, "%s%s\n", decodable(row, o) ? "" : NEVER, entry);
    if (entry != fixed)
        free(entry);
}

/* The header pins the column order, so a reordered export fails instead of
 * silently swapping latency and throughput. */
static int convert_line(const char *text, long line, FILE *out, const struct import_uops_opts *o,
                        char *err, size_t errlen)
{
    struct import_uops_row row;
    int kind;

    if (line == 1 && !strncmp(text, "\xef\xbb\xbf", 3))
        text += 3; /* a byte order mark, as spreadsheet exports add */
    kind = import_uops_parse_line(text, &row, err, errlen);
    if (kind == IMPORT_UOPS_ERROR)
        return -1;
    if (line == 1 && kind != IMPORT_UOPS_HEADER)
        return fail(err, errlen, "expected the header \"instruction\",\"family\",\"latency\","
                    "\"throughput\",\"uops\",\"ports\"");
    if (line > 1 && kind == IMPORT_UOPS_HEADER)
        return fail(err, errlen, "header repeated");
    if (kind == IMPORT_UOPS_ROW)
        write_row(out, &row, o);
    return 0;
}

static int convert_lines(FILE *in, FILE *out, const struct import_uops_opts *o, long *line,
                         char *err, size_t errlen)
{
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;

    while (!rc && (n = getline(&text, &cap, in)) != -1) {
        ++*line;
        if (strlen(text) != (size_t)n)
            rc = fail(err, errlen, "NUL byte in line");
        else
            rc = convert_line(text, *line, out, o, err, errlen);
    }
    free(text);
    return rc ? -1 : 0;
}

int import_uops_convert(FILE *in, FILE *out, const struct import_uops_opts *opts,
                        long *line, char *err, size_t errlen)
{
    *line = 0;
    if (check_opts(opts, err, errlen))
        return -1;
    write_preamble(out, opts);
    if (convert_lines(in, out, opts, line, err, errlen))
        return -1;
    if (ferror(in)) {
        *line = 0;
        return fail(err, errlen, "read error: %s", strerror(errno));
    }
    if (*line == 0) {
        *line = 1;
        return fail(err, errlen, "empty file: expected the header line");
    }
    *line = 0;
    if (fflush(out) || ferror(out))
        return fail(err, errlen, "write error");
    return 0;
}
