/* The instruction sets' shared facts: one entry per line of mdl/isa.def. */
#include "isainfo.h"

static const struct isainfo isainfo_table[MDL_ISA_COUNT] = {
#define ISA(e, name, title, qemu, arch, mode, insns, regs) [MDL_ISA_##e] = { name, title, qemu, arch, mode, insns, regs },
#include "isa.def"
#undef ISA
};

const struct isainfo *isainfo_get(unsigned isa) { return isa < MDL_ISA_COUNT ? &isainfo_table[isa] : NULL; }
