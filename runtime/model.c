/* Gus's constraint propagation (seed 001, Algorithm 1): every resource keeps the earliest time
 * it is available; an instruction starts at the latest of its constraints and pushes the
 * resources it uses forward. State is stored lane-contiguous ([entity][slot]) so that one
 * lookup of a register or resource serves every lane. This file: the lanes' parameters, the
 * model's life, the order of a step's parts and causality's periods; the parts are lanes.c,
 * prep.c, kernel.c and topdown.c. */
#include "model.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "kernel.h"
#include "lanes.h"
#include "model_impl.h"
#include "prep.h"
#include "topdown.h"

const char *rt_knob_name(enum rt_knob k)
{
    static const char *const names[] = {
#define X(e, s, arg, kind, doc) s,
#include "knob.def"
#undef X
    };
    return (unsigned)k < RT_KNOB_COUNT ? names[k] : "?";
}

enum rt_knob_arg rt_knob_arg(enum rt_knob k)
{
    static const enum rt_knob_arg args[] = {
#define X(e, s, arg, kind, doc) RT_KNOB_ARG_##arg,
#include "knob.def"
#undef X
    };
    return (unsigned)k < RT_KNOB_COUNT ? args[k] : RT_KNOB_ARG_NONE;
}

enum rt_knob_kind rt_knob_kind(enum rt_knob k)
{
    static const enum rt_knob_kind kinds[] = {
#define X(e, s, arg, kind, doc) RT_KNOB_KIND_##kind,
#include "knob.def"
#undef X
    };
    return (unsigned)k < RT_KNOB_COUNT ? kinds[k] : RT_KNOB_KIND_BASE;
}

static uint32_t pow2_above(uint32_t x)
{
    uint32_t c = 64;
    while (c <= x)
        c *= 2;
    return c;
}

/* ---- lane parameters ------------------------------------------------------------------- */

static double knob_scale(const struct rt_lane_cfg *c, enum rt_knob k, int arg)
{
    double s = 1;
    for (int i = 0; i < 2; i++) {
        if (c->knob[i] != k || (c->arg[i] != arg && rt_knob_arg(k) != RT_KNOB_ARG_NONE))
            continue;
        s /= c->weight;
    }
    return s;
}

static bool lane_has(const struct rt_lane_cfg *c, enum rt_knob k)
{
    return c->knob[0] == k || c->knob[1] == k;
}

static void lane_params(struct rt_model *md, const struct rt_lane_cfg *c, unsigned l)
{
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    bool infinite = lane_has(c, RT_KNOB_ALL_RESOURCES);
    for (unsigned r = 0; r < m->n_resources; r++)
        md->res_scale[r * L + l] = infinite ? 0 : knob_scale(c, RT_KNOB_RESOURCE, (int)r);
    for (unsigned k = 0; k < m->n_caches; k++)
        md->cache_scale[k * L + l] = infinite ? 0 : knob_scale(c, RT_KNOB_CACHE_BW, (int)k);
    md->lat_scale[l] = lane_has(c, RT_KNOB_NO_DEPS) ? 0 : knob_scale(c, RT_KNOB_LATENCY, 0);
    md->fe_cost[l] = m->issue_width ? knob_scale(c, RT_KNOB_FRONTEND, 0) / m->issue_width : 0;
    md->ret_cost[l] = m->retire_width ? knob_scale(c, RT_KNOB_RETIRE, 0) / m->retire_width : 0;
    md->penalty[l] = m->mispredict_penalty * knob_scale(c, RT_KNOB_MISPREDICT, 0);
    md->mem_scale[l] = knob_scale(c, RT_KNOB_MEMORY_LATENCY, 0);
    md->rob[l] = (uint32_t)lround((m->rob ? m->rob : 224) / knob_scale(c, RT_KNOB_ROB, 0));
    md->lb[l] = m->load_buffer ? (uint32_t)lround(m->load_buffer / knob_scale(c, RT_KNOB_LOAD_BUFFER, 0)) : 0;
    md->sb[l] = m->store_buffer ? (uint32_t)lround(m->store_buffer / knob_scale(c, RT_KNOB_STORE_BUFFER, 0)) : 0;
    fills_lane(&md->fills, l, infinite ? 0 : 1 / knob_scale(c, RT_KNOB_MISSES, 0));
}

