/* Block input from a compiled program: the bytes of one function found by its symbol. */
#ifndef ELFSYM_H
#define ELFSYM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mdl_machine.h"

/* Whether PATH starts with the ELF magic. */
bool elfsym_is_elf(const char *path);
/* Whether every header, segment and section the ELF file PATH names lies within it: false with
 * ERR ("'PATH' is not a complete ELF file: ...") for a truncated file. */
bool elfsym_complete(const char *path, char *err, size_t errlen);
/* What elfsym_check finds of a program. */
struct elfsym_program {
    bool pie;           /* position independent: its symbols do not give run-time addresses */
    bool dynamic;       /* it names an interpreter (PT_INTERP) or libraries (DT_NEEDED): code of
                           other objects may run, functions it does not define may be called */
};
/* Checks that PATH is an ELF64 program for ISA, and tells what kind in *OUT. */
bool elfsym_check(const char *path, enum mdl_isa isa, struct elfsym_program *out, char *err, size_t errlen);
/* Reads the code of function SYMBOL of the ELF64 file PATH (caller frees *BYTES). Fails with
 * ERR for a file that is not ELF64, another ISA than ISA, no symbol table (stripped), or a
 * missing or empty symbol. */
bool elfsym_function(const char *path, const char *symbol, enum mdl_isa isa, uint8_t **bytes, size_t *len,
                  uint64_t *addr, char *err, size_t errlen);

#endif
