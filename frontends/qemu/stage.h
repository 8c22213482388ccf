/* The caches' stage of a run: ahead of the reader, on a thread of its own, the stream is read,
 * recorded and its accesses put through the caches, in the order the reader warms them; the
 * reader gets the buffers and, one by one, the level that served each access. */
#ifndef STAGE_H
#define STAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cache.h"
#include "insn.h"
#include "run.h"
#include "trace.h"

/* The accesses an execution keeps (the rest are neither warmed nor modelled), and those one block
 * may make: far beyond any real block's (a rep string instruction runs alone), a bound on what a
 * forged stream can make mdlsim keep. The reader keeps the same ones. */
enum { STAGE_EXEC_ACCESSES = RT_MAX_MEM + 6, STAGE_BLOCK_ACCESSES = 1 << 16 };

/* The levels the reader has not taken yet, in the order it warms their accesses. Built with
 * STAGE_CHECK (the sanitizers' and the fuzzers' builds), each comes with its access's address,
 * and one taken for another access aborts: the stage and the reader disagree. */
struct stage_levels {
    uint8_t *lv;
    size_t n, pos, cap;
    uint64_t given;                 /* all the stage made */
    uint64_t missing;               /* taken when there was none: the stage and the reader disagree */
#ifdef STAGE_CHECK
    uint64_t *addr;
    size_t cap_addr;
#endif
};

struct stage;
/* SRC read (and recorded into COPY, if any) with CACHES; on a thread of its own when THREADED, else
 * a buffer at a time when the reader asks. NULL when the thread cannot start. */
struct stage *stage_new(const struct run_source *src, struct cache_hier *caches, struct trace_writer *copy,
                        bool threaded);
/* The next buffer of words, the one before given back; *TRACE_POS: where in the trace file it
 * starts (0 for a live stream). False at the end of the stream (then stage_why says why, if it ended
 * early). */
bool stage_next(struct stage *s, const uint64_t **w, size_t *n, uint64_t *trace_pos);
/* At most the executions the reader counts in the stream up to the end of the buffer it reads:
 * each block run's but its first instruction's, which may go on a string instruction's iterations
 * as one, and no execution of its own (WIRE_EXEC); a stream the reader refuses, none. */
uint64_t stage_counted(const struct stage *s);
/* How many executions the reader will certainly count after the buffer it reads: the stage read
 * them ahead (0 on one thread). */
uint64_t stage_ahead(const struct stage *s);
/* Whether the stream ends within K executions (counted as stage_counted does) after the buffer the
 * reader holds. The stage reads ahead until it can tell, or until its buffers are full (then: no):
 * the answer depends on the stream and its buffers' bounds (the plugin's chunks, the trace's frames,
 * both the stream's own), not on how far the stage had read, nor on the processors. */
bool stage_ends_within(struct stage *s, uint64_t k);
/* The reader's levels: stage_level takes the next. */
struct stage_levels *stage_levels(struct stage *s);
uint8_t stage_level_missing(struct stage_levels *l);
#ifdef STAGE_CHECK
uint8_t stage_level_checked(struct stage_levels *l, uint64_t addr);
#endif
/* The level of the reader's next access, at ADDR. */
static inline uint8_t stage_level(struct stage_levels *l, uint64_t addr)
{
#ifdef STAGE_CHECK
    return stage_level_checked(l, addr);
#else
    (void)addr;
    return l->pos < l->n ? l->lv[l->pos++] : stage_level_missing(l);
#endif
}
/* Why the stream ended before its end ("" when it did not), and whether a chunk token was out of
 * range (a corrupt stream); read after stage_next returned false. */
const char *stage_why(const struct stage *s);
bool stage_corrupt(const struct stage *s);
/* Stops the thread (however far it read) and frees S; the caches may then be read. */
void stage_free(struct stage *s);

#endif
