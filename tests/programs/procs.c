/* A guest that plays with processes, to see that nothing it starts outlives `mdlsim run`:
 *   procs term|kill  forks a child that spins, prints "PID CHILD", sends mdlsim (its parent)
 *                    SIGTERM or SIGKILL and waits for the child
 *   procs leave      forks a child that spins, prints "PID CHILD" and exits 0
 *   procs hup        sends mdlsim SIGHUP, then exits 0
 *   procs exec PROG [ARG...]  replaces itself with PROG */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t spinning_child(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        for (volatile unsigned long i = 0;; i++)
            ;
    printf("%d %d\n", (int)getpid(), (int)pid);
    fflush(stdout);
    return pid;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "term") == 0 || strcmp(mode, "kill") == 0) {
        pid_t child = spinning_child();
        kill(getppid(), mode[0] == 't' ? SIGTERM : SIGKILL);
        waitpid(child, NULL, 0);
        return 1;
    }
    if (strcmp(mode, "leave") == 0)
        return spinning_child() < 0;
    if (strcmp(mode, "hup") == 0)
        return kill(getppid(), SIGHUP) != 0;
    if (strcmp(mode, "exec") == 0 && argc > 2) {
        execv(argv[2], argv + 2);
        perror(argv[2]);
        return 126;
    }
    fprintf(stderr, "usage: procs term|kill|leave|hup|exec PROG [ARG...]\n");
    return 2;
}
