/* Steps travel in batches through a small ring: the reader fills one while the model thread
 * runs another, and they meet only when a batch changes hands. */
#include "feed.h"
#include "alloc.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A batch holds at most STRINGS merged string executions and MARKS marks, kept beside its events. */
enum { BATCH = 16384, BATCHES = 8, STRINGS = 1024, MARKS = 64 };

struct mark {
    feed_mark_fn *fn;
    void *ctx;
    unsigned what;
};

struct event {
    const struct rt_insn *in;
    uint64_t addr[RT_MAX_MEM];
    uint8_t levels[RT_MAX_MEM];
    uint32_t sidx;
    bool miss;
    uint16_t str;                   /* 1 + its entry in the batch's strings; 0: an ordinary step */
    uint16_t mark;                  /* 1 + its entry in the batch's marks: no step (IN is NULL) */
    uint8_t path;                   /* enum rt_path; RT_PATH_COUNT: unchanged */
};

struct batch {
    struct event ev[BATCH];
    struct rt_string str[STRINGS];
    struct mark mark[MARKS];
    unsigned n, n_str, n_mark;
    bool full;                      /* handed to the model thread, not yet run */
};

struct feed {
    struct rt_model *md;
    bool threaded, done;
    struct batch *b;                /* [BATCHES] */
    unsigned fill, run;             /* the batch being filled; the next one to run */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
};

/* One step, after the path that delivers it; STR: a merged string execution, or NULL. */
static void feed_run(struct rt_model *md, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                     const uint8_t *levels, bool miss, enum rt_path path, const struct rt_string *str)
{
    if (path != RT_PATH_COUNT)
        rt_model_path(md, path);
    if (str)
        rt_model_step_string(md, in, sidx, addr, levels, str);
    else
        rt_model_step(md, in, sidx, addr, levels, miss);
}

static void run_batch(struct rt_model *md, const struct batch *b)
{
    for (unsigned i = 0; i < b->n; i++) {
        const struct event *e = &b->ev[i];
        if (e->mark) {
            const struct mark *k = &b->mark[e->mark - 1];
            k->fn(k->ctx, md, k->what);
            continue;
        }
        feed_run(md, e->in, e->sidx, e->addr, e->levels, e->miss, (enum rt_path)e->path,
                 e->str ? &b->str[e->str - 1] : NULL);
    }
}

static void *model_thread(void *arg)
{
    struct feed *f = arg;
    for (;;) {
        pthread_mutex_lock(&f->lock);
        while (!f->b[f->run].full && !f->done)
            pthread_cond_wait(&f->changed, &f->lock);
        bool have = f->b[f->run].full;
        pthread_mutex_unlock(&f->lock);
        if (!have)
            return NULL;            /* done, and every full batch has run */
        run_batch(f->md, &f->b[f->run]);
        pthread_mutex_lock(&f->lock);
        f->b[f->run].full = false;
        f->b[f->run].n = f->b[f->run].n_str = f->b[f->run].n_mark = 0;
        f->run = (f->run + 1) % BATCHES;
        pthread_cond_broadcast(&f->changed);
        pthread_mutex_unlock(&f->lock);
    }
}

struct feed *feed_new(struct rt_model *md, bool threaded)
{
    struct feed *f = alloc_zeroed(1, sizeof *f);
    f->md = md;
    f->threaded = threaded;
    if (!threaded)
        return f;
    f->b = alloc_zeroed(BATCHES, sizeof *f->b);
    if (pthread_mutex_init(&f->lock, NULL) || pthread_cond_init(&f->changed, NULL) ||
        pthread_create(&f->thread, NULL, model_thread, f)) {
        free(f->b);
        free(f);
        return NULL;
    }
    pthread_setname_np(f->thread, "mdlsim model");     /* as top -H and perf name it */
    return f;
}

