/* Symbols and source lines of objects mapped where a guest would map them, checked against what
 * binutils (nm, addr2line) say of the same files at the same bias. Tests run in tests/. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols.h"
#include "scratch.h"

#define PIE "../build/programs/gemm.pie"
#define A64 "../build/programs/gemm.a64dyn"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define A64_LIBC "/usr/aarch64-linux-gnu/lib/libc.so.6"
#define PAGE 0x1000u

/* The value and size NM (a command: "nm", "nm -D", "aarch64-linux-gnu-nm") gives symbol NAME,
 * spelt as it prints it ("fwrite@@GLIBC_2.2.5"), and its type letter; size 0 when it prints none. */
static uint64_t nm_symbol(const char *nm, const char *path, const char *name, uint64_t *size, char *type)
{
    char cmd[512], line[512], sym[256];
    snprintf(cmd, sizeof cmd, "%s -S --defined-only %s", nm, path);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run %s", cmd);
    uint64_t value = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, p)) {
        bool sized = sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &value, size, type, sym) == 4;
        if (!sized)
            *size = 0;
        found = (sized || sscanf(line, "%" SCNx64 " %c %255s", &value, type, sym) == 3) && strcmp(sym, name) == 0;
    }
    pclose(p);
    cr_assert(found, "%s lists no %s", cmd, name);
    return value;
}

/* What ADDR2LINE (a command) says of file address ADDR in PATH: the file, and the line. */
static unsigned addr2line(const char *tool, const char *path, uint64_t addr, char *file, size_t filelen)
{
    char cmd[512], line[512];
    snprintf(cmd, sizeof cmd, "%s -e %s 0x%" PRIx64, tool, path, addr);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run %s", cmd);
    cr_assert(fgets(line, sizeof line, p), "no answer from %s", cmd);
    pclose(p);
    char *colon = strrchr(line, ':');
    cr_assert(colon, "%s said '%s'", cmd, line);
    *colon = '\0';
    snprintf(file, filelen, "%s", line);
    return (unsigned)strtoul(colon + 1, NULL, 10);
}

/* The file addresses [*LO, *HI) of section NAME of PATH. */
static void section_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
    int fd = open(path, O_RDONLY);
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    size_t names;
    bool found = false;
    cr_assert(elf && elf_getshdrstrndx(elf, &names) == 0, "%s has section names", path);
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : NULL;
        if ((found = n && strcmp(n, name) == 0)) {
            *lo = sh.sh_addr;
            *hi = sh.sh_addr + sh.sh_size;
        }
    }
    elf_end(elf);
    close(fd);
    cr_assert(found, "%s has a section %s", path, name);
}

static uint64_t page_down(uint64_t a) { return a & ~(uint64_t)(PAGE - 1); }

/* Maps PATH's loadable segments at BIAS as the dynamic loader does (each from the page holding
 * its start; only the executable one with ONLY_CODE); the module's index. */
static int map_at(struct symbols *s, const char *path, uint64_t bias, bool only_code)
{
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0, "cannot open %s", path);
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    size_t n = 0;
    cr_assert(elf && elf_getphdrnum(elf, &n) == 0, "%s has no program headers", path);
    int module = -2;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || (only_code && !(ph.p_flags & PF_X)))
            continue;
        uint64_t start = page_down(ph.p_vaddr), end = page_down(ph.p_vaddr + ph.p_filesz + PAGE - 1);
        char err[512] = "";
        int m = symbols_map(s, path, bias + start, end - start, page_down(ph.p_offset), err, sizeof err);
        cr_assert(m >= 0, "mapping %s: %s", path, err);
        cr_assert(module == -2 || m == module, "a second mapping of %s gives its index", path);
        module = m;
    }
    elf_end(elf);
    close(fd);
    cr_assert(module >= 0, "%s has a loadable segment", path);
    return module;
}

