/* A basic block repeated back to back. Addresses are not known statically, so each memory
 * operand gets a synthetic address from the values of its base and index registers (a move
 * copies a value, a constant added offsets it): two accesses alias exactly when they use the
 * same register values and displacement, which is what lets a store feed a later load of the same
 * slot (store-to-load forwarding). */
#include "block.h"
#include "alloc.h"
#include "isa.h"
#include "result.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "decode.h"
#include "periods.h"

void block_free(struct block *b)
{
    free(b->insns);
    free(b->orig);
    memset(b, 0, sizeof *b);
}

/* C as the message shows it: itself when printable, else its code ('\x1b'). */
static void show_char(char *buf, size_t len, unsigned char c)
{
    snprintf(buf, len, isprint(c) ? "%c" : "\\x%02x", c);
}

bool block_parse_hex(const char *hex, size_t chars, uint8_t **bytes, size_t *len, char *err, size_t errlen)
{
    size_t n = 0, cap = chars / 2 + 1;
    if (cap > BLOCK_MAX_BYTES + 1) {
        snprintf(err, errlen, "a block of %zu bytes: at most %d", cap - 1, BLOCK_MAX_BYTES);
        return false;
    }
    uint8_t *out = alloc_resize(NULL, cap, 1);
    int hi = -1;
    for (const char *c = hex; c < hex + chars; c++) {
        if (isspace((unsigned char)*c))
            continue;
        if (!isxdigit((unsigned char)*c)) {
            char shown[8];
            show_char(shown, sizeof shown, (unsigned char)*c);
            snprintf(err, errlen, "invalid hex digit '%s' at offset %zu", shown, (size_t)(c - hex));
            free(out);
            return false;
        }
        int v = isdigit((unsigned char)*c) ? *c - '0' : tolower((unsigned char)*c) - 'a' + 10;
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0 || n == 0) {
        snprintf(err, errlen, n ? "odd number of hex digits" : "empty block");
        free(out);
        return false;
    }
    *bytes = out;
    *len = n;
    return true;
}

/* A read of the stack register after pushes or pops needs the stack engine's sync uop (none
 * where the ISA has no stack engine). The block repeats, so
 * the state at its start is the one its end leaves: two passes settle it. */
static void mark_stack_sync(struct block *b)
{
    bool dirty = false;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < b->n; i++) {
            struct rt_insn *in = &b->insns[i];
            if (in->stack) {
                dirty = true;
                continue;
            }
            in->sync = dirty && rt_insn_reads_stack(in);
            if (in->sync || rt_insn_reads_stack(in))
                dirty = false;
        }
}

/* ---- the decoded instructions of a thread ---------------------------------------------------- */

/* Instructions of an ISA whose table caches them (isa_ops.cache_decodes: x86-64), and only those
 * that do not depend on where they are (not pc_relative: a relative branch's text names its
 * target). Any number of bytes that decode to an instruction decode to it
 * wherever they are, so the entry whose bytes start the rest of a block is its instruction:
 * lookups try each length from 1 to 15 bytes. */
enum { CACHE_SLOTS = 1 << 14, CACHE_ENTRIES = CACHE_SLOTS / 2, MAX_INSN_BYTES = 15 };

struct cache_entry {
    uint8_t len, bytes[MAX_INSN_BYTES];
    struct rt_insn in;              /* decoded, classified; pc 0 */
};

struct block_cache {
    uint32_t slot[CACHE_SLOTS];     /* entry + 1; 0: empty */
    struct cache_entry *e;
    uint32_t n;
};

struct block_cache *block_cache_new(void)
{
    struct block_cache *c = alloc_zeroed(1, sizeof *c);
    c->e = alloc_resize(NULL, CACHE_ENTRIES, sizeof *c->e);
    return c;
}

void block_cache_free(struct block_cache *c)
{
    if (c)
        free(c->e);
    free(c);
}

/* The slot of the instruction made of BYTES[0, len), or of where it goes. H: their hash. */
static uint32_t *cache_slot(struct block_cache *c, const uint8_t *bytes, unsigned len, uint64_t h)
{
    for (uint32_t i = (uint32_t)(h ^ h >> 29) & (CACHE_SLOTS - 1);; i = (i + 1) & (CACHE_SLOTS - 1)) {
        const struct cache_entry *e = c->slot[i] ? &c->e[c->slot[i] - 1] : NULL;
        if (!e || (e->len == len && memcmp(e->bytes, bytes, len) == 0))
            return &c->slot[i];
    }
}

