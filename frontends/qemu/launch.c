/* Starting a program under QEMU user mode as a shell would start it natively. */
#include "launch.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

bool launch_find_program(const char *name, char *path, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return true;
    }
    /* an unset PATH searches what execvp(3) does then */
    const char *dirs = getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin";
    for (const char *d = dirs, *end;; d = end + 1) {
        end = strchrnul(d, ':');
        int n = (int)(end - d);
        /* an empty entry is the current directory */
        if (snprintf(path, len, "%.*s/%s", n ? n : 1, n ? d : ".", name) < (int)len) {
            struct stat st;
            if (*name && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
                return true;
        }
        if (!*end)
            return false;
    }
}

/* Whether the 64-bit ELF file at PATH names a program interpreter (PT_INTERP). */
static bool has_interpreter(const char *path)
{
    FILE *fp = fopen(path, "rb");
    Elf64_Ehdr eh;
    bool elf = fp && fread(&eh, sizeof eh, 1, fp) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
               eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr);
    bool interp = false;
    for (unsigned i = 0; elf && !interp && i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        interp = fseek(fp, (long)(eh.e_phoff + i * sizeof ph), SEEK_SET) == 0 && fread(&ph, sizeof ph, 1, fp) == 1 &&
                 ph.p_type == PT_INTERP;
    }
    if (fp)
        fclose(fp);
    return interp;
}

const char *launch_sysroot(const char *given, const char *cross, const char *program)
{
    struct stat st;
    if (given)
        return given;
    if (!cross || getenv("QEMU_LD_PREFIX") || !has_interpreter(program))
        return NULL;
    return stat(cross, &st) == 0 && S_ISDIR(st.st_mode) ? cross : NULL;
}

bool launch_script(const char *path, char *interp, size_t len, char *arg, size_t arglen)
{
    char line[512];
    FILE *fp = fopen(path, "r");
    bool ok = fp && fgets(line, sizeof line, fp) && strncmp(line, "#!", 2) == 0;
    if (fp)
        fclose(fp);
    if (!ok)
        return false;
    char *p = line + 2 + strspn(line + 2, " \t");
    size_t n = strcspn(p, " \t\r\n");
    if (!n || n >= len)
        return false;
    snprintf(interp, len, "%.*s", (int)n, p);
    p += n + strspn(p + n, " \t");
    size_t m = strcspn(p, "\r\n");
    while (m && (p[m - 1] == ' ' || p[m - 1] == '\t'))
        m--;
    snprintf(arg, arglen, "%.*s", (int)m, p);
    return true;
}

extern char **environ;

/* Starts ARGV with launch_tool's redirections; its pid in *PID, or errno's value. */
static int spawn_tool(char *const argv[], const char *out, const char *err, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (out)
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    else
        posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    if (err)
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

int launch_tool_capped(char *const argv[], const char *out, const char *err, unsigned long long max_file)
{
    pid_t pid;
    int rc = spawn_tool(argv, out, err, &pid), status;
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* posix_spawn returns once the tool runs: it has read nothing yet, let alone written much */
    struct rlimit cap = { max_file, max_file };
    if (max_file)
        prlimit(pid, RLIMIT_FSIZE, &cap, NULL);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int launch_tool(char *const argv[], const char *out, const char *err)
{
    return launch_tool_capped(argv, out, err, 0);
}
