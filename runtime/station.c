/* The scheduler's entries (station.h): per lane, a calendar of how many entries free at each
 * cycle. Entries free out of program order (a uop waiting for a long chain holds its entry while
 * younger ones come and go), so room is counted, not read off the entry a window back. An entry
 * frees at the start of the cycle after its uop started (the next whole cycle); issue only moves
 * on, so the calendar is read forward once. */
#include "station.h"
#include "xalloc.h"
#include <math.h>
#include <stdlib.h>

/* Cycles a calendar holds: an entry freeing further ahead than its end moves the calendar on,
 * forgetting the entries due before (they have freed unless a uop waited that long). */
enum { HORIZON = 1 << 14 };
#define SLOT(k) ((size_t)((uint64_t)(k) & (HORIZON - 1)))
#define NONE UINT64_MAX

struct lane_cal {
    int64_t base;                   /* cycle of slot base % HORIZON: no entry frees before it */
    uint32_t held;                  /* entries freeing at base or later */
};

struct station {
    unsigned size, width, L;
    uint64_t next;
    uint32_t *count;                /* [L][HORIZON]: entries freeing at each cycle */
    uint64_t *busy;                 /* [L][HORIZON / 64]: the cycles whose count is not zero */
    struct lane_cal *cal;           /* [L] */
    uint64_t (*last)[2];            /* [HORIZON]: lane 0's last two entries freeing at each cycle
                                       (NONE: none), for what made room (two chains in turn) */
};

struct station *station_new(unsigned size, unsigned width, unsigned L)
{
    struct station *sc = xalloc(1, sizeof *sc);
    sc->size = size;
    sc->width = width ? width : 1;
    sc->L = L;
    if (size) {
        sc->count = xalloc((size_t)HORIZON * L, sizeof *sc->count);
        sc->busy = xalloc((size_t)HORIZON / 64 * L, sizeof *sc->busy);
        sc->cal = xalloc(L, sizeof *sc->cal);
        sc->last = xalloc(HORIZON, sizeof *sc->last);
        for (unsigned k = 0; k < HORIZON; k++)
            sc->last[k][0] = sc->last[k][1] = NONE;
    }
    return sc;
}

void station_free(struct station *sc)
{
    if (!sc)
        return;
    free(sc->count);
    free(sc->busy);
    free(sc->cal);
    free(sc->last);
    free(sc);
}

static void move_to(struct station *sc, unsigned l, int64_t k);

/* The calendars are zero but for the entries still held: those are walked off, not the whole
 * calendar cleared (a model is reset for every block of a file). */
void station_clear(struct station *sc)
{
    sc->next = 0;
    for (unsigned l = 0; sc->size && l < sc->L; l++) {
        move_to(sc, l, sc->cal[l].base + HORIZON);
        sc->cal[l].base = 0;
    }
}

uint64_t station_next(const struct station *sc) { return sc->next; }

void station_advance(struct station *sc, unsigned n) { sc->next += n; }

/* Lane L holds COUNT entries until the cycle K they free at; returns the cycle they went to. */
static inline int64_t hold(struct station *sc, unsigned l, unsigned count, int64_t k)
{
    struct lane_cal *c = &sc->cal[l];
    if (k < c->base)
        k = c->base;
    if (k >= c->base + HORIZON)
        move_to(sc, l, k - HORIZON + 1);
    sc->count[(size_t)l * HORIZON + SLOT(k)] += count;
    sc->busy[(size_t)l * (HORIZON / 64) + SLOT(k) / 64] |= 1ull << (SLOT(k) % 64);
    c->held += count;
    return k;
}

void station_hold(struct station *sc, uint64_t entry, unsigned count, const double *start, unsigned n)
{
    if (!sc->size || !count || !n)
        return;
    /* an entry frees the cycle after its uop's start (a floor: times are not negative) */
    uint64_t *last = sc->last[SLOT(hold(sc, 0, count, (int64_t)(start[0] + 1e-9) + 1))];
    if (last[0] != entry) {
        last[1] = last[0];
        last[0] = entry;
    }
    for (unsigned l = 1; l < n; l++)
        hold(sc, l, count, (int64_t)(start[l] + 1e-9) + 1);
}

/* Lane L's entries freeing at cycle K are gone. */
static void forget(struct station *sc, unsigned l, int64_t k)
{
    uint32_t *n = &sc->count[(size_t)l * HORIZON + SLOT(k)];
    sc->cal[l].held -= *n;
    *n = 0;
    sc->busy[(size_t)l * (HORIZON / 64) + SLOT(k) / 64] &= ~(1ull << (SLOT(k) % 64));
    if (l == 0)
        sc->last[SLOT(k)][0] = sc->last[SLOT(k)][1] = NONE;
}

/* The first cycle from FROM on, before TO, at which lane L has entries freeing; TO if none. A
 * word of the busy bits at a time: a serialising form can move time on by a million cycles, and
 * entries then lie far apart. */
static int64_t next_held(const struct station *sc, unsigned l, int64_t from, int64_t to)
{
    const uint64_t *busy = &sc->busy[(size_t)l * (HORIZON / 64)];
    while (from < to) {
        size_t slot = SLOT(from);
        uint64_t w = busy[slot / 64] >> (slot % 64);
        if (w)
            return from + __builtin_ctzll(w) < to ? from + __builtin_ctzll(w) : to;
        from += 64 - (int64_t)(slot % 64);
    }
    return to;
}

/* Lane L's calendar moves on to cycle K: the entries freeing before it are gone. */
static void move_to(struct station *sc, unsigned l, int64_t k)
{
    struct lane_cal *c = &sc->cal[l];
    /* every entry held frees within a horizon of the base: one pass over its cycles meets them
     * all, however far K is */
    int64_t end = k - c->base > HORIZON ? c->base + HORIZON : k;
    for (int64_t j = c->base; c->held && (j = next_held(sc, l, j, end)) < end; j++)
        forget(sc, l, j);
    if (c->base < k)
        c->base = k;
}

double station_room(struct station *sc, unsigned l, double d, uint64_t *made, unsigned *n_made)
{
    *n_made = 0;
    unsigned limit = sc->size > sc->width ? sc->size - sc->width : 0;
    if (!sc->size || sc->cal[l].held <= limit)      /* room, even if none of them has freed */
        return -INFINITY;
    move_to(sc, l, (int64_t)(d + 1e-9) + 1);   /* freed by D: those of D's cycle and before (D >= 0) */
    struct lane_cal *c = &sc->cal[l];
    if (c->held <= limit)
        return -INFINITY;
    double room = -INFINITY;
    while (c->held > limit) {       /* the entries held all free within a horizon of the base */
        int64_t k = next_held(sc, l, c->base, c->base + HORIZON);
        if (k == c->base + HORIZON) {   /* cannot be: no entry is held beyond the horizon */
            c->held = 0;
            break;
        }
        const uint64_t *last = sc->last[SLOT(k)];
        room = (double)k;
        for (unsigned j = 0; l == 0 && j < 2; j++)
            if (last[j] != NONE)
                made[(*n_made)++ % STATION_MADE_MAX] = last[j];
        forget(sc, l, k);
        c->base = k + 1;
    }
    if (*n_made > STATION_MADE_MAX)
        *n_made = STATION_MADE_MAX;
    return room;
}