/* The function and line of a pc in kernel_gemm of PROGRAM (mapped at BIAS) are those binutils
 * give for the same file address; the range is nm's plus the bias. */
static void expect_kernel_gemm(const char *program, uint64_t bias, const char *nm, const char *a2l)
{
    struct symbols *s = symbols_new();
    cr_assert(s);
    cr_assert_eq(map_at(s, program, bias, false), 0, "the first object mapped is module 0");
    uint64_t size;
    char type;
    uint64_t value = nm_symbol(nm, program, "kernel_gemm", &size, &type);
    uint64_t pc = bias + value + size / 2;
    struct symbols_at at;
    symbols_lookup(s, pc, &at);
    cr_expect_eq(at.module, 0);
    cr_expect_str_eq(at.module_name, strrchr(program, '/') + 1);
    cr_assert_not_null(at.function, "a function at 0x%" PRIx64, pc);
    cr_expect_str_eq(at.function, "kernel_gemm");
    cr_expect_eq(at.fn_lo, bias + value, "starts at 0x%" PRIx64 ", not 0x%" PRIx64, bias + value, at.fn_lo);
    cr_expect_eq(at.fn_hi, bias + value + size);
    cr_expect_eq(at.offset, size / 2);
    cr_expect_eq(symbols_function_start(s, pc), at.fn_lo, "the start without the line is the lookup's");
    struct symbols_at after;
    symbols_lookup(s, at.fn_hi, &after);
    cr_expect(!after.function || strcmp(after.function, "kernel_gemm") != 0, "the range's end is outside it");
    char file[512];
    unsigned line = addr2line(a2l, program, pc - bias, file, sizeof file);
    cr_assert_not_null(at.file, "line information at 0x%" PRIx64, pc);
    cr_expect_eq(at.line, line, "%s:%u, addr2line says %s:%u", at.file, at.line, file, line);
    size_t n = strlen(file), k = strlen(at.file);
    cr_expect(k <= n && strcmp(file + n - k, at.file) == 0, "%s names %s", at.file, file);
    cr_expect(strstr(at.file, "gemm.c") != NULL, "in gemm.c, not %s", at.file);
    cr_expect(at.line >= 5 && at.line <= 15, "a line of kernel_gemm's body, not %u", at.line);
    uint64_t lo = 0, hi = 0;
    cr_expect(symbols_find(s, -1, "kernel_gemm", &lo, &hi));
    cr_expect(lo == bias + value && hi == bias + value + size, "kernel_gemm found at [0x%" PRIx64 ", 0x%" PRIx64 ")",
              lo, hi);
    cr_expect_eq(symbols_module_bias(s, 0), bias);
    cr_expect(symbols_module_is_executable(s, 0));
    cr_expect_str_eq(symbols_module_path(s, 0), program);
    symbols_free(s);
}

Test(symbols, names_the_function_and_source_line_of_a_pc_in_a_pie_mapped_anywhere)
{
    expect_kernel_gemm(PIE, 0x555555554000, "nm", "addr2line");
    expect_kernel_gemm(PIE, 0x4000000000, "nm", "addr2line");
}

Test(symbols, names_the_function_and_source_line_of_a_pc_in_an_aarch64_program_read_on_the_host)
{
    expect_kernel_gemm(A64, 0x5500000000, "aarch64-linux-gnu-nm", "aarch64-linux-gnu-addr2line");
    expect_kernel_gemm(A64, 0x4000000000, "aarch64-linux-gnu-nm", "aarch64-linux-gnu-addr2line");
}

/* symbols_find of NAME in MODULE gives nm's range of NM_NAME in LIB plus BIAS. */
static void expect_found(struct symbols *s, int module, const char *nm, const char *lib, const char *name,
                         const char *nm_name, uint64_t bias)
{
    uint64_t size, lo = 0, hi = 0;
    char type;
    uint64_t value = nm_symbol(nm, lib, nm_name, &size, &type);
    cr_assert(symbols_find(s, module, name, &lo, &hi), "%s is found", name);
    cr_expect(lo == bias + value && hi == bias + value + size,
              "%s at [0x%" PRIx64 ", 0x%" PRIx64 "), nm says [0x%" PRIx64 ", 0x%" PRIx64 ")", name, lo, hi,
              bias + value, bias + value + size);
}

