/* The consumer of the plugin's stream. Each execution is modelled once the next one is known:
 * the next pc says whether a branch was taken, and the memory records in between are its
 * accesses (made through the caches ahead of it by the stage, stage.c). Caches and the predictor
 * see the whole run (they warm up outside the region); the model sees the region of interest only. */
#include "run.h"
#include "cpus.h"
#include "alloc.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bp.h"
#include "cache.h"
#include "classify.h"
#include "decode.h"
#include "feed.h"
#include "stage.h"
#include "result.h"
#include "symbols.h"
#include "uopcache.h"
#include "wire.h"

enum { RUN_MAX_ENTRIES = 64 };

/* A static instruction: what the model steps on, in the store (insn_store), and its counts. The
 * decoded instruction is the largest part of a run's memory per static instruction: it is kept
 * once, and again with the sync uop only for an instruction that reads the stack register. */
struct sinsn {
    /* IN: without the stack engine's sync uop (NULL: an id not announced); IN_SYNC: with it, or
     * NULL when the instruction does not read the stack register. PAIR: with the instruction
     * after it, one macro-fused entry, without and with the sync uop (NULL when they do not fuse). */
    const struct rt_insn *in, *in_sync, *pair[2];
    uint64_t count;                 /* executions inside the region */
    uint64_t l1_misses, ll_misses, mispredicts;     /* inside the region */
    uint64_t fn;                    /* the start of its function, 0 outside any symbol */
    bool entry;                     /* the first instruction of a region's function */
    bool called;                    /* the first instruction a call in the region ran */
    bool reads_stack;               /* its stack register, other than through the stack engine */
    /* what the warming of a skipped execution reads, kept here rather than behind IN: */
    bool moves_stack;               /* the stack engine moves the stack register (IN->stack) */
    bool straight;                  /* no branch and no string: the next instruction follows */
    uint16_t uops;                  /* fused uops, as the uop cache holds them */
};

/* Copies of instructions that never change or move while the model thread may still read them
 * (an id announced again keeps its old ones), in blocks freed with the run. */
enum { STORE_BLOCK = 4096 };
struct insn_store {
    struct rt_insn **blocks;
    size_t n_blocks, used;          /* USED: of the last block */
};

/* The iterations of the pending execution of a repeated string instruction, merged as they come:
 * each access reaches the caches as it did, each line is counted once per access slot. */
enum { REP_SERVED = 9 };
struct run_rep {
    struct rt_string str;
    uint64_t first[RT_MAX_MEM];     /* the first iteration's addresses */
    uint8_t deepest[RT_MAX_MEM];    /* the deepest level each access slot reached */
    uint64_t line[STAGE_EXEC_ACCESSES];  /* the line + 1 each access slot touched last */
    uint64_t served[REP_SERVED];    /* accesses by the level that served them (the last: that or deeper) */
};

struct reader {
    struct stage *stage;            /* where the buffers come from, their accesses made */
    struct run *run;                /* whose progress is told between buffers */
    uint64_t told_ms, told_executed;
    const uint64_t *w;              /* the buffer being read */
    size_t n, pos;
};

/* A step skipped by the sampling, as step() or step_string() would have fed it: its accesses'
 * addresses (as many as the model reads) follow the previous step's in held_addr, a string's
 * iterations in held_str. Kept small: every skipped step is one, written once and read only if
 * the stream ends before the model moves on. */
struct held_step {
    const struct rt_insn *in;
    uint32_t sidx;
    uint8_t levels[RT_MAX_MEM];
    uint8_t path;
    uint8_t flags;                  /* HELD_* */
};
enum { HELD_MISS = 1, HELD_STRING = 2 };
enum { RUN_MAX_HELD = 1 << 18 };

/* A translation block the stream defined (WIRE_BLOCK): N instruction ids at AT in block_ids. */
struct run_block {
    size_t at;
    uint32_t n;
};
/* An access made in the open block, by its instruction's index there. */
struct run_access {
    uint64_t addr;
    uint32_t index, size;
    bool store;
};

/* What the reader knows of a string instruction's executions: their cycles as the description
 * times them, and of those the part that stalls the back end (string_stall). */
struct string_known {
    double time, stall;
};

struct run {
    struct run_opts o;
    struct dec *dec;
    struct cls_index *ci;
    struct cache_hier *caches;      /* the caches' stage makes the accesses (LV: the levels it found) */
    struct stage *stage;
    struct stage_levels *lv;
    bool stage_thread;              /* the stage has a thread of its own */
    struct bp *bp;
    struct uopcache *uc;            /* the path of each execution; NULL: the machine has no uop cache model */
    /* With a second processor, the model runs on a thread of its own beside the reader (the
     * stream, caches and predictor); when there are many lanes, they are shared with a second
     * model on a third thread: MD has lanes [0, split) with causality, MD2 a copy of the baseline
     * and the rest, lane l at AT2[l - split]. With HANDOFF, MD has every lane, those from SPLIT on
     * parked until the lanes of a sampled run take turns; there (RELEASED, handed()) MD2 stops and
     * they join MD. HAND_AT: where that split is whether or not there is a second model: from there
     * on, the lanes join from the baseline's state there rather than their own, on one thread as
     * on two, so that the report is the same. */
    struct rt_model *md, *md2;
    struct feed *feed, *feed2;
    unsigned split, hand_at, at2[RT_MAX_LANES];
    bool handoff, released;
    struct insn_store insns;
    struct sinsn *s;
    size_t n_s, cap_s;
    /* the blocks the stream defined, the one open (-1: none) and the accesses made in it */
    struct run_block *blocks;
    size_t n_blocks, cap_blocks;
    uint32_t *block_ids;
    size_t n_block_ids, cap_block_ids;
    int64_t open;
    struct run_access *acc;
    size_t n_bacc, cap_bacc;
    /* the execution waiting for its successor */
    int64_t pend;
    /* the first of a fused pair, modelled with its second: its id, sync, accesses and levels */
    int64_t fused_first;
    bool fused_sync;
    enum rt_path fused_path;
    uint64_t fused_addr[RT_MAX_MEM];
    uint8_t fused_levels[STAGE_EXEC_ACCESSES];
    uint64_t addr[STAGE_EXEC_ACCESSES];
    unsigned size[STAGE_EXEC_ACCESSES], n_acc;
    bool store[STAGE_EXEC_ACCESSES];
    struct run_rep rep;
    /* regions of interest: the entry addresses of their functions, where the guest mapped them;
     * the return addresses of the active calls */
    struct symbols *sym;
    uint64_t entries[RUN_MAX_ENTRIES];
    unsigned n_entries;
    bool roi_found[RUN_MAX_ROI];
    unsigned n_levels;              /* data-side cache levels: a level this deep is memory */
    unsigned line_shift;            /* of the first level's lines (64 bytes without caches) */
    /* the caches and the predictor as the region saw them (they run over the whole run) */
    uint64_t roi_branches, roi_mispredicted;
    uint64_t roi_served[RESULT_MAX_LEVELS + 1]; /* accesses by the level that served them (memory and
                                                   deeper: the last) */
    uint64_t roi_paths[RT_PATH_COUNT + 1];  /* by the path that delivered them ([RT_PATH_COUNT]: none) */
    uint64_t ret[256];
    unsigned depth;
    bool active;
    /* calls made in the region: call site -> the function it reached (past PLT stubs, which have
     * no symbol: see count_call), counted; a call waits in CALL_SITE for the first instruction of
     * a function */
    struct run_call { uint64_t site, fn, count; } *edges;
    size_t n_edges, cap_edges;
    uint64_t call_site;
    bool after_call;                /* the last instruction modelled in the region was a call */
    uint64_t unnamed_callee;        /* where the pending call landed in code no symbol names, or 0 */
    /* the return addresses of the calls in progress (a ring: the deepest are forgotten) */
    uint64_t calls[256];
    unsigned n_calls;
    bool stack_dirty;               /* pushes or pops since rsp was last read otherwise */
    uint64_t in_roi, total, fused;  /* instructions in the region, executed, macro-fused pairs */
    /* sampling: which of the region's instructions are modelled, what each model read at the
     * marks (REC: MD's, REC2: MD2's), and how many the model never saw */
    struct sample_plan plan;
    struct sample_clock clock;
    struct sample_rec rec, rec2;
    uint64_t skipped;
    uint64_t units_ended;           /* SAMPLE_UNIT_END marks sent to the models */
    /* the steps skipped since the last modelled one, kept (at most RUN_MAX_HELD) so that those
     * after the last unit can be modelled once the stream ends; LOST: more were skipped */
    bool holding, lost;
    struct held_step *held;
    size_t n_held, cap_held;
    uint64_t *held_addr;
    size_t n_held_addr, cap_held_addr;
    struct rt_string *held_str;
    size_t n_held_str, cap_held_str;
    uint64_t skip_run;              /* the region's instructions skipped since the last modelled one */
    uint64_t model_run;             /* and modelled since the last skipped one */
    uint64_t tail;                  /* of them, modelled after the stream's end (sample_stream.n_tail) */
    /* the known part (sample_stream): each measured unit's, each period's, and the current run's
     * (modelled or skipped, as skip_run and model_run count it); IN_UNIT: between a unit's marks;
     * and of the part of each unit's warm-up its drift is read over (KNOWN_PRE, in step with
     * KNOWN_UNIT; PRE_NOW since the last unit, IN_PRE from SAMPLE_PRE_START until the unit starts) */
    double *known_unit, *known_period, known_now, known_run, *known_pre, pre_now;
    size_t n_known_unit, cap_known_unit, n_known_period, cap_known_period, cap_known_pre;
    bool in_pre;
    /* the events of the region so far (sample_stream), at the unit's start, at the start of the
     * current run of modelled or skipped instructions (the tail's, at the end), at each period's
     * start, over each unit */
    struct sample_events events, events_unit_start, events_run_start, *events_at, *events_unit;
    size_t n_events_at, cap_events_at, n_events_unit, cap_events_unit;
    uint64_t known_strings, known_run_strings;     /* of them, string instructions: in all, in the run */
    struct string_known *known_charge;  /* [static instruction]: the known part of its executions in the rest */
    size_t n_known_charge, cap_known_charge;
    /* KNOWN_CHARGE when the tail started (SAMPLE_END, as REC.tail says): the known part of the rest
     * before it */
    struct string_known *known_mid;
    size_t n_known_mid;
    bool in_unit;
    int exit_code;
    /* the path of the latest execve the guest called, and whether nothing ran after it (then the
     * call succeeded: the program replaced itself) */
    char exec_path[WIRE_PATH_MAX];
    bool replaced;
    /* the report's rows once the stream ended: the static instructions executed in the scope, by
     * address (ORDER), and what is at each (AT, one per instruction of ORDER, read once per address) */
    size_t *order, n_order;
    struct symbols_at *at;
};

/* Where the lanes split between the two models: about half each (the first has the causality
 * lane, the second a copy of the baseline), a whole number of lane groups so that neither pads. */
static unsigned split_point(unsigned n)
{
    unsigned g = rt_lane_group(), most = (n / 2 + g - 1) / g * g;
    return most < n ? most : n;
}

/* The second model's lanes in OUT: a copy of the baseline (LANES[0]), then LANES [split, n);
 * AT[l - split] is where lane l went. The baseline comes first because a model's lane 0 makes
 * the choices every lane shares (the ports of each uop, from its issue groups): the lanes of
 * both models must see the same ones. */
static unsigned share_rest(const struct rt_lane_cfg *lanes, unsigned split, unsigned n, struct rt_lane_cfg *out,
                           unsigned *at)
{
    unsigned k = 0;
    out[k++] = lanes[0];
    for (unsigned l = split; l < n; l++) {
        out[k] = lanes[l];
        at[l - split] = k++;
    }
    return k;
}

