/* X-Ray's cache micro-benchmarks on pointer chases: the latency curve's plateaus, then per level
 * associativity and capacity from compact sequences, and the line size. */
#include "xray.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MIN_MEMBERS = 3, MAX_POINTS = 80, FIRST_BYTES = 4096, CURVE_LINE = 64, START_STRIDE = 64, MAX_LINE = 4096,
       MAX_WAYS = 64, PAGE = 4096 };
#define FLAT 1.10               /* a curve point within 10% of both neighbours is on a plateau */
#define NEW_LEVEL 1.4           /* a plateau 40% slower than the last one is another level */
#define MAX_SPREAD 0.05         /* a latency whose runs spread more is not used */
#define NEXT_CAP 4.0            /* a level's miss costs at least this many of its hits (threshold cap) */

struct curve {
    size_t n;
    size_t bytes[MAX_POINTS];
    struct nano_stat st[MAX_POINTS];
};

struct level {
    double threshold;           /* compact below this mean time per access */
    size_t ways, stride, size, line;
    bool geometry_ok;
    char why[240];              /* why the geometry is unknown */
};

struct xctx {
    struct chase *c;
    struct findings *f;
    FILE *progress;
    bool oom;
};

static struct nano_stat timed(struct xctx *x, size_t start, size_t stride, size_t n, size_t start2, size_t n2)
{
    struct chase_seq q = { .start = start, .stride = stride, .n = n, .start2 = start2, .n2 = n2 };
    struct nano_stat st = { 0, 0, 0, 0 };
    if (!x->oom && !chase_time(x->c, &q, &st))
        x->oom = true;
    return st;
}

/* A sequence <m0, S, N> (N addresses S bytes apart) is compact for a level when it fits there:
 * its mean access time stays below a threshold between that level's latency and the next one's.
 * For stride S the shortest non-compact sequence has A*ceil(T/S)+1 addresses (T = capacity /
 * associativity A), so it halves as S doubles until S reaches T and then stays at A+1. */
static bool compact(struct xctx *x, const struct level *l, size_t start, size_t stride, size_t n)
{
    return timed(x, start, stride, n, 0, 0).min < l->threshold;
}

static const char *human(size_t bytes, char *buf, size_t len)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, len, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, len, "%zu B", bytes);
    return buf;
}

/* ---- the latency curve and its plateaus -------------------------------------------------------- */

/* Random chases over buffers from 4 KiB to the whole arena, four sizes per octave: a level
 * whose plateau spans little more than one octave (a small L3 share) still gets flat points. */
static void measure_curve(struct xctx *x, struct curve *cv)
{
    size_t id = findings_curve(x->f, "latency", "bytes", "cycles");
    cv->n = 0;
    for (size_t b = FIRST_BYTES; b <= x->c->len; b *= 2)
        for (size_t q = 0; q < 4 && b + q * b / 4 <= x->c->len && cv->n < MAX_POINTS; q++) {
            size_t bytes = b + q * b / 4;
            cv->bytes[cv->n] = bytes;
            cv->st[cv->n] = timed(x, 0, CURVE_LINE, bytes / CURVE_LINE, 0, 0);
            findings_point(x->f, id, (double)bytes, cv->st[cv->n].min);
            cv->n++;
        }
}

static bool flat(const struct curve *cv, size_t i)
{
    double here = cv->st[i].min;
    return (i == 0 || here / cv->st[i - 1].min < FLAT) && (i + 1 == cv->n || cv->st[i + 1].min / here < FLAT);
}

/* A plateau of the curve: one level (the last one memory). */
struct plateau {
    double lat;                 /* the median latency of its points */
    size_t point;               /* the curve point with that latency */
};

static int cmp_point(const void *a, const void *b, void *cv)
{
    double p = ((const struct curve *)cv)->st[*(const size_t *)a].min;
    double q = ((const struct curve *)cv)->st[*(const size_t *)b].min;
    return (p > q) - (p < q);
}

/* The plateaus: runs of at least MIN_MEMBERS flat points, a new one where a flat point is NEW_LEVEL
 * slower than the flat point before it (memory's plateau rises slowly with the page walks). */
static size_t plateaus(const struct curve *cv, struct plateau *pl, size_t max)
{
    size_t members[MAX_POINTS], levels = 0, m = 0;
    for (size_t i = 0; i <= cv->n; i++) {
        bool end = i == cv->n || (flat(cv, i) && m && cv->st[i].min / cv->st[members[m - 1]].min >= NEW_LEVEL);
        if (end && m >= MIN_MEMBERS && levels < max) {
            qsort_r(members, m, sizeof members[0], cmp_point, (void *)cv);
            pl[levels].point = members[m / 2];
            pl[levels++].lat = cv->st[members[m / 2]].min;
        }
        if (end)
            m = 0;
        if (i < cv->n && flat(cv, i))
            members[m++] = i;
    }
    return levels;
}

