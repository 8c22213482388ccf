/* What the step needs of an instruction: what stays the same from one execution to the next
 * (its uops, latencies split at its load, serial cost), derived at its first, and what each
 * execution adds (bypasses, merges, the pointer-chasing path, the levels it crosses, the stores
 * it reads and writes, the legacy predecoder's cycles). The same for every lane. */
#include "prep.h"
#include "model_impl.h"

static uint8_t insn_class(const struct rt_insn *in, const struct mdl_template *t)
{
    return t->cls < MDL_CLASS_COUNT ? t->cls : in->cls < MDL_CLASS_COUNT ? in->cls : MDL_CLASS_GENERIC;
}

/* Whether IN reads a register as data. A push or pop reads the stack register for its slot's
 * address only: the stack engine moves it, no operation uses it. */
static bool reads_data(const struct rt_insn *in)
{
    for (unsigned k = 0; k < in->n_src; k++)
        if (!in->stack || in->src[k] != in->stack_reg)
            return true;
    return false;
}

/* An integer divider whose range spans more than a factor two (Skylake's DIV r64, 5..89) finishes
 * early on easy operands (spec.md §10.3): the range runs over operand values, not only pairs,
 * and measured code (BHive's blocks; uiCA takes uops.info's per-pair minimum) sees the fast end.
 * A narrower range is one of operand pairs and keeps its upper bound. The result cannot come
 * before the serial unit has held the instruction for its measured occupancy (SERIAL, 0 when it
 * holds none). */
static bool data_dependent(uint8_t cls, const struct mdl_template *t)
{
    return cls == MDL_CLASS_INT_DIV && t->latency_max > 2 * t->latency_min;
}

static void prep_divider(const struct rt_model *md, const struct mdl_template *t, double serial, struct prep *s)
{
    s->op_lat = t->latency_min > serial ? t->latency_min : serial;
    s->load_lat = 0;
    if (s->loads)   /* a load before it, as any load-operation form's: a first-level hit plus one */
        s->load_lat = md->n_data ? md->m->caches[md->data[0]].latency + 1 : t->latency_max - t->latency_min;
}

/* A load form's latency range spans its load: uops.info's [1;6] for `add r64, m64` is 1 from
 * the register operand and 6 from the address. A pure load or store has no operation after it. */
static void prep_latencies(const struct rt_model *md, const struct rt_insn *in, const struct mdl_template *t,
                           struct prep *s)
{
    bool data_regs = reads_data(in);
    if (!in->eliminated && data_dependent(s->cls, t) && !s->stores) {
        prep_divider(md, t, s->serial, s);
    } else if (in->eliminated) {
        s->op_lat = s->load_lat = 0;
    } else if (s->loads && s->stores && md->n_data) {
        /* Read-modify-write: uops.info's latencies run through its store (memory to memory
         * through the next store-to-load forward, which shadow memory already chains); the load
         * here is a first level hit plus the forwarding cycle, then the operation, which takes
         * what the class's register form takes (its class default). */
        const struct mdl_template *op = &md->m->templates[md->m->class_default[insn_class(in, t)]];
        s->op_lat = op->latency_max > 1 ? op->latency_max : 1;
        s->load_lat = md->m->caches[md->data[0]].latency + 1;
    } else if (s->loads) {
        s->op_lat = data_regs && t->latency_max > t->latency_min ? t->latency_min : 0;
        s->load_lat = t->latency_max - s->op_lat;
        /* uops.info's upper end for a vector load-operation form is an upper bound measured
         * through memory ([4;<=11] for `addsd xmm, m64`): the load part of any load-operation form
         * is at most a first-level hit plus one, as a scalar form's is. */
        double hit = md->n_data ? md->m->caches[md->data[0]].latency + 1 : 0;
        if (s->op_lat > 0 && hit > 0 && s->load_lat > hit)
            s->load_lat = hit;
    } else if (s->stores) {
        s->op_lat = s->load_lat = 0;
    } else {
        s->op_lat = t->latency_max;
        s->load_lat = 0;
    }
}

/* Bypass latencies this execution sees from each source register's producer class (register
 * rules are relative: a domain crossing adds cycles). */
