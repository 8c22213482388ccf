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

void shadow_init(struct shadow *sh, unsigned lanes, uint64_t horizon)
{
    memset(sh, 0, sizeof *sh);
    sh->lanes = lanes;
    sh->horizon = horizon ? horizon : 1;
    sh->cap = 1024;
    sh->last_w = UINT64_MAX;        /* no word: addresses are below 2^64, words below 2^61 */
    sh->keys = calloc(sh->cap, sizeof *sh->keys);
    sh->index = calloc(sh->cap, sizeof *sh->index);
    if (!sh->keys || !sh->index)
        abort();
}

void shadow_clear(struct shadow *sh)
{
    if (sh->n < sh->cap / 16)
        for (uint32_t e = 0; e < sh->n; e++)
            sh->keys[sh->slot[e]] = 0;
    else
        memset(sh->keys, 0, sh->cap * sizeof *sh->keys);
    sh->n = 0;
    sh->clock = sh->next_purge = 0;
    sh->last_w = UINT64_MAX;
}

void shadow_free(struct shadow *sh)
{
    free(sh->keys);
    free(sh->index);
    free(sh->times);
    free(sh->seq);
    free(sh->cls);
    free(sh->written);
    free(sh->slot);
    memset(sh, 0, sizeof *sh);
}

static uint32_t hash_word(uint64_t w, uint32_t cap)
{
    w ^= w >> 33;
    w *= 0xff51afd7ed558ccdull;
    w ^= w >> 33;
    return (uint32_t)w & (cap - 1);
}

/* Entry of word W, or UINT32_MAX. An access looks its words up several times (time, writer,
 * class, then the store): the last answer is kept. */
static uint32_t find(struct shadow *sh, uint64_t w)
{
    if (w == sh->last_w)
        return sh->last_e;
    uint32_t e = UINT32_MAX;
    for (uint32_t i = hash_word(w, sh->cap);; i = (i + 1) & (sh->cap - 1)) {
        if (sh->keys[i] == 0)
            break;
        if (sh->keys[i] == w + 1) {
            e = sh->index[i];
            break;
        }
    }
    sh->last_w = w;
    sh->last_e = e;
    return e;
}

static void place(struct shadow *sh, uint64_t w, uint32_t e)
{
    uint32_t i = hash_word(w, sh->cap);
    while (sh->keys[i])
        i = (i + 1) & (sh->cap - 1);
    sh->keys[i] = w + 1;
    sh->index[i] = e;
    sh->slot[e] = i;
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
    for (uint32_t i = 0; i < cap; i++)
        if (keys[i])
            place(sh, keys[i] - 1, index[i]);
    free(keys);
    free(index);
}

/* Keeps the words written since OLDEST, renumbered in order; the table is rebuilt. */
static void purge(struct shadow *sh, uint64_t oldest)
{
    uint32_t *remap = malloc((sh->n ? sh->n : 1) * sizeof *remap), kept = 0;
    if (!remap)
        abort();
    for (uint32_t e = 0; e < sh->n; e++) {
        remap[e] = UINT32_MAX;
        if (sh->written[e] < oldest)
            continue;
        memmove(&sh->times[(size_t)kept * sh->lanes], &sh->times[(size_t)e * sh->lanes],
                sh->lanes * sizeof *sh->times);
        sh->seq[kept] = sh->seq[e];
        sh->cls[kept] = sh->cls[e];
        sh->written[kept] = sh->written[e];
        remap[e] = kept++;
    }
    uint64_t *keys = malloc(sh->cap * sizeof *keys);
    uint32_t *index = malloc(sh->cap * sizeof *index);
    if (!keys || !index)
        abort();
    memcpy(keys, sh->keys, sh->cap * sizeof *keys);
    memcpy(index, sh->index, sh->cap * sizeof *index);
    memset(sh->keys, 0, sh->cap * sizeof *sh->keys);
    for (uint32_t i = 0; i < sh->cap; i++)
        if (keys[i] && remap[index[i]] != UINT32_MAX)
            place(sh, keys[i] - 1, remap[index[i]]);
    sh->n = kept;
    sh->last_w = UINT64_MAX;
    free(keys);
    free(index);
    free(remap);
}

