/* A machine given as a description file (--mdl): mdlc compiles it to C, the system C compiler to
 * a shared object, which is cached under the user's cache directory and loaded with dlopen.
 * The cache is trusted as ssh trusts its files: owned by the user, writable by no one else (and its
 * parents by no one but the user or root, unless sticky), and an object loaded only when its
 * content has the hash its name gives. */
#include "mdlfile.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "proc.h"
#include "alloc.h"
#include "safefile.h"
#include "sha256.h"

/* runtime/mdl_machine.h, mdl/class.def, mdl/depend.def, mdl/isa.def, mdl/isa_enum.h and
 * mdl/param.def as this mdlsim was built with them (mdlfile_abi.S). */
extern const char mdlfile_machine_h[], mdlfile_class_def[], mdlfile_depend_def[], mdlfile_isa_def[],
    mdlfile_isa_enum_h[], mdlfile_param_def[];

/* A cache root leaves room for the names under it: an entry, a build directory, their files.
 * A build directory untouched for STALE_SECONDS belongs to a build that was killed. */
enum { MANIFEST_MAX = 1 << 20, SYMBOL_MAX = 256, ROOT_MAX = PATH_MAX / 2, ENTRY_MAX = ROOT_MAX + 80 };
enum { STALE_SECONDS = 3600 };

/* What became of loading a cached build: refused (an owner or mode no one should load code
 * from: an error), or damaged (content not what was built: built again). */
enum load_outcome { LOAD_OK, LOAD_DAMAGED, LOAD_REFUSED };

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

/* Who besides the owner may write what has MODE: "group", "others" or both. */
static const char *writers(mode_t mode)
{
    return (mode & S_IWGRP) && (mode & S_IWOTH) ? "group and others" : mode & S_IWGRP ? "group" : "others";
}

/* Whether ST (WHAT at PATH) may hold code mdlsim loads: owned by the user, writable by no one
 * else. ERR says what is wrong otherwise. */
static bool trusted(const char *what, const char *path, const struct stat *st, char *err, size_t errlen)
{
    const char *who = writers(st->st_mode);
    if (st->st_uid != geteuid())
        snprintf(err, errlen, "the cache %s %s is owned by uid %u, not by you (uid %u): mdlsim loads code from it",
                 what, path, (unsigned)st->st_uid, (unsigned)geteuid());
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        snprintf(err, errlen, "the cache %s %s is writable by %s (mode %04o): mdlsim loads code from it; "
                 "run chmod go-w on it", what, path, who, (unsigned)(st->st_mode & 07777));
    return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether the directory at PATH exists and may hold code mdlsim loads (ERR otherwise). */
static bool trusted_dir(const char *path, char *err, size_t errlen)
{
    struct stat st = { 0 };
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the cache directory %s: %s", path, S_ISDIR(st.st_mode) || errno == ENOENT ?
                 strerror(errno) : "not a directory");
        return false;
    }
    return trusted("directory", path, &st, err, errlen);
}

/* Whether every directory above the cache root ROOT, up to '/', is one only the user or root can
 * change, as ssh and sudo ask of the directories above their files: whoever may write a parent
 * can move the cache aside and put another in its place. A sticky directory (/tmp) lets no one
 * move what is not theirs, so writable by all is fine there. ERR names the first that is not. */
static bool trusted_parents(const char *root, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (!realpath(root, path)) {
        snprintf(err, errlen, "the cache directory %s: %s", root, strerror(errno));
        return false;
    }
    for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
        slash[slash == path] = '\0';     /* the parent; "/" is the last */
        struct stat st;
        if (stat(path, &st) != 0) {
            snprintf(err, errlen, "the cache's parent directory %s: %s", path, strerror(errno));
            return false;
        }
        if (st.st_uid != geteuid() && st.st_uid != 0) {
            snprintf(err, errlen, "the cache's parent directory %s is owned by uid %u, neither you (uid %u) nor root: "
                     "its owner could move the cache aside", path, (unsigned)st.st_uid, (unsigned)geteuid());
            return false;
        }
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
            snprintf(err, errlen, "the cache's parent directory %s is writable by %s (mode %04o) and not sticky: "
                     "they could move the cache aside; run chmod go-w on it", path, writers(st.st_mode),
                     (unsigned)(st.st_mode & 07777));
            return false;
        }
        if (slash == path)
            return true;
    }
    return true;
}