/* The first model's lanes from the split on rest from the start and take no turn until the
 * handoff (the second model measures them until then); the others join at once, as they were. */
static void park_rest(struct run *r)
{
    bool join[RT_MAX_LANES] = { false };
    for (unsigned l = 0; l < r->split; l++)
        join[l] = true;
    rt_model_lanes_rest(r->md);
    rt_model_lanes_join(r->md, join);
    sample_rec_park(&r->rec, r->split);
}

/* ERR: the caches of M could not be allocated, naming the largest (a size near the bound). */
static void caches_refused(const struct mdl_machine *m, char *err, size_t errlen)
{
    const struct mdl_cache *big = NULL;
    for (unsigned k = 0; k < m->n_caches; k++)
        if (!big || m->caches[k].size > big->size)
            big = &m->caches[k];
    if (big)
        snprintf(err, errlen, "out of memory for the caches of machine '%s' (the largest, %s, holds %llu bytes)",
                 m->name, big->name, (unsigned long long)big->size);
    else
        snprintf(err, errlen, "out of memory for the caches of machine '%s'", m->name);
}

struct run *run_new(const struct run_opts *o, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    struct run *r = alloc_zeroed(1, sizeof *r);
    r->o = *o;
    r->pend = -1;
    r->open = -1;
    r->fused_first = -1;
    r->exit_code = -1;
    r->plan = o->sample ? *o->sample : sample_plan_exact();
    sample_plan_fit_window(&r->plan, o->m->rob);
    sample_clock_start(&r->clock, &r->plan);
    if (!(r->dec = dec_open((enum mdl_isa)o->m->isa, err, errlen))) {
        free(r);
        return NULL;
    }
    r->ci = cls_build(o->m);
    r->caches = cache_new(o->m);
    r->sym = symbols_new();
    if (r->sym && o->lines)
        symbols_share_lines(r->sym, o->lines);
    r->n_levels = r->caches ? cache_levels(r->caches) : 0;
    r->line_shift = r->n_levels ? 0 : 6;
    while (r->n_levels && (1u << r->line_shift) < cache_level(r->caches, 0)->line)
        r->line_shift++;
    r->bp = bp_new(o->m);
    r->uc = uopcache_new(o->m);
    /* With processors to spare, the lanes are shared by two model threads beside the reader's
     * (the reader is the busier thread on a long sampled run, the models on a short or exact one:
     * three threads let the system balance them). The cores of a comparison take a second model
     * thread only where every thread has a processor: otherwise it adds a baseline's work. */
    unsigned cpus = o->one_thread ? 1 : cpus_available();
    bool spare = o->cores > 1 ? cpus >= 3 * o->cores : cpus > 1;
    bool turns = r->plan.epoch && sample_lanes_every(&r->plan) > 1;
    unsigned cut = o->n_lanes >= 8 ? split_point(o->n_lanes) : o->n_lanes;
    r->hand_at = turns ? cut : o->n_lanes;
    r->split = spare ? cut : o->n_lanes;
    r->handoff = r->split < o->n_lanes && turns;
    unsigned n1 = r->handoff ? o->n_lanes : r->split;  /* the first model's lanes, parked ones included */
    r->md = rt_model_new(o->m, o->lanes, n1, o->causality, 1024, err, errlen);
    unsigned n2 = 0;
    if (r->md && r->split < o->n_lanes) {
        struct rt_lane_cfg rest[RT_MAX_LANES];
        n2 = share_rest(o->lanes, r->split, o->n_lanes, rest, r->at2);
        r->md2 = rt_model_new(o->m, rest, n2, false, 1024, err, errlen);
    }
    sample_rec_init(&r->rec, n1, true, &r->plan);
    sample_rec_hand_at(&r->rec, r->hand_at);
    if (r->md && r->handoff)
        park_rest(r);
    if (n2)
        sample_rec_init(&r->rec2, n2, false, &r->plan);
    if (!r->md || (r->split < o->n_lanes && !r->md2) || !r->ci || !r->caches || !r->bp) {
        /* the model's own checks say what they refused; an allocation that failed says nothing */
        if (!r->md && errlen && err[0])
            ;
        else if (!r->caches)
            caches_refused(o->m, err, errlen);
        else
            snprintf(err, errlen, "out of memory for the model of machine '%s'", o->m->name);
        run_free(r);
        return NULL;
    }
    rt_model_sample_causality(r->md, o->causality_sample);
    /* A core with a uop cache but no model of it has hot loops come from the uop cache (the
     * reader's path, where it has one, is set per execution). */
    rt_model_legacy_decode(r->md, o->m->uop_cache_width == 0);
    if (r->md2) {
        rt_model_legacy_decode(r->md2, o->m->uop_cache_width == 0);
        /* its baseline only makes the lanes' shared choices: the report's slots and charges are
         * the first model's */
        rt_model_topdown_stop(r->md2);
        rt_model_charges_stop(r->md2);
    }
    /* a second model whose thread cannot start steps on the reader's: slower, the same results */
    if (r->md2 && !(r->feed2 = feed_new(r->md2, true)))
        r->feed2 = feed_new(r->md2, false);
    r->stage_thread = cpus > 1;
    if (!(r->feed = feed_new(r->md, cpus > 1)) || (r->md2 && !r->feed2)) {
        snprintf(err, errlen, "cannot start the model's thread");
        run_free(r);
        return NULL;
    }
    return r;
}

void run_free(struct run *r)
{
    if (!r)
        return;
    dec_close(r->dec);
    cls_free(r->ci);
    cache_free(r->caches);
    symbols_free(r->sym);
    free(r->edges);
    bp_free(r->bp);
    uopcache_free(r->uc);
    feed_free(r->feed);
    feed_free(r->feed2);
    rt_model_free(r->md);
    rt_model_free(r->md2);
    sample_rec_free(&r->rec);
    sample_rec_free(&r->rec2);
    free(r->held);
    free(r->held_addr);
    free(r->held_str);
    free(r->known_unit);
    free(r->known_pre);
    free(r->known_period);
    free(r->events_at);
    free(r->events_unit);
    free(r->known_charge);
    free(r->known_mid);
    free(r->order);
    free(r->at);
    for (size_t i = 0; i < r->insns.n_blocks; i++)
        free(r->insns.blocks[i]);
    free(r->insns.blocks);
    free(r->s);
    free(r->blocks);
    free(r->block_ids);
    free(r->acc);
    free(r);
}

int run_exit_code(const struct run *r) { return r->exit_code; }

const struct mdl_machine *run_machine(const struct run *r) { return r->o.m; }

const char *run_missing_roi(const struct run *r)
{
    for (unsigned i = 0; i < r->o.n_roi; i++)
        if (!r->roi_found[i])
            return r->o.roi[i];
    return NULL;
}
bool run_closest_function(struct run *r, const char *name, char *out, size_t outlen)
{
    return symbols_closest(r->sym, name, out, outlen);
}
uint64_t run_executed(const struct run *r) { return r->total; }

const char *run_replaced_by(const struct run *r) { return r->replaced ? r->exec_path : NULL; }

/* ---- reading words ------------------------------------------------------------------------ */

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Between two buffers: the clock is read once per buffer, not per event. */
static void tell_progress(struct reader *rd)
{
    const struct run *r = rd->run;
    if (!r->o.progress)
        return;
    uint64_t ms = now_ms();
    if (ms < rd->told_ms + RUN_PROGRESS_MS && (rd->told_executed || !r->total))
        return;
    rd->told_ms = ms;
    rd->told_executed = r->total;
    r->o.progress(r->o.progress_ctx, r->total, r->in_roi);
}

/* Replays side by side: the model, not the reader, waits for the slowest core's, since it is
 * the model that takes the time and the reader that follows it (the feed's queue is short). */
static void on_pace(void *ctx, struct rt_model *md, unsigned at)
{
    (void)md;
    const struct run *r = ctx;
    pace_at(r->o.pace, r->o.pace_core, at);
}

/* Whether the sampling of a whole run models everything from here: the stream ends within the
 * plan's last instructions and a warm-up and unit (the unit in progress ends first) after the
 * buffer just taken, so the tail holds the last ones at least. A program's last phase (its exit,
 * frees and flushes, printing what it computed) is often short and slow: between two units it was
 * counted at the units' rate (md5sum of 300 KB: 1% fewer cycles than --exact, outside the
 * interval). While the exact part runs, the stream ending within the plan's SHORT more makes the
 * whole run exact: the rest would get too few units for their spread to say anything (reduction.x86
 * 70000, 1.3M instructions: the end of its initialisation, in the first period, met by none of 5
 * units, all alike: 1.5% over the exact cycles in an interval of no width). A region's end is not
 * known ahead: a region keeps the tail after its last unit. But it ends with the stream at the
 * latest, so a region whose exact part runs when the stream ends within SHORT is exact too (the
 * README's `--roi kernel_gemm` of gemm.x86 64, 2.1M instructions, had 57 units). */
static bool near_end(const struct run *r, struct stage *st)
{
    const struct sample_plan *p = &r->plan;
    bool exact = sample_clock_exact(&r->clock);
    uint64_t k = p->last + p->warm + p->warm_spread + p->unit + (exact ? p->short_rest : 0);
    return p->last && (!r->o.n_roi || exact) && !r->clock.ending && stage_ends_within(st, k);
}

/* The next buffer's worth of words, from the stage; false at the end of the stream. */
static bool refill(struct reader *rd)
{
    tell_progress(rd);
    uint64_t at = 0;
    bool more = stage_next(rd->stage, &rd->w, &rd->n, &at);
    if (more && near_end(rd->run, rd->stage))
        sample_clock_end(&rd->run->clock);
    if (rd->run->o.pace)
        feed_mark(rd->run->feed, on_pace, rd->run, (unsigned)(at / RUN_PACE_UNIT));
    rd->pos = 0;
    return more;
}

/* Inline: it runs for every word of the stream. */
static inline bool next_word(struct reader *rd, uint64_t *w)
{
    if (rd->pos == rd->n && !refill(rd))
        return false;
    *w = rd->w[rd->pos++];
    return true;
}

static bool region_entry(const struct run *r, uint64_t pc);

/* ---- static instructions ------------------------------------------------------------------- */

/* A copy of IN in the store, with the stack engine's sync uop when SYNC. */
static const struct rt_insn *store_copy(struct insn_store *st, const struct rt_insn *in, bool sync)
{
    if (!st->n_blocks || st->used == STORE_BLOCK) {
        st->blocks = alloc_resize(st->blocks, st->n_blocks + 1, sizeof *st->blocks);
        st->blocks[st->n_blocks++] = alloc_resize(NULL, STORE_BLOCK, sizeof **st->blocks);
        st->used = 0;
    }
    struct rt_insn *c = &st->blocks[st->n_blocks - 1][st->used++];
    *c = *in;
    c->sync = sync;
    return c;
}

/* IN as the model steps it, and its copy with the sync uop when S reads the stack register. */
static void store_both(struct run *r, const struct sinsn *s, const struct rt_insn *in, const struct rt_insn **out)
{
    out[0] = store_copy(&r->insns, in, false);
    out[1] = s->reads_stack ? store_copy(&r->insns, in, true) : NULL;
}

/* The plugin numbers the instructions of a translation block in order, so the one before ID
 * is its predecessor in memory when their addresses touch: a pair the machine fuses becomes
 * one entry, used whenever the first runs straight into the second. */
static void fuse_with_previous(struct run *r, uint64_t id)
{
    struct sinsn *prev = id ? &r->s[id - 1] : NULL;
    if (!prev || !prev->in || prev->pair[0])
        return;
    struct rt_insn first = *prev->in;
    if (cls_fuse(r->ci, r->o.m, &first, r->s[id].in))
        store_both(r, prev, &first, prev->pair);
}

