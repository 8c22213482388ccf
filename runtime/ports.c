/* Port choice and per-port busy cycles (ports.h). The rule is the one uiCA found in Intel's
 * schedulers (Abel and Reineke, 2022): as an issue group starts (the instructions that issue in
 * one cycle), each port counts the uops given to it that have not started or started in the
 * cycle before; in the group, a uop at an even slot takes the least loaded port it may use, one
 * at an odd slot the second least loaded unless that one has three uops more; ties go to the
 * higher-numbered port; loads take the load ports in turn. Groups and counts are the baseline
 * lane's (its issue times and its ports' calendars): the choice is the same in every lane, so a
 * lane's times do not depend on which others run. Counting the last 64 uops in program order
 * instead came to MAPE 1.35% against uiCA on the dev blocks, where groups and counts in time,
 * with the scheduler filling as uiCA's does (station.h), came to 1.22%. */
#include "ports.h"
#include "alloc.h"
#include <stdlib.h>

struct ports {
    const struct mdl_machine *m;
    unsigned n_ports;
    uint64_t load_units;            /* the load class's units: a uop inside them is a load's */
    unsigned L;                     /* the model's lanes (the rows of its lane arrays) */
    struct ports_lanes lanes;
    uint16_t snap[64];              /* each port's waiting uops as the current issue group started */
    int64_t group_cycle;            /* the cycle the current issue group issues in */
    unsigned group;                 /* fused uops of the current issue group so far */
    unsigned slot;                  /* the current instruction's first slot in it */
    uint8_t load_port[64];          /* the load class's ports, in order */
    unsigned n_load_ports, next_load;   /* and the index of the next one a load takes */
};

static uint64_t template_units(const struct mdl_machine *m, const struct mdl_template *t)
{
    uint64_t u = 0;
    for (unsigned k = 0; k < t->occ_count; k++)
        u |= m->occupancies[t->occ_first + k].units;
    return u;
}

struct ports *ports_new(const struct mdl_machine *m, unsigned L)
{
    if (m->port_choice == MDL_PORT_CHOICE_NONE)
        return NULL;
    struct ports *pc = alloc_zeroed(1, sizeof *pc);
    uint64_t all = 0;
    for (unsigned r = 0; r < m->n_resources; r++)
        all |= m->resources[r].units;
    pc->m = m;
    pc->n_ports = all ? 64 - (unsigned)__builtin_clzll(all) : 0;
    const struct mdl_template *load = &m->templates[m->class_default[MDL_CLASS_LOAD]];
    pc->load_units = load->cls == MDL_CLASS_LOAD ? template_units(m, load) : 0;   /* else generic's */
    for (uint64_t u = pc->load_units; u; u &= u - 1)
        pc->load_port[pc->n_load_ports++] = (uint8_t)__builtin_ctzll(u);
    pc->L = L;
    pc->lanes.L = L > 1 ? (L + PORTS_PASS - 1) / PORTS_PASS * PORTS_PASS : 1;  /* one lane: no pass */
    size_t n = (size_t)pc->n_ports * pc->lanes.L;
    pc->lanes.base = alloc_vectors(n, sizeof *pc->lanes.base);
    for (unsigned w = 0; w < CAL_WORDS; w++)
        pc->lanes.bits[w] = alloc_vectors(n, sizeof *pc->lanes.bits[w]);
    pc->lanes.scale = alloc_vectors(n, sizeof *pc->lanes.scale);
    pc->lanes.per = alloc_vectors(n, sizeof *pc->lanes.per);
    ports_clear(pc);
    return pc;
}

void ports_free(struct ports *pc)
{
    if (!pc)
        return;
    free(pc->lanes.base);
    for (unsigned w = 0; w < CAL_WORDS; w++)
        free(pc->lanes.bits[w]);
    free(pc->lanes.scale);
    free(pc->lanes.per);
    free(pc);
}

void ports_clear(struct ports *pc)
{
    size_t n = (size_t)pc->n_ports * pc->lanes.L;      /* the speeds stay */
    memset(pc->lanes.base, 0, n * sizeof *pc->lanes.base);
    for (unsigned w = 0; w < CAL_WORDS; w++)
        memset(pc->lanes.bits[w], 0, n * sizeof *pc->lanes.bits[w]);
    memset(pc->snap, 0, sizeof pc->snap);
    pc->group = pc->next_load = 0;
    pc->group_cycle = -1;
}

unsigned ports_count(const struct ports *pc) { return pc ? pc->n_ports : 0; }

const struct ports_lanes *ports_lanes(const struct ports *pc) { return &pc->lanes; }

void ports_lane_scale(struct ports *pc, const double *res_scale, unsigned l)
{
    const struct mdl_machine *m = pc->m;
    unsigned L = pc->L, row = pc->lanes.L;
    for (unsigned p = 0; p < pc->n_ports; p++) {
        double s = 1;
        for (unsigned r = 0; r < m->n_resources; r++)
            if (!m->resources[r].is_group && (m->resources[r].units >> p & 1) && res_scale[(size_t)r * L + l] < s)
                s = res_scale[(size_t)r * L + l];
        pc->lanes.scale[(size_t)p * row + l] = s;
        pc->lanes.per[(size_t)p * row + l] = s > 0 ? 1 / s : 0;
    }
}

