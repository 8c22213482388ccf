/* Shadow memory: for every byte written, the store that wrote it last (program order decides it,
 * the same in every lane), and for each such store the time its data is available in each lane,
 * which dynamic instruction it was (for causality) and its class (for bypass rules). */
#ifndef RT_SHADOW_H
#define RT_SHADOW_H
#include <stdbool.h>
#include <stdint.h>

enum { SHADOW_NONE = UINT32_MAX, SHADOW_MAX_READ = 256 };

struct shadow {
    unsigned lanes;
    /* bytes: an open-addressing hash of 8-byte words to the store that wrote each byte */
    uint64_t *keys;             /* word address + 1; 0 marks an empty slot */
    uint32_t *index;            /* slot -> word entry */
    uint32_t cap, n, words_cap;
    uint32_t (*owner)[8];       /* [word entry][byte]: its store, or SHADOW_NONE */
    uint32_t *slot;             /* [word entry]: where its key is (a table of few entries clears by them) */
    uint64_t last_w;            /* the word last looked up, and its entry (or UINT32_MAX) */
    uint32_t last_e;
    /* stores: one per store access, reused once none of its bytes is the newest any more */
    double *times;              /* [store][lanes] */
    uint64_t *seq;              /* [store]: the writer */
    uint8_t *cls;               /* [store]: its class */
    uint64_t *written;          /* [store]: clock of the write */
    uint32_t *bytes;            /* [store]: bytes it is the newest writer of; on the free list: the next */
    uint32_t n_st, st_cap, free_st;
    uint32_t freed;             /* stores freed by this instruction: free for the next (a load of
                                   it may still read them, and a second store must not take them) */
    uint64_t clock, horizon;    /* instructions so far; how long a store is kept */
    uint64_t next_purge;
};

/* The stores a load reads: every store that wrote one of its bytes last, each once. FORWARDED:
 * one store wrote every byte (the load lies within it), so the store buffer can forward it. */
struct shadow_read {
    uint32_t st[SHADOW_MAX_READ];
    unsigned n;
    bool forwarded;
};

/* Stores not written for HORIZON instructions are forgotten: a store that old has retired in
 * every lane, so a load reads the cache rather than the store, and its time binds nothing.
 * This keeps the table as small as the stores in flight, whatever memory a program touches. */
void shadow_init(struct shadow *sh, unsigned lanes, uint64_t horizon);
/* One more instruction: forgets, every HORIZON instructions, the stores older than HORIZON. */
void shadow_tick_slow_(struct shadow *sh);
void shadow_settle_(struct shadow *sh);
static inline void shadow_tick(struct shadow *sh)
{
    if (sh->freed != SHADOW_NONE)
        shadow_settle_(sh);
    if (++sh->clock >= sh->next_purge)
        shadow_tick_slow_(sh);
}
/* Every store forgotten, as after shadow_init, the memory kept. */
void shadow_clear(struct shadow *sh);
void shadow_free(struct shadow *sh);

/* The stores a load of SIZE bytes at ADDR reads (none: memory not written within the horizon). */
void shadow_read(struct shadow *sh, uint64_t addr, unsigned size, struct shadow_read *out);
/* A new store of SIZE bytes at ADDR by SEQ of class CLS: its bytes now read from it, in every lane.
 * Its times are for the caller to set (shadow_times). May move every store's times. */
uint32_t shadow_write(struct shadow *sh, uint64_t addr, unsigned size, uint64_t seq, uint8_t cls);

/* Lanes TO[0..N)'s times of every store become lane FROM's (store by store: one pass for them all). */
void shadow_copy_lanes(struct shadow *sh, unsigned from, const unsigned *to, unsigned n);

/* Store ST's lane array, writer and class. */
static inline double *shadow_times(const struct shadow *sh, uint32_t st)
{
    return &sh->times[(uint64_t)st * sh->lanes];
}
static inline uint64_t shadow_seq(const struct shadow *sh, uint32_t st) { return sh->seq[st]; }
static inline uint8_t shadow_class(const struct shadow *sh, uint32_t st) { return sh->cls[st]; }

#endif
