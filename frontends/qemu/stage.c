/* The caches' stage: a thread that reads the stream a few buffers ahead of the reader and makes
 * its accesses in the reader's order, which the record kinds of wire.h and the reader's rules for
 * which accesses an execution keeps (run.c: on_mem, close_block, add_access) fix; the caches were
 * a third of the reader's time, and the reader is the busiest thread of a sampled run. */
#include "stage.h"
#include "alloc.h"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "wire.h"

/* Buffers in flight: the reader's and those read ahead. As many as the plugin's chunks
 * (transport.c), so that the stage holds every chunk the plugin filled. */
enum { SLOTS = 32, PIPE_WORDS = 8192 };
#define NO_KEY UINT64_MAX

struct slot {
    const uint64_t *w;              /* the words: the shared chunk, the mapped trace, or OWN */
    size_t n;
    uint64_t *own;
    size_t cap_own;
    uint8_t *lv;                    /* the levels of the accesses the stage made in it */
    size_t n_lv, cap_lv;
#ifdef STAGE_CHECK
    uint64_t *addr;                 /* and their addresses */
    size_t cap_addr;
#endif
    int64_t chunk;                  /* the shared chunk to give back once read; -1: none */
    uint64_t trace_pos;
    uint64_t lower;                 /* struct parse's LOWER once the stage parsed it */
    bool end;                       /* no words: the stream ended (the last block's levels, if any) */
};

/* Where the stage is in the stream, and what the reader will do with the accesses it reads. */
struct parse {
    bool header;                    /* the stream's first word (its magic) passed */
    bool lost;                      /* a record the reader refuses: it reads nothing after it */
    bool mem;                       /* the next word is the address of a MEM record, MEM_W0 */
    uint64_t mem_w0;
    uint64_t skip;                  /* words of the current record still to pass */
    uint32_t *block_len;            /* each block's instructions, by id */
    size_t n_blocks, cap_blocks;
    bool open;                      /* a block runs, OPEN_ID of OPEN_LEN instructions */
    uint32_t open_id, open_len;
    /* its accesses so far, as the reader keeps them (struct run_access), a column each: a string
     * iteration's go to cache_iterate as they are */
    uint64_t *addr;
    unsigned *size;
    bool *store;
    uint32_t *index;
    size_t n_acc, cap_acc;
    bool pend;                      /* an execution waits for its successor, with PEND_ACC accesses */
    unsigned pend_acc;
    /* At most the executions the reader counts in the stream so far: each block run's
     * instructions but the first, which may go on a string instruction's iterations as one (of a
     * cut block, those it ran); none for a lone execution (WIRE_EXEC). */
    uint64_t lower;
    uint64_t last_key;              /* the execution (block, index) whose accesses were the last made */
    bool iterating;                 /* ITER holds that execution's (it repeated the one before) */
    struct cache_iter iter;
};

struct stage {
    struct run_source src;
    struct cache_hier *caches;
    struct trace_writer *copy;
    bool threaded;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int wake[2];                    /* written when the reader stops the stage: a read in wait ends */
    struct slot slot[SLOTS];
    uint64_t made, freed;           /* slots filled; slots the reader gave back (it reads slot FREED) */
    bool stop;
    _Atomic uint64_t lower_made;    /* the last slot filled's LOWER */
    /* the stage's */
    struct parse p;
    bool eof;
    char why[512];
    bool corrupt;
    /* the reader's */
    bool holding, ended;
    struct stage_levels levels;
};

/* ---- the accesses, as the reader keeps them ----------------------------------------------------- */

/* Room for one more level in SL: out of line, as it is seldom needed. */
__attribute__((noinline)) static void level_room(struct slot *sl)
{
#ifdef STAGE_CHECK
    sl->addr = alloc_grow(sl->addr, &sl->cap_addr, sl->n_lv + 1, 4096, sizeof *sl->addr);
#endif
    sl->lv = alloc_grow(sl->lv, &sl->cap_lv, sl->n_lv + 1, 4096, 1);
}