/* The description's bypass rules between classes, the last matching one winning as in the
 * language. Rules naming forms rather than classes are not applied yet. */
static void bypass_table(struct rt_model *md)
{
    const struct mdl_machine *m = md->m;
    for (unsigned i = 0; i < m->n_bypasses; i++) {
        const struct mdl_bypass *b = &m->bypasses[i];
        for (unsigned p = 0; p < MDL_CLASS_COUNT; p++)
            for (unsigned c = 0; c < MDL_CLASS_COUNT; c++)
                if ((b->from_classes >> p & 1) && (b->to_classes >> c & 1)) {
                    md->byp_kind[b->memory][p][c] = (int8_t)(b->sign ? 1 : 2);
                    md->byp_val[b->memory][p][c] = b->sign ? b->sign * b->latency : b->latency;
                }
    }
}

static uint32_t ring_cap(uint32_t largest) { return pow2_above(largest + 1); }

/* The scheduler entries whose taints are kept: any entry still held belongs to an instruction
 * in the window, of at most a window of fused uops, each a few unfused ones. */
static uint32_t rs_taints(const struct rt_model *md)
{
    return pow2_above(4 * (md->m->rob ? md->m->rob : 224) + md->m->scheduler);
}

/* Empty. The times need no clearing: an entry is read only once a window's worth have been
 * pushed after it (ring_wait). */
static void ring_reset(struct ring *r, const uint32_t *size, unsigned n)
{
    r->pos = 0;
    ring_lanes(r, size, n);
}

static void ring_init(struct ring *r, uint32_t largest, const uint32_t *size, unsigned n, unsigned L)
{
    r->cap = ring_cap(largest);
    r->t = alloc_vectors((size_t)r->cap * L, sizeof *r->t);
    r->skip = alloc_vectors(L, sizeof *r->skip);
    r->odd = alloc_vectors(L, sizeof *r->odd);
    ring_reset(r, size, n);
}

static void ring_free(struct ring *r)
{
    free(r->t);
    free(r->skip);
    free(r->odd);
}

static bool lanes_valid(const struct mdl_machine *m, const struct rt_lane_cfg *lanes, unsigned n, bool causality,
                        char *err, size_t errlen)
{
    if (n == 0 || n > RT_MAX_LANES) {
        snprintf(err, errlen, "between 1 and %d lanes", RT_MAX_LANES);
        return false;
    }
    if (causality && lanes[0].knob[0] != RT_KNOB_NONE) {
        snprintf(err, errlen, "causality follows lane 0: it must be the baseline");
        return false;
    }
    for (unsigned l = 0; l < n; l++)
        for (int i = 0; i < 2; i++) {
            enum rt_knob k = lanes[l].knob[i];
            if ((unsigned)k >= RT_KNOB_COUNT ||
                (rt_knob_arg(k) == RT_KNOB_ARG_RESOURCE && (unsigned)lanes[l].arg[i] >= m->n_resources) ||
                (rt_knob_arg(k) == RT_KNOB_ARG_CACHE && (unsigned)lanes[l].arg[i] >= m->n_caches) ||
                (k != RT_KNOB_NONE && lanes[l].weight <= 0)) {
                snprintf(err, errlen, "lane %u: invalid %s knob", l, rt_knob_name(k));
                return false;
            }
        }
    return true;
}