static bool add_insn(struct run *r, struct reader *rd, uint64_t w0, char *err, size_t errlen)
{
    unsigned len = (unsigned)(w0 >> 8 & 0xffffff);
    uint64_t id = w0 >> 32, pc, words[4] = { 0 };
    if (len == 0 || len > 16 || !next_word(rd, &pc)) {
        snprintf(err, errlen, "malformed instruction record (length %u)", len);
        return false;
    }
    for (unsigned i = 0; i < (len + 7) / 8; i++)
        if (!next_word(rd, &words[i])) {
            snprintf(err, errlen, "stream ends inside an instruction record");
            return false;
        }
    /* the plugin numbers instructions in the order they first run: a new id is the next one */
    if (id > r->n_s || id >= RUN_MAX_STATIC) {
        snprintf(err, errlen, "corrupt event stream (instruction id %llu after %zu instructions; at most %u)",
                 (unsigned long long)id, r->n_s, (unsigned)RUN_MAX_STATIC);
        return false;
    }
    if (id >= r->cap_s) {
        size_t cap = r->cap_s ? r->cap_s : 1024;
        while (cap <= id)
            cap *= 2;
        r->s = alloc_resize(r->s, cap, sizeof *r->s);
        memset(r->s + r->cap_s, 0, (cap - r->cap_s) * sizeof *r->s);
        r->cap_s = cap;
    }
    struct sinsn *s = &r->s[id];
    memset(s, 0, sizeof *s);        /* an id announced again: the model keeps its old copies */
    char derr[128];
    struct rt_insn in;
    if (dec_one(r->dec, (const uint8_t *)words, len, pc, &in, derr, sizeof derr) <= 0) {
        /* Undecodable bytes still ran: model them by the generic default and report them. */
        memset(&in, 0, sizeof in);
        in.pc = pc;
        in.len = (uint8_t)len;
        memcpy(in.bytes, words, len);
        snprintf(in.disasm, sizeof in.disasm, "(undecodable)");
        in.tmpl = r->o.m->class_default[MDL_CLASS_GENERIC];
        in.form[0] = in.form[1] = in.rule = RT_NO_INDEX;
        in.unknown = true;
    } else {
        cls_apply(r->ci, r->o.m, &in);
    }
    if (id >= r->n_s)
        r->n_s = id + 1;
    s->reads_stack = !in.stack && rt_insn_reads_stack(&in);
    s->moves_stack = in.stack != 0;
    s->straight = in.branch == RT_BR_NONE && !in.rep;
    unsigned uops = r->o.m->templates[in.tmpl].uops_fused;
    s->uops = (uint16_t)(uops < UINT16_MAX ? uops : UINT16_MAX);
    s->entry = region_entry(r, pc);
    s->fn = symbols_function_start(r->sym, pc);
    const struct rt_insn *copies[2];
    store_both(r, s, &in, copies);
    s->in = copies[0];
    s->in_sync = copies[1];
    fuse_with_previous(r, id);
    return true;
}

/* ---- the region of interest ------------------------------------------------------------------- */

/* Entering a region's function records where its caller continues; reaching that address again
 * leaves it. Calls made inside stay inside (callees included). */
static bool in_region(struct run *r, const struct sinsn *s)
{
    if (!r->o.n_roi)
        return true;
    if (s->entry && r->depth < 256) {
        /* entered by a call, or by a jump from code a call reached (a PLT stub, the lazy binding's
         * resolver, a tail call): it returns where the innermost call in progress does */
        r->ret[r->depth++] = r->n_calls ? r->calls[(r->n_calls - 1) % 256] : 0;
        r->active = true;
    } else if (r->active && s->in->pc == r->ret[r->depth - 1]) {
        if (--r->depth == 0)
            r->active = false;
    }
    return r->active;
}

/* Whether PC starts a region's function, in the modules mapped so far. */
static bool region_entry(const struct run *r, uint64_t pc)
{
    for (unsigned i = 0; i < r->n_entries; i++)
        if (r->entries[i] == pc)
            return true;
    return false;
}

/* The path is one the guest (or a trace) named: printed with its control bytes as '?'. */
static void warn_ifunc(const char *name, const char *path)
{
    char shown[WIRE_PATH_MAX + 8];
    snprintf(shown, sizeof shown, "%s", path);
    result_printable(shown);
    fprintf(stderr, "mdlsim: warning: '%s' in %s is an indirect function (IFUNC): its symbol is the resolver run at "
                    "load time, not the implementation calls reach; name the implementation instead (its symbol "
                    "needs the library's debug symbols)\n", name, shown);
}

/* A file the guest mapped: its symbols become known, and the regions' functions it holds. */
static bool run_map(struct run *r, const char *path, uint64_t lo, uint64_t hi, uint64_t off, char *err, size_t errlen)
{
    char why[256];
    int known = symbols_modules(r->sym), module = symbols_map(r->sym, path, lo, hi - lo, off, why, sizeof why);
    (void)err;
    (void)errlen;
    /* not an object symbols can be read from: its code stays unnamed; another mapping of a module
     * already known: its regions were found at its first (a module keeps its first bias) */
    if (module < 0 || module < known)
        return true;
    for (unsigned i = 0; i < r->o.n_roi; i++) {
        uint64_t flo, fhi;
        if (!symbols_find(r->sym, module, r->o.roi[i], &flo, &fhi) || region_entry(r, flo) ||
            r->n_entries == RUN_MAX_ENTRIES)
            continue;
        r->entries[r->n_entries++] = flo;
        r->roi_found[i] = true;
        if (symbols_is_ifunc(r->sym, module, r->o.roi[i]))
            warn_ifunc(r->o.roi[i], path);
    }
    return true;
}

/* The slot of edge SITE -> FN in a table of CAP (a power of two) slots: its own, or the empty one
 * where it goes (open addressing by both). */
static size_t edge_slot(const struct run_call *e, size_t cap, uint64_t site, uint64_t fn)
{
    size_t k = (size_t)((site * 31 + fn) * 0x9e3779b97f4a7c15ull >> 40) & (cap - 1);
    while (e[k].count && (e[k].site != site || e[k].fn != fn))
        k = (k + 1) & (cap - 1);
    return k;
}

/* The edge SITE -> FN, counted once more. */
static void add_edge(struct run *r, uint64_t site, uint64_t fn)
{
    if (2 * (r->n_edges + 1) > r->cap_edges) {
        size_t cap = r->cap_edges ? 2 * r->cap_edges : 256;
        struct run_call *e = alloc_zeroed(cap, sizeof *e);
        for (size_t i = 0; i < r->cap_edges; i++)
            if (r->edges[i].count)
                e[edge_slot(e, cap, r->edges[i].site, r->edges[i].fn)] = r->edges[i];
        free(r->edges);
        r->edges = e;
        r->cap_edges = cap;
    }
    struct run_call *c = &r->edges[edge_slot(r->edges, r->cap_edges, site, fn)];
    if (!c->count) {
        *c = (struct run_call){ site, fn, 0 };
        r->n_edges++;
    }
    c->count++;
}

/* A call inside the region is counted on the first instruction of a function it reaches. A call
 * that lands in code no symbol names goes on to a named function through a PLT stub, or is a call
 * of that code (a stripped function, whose start unnamed_entry makes a function's): when the code
 * calls or returns before a named function runs, the call was its. */
static void count_call(struct run *r, struct sinsn *s)
{
    bool call = s->in->branch == RT_BR_CALL;
    s->called |= r->after_call;
    if (r->after_call && !s->fn)
        r->unnamed_callee = s->in->pc;
    r->after_call = call;
    if (r->call_site && (s->fn || (r->unnamed_callee && (call || s->in->branch == RT_BR_RET)))) {
        add_edge(r, r->call_site, s->fn ? s->fn : r->unnamed_callee);
        r->call_site = 0;
    }
    if (call) {
        r->call_site = s->in->pc;
        r->unnamed_callee = 0;
    }
}

/* ---- one execution ---------------------------------------------------------------------------- */

static void step(struct run *r, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                 const uint8_t *levels, bool miss, enum rt_path path);
static struct held_step *hold(struct run *r, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                              const uint8_t *levels, bool miss, enum rt_path path);
static void step_string(struct run *r, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                        const uint8_t *levels, enum rt_path path, const struct rt_string *str);
static void model_tail(struct run *r);
static void look_up_rows(struct run *r);

/* One iteration of the pending repeated string instruction (its accesses since its last
 * execution) into the merged execution: each access reached the caches as it would on its own (the
 * stage made it), and each line an access slot moves on to is counted once, at the depth its first
 * access went. An execution without accesses (the check of a count already zero) is no iteration. */
static void rep_fold(struct run *r)
{
    struct run_rep *p = &r->rep;
    if (!r->n_acc)
        return;
    p->str.iterations++;
    p->str.bytes += r->size[0];
    for (unsigned k = 0; k < r->n_acc; k++) {
        unsigned lv = stage_level(r->lv, r->addr[k]);
        p->served[lv < REP_SERVED ? lv : REP_SERVED - 1]++;
        if (k < RT_MAX_MEM && p->str.iterations == 1)
            p->first[k] = r->addr[k];
        if (k < RT_MAX_MEM && lv > p->deepest[k])
            p->deepest[k] = (uint8_t)lv;
        if (p->str.iterations == 1 && r->store[k])
            p->str.unaligned = (r->addr[k] & ((1ull << r->line_shift) - 1)) != 0;
        uint64_t line = (r->addr[k] >> r->line_shift) + 1;
        if (line == p->line[k])
            continue;
        p->line[k] = line;
        for (unsigned j = 0; j <= lv && j < RT_STRING_LEVELS; j++)
            p->str.lines[j]++;
    }
    r->n_acc = 0;
}

/* The merged execution's accesses in the region's counts, by the level that served them. */
static void rep_count(struct run *r, struct sinsn *s)
{
    for (unsigned lv = 0; lv < REP_SERVED; lv++) {
        uint64_t n = r->rep.served[lv];
        s->l1_misses += lv > 0 ? n : 0;
        s->ll_misses += lv >= r->n_levels ? n : 0;
        r->roi_served[lv < RESULT_MAX_LEVELS ? lv : RESULT_MAX_LEVELS] += n;
    }
}

static void on_mark(void *ctx, struct rt_model *md, unsigned what)
{
    sample_rec_mark(ctx, md, what);
}

/* Whether the second model handed its lanes over to the first. */
static bool handed(const struct run *r)
{
    return r->handoff && r->released;
}

/* The second model's feed while it models (NULL: none, or it handed its lanes over). */
static struct feed *second(const struct run *r)
{
    return handed(r) ? NULL : r->feed2;
}

/* The marks WHAT to both models, between the steps they separate; the units they end, counted on
 * the reader's side (the models' records are theirs until feed_finish). Once the lanes take turns
 * (the plan's lanes_from), one period in four steps them (sample_lanes_every), few enough for one
 * model: at the join of the first of those the second model stops, and its lanes join the
 * first's, from the same baseline (its copy stepped the same instructions alike). That copy had
 * cost a long run a twelfth of its processor time (gemm 320, every lane: 11.0 -> 10.1 s). On one
 * thread, the same lanes take the baseline's state there too (hand_at). */
static void mark(struct run *r, unsigned what)
{
    r->units_ended += (what & SAMPLE_UNIT_END) != 0;
    if ((what & SAMPLE_JOIN) && r->hand_at < r->o.n_lanes && !r->released && r->clock.begun > r->plan.lanes_from) {
        what |= SAMPLE_RELEASE;
        r->released = true;
    }
    feed_mark(r->feed, on_mark, &r->rec, what);
    if (second(r))
        feed_mark(r->feed2, on_mark, &r->rec2, what);
}

