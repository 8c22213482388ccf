/* What a test reads back from a command run through the shell: its output and exit status. */
#ifndef TESTS_CAPTURE_H
#define TESTS_CAPTURE_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

struct run {
    char *out;                  /* what CMD's redirections send to the pipe (the caller frees it) */
    int status;                 /* its exit status; -1 when killed */
};

static inline struct run capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run %s", cmd);
    struct run r = { NULL, 0 };
    size_t len = 0;
    FILE *mem = open_memstream(&r.out, &len);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(mem);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

#endif
