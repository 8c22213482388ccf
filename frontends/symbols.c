/* The objects of one guest process as libdwfl sees them, each reported at the load bias of its
 * mapping: a pc's function and source line, and a function's address range by name. */
#include "symbols.h"
#include "alloc.h"
#include "suggest.h"
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A function of a module's symbol table at its guest addresses. libdwfl's own search for the
 * symbol of an address reads the whole table each time (a millisecond in glibc's 10,000 symbols,
 * for every pc no symbol covers); the table read once and sorted answers in a binary search. */
struct symbols_fn {
    uint64_t lo, hi;            /* LO first: first_above reads it */
    uint64_t reach;             /* the highest end of this function and those sorted before it */
    const char *name;           /* libdwfl's string, or NAME_COPY */
    char *name_copy;            /* the name without a default version's "@@VERSION" */
    int rank;                   /* among aliases, the better name sorts later: one with a size */
    bool sized;                 /* its symbol has a size (else HI is where fix_ends puts it) */
};

struct symbols_module {
    char *path;
    const char *name;           /* the file name inside PATH */
    char *error;                /* why PATH is no ELF object (an unnamed module), else NULL */
    bool has_id;                /* the file exists: DEV and INO identify it */
    dev_t dev;
    ino_t ino;
    Dwfl_Module *mod;           /* NULL for an unnamed module */
    uint64_t bias;
    struct symbols_fn *fns;     /* sorted by start, then rank */
    size_t nfns;
    bool fns_read;
    uint64_t entry;             /* its entry point (_start) at guest addresses, 0: none (read with FNS) */
};

/* Guest addresses [lo, hi) hold MODULE: a node of the tree of ranges. */
struct symbols_range {
    uint64_t lo, hi;
    int module;
};

/* A module as known_module finds it: by its file's device and inode, or by its path. */
struct symbols_key {
    dev_t dev;
    ino_t ino;
    const char *path;           /* the module's own copy */
    int module;
};

struct symbols {
    Dwfl_Callbacks callbacks;   /* libdwfl keeps a pointer to them */
    char *debuginfo_path;       /* NULL: the standard places */
    Dwfl *dwfl;
    struct symbols_module *mods;
    int nmods, modcap;
    /* Balanced trees (tsearch), so that a trace of many mappings costs n log n: the ranges,
     * disjoint, ordered by address (two overlapping ranges compare equal); the modules by file
     * (those whose file existed) and by path (the first module of each path). */
    void *ranges, *by_file, *by_path;
    struct symbols_lines *lines;    /* shared with other analyses of the program, or NULL */
};

/* An instruction of an object (by its file) and its source line (FILE NULL: none). */
struct symbols_line {
    dev_t dev;
    ino_t ino;
    uint64_t address;           /* in the object, without the load bias */
    char *file;
    unsigned line;
};

struct symbols_lines {
    pthread_mutex_t lock;       /* over TREE */
    pthread_mutex_t held;       /* symbols_lines_hold's */
    void *tree;                 /* of struct symbols_line (tsearch) */
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    *cap = need * 2;
    return alloc_resize(p, *cap, size);
}

struct symbols *symbols_new(void)
{
    struct symbols *s = alloc_zeroed(1, sizeof *s);
    /* Offline: objects are files reported where the guest mapped them (so find_elf is not
     * called), and their separate debug files are found by build ID under /usr/lib/debug like gdb
     * finds them, and only there: libdwfl's standard search goes on to the debuginfod servers
     * DEBUGINFOD_URLS names, downloading (or timing out) for each object without a debug file. */
    s->callbacks = (Dwfl_Callbacks){
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_build_id_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &s->debuginfo_path,
    };
    s->dwfl = dwfl_begin(&s->callbacks);
    if (!s->dwfl) {
        free(s);
        return NULL;
    }
    return s;
}