/* The tail starts (SAMPLE_END): what the reader knows of the rest before it, kept. */
static void keep_known(struct run *r)
{
    r->known_mid = alloc_resize(r->known_mid, r->n_known_charge + 1, sizeof *r->known_mid);
    if (r->n_known_charge)
        memcpy(r->known_mid, r->known_charge, r->n_known_charge * sizeof *r->known_mid);
    r->n_known_mid = r->n_known_charge;
}

/* The events of the region since FROM (one of its snapshots). */
static struct sample_events events_since(const struct run *r, const struct sample_events *from)
{
    struct sample_events d;
    for (unsigned e = 0; e < SAMPLE_EVENTS; e++)
        d.n[e] = r->events.n[e] - from->n[e];
    return d;
}

/* A unit's marks: the known part of the one that ended kept, the next one's started. */
static void know_unit(struct run *r, unsigned marks)
{
    if (marks & SAMPLE_UNIT_END) {
        r->known_pre = alloc_grow(r->known_pre, &r->cap_known_pre, r->n_known_unit + 1, 256, sizeof *r->known_pre);
        r->known_pre[r->n_known_unit] = r->pre_now;
        r->pre_now = 0;
        r->known_unit = alloc_grow(r->known_unit, &r->cap_known_unit, r->n_known_unit + 1, 256, sizeof *r->known_unit);
        r->known_unit[r->n_known_unit++] = r->known_now;
        r->events_unit = alloc_grow(r->events_unit, &r->cap_events_unit, r->n_events_unit + 1, 256,
                                    sizeof *r->events_unit);
        r->events_unit[r->n_events_unit++] = events_since(r, &r->events_unit_start);
        r->in_unit = false;
    }
    if (marks & SAMPLE_PRE_START)
        r->in_pre = true;
    if (marks & SAMPLE_UNIT_START) {
        r->events_unit_start = r->events;
        r->known_now = 0;
        r->in_unit = true;
        r->in_pre = false;
    }
}

/* The array A of *N elements of SIZE (capacity *CAP), grown with zeros to hold element I. */
static void *grown_to(void *a, size_t *n, size_t *cap, size_t i, size_t size)
{
    if (i >= *n) {
        a = alloc_grow(a, cap, i + 1, 64, size);
        memset((char *)a + *n * size, 0, (i + 1 - *n) * size);
        *n = i + 1;
    }
    return a;
}

/* Of a string instruction's T cycles, those that stall the back end: the instructions after it
 * issue meanwhile until they fill the reorder buffer behind it, which takes the front end the
 * buffer's entries over the issue width (sed's 460,000 short rep stosq, 30 cycles each on
 * Skylake, stall nothing: exact top-down has no back end there; a copy of megabytes stalls for
 * nearly all of its time). A machine without a reorder buffer limit never stalls for one. */
static double string_stall(const struct mdl_machine *m, double t)
{
    if (!m->rob)
        return 0;
    double cover = (double)m->rob / (m->issue_width ? m->issue_width : 1);
    return t > cover ? t - cover : 0;
}

/* The known part of the region's string instruction IN (static SIDX) that did STR, after its
 * sample_next: in its period (none in the exact part), its unit, the current run and its charge. */
static void know_string(struct run *r, uint32_t sidx, const struct rt_insn *in, const struct rt_string *str)
{
    if (!r->clock.begun)
        return;
    double t = rt_model_string_time(r->md, in, str);
    r->known_charge = grown_to(r->known_charge, &r->n_known_charge, &r->cap_known_charge, sidx,
                               sizeof *r->known_charge);
    r->known_charge[sidx].time += t;
    r->known_charge[sidx].stall += string_stall(r->o.m, t);
    size_t p = (size_t)r->clock.begun - 1;
    r->known_period = grown_to(r->known_period, &r->n_known_period, &r->cap_known_period, p, sizeof *r->known_period);
    r->known_period[p] += t;
    r->known_strings++;
    r->known_run_strings++;
    r->known_run += t;
    r->known_now += r->in_unit ? t : 0;
    r->pre_now += r->in_pre ? t : 0;
}

/* Whether a skip that begins goes on to the next warm-up, by what the caches' stage has read ahead
 * (the whole run a region: the sampling counts every execution): then what it skips is past before
 * the stream ends, and nothing of it need be held for the tail (hold). Held anyway, it would cost a
 * long sampled run a twentieth of its processor time, writing what is thrown away. The skip goes
 * on through the next period's lead: a stream ending in that lead, once the skip was taken as
 * through, had no tail, where one thread (nothing read ahead) modelled its held steps; a report
 * then depended on how far the stage had read (seen once the warm-ups' lengths were drawn, which
 * moved the leads). */
static bool skips_through(const struct run *r)
{
    return !r->o.n_roi && stage_ahead(r->stage) > sample_clock_skip_left(&r->clock) + r->plan.unit;
}

/* Waits until the model thread measured the baseline's first N units (it runs at most the feed's
 * few batches behind the reader, so it nearly always has); the batch being filled goes to it, and
 * the reader waits: the periods' rules, and the report, never depend on timing. */
struct awaited {
    struct sample_rec *rec;
    size_t n;
};

static bool units_published(const void *ctx)
{
    const struct awaited *a = ctx;
    return sample_rec_published(a->rec) >= a->n;
}

static void await_units(struct run *r, size_t n)
{
    feed_wait(r->feed, units_published, &(struct awaited){ &r->rec, n });
}

/* How many periods apart the run's width is asked after (sample.h): SAMPLE_CHECK, or an epoch if
 * shorter. */
static uint64_t check_every(const struct run *r)
{
    return r->plan.epoch < SAMPLE_CHECK ? r->plan.epoch : SAMPLE_CHECK;
}

/* Whether the run would be estimated too loosely (sample_too_wide) were it to end AHEAD periods of
 * PERIOD from now, by the baseline's units before the last check_every periods (none past those
 * published), less what the reader knows of them. */
static bool too_wide(struct run *r, uint64_t ahead, uint64_t period)
{
    uint64_t lag = check_every(r);
    if (!lag || r->clock.begun < 2 * lag || r->clock.begun - lag > r->rec.cap_published)
        return false;
    size_t n = r->clock.begun - lag;
    await_units(r, n);
    const double *known = r->n_known_unit >= n ? r->known_unit : NULL;
    return sample_too_wide(&r->clock, r->rec.published, known, n, r->plan.exact, ahead, period);
}

/* As the last period of an epoch begins, after two epochs' periods or more: whether the next epoch
 * keeps the period, by the baseline's units of the epoch's length before this one's periods, less
 * what the reader knows of them (sample_keeps_period). An epoch behind, so that the model thread
 * has nearly always measured them (an epoch has 500 units of 3,000 modelled instructions or more
 * at the default schedule). */
static void choose_period(struct run *r)
{
    uint64_t epoch = r->plan.epoch, begun = r->clock.begun;
    if (!epoch || r->clock.periods != epoch || begun < 2 * epoch)
        return;
    uint64_t lo = begun - 2 * epoch;
    if (sample_clock_kept(&r->clock) >= SAMPLE_KEEP_MAX || lo + epoch > r->rec.cap_published)
        return;
    await_units(r, lo + epoch);
    const double *known = r->n_known_unit >= lo + epoch ? r->known_unit + lo : NULL;
    if (sample_keeps_period(r->rec.published + lo, known, epoch) && too_wide(r, epoch, 2 * r->clock.plan.period))
        sample_clock_keep(&r->clock);
}

/* As the last of every check_every periods begins: whether the next period halves, where the run
 * ending an epoch from now at this period would be estimated too loosely (too_wide). A program whose
 * units spread widely gets more of them: tclsh's start-up (6.4M instructions, 263 units at a period
 * of 20,000) came out in an interval 7.3% wide on Alder Lake, python3's dictionary (193M) 6.0%. */
static void choose_density(struct run *r)
{
    uint64_t every = check_every(r);
    if (every && r->clock.periods % every == 0 && too_wide(r, r->plan.epoch + every, r->clock.plan.period))
        sample_clock_halve(&r->clock);
}

/* The region's next instruction, as the sampling says: modelled, or held while it skips (step()
 * reads r->holding); the marks before it. */
static void sample_next(struct run *r, uint64_t pc)
{
    unsigned act = sample_tick(&r->clock, pc), marks = act & ~(unsigned)SAMPLE_MODEL;
    if (r->clock.begun > r->n_events_at) {        /* a period began with this instruction */
        r->events_at = alloc_grow(r->events_at, &r->cap_events_at, r->clock.begun, 64, sizeof *r->events_at);
        while (r->n_events_at < r->clock.begun)
            r->events_at[r->n_events_at++] = r->events;
        choose_period(r);
        choose_density(r);
    }
    if (marks) {
        mark(r, marks);
        know_unit(r, marks);
    }
    if (marks & SAMPLE_END) {       /* the tail starts */
        keep_known(r);
        r->model_run = 0, r->known_run = 0, r->known_run_strings = 0, r->events_run_start = r->events;
    }
    bool model = act & SAMPLE_MODEL, modelled = !r->holding;
    if (model != modelled)
        r->known_run = 0, r->known_run_strings = 0, r->events_run_start = r->events;  /* a run of the other kind begins */
    r->skipped += !model;
    r->skip_run = model ? 0 : r->skip_run + 1;
    r->model_run = model ? r->model_run + 1 : 0;
    if (model && r->holding)
        r->n_held = r->n_held_addr = r->n_held_str = 0, r->lost = false;    /* what was skipped is past */
    if (!model && !r->holding)
        r->lost = skips_through(r);
    r->holding = !model;
}

/* The pending execution's accesses: the level that served each (LEVELS, as the stage made them),
 * and the addresses the model takes (ADDR). Most instructions have none: the test is inlined, the
 * loop not, with its registers saved. */
__attribute__((noinline)) static void warm_each(struct run *r, uint8_t *levels, uint64_t *addr)
{
    for (unsigned k = 0; k < r->n_acc; k++) {
        levels[k] = stage_level(r->lv, r->addr[k]);
        if (k < RT_MAX_MEM)
            addr[k] = r->addr[k];
    }
}

static inline void warm_accesses(struct run *r, uint8_t *levels, uint64_t *addr)
{
    if (r->n_acc)
        warm_each(r, levels, addr);
}

/* Them in the region's counts. */
static void count_accesses(struct run *r, struct sinsn *s, const uint8_t *levels)
{
    for (unsigned k = 0; k < r->n_acc; k++) {
        unsigned lv = levels[k];
        r->events.n[lv >= r->n_levels ? 3 : lv < 3 ? lv : 2] += lv > 0;
        s->l1_misses += levels[k] > 0;
        s->ll_misses += levels[k] >= r->n_levels;
        r->roi_served[levels[k] < RESULT_MAX_LEVELS ? levels[k] : RESULT_MAX_LEVELS]++;
    }
}

/* The path that delivered IN: the uop cache follows every execution, as the caches do
 * (RT_PATH_COUNT: no model of it). Inline in every caller: with four of them GCC made it a call,
 * which cost the reader 3%. */
static inline __attribute__((always_inline)) enum rt_path warm_path(struct run *r, const struct sinsn *s)
{
    return r->uc ? uopcache_next(r->uc, s->in->pc, s->in->len, s->uops) : RT_PATH_COUNT;
}

/* Whether S needs the stack engine's sync uop. The stack engine's facts are the decoder's:
 * nothing moves it on an ISA without one. */
static bool stack_sync(struct run *r, const struct sinsn *s)
{
    bool reads = s->reads_stack, sync = reads & r->stack_dirty;
    r->stack_dirty = s->moves_stack | (r->stack_dirty & !reads);     /* no branches: it runs for every execution */
    return sync;
}

/* Whether the next TICKS instructions, from the pending one, are inside the region (if any) and
 * fall where the sampling skips, no turn of its clock on the way, and the last was no call (its
 * callee's first instruction is counted by count_call). */
