/* The decoded-uop cache (Intel's DSB, optimization manual "Decoded ICache") and the loop stream
 * detector, followed along the executed instructions: which path delivers each one. */
#include "uopcache.h"
#include "alloc.h"
#include <stdlib.h>

/* A way of a set: the window whose uops it holds (its number + 1; 0: empty), when it was last used.
 * A window of several ways has them all in one set; the first of them (the lowest) holds its
 * stamp, the others UINT64_MAX, so that the least recently used window is found by its first way
 * and a lookup stops there. */
struct way {
    uint64_t tag, used;
};

struct uopcache {
    unsigned shift;                 /* log2 of the window's bytes */
    unsigned sets, ways, line, window_ways;
    uint64_t set_mask;              /* sets - 1 when sets is a power of two, else 0 */
    struct way *w;                  /* [sets][ways] */
    uint64_t clock;
    /* the visit of the current window: its number, the path that delivers it, the ways its uops
     * take and the room left in the last (for the fill, when the legacy decoders delivered it),
     * where the next instruction in order is */
    uint64_t win, next;
    unsigned visit_ways, visit_left;
    enum rt_path path;
    bool visiting;
    /* the loop stream detector: the loop the last backward jump closed (from TAIL to HEAD), the
     * uops of its iteration so far and whether the iteration ran in order from the uop cache */
    unsigned loop_buffer;
    uint64_t head, tail, last_pc;
    unsigned iter_uops;
    bool iter_ok, streaming;
    uint64_t count[RT_PATH_COUNT];
};

struct uopcache *uopcache_new(const struct mdl_machine *m)
{
    if (!m->uop_cache_window || !m->uop_cache_width || !m->uop_cache_ways || !m->uop_cache_line ||
        !m->uop_cache_window_ways)
        return NULL;
    struct uopcache *uc = alloc_zeroed(1, sizeof *uc);
    while ((1u << uc->shift) < m->uop_cache_window)
        uc->shift++;
    uc->ways = m->uop_cache_ways;
    uc->line = m->uop_cache_line;
    uc->window_ways = m->uop_cache_window_ways < uc->ways ? m->uop_cache_window_ways : uc->ways;
    uc->sets = m->uop_cache_entries / (uc->ways * uc->line);
    if (uc->sets == 0)
        uc->sets = 1;
    uc->set_mask = (uc->sets & (uc->sets - 1)) ? 0 : uc->sets - 1;
    uc->w = alloc_zeroed((size_t)uc->sets * uc->ways, sizeof *uc->w);
    uc->loop_buffer = m->loop_buffer;
    return uc;
}

void uopcache_free(struct uopcache *uc)
{
    if (!uc)
        return;
    free(uc->w);
    free(uc);
}

/* The ways of WIN's set: a mask where it can, since a division per window visit costs more than
 * the rest of the lookup. */
static struct way *set_of(const struct uopcache *uc, uint64_t win)
{
    uint64_t set = uc->set_mask ? win & uc->set_mask : win % uc->sets;
    return &uc->w[set * uc->ways];
}

/* Whether WIN's uops are in the cache; a hit makes it the set's most recently used. */
static bool lookup(struct uopcache *uc, uint64_t win)
{
    struct way *set = set_of(uc, win);
    for (unsigned k = 0; k < uc->ways; k++)
        if (set[k].tag == win + 1) {
            set[k].used = uc->clock;
            return true;
        }
    return false;
}

/* The window least recently used in SET goes, all its ways with it (SET holds one at least). */
static void evict(struct uopcache *uc, struct way *set)
{
    unsigned old = uc->ways;
    for (unsigned k = 0; k < uc->ways; k++)
        if (set[k].tag && (old == uc->ways || set[k].used < set[old].used))
            old = k;
    uint64_t tag = set[old].tag;
    for (unsigned k = 0; k < uc->ways; k++)
        if (set[k].tag == tag)
            set[k].tag = 0;
}

/* The ways of the visit with an instruction of UOPS fused uops more: its uops go in the last way
 * where they fit, else in a new one. One of more than four comes from the microcode sequencer (as
 * in the decoders, kernel.c): the way holds a pointer to it and is closed (uiCA's getDSBBlocks). */
static void pack(struct uopcache *uc, unsigned uops)
{
    unsigned need = uops ? uops : 1;
    if (uops > 4) {
        uc->visit_ways++;
        uc->visit_left = 0;
        return;
    }
    if (need > uc->visit_left) {
        uc->visit_ways++;
        uc->visit_left = uc->line;
    }
    uc->visit_left -= need < uc->visit_left ? need : uc->visit_left;
}

