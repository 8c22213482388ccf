/* The scheduler's entries (station.h): a binary min-heap per lane of the free times of the entries
 * still held. Entries free out of program order (a uop waiting for a long chain holds its entry
 * while younger ones come and go), so room is counted, not read off the entry a window back. */
#include "station.h"
#include <math.h>
#include <stdlib.h>

struct held {
    double t;                       /* when the entries free */
    uint64_t entry;                 /* the first of them */
    unsigned count;                 /* an instruction's uops free together */
};

struct station {
    unsigned size, width, L, cap;
    uint64_t next;
    struct held *heap;              /* [L][cap] */
    unsigned *n;                    /* [L] heap elements */
    unsigned *held;                 /* [L] entries they hold (freed or not, since room was asked) */
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
    /* held at once: a full scheduler and a group of microcoded forms (each holds at most SIZE),
     * and entries freed since room was last asked */
    sc->cap = size ? 4 * (sc->width + 1) * size + 64 : 1;
    sc->heap = xcalloc((size_t)sc->cap * L, sizeof *sc->heap);
    sc->n = xcalloc(L, sizeof *sc->n);
    sc->held = xcalloc(L, sizeof *sc->held);
    return sc;
}

void station_free(struct station *sc)
{
    if (!sc)
        return;
    free(sc->heap);
    free(sc->n);
    free(sc->held);
    free(sc);
}

void station_clear(struct station *sc)
{
    sc->next = 0;
    for (unsigned l = 0; l < sc->L; l++)
        sc->n[l] = sc->held[l] = 0;
}

uint64_t station_next(const struct station *sc) { return sc->next; }

void station_advance(struct station *sc, unsigned n) { sc->next += n; }

static struct held *heap_of(const struct station *sc, unsigned l) { return &sc->heap[(size_t)l * sc->cap]; }

/* The earliest entries of lane L leave its heap. */
static struct held pop(struct station *sc, unsigned l)
{
    struct held *h = heap_of(sc, l), top = h[0], last = h[--sc->n[l]];
    sc->held[l] -= top.count;
    unsigned i = 0, n = sc->n[l];
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].t < h[c].t)
            c++;
        if (!(h[c].t < last.t))
            break;
        h[i] = h[c];
        i = c;
    }
    if (n)
        h[i] = last;
    return top;
}

void station_hold(struct station *sc, unsigned l, uint64_t entry, unsigned count, double t)
{
    if (!sc->size || !count)
        return;
    if (sc->n[l] == sc->cap)     /* full of entries freed long ago (they leave only when room is asked) */
        pop(sc, l);
    struct held *h = heap_of(sc, l);
    unsigned i = sc->n[l]++;
    sc->held[l] += count;
    while (i > 0 && t < h[(i - 1) / 2].t) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = (struct held){ t, entry, count };
}

double station_room(struct station *sc, unsigned l, double d, uint64_t *made, unsigned *n_made)
{
    *n_made = 0;
    unsigned limit = sc->size > sc->width ? sc->size - sc->width : 0;
    if (!sc->size || sc->held[l] <= limit)      /* room, even if none of them has freed */
        return -INFINITY;
    struct held *h = heap_of(sc, l);
    while (sc->n[l] && h[0].t <= d)
        pop(sc, l);
    double room = -INFINITY;
    while (sc->held[l] > limit) {
        unsigned need = sc->held[l] - limit;
        room = h[0].t;
        made[*n_made % STATION_MADE_MAX] = h[0].entry;
        (*n_made)++;
        if (h[0].count > need) {    /* the rest free at the same time: they leave next time */
            h[0].count -= need;
            sc->held[l] -= need;
        } else {
            pop(sc, l);
        }
    }
    if (*n_made > STATION_MADE_MAX)
        *n_made = STATION_MADE_MAX;
    return room;
}