static bool skipping(const struct run *r, uint64_t ticks)
{
    return (!r->o.n_roi || r->active) && r->holding && r->clock.left > ticks && !(r->clock.flags & SAMPLE_MODEL) &&
           !r->after_call;
}

/* Whether count_call would leave the calls as they are for S, no call itself, after an
 * instruction that was no call: no call waits for its callee, or S neither starts a named function
 * nor returns from the unnamed code a call reached. A stripped program's calls wait until their
 * callee calls or returns: its instructions until then are skipped as any others. */
static bool calls_untouched(const struct run *r, const struct sinsn *s)
{
    return !r->call_site || (!s->fn && !(r->unnamed_callee && s->in->branch == RT_BR_RET));
}

/* N instructions of the region skipped, as sample_next counts them when its clock does not turn. */
static void skip_counted(struct run *r, uint64_t n)
{
    r->clock.left -= n;
    r->total += n;
    r->skipped += n;
    r->skip_run += n;
    r->in_roi += n;
}

/* Whether the next TICKS instructions of the region, from the pending one, fall where the sampling
 * skips (no turn of its clock on the way) and nothing needs to follow them but the warming: inside
 * the region (if any), no call or fused pair pending. skip_rest then does what model_pending would
 * for those of them that are plain and no region's edge. */
static bool plain_span(const struct run *r, uint64_t ticks)
{
    return skipping(r, ticks) && r->fused_first < 0;
}

/* Whether S may enter or leave a region (in_region): a region's entry, or where the innermost
 * call in it returns to. Inside a region, every other instruction stays inside. */
static inline bool region_edge(const struct run *r, const struct sinsn *s)
{
    return r->o.n_roi && (s->entry || (r->active && s->in->pc == r->ret[r->depth - 1]));
}

/* No branch, string or fused pair: an instruction the next of its block follows plainly. */
static bool plain_insn(const struct sinsn *s)
{
    return s->straight && !s->pair[0];
}

/* The pending execution in a plain span, warmed and counted: its accesses' LEVELS and ADDR, the
 * path that delivered it, whether it takes the sync uop (the counts of the span itself are moved
 * once, by skip_rest). */
static inline void skip_warm(struct run *r, struct sinsn *s, uint8_t *levels, uint64_t *addr, enum rt_path *path,
                             bool *sync)
{
    warm_accesses(r, levels, addr);
    *path = warm_path(r, s);
    *sync = stack_sync(r, s);
    s->count++;
    r->roi_paths[*path]++;
    count_accesses(r, s, levels);
    r->n_acc = 0;
}

/* The pending execution, a plain one in a plain span: warmed, counted and, with KEEP, held. */
static inline __attribute__((always_inline)) void skip_pending(struct run *r, bool keep)
{
    struct sinsn *s = &r->s[r->pend];
    uint8_t levels[STAGE_EXEC_ACCESSES] = { 0 };
    uint64_t addr[RT_MAX_MEM] = { 0 };
    enum rt_path path;
    bool sync;
    skip_warm(r, s, levels, addr, &path, &sync);
    if (keep)
        hold(r, sync ? s->in_sync : s->in, (uint32_t)r->pend, addr, levels, false, path);
}

/* Whether the pending execution is the first of a fused pair whose second, NEXT, follows it: the
 * two are one entry (model_pending). */
static bool fuses_with(const struct run *r, uint32_t next)
{
    const struct sinsn *s = &r->s[r->pend];
    return s->straight && s->pair[0] && r->s[next].in->pc == s->in->pc + s->in->len;
}

/* The pending execution, the first of a fused pair in a plain span: warmed and counted, its
 * accesses, path and sync kept for the pair's one entry, which its second holds (model_pending's
 * way, without its checks). */
static void skip_fused_first(struct run *r)
{
    memset(r->fused_levels, 0, sizeof r->fused_levels);
    memset(r->fused_addr, 0, sizeof r->fused_addr);
    skip_warm(r, &r->s[r->pend], r->fused_levels, r->fused_addr, &r->fused_path, &r->fused_sync);
    r->fused_first = r->pend;
}

/* IN's branch, followed by the execution at NEXT_PC, through the predictor: whether it mispredicted. */
static bool predict(struct run *r, const struct rt_insn *in, uint64_t next_pc)
{
    return bp_branch(r->bp, in->pc, (enum rt_branch)in->branch, next_pc != in->pc + in->len, next_pc,
                     in->pc + in->len);
}

/* IN's call or return, in the calls in progress (whose return addresses end regions). */
static void follow_call(struct run *r, const struct rt_insn *in)
{
    if (in->branch == RT_BR_CALL)
        r->calls[r->n_calls++ % 256] = in->pc + in->len;
    else if (in->branch == RT_BR_RET && r->n_calls)
        r->n_calls--;
}

/* The second of a fused pair, whose outcome was MISS: one entry, the first's accesses, stepped or
 * held as the sampling says. */
static void step_fused(struct run *r, bool miss)
{
    const struct sinsn *f = &r->s[r->fused_first];
    step(r, f->pair[r->fused_sync], (uint32_t)r->fused_first, r->fused_addr, r->fused_levels, miss, r->fused_path);
    r->fused_first = -1;
    r->fused++;
}

/* Whether the pending execution is a branch (not a call: a call is followed into its callee) that
 * model_pending would only warm, count and hold: the sampling skips it with no turn of its clock,
 * it is inside the region (if any) and no edge of it, and no call or string is being followed. */
static bool skips_branch(const struct run *r)
{
    const struct sinsn *s = &r->s[r->pend];
    const struct rt_insn *in = s->in;
    return in->branch != RT_BR_NONE && in->branch != RT_BR_CALL && !in->rep && !region_edge(r, s) && skipping(r, 1) &&
           calls_untouched(r, s);
}

/* The pending branch, which skips_branch allows, followed by the execution at NEXT_PC: predicted,
 * warmed, counted and held (with a fused pair's first, as one entry), as model_pending does
 * without its checks. */
static void skip_branch(struct run *r, uint64_t next_pc)
{
    struct sinsn *s = &r->s[r->pend];
    const struct rt_insn *in = s->in;
    bool miss = predict(r, in, next_pc);
    uint8_t levels[STAGE_EXEC_ACCESSES] = { 0 };
    uint64_t addr[RT_MAX_MEM] = { 0 };
    enum rt_path path;
    bool sync;
    skip_warm(r, s, levels, addr, &path, &sync);
    s->mispredicts += miss;
    r->events.n[0] += miss;
    r->roi_branches++;
    r->roi_mispredicted += miss;
    skip_counted(r, 1);
    if (r->fused_first >= 0)
        step_fused(r, miss);
    else
        hold(r, sync ? s->in_sync : s->in, (uint32_t)r->pend, addr, levels, miss, path);
    follow_call(r, in);
    r->pend = -1;
}

/* Whether the pending execution is outside every region and enters none (not a region's entry),
 * no string and no fused pair's second: model_pending would only warm it and follow its call or
 * return. */
static bool skips_outside(const struct run *r)
{
    const struct sinsn *s = &r->s[r->pend];
    return r->o.n_roi && !r->active && !s->entry && !s->in->rep && r->fused_first < 0;
}

/* The pending execution, which skips_outside allows, followed by the execution at NEXT_PC: the
 * predictor, the caches, the uop cache and the stack engine warmed, its call or return followed
 * (the regions' returns are found by them), as model_pending does without its checks. */
static void skip_outside(struct run *r, uint64_t next_pc)
{
    const struct sinsn *s = &r->s[r->pend];
    const struct rt_insn *in = s->in;
    if (in->branch != RT_BR_NONE)
        predict(r, in, next_pc);
    uint8_t levels[STAGE_EXEC_ACCESSES] = { 0 };
    uint64_t addr[RT_MAX_MEM] = { 0 };
    warm_accesses(r, levels, addr);
    r->total++;
    warm_path(r, s);
    stack_sync(r, s);
    follow_call(r, in);
    r->n_acc = 0;
    r->pend = -1;
}

static void model_pending(struct run *r, uint64_t next_pc, bool known_next)
{
    struct sinsn *s = &r->s[r->pend];
    const struct rt_insn *in = s->in;
    if (in->rep)
        rep_fold(r);
    bool miss = in->branch != RT_BR_NONE && known_next && predict(r, in, next_pc);
    uint8_t levels[STAGE_EXEC_ACCESSES] = { 0 };
    uint64_t addr[RT_MAX_MEM] = { 0 };
    warm_accesses(r, levels, addr);
    r->total++;
    enum rt_path path = warm_path(r, s);
    bool sync = stack_sync(r, s);
    bool inside = in_region(r, s);
    if (inside) {
        sample_next(r, in->pc);
        r->in_roi++;
        s->count++;
        s->mispredicts += miss;
        r->events.n[0] += miss;
        r->roi_branches += in->branch != RT_BR_NONE && known_next;
        r->roi_mispredicted += miss;
        if (in->rep)
            rep_count(r, s);
        r->roi_paths[path]++;
        count_accesses(r, s, levels);
    }
    if (in->rep && inside) {
        know_string(r, (uint32_t)r->pend, in, &r->rep.str);
        step_string(r, sync ? s->in_sync : s->in, (uint32_t)r->pend, r->rep.first, r->rep.deepest, path, &r->rep.str);
    } else if (r->fused_first >= 0) {
        step_fused(r, miss);
    } else if (inside && s->pair[0] && known_next && next_pc == in->pc + in->len) {
        r->fused_first = r->pend;
        r->fused_sync = sync;
        r->fused_path = path;
        memcpy(r->fused_addr, addr, sizeof addr);
        memcpy(r->fused_levels, levels, sizeof levels);
    } else if (inside) {
        step(r, sync ? s->in_sync : s->in, (uint32_t)r->pend, addr, levels, miss, path);
    }
    if (inside)
        count_call(r, s);
    follow_call(r, in);
    r->pend = -1;
    r->n_acc = 0;
    if (in->rep)
        memset(&r->rep, 0, sizeof r->rep);
}

static bool on_exec(struct run *r, uint64_t id, char *err, size_t errlen)
{
    if (id >= r->n_s || !r->s[id].in) {
        snprintf(err, errlen, "execution of unknown instruction %llu", (unsigned long long)id);
        return false;
    }
    if (r->pend >= 0 && r->s[r->pend].in->rep && r->s[id].in->pc == r->s[r->pend].in->pc) {
        rep_fold(r);    /* the next iteration of a rep: one execution goes on */
        return true;
    }
    if (r->pend >= 0 && skips_branch(r))
        skip_branch(r, r->s[id].in->pc);
    else if (r->pend >= 0 && skips_outside(r))
        skip_outside(r, r->s[id].in->pc);
    else if (r->pend >= 0)
        model_pending(r, r->s[id].in->pc, true);
    r->pend = (int64_t)id;
    r->replaced = false;            /* an execve before it failed */
    return true;
}

/* An access of the pending execution. */
static void add_access(struct run *r, uint64_t addr, unsigned size, bool store)
{
    if (r->pend >= 0 && r->n_acc < STAGE_EXEC_ACCESSES) {
        r->addr[r->n_acc] = addr;
        r->size[r->n_acc] = size;
        r->store[r->n_acc] = store;
        r->n_acc++;
    }
}

static bool on_mem(struct run *r, struct reader *rd, uint64_t w0, char *err, size_t errlen)
{
    uint64_t addr;
    if (!next_word(rd, &addr)) {
        snprintf(err, errlen, "stream ends inside a memory record");
        return false;
    }
    unsigned size = (unsigned)(w0 >> 8 & 0xff);
    bool store = (w0 >> 16) & 1;
    if (r->open < 0) {
        add_access(r, addr, size, store);
        return true;
    }
    /* in a block: kept until it closes, when its instructions are known to have run */
    if (r->n_bacc == STAGE_BLOCK_ACCESSES)
        return true;
    r->acc = alloc_grow(r->acc, &r->cap_bacc, r->n_bacc + 1, 64, sizeof *r->acc);
    r->acc[r->n_bacc++] = (struct run_access){ addr, (uint32_t)(w0 >> 32), size, store };
    return true;
}

