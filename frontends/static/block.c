/* A basic block repeated back to back. Addresses are not known statically, so each memory
 * operand gets a synthetic address from the versions of its base and index registers: two
 * accesses alias exactly when they use the same register values and displacement, which is
 * what lets a store feed a later load of the same slot (store-to-load forwarding). */
#include "block.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "decode.h"

void block_free(struct block *b)
{
    free(b->insns);
    free(b->orig);
    memset(b, 0, sizeof *b);
}

bool block_parse_hex(const char *hex, uint8_t **bytes, size_t *len, char *err, size_t errlen)
{
    size_t n = 0, cap = strlen(hex) / 2 + 1;
    uint8_t *out = malloc(cap);
    int hi = -1;
    for (const char *c = hex; *c; c++) {
        if (isspace((unsigned char)*c))
            continue;
        if (!isxdigit((unsigned char)*c)) {
            snprintf(err, errlen, "invalid hex digit '%c' at offset %zu", *c, (size_t)(c - hex));
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

/* A read of rsp after pushes or pops needs the stack engine's sync uop. The block repeats, so
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
            in->sync = dirty && rt_insn_reads_rsp(in);
            if (in->sync || rt_insn_reads_rsp(in))
                dirty = false;
        }
}

bool block_decode(struct block *b, struct dec *dec, const struct cls_index *ci, const struct mdl_machine *m,
                  const uint8_t *bytes, size_t len, char *err, size_t errlen)
{
    block_free(b);
    size_t cap = len + 1;
    b->insns = calloc(cap, sizeof *b->insns);
    b->orig = calloc(cap, sizeof *b->orig);
    for (size_t off = 0; off < len;) {
        struct rt_insn *in = &b->insns[b->n];
        int n = dec_one(dec, bytes + off, len - off, 0x400000 + off, in, err, errlen);
        if (n <= 0) {
            block_free(b);
            return false;
        }
        cls_apply(ci, m, in);
        rt_insn_set_stack(in);
        b->orig[b->n] = (uint32_t)b->n_orig++;
        /* Macro-fusion: the pair becomes one entry in its first instruction's place. */
        if (b->n > 0 && cls_fuse(ci, m, &b->insns[b->n - 1], in))
            memset(in, 0, sizeof *in);
        else
            b->n++;
        off += (size_t)n;
    }
    if (m->isa == MDL_ISA_X86_64)
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

struct addr_gen {
    uint32_t version[RT_REG_COUNT];
    int64_t sp_delta;           /* rsp moved by pushes and pops since its last version */
};

static uint64_t synthetic_address(const struct addr_gen *g, const struct rt_mem *mem)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    h = (h ^ mem->base) * 0x100000001b3ull;
    h = (h ^ (mem->base ? g->version[mem->base] : 0)) * 0x100000001b3ull;
    h = (h ^ mem->index) * 0x100000001b3ull;
    h = (h ^ (mem->index ? g->version[mem->index] : 0)) * 0x100000001b3ull;
    h = (h ^ mem->scale) * 0x100000001b3ull;
    int64_t disp = mem->disp + (mem->base == RT_X86_GPR + 4 ? g->sp_delta : 0);
    /* Keep the displacement in the low bits so that neighbouring slots overlap as they do. */
    return (h << 24) + (uint64_t)(disp + (1 << 22));
}

static void addresses(struct addr_gen *g, const struct rt_insn *in, uint64_t *addr)
{
    for (unsigned i = 0; i < in->n_mem; i++)
        addr[i] = synthetic_address(g, &in->mem[i]);
    /* x86 pushes, pops, calls and returns move rsp in the front end (the stack engine), so the
     * decoder does not list rsp as written; their slots still move, which the delta tracks so
     * that a pop reads what the matching push wrote. */
    g->sp_delta += in->stack;
    for (unsigned k = 0; k < in->n_dst; k++) {
        g->version[in->dst[k]]++;
        if (in->dst[k] == RT_X86_GPR + 4)
            g->sp_delta = 0;
    }
}

/* Steady state: a lane's time per iteration repeats with a period of P iterations (1 to 16:
 * the 16-byte fetch blocks of a block repeated back to back line up again every 8 or 16
 * copies) over the last SPAN iterations. The smallest such P is the period. A shorter span
 * takes the filling of the window, which can run at a steady rate for 20 iterations and more,
 * for the steady state. */
enum { PMAX = 16, SPAN = 24, HIST = SPAN + PMAX + 2 };

/* The times of every lane BACK iterations before iteration IT (IT >= BACK). */
static double *hist_row(double *hist, unsigned it, unsigned back, unsigned L)
{
    return &hist[((it - back) % HIST) * L];
}

/* The cycles iteration IT - BACK took in lane L. */
static double delta(double *hist, unsigned it, unsigned back, unsigned L, unsigned l)
{
    return hist_row(hist, it - back, 0, L)[l] - hist_row(hist, it - back, 1, L)[l];
}

/* The period of lane L's timing at iteration IT, or 0 while there is none. */
static unsigned lane_period(double *hist, unsigned it, unsigned L, unsigned l)
{
    for (unsigned p = 1; p <= PMAX && it >= SPAN + p + 1; p++) {
        bool repeats = true;
        for (unsigned back = 0; back < SPAN && repeats; back++) {
            double now = delta(hist, it, back, L, l), then = delta(hist, it, back + p, L, l);
            repeats = fabs(now - then) <= 1e-9 * (now > 1 ? now : 1);
        }
        if (repeats)
            return p;
    }
    return 0;
}

bool block_run(const struct block *b, const struct mdl_machine *m, const struct rt_lane_cfg *lanes,
               unsigned n_lanes, bool causality, unsigned iterations, struct block_result *r, char *err,
               size_t errlen)
{
    if (iterations < 2) {
        snprintf(err, errlen, "at least 2 iterations are needed, got %u", iterations);
        return false;
    }
    struct rt_model *md = rt_model_new(m, lanes, n_lanes, causality, (unsigned)b->n_orig, err, errlen);
    if (!md)
        return false;
    /* A block repeated back to back is straight-line code much larger than a uop cache (the
     * convention of BHive's measurements): it comes through the legacy decoders. */
    rt_model_legacy_decode(md, true);
    /* Each lane is measured once its time repeats (or at the last iteration), on its own, so
     * that a lane's result does not depend on which others run. Causality counts an
     * instruction when it leaves a window of twice the ROB. It starts once every lane is
     * measured, so that the path it finds is the steady state's, not the warm-up's: the
     * baseline lane alone then goes on until a period's worth of instructions (at most a
     * window's worth) have left the window, so the shares are those of whole periods. */
    size_t n = b->n ? b->n : 1;
    rt_model_follow(md, 0);
    struct addr_gen g = { { 0 }, 0 };
    double *hist = calloc(HIST * (size_t)n_lanes, sizeof *hist);
    double *half = calloc(n_lanes, sizeof *half);
    unsigned *period = calloc(n_lanes, sizeof *period);
    bool *done = calloc(n_lanes, sizeof *done);
    unsigned warm = iterations / 2, it, measured = 0, open = n_lanes;
    for (it = 0; measured ? rt_model_following(md) : it < iterations; it++) {
        for (size_t i = 0; i < b->n; i++) {
            uint64_t addr[RT_MAX_MEM];
            addresses(&g, &b->insns[i], addr);
            rt_model_step(md, &b->insns[i], b->orig[i], addr, NULL, false);
        }
        if (measured)
            continue;
        double *now = hist_row(hist, it, 0, n_lanes);
        for (unsigned l = 0; l < n_lanes; l++)
            now[l] = rt_model_time(md, l);
        if (it + 1 == warm)
            memcpy(half, now, n_lanes * sizeof *half);
        /* One period once it repeats, else the slope over the second half; never below what the
         * asynchronous resources need per iteration. */
        for (unsigned l = 0; l < n_lanes; l++) {
            if (done[l] || (!(period[l] = lane_period(hist, it, n_lanes, l)) && it + 1 < iterations))
                continue;
            unsigned k = period[l];
            double slope = k ? (now[l] - hist_row(hist, it, k, n_lanes)[l]) / k
                             : (now[l] - half[l]) / (it + 1 - warm);
            double async = rt_model_async_bound(md, l) / (it + 1);
            r->cycles[l] = slope > async ? slope : async;
            done[l] = true;
            open--;
        }
        if (open)
            continue;
        measured = it + 1;
        rt_model_baseline_only(md);
        /* whole periods, at least 12 iterations */
        unsigned p = period[0] ? period[0] : PMAX;
        if (causality)
            rt_model_follow(md, (uint32_t)((12 + p - 1) / p * p * n));
    }
    r->iterations = measured;
    r->crit = calloc(b->n_orig ? b->n_orig : 1, sizeof *r->crit);
    r->seen = calloc(b->n_orig ? b->n_orig : 1, sizeof *r->seen);
    for (size_t i = 0; i < b->n_orig; i++)
        r->crit[i] = rt_model_critical(md, (uint32_t)i, &r->seen[i]);
    free(hist);
    free(half);
    free(period);
    free(done);
    rt_model_free(md);
    return true;
}
