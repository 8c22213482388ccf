/* libFuzzer harness: a description's bytes through the whole of mdlc (parse, resolve, check, lower,
 * emit C and JSON). Includes resolve against the bundled machines' directory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "arena.h"
#include "check.h"
#include "diag.h"
#include "emit.h"
#include "lower.h"
#include "program.h"
#include "resolve.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file: the front end reads descriptions from paths (and their includes). */
static const char *as_file(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz-mdl-%ld.mdl", (long)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return NULL;
    fwrite(data, 1, size, fp);
    fclose(fp);
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = as_file(data, size);
    if (!path)
        return 0;
    struct arena ar;
    struct src_manager sm;
    struct diag dg;
    arena_init(&ar);
    src_init(&sm);
    FILE *sink = fopen("/dev/null", "w");
    diag_init(&dg, &sm, sink);
    struct program p = { .ar = &ar, .sm = &sm, .diag = &dg };
    static const char *const dirs[] = { "machines" };
    struct resolve_opts ro = { dirs, 1 };
    if (resolve_program(&p, path, &ro) && check_program(&p) && !diag_failed(&dg)) {
        struct mdl_machine *m = lower_program(&p);
        if (m) {
            struct emit_info info = { "fuzz.mdl", emit_c_ident(&ar, m->name), "fuzz.h" };
            emit_c_source(sink, m, &info);
            emit_c_header(sink, m, &info);
            emit_json(sink, m);
            emit_summary(sink, m);
        }
    }
    fclose(sink);
    src_free(&sm);
    arena_free(&ar);
    return 0;
}
