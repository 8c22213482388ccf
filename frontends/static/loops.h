/* The loops of a piece of code (a function, an assembly file): back edges, the direct branches
 * to an earlier address of the same code, and the innermost loop bodies they close. */
#ifndef LOOPS_H
#define LOOPS_H
#include <stddef.h>
#include <stdint.h>
#include "decode.h"

/* A loop body: bytes [start, end) of the code, from the back edge's target to the end of the
 * branch that closes it. */
struct loop {
    size_t start, end;
};

/* The innermost loops of CODE (LEN bytes at address PC), in address order: a back edge's range
 * holding no other back edge's range. All of them, *N, in an array the caller frees (NULL when
 * there is no back edge). Bytes that decode as no instruction are stepped over one by one. */
struct loop *loops_find(struct dec *d, const uint8_t *code, size_t len, uint64_t pc, size_t *n);

#endif