static void step_bypasses(struct rt_model *md, struct step *s)
{
    for (unsigned k = 0; k < s->in->n_src; k++) {
        uint8_t p = md->reg_cls[s->in->src[k]];
        s->src_bypass[k] = md->byp_kind[0][p][s->cls] == 1 ? md->byp_val[0][p][s->cls] : 0;
    }
}

/* What one load reads (R): a store that holds every byte forwards its data, in the bypass rule's
 * latency when one matches (§14); else forwarding fails and the load has its value the machine's
 * store_forward_fail cycles after the last of the stores' data (§12.4). Either replaces the
 * load's own latency; without a rule or a failure latency the load takes its own. */
static void step_read(struct rt_model *md, struct step *s, const struct shadow_read *r)
{
    double fail = md->m->store_forward_fail > 0 ? md->m->store_forward_fail - s->load_lat : 0;
    for (unsigned k = 0; k < r->n; k++) {
        uint8_t p = shadow_class(&md->mem, r->st[k]);
        double extra = fail;
        if (r->forwarded)
            extra = md->byp_kind[1][p][s->cls] == 2 ? md->byp_val[1][p][s->cls] - s->load_lat : 0;
        s->read_st[s->n_reads] = r->st[k];
        s->read_extra[s->n_reads++] = extra;
    }
}

/* The stores the loads read, then the new ones (program order: an instruction's load reads what
 * came before it). The writer is known while causality follows instructions. */
void prep_memory(struct rt_model *md, struct step *s)
{
    struct shadow_read r;
    s->n_reads = s->n_writes = 0;
    for (unsigned i = 0; i < s->in->n_mem && s->loads; i++)
        if (s->in->mem[i].load) {
            shadow_read(&md->mem, s->addr[i], s->in->mem[i].size, &r);
            step_read(md, s, &r);
        }
    uint64_t seq = md->tn ? taint_seq(md->tn) : 0;
    for (unsigned i = 0; i < s->in->n_mem && s->stores; i++)
        if (s->in->mem[i].store)
            s->write_st[s->n_writes++] = shadow_write(&md->mem, s->addr[i], s->in->mem[i].size, seq, s->cls);
}

/* A scalar SIMD operation that writes the low element of its destination and merges the rest
 * from a register it reads (the decoder's IN->merge: x86 cvtsi2sd's destination, the first source
 * of the VEX forms). Where its latency is a range, that merge takes the lower bound, the converted
 * or computed value the upper one. */
static void step_merges(struct step *s)
{
    const struct rt_insn *in = s->in;
    const struct mdl_template *t = s->t;
    if (in->merge == RT_REG_NONE || s->loads || s->stores || in->eliminated || t->latency_min < 1 ||
        t->latency_min >= t->latency_max)
        return;
    for (unsigned k = 0; k < in->n_src; k++)
        if (in->src[k] == in->merge)
            s->src_bypass[k] += t->latency_min - t->latency_max;
}

/* The pointer-chasing fast path (§12.4 pointer_chase): a load whose address is a base register
 * that a 4- or 8-byte integer load wrote, plus a displacement in [0, 2048) and no index, starts
 * its access before the full address addition and saves that many cycles. */
static void step_chase(const struct rt_model *md, struct step *s)
{
    for (unsigned i = 0; i < s->in->n_mem && s->loads && md->m->pointer_chase > 0; i++) {
        const struct rt_mem *a = &s->in->mem[i];
        if (!a->load)
            continue;
        if (a->base != RT_REG_NONE && a->index == RT_REG_NONE && a->disp >= 0 && a->disp < 2048 &&
            md->loaded[a->base])
            s->load_lat = s->load_lat > md->m->pointer_chase ? s->load_lat - md->m->pointer_chase : 0;
        return;
    }
}

/* Which registers IN leaves holding a pointer loaded from memory: the destinations of an
 * integer load of 4 or 8 bytes (not the stack pointer a pop moves), and of a move eliminated at
 * rename, which names its source's value (the load stays its producer). */
void prep_mark_loaded(struct rt_model *md, const struct rt_insn *in, uint8_t cls)
{
    bool load = cls == MDL_CLASS_LOAD && in->n_mem == 1 && in->mem[0].load && !in->mem[0].store &&
                in->mem[0].size >= 4;
    if (in->eliminated && in->n_src == 1 && in->n_mem == 0)
        load = md->loaded[in->src[0]];
    for (unsigned k = 0; k < in->n_dst; k++)
        md->loaded[in->dst[k]] = load && !(in->stack && in->dst[k] == in->stack_reg);
}

