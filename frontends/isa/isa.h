/* What differs from one ISA to another in the frontends, one table of operations per ISA
 * (isa.def): register naming and numbering, how an instruction's facts are derived, the ELF
 * machine, the cross tools and sysroot; its names, QEMU's binary and Capstone's arch are the
 * compiler's too (mdl/isa.def, isainfo.h). Code that must differ by ISA asks the tables. */
#ifndef ISA_H
#define ISA_H
#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "insn.h"
#include "isainfo.h"
#include "mdl_machine.h"

struct dec;

struct isa_ops {
    /* Decoded once by whoever opens the first decoder (Capstone 4 builds a table at the first
     * decode of some forms, with no lock), before any thread decodes; NULL for none. */
    const uint8_t *warm_up;
    size_t warm_up_len;
    /* Caches a block's decoded instructions by their bytes (block mode): every instruction
     * decodes the same wherever it is, except relative branches, which the cache leaves out. */
    bool cache_decodes;
    uint16_t elf_machine;       /* e_machine of its programs (EM_X86_64) */
    const char *sysroot;        /* the cross toolchain's root that a dynamically linked guest's
                                   interpreter and libraries come from, NULL for the host's */
    const char *as, *objcopy, *objdump;     /* the binutils that read its assembly */
    /* A Capstone register name as a canonical register (insn.h) and its decoder class (enum
     * dec_rclass, decode_impl.h): RT_REG_NONE and DEC_RC_NONE when it has none. */
    void (*reg_info)(const char *name, uint8_t *canon, uint8_t *rc);
    /* Every fact of struct rt_insn but the encoding, the text and what cls_apply sets, the
     * decoder's facts included (stack, stack_reg, flags_reg, merge, alt_key). */
    void (*fill)(const struct dec *d, const cs_insn *ci, struct rt_insn *o);
    /* The destination of CI, a direct branch (conditional or not). */
    uint64_t (*direct_target)(const cs_insn *ci);
};

#define X(isa, ops) extern const struct isa_ops ops;
#include "isa.def"
#undef X

/* The operations of ISA; NULL when it is none of isa.def's (a corrupt trace). */
const struct isa_ops *isa_get(unsigned isa);
/* "x86_64 (0) nor aarch64 (1)": the ISAs and their numbers, for a message that says "neither". */
void isa_list(char *buf, size_t len);

#endif