/* The cache's file at PATH open for reading: a regular file, not a symbolic link, trusted. -1
 * with ERR otherwise; *REFUSED when it exists but may not be trusted. */
static int open_trusted(const char *path, bool *refused, char *err, size_t errlen)
{
    struct stat st;
    /* O_NONBLOCK: a FIFO put in the cache's place is refused, not waited on */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    *refused = false;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot read the cached %s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
    } else if (!trusted("file", path, &st, err, errlen)) {
        *refused = true;
    } else {
        return fd;
    }
    if (fd >= 0)
        close(fd);
    return -1;
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

/* The whole of a small stream, zero-terminated, and FP closed; NULL when it cannot be read or is
 * too large. */
static char *slurp_stream(FILE *fp)
{
    char *buf = alloc_resize(NULL, MANIFEST_MAX + 1, 1);
    size_t n = fread(buf, 1, MANIFEST_MAX + 1, fp);
    bool ok = !ferror(fp) && n <= MANIFEST_MAX;
    fclose(fp);
    if (!ok) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* The whole of a small file, zero-terminated; NULL when it cannot be read or is too large. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "re");
    return fp ? slurp_stream(fp) : NULL;
}

/* Whether NAME is a name a manifest may give a file of its entry: the SHA-256 of the object, in
 * hex, and SUFFIX; nothing with a '/' or "..", nothing outside the entry. */
static bool entry_name(const char *name, const char *suffix)
{
    return strspn(name, "0123456789abcdef") == SHA256_HEX - 1 && strcmp(name + SHA256_HEX - 1, suffix) == 0;
}

/* One manifest line: "so NAME", "diag NAME", "symbol NAME" or "file SHA256 PATH". False when a
 * listed file no longer has its content or the line is not one of these. */
static bool manifest_line(char *line, const char *entry, struct built *b)
{
    char hex[SHA256_HEX];
    if (strncmp(line, "so ", 3) == 0)
        return entry_name(line + 3, ".so") && snprintf(b->so, sizeof b->so, "%s/%s", entry, line + 3) < (int)sizeof b->so;
    if (strncmp(line, "diag ", 5) == 0)
        return entry_name(line + 5, ".diag") &&
               snprintf(b->diag, sizeof b->diag, "%s/%s", entry, line + 5) < (int)sizeof b->diag;
    if (strncmp(line, "symbol ", 7) == 0)
        return snprintf(b->symbol, sizeof b->symbol, "%s", line + 7) < (int)sizeof b->symbol;
    if (strncmp(line, "file ", 5) == 0 && strlen(line) > 5 + 64 && line[5 + 64] == ' ')
        return sha256_file_hex(line + 5 + 65, hex) && strncmp(hex, line + 5, 64) == 0;
    return false;
}

/* The entry's build when the entry is trusted and every file its manifest lists still has the
 * content it had. *REFUSED (with ERR) when the entry or its manifest may not be trusted. */
static bool entry_valid(const char *entry, struct built *b, bool *refused, char *err, size_t errlen)
{
    char path[PATH_MAX];
    struct stat st;
    *b = (struct built){ 0 };
    *refused = stat(entry, &st) == 0 && !trusted_dir(entry, err, errlen);
    snprintf(path, sizeof path, "%s/manifest", entry);
    int fd = *refused ? -1 : open_trusted(path, refused, err, errlen);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !fp)
        close(fd);
    char *text = fp ? slurp_stream(fp) : NULL, *rest = text, *line;
    bool ok = text != NULL;
    while (ok && (line = strsep(&rest, "\n")))
        ok = !*line || manifest_line(line, entry, b);
    free(text);
    return ok && b->so[0] && b->diag[0] && b->symbol[0];
}

