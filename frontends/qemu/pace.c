/* Replays of one trace on several cores kept within a window of one another: a core that has
 * read further than the slowest by more than the window sleeps until that one catches up. */
#include "pace.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "alloc.h"

struct pace {
    pthread_mutex_t lock;
    pthread_cond_t moved;           /* a core read further, or stopped reading */
    uint64_t window;
    unsigned n;
    struct {
        uint64_t at;
        bool done;
    } core[];
};

struct pace *pace_new(unsigned n, uint64_t window)
{
    struct pace *p = alloc_zeroed(1, sizeof *p + n * sizeof p->core[0]);
    p->n = n;
    p->window = window;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->moved, NULL);
    return p;
}

void pace_free(struct pace *p)
{
    if (!p)
        return;
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->moved);
    free(p);
}

/* Whether a core at AT is more than the window ahead of one still reading. */
static bool ahead(const struct pace *p, uint64_t at)
{
    for (unsigned k = 0; k < p->n; k++)
        if (!p->core[k].done && p->core[k].at + p->window < at)
            return true;
    return false;
}

void pace_at(struct pace *p, unsigned k, uint64_t at)
{
    pthread_mutex_lock(&p->lock);
    p->core[k].at = at;
    pthread_cond_broadcast(&p->moved);
    while (ahead(p, at))
        pthread_cond_wait(&p->moved, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void pace_done(struct pace *p, unsigned k)
{
    pthread_mutex_lock(&p->lock);
    p->core[k].done = true;
    pthread_cond_broadcast(&p->moved);
    pthread_mutex_unlock(&p->lock);
}
