/* Misses in flight: the lines being filled and the entries each level's misses hold, found
 * from the address stream; the kernel keeps their times per lane. */
#include "fills.h"
#include <stdlib.h>
#include <string.h>
#include "alloc.h"

/* A lane's weight divides a knob's scale by at most 11 (1000% faster). */
enum { FILLS_GROWTH = 11 };

void fills_init(struct fills *f, const struct mdl_machine *m, const unsigned *data, unsigned n_data, unsigned L)
{
    memset(f, 0, sizeof *f);
    f->L = L;
    f->line_bytes = n_data ? m->caches[data[0]].line : 0;
    f->done = alloc_zeroed((size_t)FILLS_LINES * L, sizeof *f->done);
    for (unsigned j = 0; j < n_data && j < FILLS_LEVELS; j++) {
        struct fills_ring *r = &f->ring[j];
        r->outstanding = m->caches[data[j]].outstanding;
        r->cap = r->outstanding ? r->outstanding * FILLS_GROWTH + 1 : 0;
        r->t = r->cap ? alloc_zeroed((size_t)r->cap * L, sizeof *r->t) : NULL;
        r->count = alloc_zeroed(L, sizeof *r->count);
        r->set0 = f->n_slots;
        f->n_slots += r->cap;
        if (r->cap)
            f->n_levels = j + 1;
    }
}

void fills_lane(struct fills *f, unsigned l, double times)
{
    for (unsigned j = 0; j < f->n_levels; j++) {
        struct fills_ring *r = &f->ring[j];
        double n = r->outstanding * times;
        r->count[l] = times <= 0 ? 0 : n < 1 ? 1 : n > r->cap - 1 ? r->cap - 1 : (uint32_t)(n + 0.5);
    }
}

bool fills_same(const struct fills *f, unsigned l)
{
    for (unsigned j = 0; j < f->n_levels; j++)
        if (f->ring[j].count[l] != f->ring[j].count[0])
            return false;
    return true;
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
    for (unsigned j = 0; j < FILLS_LEVELS; j++) {
        free(f->ring[j].t);
        free(f->ring[j].count);
    }
}

static unsigned entry_of(uint64_t line) { return (unsigned)(line ^ line >> 6) & (FILLS_LINES - 1); }

/* A miss served by level SERVED holds an entry at every level above it that bounds its misses. */
static void take_entries(struct fills *f, unsigned served, struct fills_step *out)
{
    for (unsigned j = 0; j < f->n_levels && j < served; j++) {
        struct fills_ring *r = &f->ring[j];
        if (!r->cap)
            continue;
        out->at[out->n_levels].pos = r->pos;
        out->at[out->n_levels].set = fills_set(f, j, r->pos);
        out->at[out->n_levels++].level = (uint8_t)j;
        r->pos++;
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

/* Row ROW's slots TO[0..N) take its slot FROM's value. */
static void row_copy(double *row, unsigned from, const unsigned *to, unsigned n)
{
    for (unsigned j = 0; j < n; j++)
        row[to[j]] = row[from];
}

void fills_copy_lanes(struct fills *f, unsigned from, const unsigned *to, unsigned n)
{
    for (unsigned e = 0; e < FILLS_LINES; e++)
        row_copy(&f->done[(size_t)e * f->L], from, to, n);
    for (unsigned j = 0; j < f->n_levels; j++) {
        const struct fills_ring *r = &f->ring[j];
        uint64_t rows = r->pos < r->cap ? r->pos : r->cap;
        for (uint64_t i = 0; i < rows; i++)
            row_copy(&r->t[i * f->L], from, to, n);
    }
}
