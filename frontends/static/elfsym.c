/* Just enough of a program to find a function, read with libelf: the ELF header, the symbol
 * tables, and the section the function's bytes live in. */
#include "elfsym.h"
#include "alloc.h"
#include "isa.h"
#include "safefile.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool elfsym_is_elf(const char *path)
{
    char why[128];
    FILE *fp = safefile_read(path, why, sizeof why);   /* a FIFO is no program and must not block */
    unsigned char magic[4] = { 0 };
    bool elf = fp && fread(magic, 1, 4, fp) == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0;
    if (fp)
        fclose(fp);
    return elf;
}

/* An open file and libelf's view of it. */
struct elfsym_file {
    int fd;
    Elf *elf;
};

static bool open_file(const char *path, struct elfsym_file *f, char *err, size_t errlen)
{
    struct stat st;
    char why[128];
    f->elf = NULL;
    f->fd = safefile_read_fd(path, why, sizeof why);
    if (f->fd < 0) {
        snprintf(err, errlen, "cannot read '%s': %s", path, why);
    } else if (fstat(f->fd, &st) != 0) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    } else if (st.st_size == 0) {
        snprintf(err, errlen, "cannot read '%s': an empty file", path);
    } else {
        elf_version(EV_CURRENT);
        f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
        if (!f->elf)
            snprintf(err, errlen, "cannot read '%s': %s", path, elf_errmsg(-1));
    }
    if (!f->elf && f->fd >= 0)
        close(f->fd);
    return f->elf != NULL;
}

static void close_file(struct elfsym_file *f)
{
    elf_end(f->elf);
    close(f->fd);
}

/* What keeps E from being a program of ISA, in a literal or in BUF; NULL when nothing does. */
static const char *header_problem(Elf *e, enum mdl_isa isa, char *buf, size_t len)
{
    const struct isa_ops *ops = isa_get(isa);
    const struct isainfo *info = isainfo_get(isa);
    const char *ident = elf_kind(e) == ELF_K_ELF ? elf_getident(e, NULL) : NULL;
    GElf_Ehdr eh;
    if (!ident || !gelf_getehdr(e, &eh))
        return "not an ELF file";
    if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
        return "not a little-endian 64-bit ELF file";
    if (!ops || eh.e_machine != ops->elf_machine) {
        snprintf(buf, len, "not an %s program (the machine is %s)", info ? info->title : "?", info ? info->name : "?");
        return buf;
    }
    if (eh.e_shentsize != sizeof(Elf64_Shdr))
        return "unexpected section header size";
    return NULL;
}

/* The symbol named NAME in symbol table section SCN (header SH). */
static bool find_symbol(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *name, GElf_Sym *out)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = data ? data->d_size / gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = gelf_getsym(data, (int)i, out) ? elf_strptr(e, sh->sh_link, out->st_name) : NULL;
        if (s && strcmp(s, name) == 0)
            return true;
    }
    return false;
}

/* Searches the symbol tables in section order (the dynamic one usually comes first); *SYMTAB
 * tells whether the full one was seen (a stripped program keeps only the dynamic symbols). */
static bool lookup(Elf *e, const char *name, GElf_Sym *sym, bool *symtab)
{
    *symtab = false;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        *symtab |= sh.sh_type == SHT_SYMTAB;
        if (find_symbol(e, scn, &sh, name, sym))
            return true;
    }
    return false;
}

/* A copy of SYM's bytes from the section it is defined in, or NULL when it has none there. */
static uint8_t *function_bytes(Elf *e, const GElf_Sym *sym)
{
    bool in_section = sym->st_shndx != SHN_UNDEF && sym->st_shndx < SHN_LORESERVE;
    Elf_Scn *scn = in_section ? elf_getscn(e, sym->st_shndx) : NULL;
    GElf_Shdr sh;
    if (!sym->st_size || !scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || sym->st_value < sh.sh_addr)
        return NULL;
    Elf_Data *data = elf_getdata(scn, NULL);
    uint64_t off = sym->st_value - sh.sh_addr;
    if (!data || !data->d_buf || off > data->d_size || sym->st_size > data->d_size - off)
        return NULL;
    uint8_t *bytes = alloc_resize(NULL, sym->st_size, 1);
    memcpy(bytes, (const uint8_t *)data->d_buf + off, sym->st_size);
    return bytes;
}

bool elfsym_function(const char *path, const char *symbol, enum mdl_isa isa, uint8_t **bytes, size_t *len,
                  uint64_t *addr, char *err, size_t errlen)
{
    struct elfsym_file f;
    if (!open_file(path, &f, err, errlen))
        return false;
    char why[96];
    const char *problem = header_problem(f.elf, isa, why, sizeof why);
    bool tables = false;
    GElf_Sym sym;
    bool found = !problem && lookup(f.elf, symbol, &sym, &tables);
    uint8_t *code = found ? function_bytes(f.elf, &sym) : NULL;
    if (problem)
        snprintf(err, errlen, "'%s': %s", path, problem);
    else if (!found && !tables)
        snprintf(err, errlen, "no symbol '%s' in '%s': the program is stripped (no symbol table)", symbol, path);
    else if (!found)
        snprintf(err, errlen, "no symbol '%s' in '%s'", symbol, path);
    else if (!code)
        snprintf(err, errlen, "'%s' in '%s' is not a function with code in the file", symbol, path);
    else {
        *bytes = code;
        *len = sym.st_size;
        *addr = sym.st_value;
    }
    close_file(&f);
    return code != NULL;
}

