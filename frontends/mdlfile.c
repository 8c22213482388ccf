/* A machine given as a description file (--mdl): mdlc compiles it to C, the system C compiler to
 * a shared object, which is cached under the user's cache directory and loaded with dlopen. */
#include "mdlfile.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "launch.h"
#include "safefile.h"
#include "sha256.h"

/* runtime/mdl_machine.h, mdl/class.def, mdl/depend.def and mdl/isa.def as this mdlsim was built with them
 * (mdlfile_abi.S). */
extern const char mdlfile_machine_h[], mdlfile_class_def[], mdlfile_depend_def[], mdlfile_isa_def[];

/* A cache root leaves room for the names under it: an entry, a build directory, their files. */
enum { MANIFEST_MAX = 1 << 20, SYMBOL_MAX = 256, ROOT_MAX = PATH_MAX / 2, ENTRY_MAX = ROOT_MAX + 80 };

/* A build in the cache: the shared object, mdlc's diagnostics, and the machine's symbol. */
struct built {
    char so[PATH_MAX], diag[PATH_MAX];
    char symbol[SYMBOL_MAX];
};

/* Where the pieces of one build are: PATH_MAX for each of a handful of names. */
struct paths {
    char mdlc[PATH_MAX];
    char root[ROOT_MAX];                /* the cache root */
    char entry[ENTRY_MAX];              /* root/KEY: one description read from one place */
    char machines[PATH_MAX];            /* the bundled descriptions, a last -I; empty if none */
};

bool mdlfile_is_path(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".mdl") == 0;
}

static const char *cc_name(void)
{
    const char *cc = getenv("CC");
    return cc && *cc && !strpbrk(cc, " \t") ? cc : "cc";
}

/* mkdir -p, private to the user: the cache holds code mdlsim will load. */
static bool make_dirs(const char *path)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
        if (s)
            *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return false;
        if (!s)
            return true;
        *s = '/';
    }
}

/* The cache root: O->cache; else $XDG_CACHE_HOME/mdlsim when it is absolute (the XDG base
 * directory rule), else $HOME/.cache/mdlsim. False when none can be named. */
static bool cache_root(const struct mdlfile_opts *o, char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (o->cache)
        n = snprintf(out, len, "%s", o->cache);
    else if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s/mdlsim", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, len, "%s/.cache/mdlsim", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

/* The entry's key: what decides which files the description reads (where it is, the -I
 * directories) and what makes of them (this mdlsim, its mdlc, the C compiler), and the
 * description's own content; the files it includes are checked through the entry's manifest. */
static void entry_key(const struct mdlfile_opts *o, const struct paths *p, char key[SHA256_HEX])
{
    struct sha256 s;
    char abs[PATH_MAX];
    sha256_init(&s);
    sha256_string(&s, "mdlsim machine cache 1");
    sha256_file(&s, "/proc/self/exe");
    sha256_file(&s, p->mdlc);
    sha256_string(&s, cc_name());
    sha256_string(&s, realpath(o->path, abs) ? abs : o->path);
    for (size_t i = 0; i < o->n_dirs; i++)
        sha256_string(&s, realpath(o->dirs[i], abs) ? abs : o->dirs[i]);
    sha256_string(&s, p->machines);
    sha256_file(&s, o->path);
    sha256_hex(&s, key);
}

/* The whole of a small file, zero-terminated; NULL when it cannot be read or is too large. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return NULL;
    char *buf = malloc(MANIFEST_MAX + 1);
    size_t n = buf ? fread(buf, 1, MANIFEST_MAX + 1, fp) : 0;
    bool ok = buf && !ferror(fp) && n <= MANIFEST_MAX;
    fclose(fp);
    if (!ok) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* One manifest line: "so NAME", "diag NAME", "symbol NAME" or "file SHA256 PATH". False when a
 * listed file no longer has its content or the line is not one of these. */
static bool manifest_line(char *line, const char *entry, struct built *b)
{
    char hex[SHA256_HEX];
    if (strncmp(line, "so ", 3) == 0)
        return snprintf(b->so, sizeof b->so, "%s/%s", entry, line + 3) < (int)sizeof b->so;
    if (strncmp(line, "diag ", 5) == 0)
        return snprintf(b->diag, sizeof b->diag, "%s/%s", entry, line + 5) < (int)sizeof b->diag;
    if (strncmp(line, "symbol ", 7) == 0)
        return snprintf(b->symbol, sizeof b->symbol, "%s", line + 7) < (int)sizeof b->symbol;
    if (strncmp(line, "file ", 5) == 0 && strlen(line) > 5 + 64 && line[5 + 64] == ' ')
        return sha256_file_hex(line + 5 + 65, hex) && strncmp(hex, line + 5, 64) == 0;
    return false;
}

/* The entry's build when every file its manifest lists still has the content it had. */
static bool entry_valid(const char *entry, struct built *b)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/manifest", entry);
    char *text = slurp(path), *rest = text, *line;
    bool ok = text != NULL;
    *b = (struct built){ 0 };
    while (ok && (line = strsep(&rest, "\n")))
        ok = !*line || manifest_line(line, entry, b);
    free(text);
    return ok && b->so[0] && b->diag[0] && b->symbol[0] && access(b->so, R_OK) == 0;
}

