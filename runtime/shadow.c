/* Open-addressing hash of word addresses to lane-contiguous time entries. */
#include "shadow.h"
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        abort();
    return p;
}

void shadow_init(struct shadow *sh, unsigned lanes)
{
    memset(sh, 0, sizeof *sh);
    sh->lanes = lanes;
    sh->cap = 1024;
    sh->keys = calloc(sh->cap, sizeof *sh->keys);
    sh->index = calloc(sh->cap, sizeof *sh->index);
    if (!sh->keys || !sh->index)
        abort();
}

void shadow_free(struct shadow *sh)
{
    free(sh->keys);
    free(sh->index);
    free(sh->times);
    free(sh->seq);
    free(sh->cls);
    memset(sh, 0, sizeof *sh);
}

static uint32_t hash_word(uint64_t w, uint32_t cap)
{
    w ^= w >> 33;
    w *= 0xff51afd7ed558ccdull;
    w ^= w >> 33;
    return (uint32_t)w & (cap - 1);
}

/* Entry of word W, or UINT32_MAX. */
static uint32_t find(const struct shadow *sh, uint64_t w)
{
    for (uint32_t i = hash_word(w, sh->cap);; i = (i + 1) & (sh->cap - 1)) {
        if (sh->keys[i] == 0)
            return UINT32_MAX;
        if (sh->keys[i] == w + 1)
            return sh->index[i];
    }
}

static void grow(struct shadow *sh)
{
    uint64_t *keys = sh->keys;
    uint32_t *index = sh->index, cap = sh->cap;
    sh->cap *= 2;
    sh->keys = calloc(sh->cap, sizeof *sh->keys);
    sh->index = calloc(sh->cap, sizeof *sh->index);
    if (!sh->keys || !sh->index)
        abort();
    for (uint32_t i = 0; i < cap; i++) {
        if (!keys[i])
            continue;
        uint32_t j = hash_word(keys[i] - 1, sh->cap);
        while (sh->keys[j])
            j = (j + 1) & (sh->cap - 1);
        sh->keys[j] = keys[i];
        sh->index[j] = index[i];
    }
    free(keys);
    free(index);
}

static uint32_t insert(struct shadow *sh, uint64_t w)
{
    uint32_t e = find(sh, w);
    if (e != UINT32_MAX)
        return e;
    if (2 * (sh->n + 1) > sh->cap)
        grow(sh);
    if (sh->n == sh->entries_cap) {
        sh->entries_cap = sh->entries_cap ? 2 * sh->entries_cap : 256;
        sh->times = xrealloc(sh->times, (size_t)sh->entries_cap * sh->lanes * sizeof *sh->times);
        sh->seq = xrealloc(sh->seq, (size_t)sh->entries_cap * sizeof *sh->seq);
        sh->cls = xrealloc(sh->cls, (size_t)sh->entries_cap * sizeof *sh->cls);
    }
    e = sh->n++;
    memset(&sh->times[(size_t)e * sh->lanes], 0, sh->lanes * sizeof *sh->times);
    sh->seq[e] = 0;
    sh->cls[e] = 0xff;
    uint32_t i = hash_word(w, sh->cap);
    while (sh->keys[i])
        i = (i + 1) & (sh->cap - 1);
    sh->keys[i] = w + 1;
    sh->index[i] = e;
    return e;
}


double shadow_load(const struct shadow *sh, uint64_t addr, unsigned size, unsigned lane)
{
    double t = 0;
    for (uint64_t w = addr >> 3; w <= shadow_last_word(addr, size); w++) {
        uint32_t e = find(sh, w);
        if (e != UINT32_MAX && sh->times[(size_t)e * sh->lanes + lane] > t)
            t = sh->times[(size_t)e * sh->lanes + lane];
    }
    return t;
}

uint64_t shadow_producer(const struct shadow *sh, uint64_t addr, unsigned size)
{
    uint64_t seq = 0;
    for (uint64_t w = addr >> 3; w <= shadow_last_word(addr, size); w++) {
        uint32_t e = find(sh, w);
        if (e != UINT32_MAX && sh->seq[e] > seq)
            seq = sh->seq[e];
    }
    return seq;
}

void shadow_store(struct shadow *sh, uint64_t addr, unsigned size, unsigned lane, double t, uint64_t seq)
{
    for (uint64_t w = addr >> 3; w <= shadow_last_word(addr, size); w++) {
        uint32_t e = insert(sh, w);
        sh->times[(size_t)e * sh->lanes + lane] = t;
        if (seq)
            sh->seq[e] = seq;
    }
}

const double *shadow_word(const struct shadow *sh, uint64_t w)
{
    uint32_t e = find(sh, w);
    return e == UINT32_MAX ? NULL : &sh->times[(size_t)e * sh->lanes];
}

double *shadow_word_slot(struct shadow *sh, uint64_t w)
{
    uint32_t e = insert(sh, w);     /* may move the times array: index it afterwards */
    return &sh->times[(size_t)e * sh->lanes];
}

uint8_t shadow_class(const struct shadow *sh, uint64_t addr)
{
    uint32_t e = find(sh, addr >> 3);
    return e == UINT32_MAX ? 0xff : sh->cls[e];
}

void shadow_set_class(struct shadow *sh, uint64_t addr, unsigned size, uint8_t cls)
{
    for (uint64_t w = addr >> 3; w <= shadow_last_word(addr, size); w++)
        sh->cls[insert(sh, w)] = cls;
}
