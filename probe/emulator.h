/* Whether mdlprobe runs under an emulator, decided from what the processor says of itself (CPUID's
 * hypervisor leaf), not from timings: a loaded host times like an emulator, a VM does not emulate. */
#ifndef PROBE_EMULATOR_H
#define PROBE_EMULATOR_H
#include <stdbool.h>
#include <stddef.h>

/* The emulator a hypervisor signature (CPUID leaf 0x40000000's 12 bytes, EBX ECX EDX) names, or
 * NULL for a hypervisor that runs the code on the core (KVM, bhyve, Hyper-V, VMware, Xen...). */
const char *emulator_of_signature(const char sig[12]);
/* Whether this process runs under an emulator; WHY says which and from what fact, else what the
 * processor says (no hypervisor, or the hypervisor's signature) for the progress. */
bool emulator_detect(char *why, size_t len);

#endif
