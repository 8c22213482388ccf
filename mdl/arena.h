/* Bump allocation for everything one compilation builds (tokens, AST, lowered tables):
 * nodes live until the compilation ends, so nothing is freed one by one. */
#ifndef MDL_ARENA_H
#define MDL_ARENA_H
#include <stddef.h>

struct arena {
    struct arena_block *head;
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
void *arena_alloc(struct arena *a, size_t size);          /* zeroed; aborts on OOM */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Growable array whose storage comes from an arena: the old storage is abandoned on growth,
 * which costs at most twice the final size and keeps every AST node free of destructors. */
#define VEC(T) struct { T *v; size_t n, cap; }
#define vec_push(ar, vec, item) do { \
        if ((vec)->n == (vec)->cap) \
            arena_grow((ar), (void **)&(vec)->v, &(vec)->cap, sizeof *(vec)->v); \
        (vec)->v[(vec)->n++] = (item); \
    } while (0)
void arena_grow(struct arena *a, void **v, size_t *cap, size_t elem);

#endif
