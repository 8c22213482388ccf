/* The scheduler's entries (reservation station): each unfused uop holds one from its issue to
 * the cycle after it starts, and a group of instructions issues only once the scheduler has room
 * for a whole group (uiCA's renamer). Per lane, a calendar of when the entries still held free. */
#ifndef RT_STATION_H
#define RT_STATION_H
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per lane, a calendar of how many entries free at each cycle. Entries free out of program order
 * (a uop waiting for a long chain holds its entry while younger ones come and go), so room is
 * counted, not read off the entry a window back. An entry frees at the start of the cycle after
 * its uop started (the next whole cycle); issue only moves on, so the calendar is read forward
 * once. A calendar holds STATION_HORIZON cycles: an entry freeing further ahead moves it on,
 * forgetting the entries due before (they have freed unless a uop waited that long). */
enum { STATION_HORIZON = 1 << 14 };
#define STATION_SLOT(k) ((size_t)((uint64_t)(k) & (STATION_HORIZON - 1)))
#define STATION_NONE UINT64_MAX

struct station_cal {
    int64_t base;                   /* cycle of slot base % HORIZON: no entry frees before it */
};

struct station {
    unsigned size, width, L;
    uint64_t next;
    uint32_t *count;                /* [L][HORIZON]: entries freeing at each cycle */
    uint64_t *busy;                 /* [L][HORIZON / 64]: the cycles whose count is not zero */
    struct station_cal *cal;        /* [L] */
    uint32_t *held;                 /* [L]: the entries freeing at the lane's base or later (an
                                       array apart: a pass over the lanes reads it, pass_groups) */
    uint64_t (*last)[2];            /* [HORIZON]: lane 0's last two entries freeing at each cycle
                                       (NONE: none), for what made room (two chains in turn) */
};

/* SIZE entries (0: no limit), groups of WIDTH fused uops, for L lanes. */
struct station *station_new(unsigned size, unsigned width, unsigned L);
void station_free(struct station *sc);
/* Every entry free, none pushed yet. */
void station_clear(struct station *sc);
/* The number the next entry pushed gets (entries are numbered in program order). */
uint64_t station_next(const struct station *sc);

/* COUNT entries from ENTRY on are held in lanes [0, N), each until the cycle after its START. */
void station_hold(struct station *sc, uint64_t entry, unsigned count, const double *start, unsigned n);
/* N entries were pushed (in every lane). */
void station_advance(struct station *sc, unsigned n);
/* Lane TO's entries become lane FROM's (a lane that takes the state of another). */
void station_copy_lane(struct station *sc, unsigned from, unsigned to);

/* ---- what follows is per lane and group: inline, so that it compiles into the model's vector
 * clones (code of the baseline ISA called from there pays for the switch of vector states) ---- */

/* Lane L's entries freeing at cycle K are gone: how many they were (the caller takes them off
 * the lane's count, kept in a register through a walk: the count and the calendar are words of
 * one type, and a store to either would reload the other). */
static inline uint32_t station_forget_(struct station *sc, unsigned l, int64_t k)
{
    uint32_t *n = &sc->count[(size_t)l * STATION_HORIZON + STATION_SLOT(k)], was = *n;
    *n = 0;
    sc->busy[(size_t)l * (STATION_HORIZON / 64) + STATION_SLOT(k) / 64] &= ~(1ull << (STATION_SLOT(k) % 64));
    if (l == 0)
        sc->last[STATION_SLOT(k)][0] = sc->last[STATION_SLOT(k)][1] = STATION_NONE;
    return was;
}

/* The first cycle from FROM on, before TO, at which lane L has entries freeing; TO if none. A
 * word of the busy bits at a time: a serialising form can move time on by a million cycles, and
 * entries then lie far apart. */
