/* Runs `as` (or the AArch64 cross assembler), `objcopy` and `objdump` in a private temporary
 * directory: the .text section's bytes, its symbols, and llvm-mca's region markers as labels. */
#include "asm.h"
#include "alloc.h"
#include "block.h"
#include "isa.h"
#include "proc.h"
#include "safefile.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the assembler may write: a block's code is at most BLOCK_MAX_BYTES, and an object
 * holding that much (symbols, debug sections of `gcc -g -S`) stays far below this. A `.fill`
 * of gigabytes is stopped as soon as the object reaches it, not after minutes. */
enum { ASM_MAX_OBJECT = 16 << 20 };

/* ARGV's output into OUT (NULL: mdlsim's stderr) and its messages into LOG, each file it writes
 * at most ASM_MAX_OBJECT bytes; true when it exits 0.
 * A tool that could not start says so in LOG, where its messages would be. */
static bool run(char *const argv[], const char *out, const char *log)
{
    int rc = proc_tool(argv, out, log, ASM_MAX_OBJECT);
    if (rc < 0) {
        FILE *fp = fopen(log, "w");
        if (fp) {
            fprintf(fp, "cannot run %s: %s\n", argv[0], strerror(errno));
            fclose(fp);
        }
    }
    return rc == 0;
}

/* The tool's own messages, on one line, after what failed. */
static void read_log(const char *log, const char *what, char *err, size_t errlen)
{
    size_t n = (size_t)snprintf(err, errlen, "%s failed: ", what);
    FILE *fp = fopen(log, "r");
    if (!fp || n >= errlen)
        return;
    size_t got = fread(err + n, 1, errlen - n - 1, fp);
    fclose(fp);
    while (got > 0 && err[n + got - 1] == '\n')
        got--;
    err[n + got] = '\0';
    for (char *c = err + n; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

/* The bytes of BIN (objcopy's .text) into CODE; asm_free releases them, read or not. */
static bool read_bytes(const char *bin, struct asm_code *code, char *err, size_t errlen)
{
    FILE *fp = fopen(bin, "rb");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st) != 0) {
        snprintf(err, errlen, "cannot read the assembled code: %s", strerror(errno));
        if (fp)
            fclose(fp);
        return false;
    }
    code->len = (size_t)st.st_size;
    code->bytes = alloc_resize(NULL, code->len, 1);
    bool ok = fread(code->bytes, 1, code->len, fp) == code->len;
    fclose(fp);
    if (!ok)
        snprintf(err, errlen, "cannot read the assembled code: %s", strerror(EIO));
    return ok;
}

/* Why the assembler failed when its object reached ASM_MAX_OBJECT; false when it did not. */
static bool too_large(const char *obj, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(obj, &st) != 0 || st.st_size < ASM_MAX_OBJECT)
        return false;
    snprintf(err, errlen, "'%s' assembles to an object of more than %d MiB (a block is at most %d KiB of code)",
             path, ASM_MAX_OBJECT >> 20, BLOCK_MAX_BYTES >> 10);
    return true;
}

/* ---- llvm-mca's region markers ------------------------------------------------------------ */

enum { MAX_MARKS = 256 };

/* Whether LINE is a marker: 1 "LLVM-MCA-BEGIN [NAME]" (NAME into NAME), -1 "LLVM-MCA-END", 0 not. */
static int marker(const char *line, char *name, size_t len)
{
    const char *p = line + strspn(line, " \t");
    if (*p == '#')
        p++;
    else if (p[0] == '/' && p[1] == '/')
        p += 2;
    else
        return 0;
    p += strspn(p, " \t");
    if (strncmp(p, "LLVM-MCA-END", 12) == 0)
        return -1;
    if (strncmp(p, "LLVM-MCA-BEGIN", 14) != 0)
        return 0;
    p += 14 + strspn(p + 14, " \t");
    size_t n = strcspn(p, "\r\n");
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    snprintf(name, len, "%.*s", (int)n, p);
    return 1;
}

/* Whether LINE switches to a code section named .text.SOMETHING: gcc puts main in .text.startup
 * and cold paths in .text.unlikely (-O2). Code is code wherever the compiler files it. */