/* The instruction at the start of BYTES, or NULL. */
static const struct rt_insn *cache_find(struct block_cache *c, const uint8_t *bytes, size_t avail)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned len = 1; len <= MAX_INSN_BYTES && len <= avail; len++) {
        h = (h ^ bytes[len - 1]) * 0x100000001b3ull;
        uint32_t s = *cache_slot(c, bytes, len, h);
        if (s)
            return &c->e[s - 1].in;
    }
    return NULL;
}

static void cache_put(struct block_cache *c, const uint8_t *bytes, const struct rt_insn *in)
{
    if (c->n == CACHE_ENTRIES || in->len == 0 || in->len > MAX_INSN_BYTES || in->pc_relative)
        return;
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned k = 0; k < in->len; k++)
        h = (h ^ bytes[k]) * 0x100000001b3ull;
    uint32_t *slot = cache_slot(c, bytes, in->len, h);
    if (*slot)
        return;
    struct cache_entry *e = &c->e[c->n];
    e->len = in->len;
    memcpy(e->bytes, bytes, in->len);
    e->in = *in;
    e->in.pc = 0;
    *slot = ++c->n;
}

/* One instruction decoded and classified: N bytes, or 0 with ERR. */
static int decode_insn(struct dec *dec, const struct cls_index *ci, const struct mdl_machine *m,
                       struct block_cache *cache, const uint8_t *bytes, size_t avail, uint64_t pc,
                       struct rt_insn *in, char *err, size_t errlen)
{
    bool cached = cache && isa_get(m->isa)->cache_decodes;
    const struct rt_insn *hit = cached ? cache_find(cache, bytes, avail) : NULL;
    if (hit) {
        *in = *hit;
        in->pc = pc;
        return in->len;
    }
    int n = dec_one(dec, bytes, avail, pc, in, err, errlen);
    if (n <= 0)
        return n;
    cls_apply(ci, m, in);
    if (cached)
        cache_put(cache, bytes, in);
    return n;
}

bool block_decode(struct block *b, struct dec *dec, const struct cls_index *ci, const struct mdl_machine *m,
                  struct block_cache *cache, const uint8_t *bytes, size_t len, uint64_t pc, char *err,
                  size_t errlen)
{
    block_free(b);
    if (len > BLOCK_MAX_BYTES) {
        snprintf(err, errlen, "a block of %zu bytes: at most %d", len, BLOCK_MAX_BYTES);
        return false;
    }
    size_t cap = len + 1;
    b->insns = alloc_zeroed(cap, sizeof *b->insns);
    b->orig = alloc_zeroed(cap, sizeof *b->orig);
    for (size_t off = 0; off < len;) {
        struct rt_insn *in = &b->insns[b->n];
        int n = decode_insn(dec, ci, m, cache, bytes + off, len - off, pc + off, in, err, errlen);
        if (n <= 0) {
            block_free(b);
            return false;
        }
        b->orig[b->n] = (uint32_t)b->n_orig++;
        /* Macro-fusion: the pair becomes one entry in its first instruction's place. */
        if (b->n > 0 && cls_fuse(ci, m, &b->insns[b->n - 1], in))
            memset(in, 0, sizeof *in);
        else
            b->n++;
        off += (size_t)n;
    }
    mark_stack_sync(b);
    return true;
}

void block_busy(const struct block *b, const struct mdl_machine *m, double *res, double *frontend, double *retire)
{
    memset(res, 0, m->n_resources * sizeof *res);
    *frontend = *retire = 0;
    for (size_t i = 0; i < b->n; i++) {
        const struct mdl_template *t = &m->templates[b->insns[i].tmpl];
        for (unsigned k = 0; !b->insns[i].eliminated && k < t->use_count; k++)
            res[m->uses[t->use_first + k].resource] += m->uses[t->use_first + k].cost;
        if (m->issue_width)
            *frontend += (double)t->uops_fused / m->issue_width;
        if (m->retire_width)
            *retire += (double)t->uops_fused / m->retire_width;
    }
}

/* ---- running -------------------------------------------------------------------------------- */

/* Each register holds a value (a version) plus a constant offset: a move copies both, adding a
 * constant moves the offset (decode: value_of), anything else makes a new version. The versions
 * start distinct, one per register. */