void symbols_free(struct symbols *s)
{
    if (!s)
        return;
    dwfl_end(s->dwfl);
    for (int i = 0; i < s->nmods; i++) {
        struct symbols_module *m = &s->mods[i];
        for (size_t j = 0; j < m->nfns; j++)
            free(m->fns[j].name_copy);
        free(m->fns);
        free(m->path);
        free(m->error);
    }
    free(s->mods);
    tdestroy(s->ranges, free);
    tdestroy(s->by_file, free);
    tdestroy(s->by_path, free);
    free(s);
}

/* ---- mapping --------------------------------------------------------------------------------- */

static int file_order(const void *a, const void *b)
{
    const struct symbols_key *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int path_order(const void *a, const void *b)
{
    return strcmp(((const struct symbols_key *)a)->path, ((const struct symbols_key *)b)->path);
}

/* The module PATH's file already is (by device and inode when it exists and the module's did,
 * else by path), or -1. */
static int known_module(const struct symbols *s, const char *path)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;
    struct symbols_key key = { .dev = exists ? st.st_dev : 0, .ino = exists ? st.st_ino : 0, .path = path };
    void *const *hit = exists ? tfind(&key, &s->by_file, file_order) : NULL;
    if (hit)
        return ((const struct symbols_key *)*hit)->module;
    hit = tfind(&key, &s->by_path, path_order);
    int m = hit ? ((const struct symbols_key *)*hit)->module : -1;
    return m >= 0 && !(exists && s->mods[m].has_id) ? m : -1;
}

/* Module M in the tree ROOT by ORDER (a module already there for its key stays). */
static void remember(void **root, const struct symbols_module *m, int index, int (*order)(const void *, const void *))
{
    struct symbols_key *k = alloc_resize(NULL, 1, sizeof *k);
    *k = (struct symbols_key){ m->dev, m->ino, m->path, index };
    void **at = tsearch(k, root, order);
    if (!at)
        alloc_out_of_memory(1, 3 * sizeof(void *));     /* tsearch's own node */
    if (*at != k)
        free(k);
}

/* The PT_LOAD the mapping of LEN bytes at file offset OFFSET holds: the dynamic loader maps
 * each segment from the page that holds its start, so the first segment starting inside the
 * mapping; failing that (a mapping starting inside a segment), the segment holding OFFSET. */
static bool mapped_segment(Elf *elf, uint64_t offset, uint64_t len, GElf_Phdr *out)
{
    size_t n;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    bool found = false;
    for (size_t pass = 0; pass < 2 && !found; pass++)
        for (size_t i = 0; i < n && !found; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
                continue;
            found = pass == 0 ? ph.p_offset >= offset && ph.p_offset - offset < len
                              : ph.p_offset <= offset && offset - ph.p_offset < ph.p_filesz;
            if (found)
                *out = ph;
        }
    return found;
}

/* The load bias of PATH mapped with its file offset OFFSET at ADDR (LEN 0: read, not mapped), or
 * a reason it has none. */
static const char *load_bias(const char *path, uint64_t addr, uint64_t len, uint64_t offset, uint64_t *bias)
{
    /* a trace names its files: a FIFO or a device there must not block or be read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return strerror(errno);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return "not a regular file";
    }
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Phdr ph;
    const char *problem = NULL;
    if (!elf || elf_kind(elf) != ELF_K_ELF)
        problem = "not an ELF object";
    else if (!len)
        *bias = 0;              /* read, not mapped: where its headers say */
    else if (!mapped_segment(elf, offset, len, &ph))
        problem = "no loadable segment at the mapped file offset";  /* not what a loader maps */
    else
        *bias = addr + (ph.p_offset - offset) - ph.p_vaddr;
    elf_end(elf);
    close(fd);
    return problem;
}

/* Reports PATH to libdwfl at BIAS (an executable that is not position independent is where its
 * headers say: libdwfl ignores BIAS for it); the module, or NULL with libdwfl's reason. */