static uint32_t block_length(const struct run *r)
{
    return r->blocks[r->open].n;
}

/* A block's definition (wire.h): its id is the next one, its instructions are announced. */
static bool on_block(struct run *r, struct reader *rd, uint64_t w0, char *err, size_t errlen)
{
    uint32_t n = (uint32_t)(w0 >> 8 & 0xffffff);
    uint64_t id = w0 >> 32;
    if (n == 0 || n > WIRE_BLOCK_MAX || id != r->n_blocks || id >= RUN_MAX_STATIC) {
        snprintf(err, errlen, "corrupt event stream (block %llu of %u instructions after %zu blocks)",
                 (unsigned long long)id, n, r->n_blocks);
        return false;
    }
    r->blocks = alloc_grow(r->blocks, &r->cap_blocks, r->n_blocks + 1, 1024, sizeof *r->blocks);
    r->block_ids = alloc_grow(r->block_ids, &r->cap_block_ids, r->n_block_ids + n, 4096, sizeof *r->block_ids);
    uint32_t *ids = r->block_ids + r->n_block_ids;
    for (uint32_t i = 0; i < n; i += 2) {
        uint64_t w;
        if (!next_word(rd, &w)) {
            snprintf(err, errlen, "stream ends inside a block record");
            return false;
        }
        ids[i] = (uint32_t)w;
        if (i + 1 < n)
            ids[i + 1] = (uint32_t)(w >> 32);
    }
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] >= r->n_s || !r->s[ids[i]].in) {
            snprintf(err, errlen, "corrupt event stream (block %llu runs unknown instruction %u)",
                     (unsigned long long)id, ids[i]);
            return false;
        }
    r->blocks[r->n_blocks++] = (struct run_block){ r->n_block_ids, n };
    r->n_block_ids += n;
    return true;
}

/* The accesses of the open block's instruction I, from *A on, to the pending execution. */
static void attach_accesses(struct run *r, uint32_t i, size_t *a)
{
    for (; *a < r->n_bacc && r->acc[*a].index <= i; ++*a)
        add_access(r, r->acc[*a].addr, r->acc[*a].size, r->acc[*a].store);
}

/* From instruction I of the K the block ran (the one before it pending), the plain ones that are
 * no region's edge skipped, held with KEEP; the next to do is returned. */
static inline __attribute__((always_inline)) uint32_t skip_plain(struct run *r, const uint32_t *ids, uint32_t i,
                                                                 uint32_t k, size_t *a, bool keep)
{
    for (; i < k && plain_insn(&r->s[r->pend]) && !region_edge(r, &r->s[r->pend]) && calls_untouched(r, &r->s[r->pend]);
         i++) {
        skip_pending(r, keep);
        r->pend = ids[i];
        attach_accesses(r, i, a);
    }
    return i;
}

/* From instruction I of the K the block ran (the one before it pending), the plain ones skipped
 * without model_pending's checks, and a fused pair's first after them (the span ends there: the
 * pair's second waits for its outcome); the span's counts moved once; the next to do is returned. */
static uint32_t skip_rest(struct run *r, const uint32_t *ids, uint32_t i, uint32_t k, size_t *a)
{
    uint32_t from = i;
    /* Once the held steps are lost (hold), a loop without them: hold's test of it, in the loop,
     * cost the reader 5% (its registers). */
    i = r->lost ? skip_plain(r, ids, i, k, a, false) : skip_plain(r, ids, i, k, a, true);
    if (i < k && fuses_with(r, ids[i]) && !region_edge(r, &r->s[r->pend]) && calls_untouched(r, &r->s[r->pend])) {
        skip_fused_first(r);
        r->pend = ids[i];
        attach_accesses(r, i++, a);
    }
    skip_counted(r, i - from);
    return i;
}

/* The open block ran its first K instructions: each is executed, with its accesses. */
static bool close_block(struct run *r, uint32_t k, char *err, size_t errlen)
{
    const uint32_t *ids = r->block_ids + r->blocks[r->open].at;
    size_t a = 0;
    r->open = -1;
    for (uint32_t i = 0; i < k;) {
        if (!on_exec(r, ids[i], err, errlen))
            return false;
        attach_accesses(r, i++, &a);
        if (i < k && plain_span(r, k - i))
            i = skip_rest(r, ids, i, k, &a);
    }
    r->n_bacc = 0;
    return true;
}

static bool on_run(struct run *r, uint64_t id, char *err, size_t errlen)
{
    if (id >= r->n_blocks) {
        snprintf(err, errlen, "run of unknown block %llu", (unsigned long long)id);
        return false;
    }
    r->open = (int64_t)id;
    return true;
}

static bool on_cut(struct run *r, uint64_t w0, char *err, size_t errlen)
{
    uint64_t k = w0 >> 8;
    if (r->open < 0 || k >= r->blocks[r->open].n) {
        snprintf(err, errlen, "corrupt event stream (a block cut after %llu instructions)", (unsigned long long)k);
        return false;
    }
    return close_block(r, (uint32_t)k, err, errlen);
}

/* The LEN bytes of a path that ends a record (wire.h) into PATH (WIRE_PATH_MAX + 8 bytes),
 * NUL-terminated; false with ERR when the stream ends inside the KIND record. */
static bool read_path(struct reader *rd, uint32_t len, char *path, const char *kind, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < len; i += 8) {
        uint64_t w;
        if (!next_word(rd, &w)) {
            snprintf(err, errlen, "stream ends inside %s record", kind);
            return false;
        }
        memcpy(path + i, &w, 8);
    }
    path[len] = 0;
    return true;
}

/* A file the guest mapped (wire.h): kept, in the order they came, for the regions and symbols. */
static bool on_map(struct run *r, struct reader *rd, uint64_t w0, char *err, size_t errlen)
{
    uint32_t len = (uint32_t)(w0 >> 8 & 0xffffff);
    uint64_t lo, hi, off;
    if (!next_word(rd, &lo) || !next_word(rd, &hi) || !next_word(rd, &off) || len == 0 || len >= WIRE_PATH_MAX ||
        hi <= lo) {
        snprintf(err, errlen, "malformed mapping record");
        return false;
    }
    char path[WIRE_PATH_MAX + 8];
    return read_path(rd, len, path, "a mapping", err, errlen) && run_map(r, path, lo, hi, off, err, errlen);
}

/* The guest calls execve (wire.h): the run ends there unless an instruction follows. */
static bool on_execve(struct run *r, struct reader *rd, uint64_t w0, char *err, size_t errlen)
{
    uint32_t len = (uint32_t)(w0 >> 8 & 0xffffff);
    char path[WIRE_PATH_MAX + 8];
    if (len >= WIRE_PATH_MAX) {
        snprintf(err, errlen, "malformed exec record (a path of %u bytes)", len);
        return false;
    }
    if (!read_path(rd, len, path, "an exec", err, errlen))
        return false;
    memcpy(r->exec_path, path, len + 1);
    r->replaced = true;
    return true;
}

bool run_consume(struct run *r, const struct run_source *src, char *err, size_t errlen)
{
    struct reader *rd = alloc_zeroed(1, sizeof *rd);
    rd->run = r;
    if (!(rd->stage = stage_new(src, r->caches, r->o.record, r->stage_thread)) &&
        !(rd->stage = stage_new(src, r->caches, r->o.record, false))) {
        snprintf(err, errlen, "cannot start the caches' thread");
        free(rd);
        return false;
    }
    r->stage = rd->stage;
    r->lv = stage_levels(rd->stage);
    const char *why = stage_why(rd->stage);
    uint64_t w = 0;
    bool ok = next_word(rd, &w) && (w == WIRE_MAGIC || w == WIRE_MAGIC_V1);
    if (!ok && why[0])
        snprintf(err, errlen, "%s", why);
    else if (!ok && w >> 16 == WIRE_MAGIC >> 16)
        snprintf(err, errlen, "the events are of wire version %u; this mdlsim reads versions 1 to %u (the plugin "
                 "and mdlsim come from different builds: run make)", (unsigned)(w & 0xffff), (unsigned)(WIRE_MAGIC & 0xffff));
    else if (!ok && src->trace)
        snprintf(err, errlen, "'%s' holds no events of this mdlsim's plugin", src->trace->path);
    else if (!ok)
        snprintf(err, errlen, "no event stream (did the program start under QEMU?)");
    while (ok && next_word(rd, &w)) {
        unsigned kind = w & 0xff;
        /* the open block ran whole unless a CUT says otherwise */
        if (r->open >= 0 && kind != WIRE_MEM && kind != WIRE_CUT && !close_block(r, block_length(r), err, errlen)) {
            ok = false;
            break;
        }
        switch (kind) {
        case WIRE_INSN: ok = add_insn(r, rd, w, err, errlen); break;
        case WIRE_BLOCK: ok = on_block(r, rd, w, err, errlen); break;
        case WIRE_RUN: ok = on_run(r, w >> 32, err, errlen); break;
        case WIRE_CUT: ok = on_cut(r, w, err, errlen); break;
        case WIRE_EXEC: ok = on_exec(r, w >> 32, err, errlen); break;
        case WIRE_MEM: ok = on_mem(r, rd, w, err, errlen); break;
        case WIRE_EXIT: r->exit_code = (int)(w >> 32), r->replaced = false; break;
        case WIRE_MAP: ok = on_map(r, rd, w, err, errlen); break;
        case WIRE_EXECVE: ok = on_execve(r, rd, w, err, errlen); break;
        case WIRE_THREAD:
            snprintf(err, errlen, "the guest started a second thread: multi-threaded programs are not "
                                  "analysed (each thread would need its own core model)");
            ok = false;
            break;
        default:
            snprintf(err, errlen, "corrupt event stream (record kind %u)", (unsigned)(w & 0xff));
            ok = false;
        }
    }
    if (ok && stage_corrupt(rd->stage)) {
        snprintf(err, errlen, "corrupt event stream (a chunk token out of range)");
        ok = false;
    }
    if (ok && why[0]) {
        snprintf(err, errlen, "%s", why);
        ok = false;
    }
    if (ok && r->open >= 0)
        ok = close_block(r, block_length(r), err, errlen);
    if (ok && r->pend >= 0)
        model_pending(r, 0, false);
    if (ok && (r->lv->missing || r->lv->pos != r->lv->n)) {
        snprintf(err, errlen, "internal error: the caches' stage made %llu accesses, the reader took %llu",
                 (unsigned long long)r->lv->given,
                 (unsigned long long)(r->lv->given - (r->lv->n - r->lv->pos) + r->lv->missing));
        ok = false;
    }
    if (ok)
        model_tail(r);
    look_up_rows(r);
    feed_finish(r->feed);
    if (r->feed2)
        feed_finish(r->feed2);
    for (unsigned l = r->split; handed(r) && l < r->o.n_lanes; l++)
        sample_rec_graft(&r->rec, l, &r->rec2, r->at2[l - r->split]);
    stage_free(rd->stage);
    r->stage = NULL;
    r->lv = NULL;
    free(rd);
    return ok;
}

/* ---- the result ------------------------------------------------------------------------------- */

static double cycles(const struct run *r, unsigned l)
{
    const struct rt_model *md = l < r->split ? r->md : r->md2;
    unsigned k = l < r->split ? l : r->at2[l - r->split];
    double t = rt_model_time(md, k), a = rt_model_async_bound(md, k);
    return t > a ? t : a;
}

