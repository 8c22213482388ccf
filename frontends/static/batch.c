/* Threads take items in turn from a shared counter and keep each item's output in memory;
 * whichever thread completes the next item in order writes out every completed one from there. */
#include "batch.h"
#include "alloc.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct done {
    char *text;
    size_t len;
    bool ready;
};

struct batch {
    size_t n, next_item, next_out;
    batch_fn fn;
    FILE *out;
    struct done *done;
    int status;
    pthread_mutex_t lock;
};

struct worker {
    struct batch *b;
    void *ctx;
};

/* Writes the completed items that come next in order; the caller holds the lock. */
static void flush_ready(struct batch *b)
{
    while (b->next_out < b->n && b->done[b->next_out].ready) {
        struct done *d = &b->done[b->next_out++];
        fwrite(d->text, 1, d->len, b->out);
        free(d->text);
        d->text = NULL;
    }
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct batch *b = w->b;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t item = b->next_item++;
        pthread_mutex_unlock(&b->lock);
        if (item >= b->n)
            return NULL;
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        int st = mem ? b->fn(w->ctx, item, mem) : 1;
        if (mem)
            fclose(mem);
        pthread_mutex_lock(&b->lock);
        b->done[item] = (struct done){ text, len, true };
        b->status |= st;
        flush_ready(b);
        pthread_mutex_unlock(&b->lock);
    }
}

int batch_run(size_t n, batch_fn fn, void **workers, unsigned n_workers, FILE *out)
{
    if (n_workers <= 1) {
        int status = 0;
        for (size_t i = 0; i < n; i++)
            status |= fn(workers[0], i, out);
        fflush(out);
        return status;
    }
    struct batch b = { .n = n, .fn = fn, .out = out, .done = alloc_zeroed(n, sizeof *b.done) };
    struct worker *w = alloc_zeroed(n_workers, sizeof *w);
    pthread_t *t = alloc_zeroed(n_workers, sizeof *t);
    if (pthread_mutex_init(&b.lock, NULL) != 0) {
        free(b.done);
        free(w);
        free(t);
        return -1;
    }
    unsigned started = 0;
    for (unsigned i = 0; i < n_workers; i++) {
        w[i] = (struct worker){ &b, workers[i] };
        if (pthread_create(&t[i], NULL, work, &w[i]) == 0)
            started++;
        else
            break;
    }
    if (started == 0)      /* no thread could start: the calling thread does the work */
        work(&w[0]);
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_destroy(&b.lock);
    fflush(out);
    free(b.done);
    free(w);
    free(t);
    return b.status;
}