/* Hands the batch being filled to the model thread and waits for the next one to be free. */
static void hand_over(struct feed *f)
{
    pthread_mutex_lock(&f->lock);
    f->b[f->fill].full = true;
    f->fill = (f->fill + 1) % BATCHES;
    pthread_cond_broadcast(&f->changed);
    while (f->b[f->fill].full)
        pthread_cond_wait(&f->changed, &f->lock);
    pthread_mutex_unlock(&f->lock);
}

unsigned feed_accesses(const struct rt_insn *in)
{
    return in->n_mem < RT_MAX_MEM ? in->n_mem : RT_MAX_MEM;
}

/* The next event of the batch being filled, with IN's accesses. */
static struct event *next_event(struct feed *f, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                                const uint8_t *levels, bool mispredicted, enum rt_path path)
{
    struct batch *b = &f->b[f->fill];
    struct event *e = &b->ev[b->n++];
    e->in = in;
    e->sidx = sidx;
    e->miss = mispredicted;
    e->str = 0;
    e->mark = 0;
    e->path = (uint8_t)path;
    unsigned n = feed_accesses(in);
    for (unsigned k = 0; k < n; k++) {
        e->addr[k] = addr ? addr[k] : 0;
        e->levels[k] = levels ? levels[k] : 0;
    }
    return e;
}

void feed_flush(struct feed *f)
{
    if (f->threaded && f->b[f->fill].n)
        hand_over(f);
}

void feed_wait(struct feed *f, feed_ready_fn *ready, const void *ctx)
{
    if (ready(ctx))
        return;
    feed_flush(f);
    if (!f->threaded)
        return;
    pthread_mutex_lock(&f->lock);
    while (!ready(ctx) && f->b[f->run].full)        /* the model thread tells each batch it ran */
        pthread_cond_wait(&f->changed, &f->lock);
    pthread_mutex_unlock(&f->lock);
}

void feed_step(struct feed *f, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
               const uint8_t *levels, bool mispredicted, enum rt_path path)
{
    if (!f->threaded) {
        feed_run(f->md, in, sidx, addr, levels, mispredicted, path, NULL);
        return;
    }
    next_event(f, in, sidx, addr, levels, mispredicted, path);
    if (f->b[f->fill].n == BATCH)
        hand_over(f);
}

void feed_step_string(struct feed *f, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                      const uint8_t *levels, enum rt_path path, const struct rt_string *str)
{
    if (!f->threaded) {
        feed_run(f->md, in, sidx, addr, levels, false, path, str);
        return;
    }
    struct batch *b = &f->b[f->fill];
    struct event *e = next_event(f, in, sidx, addr, levels, false, path);
    b->str[b->n_str] = *str;
    e->str = (uint16_t)++b->n_str;
    if (b->n == BATCH || b->n_str == STRINGS)
        hand_over(f);
}

void feed_mark(struct feed *f, feed_mark_fn *fn, void *ctx, unsigned what)
{
    if (!f->threaded) {
        fn(ctx, f->md, what);
        return;
    }
    struct batch *b = &f->b[f->fill];
    struct event *e = &b->ev[b->n++];
    memset(e, 0, sizeof *e);
    b->mark[b->n_mark] = (struct mark){ fn, ctx, what };
    e->mark = (uint16_t)++b->n_mark;
    if (b->n == BATCH || b->n_mark == MARKS)
        hand_over(f);
}

void feed_finish(struct feed *f)
{
    if (!f->threaded || f->done)
        return;
    pthread_mutex_lock(&f->lock);
    if (f->b[f->fill].n)
        f->b[f->fill].full = true;
    f->done = true;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
    pthread_join(f->thread, NULL);
}

void feed_free(struct feed *f)
{
    if (!f)
        return;
    feed_finish(f);
    if (f->threaded) {
        pthread_mutex_destroy(&f->lock);
        pthread_cond_destroy(&f->changed);
        free(f->b);
    }
    free(f);
}
