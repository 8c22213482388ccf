/* Replays of one trace on several cores kept within a window of one another: on fewer processors
 * than their threads, a core that runs ahead waits, and the slowest core's threads get the time. */
#ifndef PACE_H
#define PACE_H
#include <stdint.h>

struct pace;

/* N cores, none more than WINDOW ahead of the slowest still going, in the measure of progress
 * pace_at is given (one the cores share, such as the frames of one trace read so far). */
struct pace *pace_new(unsigned n, uint64_t window);
void pace_free(struct pace *p);
/* Core K has come to AT; returns once no core still going is more than the window behind. */
void pace_at(struct pace *p, unsigned k, uint64_t at);
/* Core K has stopped (its end, or an error): no core waits for it. */
void pace_done(struct pace *p, unsigned k);

#endif
