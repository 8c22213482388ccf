/* Starting a program under QEMU user mode as a shell would start it natively. */
#ifndef LAUNCH_H
#define LAUNCH_H
#include <stdbool.h>
#include <stddef.h>

/* NAME as a shell finds a command, in PATH (LEN bytes): NAME itself when it has a slash, else
 * the first executable regular file of that name in a directory of $PATH. False when none. */
bool launch_find_program(const char *name, char *path, size_t len);

/* VALUE as a value in a QEMU option list ("-plugin FILE,OPT=VALUE"), into OUT (LEN bytes): QEMU
 * splits the list at each comma, and reads ",," as one comma of the value. False when it does
 * not fit. */
bool launch_qemu_value(const char *value, char *out, size_t len);

/* The interpreter a script at PATH names on its first line ("#!INTERP [ARG]", as the kernel
 * reads it: ARG is the rest of the line, one argument), into INTERP and ARG ("" when none).
 * False when PATH does not start with "#!" or names no interpreter. */
bool launch_script(const char *path, char *interp, size_t len, char *arg, size_t arglen);

/* The root QEMU looks for a guest's interpreter and libraries under (its -L): GIVEN (--sysroot)
 * when there is one; else, for a dynamically linked program (an ELF interpreter) of an ISA whose
 * libraries come from a cross toolchain, that toolchain's root CROSS (struct isa_ops' sysroot:
 * gcc-aarch64-linux-gnu's for AArch64) when it is installed and QEMU_LD_PREFIX does not name one;
 * else NULL (CROSS NULL: x86-64 guests use the host's libraries). */
const char *launch_sysroot(const char *given, const char *cross, const char *program);

/* What the program leaves behind: mdlsim becomes the subreaper of its descendants (a guest's
 * child whose parent exits is adopted by mdlsim, not init), so that it can end them all. False
 * when the kernel refuses. */
bool launch_adopt_orphans(void);
/* Kills every descendant (SIGKILL) and reaps them, generation after generation, until this
 * process has no child left; the program's own QEMU included, so call it once that one has been
 * waited for, or to end it. Async-signal-safe: the handler of a fatal signal calls it. */
void launch_end_descendants(void);

#endif