void model_lane_arrays(struct rt_model *md, double **out[N_LANE_ARRAYS])
{
    double **all[N_LANE_ARRAYS] = { &md->fe_t, &md->disp_t, &md->ret_t, &md->last_ret, &md->pd_t, &md->dec_t,
                                    &md->dec_free, &md->ser_t, &md->end_t, &md->rs_t, &md->grp_c, &md->grp_n,
                                    &md->fe_low, &md->fe_off, &md->lat_scale, &md->fe_cost, &md->ret_cost, &md->penalty, &md->mem_scale,
                                    &md->ser_scale };
    memcpy(out, all, sizeof all);
}

/* Lane arrays are padded to a whole number of vectors: a row of slots then starts on a vector
 * boundary. */
static unsigned padded(unsigned n)
{
    unsigned g = rt_lane_group();
    return n > 1 ? (n + g - 1) / g * g : n;
}

/* Lane C's parameters in slot L. */
void model_slot_params(struct rt_model *md, const struct rt_lane_cfg *c, unsigned l)
{
    lane_params(md, c, l);
    md->ser_scale[l] = lane_has(c, RT_KNOB_ALL_RESOURCES) ? 0 : knob_scale(c, RT_KNOB_SERIAL, 0);
    if (md->pc)
        ports_lane_scale(md->pc, md->res_scale, l);
    md->ports_off[l] = md->pc && lane_has(c, RT_KNOB_NO_DEPS);
}

/* Nothing timed yet: every time zero, the windows and shadow memory empty, no causality period,
 * no counts; the front end not on the legacy path. */
static void clear_state(struct rt_model *md)
{
    const struct mdl_machine *m = md->m;
    unsigned L = md->L;
    memset(md->res_t, 0, (size_t)m->n_resources * L * sizeof *md->res_t);
    memset(md->cache_t, 0, (size_t)m->n_caches * L * sizeof *md->cache_t);
    memset(md->reg_t, 0, (size_t)RT_REG_COUNT * L * sizeof *md->reg_t);
    memset(md->async_total, 0, (size_t)m->n_async * L * sizeof *md->async_total);
    double **per_lane[N_LANE_ARRAYS];
    model_lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_STATE; i++)
        memset(*per_lane[i], 0, L * sizeof(double));
    ring_reset(&md->rob_ring, md->rob, md->live);
    ring_reset(&md->lb_ring, md->lb, md->live);
    ring_reset(&md->sb_ring, md->sb, md->live);
    station_clear(md->rs);
    shadow_clear(&md->mem);
    fills_clear(&md->fills);
    if (md->pc)
        ports_clear(md->pc);
    memset(md->reg_cls, 0, sizeof md->reg_cls);
    memset(md->loaded, 0, sizeof md->loaded);
    md->legacy = md->prev_fusible = md->paths = md->fe_switch = false;
    md->fe_addr = 0;
    md->pd_block = 0;
    md->pd_count = 0;
    if (md->tn)
        taint_reset(md->tn);
    md->tn_on = NULL;
    md->leaving = UINT32_MAX;
    md->one_in = 1;
    md->gap_left = 0;
    memset(md->crit, 0, md->n_static * sizeof *md->crit);
    memset(md->seen, 0, md->n_static * sizeof *md->seen);
    memset(md->charge, 0, md->n_static * sizeof *md->charge);
    memset(md->prep, 0, md->n_static * sizeof *md->prep);
    md->ret0 = 0;
    md->prev_sidx = UINT32_MAX;
    md->prev_slots = md->owed = 0;
    md->charging = true;
    md->rs_wait0 = -INFINITY;
    topdown_clear(md);
}

void rt_model_share_baseline(struct rt_model *md, bool on)
{
    md->share = on;
    lanes_set(md, md->cfg, md->n_lanes);
    lanes_changed(md);
    clear_state(md);
}

