/* Just enough ELF64 to find a function: the section headers, the symbol table and its strings,
 * and the section the function lives in. The whole file is read; programs analysed are small. */
#include "elfsym.h"
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool elfsym_is_elf(const char *path)
{
    FILE *fp = fopen(path, "rb");
    unsigned char magic[4] = { 0 };
    bool elf = fp && fread(magic, 1, 4, fp) == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0;
    if (fp)
        fclose(fp);
    return elf;
}

static unsigned char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        snprintf(err, errlen, "cannot read '%s'", path);
        free(buf);
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static bool in_file(size_t len, uint64_t off, uint64_t size) { return off <= len && size <= len - off; }

static const Elf64_Shdr *section(const unsigned char *f, size_t len, const Elf64_Ehdr *eh, unsigned i)
{
    uint64_t off = eh->e_shoff + (uint64_t)i * eh->e_shentsize;
    return i < eh->e_shnum && in_file(len, off, sizeof(Elf64_Shdr)) ? (const Elf64_Shdr *)(f + off) : NULL;
}

static const char *header_problem(const unsigned char *f, size_t len, enum mdl_isa isa)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    if (len < sizeof *eh || memcmp(f, ELFMAG, SELFMAG) != 0)
        return "not an ELF file";
    if (f[EI_CLASS] != ELFCLASS64 || f[EI_DATA] != ELFDATA2LSB)
        return "not a little-endian 64-bit ELF file";
    unsigned want = isa == MDL_ISA_AARCH64 ? EM_AARCH64 : EM_X86_64;
    if (eh->e_machine != want)
        return isa == MDL_ISA_AARCH64 ? "not an AArch64 program (the machine is aarch64)"
                                      : "not an x86-64 program (the machine is x86_64)";
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
        return "unexpected section header size";
    return NULL;
}

/* The symbol named NAME in the symbol table of section SYMTAB, or NULL. */
static const Elf64_Sym *find_symbol(const unsigned char *f, size_t len, const Elf64_Ehdr *eh, const Elf64_Shdr *symtab,
                                    const char *name)
{
    const Elf64_Shdr *strtab = section(f, len, eh, symtab->sh_link);
    if (!strtab || !in_file(len, symtab->sh_offset, symtab->sh_size) ||
        !in_file(len, strtab->sh_offset, strtab->sh_size))
        return NULL;
    size_t n = symtab->sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym *syms = (const Elf64_Sym *)(f + symtab->sh_offset);
    const char *strs = (const char *)(f + strtab->sh_offset);
    for (size_t i = 0; i < n; i++)
        if (syms[i].st_name < strtab->sh_size &&
            strncmp(strs + syms[i].st_name, name, strtab->sh_size - syms[i].st_name) == 0 &&
            strlen(name) < strtab->sh_size - syms[i].st_name)
            return &syms[i];
    return NULL;
}

/* Searches the full symbol table, then the dynamic one; *SYMTAB tells whether the full one
 * exists (a stripped program keeps only the dynamic symbols). */
static const Elf64_Sym *lookup(const unsigned char *f, size_t len, const Elf64_Ehdr *eh, const char *name, bool *symtab)
{
    const Elf64_Sym *sym = NULL;
    *symtab = false;
    for (unsigned i = 0; i < eh->e_shnum && !sym; i++) {
        const Elf64_Shdr *sh = section(f, len, eh, i);
        if (sh && (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM)) {
            *symtab |= sh->sh_type == SHT_SYMTAB;
            sym = find_symbol(f, len, eh, sh, name);
        }
    }
    return sym;
}

bool elfsym_function(const char *path, const char *symbol, enum mdl_isa isa, uint8_t **bytes, size_t *len,
                  uint64_t *addr, char *err, size_t errlen)
{
    size_t flen;
    unsigned char *f = slurp(path, &flen, err, errlen);
    if (!f)
        return false;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    const char *problem = header_problem(f, flen, isa);
    bool tables = false;
    const Elf64_Sym *sym = problem ? NULL : lookup(f, flen, eh, symbol, &tables);
    const Elf64_Shdr *sh = sym ? section(f, flen, eh, sym->st_shndx) : NULL;
    if (problem)
        snprintf(err, errlen, "'%s': %s", path, problem);
    else if (!sym && !tables)
        snprintf(err, errlen, "no symbol '%s' in '%s': the program is stripped (no symbol table)", symbol, path);
    else if (!sym)
        snprintf(err, errlen, "no symbol '%s' in '%s'", symbol, path);
    else if (!sym->st_size || !sh || sh->sh_type != SHT_PROGBITS || sym->st_value < sh->sh_addr ||
             !in_file(flen, sh->sh_offset + (sym->st_value - sh->sh_addr), sym->st_size))
        snprintf(err, errlen, "'%s' in '%s' is not a function with code in the file", symbol, path);
    else {
        *len = sym->st_size;
        *bytes = malloc(*len);
        memcpy(*bytes, f + sh->sh_offset + (sym->st_value - sh->sh_addr), *len);
        *addr = sym->st_value;
        free(f);
        return true;
    }
    free(f);
    return false;
}

bool elfsym_check(const char *path, enum mdl_isa isa, bool *pie, char *err, size_t errlen)
{
    size_t flen;
    unsigned char *f = slurp(path, &flen, err, errlen);
    if (!f)
        return false;
    const char *problem = header_problem(f, flen, isa);
    if (problem)
        snprintf(err, errlen, "'%s': %s", path, problem);
    else
        *pie = ((const Elf64_Ehdr *)f)->e_type == ET_DYN;
    free(f);
    return problem == NULL;
}
