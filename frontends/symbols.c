/* Symbols and source lines of the guest's objects through libdwfl: each object is reported at the
 * bias the guest loaded it with, as it is mapped, and asked about once per static instruction. */
#include "symbols.h"
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct module {
    char *path;
    const char *base;           /* within path */
    Dwfl_Module *dm;
};

struct symbols {
    Dwfl *dwfl;
    struct module *mods;
    int n, cap;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct symbols *symbols_new(void)
{
    struct symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (!(s->dwfl = dwfl_begin(&callbacks))) {
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
    for (int i = 0; i < s->n; i++)
        free(s->mods[i].path);
    free(s->mods);
    free(s);
}

/* The load bias of the ELF object in FD mapped at ADDR from file offset OFFSET: where the PT_LOAD
 * holding OFFSET puts its first page, against where the guest put it. */
static bool load_bias(int fd, uint64_t addr, uint64_t offset, uint64_t *bias, char *err, size_t errlen)
{
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t n;
    bool found = false;
    if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n) != 0) {
        snprintf(err, errlen, "not an ELF object");
        elf_end(e);
        return false;
    }
    GElf_Ehdr eh;
    bool exec = gelf_getehdr(e, &eh) && eh.e_type == ET_EXEC;
    for (size_t i = 0; i < n && !found; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        uint64_t align = ph.p_align > 1 ? ph.p_align : 0x1000, page = 0x1000;
        (void)align;
        if ((ph.p_offset & ~(page - 1)) <= offset && offset < ph.p_offset + (ph.p_filesz ? ph.p_filesz : 1)) {
            *bias = exec ? 0 : addr - ((ph.p_vaddr & ~(page - 1)) + (offset - (ph.p_offset & ~(page - 1))));
            found = true;
        }
    }
    elf_end(e);
    if (!found)
        snprintf(err, errlen, "no loadable segment at file offset %#llx", (unsigned long long)offset);
    return found;
}

static int known(const struct symbols *s, const char *path)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->mods[i].path, path) == 0)
            return i;
    return -1;
}

int symbols_map(struct symbols *s, const char *path, uint64_t addr, uint64_t len, uint64_t offset, char *err,
                size_t errlen)
{
    (void)len;
    int i = known(s, path);
    if (i >= 0)
        return i;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t bias = 0;
    char why[128] = "cannot open";
    if (fd < 0 || !load_bias(fd, addr, offset, &bias, why, sizeof why)) {
        snprintf(err, errlen, "'%s': %s", path, why);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    dwfl_report_begin_add(s->dwfl);
    const char *base = strrchr(path, '/');
    Dwfl_Module *dm = dwfl_report_elf(s->dwfl, base ? base + 1 : path, path, fd, bias, false);
    dwfl_report_end(s->dwfl, NULL, NULL);
    if (!dm) {      /* libdwfl keeps the descriptor only when it reports the module */
        close(fd);
        snprintf(err, errlen, "'%s': %s", path, dwfl_errmsg(-1));
        return -1;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        if (!(s->mods = realloc(s->mods, (size_t)s->cap * sizeof *s->mods)))
            abort();
    }
    struct module *m = &s->mods[s->n];
    if (!(m->path = strdup(path)))
        abort();
    base = strrchr(m->path, '/');
    m->base = base ? base + 1 : m->path;
    m->dm = dm;
    return s->n++;
}

static int module_of(const struct symbols *s, const Dwfl_Module *dm)
{
    for (int i = 0; i < s->n; i++)
        if (s->mods[i].dm == dm)
            return i;
    return -1;
}

void symbols_lookup(struct symbols *s, uint64_t pc, struct symbols_at *out)
{
    memset(out, 0, sizeof *out);
    out->module = -1;
    Dwfl_Module *dm = dwfl_addrmodule(s->dwfl, pc);
    int i = dm ? module_of(s, dm) : -1;
    if (i < 0)
        return;
    out->module = i;
    out->module_name = s->mods[i].base;
    GElf_Off off;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(dm, pc, &off, &sym, NULL, NULL, NULL);
    if (name) {
        out->function = name;
        out->offset = off;
        out->fn_lo = pc - off;
        out->fn_hi = out->fn_lo + (sym.st_size ? sym.st_size : 1);
    }
    Dwfl_Line *line = dwfl_module_getsrc(dm, pc);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file && lineno > 0) {
        out->file = file;
        out->line = (unsigned)lineno;
    }
}

/* NAME, or NAME@VERSION / NAME@@VERSION. */
static bool same_name(const char *sym, const char *name)
{
    size_t n = strlen(name);
    return strncmp(sym, name, n) == 0 && (sym[n] == 0 || sym[n] == '@');
}

static bool find_in(Dwfl_Module *dm, const char *name, uint64_t *lo, uint64_t *hi, bool *ifunc)
{
    int n = dwfl_module_getsymtab(dm);
    for (int k = 1; k < n; k++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *sname = dwfl_module_getsym_info(dm, k, &sym, &addr, NULL, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info);
        if (!sname || sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
            !same_name(sname, name))
            continue;
        *lo = addr;
        *hi = addr + (sym.st_size ? sym.st_size : 1);
        *ifunc = type == STT_GNU_IFUNC;
        return true;
    }
    return false;
}

bool symbols_find(struct symbols *s, int module, const char *name, uint64_t *lo, uint64_t *hi)
{
    bool ifunc;
    for (int i = 0; i < s->n; i++)
        if ((module < 0 || module == i) && find_in(s->mods[i].dm, name, lo, hi, &ifunc))
            return true;
    return false;
}

bool symbols_is_ifunc(struct symbols *s, int module, const char *name)
{
    uint64_t lo, hi;
    bool ifunc = false;
    return module >= 0 && module < s->n && find_in(s->mods[module].dm, name, &lo, &hi, &ifunc) && ifunc;
}

const char *symbols_module_path(const struct symbols *s, int module)
{
    return module >= 0 && module < s->n ? s->mods[module].path : NULL;
}
