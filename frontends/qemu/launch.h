/* Starting a program under QEMU user mode as a shell would start it natively. */
#ifndef LAUNCH_H
#define LAUNCH_H
#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

/* NAME as a shell finds a command, in PATH (LEN bytes): NAME itself when it has a slash, else
 * the first executable regular file of that name in a directory of $PATH. False when none. */
bool launch_find_program(const char *name, char *path, size_t len);

/* VALUE as a value in a QEMU option list ("-plugin FILE,OPT=VALUE"), into OUT (LEN bytes): QEMU
 * splits the list at each comma, and reads ",," as one comma of the value. False when it does
 * not fit. */
bool launch_qemu_value(const char *value, char *out, size_t len);

/* How a tool run by launch_run ended: one of the four is set. */
struct launch_end {
    int status;             /* its exit status; -1 when it did not exit */
    int signal;             /* the signal that killed it */
    int error;              /* errno when it could not be started */
    int interrupted;        /* SIGINT, SIGTERM or SIGHUP sent to mdlsim while the tool ran: the tool
                             * was killed and reaped, the signal taken, for the caller to clean up
                             * and raise it again */
};

/* SET: the signals that end mdlsim (SIGINT, SIGTERM, SIGHUP) less those it ignores (nohup). */
void launch_fatal_signals(sigset_t *set);

/* Runs the tool ARGV (found through PATH as a shell would) to its end: its input /dev/null, its
 * output into the file OUT (NULL: mdlsim's stderr, never its stdout, which carries results), its
 * errors into the file ERR (NULL: mdlsim's stderr). A fatal signal to mdlsim meanwhile kills it. */
struct launch_end launch_run(char *const argv[], const char *out, const char *err);

/* E in words, after the tool's name: "exited with status 1", "was killed by signal 9 (Killed)",
 * "could not be started: No such file or directory", "was stopped by signal 15 (Terminated)". */
const char *launch_describe(const struct launch_end *e, char *buf, size_t len);

/* launch_run's tool's exit status, 128 + N when signal N killed it, or -1 with errno when it could
 * not be started; a fatal signal to mdlsim meanwhile is raised again once the tool is gone. */
int launch_tool(char *const argv[], const char *out, const char *err);
/* The same, each file the tool writes limited to MAX_FILE bytes (0: no limit): a write beyond
 * fails, or SIGXFSZ ends the tool, long before a runaway output fills the disk. */
int launch_tool_capped(char *const argv[], const char *out, const char *err, unsigned long long max_file);

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