/* The legacy predecoder marks instruction boundaries in one fetch block per cycle, at most
 * predecode_width instructions. An instruction crossing into the next block is marked with that
 * block's first cycle; when the current cycle is already full and its opcode byte is still in
 * the current block, the crossing one costs a cycle of its own. A length-changing prefix stalls
 * it about three cycles (Intel's optimization manual, "Length-Changing Prefixes"). The code is
 * laid out back to back, so the address runs on. */
static double predecode_cycles(struct rt_model *md, const struct rt_insn *in)
{
    const struct mdl_machine *m = md->m;
    uint64_t a = md->fe_addr;
    md->fe_addr += in->len;
    int64_t block = (int64_t)(a / m->fetch_bytes);
    bool crosses = a % m->fetch_bytes + in->len > m->fetch_bytes;
    bool room = !m->predecode_width || md->pd_count < m->predecode_width;
    bool opcode_beyond = a % m->fetch_bytes + in->opcode_at >= m->fetch_bytes;
    double c = in->lcp ? 3 : 0;
    if (!crosses && md->pd_block == block && room) {
        md->pd_count++;
        return c;
    }
    if (crosses)
        c += md->pd_block == block && (room || opcode_beyond) ? 1 : 2;
    else
        c += 1;
    md->pd_block = crosses ? block + 1 : block;
    md->pd_count = 1;
    return c;
}

/* A memory access uses the bandwidth of every cache level it crosses, down to the one that
 * served it (Algorithm 1, lines 27-30): the bytes at the first level, a line below it. Levels
 * without a bandwidth limit cost nothing and are left out. */
static void step_crossings(const struct rt_model *md, struct step *s)
{
    s->n_cross = 0;
    for (unsigned i = 0; i < s->in->n_mem; i++) {
        const struct rt_mem *mem = &s->in->mem[i];
        unsigned last = s->levels ? s->levels[i] : 0u;
        for (unsigned j = 0; (mem->load || mem->store) && j < md->n_data && j <= last; j++) {
            const struct mdl_cache *c = &md->m->caches[md->data[j]];
            if (c->bandwidth <= 0 || s->n_cross == sizeof s->cross / sizeof *s->cross)
                continue;
            s->cross[s->n_cross].k = md->data[j];
            s->cross[s->n_cross++].cost = (j == 0 ? (mem->size ? mem->size : 8) : c->line) / c->bandwidth;
        }
    }
}

/* Load-to-use beyond the first level: the serving level's latency replaces the first's. */
static double level_extra(const struct rt_model *md, const struct step *s)
{
    double extra = 0;
    for (unsigned i = 0; s->levels && i < s->in->n_mem; i++) {
        unsigned k = s->levels[i];
        if (!s->in->mem[i].load || k == 0 || md->n_data == 0)
            continue;
        double base = md->m->caches[md->data[0]].latency;
        double lat = k < md->n_data ? md->m->caches[md->data[k]].latency : md->m->memory_latency;
        if (lat - base > extra)
            extra = lat - base;
    }
    return extra;
}

static const struct prep *prep_get(struct rt_model *md, const struct rt_insn *in, uint32_t sidx)
{
    if (sidx >= md->n_static)
        model_grow_static(md, sidx + 1);
    struct prep *p = &md->prep[sidx];
    if (p->ready)
        return p;
    const struct mdl_machine *m = md->m;
    const struct mdl_template *t = &m->templates[in->tmpl];
    /* A microcoded form of hundreds of uops streams through the window: it holds at most all
     * of the machine's (the same bound in every lane, so lanes cannot change the baseline). */
    uint32_t window = md->m->rob ? md->m->rob : 224;
    p->uops = t->uops_fused < window ? t->uops_fused : window;
    uint32_t rs = m->scheduler;
    p->rs_uops = in->eliminated ? 0 : t->uops_unfused < rs ? t->uops_unfused : rs;
    for (unsigned i = 0; i < in->n_mem; i++) {
        p->loads |= in->mem[i].load;
        p->stores |= in->mem[i].store;
    }
    p->serial = rt_serial_cost(m, t, in);
    p->placed = !in->eliminated && ports_places(md->pc, t);
    p->port_units = p->placed ? ports_units(md->pc, t) : 0;
    p->cls = insn_class(in, t);
    prep_latencies(md, in, t, p);
    p->ready = true;
    return p;
}

