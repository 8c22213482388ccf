/* Starting a program under QEMU user mode as a shell would start it natively. */
#include "launch.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

bool launch_qemu_value(const char *value, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = value; *c; c++) {
        if (n + 2 + (*c == ',') > len)      /* the byte, its double, the NUL */
            return false;
        out[n++] = *c;
        if (*c == ',')
            out[n++] = ',';
    }
    if (len)
        out[n] = 0;
    return len > 0;
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

/* ---- what the program leaves behind ------------------------------------------------------------- */

bool launch_adopt_orphans(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0; }

/* SIGKILL to every child of this process (those of its main thread, which starts QEMU and which
 * the kernel gives orphans to); how many there were. Async-signal-safe: no stdio, no allocation. */
static unsigned kill_children(void)
{
    char path[64] = "/proc/self/task/", digits[16], buf[256];
    size_t n = strlen(path), k = 0;
    for (unsigned long v = (unsigned long)getpid(); k == 0 || v; v /= 10)
        digits[k++] = (char)('0' + v % 10);
    while (k)
        path[n++] = digits[--k];
    memcpy(path + n, "/children", sizeof "/children");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned killed = 0;
    long pid = -1;
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        for (ssize_t i = 0; i < got; i++)
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = (pid < 0 ? 0 : pid * 10) + (buf[i] - '0');
            } else if (pid > 0) {
                kill((pid_t)pid, SIGKILL);
                killed++;
                pid = -1;
            }
        if (got <= 0)
            break;
    }
    if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
        killed++;
    close(fd);
    return killed;
}

/* A child is reaped once its own children are this process's (an orphan goes to its subreaper
 * before its parent can be waited for), so killing the children and reaping one, over and over,
 * reaches every generation; the processes killed can start no more. */
void launch_end_descendants(void)
{
    int saved = errno;
    while (kill_children() > 0) {
        pid_t w;
        while ((w = waitpid(-1, NULL, __WALL)) < 0 && errno == EINTR)
            ;
        if (w < 0)
            break;
    }
    errno = saved;
}