/* mdlc's diagnostics, the file at DIAG, to O->diagnostics (stderr as mdlc wrote them when NULL). */
static void replay(const struct mdlfile_opts *o, const char *diag)
{
    char *text = slurp(diag);
    if (text && o->diagnostics)
        o->diagnostics(text, o->path, o->arg);
    else if (text)
        fputs(text, stderr);
    free(text);
}

/* TEXT as the file at PATH, private to the user whatever the umask: the cache's files must be
 * writable by no one else to be trusted again. */
static bool write_text(const char *path, const char *text)
{
    char err[PATH_MAX + 128];
    struct safefile f = { 0 };
    bool ok = safefile_open(&f, path, err, sizeof err) && fchmod(fileno(f.fp), 0600) == 0 && fputs(text, f.fp) >= 0 &&
              safefile_close(&f, err, sizeof err) && safefile_publish(&f, err, sizeof err);
    safefile_discard(&f);
    return ok;
}

/* ARGV (the tool WHAT) with its errors into DIAG (NULL: stderr); unless it exits 0, ERR says how
 * it ended. *SIG: a fatal signal mdlsim received meanwhile (proc_run). */
static struct proc_end run_tool(char *const argv[], const char *diag, const char *what, int *sig, char *err,
                                  size_t errlen)
{
    struct proc_end e = proc_run(argv, NULL, diag);
    char how[128];
    *sig = e.interrupted;
    if (e.status != 0)
        snprintf(err, errlen, "%s %s", what, proc_describe(&e, how, sizeof how));
    return e;
}

/* mdlc on the description, its C into TMP/gen, the files it read in TMP/deps, its diagnostics
 * in TMP/diag and on stderr. False with ERR empty when the description has errors. */
static bool run_mdlc(const struct mdlfile_opts *o, const struct paths *p, const char *tmp, int *sig, char *err,
                     size_t errlen)
{
    char gen[PATH_MAX], deps[PATH_MAX], diag[PATH_MAX];
    snprintf(gen, sizeof gen, "%s/gen", tmp);
    snprintf(deps, sizeof deps, "%s/deps", tmp);
    snprintf(diag, sizeof diag, "%s/diag", tmp);
    if (mkdir(gen, 0700) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", gen, strerror(errno));
        return false;
    }
    char **argv = alloc_zeroed(2 * o->n_dirs + 12, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)p->mdlc;
    for (size_t i = 0; i < o->n_dirs; i++)
        argv[n++] = "-I", argv[n++] = (char *)o->dirs[i];
    if (p->machines[0])
        argv[n++] = "-I", argv[n++] = (char *)p->machines;
    argv[n++] = "-o", argv[n++] = gen;
    argv[n++] = "--depfile", argv[n++] = deps, argv[n++] = "--deptarget", argv[n++] = "machine";
    argv[n++] = "--";                   /* a path starting with '-' is a path, not an option */
    argv[n++] = (char *)o->path;
    struct proc_end e = run_tool(argv, diag, p->mdlc, sig, err, errlen);
    free(argv);
    replay(o, diag);
    /* an exit status: mdlc's own diagnostics, just replayed, say what is wrong */
    if (e.status > 0)
        err[0] = '\0';
    return e.status == 0;
}