static inline void put_level(struct slot *sl, unsigned level, uint64_t addr)
{
    if (sl->n_lv == sl->cap_lv)
        level_room(sl);
#ifdef STAGE_CHECK
    sl->addr[sl->n_lv] = addr;
#else
    (void)addr;
#endif
    sl->lv[sl->n_lv++] = (uint8_t)(level < 255 ? level : 255);
}

/* The N accesses from the open block's A on, one execution's that repeats the one before it (a
 * string instruction's next iteration): through cache_iterate, which counts a repeat of the last
 * one's lines rather than making it again. */
static void iterate(struct stage *s, size_t a, unsigned n, struct slot *sl)
{
    struct parse *p = &s->p;
    unsigned lv[STAGE_EXEC_ACCESSES];
    if (!p->iterating)
        p->iter.n = 0, p->iter.hits = false;
    cache_iterate(s->caches, &p->iter, p->addr + a, p->size + a, p->store + a, n, lv);
    p->iterating = true;
    for (unsigned k = 0; k < n; k++)
        put_level(sl, lv[k], p->addr[a + k]);
}

/* The open block closed after its first K instructions: its accesses, as close_block attaches
 * them (each to the first instruction, from its own on, that all before it reached: the running
 * maximum of their indices; none from one at K or after on), STAGE_EXEC_ACCESSES to an execution.
 * An execution of the instruction whose accesses were the last made goes through iterate; the
 * others' are made as they come. */
static void close_block(struct stage *s, uint32_t k, struct slot *sl)
{
    struct parse *p = &s->p;
    size_t from = 0;
    unsigned n = 0;
    bool have = false, repeat = false;
    uint32_t at = 0;
    for (size_t a = 0; a < p->n_acc && p->index[a] < k; a++) {
        if (!have || p->index[a] > at) {
            if (repeat)
                iterate(s, from, n, sl);
            have = true;
            at = p->index[a];
            n = 0;
            from = a;
            uint64_t key = (uint64_t)p->open_id << 32 | at;
            repeat = key == p->last_key;
            p->iterating &= repeat;
            p->last_key = key;
        }
        if (n == STAGE_EXEC_ACCESSES)
            continue;
        n++;
        if (!repeat)
            put_level(sl, (unsigned)cache_access(s->caches, p->addr[a], p->size[a], p->store[a]), p->addr[a]);
    }
    if (repeat)
        iterate(s, from, n, sl);
    if (k) {    /* its last instruction waits, with the accesses it kept */
        p->pend = true;
        p->pend_acc = have && at == k - 1 ? n : 0;
    }
    p->n_acc = 0;
    p->open = false;
}

/* Room for one more access of the open block: out of line, as it is seldom needed. */
__attribute__((noinline)) static void access_room(struct parse *p)
{
    size_t cap = p->cap_acc;
    p->addr = alloc_grow(p->addr, &cap, p->n_acc + 1, 64, sizeof *p->addr);
    cap = p->cap_acc;
    p->size = alloc_grow(p->size, &cap, p->n_acc + 1, 64, sizeof *p->size);
    cap = p->cap_acc;
    p->store = alloc_grow(p->store, &cap, p->n_acc + 1, 64, sizeof *p->store);
    p->index = alloc_grow(p->index, &p->cap_acc, p->n_acc + 1, 64, sizeof *p->index);
}

/* An access outside a block, made for the execution that waits (add_access's rule). */
__attribute__((noinline)) static void mem_alone(struct stage *s, uint64_t addr, unsigned size, bool store,
                                               struct slot *sl)
{
    struct parse *p = &s->p;
    if (!p->pend || p->pend_acc == STAGE_EXEC_ACCESSES)
        return;
    p->pend_acc++;
    p->last_key = NO_KEY;
    p->iterating = false;
    put_level(sl, (unsigned)cache_access(s->caches, addr, size, store), addr);
}