struct addr_gen {
    uint32_t version[RT_REG_COUNT];
    int64_t offset[RT_REG_COUNT];
    uint32_t fresh;             /* the next new version */
    int64_t sp_delta;           /* rsp moved by pushes and pops since its last version */
};

static void addr_gen_init(struct addr_gen *g)
{
    memset(g, 0, sizeof *g);
    for (unsigned r = 0; r < RT_REG_COUNT; r++)
        g->version[r] = r;
    g->fresh = RT_REG_COUNT;
}

static uint64_t synthetic_address(const struct addr_gen *g, const struct rt_mem *mem, uint8_t stack_reg)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    h = (h ^ (mem->base ? g->version[mem->base] : 0)) * 0x100000001b3ull;
    h = (h ^ (mem->index ? g->version[mem->index] : 0)) * 0x100000001b3ull;
    h = (h ^ mem->scale) * 0x100000001b3ull;
    int64_t disp = mem->disp + (mem->base && mem->base == stack_reg ? g->sp_delta : 0) +
                   (mem->base ? g->offset[mem->base] : 0) + (mem->index ? g->offset[mem->index] * mem->scale : 0);
    /* Keep the displacement in the low bits so that neighbouring slots overlap as they do. */
    return (h << 24) + (uint64_t)(disp + (1 << 22));
}

static void addresses(struct addr_gen *g, const struct rt_insn *in, uint64_t *addr)
{
    for (unsigned i = 0; i < in->n_mem; i++)
        addr[i] = synthetic_address(g, &in->mem[i], in->stack_reg);
    /* x86 pushes, pops, calls and returns move rsp in the front end (the stack engine), so the
     * decoder does not list it as written; their slots still move, which the delta tracks so
     * that a pop reads what the matching push wrote (in->stack: 0 on an ISA without one). */
    g->sp_delta += in->stack;
    uint8_t to = in->value_of != RT_REG_NONE ? in->op_reg[0] : RT_REG_NONE;
    uint32_t v = g->version[in->value_of];
    int64_t off = g->offset[in->value_of] + in->value_add;
    for (unsigned k = 0; k < in->n_dst; k++) {
        uint8_t r = in->dst[k];
        g->version[r] = r == to ? v : g->fresh++;
        g->offset[r] = r == to ? off : 0;
        if (r == in->stack_reg)
            g->sp_delta = 0;
    }
}

/* Steady state: a lane's time per iteration repeats with a period of P iterations (1 to 32:
 * the 16-byte fetch blocks of a block repeated back to back line up again every 8 or 16
 * copies, and the ports the scheduler chooses may take two such rounds to repeat) over the last
 * SPAN iterations. The smallest such P is the period. A shorter span
 * takes the filling of the window, which can run at a steady rate for 20 iterations and more,
 * for the steady state. */
enum { PMAX = PERIODS_MAX, SPAN = 24, HIST = SPAN + PMAX + 2 };
_Static_assert(PMAX <= 32 && PMAX % 8 == 0, "a bit per period in struct series, eight at a time");

/* The times of every lane BACK iterations before iteration IT (IT >= BACK). */
static double *hist_row(double *hist, unsigned it, unsigned back, unsigned L)
{
    return &hist[((it - back) % HIST) * L];
}

/* A lane's cycles per iteration and how long they have repeated with each period, kept as
 * they come (one comparison per period and iteration rather than a span's worth). */
enum { SERIES = 64 };               /* a power of two above PMAX */

struct series {
    /* the last values, the newest first: value J at SERIES - 1 - J % SERIES and again SERIES after,
     * so that the PMAX before the next one are in a row, the nearest first (the comparisons below
     * take them a vector at a time, each period's answer in its bit) */
    double v[2 * SERIES];
    double at[SERIES];              /* the times whose differences the values are: time J at J % SERIES */
    unsigned n;                     /* values so far */
};

/* The first time, T: no value yet (the values before it are never read: they are masked). */
static void series_start(struct series *s, double t)
{
    s->at[0] = t;
    s->n = 0;
}

/* The time moves on to T: the value is the difference from the time before. Each value is
 * compared with the PMAX before it at once: the mask of the periods it repeats (bit P - 1: it
 * equals the value P before; none longer than the values so far), of those in WANT (the others
 * are not compared: the caller's answer has none of them). Inline: three calls a lane and
 * iteration, whose saved registers cost more than the bookkeeping. */