struct rt_model *rt_model_new(const struct mdl_machine *m, const struct rt_lane_cfg *lanes, unsigned n,
                              bool causality, unsigned n_static, char *err, size_t errlen)
{
    if (!lanes_valid(m, lanes, n, causality, err, errlen))
        return NULL;
    struct rt_model *md = alloc_vectors(1, sizeof *md);
    unsigned lanes_in = n;
    n = padded(n);      /* a lone lane is not padded: it takes the scalar path */
    md->m = m;
    md->L = n;
    kernel_widest(md);
    md->share = true;
    md->cfg = alloc_vectors(n, sizeof *md->cfg);
    md->lane_state = alloc_vectors(n, sizeof *md->lane_state);
    md->slot_of = alloc_vectors(n, sizeof *md->slot_of);
    md->lane_of = alloc_vectors(n, sizeof *md->lane_of);
    md->diff = alloc_vectors(n, sizeof *md->diff);
    md->shared = alloc_vectors(n, sizeof *md->shared);
    md->frozen = alloc_vectors((size_t)n * (FROZEN + m->n_async), sizeof *md->frozen);
    md->res_scale = alloc_vectors((size_t)m->n_resources * n, sizeof(double));
    md->cache_scale = alloc_vectors((size_t)m->n_caches * n, sizeof(double));
    double **per_lane[N_LANE_ARRAYS];
    model_lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_ARRAYS; i++)
        *per_lane[i] = alloc_vectors(n, sizeof(double));
    md->rob = alloc_vectors(n, sizeof(uint32_t));
    md->lb = alloc_vectors(n, sizeof(uint32_t));
    md->sb = alloc_vectors(n, sizeof(uint32_t));
    md->rs = station_new(m->scheduler, m->issue_width, n);
    md->pc = ports_new(m, n);
    md->pl = md->pc ? ports_lanes(md->pc) : NULL;
    md->no_ports = alloc_vectors(n, sizeof *md->no_ports);
    md->ports_off = alloc_vectors((n + PORTS_PASS - 1) / PORTS_PASS * PORTS_PASS, sizeof *md->ports_off);
    for (unsigned k = 0; k < m->n_caches && md->n_data < 8; k++)
        if (m->caches[k].kind != MDL_CACHE_INSTRUCTION)
            md->data[md->n_data++] = k;
    fills_init(&md->fills, m, md->data, md->n_data, n);
    lanes_set(md, lanes, lanes_in);
    md->never = alloc_vectors(n, sizeof(double));
    for (unsigned l = 0; l < n; l++)
        md->never[l] = -INFINITY;
    bypass_table(md);
    md->res_t = alloc_vectors((size_t)m->n_resources * n, sizeof(double));
    md->cache_t = alloc_vectors((size_t)m->n_caches * n, sizeof(double));
    md->reg_t = alloc_vectors((size_t)RT_REG_COUNT * n, sizeof(double));
    md->async_total = alloc_vectors((size_t)m->n_async * n, sizeof(double));
    ring_init(&md->rob_ring, md->win_max[0], md->rob, md->live, n);
    ring_init(&md->lb_ring, md->win_max[1], md->lb, md->live, n);
    ring_init(&md->sb_ring, md->win_max[2], md->sb, md->live, n);
    lanes_changed(md);
    /* A store a full window older than a load has retired before the load dispatches (each
     * instruction takes at least one slot). The horizon is the same whatever the lanes, so that
     * they cannot change the baseline: 16 of the machine's windows cover a lane's window grown
     * by the largest weight (1000%: 11 times) with a margin. */
    shadow_init(&md->mem, n, 16ull * (m->rob ? m->rob : 224));
    md->n_static = n_static;
    md->crit = alloc_vectors(n_static, sizeof(uint64_t));
    md->charge = alloc_vectors(n_static, sizeof(double));
    md->seen = alloc_vectors(n_static, sizeof(uint64_t));
    md->prep = alloc_vectors(n_static, sizeof(struct prep));
    if (causality)
        md->tn = taint_new(&(struct taint_sizes){
            .window = 2 * md->rob[0], .n_res = m->n_resources + 1u + ports_count(md->pc), .n_caches = m->n_caches,
            .n_regs = RT_REG_COUNT, .rob_cap = md->rob_ring.cap, .lb_cap = md->lb_ring.cap, .sb_cap = md->sb_ring.cap,
            .rs_cap = rs_taints(md), .n_fills = FILLS_LINES, .n_slots = md->fills.n_slots });
    clear_state(md);
    return md;
}

