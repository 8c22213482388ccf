/* The layers of the code: mdl/ (the language) includes nothing above it; runtime/ (the model)
 * includes itself and mdl/ only, never the frontends; of the frontends, block mode (static/) uses
 * no part of the QEMU frontend (qemu/), and what both need of the host (frontends/host/) needs
 * only the language. Each quoted include of a layer's files must name a file of a layer it may
 * use, or one that the build generates. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What the build writes into build/ and the layers include by name. */
static const char *const generated[] = { "parser.h", "lexer.gen.h", "git_version.h" };

/* Whether NAME, looked up from directory FROM, is a file of directory IN (not of one below or
 * beside it that a "../" reaches). */
static bool file_of(const char *from, const char *name, const char *in)
{
    char path[512], file[PATH_MAX], dir[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", from, name);
    if (!realpath(path, file) || !realpath(in, dir))
        return false;
    char *slash = strrchr(file, '/');
    *slash = '\0';
    return !strcmp(file, dir);
}

/* Whether NAME, included by a file of DIR, is a file of DIR itself or of one of ALLOWED (looked
 * up from DIR, or from ALLOWED as the include path would), or a generated file. */
static bool allowed(const char *dir, const char *name, const char *const *allowed_dirs, size_t n)
{
    if (file_of(dir, name, dir))
        return true;
    for (size_t k = 0; k < n; k++)
        if (file_of(dir, name, allowed_dirs[k]) || file_of(allowed_dirs[k], name, allowed_dirs[k]))
            return true;
    for (size_t k = 0; k < sizeof generated / sizeof *generated; k++)
        if (!strcmp(name, generated[k]))
            return true;
    return false;
}

/* Every quoted include of the files of DIR (its direct files) resolves within ALLOWED; the
 * offending include goes to BAD. */
static unsigned check_dir(const char *dir, const char *const *allowed_dirs, size_t n, char *bad, size_t badlen)
{
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s", dir);
    unsigned includes = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".c") && strcmp(dot, ".h") && strcmp(dot, ".y") && strcmp(dot, ".l")))
            continue;
        char path[512], line[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "r");
        cr_assert(fp, "cannot read %s", path);
        while (fgets(line, sizeof line, fp)) {
            char name[256];
            if (sscanf(line, " #include \"%255[^\"]\"", name) != 1)
                continue;
            includes++;
            if (!allowed(dir, name, allowed_dirs, n) && !bad[0])
                snprintf(bad, badlen, "%s includes \"%s\"", path, name);
        }
        fclose(fp);
    }
    closedir(d);
    return includes;
}

Test(layering, nothing_in_mdl_includes_a_header_of_the_runtime_or_the_frontends)
{
    char bad[1024] = "";
    cr_assert_gt(check_dir("../mdl", NULL, 0, bad, sizeof bad), 20);
    cr_expect_eq(bad[0], '\0', "%s", bad);
}

Test(layering, the_runtime_includes_only_itself_and_the_language)
{
    static const char *const below[] = { "../mdl", "../runtime", "../runtime/policy", "../runtime/predictor" };
    char bad[1024] = "";
    for (size_t k = 1; k < sizeof below / sizeof *below; k++)
        check_dir(below[k], below, sizeof below / sizeof *below, bad, sizeof bad);
    cr_expect_eq(bad[0], '\0', "%s", bad);
}

Test(layering, block_mode_includes_nothing_of_the_qemu_frontend)
{
    static const char *const below[] = { "../mdl", "../runtime", "../runtime/policy", "../runtime/predictor",
                                         "../frontends", "../frontends/isa", "../frontends/host",
                                         "../frontends/analysis", "../frontends/views" };
    char bad[1024] = "";
    cr_assert_gt(check_dir("../frontends/static", below, sizeof below / sizeof *below, bad, sizeof bad), 10);
    cr_expect_eq(bad[0], '\0', "%s", bad);
}

Test(layering, the_host_helpers_include_only_themselves_and_the_language)
{
    static const char *const below[] = { "../mdl" };
    char bad[1024] = "";
    cr_assert_gt(check_dir("../frontends/host", below, 1, bad, sizeof bad), 0);
    cr_expect_eq(bad[0], '\0', "%s", bad);
}