static inline __attribute__((always_inline)) uint32_t series_add(struct series *s, double t, uint32_t want)
{
    double x = t - s->at[s->n % SERIES];
    s->at[(s->n + 1) % SERIES] = t;
    unsigned i = SERIES - 1 - s->n % SERIES, n = s->n;
    double tol = 1e-9 * (fabs(x) > 1 ? fabs(x) : 1);
    if (n < PMAX)
        want &= (1u << n) - 1;              /* a period longer than the values so far: none */
    uint32_t same = want ? periods_match(&s->v[i + 1], x, tol) & want : 0;    /* v[i + P]: the value P before */
    s->v[i] = s->v[i + SERIES] = x;
    s->n++;
    return same;
}

/* The sum of the last P values: the time over them. */
static double series_sum(const struct series *s, unsigned p)
{
    return s->at[s->n % SERIES] - s->at[(s->n - p) % SERIES];
}

static bool same_time(double x, double y) { return fabs(x - y) <= 1e-9 * (fabs(x) > 1 ? fabs(x) : 1); }

/* A lane's steady state: the smallest period P that its retirement and its latest result both
 * follow over the last SPAN iterations, moving on by the same time per period, or 0. Retirement
 * alone can repeat while the results run ahead of it (a port's backlog growing until the window
 * is full): that rate is not the steady state's. Where the scheduler chooses ports (ISSUE), its
 * issue must keep pace too: the choice depends on how many uops wait, which grows while the
 * scheduler fills. */
struct progress {
    struct series ret, end, issue;
    uint32_t same[SPAN];            /* iteration J at J % SPAN: the periods all its series repeat */
    uint32_t repeats;               /* bit P - 1: the last SPAN iterations (of more than SPAN + P) repeat with period P */
};

/* The periods the iteration's series all repeat (SAME, the AND of their masks; N values before
 * it): a period holds over the last SPAN iterations where all their masks have it. */
static void progress_add(struct progress *g, uint32_t same, unsigned n)
{
    g->same[n % SPAN] = same;
    uint32_t all = ~0u;                     /* zero until SPAN values have come */
    for (unsigned k = 0; k < SPAN; k++)
        all &= g->same[k];
    /* and more than SPAN + P values in all (the first has no value P before it) */
    unsigned c = n > SPAN ? n - SPAN : 0;
    g->repeats = all & (c >= 32 ? ~0u : (1u << c) - 1);
}

static unsigned lane_period(const struct progress *g, bool issue)
{
    /* the periods that every series repeats with, the smallest first */
    for (uint32_t c = g->repeats; c; c &= c - 1) {
        unsigned p = (unsigned)__builtin_ctz(c) + 1;
        double ret = series_sum(&g->ret, p);
        if (same_time(ret, series_sum(&g->end, p)) && (!issue || same_time(ret, series_sum(&g->issue, p))))
            return p;
    }
    return 0;
}

/* A lane that never repeats (its ports start uops on a grid of another length than its
 * latencies, say): the least-squares slope of its retire times over the whole second half, from
 * sums kept as the iterations come. A cycle more or less at either end barely moves it (the slope
 * between the two ends would move by that cycle over the span), and a lane whose time swings
 * slowly, over tens of iterations, is measured over as many of them as the run has. */
struct fit {
    double n, sx, sy, sxx, sxy;
};

static void fit_add(struct fit *f, double x, double y)
{
    f->n += 1, f->sx += x, f->sy += y, f->sxx += x * x, f->sxy += x * y;
}

static double fit_slope(const struct fit *f)
{
    return (f->n * f->sxy - f->sx * f->sy) / (f->n * f->sxx - f->sx * f->sx);
}

/* Each lane is measured once its time repeats (or at the last iteration), on its own, so that a
 * lane's result does not depend on which others run. */
struct measure {
    unsigned lanes, iterations, warm, open;
    bool issue;                     /* the issue must keep pace (the machine chooses ports) */
    double *hist;                   /* [HIST][lanes]: retire times after each iteration */
    struct progress *cycles;        /* [lanes]: the cycles of each iteration, of retirement, results, issue */
    double *half;                   /* [lanes]: at the start of the second half */
    unsigned *period;               /* [lanes] */
    bool *done;                     /* [lanes] */
    bool *mirror;                   /* [lanes]: shared the baseline's state at the last reading */
    struct fit *fit;                /* [lanes]: the retire times over the second half */
};

