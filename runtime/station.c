/* The scheduler's entries (station.h): the calendars made, cleared, filled and copied; reading
 * them for room is inline in station.h. */
#include "station.h"
#include "alloc.h"
#include <stdlib.h>
#include <string.h>

#define HORIZON STATION_HORIZON
#define SLOT STATION_SLOT
#define NONE STATION_NONE

struct station *station_new(unsigned size, unsigned width, unsigned L)
{
    struct station *sc = alloc_zeroed(1, sizeof *sc);
    sc->size = size;
    sc->width = width ? width : 1;
    sc->L = L;
    if (size) {
        sc->count = alloc_zeroed((size_t)HORIZON * L, sizeof *sc->count);
        sc->busy = alloc_zeroed((size_t)HORIZON / 64 * L, sizeof *sc->busy);
        sc->cal = alloc_zeroed(L, sizeof *sc->cal);
        sc->held = alloc_zeroed(L, sizeof *sc->held);
        sc->last = alloc_zeroed(HORIZON, sizeof *sc->last);
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
    free(sc->held);
    free(sc->last);
    free(sc);
}

/* The calendars are zero but for the entries still held: those are walked off, not the whole
 * calendar cleared (a model is reset for every block of a file). */
void station_clear(struct station *sc)
{
    sc->next = 0;
    for (unsigned l = 0; sc->size && l < sc->L; l++) {
        station_move_to_(sc, l, sc->cal[l].base + HORIZON);
        sc->cal[l].base = 0;
    }
}

uint64_t station_next(const struct station *sc) { return sc->next; }

void station_advance(struct station *sc, unsigned n) { sc->next += n; }

/* Lane L holds COUNT entries until the cycle K they free at; returns the cycle they went to. */
static inline int64_t hold(struct station *sc, unsigned l, unsigned count, int64_t k)
{
    struct station_cal *c = &sc->cal[l];
    if (k < c->base)
        k = c->base;
    if (k >= c->base + HORIZON)
        station_move_to_(sc, l, k - HORIZON + 1);
    sc->count[(size_t)l * HORIZON + SLOT(k)] += count;
    sc->busy[(size_t)l * (HORIZON / 64) + SLOT(k) / 64] |= 1ull << (SLOT(k) % 64);
    sc->held[l] += count;
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

void station_copy_lane(struct station *sc, unsigned from, unsigned to)
{
    if (!sc->size || from == to)
        return;
    /* TO's held entries walked off (its last entries are not lane 0's: TO is never 0) */
    station_move_to_(sc, to, sc->cal[to].base + HORIZON);
    const uint64_t *fb = &sc->busy[(size_t)from * (HORIZON / 64)];
    uint64_t *tb = &sc->busy[(size_t)to * (HORIZON / 64)];
    const uint32_t *fc = &sc->count[(size_t)from * HORIZON];
    uint32_t *tc = &sc->count[(size_t)to * HORIZON];
    for (size_t w = 0; sc->held[from] && w < HORIZON / 64; w++) {
        tb[w] = fb[w];
        for (uint64_t bits = fb[w]; bits; bits &= bits - 1)
            tc[w * 64 + (size_t)__builtin_ctzll(bits)] = fc[w * 64 + (size_t)__builtin_ctzll(bits)];
    }
    sc->cal[to] = sc->cal[from];
    sc->held[to] = sc->held[from];
}