void model_grow_static(struct rt_model *md, uint32_t need);

bool rt_model_reset(struct rt_model *md, const struct rt_lane_cfg *lanes, unsigned n, unsigned n_static)
{
    char err[128];
    if (!lanes_valid(md->m, lanes, n, md->tn != NULL, err, sizeof err) || padded(n) != md->L)
        return false;
    lanes_set(md, lanes, n);
    lanes_changed(md);
    if (ring_cap(md->win_max[0]) != md->rob_ring.cap || ring_cap(md->win_max[1]) != md->lb_ring.cap ||
        ring_cap(md->win_max[2]) != md->sb_ring.cap)
        return false;
    if (n_static > md->n_static)
        model_grow_static(md, n_static);
    clear_state(md);
    return true;
}

void rt_model_free(struct rt_model *md)
{
    if (!md)
        return;
    double **per_lane[N_LANE_ARRAYS];
    model_lane_arrays(md, per_lane);
    for (unsigned i = 0; i < N_LANE_ARRAYS; i++)
        free(*per_lane[i]);
    free(md->res_scale); free(md->cache_scale); free(md->rob); free(md->lb); free(md->sb); station_free(md->rs);
    free(md->never);
    free(md->res_t); free(md->cache_t); free(md->reg_t); free(md->async_total);
    ring_free(&md->rob_ring); ring_free(&md->lb_ring); ring_free(&md->sb_ring);
    shadow_free(&md->mem);
    fills_free(&md->fills);
    ports_free(md->pc);
    free(md->no_ports);
    free(md->ports_off);
    free(md->cfg); free(md->lane_state); free(md->slot_of); free(md->lane_of); free(md->diff); free(md->shared);
    free(md->frozen);
    taint_free(md->tn);
    free(md->crit); free(md->seen); free(md->prep); free(md->charge);
    free(md);
}

bool rt_insn_reads_stack(const struct rt_insn *in)
{
    const uint8_t sp = in->stack_reg;
    for (unsigned k = 0; sp != RT_REG_NONE && k < in->n_src; k++)
        if (in->src[k] == sp)
            return true;
    for (unsigned k = 0; sp != RT_REG_NONE && k < in->n_addr; k++)
        if (in->addr[k] == sp)
            return true;
    return false;
}

/* Microcoded and serialising forms (lock, fences, dividers) are measured much slower than
 * their port mapping allows; their measured inverse throughput becomes one more resource,
 * shared by all such forms. Ordinary forms (within a factor 1.5 of their ports) pay nothing, and
 * neither do branches, calls and returns (the decoder's branch kind): their measured throughput is
 * that of the front end's taken branches and the return stack, which pipeline, not a unit each
 * instance holds. Nor do forms with a length-changing prefix: theirs is the legacy predecoder's
 * stall, which the front end models where it applies. */
double rt_serial_cost(const struct mdl_machine *m, const struct mdl_template *t, const struct rt_insn *in)
{
    if (in->branch != RT_BR_NONE || in->lcp)
        return 0;
    double most = 0;
    for (unsigned k = 0; k < t->use_count; k++)
        if (m->uses[t->use_first + k].cost > most)
            most = m->uses[t->use_first + k].cost;
    return t->tp >= 2 && t->tp > 1.5 * most ? t->tp : 0;
}

/* Pushes N entries; only the first LIVE slots of each are written. */
static void ring_push(struct ring *r, uint32_t n, const double *t, unsigned L, unsigned live)
{
    for (uint32_t k = 0; k < n; k++, r->pos++) {
        double *slot = &r->t[(r->pos & (r->cap - 1)) * L];
        if (live == 1)
            *slot = *t;
        else
            memcpy(slot, t, live * sizeof *t);
    }
}

