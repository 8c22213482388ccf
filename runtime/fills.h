/* Misses in flight (spec §12.3 `outstanding`): a load to a line whose fill is still on its way
 * completes with that fill (the fill buffer merges it), and a level keeps at most its
 * `outstanding` misses in flight, so a miss beyond them starts when the oldest completes. */
#ifndef RT_FILLS_H
#define RT_FILLS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "insn.h"
#include "mdl_machine.h"

/* Recent fills, by line (direct-mapped: a level holds far fewer misses in flight than this). */
enum { FILLS_LINES = 64, FILLS_LEVELS = 8 };

/* Which lines and which entries follow from the address stream alone, the same in every lane;
 * the times are per lane ([entry][lane], as every lane array). */
struct fills {
    unsigned L;
    uint32_t line_bytes;            /* the first level's line; 0: no data cache, nothing to track */
    uint64_t tag[FILLS_LINES];      /* line address + 1 of each entry's fill; 0: none */
    uint8_t level[FILLS_LINES];     /* the level that served it */
    double *done;                   /* [FILLS_LINES][L]: when its line arrives */
    /* per data level with a bound: the completion of its last `cap` misses, oldest overwritten;
     * a lane keeps COUNT of them in flight (at most cap: the description's, grown by the largest
     * weight a lane may have) */
    struct fills_ring {
        uint32_t outstanding, cap;
        uint32_t set0;              /* its first causality set among all levels' entries */
        uint64_t pos;
        double *t;                  /* [cap][L] */
        uint32_t *count;            /* [L]; 0: no limit */
    } ring[FILLS_LEVELS];
    unsigned n_levels;
    uint32_t n_slots;               /* the ring entries of all levels: their causality sets */
};

/* What one step's loads do with the fills: the entry whose fill they wait for and the entry
 * their miss fills (-1: none), and for each level the miss passes, its position among the
 * level's misses (a lane waits for the miss its count before it) and its causality set among all
 * levels' entries. */
struct fills_step {
    int wait, fill;
    uint8_t wait_level;             /* the level that serves the fill waited for */
    unsigned n_levels;
    struct { uint64_t pos; uint32_t set; uint8_t level; } at[FILLS_LEVELS];
};

/* DATA: the indices in M's caches of the data-side levels in order (N_DATA of them). */
void fills_init(struct fills *f, const struct mdl_machine *m, const unsigned *data, unsigned n_data, unsigned L);
void fills_clear(struct fills *f);
void fills_free(struct fills *f);
/* The step of IN, whose accesses are at ADDR and were served by LEVELS (NULL: all by the first
 * level, as in block mode: then nothing is in flight). Moves the rings on. */
void fills_prep(struct fills *f, const struct rt_insn *in, const uint64_t *addr, const uint8_t *levels,
                struct fills_step *out);
/* Slots TO[0..N)'s times become slot FROM's (row by row: one pass for them all). */
void fills_copy_lanes(struct fills *f, unsigned from, const unsigned *to, unsigned n);
/* Slot L keeps the description's misses in flight TIMES over (0: no limit). */
void fills_lane(struct fills *f, unsigned l, double times);
/* Whether slots L and 0 keep as many misses in flight. */
bool fills_same(const struct fills *f, unsigned l);
/* The causality set (among all levels' entries) of level J's miss at POS. */
static inline uint32_t fills_set(const struct fills *f, unsigned j, uint64_t pos)
{
    return f->ring[j].set0 + (uint32_t)(pos % f->ring[j].cap);
}

static inline double *fills_done(const struct fills *f, int entry) { return &f->done[(size_t)entry * f->L]; }
/* Level J's miss at POS (its times per lane). */
static inline double *fills_slot(const struct fills *f, unsigned j, uint64_t pos)
{
    return &f->ring[j].t[(size_t)(pos % f->ring[j].cap) * f->L];
}

#endif