/* The largest buffer of the curve that is compact for a level (below its threshold). */
static size_t compact_bytes(const struct curve *cv, double threshold)
{
    size_t best = 0;
    for (size_t i = 0; i < cv->n && cv->st[i].min < threshold; i++)
        best = cv->bytes[i];
    return best;
}

/* ---- associativity and capacity (X-Ray figure 5) ----------------------------------------------- */

/* The shortest sequence of stride S that is not compact, searched in [1, hi]; hi is not compact. */
static size_t shortest_noncompact(struct xctx *x, const struct level *l, size_t stride, size_t hi)
{
    size_t lo = 1;
    while (hi - lo > 1 && !x->oom) {
        size_t mid = lo + (hi - lo) / 2;
        if (compact(x, l, 0, stride, mid))
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* A lines of one set fit and A+1 do not, at four places in the buffer: where the host does not
 * map the buffer contiguously, strides beyond a page fall in random sets and the outcome changes
 * from place to place. */
static bool verified(struct xctx *x, const struct level *l)
{
    size_t quarter = (x->c->len / 4) & ~(size_t)((2 << 20) - 1);
    if (l->ways == 0 || l->ways > MAX_WAYS || 3 * quarter + (l->ways + 1) * l->stride > x->c->len)
        return false;
    for (size_t start = 0; start <= 3 * quarter; start += quarter ? quarter : 1)
        if (!compact(x, l, start, l->stride, l->ways) || compact(x, l, start, l->stride, l->ways + 1))
            return false;
    return true;
}

/* Sets l->ways, stride and size; false when no verified edge shows within the buffer. */
static bool geometry(struct xctx *x, struct level *l)
{
    size_t stride = START_STRIDE, n = 1;
    while (n * stride <= x->c->len && compact(x, l, 0, stride, n))
        n *= 2;
    size_t prev = n;
    for (;;) {
        stride *= 2;
        if (prev * stride > x->c->len || x->oom)
            return false;
        n = shortest_noncompact(x, l, stride, prev);
        if (n == prev)
            break;
        prev = n;
    }
    l->ways = n - 1;
    l->stride = stride / 2;
    l->size = l->ways * l->stride;
    return verified(x, l);
}

/* ---- line size (X-Ray figure 7) ---------------------------------------------------------------- */

/* <m0, T, A> and <m0 + C + d, T, A> share one set while d is within a line: not compact. */
static size_t line_size(struct xctx *x, const struct level *l)
{
    for (size_t d = 8; d <= MAX_LINE && l->size + d + l->ways * l->stride <= x->c->len; d *= 2)
        if (timed(x, 0, l->stride, l->ways, l->size + d, l->ways).min < l->threshold)
            return d;
    return 0;
}

/* ---- one level --------------------------------------------------------------------------------- */

/* X-Ray's strides, then its line size; the geometry is dropped when the line is shorter than the
 * level above's (a lower level's line never is: a verification passed by chance). */
static void measure_level(struct xctx *x, struct level *l, const struct level *above, const struct curve *cv,
                          const struct plateau *pl)
{
    /* The geometric mean of this level's and the next one's latency, as far from both; the next
     * one taken as at most NEXT_CAP times this one, in case its plateau was lost in the noise of
     * a shared last level (memory is then the next plateau). */
    double next = fmin(pl[1].lat, NEXT_CAP * pl[0].lat);
    l->threshold = sqrt(pl[0].lat * next);
    l->geometry_ok = geometry(x, l);
    l->line = l->geometry_ok ? line_size(x, l) : 0;
    if (l->geometry_ok && above && l->line < above->line)
        l->geometry_ok = false;
    char b[32];
    if (!l->geometry_ok && above)   /* below L1 the sets are indexed by bits beyond the page offset */
        snprintf(l->why, sizeof l->why, "no capacity edge holds at four places in the buffer: strides beyond "
                 "4 KiB are not physical strides here (memory mapped in 4 KiB pages by a hypervisor?); random "
                 "lines stay under %.1f cycles up to %s", l->threshold, human(compact_bytes(cv, l->threshold), b,
                 sizeof b));
    else if (!l->geometry_ok)
        snprintf(l->why, sizeof l->why, "no verified capacity edge");
}

/* ---- findings ---------------------------------------------------------------------------------- */

static void geometry_methods(const struct level *l, struct finding *size, struct finding *ways)
{
    char t[32];
    snprintf(size->method, sizeof size->method,
             "X-Ray: compact sequences stop shrinking at stride %s with %zu addresses (threshold %.1f cycles)",
             human(l->stride, t, sizeof t), l->ways, l->threshold);
    snprintf(ways->method, sizeof ways->method, "X-Ray: %zu addresses %s apart fit, %zu do not", l->ways,
             human(l->stride, t, sizeof t), l->ways + 1);
}

static void add_geometry(struct xctx *x, unsigned k, const struct level *l)
{
    struct finding *size = findings_add(x->f, FB_CACHE, k, "size", NULL);
    struct finding *ways = findings_add(x->f, FB_CACHE, k, "ways", NULL);
    struct finding *line = findings_add(x->f, FB_CACHE, k, "line", NULL);
    if (!size || !ways || !line)
        return;
    size->value = size->raw = (double)l->size;
    ways->value = ways->raw = (double)l->ways;
    line->value = line->raw = (double)l->line;
    geometry_methods(l, size, ways);
    snprintf(line->method, sizeof line->method, "X-Ray: a conflicting set stops conflicting when moved %zu bytes",
             l->line);
    if (!l->geometry_ok) {
        const char *why = l->why;
        findings_reject(size, "%s", why);
        findings_reject(ways, "%s", why);
        findings_reject(line, "%s", why);
    }
}

static void add_latency(struct xctx *x, enum findings_block b, unsigned k, struct nano_stat st, const char *method)
{
    struct finding *lat = findings_add(x->f, b, k, "latency", NULL);
    if (!lat)
        return;
    lat->stat = st;
    lat->raw = st.min;
    lat->value = findings_round_cycles(st.min);
    snprintf(lat->method, sizeof lat->method, "%s", method);
    if (st.spread > MAX_SPREAD)
        findings_reject(lat, "runs spread %.1f%%", 100 * st.spread);
}

/* L1: X-Ray's sequence of one address (a pointer to itself); below: the curve's plateau, random
 * addresses over a buffer that fits this level and not the one above. */
static void level_latency(struct xctx *x, unsigned k, const struct curve *cv, const struct plateau *pl)
{
    char b[32], method[160];
    if (k == 1) {
        add_latency(x, FB_CACHE, k, timed(x, 0, 8, 1, 0, 0), "X-Ray: a dependent 8-byte load chain on one address");
        return;
    }
    snprintf(method, sizeof method, "random chase over %s, one address per %d B (the curve's plateau)",
             human(cv->bytes[pl->point], b, sizeof b), CURVE_LINE);
    add_latency(x, FB_CACHE, k, cv->st[pl->point], method);
}

static void say_level(struct xctx *x, unsigned k, const struct level *l, const struct finding *lat)
{
    if (!x->progress)
        return;
    char s[32], b[32];
    if (l->geometry_ok)
        fprintf(x->progress, "mdlprobe: caches: L%u %s, %zu ways, %s lines, %.1f cycles\n", k,
                human(l->size, s, sizeof s), l->ways, l->line ? human(l->line, b, sizeof b) : "unknown",
                lat ? lat->raw : 0.0);
    else
        fprintf(x->progress, "mdlprobe: caches: L%u %.1f cycles; size, ways, line not measured: %s\n", k,
                lat ? lat->raw : 0.0, l->why);
}

static void say_curve(FILE *progress, size_t len, const struct plateau *pl, size_t n)
{
    if (!progress)
        return;
    fprintf(progress, "mdlprobe: caches: latency curve 4 KiB .. %zu MiB, %zu plateaus:", len >> 20, n);
    for (size_t i = 0; i < n; i++)
        fprintf(progress, " %.1f", pl[i].lat);
    fprintf(progress, " cycles\n");
}

bool xray_run(struct chase *c, struct findings *f, FILE *progress)
{
    struct xctx x = { c, f, progress, false };
    struct curve cv;
    measure_curve(&x, &cv);
    struct plateau pl[XRAY_MAX_LEVELS + 1];
    size_t n = plateaus(&cv, pl, XRAY_MAX_LEVELS + 1);
    say_curve(progress, c->len, pl, n);
    struct level lv[XRAY_MAX_LEVELS];
    memset(lv, 0, sizeof lv);
    for (size_t i = 0; i + 1 < n && !x.oom; i++) {
        unsigned k = (unsigned)i + 1;
        measure_level(&x, &lv[i], i ? &lv[i - 1] : NULL, &cv, &pl[i]);
        add_geometry(&x, k, &lv[i]);
        level_latency(&x, k, &cv, &pl[i]);
        say_level(&x, k, &lv[i], findings_get(f, FB_CACHE, k, "latency", NULL));
    }
    if (n >= 2) {
        char b[32], method[160];
        snprintf(method, sizeof method, "random chase over %s, one address per %d B", human(c->len, b, sizeof b),
                 CURVE_LINE);
        add_latency(&x, FB_MEMORY, 0, cv.st[cv.n - 1], method);
    }
    return !x.oom && !f->oom;
}