Test(symbols, finds_a_function_where_nm_puts_it_plus_the_bias_in_a_pie_and_in_the_system_libc)
{
    struct symbols *s = symbols_new();
    cr_assert_eq(map_at(s, PIE, 0x555555554000, false), 0);
    int libc = map_at(s, LIBC, 0x7f1234500000, true);
    cr_assert_eq(libc, 1);
    expect_found(s, 0, "nm", PIE, "main", "main", 0x555555554000);
    expect_found(s, libc, "nm -D", LIBC, "fwrite", "fwrite@@GLIBC_2.2.5", 0x7f1234500000);
    expect_found(s, -1, "nm -D", LIBC, "qsort", "qsort@@GLIBC_2.2.5", 0x7f1234500000);
    uint64_t lo, hi;
    cr_expect_not(symbols_find(s, 0, "fwrite", &lo, &hi), "the program only calls fwrite");
    cr_expect_not(symbols_find(s, -1, "no_such_function", &lo, &hi));
    cr_expect_not(symbols_module_is_executable(s, libc));
    cr_expect_eq(symbols_module_bias(s, libc), 0x7f1234500000);
    cr_assert(symbols_find(s, libc, "qsort", &lo, &hi));
    struct symbols_at at;
    symbols_lookup(s, lo, &at);
    cr_expect_eq(at.module, libc);
    cr_expect_str_eq(at.module_name, "libc.so.6");
    cr_expect(at.fn_lo == lo && at.offset == 0, "a pc at qsort's start is in the function starting there");
    symbols_free(s);
}

/* glibc's memcpy is an IFUNC: its symbol is the resolver, which picks an implementation when the
 * guest runs. memcpy@GLIBC_2.2.5, an older function, must not be taken for it. */
static void expect_memcpy_resolver(const char *lib, const char *nm, const char *nm_name)
{
    struct symbols *s = symbols_new();
    int m = map_at(s, lib, 0x7f0000000000, true);
    uint64_t size;
    char type;
    nm_symbol(nm, lib, nm_name, &size, &type);
    cr_expect_eq(type, 'i', "%s is an IFUNC in %s", nm_name, lib);
    expect_found(s, m, nm, lib, "memcpy", nm_name, 0x7f0000000000);
    uint64_t lo, hi;
    symbols_find(s, m, "memcpy", &lo, &hi);
    struct symbols_at at;
    symbols_lookup(s, lo + 4, &at);
    cr_expect_str_eq(at.function, "memcpy", "the resolver is named without its version");
    symbols_find(s, m, "fwrite", &lo, &hi);
    symbols_lookup(s, lo, &at);
    cr_expect_str_eq(at.function, "_IO_fwrite", "the global alias of the weak fwrite names it");
    symbols_free(s);
}

Test(symbols, finds_memcpy_as_the_range_of_its_ifunc_resolver_at_the_default_version)
{
    expect_memcpy_resolver(LIBC, "nm -D", "memcpy@@GLIBC_2.14");
    expect_memcpy_resolver(A64_LIBC, "aarch64-linux-gnu-nm -D", "memcpy@@GLIBC_2.17");
    /* Without its debug file (no build ID, no debug link) libc has only dynamic symbols, whose
     * names carry no version: "memcpy" twice, the version table telling them apart. */
    char copy[256];
    snprintf(copy, sizeof copy, "%s/mdlsim-libc-%d.so", scratch_dir(), (int)getpid());
    char cmd[768];
    snprintf(cmd, sizeof cmd, "objcopy -R .note.gnu.build-id -R .gnu_debuglink %s %s", LIBC, copy);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    expect_memcpy_resolver(copy, "nm -D", "memcpy@@GLIBC_2.14");
    remove(copy);
}

