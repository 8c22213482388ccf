/* The model's steps handed from the thread that reads the event stream to a thread of their
 * own: reading, caches and branch prediction overlap with the model. Steps run in the order
 * they were fed, so the results are those of a single thread. */
#ifndef FEED_H
#define FEED_H
#include <stdbool.h>
#include <stdint.h>
#include "model.h"

struct feed;

/* Steps go to MD; on a thread of their own when THREADED (else at once, on the caller's). NULL
 * when the thread cannot start. */
struct feed *feed_new(struct rt_model *md, bool threaded);
/* How many of IN's accesses a step carries (their addresses and levels): as many as the model reads. */
unsigned feed_accesses(const struct rt_insn *in);
/* One step (rt_model_step's arguments), delivered by PATH (rt_model_path; RT_PATH_COUNT: the
 * model's path stays as it is). IN must stay valid and unchanged until feed_finish. */
void feed_step(struct feed *f, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
               const uint8_t *levels, bool mispredicted, enum rt_path path);
/* One step of a repeated string instruction (rt_model_step_string's arguments; STR is copied),
 * delivered by PATH as feed_step's. */
void feed_step_string(struct feed *f, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                      const uint8_t *levels, enum rt_path path, const struct rt_string *str);
/* FN(CTX, the model, WHAT) called between the steps fed before and after, on the thread that
 * steps the model: where the stream's sampling reads the lanes, and rests them. */
typedef void feed_mark_fn(void *ctx, struct rt_model *md, unsigned what);
void feed_mark(struct feed *f, feed_mark_fn *fn, void *ctx, unsigned what);
/* The steps and marks fed so far go to the model thread now, not when their batch is full (what
 * the marks record may then be waited for). */
void feed_flush(struct feed *f);
/* Returns once READY(CTX) holds (asked again after each batch the model thread runs), or every
 * step fed has run: what a mark fed so far records, read from another thread, without spinning
 * on a processor the model threads need. */
typedef bool feed_ready_fn(const void *ctx);
void feed_wait(struct feed *f, feed_ready_fn *ready, const void *ctx);
/* Returns once every step fed has run; the model may then be read. */
void feed_finish(struct feed *f);
void feed_free(struct feed *f);

#endif
