/* Port choice and per-port busy cycles (ports.h). The rule is the one uiCA found in Intel's
 * schedulers (Abel and Reineke, 2022): as an issue cycle starts, each port counts the uops given
 * to it that have not yet started (or started in the cycle before); of the uops issued in that
 * cycle, one at an even slot takes the least loaded port it may use, one at an odd slot the
 * second least loaded unless that one has three uops more; ties go to the higher-numbered port;
 * loads take the load ports in turn. The baseline lane (lane 0) chooses, as it issues and from
 * when its uops start; every lane runs its choices, so that a sensitivity lane asks how much
 * faster the same schedule is with one resource faster, whatever other lanes run beside it. */
#include "ports.h"
#include <math.h>
#include <stdlib.h>

/* Lane 0's uops that have not yet started, per port: a count per cycle in which each stops
 * counting, in a ring from the current issue cycle on (a uop that waits longer counts in its
 * last place: it waits behind a miss, and a few cycles more or less of counting change
 * nothing). */
enum { WAIT_RING = 64 };

/* A uop counts until COUNT_AFTER cycles after it starts (after its issue, if it starts in its
 * issue cycle). uiCA's count ends a cycle after its dispatch, at least five cycles after its
 * issue; mdlsim's uops may start as they issue, so the shift is a fit on the dev blocks: MAPE
 * against uiCA 1.30%, 1.27%, 1.26%, 1.22%, 1.27%, 1.28% for 0 to 5. */
enum { COUNT_AFTER = 3 };

struct ports {
    const struct mdl_machine *m;
    unsigned n_ports;
    uint64_t load_units;            /* the load class's units: a uop inside them is a load's */
    struct ports_lanes lanes;
    uint16_t until[64][WAIT_RING];  /* [port][cycle % WAIT_RING]: uops that stop counting then */
    uint16_t count[64];             /* uops of each port counted */
    uint16_t snap[64];              /* the counts as the current issue cycle started */
    int64_t cycle;                  /* the current issue cycle */
    unsigned next_load;             /* the load port after the last load's */
};

static void *zalloc(size_t n, size_t size)
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
    struct ports *pc = zalloc(1, sizeof *pc);
    uint64_t all = 0;
    for (unsigned r = 0; r < m->n_resources; r++)
        all |= m->resources[r].units;
    pc->m = m;
    pc->n_ports = all ? 64 - (unsigned)__builtin_clzll(all) : 0;
    const struct mdl_template *load = &m->templates[m->class_default[MDL_CLASS_LOAD]];
    pc->load_units = load->cls == MDL_CLASS_LOAD ? template_units(m, load) : 0;   /* else generic's */
    pc->lanes.L = L;
    pc->lanes.cal = zalloc((size_t)pc->n_ports * L, sizeof *pc->lanes.cal);
    pc->lanes.scale = zalloc((size_t)pc->n_ports * L, sizeof *pc->lanes.scale);
    pc->lanes.per = zalloc((size_t)pc->n_ports * L, sizeof *pc->lanes.per);
    ports_clear(pc);
    return pc;
}

void ports_free(struct ports *pc)
{
    if (!pc)
        return;
    free(pc->lanes.cal);
    free(pc->lanes.scale);
    free(pc->lanes.per);
    free(pc);
}

void ports_clear(struct ports *pc)
{
    memset(pc->lanes.cal, 0, (size_t)pc->n_ports * pc->lanes.L * sizeof *pc->lanes.cal);
    memset(pc->count, 0, sizeof pc->count);
    memset(pc->snap, 0, sizeof pc->snap);
    memset(pc->until, 0, sizeof pc->until);
    pc->cycle = 0;
    pc->next_load = 0;
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
        pc->lanes.scale[(size_t)p * L + l] = s;
        pc->lanes.per[(size_t)p * L + l] = s > 0 ? 1 / s : 0;
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
    for (unsigned k = 0; pc && k < t->occ_count; k++)
        total += occ_uops(&pc->m->occupancies[t->occ_first + k]);
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
    for (unsigned k = 0; k < 64; k++) {
        unsigned p = (pc->next_load + k) % 64;
        if (pc->load_units >> p & 1) {
            pc->next_load = p + 1;
            return p;
        }
    }
    return 0;
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

/* The issue cycle moves on to CYCLE: the uops that stopped counting before the cycle before it
 * are forgotten; the counts are taken. */
static void issue_cycle(struct ports *pc, int64_t cycle)
{
    if (cycle <= pc->cycle)
        return;
    for (unsigned p = 0; p < pc->n_ports; p++) {
        for (int64_t k = pc->cycle - 1; k < cycle - 1 && pc->count[p]; k++) {
            uint16_t *u = &pc->until[p][(uint64_t)k % WAIT_RING];
            pc->count[p] -= *u;
            *u = 0;
        }
        pc->snap[p] = pc->count[p];
    }
    pc->cycle = cycle;
}

void ports_ran(struct ports *pc, unsigned p, double start)
{
    int64_t now = pc->cycle, k = (int64_t)floor(start + PORTS_EPS);
    k = (k > now ? k : now) + COUNT_AFTER;
    if (k > now - 1 + WAIT_RING - 1)
        k = now - 1 + WAIT_RING - 1;
    pc->until[p][(uint64_t)k % WAIT_RING]++;
    pc->count[p]++;
}

void ports_choose(struct ports *pc, const struct mdl_template *t, bool stores, double d, struct ports_choice *out)
{
    const struct mdl_machine *m = pc->m;
    unsigned width = m->issue_width ? m->issue_width : 1, fused = t->uops_fused ? t->uops_fused : 1;
    int64_t cycle = (int64_t)floor(d + PORTS_EPS);
    unsigned slot0 = (unsigned)floor((d - (double)cycle) * width + PORTS_EPS);
    issue_cycle(pc, cycle);
    out->n = 0;
    for (unsigned k = 0; k < t->occ_count; k++) {
        const struct mdl_occupancy *o = &m->occupancies[t->occ_first + k];
        unsigned n = occ_uops(o);
        bool one = !(o->units & (o->units - 1));
        for (unsigned u = 0; u < n; u++) {
            unsigned f = out->n < fused ? out->n : fused - 1;
            unsigned p = choose_one(pc, o->units, (slot0 + f) % width);
            out->port[out->n] = (uint8_t)p;
            out->len[out->n] = one ? o->count : o->count / (float)n;
            out->when[out->n] = (o->units & ~pc->load_units) == 0 ? PORTS_AT_LOAD
                                : stores && (o->units & pc->load_units)  ? PORTS_AT_ADDRESS
                                                                         : PORTS_AT_OPERATION;
            out->n++;
        }
    }
}