Test(symbols, takes_the_load_bias_from_the_segment_a_mapping_holds)
{
    /* gemm.a64dyn's data segment starts at file offset 0xNdc8 and address 0x1Ndc8: mapped first,
     * its page alone must give the bias. */
    struct symbols *s = symbols_new();
    int fd = open(A64, O_RDONLY);
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Phdr data = { 0 };
    size_t n = 0;
    elf_getphdrnum(elf, &n);
    for (size_t i = 0; i < n; i++)
        if (gelf_getphdr(elf, (int)i, &data) && data.p_type == PT_LOAD && (data.p_flags & PF_W))
            break;
    elf_end(elf);
    close(fd);
    cr_assert(data.p_flags & PF_W, "a writable segment");
    cr_assert_neq(data.p_vaddr, data.p_offset, "its address is not its offset");
    uint64_t bias = 0x5500000000;
    char err[512];
    cr_assert_eq(symbols_map(s, A64, bias + page_down(data.p_vaddr), PAGE, page_down(data.p_offset), err, sizeof err),
                 0, "%s", err);
    cr_expect_eq(symbols_module_bias(s, 0), bias);
    expect_found(s, 0, "aarch64-linux-gnu-nm", A64, "kernel_gemm", "kernel_gemm", bias);
    symbols_free(s);
}

Test(symbols, gives_no_module_for_a_pc_outside_every_mapping)
{
    struct symbols *s = symbols_new();
    struct symbols_at at;
    symbols_lookup(s, 0x401000, &at);
    cr_expect_eq(at.module, -1, "nothing mapped yet");
    map_at(s, PIE, 0x555555554000, false);
    symbols_lookup(s, 0x555555554000 - 1, &at);
    cr_expect_eq(at.module, -1);
    cr_expect_null(at.module_name);
    cr_expect_null(at.function);
    cr_expect_null(at.file);
    cr_expect_eq(at.line, 0);
    symbols_lookup(s, 0x555555554000, &at);
    cr_expect_eq(at.module, 0, "the first byte mapped is the module's");
    symbols_lookup(s, 0x7fff00000000, &at);
    cr_expect_eq(at.module, -1);
    symbols_free(s);
}

Test(symbols, names_the_module_but_no_function_in_a_stripped_copy)
{
    char copy[256], cmd[768];
    snprintf(copy, sizeof copy, "%s/mdlsim-stripped-%d", scratch_dir(), (int)getpid());
    snprintf(cmd, sizeof cmd, "strip -o %s %s", copy, PIE);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    uint64_t size;
    char type;
    uint64_t value = nm_symbol("nm", PIE, "kernel_gemm", &size, &type);
    struct symbols *s = symbols_new();
    cr_assert_eq(map_at(s, copy, 0x555555554000, false), 0);
    struct symbols_at at;
    symbols_lookup(s, 0x555555554000 + value + 8, &at);
    cr_expect_eq(at.module, 0);
    cr_expect_str_eq(at.module_name, strrchr(copy, '/') + 1);
    cr_expect_null(at.function, "no symbol names kernel_gemm, not %s", at.function);
    cr_expect_eq(symbols_function_start(s, 0x555555554000 + value + 8), 0, "no function starts it");
    cr_expect_null(at.file, "no line information");
    cr_expect(at.in_object);
    cr_expect_eq(at.address, value + 8, "objdump -d's address 0x%" PRIx64 ", not 0x%" PRIx64, value + 8, at.address);
    uint64_t text_lo, text_hi;
    section_range(copy, ".text", &text_lo, &text_hi);
    cr_expect(at.fn_lo <= 0x555555554000 + value + 8 && 0x555555554000 + value + 8 < at.fn_hi, "the stretch holds the pc");
    cr_expect(at.fn_lo >= 0x555555554000 + text_lo && at.fn_hi <= 0x555555554000 + text_hi,
              "the stretch [0x%" PRIx64 ", 0x%" PRIx64 ") lies in .text", at.fn_lo, at.fn_hi);
    uint64_t lo, hi;
    cr_expect_not(symbols_find(s, -1, "kernel_gemm", &lo, &hi));
    symbols_free(s);
    remove(copy);
}

