/* Assembly input for block analysis: the system assembler turns FILE.s into bytes. */
#ifndef ASM_H
#define ASM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mdl_machine.h"

/* Assembles PATH for ISA and returns the bytes of its .text section (caller frees). False with
 * ERR holding the assembler's own messages when the file does not assemble. */
bool asm_assemble(const char *path, enum mdl_isa isa, uint8_t **bytes, size_t *len, char *err, size_t errlen);

#endif