static Dwfl_Module *report(Dwfl *dwfl, const char *path, uint64_t bias, const char **problem)
{
    dwfl_report_begin_add(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, -1, bias, true);
    if (dwfl_report_end(dwfl, NULL, NULL) != 0 || !mod) {
        *problem = dwfl_errmsg(-1);
        return NULL;
    }
    return mod;
}

static int add_module(struct symbols *s, const char *path, uint64_t addr, uint64_t len, uint64_t offset)
{
    size_t cap = (size_t)s->modcap;
    s->mods = grow(s->mods, &cap, (size_t)s->nmods + 1, sizeof *s->mods);
    s->modcap = (int)cap;
    struct symbols_module *m = &s->mods[s->nmods];
    struct stat st;
    *m = (struct symbols_module){ .path = alloc_strdup(path), .has_id = stat(path, &st) == 0 };
    m->dev = m->has_id ? st.st_dev : 0;
    m->ino = m->has_id ? st.st_ino : 0;
    const char *slash = strrchr(m->path, '/');
    m->name = slash ? slash + 1 : m->path;
    uint64_t bias = 0;
    const char *problem = load_bias(path, addr, len, offset, &bias);
    if (!problem)
        m->mod = report(s->dwfl, path, bias, &problem);
    Dwarf_Addr actual = bias;
    if (m->mod && dwfl_module_getelf(m->mod, &actual))
        m->bias = actual;
    if (problem && asprintf(&m->error, "'%s': %s", path, problem) < 0)
        alloc_out_of_memory(strlen(path) + strlen(problem) + 5, 1);
    remember(&s->by_path, m, s->nmods, path_order);
    if (m->has_id)
        remember(&s->by_file, m, s->nmods, file_order);
    return s->nmods++;
}

/* Ranges in address order; overlapping ones are equal (the tree's ranges never overlap). */
static int range_order(const void *a, const void *b)
{
    const struct symbols_range *x = a, *y = b;
    return x->hi <= y->lo ? -1 : y->hi <= x->lo;
}

static void add_range(struct symbols *s, uint64_t lo, uint64_t hi, int module)
{
    struct symbols_range *r = alloc_resize(NULL, 1, sizeof *r);
    *r = (struct symbols_range){ lo, hi, module };
    if (!tsearch(r, &s->ranges, range_order))
        alloc_out_of_memory(1, 3 * sizeof(void *));     /* tsearch's own node */
}

/* MODULE now holds [LO, HI): what other ranges had there is cut out of them. Each range cut
 * away is one search of the tree, and a mapping leaves at most three ranges behind. */
static void paint(struct symbols *s, uint64_t lo, uint64_t hi, int module)
{
    struct symbols_range key = { lo, hi, module };
    void **hit;
    if (lo >= hi)
        return;
    while ((hit = tfind(&key, &s->ranges, range_order))) {
        struct symbols_range *r = *hit;
        tdelete(r, &s->ranges, range_order);
        if (r->lo < lo)
            add_range(s, r->lo, lo, r->module);     /* the part below */
        if (r->hi > hi)
            add_range(s, hi, r->hi, r->module);     /* the part above */
        free(r);
    }
    add_range(s, lo, hi, module);
}

int symbols_map(struct symbols *s, const char *path, uint64_t addr, uint64_t len, uint64_t offset, char *err,
                size_t errlen)
{
    int m = known_module(s, path);
    if (m < 0)
        m = add_module(s, path, addr, len, offset);
    if (len)
        paint(s, addr, addr + len < addr ? UINT64_MAX : addr + len, m);
    if (s->mods[m].mod)
        return m;
    snprintf(err, errlen, "%s", s->mods[m].error);
    return -1;
}

int symbols_read_object(struct symbols *s, const char *path, char *err, size_t errlen)
{
    return symbols_map(s, path, 0, 0, 0, err, errlen);
}

/* ---- lookup ---------------------------------------------------------------------------------- */