/* ---- the estimates of a sampled run ---------------------------------------------------------------- */

/* The sample as the estimators take it. */
static struct sample_stream stream_of(const struct run *r)
{
    uint64_t exact = r->in_roi < r->plan.exact ? r->in_roi : r->plan.exact;
    size_t units = r->rec.n_units;
    if (r->md2 && !handed(r) && r->rec2.n_units < units)
        units = r->rec2.n_units;
    struct sample_stream s = { .plan = r->plan, .span = r->clock.span, .n_spans = r->clock.n_spans, .n_exact = exact,
                               .n_rest = r->in_roi - exact, .n_units = units,
                               .n_tail = r->tail, .known_unit = r->known_unit, .known_period = r->known_period,
                               .n_periods = r->n_known_period, .known_tail = r->tail ? r->known_run : 0,
                               .event_unit = r->n_events_unit >= units ? r->events_unit : NULL,
                               .event_at = r->events_at, .n_event_periods = r->n_events_at, .event_end = r->events,
                               .drift_unit = r->rec.drift, .known_pre = r->known_pre };
    if (r->tail)
        s.event_tail = events_since(r, &r->events_run_start);
    return s;
}

/* Lane L's readings, and its model's copy of the baseline's (the same stream: units pair up). */
static void lane_readings(const struct run *r, unsigned l, const struct sample_lane **lane,
                          const struct sample_lane **base)
{
    bool first = l < r->split || handed(r);     /* the handed lanes' readings were grafted */
    const struct sample_rec *rec = first ? &r->rec : &r->rec2;
    *lane = &rec->lane[first ? l : r->at2[l - r->split]];
    *base = &rec->lane[0];
}

/* Every lane's cycles and speed-up with their intervals. */
static void estimate_lanes(const struct run *r, struct result *res)
{
    struct sample_stream st = stream_of(r);
    uint64_t fewest = st.n_units;
    for (unsigned l = 0; l < res->n_lanes && l < r->o.n_lanes; l++) {
        const struct sample_lane *lane, *base;
        lane_readings(r, l, &lane, &base);
        struct sample_estimate c = sample_lane_cycles(&st, base, lane), s = sample_speedup(&st, base, lane);
        struct result_lane *ln = &res->lanes[l];
        ln->cycles = c.cycles;
        ln->cycles_low = c.low;
        ln->cycles_high = c.high;
        ln->speedup_low = s.low;
        ln->speedup_high = s.high;
        size_t n = sample_lane_units(&st, lane);
        fewest = n < fewest ? n : fewest;
    }
    res->sampling = (struct result_sampling){ .sampled = true, .exact = r->plan.exact, .period = r->plan.period,
                                              .epoch = r->plan.epoch, .kept = r->clock.kept, .halved = r->clock.halved, .warm = r->plan.warm,
                                              .warmups = r->clock.warmups, .resumed = r->clock.resumed,
                                              .warm_spread = r->plan.warm_spread,
                                              .unit = r->plan.unit, .units = st.n_units,
                                              .lanes_warm = r->o.n_lanes > 1 ? r->plan.warm - r->plan.rest : r->plan.warm,
                                              .lanes_every = r->o.n_lanes > 1 && st.n_units > r->plan.lanes_from
                                                                 ? sample_lanes_every(&r->plan) : 1,
                                              .lanes_from = r->plan.lanes_from, .lane_units = fewest,
                                              .modelled = r->in_roi - r->skipped, .tail = r->tail,
                                              .confidence = 0.95 };
    if (!st.n_units)
        return;     /* the rest at the rate of what was modelled, strings and all */
    res->sampling.strings = r->known_strings - (r->tail ? r->known_run_strings : 0);
    res->sampling.string_cycles = sample_known(&st);
    res->sampling.drift = sample_drift(&st, &res->sampling.drift_se);
    res->sampling.drift_widened = sample_drift_widening(&st);
}

/* The known part of SIDX's executions in the rest before the tail. */
static struct string_known known_before_tail(const struct run *r, size_t sidx)
{
    const struct string_known *k = r->rec.tail ? r->known_mid : r->known_charge;
    size_t n = r->rec.tail ? r->n_known_mid : r->n_known_charge;
    return sidx < n ? k[sidx] : (struct string_known){ 0, 0 };
}

/* How a sampled run's charges and slots between the exact part and the tail make up its rest (the
 * tail's are its own): each stratum's (the epochs, modelled at rates that halve from one to the
 * next) scaled by its own factor to its share of the estimate. One factor for all had read a
 * reduction after its initialisation (reduction.x86 3000000: 39M instructions of set-up, sampled
 * twice as densely in the first epoch as in the second, then 12M of the reduction) with the
 * reduction at 63% of its cycles and the set-up at 143%, retiring at 72% of the slots for 56%.
 * With KNOWN, a string instruction's are what the reader knows of it (sample_stream's known
 * part: its skipped executions too), and the others' are scaled to the rest of the estimate. The
 * slots take another factor (KS): only the strings' stalls are theirs (string_stall), the rest of
 * their cycles overlap other instructions, whose slots they take as the modelled ones did. N 0:
 * nothing is scaled (an exact run). */
struct rest_stratum {
    const struct sample_snap *lo, *hi;      /* the baseline at its ends */
    double k, ks;
    double strings;                         /* with KNOWN: the model's charges to the strings in it */
    double stalls;                          /* and of those, their stalls (at their known cycles' share) */
};
struct rest_charges {
    unsigned n;
    struct rest_stratum st[SAMPLE_MAX_STRATA];
    const struct sample_snap *before;       /* at the tail's start (with none, the run's end) */
    bool known;
    struct string_known strings;            /* with KNOWN: the strings' known cycles, and stalls */
};

/* The rest's strata (sample_strata) between the snapshots at their ends, into C; what the units
 * estimate of each, into EST. One, from the exact part to the tail, when the units give none, or
 * a negative estimate, or end a stratum where no snapshot was taken. */
static void rest_strata(const struct run *r, struct rest_charges *c, double *est)
{
    struct sample_stream st = stream_of(r);
    size_t hi[SAMPLE_MAX_STRATA];
    unsigned n = sample_strata(&st, &r->rec.lane[0], hi, est);
    const struct sample_snap *lo = &r->rec.at_exact;
    bool whole = n > 0;
    size_t e = 0;
    for (unsigned k = 0; whole && k < n; k++) {
        bool last = k + 1 == n;
        while (e < r->rec.n_epochs && r->rec.epoch_units[e] < hi[k])
            e++;
        whole = est[k] >= 0 && (last || (e < r->rec.n_epochs && r->rec.epoch_units[e] == hi[k]));
        c->st[k] = (struct rest_stratum){ .lo = lo, .hi = last ? c->before : whole ? &r->rec.at_epoch[e] : lo };
        lo = c->st[k].hi;
    }
    c->n = whole ? n : 1;
    if (!whole) {
        c->st[0] = (struct rest_stratum){ .lo = &r->rec.at_exact, .hi = c->before };
        est[0] = 1;
    }
}

/* The factors C's strata are scaled by, the run's estimate RES and its end NOW known. */
static void rest_charges(const struct run *r, const struct result *res, const struct sample_snap *now,
                         struct rest_charges *c)
{
    double est[SAMPLE_MAX_STRATA], strings = 0, sum = 0;
    struct string_known known = { 0, 0 };
    *c = (struct rest_charges){ .before = r->rec.tail ? &r->rec.at_tail : now };
    rest_strata(r, c, est);
    for (size_t i = 0; res->sampling.units && i < r->n_known_charge; i++) {
        struct string_known ki = known_before_tail(r, i);
        if (!(ki.time > 0))
            continue;
        known.time += ki.time;
        known.stall += ki.stall;
        for (unsigned k = 0; k < c->n; k++) {
            double ch = sample_snap_charge(c->st[k].hi, i) - sample_snap_charge(c->st[k].lo, i);
            c->st[k].strings += ch;
            c->st[k].stalls += ch * ki.stall / ki.time;
        }
    }
    for (unsigned k = 0; k < c->n; k++) {
        strings += c->st[k].strings;
        sum += est[k];
    }
    const double exact = r->rec.at_exact.time, tail = now->time - c->before->time;
    double modelled = c->before->time - exact - strings, rest = res->lanes[0].cycles - exact - known.time - tail;
    c->known = known.time > 0 && modelled > 0 && rest > 0;
    c->strings = c->known ? known : (struct string_known){ 0, 0 };
    if (!c->known)
        rest = res->lanes[0].cycles - exact - tail;
    const double w = r->o.m->issue_width;
    for (unsigned k = 0; k < c->n; k++) {
        struct rest_stratum *s = &c->st[k];
        s->strings = c->known ? s->strings : 0;
        s->stalls = c->known ? s->stalls : 0;
        double span = s->hi->time - s->lo->time, share = sum > 0 ? est[k] / sum : 0;
        /* the slots' own span: a snapshot's slots end with its last issue, not its last retirement */
        double issued = w > 0 ? (rt_topdown_total(&s->hi->slots) - rt_topdown_total(&s->lo->slots)) / w : span;
        double m = span - s->strings, ms = issued - s->stalls;
        s->k = m > 0 ? rest * share / m : 0;
        s->ks = ms > 0 ? (rest + c->strings.time - c->strings.stall) * share / ms : 0;
    }
}

/* A sampled run's charge to static instruction SIDX: the exact part's, the rest's before the tail
 * (C), the tail's. */
static double charge_of(const struct run *r, uint32_t sidx, const struct rest_charges *c)
{
    double all = rt_model_charge(r->md, sidx);
    if (!c->n)
        return all;
    double exact = sample_snap_charge(&r->rec.at_exact, sidx), before = sample_snap_charge(c->before, sidx);
    if (c->known && known_before_tail(r, sidx).time > 0)
        return exact + known_before_tail(r, sidx).time + (all - before);
    double sum = exact;
    for (unsigned k = 0; k < c->n; k++)
        sum += (sample_snap_charge(c->st[k].hi, sidx) - sample_snap_charge(c->st[k].lo, sidx)) * c->st[k].k;
    return sum + (all - before);
}

/* TD's slots, each row moved by K times what A has more than B. */
static void add_slots(struct rt_topdown *td, const struct rt_topdown *a, const struct rt_topdown *b, double k)
{
    td->retiring += (a->retiring - b->retiring) * k;
    td->bad_speculation += (a->bad_speculation - b->bad_speculation) * k;
    td->frontend_latency += (a->frontend_latency - b->frontend_latency) * k;
    td->frontend_bandwidth += (a->frontend_bandwidth - b->frontend_bandwidth) * k;
    td->core += (a->core - b->core) * k;
    for (unsigned i = 0; i < RT_TD_LEVELS; i++)
        td->memory[i] += (a->memory[i] - b->memory[i]) * k;
}

/* TD, the slots of a sampled run of CYCLES (the drain's included): the exact part's, each stratum's
 * scaled by its slots' factor (C), the tail's as they were. With C's known part, the strings'
 * stalls held the back end (W slots a cycle), where the model's stalls at them stood as back-end
 * slots too; the rest of the strings' cycles is in the other rows, scaled with them. */
static void scale_sampled_slots(const struct run *r, const struct rest_charges *c, double cycles, struct rt_topdown *td)
{
    const double w = r->o.m->issue_width;
    const struct rt_topdown all = *td, *exact = &r->rec.at_exact.slots;
    double core = exact->core;
    *td = *exact;
    for (unsigned k = 0; k < c->n; k++) {
        const struct rest_stratum *s = &c->st[k];
        double d = s->hi->slots.core - s->lo->slots.core - s->stalls * w;
        add_slots(td, &s->hi->slots, &s->lo->slots, s->ks);
        core += (c->known && d < 0 ? 0 : d) * s->ks;
    }
    td->core = core + c->strings.stall * w;
    add_slots(td, &all, &c->before->slots, 1);
    /* what the exact part's and the tail's last issues stood apart from their retirements (a
     * snapshot's slots end with its last issue), spread over the rows, so that the slots are the
     * cycles times W */
    const struct rt_topdown sum = *td, none = { .n_levels = td->n_levels };
    double total = rt_topdown_total(td);
    if (total > 0)
        add_slots(td, &sum, &none, w * cycles / total - 1);
}

