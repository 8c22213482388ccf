/* Byte-exact shadow memory: an open-addressing hash of 8-byte words to the store that wrote each
 * byte last, and a pool of stores with their lane-contiguous times. */
#include "shadow.h"
#include "alloc.h"
#include <stdlib.h>
#include <string.h>

void shadow_init(struct shadow *sh, unsigned lanes, uint64_t horizon)
{
    memset(sh, 0, sizeof *sh);
    sh->lanes = lanes;
    sh->horizon = horizon ? horizon : 1;
    sh->cap = 1024;
    sh->last_w = UINT64_MAX;        /* no word: addresses are below 2^64, words below 2^61 */
    sh->free_st = sh->freed = SHADOW_NONE;
    sh->keys = alloc_zeroed(sh->cap, sizeof *sh->keys);
    sh->index = alloc_zeroed(sh->cap, sizeof *sh->index);
}

void shadow_clear(struct shadow *sh)
{
    if (sh->n < sh->cap / 16)
        for (uint32_t e = 0; e < sh->n; e++)
            sh->keys[sh->slot[e]] = 0;
    else
        memset(sh->keys, 0, sh->cap * sizeof *sh->keys);
    sh->n = 0;
    sh->n_st = 0;
    sh->free_st = sh->freed = SHADOW_NONE;
    sh->clock = sh->next_purge = 0;
    sh->last_w = UINT64_MAX;
}

void shadow_copy_lanes(struct shadow *sh, unsigned from, const unsigned *to, unsigned n)
{
    for (uint32_t st = 0; st < sh->n_st; st++) {
        double *t = &sh->times[(size_t)st * sh->lanes];
        for (unsigned j = 0; j < n; j++)
            t[to[j]] = t[from];
    }
}

void shadow_free(struct shadow *sh)
{
    free(sh->keys);
    free(sh->index);
    free(sh->owner);
    free(sh->slot);
    free(sh->times);
    free(sh->seq);
    free(sh->cls);
    free(sh->written);
    free(sh->bytes);
    memset(sh, 0, sizeof *sh);
}

/* ---- words ------------------------------------------------------------------------------ */

static uint32_t hash_word(uint64_t w, uint32_t cap)
{
    w ^= w >> 33;
    w *= 0xff51afd7ed558ccdull;
    w ^= w >> 33;
    return (uint32_t)w & (cap - 1);
}

/* Entry of word W, or UINT32_MAX. An access spans one word mostly, and a load and a store of
 * one instruction the same: the last answer is kept. */
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

/* The table is rehashed with CAP slots, keeping the entries of KEEP (all when NULL, else those
 * with keep[e]) renumbered in order. */
static void rehash(struct shadow *sh, uint32_t cap, const bool *keep)
{
    uint64_t *keys = sh->keys;
    uint32_t *index = sh->index, old_cap = sh->cap, kept = 0;
    uint32_t *remap = alloc_zeroed(sh->n ? sh->n : 1, sizeof *remap);
    for (uint32_t e = 0; e < sh->n; e++) {
        remap[e] = keep && !keep[e] ? UINT32_MAX : kept;
        if (remap[e] != UINT32_MAX)
            memmove(sh->owner[kept++], sh->owner[e], sizeof *sh->owner);
    }
    sh->cap = cap;
    sh->keys = alloc_zeroed(cap, sizeof *sh->keys);
    sh->index = alloc_zeroed(cap, sizeof *sh->index);
    for (uint32_t i = 0; i < old_cap; i++)
        if (keys[i] && remap[index[i]] != UINT32_MAX)
            place(sh, keys[i] - 1, remap[index[i]]);
    sh->n = kept;
    sh->last_w = UINT64_MAX;
    free(keys);
    free(index);
    free(remap);
}

/* The entry of word W, created (no byte written) if needed. */
static uint32_t insert(struct shadow *sh, uint64_t w)
{
    uint32_t e = find(sh, w);
    if (e != UINT32_MAX)
        return e;
    if (2 * (sh->n + 1) > sh->cap)
        rehash(sh, 2 * sh->cap, NULL);
    if (sh->n == sh->words_cap) {
        sh->words_cap = sh->words_cap ? 2 * sh->words_cap : 256;
        sh->owner = alloc_resize(sh->owner, sh->words_cap, sizeof *sh->owner);
        sh->slot = alloc_resize(sh->slot, sh->words_cap, sizeof *sh->slot);
    }
    e = sh->n++;
    for (unsigned b = 0; b < 8; b++)
        sh->owner[e][b] = SHADOW_NONE;
    place(sh, w, e);
    sh->last_w = w;
    sh->last_e = e;
    return e;
}

/* ---- stores ----------------------------------------------------------------------------- */

/* A free store is marked by this clock: no purge takes it for an old one. */
#define FREE_CLOCK UINT64_MAX

