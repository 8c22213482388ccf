/* Shadow memory: for every 8-byte word written, the time its value is available in each lane
 * and which dynamic instruction wrote it last (for causality). */
#ifndef RT_SHADOW_H
#define RT_SHADOW_H
#include <stdint.h>

struct shadow {
    unsigned lanes;
    uint64_t *keys;             /* word address + 1; 0 marks an empty slot */
    uint32_t *index;            /* slot -> entry */
    uint32_t cap, n;
    double *times;              /* [entry][lanes] */
    uint64_t *seq;              /* [entry] */
    uint8_t *cls;               /* [entry]: class of the last writer, for bypass rules */
    uint64_t *written;          /* [entry]: clock of the last write */
    uint32_t *slot;             /* [entry]: where its key is (a table of few entries clears by them) */
    uint64_t clock, horizon;    /* instructions so far; how long a written word is kept */
    uint64_t next_purge;
    uint32_t entries_cap;
    uint64_t last_w;            /* the word last looked up, and its entry (or UINT32_MAX) */
    uint32_t last_e;
};

/* The last 8-byte word an access of SIZE bytes at ADDR touches (the first is ADDR >> 3). */
static inline uint64_t shadow_last_word(uint64_t addr, unsigned size) { return (addr + (size ? size : 1) - 1) >> 3; }

/* Words not written for HORIZON instructions are forgotten: a store that old has retired in
 * every lane, so a load reads the cache rather than the store, and its time binds nothing.
 * This keeps the table as small as the stores in flight, whatever memory a program touches. */
void shadow_init(struct shadow *sh, unsigned lanes, uint64_t horizon);
/* One more instruction: forgets, every HORIZON instructions, the words older than HORIZON. */
void shadow_tick_slow_(struct shadow *sh);
static inline void shadow_tick(struct shadow *sh)
{
    if (++sh->clock >= sh->next_purge)
        shadow_tick_slow_(sh);
}
/* Every word forgotten, as after shadow_init, the memory kept. */
void shadow_clear(struct shadow *sh);
void shadow_free(struct shadow *sh);
/* Latest availability over the words of [addr, addr+size) in LANE; 0 when never written. */
double shadow_load(struct shadow *sh, uint64_t addr, unsigned size, unsigned lane);
/* The last writer among those words (0: none). */
uint64_t shadow_producer(struct shadow *sh, uint64_t addr, unsigned size);
/* The words hold a new value, available at T in LANE; SEQ names the writer. A later store in
 * program order replaces the value even when it completes earlier: loads read the newest
 * store, so keeping the later time would chain independent stores to one slot. */
void shadow_store(struct shadow *sh, uint64_t addr, unsigned size, unsigned lane, double t, uint64_t seq);

/* The lane array of word W (an 8-byte word address), or NULL when it was never written; and
 * the one to write, created if needed. Valid until the next shadow_store or shadow_word_slot. */
const double *shadow_word(struct shadow *sh, uint64_t w);
double *shadow_word_slot(struct shadow *sh, uint64_t w);

/* Room for N more words: creating up to N moves no lane array (the pointers above stay valid). */
void shadow_reserve(struct shadow *sh, unsigned n);

/* The class of the last store to the word holding ADDR (0xff: none), and setting it. */
uint8_t shadow_class(struct shadow *sh, uint64_t addr);
void shadow_set_class(struct shadow *sh, uint64_t addr, unsigned size, uint8_t cls);

#endif
