/* The machine's qemu_cpu against the installed QEMU: a model QEMU does not have would make
 * every `mdlsim run` on the machine fail, so mdlc says so when it compiles the description. */
#ifndef MDLC_QEMU_CPU_H
#define MDLC_QEMU_CPU_H
#include "program.h"

/* Warns once when the model of qemu_cpu (before its first ',', the feature flags following) is
 * not among those `qemu-x86_64 -cpu help` (or qemu-aarch64) lists. Nothing when the machine
 * names no model or QEMU is not installed: the description may be meant for another host. */
void check_qemu_cpu(struct program *p);

#endif
