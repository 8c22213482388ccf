/* Port choice and per-port busy cycles (ports.h). The rule is the one uiCA found in Intel's
 * schedulers (Abel and Reineke, 2022): as an issue group of issue_width fused uops starts, each
 * port counts the uops given to it that are still waiting; in the group, a uop at an even slot
 * takes the least loaded port it may use, one at an odd slot the second least loaded unless that
 * one has three uops more; ties go to the higher-numbered port; loads take the load ports in
 * turn. The waiting uops are counted in program order, as the last RECENT uops given ports,
 * not in time: the choice is then the same in every lane, whatever other lanes run, and costs
 * one pass per instruction rather than one per lane. Counted in the baseline's time instead (as
 * uiCA counts), the dev blocks came to MAPE 1.22% against uiCA after 100 iterations but 1.36%
 * after 200 and 1.41% after 300 (the choices settled late, away from uiCA's); in program order
 * they stay at 1.35% however long the run. */
#include "ports.h"
#include <math.h>
#include <stdlib.h>

/* What a full scheduler holds of the uops given ports, about: the fit on the dev blocks (MAPE
 * against uiCA 1.52%, 1.41%, 1.35%, 1.34%, 1.44% with 32, 48, 64, 80, 97, Skylake's scheduler). */
enum { RECENT = 64 };

struct ports {
    const struct mdl_machine *m;
    unsigned n_ports;
    uint64_t load_units;            /* the load class's units: a uop inside them is a load's */
    struct ports_lanes lanes;
    uint8_t recent[RECENT];         /* the ports of the last uops, a ring */
    unsigned pos, filled;
    uint16_t count[64];             /* uops of each port among the recent ones */
    uint16_t snap[64];              /* the counts as the current issue group started */
    unsigned group;                 /* fused uops of the current issue group so far */
    uint8_t load_port[64];          /* the load class's ports, in order */
    unsigned n_load_ports, next_load;   /* and the index of the next one a load takes */
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

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
    struct ports *pc = xcalloc(1, sizeof *pc);
    uint64_t all = 0;
    for (unsigned r = 0; r < m->n_resources; r++)
        all |= m->resources[r].units;
    pc->m = m;
    pc->n_ports = all ? 64 - (unsigned)__builtin_clzll(all) : 0;
    const struct mdl_template *load = &m->templates[m->class_default[MDL_CLASS_LOAD]];
    pc->load_units = load->cls == MDL_CLASS_LOAD ? template_units(m, load) : 0;   /* else generic's */
    for (uint64_t u = pc->load_units; u; u &= u - 1)
        pc->load_port[pc->n_load_ports++] = (uint8_t)__builtin_ctzll(u);
    pc->lanes.L = L;
    pc->lanes.cal = xcalloc((size_t)pc->n_ports * L, sizeof *pc->lanes.cal);
    ports_clear(pc);
    return pc;
}

void ports_free(struct ports *pc)
{
    if (!pc)
        return;
    free(pc->lanes.cal);
    free(pc);
}

void ports_clear(struct ports *pc)
{
    for (size_t i = 0; i < (size_t)pc->n_ports * pc->lanes.L; i++) {     /* the speeds stay */
        pc->lanes.cal[i].base = 0;
        memset(pc->lanes.cal[i].bits, 0, sizeof pc->lanes.cal[i].bits);
    }
    memset(pc->count, 0, sizeof pc->count);
    memset(pc->snap, 0, sizeof pc->snap);
    pc->pos = pc->filled = pc->group = pc->next_load = 0;
}

unsigned ports_count(const struct ports *pc) { return pc ? pc->n_ports : 0; }

const struct ports_lanes *ports_lanes(const struct ports *pc) { return &pc->lanes; }

void ports_lane_scale(struct ports *pc, const double *res_scale, unsigned l)
{
    const struct mdl_machine *m = pc->m;
    unsigned L = pc->lanes.L;
    for (unsigned p = 0; p < pc->n_ports; p++) {
        double s = 1;
        for (unsigned r = 0; r < m->n_resources; r++)
            if (!m->resources[r].is_group && (m->resources[r].units >> p & 1) && res_scale[(size_t)r * L + l] < s)
                s = res_scale[(size_t)r * L + l];
        pc->lanes.cal[(size_t)p * L + l].scale = s;
        pc->lanes.cal[(size_t)p * L + l].per = s > 0 ? 1 / s : 0;
    }
}

/* How many uops an occupancy is: one on a single unit, however many cycles; else its count. */
static unsigned occ_uops(const struct mdl_occupancy *o)
{
    return !(o->units & (o->units - 1)) ? 1u : (unsigned)lround(o->count > 1 ? o->count : 1);
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

/* Port P is given a uop: it joins the recent ones, the oldest leaves. */
static void remember(struct ports *pc, unsigned p)
{
    if (pc->filled == RECENT)
        pc->count[pc->recent[pc->pos]]--;
    else
        pc->filled++;
    pc->recent[pc->pos] = (uint8_t)p;
    pc->pos = (pc->pos + 1) % RECENT;
    pc->count[p]++;
}

void ports_choose(struct ports *pc, const struct mdl_template *t, bool stores, struct ports_choice *out)
{
    const struct mdl_machine *m = pc->m;
    unsigned width = m->issue_width ? m->issue_width : 1, fused = t->uops_fused ? t->uops_fused : 1;
    if (pc->group >= width) {
        pc->group %= width;
        memcpy(pc->snap, pc->count, sizeof pc->snap);
    }
    out->n = 0;
    for (unsigned k = 0; k < t->occ_count; k++) {
        const struct mdl_occupancy *o = &m->occupancies[t->occ_first + k];
        unsigned n = occ_uops(o);
        bool one = !(o->units & (o->units - 1));
        for (unsigned u = 0; u < n; u++) {
            unsigned slot = pc->group + (out->n < fused ? out->n : fused - 1);
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
    for (unsigned u = 0; u < out->n; u++)
        remember(pc, out->port[u]);
    pc->group += t->uops_fused;
}