/* Copies the file at PATH to stderr: mdlc's diagnostics, as it wrote them. */
static void replay(const char *path)
{
    char *text = slurp(path);
    if (text)
        fputs(text, stderr);
    free(text);
}

static bool write_text(const char *path, const char *text)
{
    char err[PATH_MAX + 128];
    struct safefile f = { 0 };
    bool ok = safefile_open(&f, path, err, sizeof err) && fputs(text, f.fp) >= 0 &&
              safefile_close(&f, err, sizeof err) && safefile_publish(&f, err, sizeof err);
    safefile_discard(&f);
    return ok;
}

/* mdlc on the description, its C into TMP/gen, the files it read in TMP/deps, its diagnostics
 * in TMP/diag and on stderr. False with ERR empty when the description has errors. */
static bool run_mdlc(const struct mdlfile_opts *o, const struct paths *p, const char *tmp, char *err, size_t errlen)
{
    char gen[PATH_MAX], deps[PATH_MAX], diag[PATH_MAX];
    snprintf(gen, sizeof gen, "%s/gen", tmp);
    snprintf(deps, sizeof deps, "%s/deps", tmp);
    snprintf(diag, sizeof diag, "%s/diag", tmp);
    if (mkdir(gen, 0700) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", gen, strerror(errno));
        return false;
    }
    char **argv = calloc(2 * o->n_dirs + 12, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)p->mdlc;
    for (size_t i = 0; i < o->n_dirs; i++)
        argv[n++] = "-I", argv[n++] = (char *)o->dirs[i];
    if (p->machines[0])
        argv[n++] = "-I", argv[n++] = (char *)p->machines;
    argv[n++] = "-o", argv[n++] = gen;
    argv[n++] = "--depfile", argv[n++] = deps, argv[n++] = "--deptarget", argv[n++] = "machine";
    argv[n++] = (char *)o->path;
    int rc = launch_tool(argv, NULL, diag);
    int saved = errno;
    free(argv);
    replay(diag);
    if (rc < 0)
        snprintf(err, errlen, "cannot run %s: %s", p->mdlc, strerror(saved));
    else if (rc != 0)
        err[0] = '\0';
    return rc == 0;
}

/* The headers the generated C includes, as this mdlsim was built with them. */
static bool write_headers(const char *tmp)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/inc/runtime", tmp);
    if (!make_dirs(path))
        return false;
    snprintf(path, sizeof path, "%s/inc/mdl", tmp);
    if (!make_dirs(path))
        return false;
    snprintf(path, sizeof path, "%s/inc/runtime/mdl_machine.h", tmp);
    if (!write_text(path, mdlfile_machine_h))
        return false;
    snprintf(path, sizeof path, "%s/inc/mdl/class.def", tmp);
    if (!write_text(path, mdlfile_class_def))
        return false;
    snprintf(path, sizeof path, "%s/inc/mdl/depend.def", tmp);
    if (!write_text(path, mdlfile_depend_def))
        return false;
    snprintf(path, sizeof path, "%s/inc/mdl/isa.def", tmp);
    return write_text(path, mdlfile_isa_def);
}

