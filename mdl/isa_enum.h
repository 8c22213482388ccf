/* The instruction sets of isa.def as a C enum, for the language's own modules (form keys, the
 * facts of each set) and for the machine tables (runtime/mdl_machine.h), which include it: the
 * one definition both sides of the compiler see. */
#ifndef MDL_ISA_ENUM_H
#define MDL_ISA_ENUM_H

/* The instruction sets of mdl/isa.def (the description's `isa`). */
enum mdl_isa {
#define ISA(e, ...) MDL_ISA_##e,
#include "isa.def"
#undef ISA
    MDL_ISA_COUNT
};

#endif
