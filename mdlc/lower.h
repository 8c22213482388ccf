/* Pass 3: a checked description to the runtime's tables (runtime/mdl_machine.h). */
#ifndef MDLC_LOWER_H
#define MDLC_LOWER_H
#include "mdl_machine.h"
#include "program.h"

enum { LOWER_MAX_RESOURCES = 4096 };

/* Builds the machine in P's arena; NULL (with an error reported) when it cannot. */
struct mdl_machine *lower_program(struct program *p);

#endif