/* The generated header's machine symbol (its one extern declaration) and the C file beside it. */
static bool find_generated(const char *tmp, char *cfile, size_t clen, char *symbol, size_t slen)
{
    static const char decl[] = "extern const struct mdl_machine ";
    char dir[ENTRY_MAX + 8], path[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/gen", tmp);
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = slurp(path), *at = text ? strstr(text, decl) : NULL;
        size_t len = at ? strcspn(at + sizeof decl - 1, ";\n") : 0;
        if (len && len < slen) {
            snprintf(symbol, slen, "%.*s", (int)len, at + sizeof decl - 1);
            snprintf(cfile, clen, "%s/%.*s.c", dir, (int)(n - 2), e->d_name);
            found = true;
        }
        free(text);
    }
    if (d)
        closedir(d);
    return found;
}

/* The generated C as TMP/machine.so. */
static bool run_cc(const char *tmp, const char *cfile, char *err, size_t errlen)
{
    char inc[PATH_MAX], so[PATH_MAX];
    snprintf(inc, sizeof inc, "-I%s/inc/runtime", tmp);
    snprintf(so, sizeof so, "%s/machine.so", tmp);
    char *argv[] = { (char *)cc_name(), "-std=c11", "-O0", "-fPIC", "-shared", inc, "-o", so, (char *)cfile, NULL };
    int rc = launch_tool(argv, NULL, NULL);
    if (rc < 0)
        snprintf(err, errlen, "cannot run the C compiler '%s': %s (install gcc, or set CC)", argv[0], strerror(errno));
    else if (rc != 0)
        snprintf(err, errlen, "the C compiler '%s' failed on the generated %s (status %d)", argv[0], cfile, rc);
    return rc == 0;
}

/* The files mdlc read, from the depfile's "PATH:" lines (make's escapes undone), one "file"
 * line each with its content's hash, appended to MANIFEST. */
static bool list_files(const char *tmp, char *manifest, size_t len)
{
    char path[PATH_MAX], file[PATH_MAX], abs[PATH_MAX], hex[SHA256_HEX];
    snprintf(path, sizeof path, "%s/deps", tmp);
    char *text = slurp(path), *rest = text, *line;
    bool ok = text != NULL;
    strsep(&rest, "\n");                /* the rule itself: "machine: FILES" */
    while (ok && (line = strsep(&rest, "\n")) && *line) {
        size_t n = 0;
        for (const char *c = line; *c && !(c[0] == ':' && !c[1]) && n + 1 < sizeof file; c++)
            file[n++] = (*c == '\\' || (*c == '$' && c[1] == '$')) && c[1] ? *++c : *c;
        file[n] = '\0';
        size_t used = strlen(manifest);
        ok = realpath(file, abs) && !strchr(abs, '\n') && sha256_file_hex(abs, hex) &&
             snprintf(manifest + used, len - used, "file %s %s\n", hex, abs) < (int)(len - used);
    }
    free(text);
    return ok;
}

/* Moves TMP's shared object and diagnostics into the entry, then its manifest: a reader sees
 * the old manifest or the new one, and either names files that exist. */