void rt_model_legacy_decode(struct rt_model *md, bool on)
{
    md->legacy = on && md->m->fetch_bytes && md->m->decode_width;
    md->pd_block = -1;
}

void rt_model_path(struct rt_model *md, enum rt_path p)
{
    bool legacy = p == RT_PATH_LEGACY && md->m->fetch_bytes && md->m->decode_width;
    if (legacy && !md->legacy) {
        md->fe_switch = md->paths;  /* the first instruction of all starts the decoders: no switch */
        md->pd_block = -1;
        md->prev_fusible = false;
    }
    md->legacy = legacy;
    md->paths = true;
}

const char *rt_path_name(enum rt_path p)
{
    static const char *const names[] = {
#define X(e, s, label, doc) s,
#include "path.def"
#undef X
    };
    return (unsigned)p < RT_PATH_COUNT ? names[p] : "?";
}

const char *rt_path_label(enum rt_path p)
{
    static const char *const labels[] = {
#define X(e, s, label, doc) label,
#include "path.def"
#undef X
    };
    return (unsigned)p < RT_PATH_COUNT ? labels[p] : "?";
}

void rt_model_follow(struct rt_model *md, uint32_t n)
{
    md->one_in = 0;
    if (md->tn)
        taint_follow(md->tn, n);
}

bool rt_model_following(const struct rt_model *md) { return md->tn && taint_open(md->tn); }

void rt_model_sample_causality(struct rt_model *md, unsigned one_in)
{
    md->one_in = one_in ? one_in : 1;
    md->gap_left = 0;
}

/* Causality for the instruction entering now: taints are on while a period is open; a sampled
 * run opens one (following a window's worth) after each gap of (one_in - 1) periods. */
static void causality_enter(struct rt_model *md, uint32_t sidx)
{
    struct taint *tn = md->tn;
    if (!taint_open(tn) && md->one_in) {
        if (md->gap_left == 0)
            taint_follow(tn, taint_window(tn));
        else
            md->gap_left--;
    }
    md->tn_on = NULL;
    if (!taint_open(tn)) {
        taint_pass(tn);
        return;
    }
    md->leaving = taint_enter(tn, sidx);
    md->tn_on = tn;
}

/* Once the instruction entering has dispatched: the followed one it pushed out of the window is
 * critical when that dispatch still depends on it. */
static void causality_judge(struct rt_model *md)
{
    struct taint *tn = md->tn_on;
    bool critical = taint_judge(tn);
    if (md->leaving < md->n_static) {
        md->seen[md->leaving]++;
        md->crit[md->leaving] += critical;
    }
    md->leaving = UINT32_MAX;
    if (!taint_open(tn) && md->one_in)
        md->gap_left = 2ull * taint_window(tn) * (md->one_in - 1);
}

/* Dynamic streams discover static instructions as they run. */
void model_grow_static(struct rt_model *md, uint32_t need)
{
    uint32_t n = md->n_static ? md->n_static : 64;
    while (n < need)
        n *= 2;
    md->crit = alloc_resize(md->crit, n, sizeof *md->crit);
    md->seen = alloc_resize(md->seen, n, sizeof *md->seen);
    md->prep = alloc_resize(md->prep, n, sizeof *md->prep);
    md->charge = alloc_resize(md->charge, n, sizeof *md->charge);
    memset(md->charge + md->n_static, 0, (n - md->n_static) * sizeof *md->charge);
    memset(md->crit + md->n_static, 0, (n - md->n_static) * sizeof *md->crit);
    memset(md->seen + md->n_static, 0, (n - md->n_static) * sizeof *md->seen);
    memset(md->prep + md->n_static, 0, (n - md->n_static) * sizeof *md->prep);
    md->n_static = n;
}

