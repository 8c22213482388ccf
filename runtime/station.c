/* The scheduler's entries (station.h): per lane, a calendar of how many entries free at each
 * cycle. Entries free out of program order (a uop waiting for a long chain holds its entry while
 * younger ones come and go), so room is counted, not read off the entry a window back. An entry
 * frees at the start of the cycle after its uop started (the next whole cycle); issue only moves
 * on, so the calendar is read forward once. */
#include "station.h"
#include <math.h>
#include <stdlib.h>

/* Cycles ahead a calendar holds; an entry freeing later is taken to free at its end. */
enum { HORIZON = 1 << 14 };
#define NONE UINT64_MAX

struct lane_cal {
    int64_t base;                   /* cycle of slot base % HORIZON: no entry frees before it */
    uint32_t held;                  /* entries freeing at base or later */
};

struct station {
    unsigned size, width, L;
    uint64_t next;
    uint16_t *count;                /* [L][HORIZON]: entries freeing at each cycle */
    struct lane_cal *cal;           /* [L] */
    uint64_t (*last)[2];            /* [HORIZON]: lane 0's last two entries freeing at each cycle
                                       (NONE: none), for what made room (two chains in turn) */
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

struct station *station_new(unsigned size, unsigned width, unsigned L)
{
    struct station *sc = xcalloc(1, sizeof *sc);
    sc->size = size;
    sc->width = width ? width : 1;
    sc->L = L;
    if (size) {
        sc->count = xcalloc((size_t)HORIZON * L, sizeof *sc->count);
        sc->cal = xcalloc(L, sizeof *sc->cal);
        sc->last = xcalloc(HORIZON, sizeof *sc->last);
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

static void hold(struct station *sc, unsigned l, uint64_t entry, unsigned count, double t)
{
    struct lane_cal *c = &sc->cal[l];
    int64_t k = (int64_t)(t + 1e-9);   /* T is the start plus one: its cycle's end (T >= 0: a floor) */
    if (k < c->base)
        k = c->base;
    if (k >= c->base + HORIZON)
        k = c->base + HORIZON - 1;
    uint16_t *n = &sc->count[(size_t)l * HORIZON + (size_t)(k % HORIZON)];
    *n = (uint16_t)(*n + count < UINT16_MAX ? *n + count : UINT16_MAX);
    c->held += count;
    uint64_t *last = sc->last[k % HORIZON];
    if (l == 0 && last[0] != entry) {
        last[1] = last[0];
        last[0] = entry;
    }
}

void station_hold(struct station *sc, uint64_t entry, unsigned count, const double *start, unsigned n)
{
    if (!sc->size || !count)
        return;
    for (unsigned l = 0; l < n; l++)
        hold(sc, l, entry, count, start[l] + 1);
}

/* Lane L's entries freeing at cycle K are gone. */
static void forget(struct station *sc, unsigned l, int64_t k)
{
    uint16_t *n = &sc->count[(size_t)l * HORIZON + (size_t)(k % HORIZON)];
    sc->cal[l].held -= *n;
    *n = 0;
    if (l == 0)
        sc->last[k % HORIZON][0] = sc->last[k % HORIZON][1] = NONE;
}

/* Lane L's calendar moves on to cycle K: the entries freeing before it are gone. */
static void move_to(struct station *sc, unsigned l, int64_t k)
{
    struct lane_cal *c = &sc->cal[l];
    for (; c->base < k && c->held; c->base++)
        forget(sc, l, c->base);
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
    uint16_t *n = &sc->count[(size_t)l * HORIZON];
    double room = -INFINITY;
    while (c->held > limit) {
        int64_t k = c->base;
        const uint64_t *last = sc->last[k % HORIZON];
        if (n[k % HORIZON])
            room = (double)k;
        for (unsigned j = 0; l == 0 && j < 2; j++)
            if (last[j] != NONE)
                made[(*n_made)++ % STATION_MADE_MAX] = last[j];
        forget(sc, l, k);
        c->base++;
    }
    if (*n_made > STATION_MADE_MAX)
        *n_made = STATION_MADE_MAX;
    return room;
}
