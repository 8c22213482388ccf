/* Innermost loops by back edges, over a linear sweep of the code: what a compiler emits for a
 * loop (a body ending in a branch back to its head) without building the whole control flow. */
#include "loops.h"
#include "alloc.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static int by_start(const void *a, const void *b)
{
    const struct loop *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end > y->end) - (x->end < y->end);
}

/* Grows *V (of *CAP elements of SIZE bytes) to hold N + 1. */
static void *room(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    *cap = *cap ? 2 * *cap : 16;
    return alloc_resize(v, *cap, size);
}

/* Whether a return or an indirect jump lies in [START, END): code that leaves there never
 * reaches the branch back (a jump back to a shared epilogue is not a loop). */
static bool leaves(const size_t *exits, size_t n, size_t start, size_t end)
{
    for (size_t i = 0; i < n; i++)
        if (exits[i] >= start && exits[i] < end)
            return true;
    return false;
}

/* Every back edge's range whose code reaches its branch; *N of them. */
static struct loop *back_edges(struct dec *d, const uint8_t *code, size_t len, uint64_t pc, size_t *n)
{
    struct loop *all = NULL;
    size_t *exits = NULL, cap = 0, n_exits = 0, exits_cap = 0;
    *n = 0;
    char err[128];
    for (size_t off = 0; off < len;) {
        struct rt_insn in;
        int k = dec_one(d, code + off, len - off, pc + off, &in, err, sizeof err);
        uint64_t t = k > 0 ? dec_last_target(d, &in) : 0;
        if (k > 0 && (in.branch == RT_BR_RET || in.branch == RT_BR_INDIRECT)) {
            exits = room(exits, &exits_cap, n_exits, sizeof *exits);
            exits[n_exits++] = off;
        }
        if (t >= pc && t <= pc + off) {
            all = room(all, &cap, *n, sizeof *all);
            all[(*n)++] = (struct loop){ (size_t)(t - pc), off + (size_t)k };
        }
        off += k > 0 ? (size_t)k : 1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (!leaves(exits, n_exits, all[i].start, all[i].end))
            all[kept++] = all[i];
    *n = kept;
    free(exits);
    return all;
}

/* By start, the longer first: a range comes after every range that holds it. */
static int by_start_outer_first(const void *a, const void *b)
{
    const struct loop *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end < y->end) - (x->end > y->end);
}

/* Back-edge ranges that cross (one starts inside the other and ends beyond it) are one loop laid
 * out with its head in the middle: an if/else whose one branch gcc places before the head and
 * which jumps back to it, the other reaching the latch. Each such set becomes its union; nested
 * ranges stay apart (the innermost is chosen after). ALL sorted by start, outer first; one pass
 * with a stack of the ranges still open, each range pushed once. The ranges left, *N of them. */
static void merge_crossing(struct loop *all, size_t *n)
{
    size_t *open = alloc_resize(NULL, *n + 1, sizeof *open), depth = 0, kept = 0;
    for (size_t i = 0; i < *n; i++) {
        struct loop r = all[i];
        while (depth && r.start >= all[open[depth - 1]].end)
            depth--;                            /* closed before R: kept as it is */
        if (depth && r.end > all[open[depth - 1]].end) {
            size_t top = open[depth - 1];       /* R crosses it: one loop */
            all[top].end = r.end;
            /* which may now cross the ranges it was inside */
            while (depth > 1 && all[top].end > all[open[depth - 2]].end) {
                size_t parent = open[depth - 2];
                all[parent].end = all[top].end;
                all[top].end = all[top].start;  /* emptied: dropped below */
                top = parent;
                depth--;
            }
            continue;
        }
        all[kept] = r;
        open[depth++] = kept++;
    }
    free(open);
    size_t k = 0;
    for (size_t i = 0; i < kept; i++)
        if (all[i].end > all[i].start)
            all[k++] = all[i];
    *n = k;
}

struct loop *loops_find(struct dec *d, const uint8_t *code, size_t len, uint64_t pc, size_t *found)
{
    size_t n;
    struct loop *all = back_edges(d, code, len, pc, &n);
    if (n) {
        qsort(all, n, sizeof *all, by_start_outer_first);
        merge_crossing(all, &n);
        qsort(all, n, sizeof *all, by_start);
    }
    /* Sorted by start, then end: a body holding another one either shares its start and comes
     * after it, or ends at or after the least end of the bodies starting later. */
    size_t *least_end = alloc_resize(NULL, n + 1, sizeof *least_end);
    least_end[n] = SIZE_MAX;
    for (size_t i = n; i-- > 0;)
        least_end[i] = all[i].end < least_end[i + 1] ? all[i].end : least_end[i + 1];
    *found = 0;
    for (size_t i = 0, next = 0; i < n; i++) {
        if (i && all[i].start == all[i - 1].start)
            continue;           /* a longer body from the same head, or the same body again */
        for (next = i; next < n && all[next].start == all[i].start; next++)
            ;
        if (least_end[next] > all[i].end)
            all[(*found)++] = all[i];
    }
    free(least_end);
    return all;
}