/* Whether the LEN bytes at OFF lie within a file of SIZE bytes (no overflow on a forged OFF). */
static bool within(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

/* What of the ELF64 file on FD (SIZE bytes) lies past its end, in BUF; NULL when nothing does.
 * Read raw, not with libelf: a truncated program is what it must not take for a stripped one. */
static const char *truncation(int fd, uint64_t size, char *buf, size_t len)
{
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh) {
        snprintf(buf, len, "it ends at byte %llu, inside its ELF header", (unsigned long long)size);
        return buf;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64)
        return NULL;            /* not a program mdlsim runs: elfsym_check says so */
    uint64_t ph = (uint64_t)eh.e_phnum * eh.e_phentsize, sh = (uint64_t)eh.e_shnum * eh.e_shentsize;
    const char *what = !within(eh.e_phoff, ph, size) ? "program headers" : !within(eh.e_shoff, sh, size) ? "section headers"
                                                                                                          : NULL;
    if (what) {
        uint64_t off = what[0] == 'p' ? eh.e_phoff : eh.e_shoff, n = what[0] == 'p' ? ph : sh;
        snprintf(buf, len, "its %s (bytes %llu to %llu) go past its end at byte %llu", what, (unsigned long long)off,
                 (unsigned long long)(off + n), (unsigned long long)size);
        return buf;
    }
    for (unsigned i = 0; eh.e_phentsize == sizeof(Elf64_Phdr) && i < eh.e_phnum; i++) {
        Elf64_Phdr p;
        if (pread(fd, &p, sizeof p, (off_t)(eh.e_phoff + i * sizeof p)) == (ssize_t)sizeof p &&
            !within(p.p_offset, p.p_filesz, size)) {
            snprintf(buf, len, "segment %u (bytes %llu to %llu) goes past its end at byte %llu", i,
                     (unsigned long long)p.p_offset, (unsigned long long)(p.p_offset + p.p_filesz),
                     (unsigned long long)size);
            return buf;
        }
    }
    for (unsigned i = 0; eh.e_shentsize == sizeof(Elf64_Shdr) && i < eh.e_shnum; i++) {
        Elf64_Shdr s;
        if (pread(fd, &s, sizeof s, (off_t)(eh.e_shoff + i * sizeof s)) == (ssize_t)sizeof s && s.sh_type != SHT_NOBITS &&
            !within(s.sh_offset, s.sh_size, size)) {
            snprintf(buf, len, "section %u (bytes %llu to %llu) goes past its end at byte %llu", i,
                     (unsigned long long)s.sh_offset, (unsigned long long)(s.sh_offset + s.sh_size),
                     (unsigned long long)size);
            return buf;
        }
    }
    return NULL;
}

bool elfsym_complete(const char *path, char *err, size_t errlen)
{
    char why[160];
    int fd = safefile_read_fd(path, why, sizeof why);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read '%s': %s", path, fd < 0 ? why : strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    const char *problem = truncation(fd, (uint64_t)st.st_size, why, sizeof why);
    close(fd);
    if (problem)
        snprintf(err, errlen, "'%s' is not a complete ELF file: %s (truncated?)", path, problem);
    return problem == NULL;
}

/* Whether the dynamic section in segment PH of E names a library (DT_NEEDED). Read from the
 * segment, as the loader does: a program's section headers may be gone. */
static bool needs_library(Elf *e, const GElf_Phdr *ph)
{
    Elf_Data *data = elf_getdata_rawchunk(e, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_DYN);
    size_t n = data ? data->d_size / gelf_fsize(e, ELF_T_DYN, 1, EV_CURRENT) : 0;
    GElf_Dyn dyn;
    for (size_t i = 0; i < n && gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++)
        if (dyn.d_tag == DT_NEEDED)
            return true;
    return false;
}

/* Whether E is linked dynamically: an interpreter to load its libraries, or libraries named. */
static bool linked_dynamically(Elf *e)
{
    size_t n;
    if (elf_getphdrnum(e, &n) != 0)
        return true;            /* unreadable: nothing may be concluded from what it lacks */
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) &&
            (ph.p_type == PT_INTERP || (ph.p_type == PT_DYNAMIC && needs_library(e, &ph))))
            return true;
    }
    return false;
}

bool elfsym_check(const char *path, enum mdl_isa isa, struct elfsym_program *out, char *err, size_t errlen)
{
    struct elfsym_file f;
    if (!open_file(path, &f, err, errlen))
        return false;
    char why[96];
    const char *problem = header_problem(f.elf, isa, why, sizeof why);
    GElf_Ehdr eh;
    if (problem)
        snprintf(err, errlen, "'%s': %s", path, problem);
    else
        *out = (struct elfsym_program){ .pie = gelf_getehdr(f.elf, &eh) && eh.e_type == ET_DYN,
                                        .dynamic = linked_dynamically(f.elf) };
    close_file(&f);
    return problem == NULL;
}
