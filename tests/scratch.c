/* The test run's private scratch directory: made by the runner before Criterion starts its
 * workers, handed to them through the environment, removed after the last test. */
#include "scratch.h"
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/stats.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set only in the process that made the directory: the one that removes it. */
static char made[PATH_MAX];

static int scratch_unlink(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);               /* what cannot be removed stays: a leftover fails no test */
    return 0;
}

static void scratch_remove(void)
{
    if (made[0])
        nftw(made, scratch_unlink, 16, FTW_DEPTH | FTW_PHYS);
    made[0] = '\0';
}

/* Workers are new processes (Criterion re-executes the runner): they find the directory in the
 * environment. A process that finds none (a test run without the runner's hooks) makes its own. */
const char *scratch_dir(void)
{
    const char *dir = getenv(SCRATCH_ENV);
    if (dir && *dir)
        return dir;
    const char *base = getenv("TMPDIR");
    snprintf(made, sizeof made, "%s/mdlsim-tests.XXXXXX", base && *base ? base : "/tmp");
    /* (the runner calls this outside any test: no cr_assert there) */
    if (!mkdtemp(made) || setenv(SCRATCH_ENV, made, 1) != 0) {
        perror(made);
        abort();
    }
    atexit(scratch_remove);
    return getenv(SCRATCH_ENV);
}

const char *scratch_path(const char *name)
{
    static char ring[32][PATH_MAX];
    static unsigned next;
    char *buf = ring[next++ % 32];
    snprintf(buf, PATH_MAX, "%s/%s", scratch_dir(), name);
    return buf;
}

const char *scratch_expand(const char *text, char *buf, size_t len)
{
    static const char var[] = "$" SCRATCH_ENV;
    size_t n = 0;
    buf[0] = '\0';
    for (const char *at; n < len && (at = strstr(text, var)) != NULL; text = at + strlen(var))
        n += (size_t)snprintf(buf + n, len - n, "%.*s%s", (int)(at - text), text, scratch_dir());
    if (n < len)
        snprintf(buf + n, len - n, "%s", text);
    return buf;
}

/* A directory inherited from an outer run (a test suite started by a test) is not this run's. */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    unsetenv(SCRATCH_ENV);
    scratch_dir();
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    scratch_remove();
}