void shadow_tick_slow_(struct shadow *sh)
{
    if (sh->clock >= 2 * sh->horizon)
        purge(sh, sh->clock - sh->horizon);
    sh->next_purge = sh->clock + sh->horizon;
}

void shadow_reserve(struct shadow *sh, unsigned n)
{
    if (sh->n + n <= sh->entries_cap)
        return;
    while (sh->n + n > sh->entries_cap)
        sh->entries_cap = sh->entries_cap ? 2 * sh->entries_cap : 256;
    /* on a cache line, as the model's lane arrays: rows of a multiple of four lanes stay aligned */
    size_t bytes = ((size_t)sh->entries_cap * sh->lanes * sizeof *sh->times + 63) / 64 * 64;
    double *times = aligned_alloc(64, bytes);
    if (!times)
        abort();
    if (sh->times)
        memcpy(times, sh->times, (size_t)sh->n * sh->lanes * sizeof *sh->times);
    free(sh->times);
    sh->times = times;
    sh->seq = xrealloc(sh->seq, (size_t)sh->entries_cap * sizeof *sh->seq);
    sh->cls = xrealloc(sh->cls, (size_t)sh->entries_cap * sizeof *sh->cls);
    sh->written = xrealloc(sh->written, (size_t)sh->entries_cap * sizeof *sh->written);
    sh->slot = xrealloc(sh->slot, (size_t)sh->entries_cap * sizeof *sh->slot);
}

/* The entry of word W, created if needed, for a write. */
static uint32_t insert(struct shadow *sh, uint64_t w)
{
    uint32_t e = find(sh, w);
    if (e != UINT32_MAX) {
        sh->written[e] = sh->clock;
        return e;
    }
    if (2 * (sh->n + 1) > sh->cap)
        grow(sh);
    shadow_reserve(sh, 1);
    e = sh->n++;
    sh->written[e] = sh->clock;
    memset(&sh->times[(size_t)e * sh->lanes], 0, sh->lanes * sizeof *sh->times);
    sh->seq[e] = 0;
    sh->cls[e] = 0xff;
    place(sh, w, e);
    sh->last_w = w;
    sh->last_e = e;
    return e;
}


double shadow_load(struct shadow *sh, uint64_t addr, unsigned size, unsigned lane)
{
    double t = 0;
    for (uint64_t w = addr >> 3; w <= shadow_last_word(addr, size); w++) {
        uint32_t e = find(sh, w);
        if (e != UINT32_MAX && sh->times[(size_t)e * sh->lanes + lane] > t)
            t = sh->times[(size_t)e * sh->lanes + lane];
    }
    return t;
}

uint64_t shadow_producer(struct shadow *sh, uint64_t addr, unsigned size)
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

const double *shadow_word(struct shadow *sh, uint64_t w)
{
    uint32_t e = find(sh, w);
    return e == UINT32_MAX ? NULL : &sh->times[(size_t)e * sh->lanes];
}

double *shadow_word_slot(struct shadow *sh, uint64_t w)
{
    uint32_t e = insert(sh, w);     /* may move the times array: index it afterwards */
    return &sh->times[(size_t)e * sh->lanes];
}

uint8_t shadow_class(struct shadow *sh, uint64_t addr)
{
    uint32_t e = find(sh, addr >> 3);
    return e == UINT32_MAX ? 0xff : sh->cls[e];
}

void shadow_set_class(struct shadow *sh, uint64_t addr, unsigned size, uint8_t cls)
{
    for (uint64_t w = addr >> 3; w <= shadow_last_word(addr, size); w++)
        sh->cls[insert(sh, w)] = cls;
}