/* The index of the first of the N elements at ELEMS (SIZE bytes each, sorted by the address
 * they start with) that starts above ADDR. */
static size_t first_above(const void *elems, size_t n, size_t size, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t start;
        memcpy(&start, (const char *)elems + mid * size, sizeof start);
        if (start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int module_at(const struct symbols *s, uint64_t pc)
{
    struct symbols_range key = { pc, pc + 1, -1 };
    void *const *hit = pc == UINT64_MAX ? NULL : tfind(&key, &s->ranges, range_order);
    return hit ? ((const struct symbols_range *)*hit)->module : -1;
}

/* The end of section SHNDX of ELF, at the guest addresses of a symbol of it (SYM, found at ADDR),
 * when it holds code; 0 when it does not. */
static uint64_t code_section_end(Elf *elf, GElf_Word shndx, const GElf_Sym *sym, uint64_t addr)
{
    Elf_Scn *scn = elf && shndx != SHN_UNDEF && shndx < SHN_LORESERVE ? elf_getscn(elf, shndx) : NULL;
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sym->st_value < sh.sh_addr)
        return 0;
    return addr - sym->st_value + sh.sh_addr + sh.sh_size;
}

/* The guest range of a code symbol (SYM at ADDR, in section SHNDX of ELF): functions, IFUNC
 * resolvers, assembly with .size but no .type; without a size, a function or a label in a
 * section of code (hand-written assembly), whose end fix_ends sets, [ADDR, its section's end)
 * until then. ARM's mapping symbols ("$x", "$d": where code and data start) name nothing. */
static bool code_range(const char *name, const GElf_Sym *sym, Elf *elf, GElf_Word shndx, uint64_t addr,
                       uint64_t *hi)
{
    int type = GELF_ST_TYPE(sym->st_info);
    if (shndx == SHN_UNDEF || !(type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE))
        return false;
    *hi = sym->st_size ? addr + sym->st_size : type == STT_GNU_IFUNC || name[0] == '$' ? 0
                                                                       : code_section_end(elf, shndx, sym, addr);
    return *hi > addr;
}

/* libdwfl's preference among aliases: global, then weak ("fwrite"), then local. */
static int binding_rank(const GElf_Sym *sym)
{
    int bind = GELF_ST_BIND(sym->st_info);
    return bind == STB_GLOBAL ? 2 : bind == STB_WEAK;
}

/* perf's symbols__fixup_end: a symbol without a size reaches the next symbol's start, or the end
 * of its section when that comes first (the last symbol of a section). FNS sorted by start. */
static void fix_ends(struct symbols_fn *fns, size_t n)
{
    for (size_t i = 0, next = 0; i < n; i++) {
        if (fns[i].sized)
            continue;
        if (next <= i)
            next = i + 1;
        while (next < n && fns[next].lo == fns[i].lo)
            next++;
        if (next < n && fns[next].lo < fns[i].hi)
            fns[i].hi = fns[next].lo;
    }
}

static int fn_order(const void *a, const void *b)
{
    const struct symbols_fn *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* NAME without a default version's "@@VERSION" (a compatibility version's "@VERSION" stays: it
 * is another function than the one the plain name calls), in *COPY when it had one. */
static const char *display_name(const char *name, char **copy)
{
    const char *at = strstr(name, "@@");
    *copy = at ? alloc_strndup(name, (size_t)(at - name)) : NULL;
    return at ? *copy : name;
}

static void read_functions(struct symbols_module *m)
{
    int n = dwfl_module_getsymtab(m->mod);
    size_t cap = 0;
    m->fns_read = true;
    Dwarf_Addr bias;
    Elf *main_elf = dwfl_module_getelf(m->mod, &bias);
    GElf_Ehdr eh;
    m->entry = main_elf && gelf_getehdr(main_elf, &eh) && eh.e_entry ? eh.e_entry + bias : 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        Elf *elf;
        uint64_t hi;
        const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, &elf, NULL);
        if (!name || !*name || !code_range(name, &sym, elf, shndx, addr, &hi))
            continue;
        m->fns = grow(m->fns, &cap, m->nfns + 1, sizeof *m->fns);
        m->fns[m->nfns++] = (struct symbols_fn){ .lo = addr, .hi = hi, .name = name, .sized = sym.st_size != 0,
                                                 .rank = binding_rank(&sym) + (sym.st_size ? 4 : 0) };
    }
    if (m->nfns)        /* (qsort's array must not be NULL, even empty) */
        qsort(m->fns, m->nfns, sizeof *m->fns, fn_order);
    fix_ends(m->fns, m->nfns);
    for (size_t i = 0; i < m->nfns; i++) {
        struct symbols_fn *f = &m->fns[i];
        f->reach = i > 0 && m->fns[i - 1].reach > f->hi ? m->fns[i - 1].reach : f->hi;
        f->name = display_name(f->name, &f->name_copy);
    }
}

