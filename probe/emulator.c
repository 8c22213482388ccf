/* Emulator detection by CPUID: QEMU's binary translator (TCG, in user mode as qemu-x86_64 and in
 * system mode without an accelerator) sets the hypervisor bit and signs leaf 0x40000000 "TCGTCGTCGTCG". */
#include "emulator.h"
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

const char *emulator_of_signature(const char sig[12])
{
    return memcmp(sig, "TCGTCGTCGTCG", 12) == 0 ? "QEMU (TCG, its binary translator)" : NULL;
}

/* Prints the signature's 12 bytes, the unprintable ones (KVM pads with NULs) left out. */
static void printable(char *out, const char sig[12])
{
    size_t n = 0;
    for (size_t i = 0; i < 12; i++)
        if (sig[i] >= ' ' && sig[i] <= '~')
            out[n++] = sig[i];
    out[n] = 0;
}

bool emulator_detect(char *why, size_t len)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    /* Leaf 0x40000000 is the hypervisor's only when CPUID.1:ECX bit 31 says there is one; on bare
     * metal it returns the highest basic leaf's values. */
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31))) {
        snprintf(why, len, "no hypervisor (CPUID.1:ECX bit 31 clear)");
        return false;
    }
    char sig[12], shown[13];
    __cpuid(0x40000000, a, b, c, d);
    memcpy(sig, &b, 4), memcpy(sig + 4, &c, 4), memcpy(sig + 8, &d, 4);
    printable(shown, sig);
    const char *emu = emulator_of_signature(sig);
    if (emu)
        snprintf(why, len, "this is an emulator, %s: CPUID's hypervisor signature is '%s'; its timings say "
                 "nothing of a core", emu, shown);
    else
        snprintf(why, len, "a hypervisor that runs code on the core, signed '%s' (CPUID 0x40000000)", shown);
    return emu != NULL;
#else
    snprintf(why, len, "not x86-64");
    return false;
#endif
}
