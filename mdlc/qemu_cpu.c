/* Asks the installed QEMU for its CPU models (`qemu-ARCH -cpu help`) and checks the machine's. */
#include "qemu_cpu.h"
#include "alloc.h"
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "isainfo.h"
#include "mdl_machine.h"

extern char **environ;

enum { HELP_MAX = 1 << 20 };

/* QEMU_BIN -cpu help's standard output, or NULL when it cannot be run or lists no models (QEMU
 * 7.2 exits with status 1 after the list: the status says nothing). */
static char *cpu_help(const char *qemu_bin)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    char *argv[] = { (char *)qemu_bin, "-cpu", "help", NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, qemu_bin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    char *text = rc == 0 ? alloc_resize(NULL, HELP_MAX + 1, 1) : NULL;
    size_t n = 0;
    ssize_t got;
    while (text && n < HELP_MAX && (got = read(fds[0], text + n, HELP_MAX - n)) > 0)
        n += (size_t)got;
    close(fds[0]);
    if (rc == 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    if (text)
        text[n] = '\0';
    if (text && !strstr(text, "Available CPUs:\n")) {
        free(text);
        return NULL;
    }
    return text;
}

/* Whether TEXT, a -cpu help listing, names MODEL (LEN bytes). The models are the first word of
 * each line from "Available CPUs:" to the first empty one (x86's lines start with "x86 "; x86
 * then lists its CPUID flags, which are not models). */
static bool listed(const char *text, const char *model, size_t len)
{
    const char *line = strstr(text, "Available CPUs:\n");
    for (const char *end = strchr(line, '\n'); *end && end[1] && end[1] != '\n'; end = strchrnul(line, '\n')) {
        line = end + 1;
        const char *w = line + strspn(line, " \t");
        if (strncmp(w, "x86 ", 4) == 0)
            w += 4 + strspn(w + 4, " ");
        if (len && strncmp(w, model, len) == 0 && strchr(" \t\n", w[len]))
            return true;
    }
    return false;
}

void check_qemu_cpu(struct program *p)
{
    const struct prog_block *b = map_get(&p->block_map, "block:machine");
    const struct param_val *cpu = b ? &b->vals[P_MACHINE_qemu_cpu] : NULL;
    if (!cpu || !cpu->set || !cpu->str[0])
        return;
    /* unset: param.def's default, the first of mdl/isa.def */
    unsigned isa = b->vals[P_MACHINE_isa].set ? (unsigned)b->vals[P_MACHINE_isa].enum_index : 0;
    const char *qemu_bin = isainfo_get(isa)->qemu;
    size_t len = strcspn(cpu->str, ",");
    char *help = cpu_help(qemu_bin);
    if (help && !listed(help, cpu->str, len)) {
        /* the model alone underlined, when the literal spells it without escapes */
        struct span at = cpu->src->value.span;
        if (strncmp(p->sm->files[at.file]->text + at.lo + 1, cpu->str, len) == 0)
            at = (struct span){ .file = at.file, .lo = at.lo + 1, .hi = at.lo + 1 + (uint32_t)len };
        diag_warning(p->diag, at, "%s has no CPU model '%.*s' (see '%s -cpu help'): mdlsim run fails on this "
                     "machine [-Wqemu-cpu]", qemu_bin, (int)len, cpu->str, qemu_bin);
    }
    free(help);
}