/* The function starting closest below PC among those covering it (a symbol nested in another
 * one names its own range), the best-ranked alias at that start. */
static const struct symbols_fn *function_at(struct symbols_module *m, uint64_t pc)
{
    if (!m->fns_read)
        read_functions(m);
    for (size_t i = first_above(m->fns, m->nfns, sizeof *m->fns, pc); i > 0 && m->fns[i - 1].reach > pc; i--)
        if (pc < m->fns[i - 1].hi)
            return &m->fns[i - 1];
    return NULL;
}

static void dwarf_line(Dwfl_Module *mod, uint64_t pc, struct symbols_at *out)
{
    Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file && lineno > 0) {
        out->file = file;
        out->line = (unsigned)lineno;
    }
}

static int line_order(const void *a, const void *b)
{
    const struct symbols_line *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return (x->address > y->address) - (x->address < y->address);
}

struct symbols_lines *symbols_lines_new(void)
{
    struct symbols_lines *l = alloc_zeroed(1, sizeof *l);
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->held, NULL);
    return l;
}

void symbols_lines_hold(struct symbols_lines *l) { pthread_mutex_lock(&l->held); }

void symbols_lines_release(struct symbols_lines *l) { pthread_mutex_unlock(&l->held); }

static void free_line(void *p)
{
    struct symbols_line *e = p;
    free(e->file);
    free(e);
}

void symbols_lines_free(struct symbols_lines *l)
{
    if (!l)
        return;
    tdestroy(l->tree, free_line);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->held);
    free(l);
}

void symbols_share_lines(struct symbols *s, struct symbols_lines *l) { s->lines = l; }

/* PC's line in M: from the shared lines when another analysis has looked it up, else from DWARF,
 * then kept there (two threads asking at once both read it; the first to finish keeps its). */
static void source_line(struct symbols *s, const struct symbols_module *m, uint64_t pc, struct symbols_at *out)
{
    struct symbols_lines *l = s->lines;
    if (!l || !m->has_id) {
        dwarf_line(m->mod, pc, out);
        return;
    }
    struct symbols_line key = { m->dev, m->ino, pc - m->bias, NULL, 0 }, **found;
    pthread_mutex_lock(&l->lock);
    found = tfind(&key, &l->tree, line_order);
    struct symbols_line *e = found ? *found : NULL;
    pthread_mutex_unlock(&l->lock);
    if (!e) {
        dwarf_line(m->mod, pc, out);
        e = alloc_zeroed(1, sizeof *e);
        *e = key;
        e->file = out->file ? alloc_strdup(out->file) : NULL;
        e->line = out->line;
        pthread_mutex_lock(&l->lock);
        struct symbols_line **at = tsearch(e, &l->tree, line_order);
        pthread_mutex_unlock(&l->lock);
        if (!at)
            alloc_out_of_memory(1, 3 * sizeof(void *)); /* tsearch's own node */
        if (*at != e)
            free_line(e);
        e = *at;
    }
    out->file = e->file;
    out->line = e->line;            /* 0 where FILE is NULL, as dwarf_line leaves it */
}