/* Takes the times after iteration IT; whether every lane is now measured. */
static bool measure_lanes(struct measure *ms, struct rt_model *md, unsigned it, double *cycles)
{
    unsigned L = ms->lanes;
    double *now = hist_row(ms->hist, it, 0, L);
    /* A lane that shares the baseline's state has its readings to the bit, so its series are the
     * baseline's: they are kept once, taken over when it parts from the baseline (the baseline's
     * are read last, as they were before this iteration), and it is measured when and as the
     * baseline is. */
    for (unsigned l = L; l-- > 0;) {
        now[l] = rt_model_time(md, l);
        struct progress *g = &ms->cycles[l];
        if (ms->done[l]) {
            continue;
        } else if (rt_model_lane_shared(md, l)) {
            ms->mirror[l] = true;
            continue;
        } else if (ms->mirror[l] && it > 0) {
            *g = ms->cycles[0];
        }
        ms->mirror[l] = false;
        double end = rt_model_latest(md, l), issued = rt_model_issued(md, l);
        if (it == 0) {
            series_start(&g->ret, now[l]);
            series_start(&g->end, end);
            series_start(&g->issue, issued);
            memset(g->same, 0, sizeof g->same);
            g->repeats = 0;
        } else {
            unsigned n = g->ret.n;
            uint32_t same = series_add(&g->ret, now[l], ~0u);
            same = series_add(&g->end, end, same);
            if (ms->issue)
                same = series_add(&g->issue, issued, same);
            progress_add(g, same, n);
        }
    }
    if (it + 1 == ms->warm)
        memcpy(ms->half, now, L * sizeof *ms->half);
    for (unsigned l = 0; it + 1 >= ms->warm && l < L; l++)
        if (!ms->done[l])
            fit_add(&ms->fit[l], it + 1 - ms->warm, now[l] - ms->half[l]);
    /* One period once it repeats, else the fitted slope of the second half; never below what
     * the asynchronous resources need per iteration. */
    for (unsigned l = 0; l < L; l++) {
        if (ms->done[l] || (ms->mirror[l] && !ms->done[0]))
            continue;
        if (ms->mirror[l]) {
            ms->period[l] = ms->period[0];
            cycles[l] = cycles[0];
        } else if (!(ms->period[l] = lane_period(&ms->cycles[l], ms->issue)) && it + 1 < ms->iterations) {
            continue;
        } else {
            unsigned k = ms->period[l];
            double slope = k ? (now[l] - hist_row(ms->hist, it, k, L)[l]) / k : fit_slope(&ms->fit[l]);
            double async = rt_model_async_bound(md, l) / (it + 1);
            cycles[l] = slope > async ? slope : async;
        }
        ms->done[l] = true;
        ms->open--;
        rt_model_lane_done(md, l);      /* no longer stepped (the baseline steps on for the others) */
    }
    return ms->open == 0;
}

/* The baseline's top-down slots over the iterations its cycles come from: a snapshot after each
 * iteration, and the difference over the period (or the second half) once the baseline is
 * measured. A snapshot ends at the last issue slot, which moves on by whole iterations; the drain
 * from there to the last retirement, where the cycles end, is kept as a number of slots (split
 * by what the back end waited for only at the end, where it is needed). */
struct snapshot {
    struct rt_topdown issued;       /* up to the last issue slot */
    double drain;                   /* slots from there to the last retirement */
};

struct slots {
    struct snapshot hist[HIST], half;
};

static void snapshot_take(struct snapshot *sn, const struct rt_model *md, unsigned width)
{
    rt_model_topdown(md, false, &sn->issued);
    sn->drain = fmax(0, rt_model_time(md, 0) * width - rt_topdown_total(&sn->issued));
}

/* The back end's slots in T, and X more of them (X may be negative) split as D's are (core
 * when D has none), none below zero. */
static void backend_add(struct rt_topdown *t, const struct rt_topdown *d, double x)
{
    double back = d->core;
    for (unsigned k = 0; k < d->n_levels && k < RT_TD_LEVELS; k++)
        back += d->memory[k];
    for (unsigned k = 0; back > 0 && k < t->n_levels && k < RT_TD_LEVELS; k++)
        t->memory[k] = fmax(0, t->memory[k] + x * d->memory[k] / back);
    t->core = fmax(0, t->core + (back > 0 ? x * d->core / back : x));
}

