/* A machine given as a description file (--mdl): compiled by mdlc and the C compiler into a
 * shared object, cached by the content of every file the description reads, and loaded. */
#ifndef MDLFILE_H
#define MDLFILE_H
#include <stdbool.h>
#include <stddef.h>
#include "mdl_machine.h"

struct mdlfile_opts {
    const char *path;                   /* the description */
    const char *text;                   /* instead of PATH: this description, kept in the cache root under the
                                         * SHA-256 of its text (a description mdlsim writes, --set) */
    const char *label;                  /* what messages call the description (NULL: PATH) */
    /* mdlc's diagnostics (TEXT, warnings included, again on a cached build) on the description at
     * PATH; NULL: on stderr as mdlc wrote them */
    void (*diagnostics)(const char *text, const char *path, void *arg);
    void *arg;
    const char *const *dirs;            /* -I directories, searched for includes and parents */
    size_t n_dirs;
    const char *tools;                  /* where mdlc is (mdlsim's own directory) */
    const char *cache;                  /* cache root; NULL: $XDG_CACHE_HOME/mdlsim, else ~/.cache/mdlsim */
};

/* Whether NAME names a description file rather than a bundled machine: it ends in ".mdl". */
bool mdlfile_is_path(const char *name);

/* The machine the description at O->path (or O->text) declares. mdlc's diagnostics (warnings
 * included, again on a cached build) go to O->diagnostics. NULL with ERR on failure; ERR is empty
 * when mdlc's diagnostics already say what is wrong. */
const struct mdl_machine *mdlfile_load(const struct mdlfile_opts *o, char *err, size_t errlen);

#endif