/* The headers the generated C includes, as this mdlsim was built with them. */
static bool write_headers(const char *tmp)
{
    static const struct { const char *rel, *text; } headers[] = {
        { "runtime/mdl_machine.h", mdlfile_machine_h }, { "mdl/class.def", mdlfile_class_def },
        { "mdl/depend.def", mdlfile_depend_def }, { "mdl/isa.def", mdlfile_isa_def },
        { "mdl/isa_enum.h", mdlfile_isa_enum_h }, { "mdl/param.def", mdlfile_param_def },
    };
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/inc/runtime", tmp);
    if (!make_dirs(path))
        return false;
    snprintf(path, sizeof path, "%s/inc/mdl", tmp);
    if (!make_dirs(path))
        return false;
    for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
        snprintf(path, sizeof path, "%s/inc/%s", tmp, headers[i].rel);
        if (!write_text(path, headers[i].text))
            return false;
    }
    return true;
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
static bool run_cc(const char *tmp, const char *cfile, int *sig, char *err, size_t errlen)
{
    char inc[PATH_MAX], so[PATH_MAX], what[PATH_MAX];
    snprintf(inc, sizeof inc, "-I%s/inc/runtime", tmp);
    snprintf(so, sizeof so, "%s/machine.so", tmp);
    /* CFILE is under the cache root, an absolute path: never taken for an option */
    char *argv[] = { (char *)cc_name(), "-std=c11", "-O0", "-fPIC", "-shared", inc, "-o", so, (char *)cfile, NULL };
    snprintf(what, sizeof what, "the C compiler '%s'", argv[0]);
    struct proc_end e = run_tool(argv, NULL, what, sig, err, errlen);
    size_t n = strlen(err);
    if (e.status != 0 && n < errlen)
        snprintf(err + n, errlen - n, e.error ? " (install gcc, or set CC)" : " on the generated %s", cfile);
    return e.status == 0;
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
 * the old manifest or the new one, and either names files that exist. The object is named by its
 * content's SHA-256, which load checks before it loads it. */
static bool publish(const struct paths *p, const char *tmp, const char *symbol, struct built *b)
{
    char *manifest = alloc_zeroed(1, MANIFEST_MAX), key[SHA256_HEX], path[PATH_MAX];
    bool ok = list_files(tmp, manifest, MANIFEST_MAX) &&
              sha256_file_hex(strcat(strcpy(path, tmp), "/machine.so"), key);
    if (ok) {
        snprintf(b->so, sizeof b->so, "%s/%s.so", p->entry, key);
        snprintf(b->diag, sizeof b->diag, "%s/%s.diag", p->entry, key);
        snprintf(b->symbol, sizeof b->symbol, "%s", symbol);
        size_t used = strlen(manifest);
        snprintf(manifest + used, MANIFEST_MAX - used, "so %s.so\ndiag %s.diag\nsymbol %s\n", key, key, symbol);
        /* the linker's mode follows the umask, which may let the group write */
        ok = make_dirs(p->entry) && chmod(path, 0700) == 0 && rename(path, b->so) == 0 &&
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

/* Removes the build directories under ROOT (tmp.XXXXXX) that no build has touched for an hour:
 * those of builds killed where they could not clean up (SIGKILL, a crash, a power cut). */
static void sweep(const char *root)
{
    DIR *d = opendir(root);
    struct dirent *e;
    char path[ENTRY_MAX];
    struct stat st;
    time_t now = time(NULL);
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "tmp.", 4) != 0 || strlen(e->d_name) != 10)
            continue;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && now - st.st_mtime > STALE_SECONDS)
            nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (d)
        closedir(d);
}

/* The steps of a build in TMP, then P->entry; *SIG: a fatal signal that stopped one of them. */
static bool build_in(const struct mdlfile_opts *o, const struct paths *p, const char *tmp, struct built *b, int *sig,
                     char *err, size_t errlen)
{
    char cfile[PATH_MAX], symbol[SYMBOL_MAX];
    if (!run_mdlc(o, p, tmp, sig, err, errlen))
        return false;
    if (!(write_headers(tmp) && find_generated(tmp, cfile, sizeof cfile, symbol, sizeof symbol))) {
        snprintf(err, errlen, "cannot prepare mdlc's output for the C compiler in %s", tmp);
        return false;
    }
    if (!run_cc(tmp, cfile, sig, err, errlen))
        return false;
    if (!publish(p, tmp, symbol, b)) {
        snprintf(err, errlen, "cannot store the compiled machine in the cache %s: %s", p->entry, strerror(errno));
        return false;
    }
    return true;
}

