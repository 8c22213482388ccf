/* Running a host tool (the assembler, mdlc, the C compiler) to its end, as mdlsim's own child:
 * its output into files, a fatal signal to mdlsim meanwhile ending it too. */
#ifndef PROC_H
#define PROC_H
#include <signal.h>
#include <stddef.h>

/* How a tool run by proc_run ended: one of the four is set. */
struct proc_end {
    int status;             /* its exit status; -1 when it did not exit */
    int signal;             /* the signal that killed it */
    int error;              /* errno when it could not be started */
    int interrupted;        /* SIGINT, SIGTERM or SIGHUP sent to mdlsim while the tool ran: the tool
                             * was killed and reaped, the signal taken, for the caller to clean up
                             * and raise it again */
};

/* SET: the signals that end mdlsim (SIGINT, SIGTERM, SIGHUP) less those it ignores (nohup). */
void proc_fatal_signals(sigset_t *set);

/* Runs the tool ARGV (found through PATH as a shell would) to its end: its input /dev/null, its
 * output into the file OUT (NULL: mdlsim's stderr, never its stdout, which carries results), its
 * errors into the file ERR (NULL: mdlsim's stderr). A fatal signal to mdlsim meanwhile kills it. */
struct proc_end proc_run(char *const argv[], const char *out, const char *err);

/* E in words, after the tool's name: "exited with status 1", "was killed by signal 9 (Killed)",
 * "could not be started: No such file or directory", "was stopped by signal 15 (Terminated)". */
const char *proc_describe(const struct proc_end *e, char *buf, size_t len);

/* proc_run's tool's exit status, 128 + N when signal N killed it, or -1 with errno when it could
 * not be started, each file the tool writes limited to MAX_FILE bytes (0: no limit: a write beyond
 * fails, or SIGXFSZ ends the tool, long before a runaway output fills the disk); a fatal signal to
 * mdlsim meanwhile is raised again once the tool is gone. */
int proc_tool(char *const argv[], const char *out, const char *err, unsigned long long max_file);

#endif