/* WIN, decoded by the legacy decoders into NEED ways, takes them (none when it needs more than a
 * window may take: it is decoded every time), evicting the least recently used. */
static void fill(struct uopcache *uc, uint64_t win, unsigned need)
{
    if (need == 0 || need > uc->window_ways)
        return;
    struct way *set = set_of(uc, win);
    for (;;) {
        unsigned free = 0;
        for (unsigned k = 0; k < uc->ways; k++)
            free += set[k].tag == 0;
        if (free >= need)
            break;
        evict(uc, set);
    }
    uint64_t stamp = uc->clock;
    for (unsigned k = 0; k < uc->ways && need; k++)
        if (set[k].tag == 0) {
            set[k] = (struct way){ win + 1, stamp };
            stamp = UINT64_MAX;
            need--;
        }
}

/* The uop cache's path for the instruction at PC: the current visit's, or a new visit's lookup. */
static enum rt_path window_path(struct uopcache *uc, uint64_t pc, unsigned uops, bool in_order)
{
    uint64_t win = pc >> uc->shift;
    if (uc->visiting && in_order && win == uc->win) {
        pack(uc, uops);
        return uc->path;
    }
    if (uc->visiting && uc->path == RT_PATH_LEGACY)
        fill(uc, uc->win, uc->visit_ways);
    uc->clock++;
    uc->visiting = true;
    uc->win = win;
    uc->visit_ways = uc->visit_left = 0;
    pack(uc, uops);
    uc->path = lookup(uc, win) ? RT_PATH_UOP_CACHE : RT_PATH_LEGACY;
    return uc->path;
}

/* The loop stream detector streams a loop once an iteration of it, closed by the same backward
 * jump as the one before, ran in order from the uop cache in at most loop_buffer uops (uiCA's
 * condition: every window of the loop cacheable, the loop no larger than the uop queue). It
 * stops at the first jump that leaves the loop, or when the loop falls through its last
 * instruction. Only called when the machine has a loop buffer. */
static bool loop_streams(struct uopcache *uc, uint64_t pc, bool in_order)
{
    if (!in_order) {
        bool back = pc <= uc->last_pc;
        uc->streaming = back && pc == uc->head && uc->last_pc == uc->tail && uc->iter_ok &&
                        uc->iter_uops <= uc->loop_buffer;
        uc->head = pc;
        uc->tail = uc->last_pc;
        uc->iter_uops = 0;
        uc->iter_ok = back;
    } else if (pc > uc->tail) {
        uc->streaming = false;
    }
    uc->last_pc = pc;
    return uc->streaming;
}

/* Any instruction: the loop stream detector, then the uop cache's visit or a new one. Kept out
 * of line: inlined, its registers would be saved and restored for every instruction. */
__attribute__((noinline)) static enum rt_path next_path(struct uopcache *uc, uint64_t pc, unsigned len, unsigned uops)
{
    bool in_order = pc == uc->next;
    uc->next = pc + len;
    enum rt_path p;
    if (uc->loop_buffer && loop_streams(uc, pc, in_order)) {
        uc->visiting = false;       /* the uop cache is not read meanwhile */
        p = RT_PATH_LOOP;
    } else {
        p = window_path(uc, pc, uops, in_order);
    }
    uc->iter_uops += uops;
    uc->iter_ok &= p != RT_PATH_LEGACY;
    uc->count[p]++;
    return p;
}

enum rt_path uopcache_next(struct uopcache *uc, uint64_t pc, unsigned len, unsigned uops)
{
    /* Most instructions continue the visit of their window in order, outside a streamed loop:
     * next_path's outcome for them, in few enough instructions to be inlined. */
    if (pc == uc->next && uc->visiting && !uc->streaming && pc >> uc->shift == uc->win) {
        uc->next = pc + len;
        uc->last_pc = pc;           /* loop_streams: an in-order step keeps the loop's state */
        pack(uc, uops);
        uc->iter_uops += uops;
        uc->iter_ok &= uc->path != RT_PATH_LEGACY;
        uc->count[uc->path]++;
        return uc->path;
    }
    return next_path(uc, pc, len, uops);
}

uint64_t uopcache_count(const struct uopcache *uc, enum rt_path p) { return uc->count[p]; }
