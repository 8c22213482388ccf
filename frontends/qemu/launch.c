/* Starting a program under QEMU user mode as a shell would start it natively. */
#include "launch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
