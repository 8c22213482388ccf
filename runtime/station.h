/* The scheduler's entries (reservation station): each unfused uop holds one from its issue to
 * the cycle after it starts, and a group of instructions issues only once the scheduler has room
 * for a whole group (uiCA's renamer). One min-heap of the entries still held per lane. */
#ifndef RT_STATION_H
#define RT_STATION_H
#include <stdint.h>

/* SIZE entries (0: no limit), groups of WIDTH fused uops, for L lanes. */
struct station *station_new(unsigned size, unsigned width, unsigned L);
void station_free(struct station *sc);
/* Every entry free, none pushed yet. */
void station_clear(struct station *sc);
/* The number the next entry pushed gets (entries are numbered in program order). */
uint64_t station_next(const struct station *sc);

/* When lane L has room for a group issuing at D or later: minus infinity when it has room at D
 * (or the scheduler has no limit), else the time the entry that made it freed. The entries that
 * freed to make room after D go to MADE (at most MADE_MAX, the last ones), their count to
 * *N_MADE. Entries freed by then leave the lane's heap (issue never goes back). */
enum { STATION_MADE_MAX = 8 };
double station_room(struct station *sc, unsigned l, double d, uint64_t *made, unsigned *n_made);
/* COUNT entries from ENTRY on are held in lanes [0, N), each until the cycle after its START. */
void station_hold(struct station *sc, uint64_t entry, unsigned count, const double *start, unsigned n);
/* N entries were pushed (in every lane). */
void station_advance(struct station *sc, unsigned n);

#endif
