/* Runs `as` (or the AArch64 cross assembler) and `objcopy` in a private temporary directory;
 * the block is the whole .text section. */
#include "asm.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs ARGV with stderr into LOG; true when it exits 0. */
static bool run(char *const argv[], const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (!freopen(log, "w", stderr))
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The tool's own messages, on one line, after what failed. */
static void read_log(const char *log, const char *what, char *err, size_t errlen)
{
    size_t n = (size_t)snprintf(err, errlen, "%s failed: ", what);
    FILE *fp = fopen(log, "r");
    if (!fp || n >= errlen)
        return;
    size_t got = fread(err + n, 1, errlen - n - 1, fp);
    fclose(fp);
    while (got > 0 && err[n + got - 1] == '\n')
        got--;
    err[n + got] = '\0';
    for (char *c = err + n; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

static bool read_bytes(const char *path, uint8_t **bytes, size_t *len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st) != 0) {
        snprintf(err, errlen, "cannot read the assembled code: %s", strerror(errno));
        if (fp)
            fclose(fp);
        return false;
    }
    *len = (size_t)st.st_size;
    *bytes = malloc(*len ? *len : 1);
    bool ok = *bytes && fread(*bytes, 1, *len, fp) == *len;
    fclose(fp);
    if (ok && *len == 0) {
        snprintf(err, errlen, "the file has no instructions in .text");
        ok = false;
    }
    if (!ok)
        free(*bytes);
    return ok;
}

bool asm_assemble(const char *path, enum mdl_isa isa, uint8_t **bytes, size_t *len, char *err, size_t errlen)
{
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return false;
    }
    char dir[] = "/tmp/mdlsim-asm-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        return false;
    }
    char obj[64], bin[64], log[64];
    snprintf(obj, sizeof obj, "%s/a.o", dir);
    snprintf(bin, sizeof bin, "%s/a.bin", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    const char *as = isa == MDL_ISA_AARCH64 ? "aarch64-linux-gnu-as" : "as";
    const char *objcopy = isa == MDL_ISA_AARCH64 ? "aarch64-linux-gnu-objcopy" : "objcopy";
    char *as_argv[] = { (char *)as, "-o", obj, (char *)path, NULL };
    char *oc_argv[] = { (char *)objcopy, "-O", "binary", "-j", ".text", obj, bin, NULL };
    bool ok = false;
    if (!run(as_argv, log))
        read_log(log, as, err, errlen);
    else if (!run(oc_argv, log))
        read_log(log, objcopy, err, errlen);
    else
        ok = read_bytes(bin, bytes, len, err, errlen);
    unlink(obj);
    unlink(bin);
    unlink(log);
    rmdir(dir);
    return ok;
}