/* Builds the description into P->entry, in a private directory under P->root first. The fatal
 * signals wait while it is built: one that comes kills the tool running, the directory is removed,
 * and then the signal has its effect. */
static bool build(const struct mdlfile_opts *o, const struct paths *p, struct built *b, char *err, size_t errlen)
{
    char tmp[ENTRY_MAX];
    struct timespec t0;
    sigset_t fatal, old;
    int sig = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sweep(p->root);
    proc_fatal_signals(&fatal);
    sigprocmask(SIG_BLOCK, &fatal, &old);
    snprintf(tmp, sizeof tmp, "%s/tmp.XXXXXX", p->root);
    bool made = mkdtemp(tmp) != NULL;
    if (!made)
        snprintf(err, errlen, "cannot create a directory in the cache %s: %s", p->root, strerror(errno));
    bool ok = made && build_in(o, p, tmp, b, &sig, err, errlen);
    if (made)
        nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (sig)
        raise(sig);
    if (ok)
        fprintf(stderr, "mdlsim: compiled %s in %.1f s; cached in %s\n", o->label ? o->label : o->path,
                seconds_since(&t0), p->entry);
    return ok;
}

/* Whether M, found in an object by its symbol, is a machine table of this mdlsim: an object of
 * the size of struct mdl_machine, starting with its magic and ABI words. A foreign object with the
 * right symbol is refused here, before any of its fields is read as a pointer. */
static bool machine_table(const struct mdl_machine *m, const struct built *b, char *err, size_t errlen)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;        /* ELF32_ST_TYPE and ELF64_ST_TYPE are one macro */
    bool sized = dladdr1(m, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size == sizeof *m &&
                 ELF64_ST_TYPE(sym->st_info) == STT_OBJECT;
    if (!sized)
        snprintf(err, errlen, "%s in %s is not a machine table of this mdlsim (an object of %zu bytes, not %zu)",
                 b->symbol, b->so, sym ? (size_t)sym->st_size : 0, sizeof *m);
    else if (m->magic != MDL_MACHINE_MAGIC || m->abi != MDL_MACHINE_ABI)
        snprintf(err, errlen, "%s in %s is not a machine table of this mdlsim (magic 0x%08x, ABI 0x%08x; "
                 "this mdlsim reads 0x%08x, 0x%08x)", b->symbol, b->so, m->magic, m->abi, MDL_MACHINE_MAGIC,
                 (unsigned)MDL_MACHINE_ABI);
    return sized && m->magic == MDL_MACHINE_MAGIC && m->abi == MDL_MACHINE_ABI;
}

/* The object of B, loaded only when it may be trusted and has the content its name gives (the
 * check on the open file, which dlopen then maps: no other file can take its place in between),
 * then its machine table checked. */