/* The section of M's own file (not its debug file) that holds PC, loaded: its start at guest
 * addresses in *START and its size; false when none does. From the section headers alone, since
 * libdwfl's dwfl_module_address_section reads the module's DWARF first (decompressing a debug
 * file: most of a short run's report), which a stretch without a symbol does not need. */
static bool section_at(const struct symbols_module *m, uint64_t pc, uint64_t *start, uint64_t *size)
{
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    if (!elf || pc < bias)
        return false;
    uint64_t addr = pc - bias;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS)
            continue;
        if (addr >= sh.sh_addr && addr - sh.sh_addr < sh.sh_size) {
            *start = sh.sh_addr + bias;
            *size = sh.sh_size;
            return true;
        }
    }
    return false;
}

/* The stretch [*LO, *HI) around PC that no symbol of M covers (function_at found none): from the
 * end of the symbols below to the next one's start, within PC's section (objdump -d prints a
 * section of a stripped object as one such stretch), and split at the entry point: _start, where
 * no call goes, starts a function as surely as a symbol would. */
static void unnamed_stretch(const struct symbols_module *m, uint64_t pc, uint64_t *lo, uint64_t *hi)
{
    size_t i = first_above(m->fns, m->nfns, sizeof *m->fns, pc);
    *lo = i > 0 ? m->fns[i - 1].reach : 0;
    *hi = i < m->nfns ? m->fns[i].lo : UINT64_MAX;
    uint64_t start, size;
    if (section_at(m, pc, &start, &size)) {
        *lo = start > *lo ? start : *lo;
        *hi = size < *hi - start ? start + size : *hi;
    }
    if (m->entry > *lo && m->entry <= pc)
        *lo = m->entry;
    else if (m->entry > pc && m->entry < *hi)
        *hi = m->entry;
}

void symbols_lookup(struct symbols *s, uint64_t pc, struct symbols_at *out)
{
    *out = (struct symbols_at){ .module = module_at(s, pc) };
    if (out->module < 0)
        return;
    struct symbols_module *m = &s->mods[out->module];
    out->module_name = m->name;
    if (!m->mod)
        return;
    out->in_object = true;
    out->address = pc - m->bias;
    const struct symbols_fn *fn = function_at(m, pc);
    if (fn) {
        out->function = fn->name;
        out->offset = pc - fn->lo;
        out->fn_lo = fn->lo;
        out->fn_hi = fn->hi;
    } else {
        unnamed_stretch(m, pc, &out->fn_lo, &out->fn_hi);
    }
    source_line(s, m, pc, out);
}

uint64_t symbols_function_start(struct symbols *s, uint64_t pc)
{
    int module = module_at(s, pc);
    if (module < 0 || !s->mods[module].mod)
        return 0;
    const struct symbols_fn *fn = function_at(&s->mods[module], pc);
    return fn ? fn->lo : 0;
}

/* ---- functions by name ----------------------------------------------------------------------- */

/* Whether the dynamic symbol table of ELF gives NAME at VALUE a hidden (compatibility) version:
 * without a full symbol table the names carry no version ("memcpy" twice in glibc). */
static bool compat_version(Elf *elf, const char *name, uint64_t value)
{
    Elf_Data *syms = NULL, *versions = NULL;
    size_t strtab = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
            syms = elf_getdata(scn, NULL);
            strtab = sh.sh_link;
        } else if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
            versions = elf_getdata(scn, NULL);
    }
    bool both = syms && syms->d_buf && versions && versions->d_buf;  /* a debug file's are NOBITS */
    size_t n = both ? syms->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT) : 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        GElf_Versym v;
        const char *s = gelf_getsym(syms, (int)i, &sym) ? elf_strptr(elf, strtab, sym.st_name) : NULL;
        if (s && sym.st_value == value && strcmp(s, name) == 0 && gelf_getversym(versions, (int)i, &v))
            return (v & 0x8000) != 0;  /* VER_NDX hidden bit: not the version a plain name binds to */
    }
    return false;
}

