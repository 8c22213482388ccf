/* libFuzzer harness: an ELF file as mdlsim reads a program or a mapped object: the checks and
 * function lookup of block --function (elfsym), and libdwfl's symbols and DWARF lines (symbols). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "elfsym.h"
#include "symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_functions(const char *path)
{
    char err[512];
    struct elfsym_program kind;
    uint8_t *bytes = NULL;
    size_t len;
    uint64_t addr;
    for (int isa = MDL_ISA_X86_64; isa <= MDL_ISA_AARCH64; isa++) {
        elfsym_check(path, (enum mdl_isa)isa, &kind, err, sizeof err);
        if (elfsym_function(path, "main", (enum mdl_isa)isa, &bytes, &len, &addr, err, sizeof err))
            free(bytes);
        bytes = NULL;
    }
}

/* Mapped as a loader would at 0x400000, then the pcs a run would look up. */
static void read_symbols(const char *path)
{
    char err[512];
    struct symbols *s = symbols_new();
    int m = symbols_map(s, path, 0x400000, 0x200000, 0, err, sizeof err);
    uint64_t lo, hi;
    struct symbols_at at;
    if (symbols_find(s, m, "main", &lo, &hi))
        symbols_lookup(s, lo, &at);
    symbols_is_ifunc(s, m, "memcpy");
    for (uint64_t pc = 0x400000; pc < 0x402000; pc += 0x1f3)
        symbols_lookup(s, pc, &at);
    symbols_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (size > 1 << 20)
        return 0;
    int fd = memfd_create("elf", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        read_functions(path);
        read_symbols(path);
    }
    close(fd);
    return 0;
}