static bool publish(const struct paths *p, const char *tmp, const char *symbol, struct built *b)
{
    char *manifest = calloc(1, MANIFEST_MAX), key[SHA256_HEX], path[PATH_MAX];
    bool ok = manifest && list_files(tmp, manifest, MANIFEST_MAX);
    if (ok) {
        struct sha256 s;
        sha256_init(&s);
        sha256_string(&s, manifest);
        sha256_file(&s, strcat(strcpy(path, tmp), "/machine.so"));
        sha256_hex(&s, key);
        snprintf(b->so, sizeof b->so, "%s/%s.so", p->entry, key);
        snprintf(b->diag, sizeof b->diag, "%s/%s.diag", p->entry, key);
        snprintf(b->symbol, sizeof b->symbol, "%s", symbol);
        size_t used = strlen(manifest);
        snprintf(manifest + used, MANIFEST_MAX - used, "so %s.so\ndiag %s.diag\nsymbol %s\n", key, key, symbol);
        ok = make_dirs(p->entry) && rename(path, b->so) == 0 &&
             rename(strcat(strcpy(path, tmp), "/diag"), b->diag) == 0 &&
             write_text(strcat(strcpy(path, p->entry), "/manifest"), manifest);
    }
    free(manifest);
    return ok;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Builds the description into P->entry, in a private directory under P->root first. */
static bool build(const struct mdlfile_opts *o, const struct paths *p, struct built *b, char *err, size_t errlen)
{
    char tmp[ENTRY_MAX], cfile[PATH_MAX], symbol[SYMBOL_MAX];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snprintf(tmp, sizeof tmp, "%s/tmp.XXXXXX", p->root);
    if (!make_dirs(p->root) || !mkdtemp(tmp)) {
        snprintf(err, errlen, "cannot create a directory in the cache %s: %s", p->root, strerror(errno));
        return false;
    }
    bool ok = run_mdlc(o, p, tmp, err, errlen);
    if (ok && !(write_headers(tmp) && find_generated(tmp, cfile, sizeof cfile, symbol, sizeof symbol)))
        ok = false, snprintf(err, errlen, "cannot prepare mdlc's output for the C compiler in %s", tmp);
    ok = ok && run_cc(tmp, cfile, err, errlen);
    if (ok && !publish(p, tmp, symbol, b))
        ok = false, snprintf(err, errlen, "cannot store the compiled machine in the cache %s: %s", p->entry,
                             strerror(errno));
    nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    if (ok)
        fprintf(stderr, "mdlsim: compiled %s in %.1f s; cached in %s\n", o->path, seconds_since(&t0), p->entry);
    return ok;
}

static const struct mdl_machine *load(const struct built *b, char *err, size_t errlen)
{
    void *h = dlopen(b->so, RTLD_NOW | RTLD_LOCAL);
    const struct mdl_machine *m = h ? dlsym(h, b->symbol) : NULL;
    if (!m)
        snprintf(err, errlen, "cannot load the compiled machine %s: %s", b->so, dlerror());
    return m;
}

/* The tools beside mdlsim, and the bundled descriptions when mdlsim runs from its build tree. */
static bool find_tools(const struct mdlfile_opts *o, struct paths *p, char *err, size_t errlen)
{
    struct stat st;
    char abs[PATH_MAX];
    snprintf(p->mdlc, sizeof p->mdlc, "%s/mdlc", o->tools);
    if (access(p->mdlc, X_OK) != 0) {
        snprintf(err, errlen, "mdlc is not next to mdlsim (looked for %s; run make)", p->mdlc);
        return false;
    }
    snprintf(p->machines, sizeof p->machines, "%s/../machines", o->tools);
    if (!realpath(p->machines, abs) || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode))
        p->machines[0] = '\0';
    return true;
}

const struct mdl_machine *mdlfile_load(const struct mdlfile_opts *o, char *err, size_t errlen)
{
    struct paths p;
    struct built b;
    struct stat st;
    char key[SHA256_HEX];
    if (stat(o->path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot read the machine description '%s': %s", o->path,
                 S_ISREG(st.st_mode) || errno == ENOENT ? strerror(errno) : "not a regular file");
        return NULL;
    }
    if (!find_tools(o, &p, err, errlen))
        return NULL;
    if (!cache_root(o, p.root, sizeof p.root)) {
        snprintf(err, errlen, "no cache directory: set XDG_CACHE_HOME or HOME to an absolute path");
        return NULL;
    }
    entry_key(o, &p, key);
    snprintf(p.entry, sizeof p.entry, "%s/%s", p.root, key);
    if (entry_valid(p.entry, &b))
        replay(b.diag);
    else if (!build(o, &p, &b, err, errlen))
        return NULL;
    return load(&b, err, errlen);
}
