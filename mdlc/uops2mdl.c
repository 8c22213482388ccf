/* uops2mdl: turns a uops.info CSV table into an MDL include of `insn` entries.
 * Usage: uops2mdl [--source NAME] [--desc TEXT] IN.csv OUT.mdl */
#include "import_uops.h"
#include "alloc.h"
#include "formcheck.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define USAGE "usage: uops2mdl [--source NAME] [--desc TEXT] IN.csv OUT.mdl\n"

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "uops2mdl: %s \"%s\"\n" USAGE, msg, arg);
    exit(2);
}

/* Make only sees a new timestamp when the content really changed. */
static bool same_content(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t i = 0;
    bool same = f != NULL;
    int c;

    while (same && (c = getc(f)) != EOF)
        same = i < len && (unsigned char)buf[i++] == c;
    same = same && i == len && !ferror(f);
    if (f)
        fclose(f);
    return same;
}

/* Readers of OUT never see a half-written file: write beside it, then rename. */
static int write_atomic(const char *path, const char *buf, size_t len)
{
    char *tmp = NULL;
    FILE *f = asprintf(&tmp, "%s.tmp", path) < 0 ? NULL : fopen(tmp, "wb");
    bool ok = f && fwrite(buf, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;

    ok = f && fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        fprintf(stderr, "%s: error: cannot write \"%s\": %s\n", path, tmp ? tmp : path,
                strerror(e));
        if (f)
            unlink(tmp); /* only a file we created: OUT.tmp may be someone else's */
    }
    free(tmp);
    return ok ? 0 : -1;
}

static int convert(const char *in_path, const struct import_uops_opts *o,
                   char **buf, size_t *len)
{
    FILE *in = fopen(in_path, "r"), *out = NULL;
    char err[512] = "out of memory";
    long line = 0;
    int rc = -1;

    if (!in) {
        fprintf(stderr, "%s: error: cannot open: %s\n", in_path, strerror(errno));
        return -1;
    }
    out = open_memstream(buf, len);
    if (out)
        rc = import_uops_convert(in, out, o, &line, err, sizeof(err));
    if (out && fclose(out) && !rc)
        rc = -1;
    fclose(in);
    if (rc && line)
        fprintf(stderr, "%s:%ld: error: %s\n", in_path, line, err);
    else if (rc)
        fprintf(stderr, "%s: error: %s\n", in_path, err);
    return rc;
}

/* rename() would replace a device or a directory entry of another kind. */
static int check_out(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: error: not a regular file\n", path);
        return -1;
    }
    return 0;
}

/* Converts into memory first so an unchanged table leaves OUT untouched. */
static int run(const char *in_path, const char *out_path, const struct import_uops_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = check_out(out_path) ? -1 : convert(in_path, o, &buf, &len);

    if (!rc && !same_content(out_path, buf, len))
        rc = write_atomic(out_path, buf, len);
    free(buf);
    return rc;
}

/* Defaults follow the file name: skylake.csv -> uops_skylake, "... for Skylake (...)". */
static int defaults(const char *in_path, char **source, char **desc)
{
    const char *base = strrchr(in_path, '/') ? strrchr(in_path, '/') + 1 : in_path;
    const char *dot = strrchr(base, '.');
    int n = dot && dot != base ? (int)(dot - base) : (int)strlen(base);

    if (!*source && asprintf(source, "uops_%.*s", n, base) < 0)
        return -1;
    if (!*desc && asprintf(desc, "uops.info measurements for %c%.*s (%s, Apache-2.0)",
                           n ? toupper((unsigned char)*base) : ' ', n ? n - 1 : 0, base + 1,
                           in_path) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "source", required_argument, NULL, 's' },
        { "desc", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *source = NULL, *desc = NULL;
    bool own_source;
    int c, rc;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(USAGE, stdout);
            return 0;
        }
        if (c == '?') {
            fputs(USAGE, stderr);
            return 2;
        }
        free(c == 's' ? source : desc);
        *(c == 's' ? &source : &desc) = alloc_strdup(optarg);
    }
    if (argc - optind != 2) {
        fputs(USAGE, stderr);
        return 2;
    }
    own_source = !source;
    if (defaults(argv[optind], &source, &desc)) {
        fputs("uops2mdl: out of memory\n", stderr);
        return 1;
    }
    if (!import_uops_is_ident(source))
        usage_error(own_source ? "the file name gives no MDL identifier (use --source):"
                    : "--source needs an MDL identifier, not", source);
    /* uops.info measures x86-64 cores: their forms are checked against that decoder. */
    char err[256];
    struct formcheck *keys = formcheck_open(MDL_ISA_X86_64, err, sizeof err);
    if (!keys)
        fprintf(stderr, "uops2mdl: error: %s\n", err);
    rc = !keys || run(argv[optind], argv[optind + 1], &(struct import_uops_opts){
        .csv_name = strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind],
        .source = source, .desc = desc, .keys = keys });
    formcheck_free(keys);
    free(source);
    free(desc);
    return rc ? 1 : 0;
}
