/* Assembly input for block analysis: the system assembler turns FILE.s into bytes. */
#ifndef ASM_H
#define ASM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mdl_machine.h"

/* A named part of the code: a region between llvm-mca's markers ("# LLVM-MCA-BEGIN [NAME]" and
 * "# LLVM-MCA-END", '//' for AArch64 too), or a symbol of the file (a function). */
struct asm_mark {
    char name[128];
    size_t start, end;          /* bytes of .text; a symbol's end is the next symbol's start */
};

struct asm_code {
    uint8_t *bytes;             /* the .text section */
    size_t len;
    struct asm_mark *regions, *symbols;
    size_t n_regions, n_symbols;
};

/* Assembles PATH for ISA into CODE (asm_free releases it). False with ERR holding the
 * assembler's own messages when the file does not assemble, or naming a marker without its pair. */
bool asm_assemble(const char *path, enum mdl_isa isa, struct asm_code *code, char *err, size_t errlen);
void asm_free(struct asm_code *code);

#endif