void ports_copy_lane(struct ports *pc, unsigned from, unsigned to)
{
    unsigned L = pc->lanes.L;
    for (unsigned p = 0; p < pc->n_ports; p++) {
        size_t c = (size_t)p * L + to, f = (size_t)p * L + from;
        pc->lanes.base[c] = pc->lanes.base[f];
        for (unsigned w = 0; w < CAL_WORDS; w++)
            pc->lanes.bits[w][c] = pc->lanes.bits[w][f];
    }
}

uint64_t ports_units(const struct ports *pc, const struct mdl_template *t) { return template_units(pc->m, t); }

/* How many uops an occupancy is: one on a single unit, however many cycles; else its count,
 * rounded as lround would (the sum is exact in a double; libm's call would be code of the baseline
 * ISA inside the model's vector clones, which choose ports as lane 0 steps). */
static unsigned occ_uops(const struct mdl_occupancy *o)
{
    return !(o->units & (o->units - 1)) ? 1u : (unsigned)((o->count > 1 ? (double)o->count : 1.0) + 0.5);
}

bool ports_places(const struct ports *pc, const struct mdl_template *t)
{
    unsigned total = 0;
    for (unsigned k = 0; pc && k < t->occ_count; k++) {
        const struct mdl_occupancy *o = &pc->m->occupancies[t->occ_first + k];
        if (o->count > PORTS_MAX_HOLD)
            return false;
        total += occ_uops(o);
    }
    return total > 0 && total <= PORTS_MAX_UOPS;
}

/* ---- the choice ----------------------------------------------------------------------------- */

/* The least loaded port of UNITS other than SKIP (-1: none), the higher-numbered on a tie. */
static int least_loaded(const uint16_t *load, uint64_t units, int skip)
{
    int best = -1;
    for (uint64_t u = units; u; u &= u - 1) {
        int p = __builtin_ctzll(u);
        if (p != skip && (best < 0 || load[p] <= load[best]))
            best = p;
    }
    return best;
}

static unsigned next_load_port(struct ports *pc)
{
    unsigned p = pc->load_port[pc->next_load];
    pc->next_load = (pc->next_load + 1) % pc->n_load_ports;
    return p;
}

static unsigned choose_one(struct ports *pc, uint64_t units, unsigned slot)
{
    if (units == pc->load_units)
        return next_load_port(pc);
    int first = least_loaded(pc->snap, units, -1);
    if (slot % 2 == 0 || !(units & (units - 1)))
        return (unsigned)first;
    int second = least_loaded(pc->snap, units, first);
    return pc->snap[second] >= pc->snap[first] + 3 ? (unsigned)first : (unsigned)second;
}

/* The bits set in X. The baseline ISA has no popcnt instruction, and __builtin_popcountll is then
 * a call into libgcc (4% of block mode's baseline); the kernel's vector copies have popcnt and
 * take this for it. */
static inline unsigned bits_set(uint64_t x)
{
    x = x - (x >> 1 & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The uops port P starts from cycle K on in the baseline lane: its calendar holds them (it keeps
 * the cycle before the latest issue, ports_take). */
static unsigned waiting(const struct ports *pc, unsigned p, int64_t k)
{
    size_t c = (size_t)p * pc->lanes.L;
    int64_t off = k - pc->lanes.base[c];
    unsigned n = 0;
    if (off < 0)
        off = 0;
    for (unsigned w = 0; w < CAL_WORDS; w++, off -= 64)
        if (off < 64)
            n += bits_set(off > 0 ? pc->lanes.bits[w][c] >> off : pc->lanes.bits[w][c]);
    return n;
}

void ports_issue(struct ports *pc, double at, unsigned fused)
{
    /* a new group: the waiting uops are those started in the cycle before or later */
    int64_t c = (int64_t)(at + PORTS_EPS);
    if (c != pc->group_cycle) {
        pc->group_cycle = c;
        pc->group = 0;
        for (unsigned p = 0; p < pc->n_ports; p++)
            pc->snap[p] = (uint16_t)waiting(pc, p, c - 1);
    }
    pc->slot = pc->group;
    pc->group += fused;
}

void ports_choose(struct ports *pc, const struct mdl_template *t, bool stores, struct ports_choice *out)
{
    const struct mdl_machine *m = pc->m;
    unsigned width = m->issue_width ? m->issue_width : 1, fused = t->uops_fused ? t->uops_fused : 1;
    out->n = 0;
    for (unsigned k = 0; k < t->occ_count; k++) {
        const struct mdl_occupancy *o = &m->occupancies[t->occ_first + k];
        unsigned n = occ_uops(o);
        bool one = !(o->units & (o->units - 1));
        for (unsigned u = 0; u < n; u++) {
            unsigned slot = pc->slot + (out->n < fused ? out->n : fused - 1);
            while (slot >= width)
                slot -= width;
            unsigned p = choose_one(pc, o->units, slot);
            out->port[out->n] = (uint8_t)p;
            out->len[out->n] = one ? o->count : o->count / (float)n;
            out->when[out->n] = (o->units & ~pc->load_units) == 0 ? PORTS_AT_LOAD
                                : stores && (o->units & pc->load_units)  ? PORTS_AT_ADDRESS
                                                                         : PORTS_AT_OPERATION;
            out->n++;
        }
    }
}