/* Room for one more held step and its N addresses; false once too many were skipped. Out of line:
 * the steps held in between take none of its registers. */
__attribute__((noinline)) static bool hold_room(struct run *r, unsigned n)
{
    if (r->n_held == r->cap_held && r->cap_held == RUN_MAX_HELD) {
        r->lost = true;
        return false;
    }
    r->held = alloc_grow(r->held, &r->cap_held, r->n_held + 1, 4096, sizeof *r->held);
    r->held_addr = alloc_grow(r->held_addr, &r->cap_held_addr, r->n_held_addr + n, 4096, sizeof *r->held_addr);
    return true;
}

/* A step the sampling skips, kept for the tail; NULL once too many were skipped. Once they were,
 * most of a long skip costs this one test. */
static inline struct held_step *hold(struct run *r, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                                     const uint8_t *levels, bool miss, enum rt_path path)
{
    unsigned n = feed_accesses(in);
    if (r->lost || ((r->n_held == r->cap_held || r->n_held_addr + n > r->cap_held_addr) && !hold_room(r, n)))
        return NULL;
    struct held_step *h = &r->held[r->n_held++];
    *h = (struct held_step){ .in = in, .sidx = sidx, .path = (uint8_t)path, .flags = miss ? HELD_MISS : 0 };
    memcpy(h->levels, levels, sizeof h->levels);
    for (unsigned k = 0; k < n; k++)
        r->held_addr[r->n_held_addr++] = addr[k];
    return h;
}

/* One step, in both halves of the lanes (held instead while the sampling skips). */
static void step(struct run *r, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                 const uint8_t *levels, bool miss, enum rt_path path)
{
    if (r->holding) {
        hold(r, in, sidx, addr, levels, miss, path);
        return;
    }
    feed_step(r->feed, in, sidx, addr, levels, miss, path);
    if (second(r))
        feed_step(r->feed2, in, sidx, addr, levels, miss, path);
}

static void step_string(struct run *r, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                        const uint8_t *levels, enum rt_path path, const struct rt_string *str)
{
    if (r->holding) {
        struct held_step *h = hold(r, in, sidx, addr, levels, false, path);
        if (h) {
            r->held_str = alloc_grow(r->held_str, &r->cap_held_str, r->n_held_str + 1, 64, sizeof *r->held_str);
            h->flags |= HELD_STRING;
            r->held_str[r->n_held_str++] = *str;
        }
        return;
    }
    feed_step_string(r->feed, in, sidx, addr, levels, path, str);
    if (second(r))
        feed_step_string(r->feed2, in, sidx, addr, levels, path, str);
}

/* The instructions after the last unit are measured in full (the tail: often a phase of its own,
 * the program's exit): those the model saw after the last skipped ones, when the stream ended in
 * a warm-up or a unit; when it ended while the sampling skipped, all of them, the held steps
 * following the last unit in the model. With no unit at all, the tail is every instruction after
 * the exact part that the model stepped, the held ones too where they were kept
 * (sample_stream). */
static void model_tail(struct run *r)
{
    bool none = !r->units_ended, held = r->holding && !r->lost && r->n_held;
    if (none ? r->in_roi <= r->plan.exact : (r->holding && !held) || (!r->holding && r->skip_run))
        return;
    uint64_t run = r->model_run;
    if (held) {
        mark(r, SAMPLE_END);
        keep_known(r);
        r->holding = false;
        size_t a = 0, k = 0;
        for (size_t i = 0; i < r->n_held; i++) {
            const struct held_step *h = &r->held[i];
            uint64_t addr[RT_MAX_MEM] = { 0 };
            unsigned n = feed_accesses(h->in);
            if (n)
                memcpy(addr, r->held_addr + a, n * sizeof *addr);
            a += n;
            if (h->flags & HELD_STRING)
                step_string(r, h->in, h->sidx, addr, h->levels, (enum rt_path)h->path, &r->held_str[k++]);
            else
                step(r, h->in, h->sidx, addr, h->levels, h->flags & HELD_MISS, (enum rt_path)h->path);
        }
        run = r->skip_run;
        r->skipped -= r->skip_run;
    }
    r->tail = none ? r->in_roi - r->skipped - r->plan.exact : run;
    if (r->tail)
        mark(r, SAMPLE_TAIL_END);
}

static int by_pc(const void *a, const void *b, void *ctx)
{
    const struct sinsn *s = ctx;
    uint64_t x = s[*(const size_t *)a].in->pc, y = s[*(const size_t *)b].in->pc;
    return x < y ? -1 : x > y ? 1 : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* The stretch of code no symbol names that the rows before the current one were in, and the
 * start guessed for their function. */
struct unnamed {
    int module;
    uint64_t lo, hi, entry;
};

/* The start guessed for the function of PC, code no symbol names (AT: where it is; CALLED: a call
 * reached it), the rows before it by address having left U.
 *
 * perf groups such code per address, and a loop becomes as many rows as it has instructions; per
 * basic block, as many rows as it has blocks; per stretch no symbol covers, a stripped program
 * is one row. A function is what a user looks for in perf report and KCachegrind, so the guess is
 * a disassembler's (objdump's reader, IDA's "sub_1139"): a function starts where a call went, or
 * where the stretch's code that ran starts (_start, code reached by a jump or a return). Its calls
 * then have a caller for the call graph. */
static uint64_t unnamed_entry(struct unnamed *u, const struct symbols_at *at, uint64_t pc, bool called)
{
    if (called || u->module != at->module || u->lo != at->fn_lo || u->hi != at->fn_hi)
        *u = (struct unnamed){ at->module, at->fn_lo, at->fn_hi, pc };
    return u->entry;
}

/* The row's module, function and source line from AT, what is at its pc, once per static
 * instruction, in address order (U: the stretch of code without a symbol the rows before it were in). */
static void locate(struct result_row *row, const struct symbols_at *at, bool called, struct unnamed *u)
{
    if (at->module < 0)
        return;
    row->module = at->module_name;
    row->function = at->function;
    row->fn_offset = at->function ? at->offset : row->pc - unnamed_entry(u, at, row->pc, called);
    row->in_object = at->in_object;
    row->address = at->address;
    row->file = at->file;
    row->line = at->line;
}

/* The static instructions executed in the scope, by address, and what is at each (symbols and
 * source lines): done when the stream ends, before the reader waits for the models to finish
 * theirs, since reading an object's DWARF (inflating a C library's compressed debug sections) is
 * the dearest part of the report and the model's drain leaves the reader idle (gemm 320: 55 ms). The
 * cores of a comparison look their rows up one after the other: the first reads the objects'
 * DWARF, the others find every line it read. */
static void look_up_rows(struct run *r)
{
    size_t *order = alloc_zeroed(r->n_s + 1, sizeof *order), n = 0;
    for (size_t i = 0; i < r->n_s; i++)
        if (r->s[i].count && r->s[i].in)
            order[n++] = i;
    qsort_r(order, n, sizeof *order, by_pc, r->s);
    struct symbols_at *at = alloc_zeroed(n + 1, sizeof *at);
    if (r->o.lines)
        symbols_lines_hold(r->o.lines);
    for (size_t k = 0; k < n; k++)
        if (k && r->s[order[k]].in->pc == r->s[order[k - 1]].in->pc)
            at[k] = at[k - 1];
        else
            symbols_lookup(r->sym, r->s[order[k]].in->pc, &at[k]);
    if (r->o.lines)
        symbols_lines_release(r->o.lines);
    free(r->order);
    free(r->at);
    r->order = order;
    r->n_order = n;
    r->at = at;
}

/* The rows look_up_rows found. An address decoded several times (the plugin numbers an
 * instruction of each translation) is one row, its counts summed. */
static void fill_rows(const struct run *r, struct result *res, const struct rest_charges *k_rest)
{
    const size_t *order = r->order, n = r->n_order;
    struct result_row *row = NULL;
    struct unnamed u = { .module = -1 };
    for (size_t k = 0; k < n; k++) {
        const struct sinsn *s = &r->s[order[k]];
        if (!row || row->pc != s->in->pc) {
            row = result_add_row(res);
            result_row_from_insn(res, row, s->in);
            row->fused = s->pair[0] != NULL;
            bool called = false;
            for (size_t j = k; j < n && r->s[order[j]].in->pc == s->in->pc; j++)
                called |= r->s[order[j]].called;
            locate(row, &r->at[k], called, &u);
        }
        uint64_t seen, crit = rt_model_critical(r->md, (uint32_t)order[k], &seen);
        row->executions += s->count;
        row->crit += crit;
        row->seen += seen;
        row->cycles += charge_of(r, (uint32_t)order[k], k_rest);
        row->l1_misses += s->l1_misses;
        row->ll_misses += s->ll_misses;
        row->mispredicts += s->mispredicts;
    }
}

/* The baseline at the run's end, its slots TD (the drain's included). */
static void snap_now(const struct run *r, const struct rt_topdown *td, struct sample_snap *now)
{
    const double *c = rt_model_charges(r->md, &now->n_charge);
    now->time = rt_model_time(r->md, 0);
    now->charge = alloc_resize(NULL, now->n_charge ? now->n_charge : 1, sizeof *now->charge);
    memcpy(now->charge, c, now->n_charge * sizeof *c);
    now->slots = *td;
}

void run_fill(const struct run *r, struct result *res, struct rt_topdown *td)
{
    rt_model_topdown(r->md, true, td);
    res->scope = r->o.n_roi ? RESULT_SCOPE_ROI : RESULT_SCOPE_RUN;
    res->scope_name = r->o.n_roi ? r->o.roi_label : NULL;
    res->instructions = r->in_roi;
    res->executed = r->total;
    res->macro_fused = r->fused;
    res->causality = r->o.causality;
    res->charged = true;
    struct rest_charges rest = { 0 };
    struct sample_snap now = { 0 };
    if (r->skipped) {
        estimate_lanes(r, res);
        snap_now(r, td, &now);
        rest_charges(r, res, &now, &rest);
        scale_sampled_slots(r, &rest, res->lanes[0].cycles, td);
    } else {
        for (unsigned l = 0; l < res->n_lanes && l < r->o.n_lanes; l++)
            res->lanes[l].cycles = cycles(r, l);
    }
    fill_rows(r, res, &rest);
    free(now.charge);
    res->has_caches = true;
    res->n_caches = cache_levels(r->caches) < RESULT_MAX_LEVELS ? cache_levels(r->caches) : RESULT_MAX_LEVELS;
    for (unsigned k = 0; k < res->n_caches; k++) {
        res->caches[k].name = cache_level(r->caches, k)->name;
        /* an access reaches every level down to the one that served it */
        uint64_t reached = 0;
        for (unsigned j = k; j <= RESULT_MAX_LEVELS; j++)
            reached += r->roi_served[j];
        res->caches[k].accesses = reached;
        res->caches[k].hits = r->roi_served[k];
    }
    for (size_t i = 0; i < r->cap_edges; i++)
        if (r->edges[i].count)
            result_add_call(res, r->edges[i].site, r->edges[i].fn, r->edges[i].count);
    res->has_branches = true;
    res->branches = r->roi_branches;
    res->mispredicted = r->roi_mispredicted;
    res->has_delivery = r->uc != NULL;
    memcpy(res->delivery, r->roi_paths, sizeof res->delivery);
}
