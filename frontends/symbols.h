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

/* Source lines shared by the symbols of several analyses of one program at once (the cores of a
 * comparison, each on a thread of its own): the line of an instruction one has looked up is not
 * read from the object's DWARF (decompressed, for most libraries' debug files) by the others.
 * Thread-safe. Its strings are the lookups' file names: it outlives every symbols using it and
 * what they answered. */
struct symbols_lines;
struct symbols_lines *symbols_lines_new(void);
void symbols_lines_free(struct symbols_lines *l);
/* S's source lines from now on come through L. */
void symbols_share_lines(struct symbols *s, struct symbols_lines *l);
/* While one analysis holds L, the others sharing it wait to hold it: the first to look up its
 * instructions reads the objects' DWARF, and the next find the lines of the same instructions in
 * L without reading it again. */
void symbols_lines_hold(struct symbols_lines *l);
void symbols_lines_release(struct symbols_lines *l);

/* The object PATH has the bytes at file offset OFFSET mapped at guest address ADDR (LEN bytes):
 * its load bias follows from its program headers (the PT_LOAD holding OFFSET). Returns the
 * module's index (a second mapping of an object already known returns its index), or -1 with ERR
 * when PATH cannot be read as an ELF object; the range is then kept as an unnamed module.
 *
 * An object is known by its file (device and inode), so another path to it is the same module; its
 * bias is the one of its first mapping (a file page two segments share, in a small object, is
 * taken for the first of them: loaders map the segment at file offset 0 first). A later mapping
 * replaces what earlier ones had at the same addresses. An "unnamed" module has an index of its
 * own that symbols_lookup gives (module_name is PATH's file name, no function, no line): its pcs
 * are not outside every module. Debug information comes from the object or, found by its build ID,
 * from a separate debug file (/usr/lib/debug/.build-id), never from a debuginfod server. */
int symbols_map(struct symbols *s, const char *path, uint64_t addr, uint64_t len, uint64_t offset,
                char *err, size_t errlen);

/* The object PATH read for its symbols alone, where its headers place it (a load bias of 0),
 * holding no guest address: what a check of the program before it runs searches. Its index, or -1
 * with ERR as symbols_map says it. */
int symbols_read_object(struct symbols *s, const char *path, char *err, size_t errlen);

struct symbols_at {
    int module;                 /* index, -1 when no mapped object holds the pc */
    const char *module_name;    /* the object's file name without directories ("libc.so.6") */
    bool in_object;             /* the module is an ELF object: ADDRESS is the pc's in it */
    uint64_t address;           /* pc - the module's load bias: the address objdump -d prints */
    const char *function;       /* NULL when no symbol covers the pc */
    uint64_t offset;            /* pc - function start */
    /* the function's guest address range; without a function, the stretch around the pc that no
     * symbol covers, within the pc's section (0, 0 outside an ELF object) */
    uint64_t fn_lo, fn_hi;
    const char *file;           /* source file (as DWARF names it), NULL without line information */
    unsigned line;              /* 0 without line information */
};

/* What is at guest address PC. The strings live as long as S.
 *
 * The function is the code symbol with a size covering the pc that starts nearest below it; among
 * aliases, as libdwfl picks them, global before weak before local ("_IO_fwrite", not "fwrite"); a
 * default version's "@@VERSION" is dropped ("memcpy", but "memcpy@GLIBC_2.2.5" for a compatibility
 * version). A code symbol without a size (hand-written assembly without .size, crti's _init)
 * reaches, as perf makes it reach (symbols__fixup_end), up to the next symbol's start or the end
 * of its section, whichever comes first; among aliases one with a size wins. Each module's symbol
 * table is read from libdwfl once, at its first lookup, and sorted: a lookup is two binary
 * searches and libdw's line table search. */
void symbols_lookup(struct symbols *s, uint64_t pc, struct symbols_at *out);
/* The start of the function symbols_lookup names at PC (its fn_lo), 0 where it names none: the
 * same answer without the source line, the lookup's dearest part (the reader asks it of every
 * static instruction a run announces). */
uint64_t symbols_function_start(struct symbols *s, uint64_t pc);

/* The guest address range [*LO, *HI) of function NAME in module MODULE (-1: any module, the
 * executable first); false when none has it.
 *
 * NAME matches a symbol of a function or an indirect function (IFUNC) of that name, versioned
 * or not; the default version wins over a compatibility one, then a symbol with a size, then
 * global over weak over local. For an IFUNC (glibc's memcpy, strlen) the range is its
 * resolver's: which implementation it picks is only known when the guest runs. */
bool symbols_find(struct symbols *s, int module, const char *name, uint64_t *lo, uint64_t *hi);

/* The name of a function (as symbols_find takes it: without a version) of any module that is
 * closest to NAME (suggest.c's did-you-mean), the executable's first among equals, in OUT; false
 * when none is close. */
bool symbols_closest(struct symbols *s, const char *name, char *out, size_t outlen);

/* Module MODULE's path, its load bias, and whether it is the executable (the first mapped).
 * NULL, 0 and false for an index that names no module. */
const char *symbols_module_path(const struct symbols *s, int module);
/* Whether NAME in module MODULE is an indirect function (STT_GNU_IFUNC: glibc's memcpy, strlen):
 * its symbol is the resolver that picks an implementation at load time, not the code calls run. */
bool symbols_is_ifunc(struct symbols *s, int module, const char *name);
uint64_t symbols_module_bias(const struct symbols *s, int module);
bool symbols_module_is_executable(const struct symbols *s, int module);
/* How many modules S holds (indices 0 to this minus one), unnamed ones included. */
int symbols_modules(const struct symbols *s);

#endif