/* NOW - THEN. Slots up to the last issue only grow; the drain's growth is back end, split as the
 * drain at NOW is (SPLIT: the back end of MD's slots with the drain, less those without). When
 * the drain grew, the front end ran ahead of retirement: the window is still filling, and once it
 * is full every gap is the window's, so what the front end left unused goes to the back end too. */
static void slots_diff(struct rt_topdown *out, const struct snapshot *now, const struct snapshot *then,
                       const struct rt_topdown *split)
{
    const struct rt_topdown *a = &now->issued, *b = &then->issued;
    *out = (struct rt_topdown){ .n_levels = a->n_levels };
    out->retiring = a->retiring - b->retiring;
    out->bad_speculation = a->bad_speculation - b->bad_speculation;
    out->frontend_latency = a->frontend_latency - b->frontend_latency;
    out->frontend_bandwidth = a->frontend_bandwidth - b->frontend_bandwidth;
    out->core = a->core - b->core;
    for (unsigned k = 0; k < a->n_levels && k < RT_TD_LEVELS; k++)
        out->memory[k] = a->memory[k] - b->memory[k];
    double grown = now->drain - then->drain;
    if (grown > 1e-9 * rt_topdown_total(out)) {
        grown += out->frontend_latency + out->frontend_bandwidth;
        out->frontend_latency = out->frontend_bandwidth = 0;
    }
    backend_add(out, split, grown);
}

/* The slots of T, by X. */
static void slots_scale(struct rt_topdown *t, double x)
{
    t->retiring *= x;
    t->bad_speculation *= x;
    t->frontend_latency *= x;
    t->frontend_bandwidth *= x;
    t->core *= x;
    for (unsigned k = 0; k < t->n_levels && k < RT_TD_LEVELS; k++)
        t->memory[k] *= x;
}

/* After iteration IT: its snapshot, and once the baseline lane has just been measured (DONE_BEFORE
 * false, now true), its slots per iteration over the same iterations as its cycles (a period, or
 * the second half). */
static void slots_take(struct slots *sl, const struct measure *ms, const struct rt_model *md, unsigned width,
                       unsigned it, bool done_before, struct rt_topdown *out)
{
    struct snapshot *now = &sl->hist[it % HIST];
    snapshot_take(now, md, width);
    if (it + 1 == ms->warm)
        sl->half = *now;
    if (done_before || !ms->done[0])
        return;
    struct rt_topdown all, split;
    rt_model_topdown(md, true, &all);
    split = (struct rt_topdown){ .n_levels = all.n_levels, .core = all.core - now->issued.core };
    for (unsigned k = 0; k < all.n_levels && k < RT_TD_LEVELS; k++)
        split.memory[k] = all.memory[k] - now->issued.memory[k];
    unsigned k = ms->period[0];
    slots_diff(out, now, k ? &sl->hist[(it - k) % HIST] : &sl->half, &split);
    slots_scale(out, 1.0 / (k ? k : it + 1 - ms->warm));
}

/* The model of the last run made new for this one, or a new one. */
static struct rt_model *model_for(struct rt_model **kept, const struct mdl_machine *m, const struct rt_lane_cfg *lanes,
                                  unsigned n_lanes, bool causality, unsigned n_static, char *err, size_t errlen)
{
    if (kept && *kept && rt_model_reset(*kept, lanes, n_lanes, n_static))
        return *kept;
    if (kept) {
        rt_model_free(*kept);
        *kept = NULL;
    }
    return rt_model_new(m, lanes, n_lanes, causality, n_static, err, errlen);
}