/* Hand-written assembly without .size (tests/programs/nosize.c), named as perf names it: the
 * function symbol of size 0 up to the next symbol, the label after it (the last of its section)
 * up to the section's end. On AArch64 the mapping symbol "$x" at the section's start names nothing. */
static void expect_sizeless(const char *program, uint64_t bias, const char *nm)
{
    struct symbols *s = symbols_new();
    cr_assert_eq(map_at(s, program, bias, false), 0);
    uint64_t size, lo, hi;
    char type;
    uint64_t sum = nm_symbol(nm, program, "nosize_sum", &size, &type), tail = nm_symbol(nm, program, "nosize_tail", &size, &type);
    section_range(program, "nosize_text", &lo, &hi);
    cr_assert(lo == sum && sum < tail && tail < hi, "%s: nosize_sum starts nosize_text, nosize_tail follows", program);
    struct symbols_at at;
    symbols_lookup(s, bias + sum, &at);
    cr_assert_not_null(at.function, "%s: a function at nosize_sum's start", program);
    cr_expect_str_eq(at.function, "nosize_sum");
    cr_expect(at.fn_lo == bias + sum && at.fn_hi == bias + tail, "%s: [0x%" PRIx64 ", 0x%" PRIx64 ")", program, at.fn_lo,
              at.fn_hi);
    symbols_lookup(s, bias + tail - 1, &at);
    cr_expect(at.function && !strcmp(at.function, "nosize_sum"), "%s: nosize_sum reaches nosize_tail", program);
    symbols_lookup(s, bias + hi - 1, &at);
    cr_assert_not_null(at.function, "%s: a function at nosize_text's last byte", program);
    cr_expect_str_eq(at.function, "nosize_tail");
    cr_expect(at.fn_lo == bias + tail && at.fn_hi == bias + hi, "%s: [0x%" PRIx64 ", 0x%" PRIx64 ")", program, at.fn_lo,
              at.fn_hi);
    symbols_lookup(s, bias + hi, &at);
    cr_expect(!at.function || strcmp(at.function, "nosize_tail") != 0, "%s: nothing past the section's end", program);
    symbols_free(s);
}

Test(symbols, names_assembly_without_a_size_up_to_the_next_symbol_or_its_sections_end)
{
    expect_sizeless("../build/programs/nosize.pie", 0x555555554000, "nm");
    expect_sizeless("../build/programs/nosize.a64dyn", 0x5500000000, "aarch64-linux-gnu-nm");
}

Test(symbols, refuses_a_file_that_is_not_elf_naming_it_and_keeps_its_range_as_an_unnamed_module)
{
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/mdlsim-notelf-%d", scratch_dir(), (int)getpid());
    FILE *fp = fopen(path, "w");
    fputs("not an object\n", fp);
    fclose(fp);
    struct symbols *s = symbols_new();
    cr_expect_eq(symbols_map(s, path, 0x10000, 0x1000, 0, err, sizeof err), -1);
    char want[320];
    snprintf(want, sizeof want, "'%s': not an ELF object", path);
    cr_expect_str_eq(err, want);
    struct symbols_at at;
    symbols_lookup(s, 0x10800, &at);
    cr_expect_eq(at.module, 0, "the range is a module's");
    cr_expect_str_eq(at.module_name, strrchr(path, '/') + 1);
    cr_expect_null(at.function);
    err[0] = '\0';
    cr_expect_eq(symbols_map(s, "/no/such/object.so", 0x20000, 0x1000, 0, err, sizeof err), -1);
    cr_expect_str_eq(err, "'/no/such/object.so': No such file or directory");
    symbols_free(s);
    remove(path);
}

