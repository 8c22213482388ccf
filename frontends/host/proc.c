/* Running a host tool to its end, as mdlsim's own child (proc.h). */
#include "proc.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void proc_fatal_signals(sigset_t *set)
{
    static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };
    sigemptyset(set);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction sa;
        if (sigaction(fatal[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(set, fatal[i]);
    }
}

/* Waits for PID with SET (SIGCHLD and the fatal signals) blocked: the tool's end, or a fatal
 * signal, after which the tool is killed so that it does not outlive mdlsim. */
static void wait_tool(pid_t pid, const sigset_t *set, struct proc_end *e)
{
    /* a SIGCHLD lost (inherited as ignored) costs a second at most */
    const struct timespec poll = { .tv_sec = 1 };
    int status = 0;
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) {
        int sig = sigtimedwait(set, NULL, &poll);
        if (sig > 0 && sig != SIGCHLD) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                continue;
            e->interrupted = sig;
            return;
        }
    }
    if (r < 0)
        e->error = errno;
    else if (WIFEXITED(status))
        e->status = WEXITSTATUS(status);
    else
        e->signal = WTERMSIG(status);
}

/* proc_run, each file the tool writes limited to MAX_FILE bytes (0: no limit) */
static struct proc_end run_capped(char *const argv[], const char *out, const char *err, unsigned long long max_file)
{
    struct proc_end e = { .status = -1 };
    sigset_t set, old, child;
    proc_fatal_signals(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    /* the tool starts with the signals mdlsim had unblocked, whatever it blocks to wait */
    child = old;
    sigdelset(&child, SIGINT), sigdelset(&child, SIGTERM), sigdelset(&child, SIGHUP), sigdelset(&child, SIGCHLD);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &child);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (out)
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    else
        posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    if (err)
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    /* posix_spawn returns once the tool runs: it has read nothing yet, let alone written much */
    struct rlimit cap = { max_file, max_file };
    if (rc == 0 && max_file)
        prlimit(pid, RLIMIT_FSIZE, &cap, NULL);
    if (rc != 0)
        e.error = rc;
    else
        wait_tool(pid, &set, &e);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return e;
}

const char *proc_describe(const struct proc_end *e, char *buf, size_t len)
{
    if (e->interrupted)
        snprintf(buf, len, "was stopped by signal %d (%s)", e->interrupted, strsignal(e->interrupted));
    else if (e->error)
        snprintf(buf, len, "could not be started: %s", strerror(e->error));
    else if (e->signal)
        snprintf(buf, len, "was killed by signal %d (%s)", e->signal, strsignal(e->signal));
    else
        snprintf(buf, len, "exited with status %d", e->status);
    return buf;
}

struct proc_end proc_run(char *const argv[], const char *out, const char *err)
{
    return run_capped(argv, out, err, 0);
}

int proc_tool(char *const argv[], const char *out, const char *err, unsigned long long max_file)
{
    struct proc_end e = run_capped(argv, out, err, max_file);
    if (e.interrupted)
        raise(e.interrupted);
    errno = e.error ? e.error : EINTR;
    return e.error || e.interrupted ? -1 : e.signal ? 128 + e.signal : e.status;
}