static bool text_subsection(const char *line)
{
    const char *p = line + strspn(line, " \t");
    if (strncmp(p, ".section", 8) != 0 || (p[8] != ' ' && p[8] != '\t'))
        return false;
    p += 8 + strspn(p + 8, " \t");
    return strncmp(p, ".text.", 6) == 0;
}

/* Writes PATH to COPY with each marker line a label and each .text.SOMETHING section .text
 * (line numbers stay: the assembler's messages keep theirs), naming the regions in CODE; 0 when
 * there is neither (COPY is then not needed), 1 when there is, -1 with ERR for a marker without
 * its pair. */
static int mark_regions(const char *path, const char *copy, struct asm_code *code, char *err, size_t errlen)
{
    FILE *in = fopen(path, "r"), *out = fopen(copy, "w");
    char *line = NULL, name[64];
    size_t cap = 0, open[MAX_MARKS], n_open = 0;
    unsigned lineno = 0;
    int rc = 0;
    code->regions = alloc_zeroed(MAX_MARKS, sizeof *code->regions);
    while (in && out && rc >= 0 && getline(&line, &cap, in) >= 0) {
        lineno++;
        int m = marker(line, name, sizeof name);
        if (m > 0 && code->n_regions < MAX_MARKS && n_open < MAX_MARKS) {
            struct asm_mark *r = &code->regions[code->n_regions];
            if (*name)
                snprintf(r->name, sizeof r->name, "%s", name);
            else
                snprintf(r->name, sizeof r->name, "%zu", code->n_regions + 1);
            fprintf(out, "mdlsim_region_begin_%zu:\n", code->n_regions);
            open[n_open++] = code->n_regions++;
            rc = 1;
        } else if (m < 0 && n_open) {
            fprintf(out, "mdlsim_region_end_%zu:\n", open[--n_open]);
        } else if (m < 0 || m > 0) {
            rc = -1;
            snprintf(err, errlen, "%s:%u: %s", path, lineno, m < 0 ? "LLVM-MCA-END without an LLVM-MCA-BEGIN before it"
                                                                    : "more than 256 regions");
        } else if (text_subsection(line)) {
            fputs("\t.text\n", out);
            rc = rc < 0 ? rc : 1;
        } else {
            fputs(line, out);
        }
    }
    if (rc >= 0 && n_open) {
        rc = -1;
        snprintf(err, errlen, "%s: the region '%s' has no LLVM-MCA-END", path, code->regions[open[n_open - 1]].name);
    }
    free(line);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0 && rc >= 0)
        rc = -1, snprintf(err, errlen, "cannot write a temporary file: %s", strerror(errno));
    return rc;
}

/* ---- symbols -------------------------------------------------------------------------------------- */

