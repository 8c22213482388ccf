/* The objects of one guest process (executable, shared libraries), each where the guest mapped it:
 * function and source line of a pc, and the address range of a function by name. libdwfl. */
#ifndef SYMBOLS_H
#define SYMBOLS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;
struct symbols *symbols_new(void);
void symbols_free(struct symbols *s);
/* The object PATH has the bytes at file offset OFFSET mapped at guest address ADDR (LEN bytes):
 * its load bias follows from its program headers (the PT_LOAD holding OFFSET). Returns the
 * module's index (a second mapping of an object already known returns its index), or -1 with ERR
 * when PATH cannot be read as an ELF object. */
int symbols_map(struct symbols *s, const char *path, uint64_t addr, uint64_t len, uint64_t offset, char *err,
                size_t errlen);

struct symbols_at {
    int module;                 /* index, -1 when no mapped object holds the pc */
    const char *module_name;    /* the object's file name without directories ("libc.so.6") */
    const char *function;       /* NULL when no symbol covers the pc */
    uint64_t offset;            /* pc - function start */
    uint64_t fn_lo, fn_hi;      /* the function's guest address range */
    const char *file;           /* source file (as DWARF names it), NULL without line information */
    unsigned line;              /* 0 without line information */
};
/* What is at guest address PC. The strings live as long as S. */
void symbols_lookup(struct symbols *s, uint64_t pc, struct symbols_at *out);
/* The guest address range [*LO, *HI) of function NAME in module MODULE (-1: any module); false
 * when none has it. A versioned name (memcpy@@GLIBC_2.14) is found by its name. */
bool symbols_find(struct symbols *s, int module, const char *name, uint64_t *lo, uint64_t *hi);
/* Whether NAME in module MODULE is an indirect function (STT_GNU_IFUNC: glibc's memcpy, strlen):
 * its symbol is the resolver that picks an implementation at load time, not the code calls run. */
bool symbols_is_ifunc(struct symbols *s, int module, const char *name);
/* Module MODULE's path. */
const char *symbols_module_path(const struct symbols *s, int module);

#endif