/* Retirement moved on from the previous instruction's slot start to this one's (RET0 to RETIRE).
 * Each instruction is charged its own slots, its uops at the narrower of the issue and retire
 * widths, and the wait for it as the oldest instruction not yet retired (perf's rule: a stall is
 * the instruction's the core waits on). Slots charged ahead of retirement (a burst retiring
 * faster than the core issues) are owed, and come out of the next waits: no function retires
 * faster than the core is wide, and the charges add up to the baseline's time but for what is
 * owed at the end (less than a window's slots). */
static void model_charge(struct rt_model *md, uint32_t sidx, double retire, uint32_t uops)
{
    double moved = retire - md->ret0;
    if (md->prev_sidx < md->n_static) {
        md->charge[md->prev_sidx] += md->prev_slots;
        md->owed += md->prev_slots;
    }
    double paid = md->owed < moved ? md->owed : moved;
    md->owed -= paid;
    md->charge[sidx] += moved - paid;
    md->ret0 = retire;
    md->prev_sidx = sidx;
    md->prev_slots = uops * (md->fe_cost[0] > md->ret_cost[0] ? md->fe_cost[0] : md->ret_cost[0]);
}

static void model_step(struct rt_model *md, struct step *s, const struct rt_insn *in, uint32_t sidx);

void rt_model_step(struct rt_model *md, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                   const uint8_t *levels, bool mispredicted)
{
    struct step s;
    prep_step(md, &s, in, sidx, addr, levels, mispredicted);
    model_step(md, &s, in, sidx);
}

void rt_model_step_string(struct rt_model *md, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                          const uint8_t *levels, const struct rt_string *str)
{
    struct step s;
    prep_step(md, &s, in, sidx, addr, levels, false);
    prep_string(md, &s, str);
    model_step(md, &s, in, sidx);
}

double rt_model_string_time(const struct rt_model *md, const struct rt_insn *in, const struct rt_string *str)
{
    struct step s;      /* prep_string writes only what is read here: the rest of a step stays unset */
    s.in = in;
    s.serial = 0;
    prep_string(md, &s, str);
    double t = s.op_lat;
    for (unsigned x = 0; x < s.n_cross; x++)
        if (md->n_data && s.cross[x].k == md->data[0] && s.cross[x].cost > t)
            t = s.cross[x].cost;
    return t;
}

/* The step of S (prepared): its memory, the lanes that must split off, the kernel, and what the
 * step leaves behind (slots, charges, taints, windows). */
static void model_step(struct rt_model *md, struct step *s, const struct rt_insn *in, uint32_t sidx)
{
    if (md->tn)
        causality_enter(md, sidx);
    shadow_tick(&md->mem);
    prep_memory(md, s);
    lanes_split(md, s);
    _Alignas(64) double retire[RT_MAX_LANES], fe_ready[RT_MAX_LANES];
    /* The stack engine's synchronisation uop makes the stack register one cycle later for this
     * reader. */
    if (in->sync && in->stack_reg != RT_REG_NONE)
        for (unsigned l = 0; l < md->live; l++)
            md->reg_t[(size_t)in->stack_reg * md->L + l] += md->lat_scale[l];
    /* the kernel over the live lanes, lane 0 with its taints while a period is open */
    struct kin kin;
    kernel_inputs(md, s, 0, md->live, fe_ready, &kin);
    kernel_step(md, s, &kin, retire);
    if (md->td.on)
        topdown_step(md, s);   /* before the window entries are pushed: it reads the windows */
    if (md->charging)
        model_charge(md, sidx, retire[0], s->uops);

    if (md->tn_on) {
        for (uint32_t k = 0; k < s->uops; k++)
            taint_copy(md->tn_on, taint_rob(md->tn_on, md->rob_ring.pos + k), TN_RETIRED);
        causality_judge(md);
    }
    for (unsigned k = 0; k < in->n_dst; k++)
        md->reg_cls[in->dst[k]] = s->cls;
    prep_mark_loaded(md, in, s->cls);
    ring_push(&md->rob_ring, s->uops, retire, md->L, md->live);
    station_hold(md->rs, station_next(md->rs), s->rs_uops, md->rs_t, md->live);
    station_advance(md->rs, s->rs_uops);
    if (s->loads) {
        if (md->tn_on)
            taint_copy(md->tn_on, taint_lb(md->tn_on, md->lb_ring.pos), TN_RETIRED);
        ring_push(&md->lb_ring, 1, retire, md->L, md->live);
    }
    if (s->stores) {
        if (md->tn_on)
            taint_copy(md->tn_on, taint_sb(md->tn_on, md->sb_ring.pos), TN_RETIRED);
        ring_push(&md->sb_ring, 1, retire, md->L, md->live);
    }
}