/* An access (MEM record W0, its address ADDR): kept in the open block (on_mem's rule), or made for
 * the execution that waits. Inline in the parse: most records are these. */
static inline __attribute__((always_inline)) void on_mem(struct stage *s, uint64_t w0, uint64_t addr,
                                                          struct slot *sl)
{
    struct parse *p = &s->p;
    unsigned size = (unsigned)(w0 >> 8 & 0xff);
    bool store = (w0 >> 16) & 1;
    if (!p->open) {
        mem_alone(s, addr, size, store, sl);
        return;
    }
    if (p->n_acc == STAGE_BLOCK_ACCESSES)
        return;
    if (p->n_acc == p->cap_acc)
        access_room(p);
    p->addr[p->n_acc] = addr;
    p->size[p->n_acc] = size;
    p->store[p->n_acc] = store;
    p->index[p->n_acc++] = (uint32_t)(w0 >> 32);
}

/* A block's definition: its length kept (the reader refuses any other id than the next). */
static bool on_block(struct parse *p, uint64_t w0)
{
    uint32_t n = (uint32_t)(w0 >> 8 & 0xffffff);
    uint64_t id = w0 >> 32;
    if (n == 0 || n > WIRE_BLOCK_MAX || id != p->n_blocks || id >= RUN_MAX_STATIC)
        return false;
    p->block_len = alloc_grow(p->block_len, &p->cap_blocks, p->n_blocks + 1, 1024, sizeof *p->block_len);
    p->block_len[p->n_blocks++] = n;
    p->skip = (n + 1) / 2;
    return true;
}

/* A record's first word W0, and the words of it to pass; false where the reader stops. */
static bool on_record(struct stage *s, uint64_t w0, struct slot *sl)
{
    struct parse *p = &s->p;
    unsigned kind = w0 & 0xff;
    uint64_t len = w0 >> 8 & 0xffffff;
    if (kind == WIRE_MEM) {
        p->mem = true;
        p->mem_w0 = w0;
        return true;
    }
    if (kind == WIRE_CUT) {
        if (!p->open || w0 >> 8 >= p->open_len)
            return false;
        uint32_t k = (uint32_t)(w0 >> 8);
        p->lower -= (p->open_len - 1) - (k ? k - 1 : 0);
        close_block(s, k, sl);
        return true;
    }
    if (p->open)
        close_block(s, p->open_len, sl);
    switch (kind) {
    case WIRE_RUN:
        if (w0 >> 32 >= p->n_blocks)
            return false;
        p->open = true;
        p->open_id = (uint32_t)(w0 >> 32);
        p->open_len = p->block_len[p->open_id];
        p->lower += p->open_len - 1;
        return true;
    case WIRE_EXEC:
        p->pend = true;
        p->pend_acc = 0;
        return true;
    case WIRE_BLOCK: return on_block(p, w0);
    case WIRE_INSN: p->skip = 1 + (len + 7) / 8; return len && len <= 16;
    case WIRE_MAP: p->skip = 3 + (len + 7) / 8; return len && len < WIRE_PATH_MAX;
    case WIRE_EXECVE: p->skip = (len + 7) / 8; return len < WIRE_PATH_MAX;
    case WIRE_EXIT: return true;
    default: return false;  /* a second thread, or no record the reader knows */
    }
}

/* Passes the words of the current record in the N at W from *I on. */
static void pass(struct parse *p, size_t n, size_t *i)
{
    size_t k = n - *i < p->skip ? n - *i : p->skip;
    p->skip -= k;
    *i += k;
}

/* The N words at W, into the slot SL's levels: record by record, a record cut by the buffer's end
 * finished in the next. */