Test(symbols, keeps_one_module_per_object_and_lets_a_later_mapping_replace_an_earlier_one)
{
    struct symbols *s = symbols_new();
    char err[512];
    uint64_t base = 0x555555554000;
    cr_assert_eq(symbols_map(s, PIE, base, 0x5000, 0, err, sizeof err), 0, "%s", err);
    cr_expect_eq(symbols_map(s, PIE, base + 0x1000, 0x1000, 0x1000, err, sizeof err), 0);
    cr_expect_eq(symbols_map(s, "../build/programs/../programs/gemm.pie", base, 0x1000, 0, err, sizeof err), 0,
                 "another path to the same file");
    cr_expect_eq(symbols_modules(s), 1);
    /* A library mapped over the program's middle page, another object over its first page and
     * the one below: those pages are theirs now. */
    cr_assert_eq(symbols_map(s, LIBC, base + 0x2000, 0x1000, 0, err, sizeof err), 1, "%s", err);
    cr_assert_eq(symbols_map(s, A64, base - 0x1000, 0x2000, 0, err, sizeof err), 2, "%s", err);
    struct symbols_at at;
    int expect[] = { 2, 2, 0, 1, 0, 0, -1 };
    for (int page = -1; page < 6; page++) {
        symbols_lookup(s, base + (uint64_t)(page * 0x1000 + 0x10), &at);
        cr_expect_eq(at.module, expect[page + 1], "page %d holds module %d, not %d", page, expect[page + 1],
                     at.module);
    }
    cr_expect_eq(symbols_module_bias(s, 1), base + 0x2000);
    cr_expect_null(symbols_module_path(s, 3));
    symbols_free(s);
}

/* A trace may name many mappings, in any order: each costs a search of balanced trees, not a
 * scan (and a sort) of the ones before it. 100,000 mappings took over three minutes that way
 * (20,000: 17.5 s); now about a second: the timeout is sixty times that, and far below
 * what a quadratic cost would need. */
Test(symbols, maps_a_hundred_thousand_objects_in_descending_order_at_once, .timeout = 60)
{
    enum { N = 100000 };
    struct symbols *s = symbols_new();
    char path[64], err[256];
    for (int i = N - 1; i >= 0; i--) {
        snprintf(path, sizeof path, "/no/such/lib%d.so", i);
        cr_assert_eq(symbols_map(s, path, 0x10000000 + (uint64_t)i * 0x2000, 0x1000, 0, err, sizeof err), -1);
    }
    cr_expect_eq(symbols_modules(s), N);
    /* one range over the middle of a thousand: the first and last of them cut, the rest replaced */
    uint64_t lo = 0x10000000 + 5000 * 0x2000 + 0x800, hi = 0x10000000 + 6000 * 0x2000 + 0x800;
    cr_assert_eq(symbols_map(s, "/no/such/lib0.so", lo, hi - lo, 0, err, sizeof err), -1);
    cr_expect_eq(symbols_modules(s), N, "lib0.so again is its module again");
    struct symbols_at at;
    const struct { uint64_t pc; int module; } expect[] = {
        { 0x10000000, N - 1 },                          /* lib0.so, mapped last */
        { 0x10000000 + 7 * 0x2000 + 0xfff, N - 8 },     /* lib7.so's last byte */
        { 0x10000000 + 7 * 0x2000 + 0x1000, -1 },       /* the gap after it */
        { lo - 1, N - 5001 },                           /* lib5000.so below the cut */
        { lo, N - 1 }, { 0x10000000 + 5500 * 0x2000 + 0x1800, N - 1 }, { hi - 1, N - 1 },
        { hi, N - 6001 },                               /* lib6000.so above the cut */
        { 0x10000000 + (uint64_t)(N - 1) * 0x2000, 0 },  /* the first mapped */
        { UINT64_MAX, -1 },
    };
    for (size_t k = 0; k < sizeof expect / sizeof *expect; k++) {
        symbols_lookup(s, expect[k].pc, &at);
        cr_expect_eq(at.module, expect[k].module, "pc %#" PRIx64 ": module %d, not %d", expect[k].pc, at.module,
                     expect[k].module);
    }
    symbols_free(s);
}

