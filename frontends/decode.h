/* Decoder frontend: machine code to struct rt_insn through Capstone, with the form key spelt
 * as the machine descriptions spell it (uops.info for x86-64, cortex-a72.mdl for AArch64). */
#ifndef DECODE_H
#define DECODE_H
#include <stddef.h>
#include <stdint.h>
#include "insn.h"
#include "mdl_machine.h"

struct dec;

/* Opens a decoder for ISA; NULL with ERR filled when Capstone cannot be opened. */
struct dec *dec_open(enum mdl_isa isa, char *err, size_t errlen);
void dec_close(struct dec *d);

/* Decodes the instruction at BYTES (at most LEN of them), located at PC, into OUT: every field
 * except tmpl, unknown and eliminated, which cls_apply sets. Returns its length in bytes, or 0
 * with ERR naming the bytes in hex when they start no valid instruction.
 *
 * Conventions the model relies on:
 *  - registers are canonical (insn.h); RIP and the zero registers are never dependencies;
 *  - src holds data reads, implicit ones included (flags of adc/cmovcc/jcc, rax/rdx of div,
 *    rsp of push/pop/call/ret); a write of an 8- or 16-bit x86 register also reads the full
 *    register, since the rest of it is kept;
 *  - push/pop/call/ret read rsp but do not list it as written: Intel's stack engine updates
 *    rsp in the front end, so no dependency chain runs through it. Their stack slot is a mem
 *    entry (base rsp);
 *  - LEA's address operand is a mem entry with neither load nor store set (its registers are
 *    data sources, in src); the classifier reads its shape to pick uops.info's LEA variant. A
 *    RIP-relative operand has base RT_X86_RIP in mem[] (and nothing in addr);
 *  - an AArch64 access with writeback lists its base register as written. */
int dec_one(struct dec *d, const uint8_t *bytes, size_t len, uint64_t pc, struct rt_insn *out, char *err,
            size_t errlen);

/* The destination of IN, the instruction dec_one decoded last, when it is a direct branch
 * (conditional or not); 0 for anything else (no branch, an indirect one, a call, a return). */
uint64_t dec_last_target(const struct dec *d, const struct rt_insn *in);

#endif
