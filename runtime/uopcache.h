/* The decoded-uop cache and the loop stream detector as the instruction stream sees them: which
 * path delivers each executed instruction (uop cache, loop buffer or legacy decoders). */
#ifndef RT_UOPCACHE_H
#define RT_UOPCACHE_H
#include <stdint.h>
#include "model.h"

struct uopcache;

/* The uop cache of M, NULL when M describes none to model (no uop_cache_window). */
struct uopcache *uopcache_new(const struct mdl_machine *m);
void uopcache_free(struct uopcache *uc);

/* The path of the next executed instruction, at PC, LEN bytes, of UOPS fused uops, in program
 * order. The cache is looked up once per visit of a window (entered from another window, or by a
 * jump); a window the legacy decoders delivered is filled when the visit ends, unless it needs
 * more ways than a window may take. */
enum rt_path uopcache_next(struct uopcache *uc, uint64_t pc, unsigned len, unsigned uops);

/* Executions delivered by each path so far. */
uint64_t uopcache_count(const struct uopcache *uc, enum rt_path p);

#endif
