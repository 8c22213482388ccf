/* The table of ISAs: one entry per line of isa.def, in the order of enum mdl_isa. */
#include "isa.h"
#include <stdio.h>

static const struct isa_ops *const table[] = {
#define X(isa, ops) [MDL_ISA_##isa] = &ops,
#include "isa.def"
#undef X
};

_Static_assert(sizeof table / sizeof *table == MDL_ISA_COUNT, "isa.def lists every enum mdl_isa");

const struct isa_ops *isa_get(unsigned isa) { return isa < MDL_ISA_COUNT ? table[isa] : NULL; }

void isa_list(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < MDL_ISA_COUNT && n < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == MDL_ISA_COUNT ? " nor " : ", ";
        int k = snprintf(buf + n, len - n, "%s%s (%u)", sep, isainfo_get(i)->name, i);
        n += k > 0 ? (size_t)k : 0;
    }
}