Test(symbols, reads_the_source_lines_of_the_system_libc_from_its_separate_debug_file_by_build_id)
{
    char id[128] = "", debug[256];
    FILE *p = popen("readelf -n " LIBC " | awk '/Build ID/ { print $3 }'", "r");
    cr_assert(p && fgets(id, sizeof id, p), "libc has a build ID");
    pclose(p);
    id[strcspn(id, "\n")] = '\0';
    snprintf(debug, sizeof debug, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
    if (access(debug, R_OK) != 0)
        cr_skip_test("no %s (Debian's libc6-dbg)", debug);
    struct symbols *s = symbols_new();
    int libc = map_at(s, LIBC, 0x7f0000000000, true);
    uint64_t lo, hi;
    cr_assert(symbols_find(s, libc, "fwrite", &lo, &hi));
    struct symbols_at at;
    symbols_lookup(s, lo + 16, &at);
    cr_assert_not_null(at.file, "line information from %s", debug);
    cr_expect(strstr(at.file, "iofwrite.c") != NULL, "fwrite is in libio/iofwrite.c, not %s", at.file);
    cr_expect_gt(at.line, 0);
    symbols_free(s);
}

/* The lines S names for N bytes of kernel_gemm (round its range again and again): "file:line"
 * each, "-:0" without one, into OUT. On any thread. */
struct lines_of {
    struct symbols *s;
    char (*out)[256];
    unsigned n;
};

static void *look_up_lines(void *arg)
{
    struct lines_of *l = arg;
    uint64_t lo = 0, hi = 1;
    if (!symbols_find(l->s, 0, "kernel_gemm", &lo, &hi))
        lo = 0, hi = 1;         /* every answer "-:0": the comparison fails */
    for (unsigned i = 0; i < l->n; i++) {
        struct symbols_at at;
        symbols_lookup(l->s, lo + i % (hi - lo), &at);
        snprintf(l->out[i], sizeof l->out[i], "%s:%u", at.file ? at.file : "-", at.line);
    }
    return NULL;
}

Test(symbols, shares_source_lines_between_two_at_once_each_answering_as_alone)
{
    enum { N = 600 };
    static char alone[N][256], first[N][256], second[N][256];
    struct symbols *s = symbols_new(), *a = symbols_new(), *b = symbols_new();
    struct symbols_lines *lines = symbols_lines_new();
    symbols_share_lines(a, lines);
    symbols_share_lines(b, lines);
    map_at(s, PIE, 0x555555554000, false);
    map_at(a, PIE, 0x555555554000, false);
    map_at(b, PIE, 0x4000000000, false);        /* another bias: the same object's lines */
    struct lines_of one = { s, alone, N }, x = { a, first, N }, y = { b, second, N };
    look_up_lines(&one);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, look_up_lines, &x), 0);
    look_up_lines(&y);
    pthread_join(t, NULL);
    unsigned named = 0;
    for (unsigned i = 0; i < N; i++) {
        cr_expect_str_eq(first[i], alone[i], "byte %u", i);
        cr_expect_str_eq(second[i], alone[i], "byte %u", i);
        named += alone[i][0] != '-';
    }
    cr_expect_gt(named, N / 2, "kernel_gemm has line information");
    symbols_free(a);
    symbols_free(b);
    symbols_free(s);
    symbols_lines_free(lines);
}