static void parse(struct stage *s, const uint64_t *w, size_t n, struct slot *sl)
{
    struct parse *p = &s->p;
    size_t i = 0;
    if (!p->header && n)
        p->header = true, i = 1;
    pass(p, n, &i);
    if (p->mem && i < n) {
        p->mem = false;
        on_mem(s, p->mem_w0, w[i++], sl);
    }
    while (i < n && !p->lost) {
        uint64_t w0 = w[i++];
        if ((w0 & 0xff) == WIRE_MEM && i < n) {
            on_mem(s, w0, w[i++], sl);
            continue;
        }
        p->lost = !on_record(s, w0, sl);
        pass(p, n, &i);
    }
}

/* ---- the source ---------------------------------------------------------------------------------- */

/* Whether FD can be read, false once the reader stopped the stage. */
static bool readable(struct stage *s, int fd)
{
    if (!s->threaded)
        return true;
    struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = s->wake[0], .events = POLLIN } };
    while (poll(p, 2, -1) < 0)
        if (errno != EINTR)
            return true;
    return !(p[1].revents & POLLIN);
}

/* Up to LEN bytes from FD, stopping early at a whole number of words; 0 at the end (or once
 * stopped). */
static size_t read_words(struct stage *s, int fd, char *b, size_t len)
{
    size_t have = 0;
    while (have < len && readable(s, fd)) {
        ssize_t got = read(fd, b + have, len - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        have += (size_t)got;
        if (have % 8 == 0)
            break;
    }
    return have;
}

/* N words into the recording, if any: false (with why) once a write failed, so that a full disk
 * stops the run at once rather than at its end. */
static bool record(struct stage *s, const uint64_t *w, size_t n)
{
    if (!s->copy || !n || trace_write_events(s->copy, w, n))
        return true;
    snprintf(s->why, sizeof s->why, "cannot write the trace: %s", strerror(s->copy->error));
    return false;
}

static void give_back(const struct stage *s, uint32_t idx)
{
    send(s->src.free_fd, &idx, sizeof idx, MSG_NOSIGNAL);   /* the plugin may be gone: no matter */
}

/* The next chunk the plugin filled, in place; false at the end. */
static bool read_chunk(struct stage *s, struct slot *sl)
{
    for (;;) {
        uint64_t token;
        if (read_words(s, s->src.fd, (char *)&token, sizeof token) != sizeof token)
            return false;
        uint32_t idx = (uint32_t)token, n = (uint32_t)(token >> 32);
        if (idx >= s->src.chunks || n > WIRE_CHUNK_WORDS) {
            s->corrupt = true;
            return false;
        }
        sl->w = s->src.shm + (size_t)idx * WIRE_CHUNK_WORDS;
        sl->n = n;
        if (!record(s, sl->w, n))
            return false;
        if (n) {
            sl->chunk = idx;
            return true;
        }
        give_back(s, idx);
    }
}

/* The next frame of the trace; its words copied where the file is not mapped (the reader's
 * buffer is reused). */
static bool read_frame(struct stage *s, struct slot *sl)
{
    const uint64_t *w;
    size_t n;
    sl->trace_pos = s->src.trace->pos;
    while (trace_next(s->src.trace, &w, &n, s->why, sizeof s->why))
        if (n) {
            if (!s->src.trace->map) {
                sl->own = alloc_grow(sl->own, &sl->cap_own, n, PIPE_WORDS, sizeof *sl->own);
                memcpy(sl->own, w, n * sizeof *w);
                w = sl->own;
            }
            sl->w = w;
            sl->n = n;
            return true;
        }
    return false;
}

/* The next words through the pipe. */
static bool read_pipe(struct stage *s, struct slot *sl)
{
    if (s->eof)
        return false;
    sl->own = alloc_grow(sl->own, &sl->cap_own, PIPE_WORDS, PIPE_WORDS, sizeof *sl->own);
    size_t have = read_words(s, s->src.fd, (char *)sl->own, PIPE_WORDS * sizeof *sl->own);
    bool kept = record(s, sl->own, have / 8);
    s->eof = have == 0 || have % 8 != 0 || !kept;
    sl->w = sl->own;
    sl->n = kept ? have / 8 : 0;
    return sl->n > 0;
}

/* Slot SL filled with the next buffer, its accesses made; at the end, the open block's. */
static void fill(struct stage *s, struct slot *sl)
{
    sl->n = sl->n_lv = 0;
    sl->chunk = -1;
    bool more = s->src.trace ? read_frame(s, sl) : s->src.shm ? read_chunk(s, sl) : read_pipe(s, sl);
    sl->end = !more;
    if (more)
        parse(s, sl->w, sl->n, sl);
    else if (s->p.open && !s->p.lost)
        close_block(s, s->p.open_len, sl);
    sl->lower = s->p.lost ? 0 : s->p.lower;
}

static void *stage_thread(void *arg)
{
    struct stage *s = arg;
    for (bool end = false; !end;) {
        pthread_mutex_lock(&s->lock);
        while (s->made - s->freed == SLOTS && !s->stop)
            pthread_cond_wait(&s->changed, &s->lock);
        bool stop = s->stop;
        pthread_mutex_unlock(&s->lock);
        if (stop)
            break;
        struct slot *sl = &s->slot[s->made % SLOTS];
        fill(s, sl);
        end = sl->end;
        pthread_mutex_lock(&s->lock);
        s->made++;
        atomic_store_explicit(&s->lower_made, sl->lower, memory_order_relaxed);
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

/* ---- the reader's side --------------------------------------------------------------------------- */

struct stage *stage_new(const struct run_source *src, struct cache_hier *caches, struct trace_writer *copy,
                        bool threaded)
{
    struct stage *s = alloc_zeroed(1, sizeof *s);
    s->src = *src;
    s->caches = caches;
    s->copy = copy;
    s->p.last_key = NO_KEY;
    s->wake[0] = s->wake[1] = -1;
    if (!threaded)
        return s;
    if (pipe(s->wake) != 0) {
        free(s);
        return NULL;
    }
    s->threaded = true;
    if (pthread_mutex_init(&s->lock, NULL) || pthread_cond_init(&s->changed, NULL) ||
        pthread_create(&s->thread, NULL, stage_thread, s)) {
        close(s->wake[0]);
        close(s->wake[1]);
        free(s);
        return NULL;
    }
    pthread_setname_np(s->thread, "mdlsim caches");     /* as top -H and perf name it */
    return s;
}

/* The slot the reader read, given back (and its chunk to the plugin). */
static void release(struct stage *s)
{
    const struct slot *sl = &s->slot[s->freed % SLOTS];
    if (sl->chunk >= 0)
        give_back(s, (uint32_t)sl->chunk);
    s->holding = false;
    if (!s->threaded) {
        s->freed++;
        return;
    }
    pthread_mutex_lock(&s->lock);
    s->freed++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* The levels of SL after those the reader has not taken yet. */
static void take_levels(struct stage_levels *l, const struct slot *sl)
{
    if (l->pos) {
        memmove(l->lv, l->lv + l->pos, l->n - l->pos);
#ifdef STAGE_CHECK
        memmove(l->addr, l->addr + l->pos, (l->n - l->pos) * sizeof *l->addr);
#endif
        l->n -= l->pos;
        l->pos = 0;
    }
    if (!sl->n_lv)
        return;
#ifdef STAGE_CHECK
    l->addr = alloc_grow(l->addr, &l->cap_addr, l->n + sl->n_lv, 4096, sizeof *l->addr);
    memcpy(l->addr + l->n, sl->addr, sl->n_lv * sizeof *l->addr);
#endif
    l->lv = alloc_grow(l->lv, &l->cap, l->n + sl->n_lv, 4096, 1);
    memcpy(l->lv + l->n, sl->lv, sl->n_lv);
    l->n += sl->n_lv;
    l->given += sl->n_lv;
}

/* On one thread: the next slot filled, unless the stream ended in the last one. */
static void fill_next(struct stage *s)
{
    if (s->made && s->slot[(s->made - 1) % SLOTS].end)
        return;
    fill(s, &s->slot[s->made % SLOTS]);
    s->made++;
}

bool stage_next(struct stage *s, const uint64_t **w, size_t *n, uint64_t *trace_pos)
{
    if (s->ended)
        return false;
    if (s->holding)
        release(s);
    if (!s->threaded) {
        if (s->made == s->freed)    /* stage_ends_within may have read ahead */
            fill_next(s);
    } else {
        pthread_mutex_lock(&s->lock);
        while (s->made == s->freed)
            pthread_cond_wait(&s->changed, &s->lock);
        pthread_mutex_unlock(&s->lock);
    }
    const struct slot *sl = &s->slot[s->freed % SLOTS];
    take_levels(&s->levels, sl);
    s->holding = true;
    s->ended = sl->end;
    *w = sl->w;
    *n = sl->n;
    *trace_pos = sl->trace_pos;
    return !sl->end;
}

struct stage_levels *stage_levels(struct stage *s) { return &s->levels; }

uint64_t stage_counted(const struct stage *s)
{
    return s->holding ? s->slot[s->freed % SLOTS].lower : 0;
}

uint64_t stage_ahead(const struct stage *s)
{
    if (!s->threaded || !s->holding || s->ended)
        return 0;
    uint64_t made = atomic_load_explicit(&s->lower_made, memory_order_relaxed), here = stage_counted(s);
    return made > here ? made - here : 0;
}

/* Whether the slots made so far tell that the stream ends within K after the reader's (*KNOWN: they
 * tell either way, or no slot is free to read further). Under the lock when threaded. */
static bool ends_within(const struct stage *s, uint64_t k, bool *known)
{
    const struct slot *last = &s->slot[(s->made - 1) % SLOTS];
    uint64_t here = s->slot[s->freed % SLOTS].lower;
    *known = last->end || last->lower >= here + k || s->made - s->freed == SLOTS;
    return last->end && last->lower < here + k;
}

bool stage_ends_within(struct stage *s, uint64_t k)
{
    bool known = false, within;
    if (!s->holding)
        return false;
    if (!s->threaded) {
        while (!(within = ends_within(s, k, &known), known))
            fill_next(s);
        return within;
    }
    pthread_mutex_lock(&s->lock);
    while (!(within = ends_within(s, k, &known), known) && !s->stop)
        pthread_cond_wait(&s->changed, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return within;
}

uint8_t stage_level_missing(struct stage_levels *l)
{
    l->missing++;
    return 0;
}

#ifdef STAGE_CHECK
uint8_t stage_level_checked(struct stage_levels *l, uint64_t addr)
{
    if (l->pos == l->n)
        return stage_level_missing(l);
    if (l->addr[l->pos] != addr) {
        fprintf(stderr, "stage: level %zu is of an access at %#llx, the reader's is at %#llx\n", l->pos,
                (unsigned long long)l->addr[l->pos], (unsigned long long)addr);
        abort();
    }
    return l->lv[l->pos++];
}
#endif

const char *stage_why(const struct stage *s) { return s->why; }
bool stage_corrupt(const struct stage *s) { return s->corrupt; }

void stage_free(struct stage *s)
{
    if (!s)
        return;
    if (s->threaded) {
        pthread_mutex_lock(&s->lock);
        s->stop = true;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        ssize_t w = write(s->wake[1], "", 1);
        (void)w;
        pthread_join(s->thread, NULL);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->changed);
        close(s->wake[0]);
        close(s->wake[1]);
    }
    for (unsigned i = 0; i < SLOTS; i++) {
        free(s->slot[i].own);
        free(s->slot[i].lv);
#ifdef STAGE_CHECK
        free(s->slot[i].addr);
#endif
    }
    free(s->p.block_len);
    free(s->p.addr);
    free(s->p.size);
    free(s->p.store);
    free(s->p.index);
    free(s->levels.lv);
#ifdef STAGE_CHECK
    free(s->levels.addr);
#endif
    free(s);
}
