/* Test guest for the QEMU plugin's multi-process and multi-thread handling.
 *   threads fork:    checks that fd 3 is free, starts and joins a thread, forks a child that exits
 *                    with 3, waits for it and exits with 5
 *   threads exit:    a second thread ends the process with exit(9) while the main thread spins */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static void *work(void *arg)
{
    for (unsigned long i = 0; i < 100000; i++)
        sink += i;
    if (arg)
        exit(9);
    return NULL;
}

static int fork_case(void)
{
    if (open("/dev/null", O_RDONLY) != 3)
        return 10;   /* the plugin's stream must not be visible to the guest at fd 3 */
    pthread_t t;
    pthread_create(&t, NULL, work, NULL);
    pthread_join(t, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        work(NULL);
        _exit(3);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 3 ? 5 : 11;
}

static int exit_case(void)
{
    pthread_t t;
    pthread_create(&t, NULL, work, (void *)1);
    for (;;)
        sink++;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "fork") == 0)
        return fork_case();
    if (argc == 2 && strcmp(argv[1], "exit") == 0)
        return exit_case();
    return 2;
}
