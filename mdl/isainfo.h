/* What the compiler and the frontends both need to know of an instruction set, from mdl/isa.def:
 * its names, QEMU's binary for it and how Capstone opens it. */
#ifndef ISAINFO_H
#define ISAINFO_H
#include <capstone/capstone.h>
#include "isa_enum.h"

struct isainfo {
    const char *name;           /* "x86_64": the description's and QEMU's */
    const char *title;          /* "x86-64", in messages */
    const char *qemu;           /* "qemu-x86_64" */
    cs_arch cs_arch;
    cs_mode cs_mode;
    unsigned cs_insns, cs_regs; /* Capstone's instruction and register ids run below these */
};

/* ISA's facts; NULL when ISA is none of isa.def's (a corrupt trace). */
const struct isainfo *isainfo_get(unsigned isa);

#endif