static int by_start(const void *a, const void *b)
{
    const struct asm_mark *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* A line of `objdump -t`: "VALUE FLAGS(7) SECTION\tSIZE NAME"; true for a symbol of .text other
 * than the section's own, its value in *V and its name in NAME. */
static bool text_symbol(const char *line, unsigned long long *v, char *name, size_t len)
{
    char *end;
    *v = strtoull(line, &end, 16);
    if (end - line != 16 || strlen(line) < 26 || memchr(line + 17, 'd', 7) || strncmp(line + 25, ".text\t", 6) != 0)
        return false;
    const char *n = strchr(line + 31, ' ');
    if (!n)
        return false;
    snprintf(name, len, "%.*s", (int)strcspn(n + 1, "\r\n"), n + 1);
    return true;
}

/* The symbols of .text objdump listed in SYMS: the regions' labels set their bounds, the others
 * (the file's functions and labels) name the code, each up to the next. */
static bool read_symbols(const char *syms, struct asm_code *code, char *err, size_t errlen)
{
    FILE *fp = fopen(syms, "r");
    unsigned long long v;
    char line[1024], name[256];
    size_t k, cap = 0;
    bool *seen = alloc_zeroed(2 * MAX_MARKS, sizeof *seen);
    while (fp && fgets(line, sizeof line, fp)) {
        if (!text_symbol(line, &v, name, sizeof name))
            continue;
        if (sscanf(name, "mdlsim_region_begin_%zu", &k) == 1 && k < code->n_regions)
            code->regions[k].start = (size_t)v, seen[2 * k] = true;
        else if (sscanf(name, "mdlsim_region_end_%zu", &k) == 1 && k < code->n_regions)
            code->regions[k].end = (size_t)v, seen[2 * k + 1] = true;
        else {
            if (code->n_symbols == cap)
                code->symbols = alloc_resize(code->symbols, cap = cap ? 2 * cap : 16, sizeof *code->symbols);
            struct asm_mark *m = &code->symbols[code->n_symbols++];
            snprintf(m->name, sizeof m->name, "%.*s", (int)sizeof m->name - 1, name);
            m->start = (size_t)v;
        }
    }
    if (fp)
        fclose(fp);
    bool ok = true;
    for (k = 0; k < code->n_regions && ok; k++)
        if (!seen[2 * k] || !seen[2 * k + 1] || code->regions[k].end < code->regions[k].start)
            ok = false, snprintf(err, errlen, "the region '%s' is not in the code (.text)", code->regions[k].name);
    free(seen);
    if (code->n_symbols)
        qsort(code->symbols, code->n_symbols, sizeof *code->symbols, by_start);
    for (k = 0; k < code->n_symbols; k++)
        code->symbols[k].end = k + 1 < code->n_symbols ? code->symbols[k + 1].start : code->len;
    return ok;
}

/* ---- assembling ----------------------------------------------------------------------------------- */

/* The assembler's messages name the copy with the markers: they name PATH instead. */
static void name_the_source(char *err, size_t errlen, const char *copy, const char *path)
{
    size_t nc = strlen(copy), np = strlen(path);
    for (char *at = strstr(err, copy); at && strlen(err) - nc + np < errlen; at = strstr(at + np, copy)) {
        memmove(at + np, at + nc, strlen(at + nc) + 1);
        memcpy(at, path, np);
    }
}

void asm_free(struct asm_code *code)
{
    free(code->bytes);
    free(code->regions);
    free(code->symbols);
    *code = (struct asm_code){ 0 };
}

bool asm_assemble(const char *path, enum mdl_isa isa, struct asm_code *code, char *err, size_t errlen)
{
    *code = (struct asm_code){ 0 };
    char why[128];
    int fd = safefile_read_fd(path, why, sizeof why);   /* a FIFO would hang mdlsim and the assembler */
    if (fd < 0) {
        snprintf(err, errlen, "cannot read '%s': %s", path, why);
        return false;
    }
    close(fd);
    char dir[] = "/tmp/mdlsim-asm-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        return false;
    }
    char obj[64], bin[64], log[64], copy[64], syms[64];
    snprintf(obj, sizeof obj, "%s/a.o", dir);
    snprintf(bin, sizeof bin, "%s/a.bin", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(copy, sizeof copy, "%s/marked.s", dir);
    snprintf(syms, sizeof syms, "%s/syms", dir);
    const struct isa_ops *ops = isa_get(isa);
    const char *as = ops->as, *objcopy = ops->objcopy;
    int marked = mark_regions(path, copy, code, err, errlen);
    char *as_argv[] = { (char *)as, "-o", obj, (char *)(marked > 0 ? copy : path), NULL };
    char *oc_argv[] = { (char *)objcopy, "-O", "binary", "-j", ".text", obj, bin, NULL };
    char *sym_argv[] = { (char *)ops->objdump, "-t", obj, NULL };
    bool ok = false, assembled = marked >= 0 && run(as_argv, NULL, log);
    if (marked < 0 || too_large(obj, path, err, errlen))
        ;
    else if (!assembled)
        read_log(log, as, err, errlen), name_the_source(err, errlen, copy, path);
    else if (!run(oc_argv, NULL, log))
        read_log(log, objcopy, err, errlen);
    else if (!run(sym_argv, syms, log))
        read_log(log, sym_argv[0], err, errlen);
    else if (!read_bytes(bin, code, err, errlen))
        ;
    else if (!code->len)
        snprintf(err, errlen, "'%s' assembles to no code: its .text section is empty", path);
    else
        ok = read_symbols(syms, code, err, errlen);
    if (!ok)
        asm_free(code);
    unlink(obj);
    unlink(bin);
    unlink(log);
    unlink(copy);
    unlink(syms);
    rmdir(dir);
    return ok;
}
