/* Bump allocator: large blocks carved sequentially, released all at once. */
#include "arena.h"
#include "alloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 1 << 20 };

void arena_init(struct arena *a) { a->head = NULL; }

void arena_free(struct arena *a)
{
    while (a->head) {
        struct arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

static struct arena_block *arena_new_block(struct arena *a, size_t need)
{
    size_t size = need > ARENA_BLOCK ? need : ARENA_BLOCK;
    struct arena_block *b = alloc_resize(NULL, 1, sizeof *b + size);
    b->used = 0;
    b->size = size;
    b->next = a->head;
    a->head = b;
    return b;
}

void *arena_alloc(struct arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    struct arena_block *b = a->head;
    if (!b || b->size - b->used < size)
        b = arena_new_block(a, size);
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_grow(struct arena *a, void **v, size_t *cap, size_t elem)
{
    size_t ncap = *cap ? *cap * 2 : 4;
    void *nv = arena_alloc(a, ncap * elem);
    if (*v)
        memcpy(nv, *v, *cap * elem);
    *v = nv;
    *cap = ncap;
}