/* What the step needs of this execution of IN (static index SIDX): its preparation, the
 * bypasses and merges of its sources, the levels its accesses cross and the legacy predecoder's
 * cycles (at the instruction's address where the path is set per instruction). Every field of S is set here or before it is read. */
void prep_step(struct rt_model *md, struct step *s, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
               const uint8_t *levels, bool mispredicted)
{
    const struct prep *p = prep_get(md, in, sidx);
    s->in = in;
    s->t = &md->m->templates[in->tmpl];
    s->uops = p->uops;
    s->rs_uops = p->rs_uops;
    s->loads = p->loads;
    s->stores = p->stores;
    s->op_lat = p->op_lat;
    s->load_lat = p->load_lat;
    s->serial = p->serial;
    s->cls = p->cls;
    s->addr = addr;
    s->levels = levels;
    s->mispredicted = mispredicted;
    s->placed = p->placed;
    s->port_units = p->port_units;
    step_bypasses(md, s);
    step_merges(s);
    step_chase(md, s);
    s->extra_lat = level_extra(md, s);
    fills_prep(&md->fills, in, addr, levels, &s->fills);
    step_crossings(md, s);
    s->fe_switch = md->fe_switch;
    md->fe_switch = false;
    if (md->legacy) {
        if (md->paths)      /* the instructions as they run: a taken jump starts a fetch block */
            md->fe_addr = in->pc;
        s->pd_cycles = predecode_cycles(md, in);
        s->fuse_wait = md->prev_fusible;
        md->prev_fusible = in->fusible;
    }
}

/* The bytes' time of a repeated string instruction: fast strings (movs, stos) move them at the
 * description's rate for the case, the other forms take a number of cycles per element. */
static double string_body(const struct mdl_strings *st, const struct rt_insn *in, const struct rt_string *str)
{
    if (in->rep == RT_REP_SCAN)
        return (double)str->iterations * st->element_cycles;
    double rate = st->copy_rate;
    if (in->rep == RT_REP_FILL)
        rate = st->fill_rate;
    else if (str->unaligned && st->unaligned_rate > 0)
        rate = st->unaligned_rate;
    return rate > 0 ? (double)str->bytes / rate : 0;
}

/* One rep execution is one instruction (spec.md, `strings`): its template's uops issue once; the
 * start-up holds the serial unit (where the description gives one: else the template's measured
 * cost stays); the bytes hold the first cache level for the longer of the rate's time and its
 * bandwidth's, every line the streams touched crosses the levels below as far as it went, and the
 * result comes after the start-up and the bytes. */
void prep_string(const struct rt_model *md, struct step *s, const struct rt_string *str)
{
    const struct mdl_strings *st = &md->m->strings;
    const struct rt_insn *in = s->in;
    bool short_copy = in->rep == RT_REP_COPY && st->short_max > 0 && str->bytes <= st->short_max;
    double startup = short_copy ? st->short_startup : st->startup;
    double body = string_body(st, in, str);
    if (startup > 0 || short_copy)
        s->serial = startup;
    unsigned streams = 0;
    for (unsigned i = 0; i < in->n_mem; i++)
        streams += in->mem[i].load || in->mem[i].store;
    s->n_cross = 0;
    bool carried = false;
    for (unsigned j = 0; j < md->n_data; j++) {
        const struct mdl_cache *c = &md->m->caches[md->data[j]];
        uint32_t lines = str->lines[j < RT_STRING_LEVELS ? j : RT_STRING_LEVELS - 1];
        if (c->bandwidth <= 0 || (j > 0 && lines == 0))
            continue;
        double cost = j == 0 ? (double)str->bytes * streams / c->bandwidth : (double)lines * c->line / c->bandwidth;
        if (j == 0) {
            cost = cost > body ? cost : body;
            carried = true;
        }
        s->cross[s->n_cross].k = md->data[j];
        s->cross[s->n_cross++].cost = cost;
    }
    if (!carried)   /* no first level of limited bandwidth: the bytes' time is the serial unit's */
        s->serial += body;
    s->op_lat = startup + body;
}
