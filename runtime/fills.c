/* Misses in flight: the lines being filled and the entries each level's misses hold, found
 * from the address stream; the kernel keeps their times per lane. */
#include "fills.h"
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

void fills_init(struct fills *f, const struct mdl_machine *m, const unsigned *data, unsigned n_data, unsigned L)
{
    memset(f, 0, sizeof *f);
    f->L = L;
    f->line_bytes = n_data ? m->caches[data[0]].line : 0;
    f->done = xalloc((size_t)FILLS_LINES * L, sizeof *f->done);
    for (unsigned j = 0; j < n_data && j < FILLS_LEVELS; j++) {
        struct fills_ring *r = &f->ring[j];
        r->cap = m->caches[data[j]].outstanding;
        r->t = r->cap ? xalloc((size_t)r->cap * L, sizeof *r->t) : NULL;
        f->n_slots += r->cap;
        if (r->cap)
            f->n_levels = j + 1;
    }
}

void fills_clear(struct fills *f)
{
    memset(f->tag, 0, sizeof f->tag);
    for (unsigned j = 0; j < f->n_levels; j++)
        f->ring[j].pos = 0;
}

void fills_free(struct fills *f)
{
    free(f->done);
    for (unsigned j = 0; j < FILLS_LEVELS; j++)
        free(f->ring[j].t);
}

static unsigned entry_of(uint64_t line) { return (unsigned)(line ^ line >> 6) & (FILLS_LINES - 1); }

/* A miss served by level SERVED holds an entry at every level above it that bounds its misses;
 * the ring entry it takes held the miss `cap` before it, which must have completed. */
static void take_entries(struct fills *f, unsigned served, struct fills_step *out)
{
    uint32_t set = 0;
    for (unsigned j = 0; j < f->n_levels; j++) {
        struct fills_ring *r = &f->ring[j];
        if (j < served && r->cap) {
            uint32_t slot = (uint32_t)(r->pos % r->cap);
            out->at[out->n_levels].slot = slot;
            out->at[out->n_levels].set = set + slot;
            out->at[out->n_levels].full = r->pos >= r->cap;
            out->at[out->n_levels++].level = (uint8_t)j;
            r->pos++;
        }
        set += r->cap;
    }
}

void fills_prep(struct fills *f, const struct rt_insn *in, const uint64_t *addr, const uint8_t *levels,
                struct fills_step *out)
{
    out->wait = out->fill = -1;
    out->n_levels = 0;
    if (!levels || !f->line_bytes)
        return;
    unsigned served = 0;
    uint64_t miss = 0;
    for (unsigned i = 0; i < in->n_mem; i++) {
        if (!in->mem[i].load)
            continue;
        uint64_t line = addr[i] / f->line_bytes;
        unsigned e = entry_of(line);
        if (levels[i] == 0 && out->wait < 0 && f->tag[e] == line + 1) {
            out->wait = (int)e;
            out->wait_level = f->level[e];
        } else if (levels[i] > served) {
            served = levels[i];
            miss = line;
        }
    }
    if (!served)
        return;
    unsigned e = entry_of(miss);
    f->tag[e] = miss + 1;
    f->level[e] = (uint8_t)served;
    out->fill = (int)e;
    take_entries(f, served, out);
}

void fills_copy_lane(struct fills *f, unsigned from, unsigned to)
{
    for (unsigned e = 0; e < FILLS_LINES; e++)
        f->done[(size_t)e * f->L + to] = f->done[(size_t)e * f->L + from];
    for (unsigned j = 0; j < f->n_levels; j++) {
        const struct fills_ring *r = &f->ring[j];
        uint64_t rows = r->pos < r->cap ? r->pos : r->cap;
        for (uint64_t i = 0; i < rows; i++)
            r->t[i * f->L + to] = r->t[i * f->L + from];
    }
}