static inline int64_t station_next_held_(const struct station *sc, unsigned l, int64_t from, int64_t to)
{
    const uint64_t *busy = &sc->busy[(size_t)l * (STATION_HORIZON / 64)];
    while (from < to) {
        size_t slot = STATION_SLOT(from);
        uint64_t w = busy[slot / 64] >> (slot % 64);
        if (w)
            return from + __builtin_ctzll(w) < to ? from + __builtin_ctzll(w) : to;
        from += 64 - (int64_t)(slot % 64);
    }
    return to;
}

/* Lane L's calendar moves on to cycle K: the entries freeing before it are gone. */
static inline void station_move_to_(struct station *sc, unsigned l, int64_t k)
{
    struct station_cal *c = &sc->cal[l];
    /* every entry held frees within a horizon of the base: one pass over its cycles meets them
     * all, however far K is */
    int64_t end = k - c->base > STATION_HORIZON ? c->base + STATION_HORIZON : k;
    uint32_t held = sc->held[l];
    for (int64_t j = c->base; held && (j = station_next_held_(sc, l, j, end)) < end; j++)
        held -= station_forget_(sc, l, j);
    sc->held[l] = held;
    if (c->base < k)
        c->base = k;
}

/* The entries a lane may hold and still have room for a whole group. */
static inline unsigned station_limit_(const struct station *sc)
{
    return sc->size > sc->width ? sc->size - sc->width : 0;
}

/* Whether lane L may have no room for a group: else station_room answers minus infinity at once. */
static inline bool station_may_be_full(const struct station *sc, unsigned l)
{
    return sc->size && sc->held[l] > station_limit_(sc);
}

/* Whether any lane of [A, B) that starts a group (STARTS[L] not 0) may have no room for it: a
 * pass, where most steps find none (the lanes' calendars are asked one by one only if one may). */
static inline __attribute__((always_inline)) bool station_any_may_be_full(const struct station *sc,
                                                                          const double *starts, unsigned a,
                                                                          unsigned b)
{
    if (!sc->size)
        return false;
    uint32_t limit = station_limit_(sc);
    const uint32_t *held = sc->held;
    unsigned any = 0;
    for (unsigned l = a; l < b; l++)
        any |= (starts[l] != 0) & (held[l] > limit);
    return any;
}

/* When lane L has room for a group issuing at D or later: minus infinity when it has room at D
 * (or the scheduler has no limit), else the time the entry that made it freed. The entries that
 * freed to make room after D go to MADE (at most MADE_MAX, the last ones), their count to
 * *N_MADE. Entries freed by then leave the lane's calendar (issue never goes back). */
enum { STATION_MADE_MAX = 8 };
static inline double station_room(struct station *sc, unsigned l, double d, uint64_t *made, unsigned *n_made)
{
    *n_made = 0;
    unsigned limit = station_limit_(sc);
    if (!station_may_be_full(sc, l))                /* room, even if none of them has freed */
        return -INFINITY;
    station_move_to_(sc, l, (int64_t)(d + 1e-9) + 1);   /* freed by D: those of D's cycle and before (D >= 0) */
    struct station_cal *c = &sc->cal[l];
    uint32_t held = sc->held[l];
    int64_t base = c->base;
    double room = -INFINITY;
    while (held > limit) {          /* the entries held all free within a horizon of the base */
        int64_t k = station_next_held_(sc, l, base, base + STATION_HORIZON);
        if (k == base + STATION_HORIZON) {      /* cannot be: no entry is held beyond the horizon */
            held = 0;
            break;
        }
        const uint64_t *last = sc->last[STATION_SLOT(k)];
        room = (double)k;
        for (unsigned j = 0; l == 0 && j < 2; j++)
            if (last[j] != STATION_NONE)
                made[(*n_made)++ % STATION_MADE_MAX] = last[j];
        held -= station_forget_(sc, l, k);
        base = k + 1;
    }
    sc->held[l] = held;
    c->base = base;
    if (*n_made > STATION_MADE_MAX)
        *n_made = STATION_MADE_MAX;
    return room;
}

#endif