static enum load_outcome load(const struct built *b, const struct mdl_machine **m, char *err, size_t errlen)
{
    bool refused;
    char hex[SHA256_HEX], fdpath[32];
    struct sha256 s;
    int fd = open_trusted(b->so, &refused, err, errlen);
    if (fd < 0)
        return refused ? LOAD_REFUSED : LOAD_DAMAGED;
    sha256_init(&s);
    bool whole = sha256_fd(&s, fd);
    sha256_hex(&s, hex);
    if (!whole || strncmp(hex, strrchr(b->so, '/') + 1, SHA256_HEX - 1) != 0) {
        snprintf(err, errlen, "the cached %s does not have the content its name gives (SHA-256 %s)", b->so, hex);
        close(fd);
        return LOAD_DAMAGED;
    }
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    void *h = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
    *m = h ? dlsym(h, b->symbol) : NULL;
    if (!*m) {
        const char *why = dlerror(), *own = why ? strstr(why, fdpath) : NULL;
        /* dlerror names the descriptor; the reader wants the file */
        snprintf(err, errlen, "cannot load the compiled machine %s: %s", b->so,
                 own ? own + strlen(fdpath) + strspn(own + strlen(fdpath), ": ") : why ? why : "no such symbol");
    }
    /* The descriptor stays open while its object is loaded: the dynamic linker knows the object by
     * the name /proc/self/fd/N, and would take a later object opened as the same N for it (--set on
     * --mdl FILE loads FILE's machine, then the machine with the values) */
    if (*m && machine_table(*m, b, err, errlen))
        return LOAD_OK;
    if (h)
        dlclose(h);
    close(fd);
    return LOAD_DAMAGED;
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

/* The entry's machine: the cached build when it passes every check, else a new build. A cached
 * build whose content is wrong is built again; one that may not be trusted is an error. */
static const struct mdl_machine *load_entry(const struct mdlfile_opts *o, const struct paths *p, char *err,
                                            size_t errlen)
{
    struct built b;
    const struct mdl_machine *m = NULL;
    bool refused, valid = entry_valid(p->entry, &b, &refused, err, errlen);
    if (refused)
        return NULL;
    if (valid) {
        enum load_outcome got = load(&b, &m, err, errlen);
        if (got == LOAD_OK)
            replay(o, b.diag);
        if (got != LOAD_DAMAGED)
            return m;
        fprintf(stderr, "mdlsim: warning: %s; building it again\n", err);
        unlink(b.so);
    }
    if (!build(o, p, &b, err, errlen))
        return NULL;
    return load(&b, &m, err, errlen) == LOAD_OK ? m : NULL;
}

/* O->text as a description in the cache root, ROOT/SHA256.mdl (its name in PATH): where mdlc can
 * read it, as trusted as the builds it makes, and the same path for the same text, so that its
 * build is found again. */
static bool write_description(const struct mdlfile_opts *o, const char *root, char *path, size_t len, char *err,
                              size_t errlen)
{
    struct sha256 s;
    char hex[SHA256_HEX];
    sha256_init(&s);
    sha256_string(&s, o->text);
    sha256_hex(&s, hex);
    snprintf(path, len, "%s/%s.mdl", root, hex);
    if (write_text(path, o->text))
        return true;
    snprintf(err, errlen, "cannot write %s in the cache: %s", o->label ? o->label : "the description", path);
    return false;
}

/* The cache root, made when it is not there, and trusted (ERR otherwise). */
static bool open_root(const struct mdlfile_opts *o, struct paths *p, char *err, size_t errlen)
{
    if (!cache_root(o, p->root, sizeof p->root)) {
        snprintf(err, errlen, "no cache directory: set XDG_CACHE_HOME or HOME to an absolute path");
        return false;
    }
    if (!make_dirs(p->root)) {
        snprintf(err, errlen, "cannot create the cache directory %s: %s", p->root, strerror(errno));
        return false;
    }
    return trusted_dir(p->root, err, errlen) && trusted_parents(p->root, err, errlen);
}

const struct mdl_machine *mdlfile_load(const struct mdlfile_opts *o, char *err, size_t errlen)
{
    struct paths p;
    struct stat st;
    char key[SHA256_HEX], text_path[ENTRY_MAX + SHA256_HEX + 8];
    if (o->text) {
        struct mdlfile_opts from_file = *o;
        if (!find_tools(o, &p, err, errlen) || !open_root(o, &p, err, errlen) ||
            !write_description(o, p.root, text_path, sizeof text_path, err, errlen))
            return NULL;
        from_file.text = NULL;
        from_file.path = text_path;
        const struct mdl_machine *m = mdlfile_load(&from_file, err, errlen);
        if (!m)
            unlink(text_path);          /* as for a file: nothing is cached for a description that fails */
        return m;
    }
    if (stat(o->path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot read the machine description '%s': %s", o->path,
                 S_ISREG(st.st_mode) || errno == ENOENT ? strerror(errno) : "not a regular file");
        return NULL;
    }
    if (!find_tools(o, &p, err, errlen) || !open_root(o, &p, err, errlen))
        return NULL;
    entry_key(o, &p, key);
    snprintf(p.entry, sizeof p.entry, "%s/%s", p.root, key);
    return load_entry(o, &p, err, errlen);
}