static void grow_stores(struct shadow *sh)
{
    sh->st_cap = sh->st_cap ? 2 * sh->st_cap : 64;
    /* on a cache line, as the model's lane arrays: rows of a multiple of four lanes stay aligned */
    size_t bytes = ((size_t)sh->st_cap * sh->lanes * sizeof *sh->times + 63) / 64 * 64;
    double *times = aligned_alloc(64, bytes);
    if (!times)
        alloc_out_of_memory(bytes, 1);
    if (sh->times)
        memcpy(times, sh->times, (size_t)sh->n_st * sh->lanes * sizeof *sh->times);
    /* the new stores' times are set for the lanes being stepped as they are written: a lane resting
     * in its slot meanwhile reads a time long past (0), never memory left undefined */
    memset(times + (size_t)sh->n_st * sh->lanes, 0, bytes - (size_t)sh->n_st * sh->lanes * sizeof *sh->times);
    free(sh->times);
    sh->times = times;
    sh->seq = alloc_resize(sh->seq, sh->st_cap, sizeof *sh->seq);
    sh->cls = alloc_resize(sh->cls, sh->st_cap, sizeof *sh->cls);
    sh->written = alloc_resize(sh->written, sh->st_cap, sizeof *sh->written);
    sh->bytes = alloc_resize(sh->bytes, sh->st_cap, sizeof *sh->bytes);
}

/* ST is the newest writer of no byte: it joins LIST (the free stores, or those freed now). */
static void release(struct shadow *sh, uint32_t st, uint32_t *list)
{
    sh->written[st] = FREE_CLOCK;
    sh->bytes[st] = *list;
    *list = st;
}

void shadow_settle_(struct shadow *sh)
{
    while (sh->freed != SHADOW_NONE) {
        uint32_t st = sh->freed;
        sh->freed = sh->bytes[st];
        release(sh, st, &sh->free_st);
    }
}

static uint32_t new_store(struct shadow *sh)
{
    uint32_t st = sh->free_st;
    if (st != SHADOW_NONE) {
        sh->free_st = sh->bytes[st];
        return st;
    }
    if (sh->n_st == sh->st_cap)
        grow_stores(sh);
    return sh->n_st++;
}

/* Bytes [LO, HI) of word entry E now read from ST; the stores they read from before lose them,
 * a run of bytes of one store at a time (a store's bytes come together). */
static void own(struct shadow *sh, uint32_t e, unsigned lo, unsigned hi, uint32_t st)
{
    uint32_t *owner = sh->owner[e];
    for (unsigned b = lo; b < hi;) {
        uint32_t old = owner[b], n = 0;
        for (; b < hi && owner[b] == old; b++, n++)
            owner[b] = st;
        if (old != SHADOW_NONE && (sh->bytes[old] -= n) == 0)
            release(sh, old, &sh->freed);
    }
}

uint32_t shadow_write(struct shadow *sh, uint64_t addr, unsigned size, uint64_t seq, uint8_t cls)
{
    uint32_t st = new_store(sh);
    uint64_t end = addr + (size ? size : 1), last = (end - 1) >> 3;
    sh->seq[st] = seq;
    sh->cls[st] = cls;
    sh->written[st] = sh->clock;
    sh->bytes[st] = (uint32_t)(end - addr);
    for (uint64_t w = addr >> 3; w <= last; w++)
        own(sh, insert(sh, w), w == addr >> 3 ? (unsigned)(addr & 7) : 0, w == last ? (unsigned)((end - 1) & 7) + 1 : 8,
            st);
    return st;
}

void shadow_read(struct shadow *sh, uint64_t addr, unsigned size, struct shadow_read *out)
{
    uint64_t end = addr + (size ? size : 1);
    uint32_t e = UINT32_MAX, last = SHADOW_NONE - 1;
    bool unwritten = false;
    out->n = 0;
    for (uint64_t a = addr; a < end; a++) {
        if (a == addr || (a & 7) == 0)
            e = find(sh, a >> 3);
        uint32_t st = e == UINT32_MAX ? SHADOW_NONE : sh->owner[e][a & 7];
        if (st == last)             /* the bytes of one store come together: no search for them */
            continue;
        last = st;
        unsigned k = 0;
        while (k < out->n && out->st[k] != st)
            k++;
        if (st == SHADOW_NONE)
            unwritten = true;
        else if (k == out->n)       /* at most SIZE of them: below SHADOW_MAX_READ */
            out->st[out->n++] = st;
    }
    out->forwarded = out->n == 1 && !unwritten;
}

/* ---- forgetting ------------------------------------------------------------------------- */

/* Keeps the stores written since OLDEST and the words they are the newest writers of. */
static void purge(struct shadow *sh, uint64_t oldest)
{
    for (uint32_t st = 0; st < sh->n_st; st++)
        if (sh->written[st] < oldest)
            release(sh, st, &sh->free_st);
    bool *keep = alloc_zeroed(sh->n ? sh->n : 1, sizeof *keep);
    for (uint32_t e = 0; e < sh->n; e++)
        for (unsigned b = 0; b < 8; b++) {
            uint32_t st = sh->owner[e][b];
            if (st != SHADOW_NONE && sh->written[st] == FREE_CLOCK)
                sh->owner[e][b] = st = SHADOW_NONE;
            keep[e] |= st != SHADOW_NONE;
        }
    rehash(sh, sh->cap, keep);
    free(keep);
}

void shadow_tick_slow_(struct shadow *sh)
{
    if (sh->clock >= 2 * sh->horizon)
        purge(sh, sh->clock - sh->horizon);
    sh->next_purge = sh->clock + sh->horizon;
}