bool block_run(const struct block *b, const struct mdl_machine *m, const struct rt_lane_cfg *lanes,
               unsigned n_lanes, bool causality, unsigned iterations, struct rt_model **model,
               struct block_result *r, char *err, size_t errlen)
{
    if (iterations < 2) {
        snprintf(err, errlen, "at least 2 iterations are needed, got %u", iterations);
        return false;
    }
    struct rt_model *md = model_for(model, m, lanes, n_lanes, causality, (unsigned)b->n_orig, err, errlen);
    if (!md)
        return false;
    /* A block repeated back to back is straight-line code much larger than a uop cache (the
     * convention of BHive's measurements): it comes through the legacy decoders. */
    rt_model_legacy_decode(md, true);
    rt_model_charges_stop(md);          /* the charges are a run's: a block's report has none */
    /* Causality counts an instruction when it leaves a window of twice the ROB. It starts once
     * the baseline lane is measured, so that the path it finds is the steady state's, not the
     * warm-up's, and the same whichever other lanes run (lane 0 does not depend on them): it
     * follows a period's worth of instructions (whole periods, at least 12 iterations; at most a
     * window's worth) until they have left the window, so the shares are those of whole periods.
     * The other lanes go on meanwhile; once they are all measured, the baseline lane alone. */
    size_t n = b->n ? b->n : 1;
    rt_model_follow(md, 0);
    struct addr_gen g;
    addr_gen_init(&g);
    struct measure ms = { n_lanes, iterations, iterations / 2, n_lanes, m->port_choice != MDL_PORT_CHOICE_NONE,
                          alloc_zeroed(HIST * (size_t)n_lanes, sizeof(double)),
                          alloc_resize(NULL, n_lanes, sizeof(struct progress)), alloc_zeroed(n_lanes, sizeof(double)),
                          alloc_zeroed(n_lanes, sizeof(unsigned)), alloc_zeroed(n_lanes, sizeof(bool)),
                          alloc_zeroed(n_lanes, sizeof(bool)), alloc_zeroed(n_lanes, sizeof(struct fit)) };
    unsigned it, measured = 0;
    bool followed = false;          /* causality's period has begun */
    struct slots sl;
    for (it = 0; measured ? followed && rt_model_following(md) : it < iterations; it++) {
        for (size_t i = 0; i < b->n; i++) {
            uint64_t addr[RT_MAX_MEM];
            addresses(&g, &b->insns[i], addr);
            rt_model_step(md, &b->insns[i], b->orig[i], addr, NULL, false);
        }
        if (measured)
            continue;
        bool base_before = ms.done[0], all = measure_lanes(&ms, md, it, r->cycles);
        slots_take(&sl, &ms, md, m->issue_width, it, base_before, &r->topdown);
        if (causality && !base_before && ms.done[0]) {
            unsigned p = ms.period[0] ? ms.period[0] : PMAX;
            rt_model_follow(md, (uint32_t)((12 + p - 1) / p * p * n));
            followed = true;
        }
        if (!all)
            continue;
        measured = it + 1;
        rt_model_baseline_only(md);
        rt_model_topdown_stop(md);
    }
    r->iterations = measured;
    r->period = ms.period[0];
    r->fitted = 0;
    for (unsigned l = 1; l < n_lanes; l++)
        r->fitted += ms.period[l] == 0;
    r->crit = alloc_zeroed(b->n_orig, sizeof *r->crit);
    r->seen = alloc_zeroed(b->n_orig, sizeof *r->seen);
    for (size_t i = 0; i < b->n_orig; i++)
        r->crit[i] = rt_model_critical(md, (uint32_t)i, &r->seen[i]);
    free(ms.hist);
    free(ms.cycles);
    free(ms.half);
    free(ms.period);
    free(ms.done);
    free(ms.mirror);
    free(ms.fit);
    if (model)
        *model = md;
    else
        rt_model_free(md);
    return true;
}

void block_fill(const struct block *b, const struct block_result *br, bool causality, struct result *r)
{
    r->scope = RESULT_SCOPE_BLOCK;
    r->iterations = br->iterations;
    r->period = br->period;
    r->lanes_fitted = br->fitted;
    r->instructions = r->executed = b->n_orig;
    r->macro_fused = b->n_orig - b->n;
    r->causality = causality;
    for (unsigned l = 0; l < r->n_lanes; l++)
        r->lanes[l].cycles = br->cycles[l];
    for (size_t i = 0; i < b->n; i++) {
        struct result_row *row = result_add_row(r);
        uint32_t orig = b->orig[i], next = i + 1 < b->n ? b->orig[i + 1] : (uint32_t)b->n_orig;
        result_row_from_insn(r, row, &b->insns[i]);
        row->index = orig;
        row->executions = 1;
        row->fused = next - orig > 1;
        row->crit = br->crit[orig];
        row->seen = br->seen[orig];
    }
}