/* How well symbol SYM named SYMNAME (from ELF) answers a search for a function by its
 * plain name: the default version, then a size, then global over weak over local. */
static int find_rank(Elf *elf, const char *symname, const GElf_Sym *sym)
{
    const char *at = strchr(symname, '@');
    bool compat = at ? at[1] != '@' : compat_version(elf, symname, sym->st_value);
    return (compat ? 0 : 8) + (sym->st_size ? 4 : 0) + binding_rank(sym);
}

static bool names(const char *symname, const char *name)
{
    size_t n = strlen(name);
    return strncmp(symname, name, n) == 0 && (symname[n] == '\0' || symname[n] == '@');
}

/* A function or an indirect function the module defines: what a search by name finds. */
static bool names_function(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF;
}

static bool find_in(struct symbols_module *m, const char *name, uint64_t *lo, uint64_t *hi, bool *ifunc)
{
    int n = dwfl_module_getsymtab(m->mod), best = -1;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        Elf *elf;
        const char *symname = dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL, &elf, NULL);
        if (!symname || !names_function(&sym) || !names(symname, name))
            continue;
        int rank = find_rank(elf, symname, &sym);
        if (rank > best) {
            best = rank;
            *lo = addr;
            *hi = addr + sym.st_size;
            *ifunc = GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC;
        }
    }
    return best >= 0;
}

bool symbols_find(struct symbols *s, int module, const char *name, uint64_t *lo, uint64_t *hi)
{
    int first = module < 0 ? 0 : module, end = module < 0 ? s->nmods : module + 1;
    bool ifunc;
    for (int i = first; i < end && i < s->nmods; i++)
        if (s->mods[i].mod && find_in(&s->mods[i], name, lo, hi, &ifunc))
            return true;
    return false;
}

/* Appends to *NAMES (*N of them, room for *CAP) a copy of every function name of module M, without
 * its version: what a search by name is given. */
static void function_names(struct symbols_module *m, char ***names, size_t *n, size_t *cap)
{
    int count = dwfl_module_getsymtab(m->mod);
    for (int i = 1; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *symname = dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL, NULL, NULL);
        if (!symname || !*symname || !names_function(&sym))
            continue;
        *names = grow(*names, cap, *n + 1, sizeof **names);
        (*names)[(*n)++] = alloc_strndup(symname, strcspn(symname, "@"));
    }
}

bool symbols_closest(struct symbols *s, const char *name, char *out, size_t outlen)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < s->nmods; i++)
        if (s->mods[i].mod)
            function_names(&s->mods[i], &names, &n, &cap);
    const char *close = n ? suggest_closest(name, (const char *const *)names, n) : NULL;
    if (close)
        snprintf(out, outlen, "%s", close);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return close != NULL;
}

bool symbols_is_ifunc(struct symbols *s, int module, const char *name)
{
    uint64_t lo, hi;
    bool ifunc = false;
    return module >= 0 && module < s->nmods && s->mods[module].mod &&
           find_in(&s->mods[module], name, &lo, &hi, &ifunc) && ifunc;
}

/* ---- modules --------------------------------------------------------------------------------- */

static const struct symbols_module *module(const struct symbols *s, int i)
{
    return i >= 0 && i < s->nmods ? &s->mods[i] : NULL;
}

const char *symbols_module_path(const struct symbols *s, int i)
{
    return module(s, i) ? module(s, i)->path : NULL;
}

uint64_t symbols_module_bias(const struct symbols *s, int i)
{
    return module(s, i) ? module(s, i)->bias : 0;
}

bool symbols_module_is_executable(const struct symbols *s, int i)
{
    return i == 0 && s->nmods > 0;
}

int symbols_modules(const struct symbols *s)
{
    return s->nmods;
}