void rt_model_baseline_only(struct rt_model *md)
{
    for (unsigned l = 1; l < md->n_lanes; l++)
        rt_model_lane_done(md, l);
}

void rt_model_topdown_stop(struct rt_model *md) { md->td.on = false; }

void rt_model_charges_stop(struct rt_model *md) { md->charging = false; }

uint32_t rt_model_causal_window(const struct rt_model *md) { return md->tn ? taint_window(md->tn) : 0; }

/* LANE's reading WHICH (FROZEN_*) of per-slot array A. */
static double reading(const struct rt_model *md, unsigned lane, const double *a, unsigned which)
{
    if (lane < md->n_lanes && (md->lane_state[lane] == LANE_DONE || md->lane_state[lane] == LANE_RESTING ||
                                 md->lane_state[lane] == LANE_PAUSED))
        return lanes_frozen(md, lane)[which];
    return a[lane < md->n_lanes ? lanes_reading_slot(md, lane) : 0];
}

double rt_model_time(const struct rt_model *md, unsigned lane) { return reading(md, lane, md->last_ret, FROZEN_TIME); }

double rt_model_latest(const struct rt_model *md, unsigned lane) { return reading(md, lane, md->end_t, FROZEN_LATEST); }

double rt_model_issued(const struct rt_model *md, unsigned lane) { return reading(md, lane, md->disp_t, FROZEN_ISSUED); }

double rt_model_async_bound(const struct rt_model *md, unsigned lane)
{
    double bound = 0;
    for (unsigned a = 0; a < md->m->n_async; a++) {
        double t = reading(md, lane, &md->async_total[(size_t)a * md->L], FROZEN + a);
        if (t > bound)
            bound = t;
    }
    return bound;
}

double rt_model_charge(const struct rt_model *md, uint32_t sidx)
{
    return sidx < md->n_static ? md->charge[sidx] : 0;
}

const double *rt_model_charges(const struct rt_model *md, uint32_t *n)
{
    *n = md->n_static;
    return md->charge;
}

uint64_t rt_model_critical(const struct rt_model *md, uint32_t sidx, uint64_t *seen)
{
    *seen = sidx < md->n_static ? md->seen[sidx] : 0;
    return sidx < md->n_static ? md->crit[sidx] : 0;
}

void rt_model_lane_done(struct rt_model *md, unsigned lane) { lanes_done(md, lane); }

void rt_model_lanes_rest(struct rt_model *md) { lanes_rest(md); }

void rt_model_lanes_join(struct rt_model *md, const bool *which) { lanes_join(md, which); }

void rt_model_lanes_forget(struct rt_model *md, unsigned first) { lanes_forget(md, first); }

bool rt_model_lane_shared(const struct rt_model *md, unsigned lane)
{
    return lane > 0 && lane < md->n_lanes && md->lane_state[lane] == LANE_SHARED;
}

void rt_model_topdown(const struct rt_model *md, bool with_tail, struct rt_topdown *out) { topdown_read(md, with_tail, out); }

unsigned rt_lane_group(void) { return kernel_group(); }

const char *rt_model_vector_isa(unsigned k) { return kernel_isa(k); }

bool rt_model_vectors(struct rt_model *md, const char *isa) { return kernel_choose(md, isa); }
