/* What a test builds with the language library (an arena, the sources, a diagnostics stream),
 * released before it builds again: a test may parse or resolve several texts. */
#ifndef TESTS_FIXTURE_H
#define TESTS_FIXTURE_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "arena.h"
#include "source.h"

static inline void fixture_release(struct arena *ar, struct src_manager *sm, FILE **errf, char **errbuf, bool *live)
{
    if (!*live)
        return;
    fclose(*errf);
    *errf = NULL;
    free(*errbuf);
    *errbuf = NULL;
    src_free(sm);
    arena_free(ar);
    *live = false;
}

#endif
