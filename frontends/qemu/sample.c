/* The sampling schedule and the estimators: cycles as the exact part's plus the rest's at the
 * measured units' rate (a ratio estimator), speed-ups as ratios of paired estimates (the delta
 * method), intervals from Student's t at the units' count. */
#include "sample.h"
#include "alloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { PHASE_START, PHASE_EXACT, PHASE_LEAD, PHASE_REST, PHASE_WARM, PHASE_PRE, PHASE_UNIT, PHASE_SKIP, PHASE_END };

/* SMARTS's proportions: units of a thousand instructions, each after about two thousand modelled
 * unmeasured (2,000 and at least four reorder buffers, plus 0 to four more drawn for each period:
 * sample_plan_fit_window; the caches and predictors are never cold: they see every instruction).
 * One unit per 20,000 instructions at first (15% modelled), the period
 * doubling every 500 units: a 10-million-instruction rest gets 500 units, a billion about 3,000
 * (0.9% modelled). The sensitivity lanes, most of the model's work, go on from their own state: a
 * lane rests in its slot from a unit's end to the next warm-up it joins, whole, as the baseline
 * rests through a skip (lanes.c). Taking the baseline's state 500 instructions into the warm-up,
 * as they did, started each in the phase the baseline's skips set, and a lane whose steady state
 * lay far from the baseline's kept it: the checksum loop's p0156 speed-up on Ice Lake read 1.100
 * (exact 1.0764) at any point of the warm-up, now 1.0764. From their own state 500 in, they read
 * the transient of their own rest instead (gemm 96's latency speed-up on Ice Lake 1.1149 to 1.1215
 * against 1.1071); warmed as long as the baseline, 1.1066 to 1.1123. Over 73 replays against
 * --exact, the top speed-up held in 70 intervals (61 before), the top five's in 320 of 365 (302),
 * their mean error 0.00080 (0.00097), the intervals 17% wider; a sampled replay of gemm 128 runs
 * 4.4% more instructions. After the first 125 periods, every lane joins one period in four, all the same
 * one (a lane that sat out a join the others took would lose its state): the baseline, whose
 * cycles are the report's, is measured in every unit, a lane's speed-up pairs its units with the
 * baseline's same ones, whose differences vary far less than either: a lane needs fewer units
 * than the cycles for an interval as narrow. Against one in two, the top speed-up's interval
 * widened 1 to 2 times (at most +-0.0068 on the test programs, chase's, from +-0.0034; gemm 320's
 * +-0.0063 from +-0.0043) and a long run took 4-5% less time. The share stays one in four as the
 * period doubles, as the baseline's stays one unit per period: doubling it with the period as
 * well gave the last epochs, which hold most of the instructions, the fewest units, and gemm 320's
 * speed-ups missed the exact ones by up to 0.0046 (0.0018 at one in four).
 * From the first unit on, every interval widened up to 2 times and two short programs' speed-ups
 * missed the exact ones in 10 of 48 lanes, against none: a short run keeps every lane, through its
 * first 125 periods, which are a stratum of their own for the lanes. Through the whole first epoch,
 * as they did, the lanes took a long run's model about as long as the three epochs after it (gemm
 * 320: 500 of its 1,085 lane units). README "Sampling" has the replays that chose it. */
struct sample_plan sample_plan_default(bool force, uint64_t period)
{
    return (struct sample_plan){ .exact = force ? 0 : SAMPLE_EXACT_DEFAULT,
                                 .period = period ? period : SAMPLE_PERIOD_DEFAULT, .warm = 2000, .rest = 0,
                                 .unit = 1000, .epoch = 500, .lanes_every = 4, .lanes_from = SAMPLE_LANES_FROM,
                                 .last = force ? 0 : SAMPLE_LAST_DEFAULT, .short_rest = force ? 0 : SAMPLE_SHORT_DEFAULT };
}

/* Why the warm-ups' lengths spread, and scale with the window. A skip leaves the model in a state
 * of its own (the window holds instructions from before it), and the state it settles into from
 * there can keep a phase set by the skip: matrix product loops whose ROB-bound overlap of
 * successive dot products repeats every two of them, in a model resumed at a skip, retire faster
 * and slower by turns, +-10% in windows of 250 steps, with the same phase after every skip for
 * 20,000 instructions and more on Ice Lake (gemm 96), and for about 3,000 on Alder Lake (gemm 128,
 * its ROB of 512) before it dies down. A unit a fixed 2,000 instructions after the skip read that
 * phase every time: gemm 96's cycles came out 1.6% to 3.1% low on Ice Lake at six first periods,
 * outside every interval, and gemm 128's 3.1% to 4.3% high on Alder Lake; the lanes, which start
 * from the baseline's state 500 in, read their own (gemm 96's latency speed-up 1.1199 against
 * 1.1071 exact on Ice Lake, gemm 96's and 128's top ones outside their intervals on Alder Lake).
 * No single length is right (from 1,000 to 20,000, gemm 96 on Ice Lake came out anywhere from
 * -3.8% to +2.7%), nor draining the model at the skip, nor a warm-up of the baseline alone spread
 * (the lanes', measured from where they join, then read theirs: gemm 128's latency speed-up on
 * Alder Lake 1.045 to 1.050 against 1.066). A warm-up whose length is drawn afresh for each
 * period, over a few times the window that sets how long the state takes to turn over, puts the
 * units at every phase; at least as long, the warm-up outlasts the transient where it dies down:
 * 2,000 and at least 4 windows, plus 0 to 4 windows (Skylake 2,000 to 2,896, Ice Lake 2,000 to
 * 3,408, Alder Lake 2,048 to 4,096, Cortex-A72 2,000 to 2,512). README "Sampling" has the replays
 * that chose it. */
void sample_plan_fit_window(struct sample_plan *plan, unsigned window)
{
    uint64_t w = (uint64_t)SAMPLE_WARM_WINDOWS * window;
    if (!plan->period)
        return;             /* exact: no warm-up */
    if (plan->warm < w && 2 * (w + plan->unit) <= plan->period)
        plan->warm = w;
    uint64_t fixed = plan->warm + plan->unit, room = plan->period > fixed ? (plan->period - fixed) / 2 : 0;
    plan->warm_spread = w < room ? w : room;
}

unsigned sample_lanes_every(const struct sample_plan *plan)
{
    return plan->lanes_every > 1 ? plan->lanes_every : 1;
}

struct sample_plan sample_plan_exact(void)
{
    return (struct sample_plan){ .exact = UINT64_MAX };
}

void sample_clock_start(struct sample_clock *c, const struct sample_plan *p)
{
    *c = (struct sample_clock){ .plan = *p, .left = 1, .phase = PHASE_START, .flags = 0, .n_spans = 1 };
    c->span[0] = (struct sample_span){ 0, p->period };
}

/* What the current period used before its skip: the lead, the wait to align, the warm-up, the unit. */
static uint64_t used_of(const struct sample_clock *c)
{
    return c->lead + c->moved + c->plan.warm + c->longer + c->plan.unit;
}

/* The skip X less what periods before took beyond their own length (DEBT), as far as X goes. */
static uint64_t repay(struct sample_clock *c, uint64_t x)
{
    uint64_t take = c->debt < x ? c->debt : x;
    c->debt -= take;
    return x - take;
}

/* The warm-up's last part, a unit long, measured as a unit is (sample_drift): none where the
 * warm-up after the lanes' rest is shorter than that. */
static uint64_t pre_of(const struct sample_clock *c)
{
    const struct sample_plan *p = &c->plan;
    return p->warm - p->rest + c->longer >= p->unit ? p->unit : 0;
}

static uint64_t phase_length(const struct sample_clock *c, unsigned phase)
{
    const struct sample_plan *p = &c->plan;
    switch (phase) {
    case PHASE_EXACT: return p->exact;
    case PHASE_LEAD: return c->lead;
    case PHASE_REST: return p->rest;
    case PHASE_WARM: return p->warm - p->rest + c->longer - pre_of(c);
    case PHASE_PRE: return pre_of(c);
    case PHASE_UNIT: return p->unit;
    case PHASE_END: return UINT64_MAX;
    default: return p->period > used_of(c) ? p->period - used_of(c) : 0;
    }
}

/* How far into period N its warm-up starts: anywhere the warm-up and unit leave room for, as a hash
 * of N says (splitmix64's finaliser), so that each unit is a random draw from its period (stratified
 * sampling, one unit a stratum). A unit at the same place of every period would start and end at the
 * same places of a loop whose length divides the period (a branch's penalty falls on the instruction
 * after it); moved by at most a unit, as they were, the units still missed whatever recurs in step
 * with the period: the checksum loop between copies (copy.x86 262144 100 5000 on Ice Lake, a copy
 * every 4.5 periods of 10,000) had its copies and loop exits always between units, +1.07% against
 * +0.08% now. Over 23 replays against --exact, 16 held the exact cycles in their intervals (mean
 * error 1.04%), now 20 (0.55%), Skylake's random branches (bx, branchy, T_br) among them; the short
 * run that such placement once made worse (branchy 100000 at a period of 10,000) reads as it did
 * (-1.39% against -1.40% on Skylake, -0.86% against -0.83% on Ice Lake). */
static uint64_t lead_of(uint64_t n, uint64_t range)
{
    uint64_t z = n + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z % range;
}

/* The periods from the next one on are PERIOD long: a span begins (while there is room for one). */
static void set_period(struct sample_clock *c, uint64_t period)
{
    if (c->n_spans == SAMPLE_MAX_SPANS)
        return;
    c->plan.period = period;
    c->span[c->n_spans++] = (struct sample_span){ c->begun, period };
}

/* The room a period leaves for its lead, beyond its longest warm-up and its unit. */
static uint64_t room_of(const struct sample_clock *c)
{
    return c->plan.period - c->plan.warm - c->plan.warm_spread - c->plan.unit;
}

/* A period begins (with its lead): the period halves if it is to (sample_clock_halve), the epoch
 * going on; else, the epoch's last period done, a new epoch begins at twice the period, or at the
 * same if it keeps it (sample_clock_keep). Each change, and each kept epoch, begins a span. */
static void begin_period(struct sample_clock *c)
{
    bool end = c->plan.epoch && c->periods == c->plan.epoch;
    if (c->halve) {
        set_period(c, c->plan.period / 2);
        c->halved++;
    } else if (end) {
        c->kept += c->keep;
        set_period(c, c->keep ? c->plan.period : c->plan.period * 2);
    }
    if (end)
        c->periods = 0, c->keep = false;
    c->halve = false;
    c->periods++;
    c->longer = c->plan.warm_spread ? lead_of(~c->begun, c->plan.warm_spread + 1) : 0;
    c->lead = lead_of(c->begun++, room_of(c) + 1);
    c->moved = 0;
}

/* The phase after the current one: after the exact part, periods of lead, warm-up, unit and skip;
 * once the end is near, the end's after the exact part, a unit, or in place of a lead or skip. */
static unsigned next_phase(const struct sample_clock *c)
{
    unsigned p = c->phase;
    if (c->ending && (p == PHASE_EXACT || p == PHASE_LEAD || p == PHASE_UNIT || p == PHASE_SKIP))
        return PHASE_END;
    return p == PHASE_START ? PHASE_EXACT : p == PHASE_SKIP ? PHASE_LEAD : p + 1;
}

/* The units a lane measured (sample_lane): all before FROM, then those with index % EVERY ==
 * FIRST. */
struct pick {
    size_t every, first, from;
};

static struct pick pick_of(const struct sample_lane *l)
{
    return l->every > 1 ? (struct pick){ l->every, l->first, l->from } : (struct pick){ 1, 0, 0 };
}

static bool picks(struct pick p, size_t u)
{
    return u < p.from || u % p.every == p.first;
}

/* The units every lane but the baseline measures under PLAN: all in the first LANES_FROM periods,
 * then one in sample_lanes_every, all the same one (sample_rec_init; the clock's lanes_in). */
static struct pick plan_pick(const struct sample_plan *plan)
{
    return (struct pick){ sample_lanes_every(plan), 0, plan->lanes_from };
}

/* The period from which the lanes take turns, where it falls inside the first epoch (0: it does
 * not): the lanes' strata are cut there. */
static uint64_t turns_cut(const struct sample_plan *plan)
{
    bool cuts = sample_lanes_every(plan) > 1 && plan->lanes_from && (!plan->epoch || plan->lanes_from < plan->epoch);
    return cuts ? plan->lanes_from : 0;
}

/* Whether the lanes join the current period (sample_rec's turns: every one of the first
 * LANES_FROM, then one in lanes_every). */
static bool lanes_in(const struct sample_clock *c)
{
    return picks(plan_pick(&c->plan), c->begun - 1);
}

/* How much further the current period's warm-up may move on to align (waits_to_align): in all,
 * SAMPLE_ALIGN_MAX or half the period's room if less, so that a period, its lead drawn over the
 * room, takes no more than its length on average (the periods keep their places). */
static uint64_t align_left(const struct sample_clock *c)
{
    uint64_t most = room_of(c) / 2;
    return (most < SAMPLE_ALIGN_MAX ? most : SAMPLE_ALIGN_MAX) - c->moved;
}

/* Whether phase NEXT, about to begin with the instruction at PC, waits for an instruction where the
 * model left off (sample.h, SAMPLE_ALIGN_MAX): a warm-up's start for the baseline's, the lanes' join
 * for theirs, once the baseline's was met or given up. Why: a loop with two steady states (Skylake's
 * port rule on branchy's data loop) stays in one in the exact run, and a model resumed anywhere fell
 * in either about half of the time: branchy 200000's exact cycles fell outside all 12 intervals of
 * two recordings at six first periods, inside all 12 once resumed where it left off (11 while a
 * wait ended at its period's room: a lead drawn near it let the model change state now and then).
 * Over 46 replays against --exact, the exact cycles fell inside 44 intervals (42), the top speed-up
 * inside 45 (44), for 1% more instructions modelled (README "Sampling"). */
static bool waits_to_align(const struct sample_clock *c, unsigned next, uint64_t pc)
{
    if (c->ending || !align_left(c))
        return false;
    if (next == PHASE_REST)
        return pc != c->resume[0];
    return next == PHASE_WARM && sample_lanes_every(&c->plan) > 1 && lanes_in(c) && pc != c->resume[1];
}

/* The next phase begins; one of no length passes at once. A phase that waits to align (above)
 * holds off for one more instruction, that of the phase before, which goes on. */
unsigned sample_turn(struct sample_clock *c, uint64_t pc)
{
    unsigned marks = 0;
    uint64_t len;
    if (c->phase == PHASE_EXACT || c->phase == PHASE_UNIT) {    /* where the model leaves off */
        c->resume[0] = pc;
        if (c->phase == PHASE_EXACT || lanes_in(c))
            c->resume[1] = pc;
    }
    do {
        marks |= c->phase == PHASE_EXACT ? SAMPLE_EXACT_END : c->phase == PHASE_UNIT ? SAMPLE_UNIT_END : 0;
        if (c->phase == PHASE_UNIT && (c->halve || (c->plan.epoch && c->periods == c->plan.epoch)))
            marks |= SAMPLE_STRATUM_END;
        unsigned next = next_phase(c);
        if (waits_to_align(c, next, pc)) {
            c->moved++;
            len = 1;
            break;
        }
        if (next == PHASE_REST)
            c->warmups++, c->resumed += pc == c->resume[0];
        c->phase = next;
        marks |= c->phase == PHASE_END ? SAMPLE_END : 0;
        if (c->phase == PHASE_LEAD)
            begin_period(c);
        marks |= c->phase == PHASE_UNIT ? SAMPLE_UNIT_START : 0;
        if (c->plan.rest || c->plan.lanes_every > 1)    /* a rest of none: they rest, and join at once */
            marks |= c->phase == PHASE_REST ? SAMPLE_REST : c->phase == PHASE_WARM ? SAMPLE_JOIN : 0;
        len = phase_length(c, c->phase);
        marks |= c->phase == PHASE_PRE && len ? SAMPLE_PRE_START : 0;
        if (c->phase == PHASE_SKIP) {   /* what the period took beyond its length is given back */
            uint64_t used = used_of(c);
            c->debt += used > c->plan.period ? used - c->plan.period : 0;
            len = repay(c, len);
        }
    } while (len == 0);
    c->left = len;
    c->flags = c->phase == PHASE_SKIP || c->phase == PHASE_LEAD ? 0 : SAMPLE_MODEL;
    return c->flags | marks;
}

unsigned sample_clock_kept(const struct sample_clock *c)
{
    return c->kept + c->keep;
}

void sample_clock_keep(struct sample_clock *c)
{
    if (c->plan.epoch && sample_clock_kept(c) < SAMPLE_KEEP_MAX)
        c->keep = true;
}

void sample_clock_halve(struct sample_clock *c)
{
    uint64_t half = c->plan.period / 2;
    if (c->halved < SAMPLE_HALVE_MAX && c->n_spans < SAMPLE_MAX_SPANS && half >= 2 * (c->plan.warm + c->plan.unit) &&
        half >= c->plan.warm + c->plan.warm_spread + c->plan.unit)
        c->halve = true;
}

/* The skip under way goes on through the next period's lead, which begin_period draws (on a copy
 * of the clock here: what it changes is the period's to change as it begins). */
uint64_t sample_clock_skip_left(const struct sample_clock *c)
{
    if (c->phase != PHASE_SKIP || c->ending)
        return c->left + (c->phase == PHASE_LEAD && !c->ending ? align_left(c) : 0);
    struct sample_clock next = *c;
    begin_period(&next);
    return c->left + next.lead + align_left(&next);
}

bool sample_clock_exact(const struct sample_clock *c)
{
    return c->phase == PHASE_START || c->phase == PHASE_EXACT;
}

void sample_clock_end(struct sample_clock *c)
{
    c->ending = true;
    if (c->phase == PHASE_LEAD || c->phase == PHASE_SKIP)
        c->left = 1;                /* the next instruction turns the clock */
}

/* Student's t at 97.5% for DF degrees of freedom (Cornish-Fisher, within 0.1% from 3 on). */
static double t975(double df)
{
    const double z = 1.959964;
    if (df < 3)
        return df < 2 ? 12.706 : 4.303;
    double z3 = z * z * z, z5 = z3 * z * z;
    return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

/* The first unit from U on, before HI, that P picks; HI if none. */
static size_t next_pick(struct pick p, size_t u, size_t hi)
{
    while (u < hi && !picks(p, u))
        u++;
    return u;
}

/* The units P picks from [LO, HI). */
static size_t picked(struct pick p, size_t lo, size_t hi)
{
    size_t n = 0;
    for (size_t u = lo; u < hi; u++)
        n += picks(p, u);
    return n;
}

/* An epoch of the rest (sample.h): its instructions, its units [LO, HI), N of them picked. */
struct stratum {
    uint64_t insns;
    size_t lo, hi, n;
};

/* A reading's units (sample_lane.unit) and what the stream knows of each (sample_stream: the time
 * only; NULL: nothing). */
struct units {
    const double *v, *known;
};

static struct units units_of(const struct sample_stream *s, const struct sample_lane *l, unsigned reading)
{
    return (struct units){ l->unit[reading], reading == SAMPLE_TIME ? s->known_unit : NULL };
}

/* Unit I's value less what is known of it: what the units sample. */
static double unknown(struct units u, size_t i)
{
    return u.known ? u.v[i] - u.known[i] : u.v[i];
}

/* What the stream knows of periods [LO, HI). */
static double known_periods(const struct sample_stream *s, size_t lo, size_t hi)
{
    double sum = 0;
    for (size_t p = lo; s->known_period && p < hi; p++)
        sum += s->known_period[p];
    return sum;
}

/* What the stream knows of stratum K of the N it has (its periods; the last has those after its
 * last unit too, but not the tail, which is measured). */
static double known(const struct sample_stream *s, const struct stratum *st, unsigned k, unsigned n)
{
    size_t hi = k + 1 == n ? s->n_periods : st[k].hi < s->n_periods ? st[k].hi : s->n_periods;
    return known_periods(s, st[k].lo, hi) - (k + 1 == n && s->n_tail ? s->known_tail : 0);
}

double sample_known(const struct sample_stream *s)
{
    return known_periods(s, 0, s->n_periods) - (s->n_tail ? s->known_tail : 0);
}

static double mean(struct units x, struct pick p, const struct stratum *st)
{
    double sum = 0;
    for (size_t u = st->lo; u < st->hi; u++)
        sum += picks(p, u) ? unknown(x, u) : 0;
    return st->n ? sum / (double)st->n : 0;
}

/* Events of stratum K of the N (its periods, the tail's left out of the last), per unit. */
static void stratum_events(const struct sample_stream *s, const struct stratum *st, unsigned k, unsigned n,
                           double *per_unit)
{
    size_t lo = st[k].lo < s->n_event_periods ? st[k].lo : s->n_event_periods;
    const struct sample_events *from = lo < s->n_event_periods ? &s->event_at[lo] : &s->event_end;
    const struct sample_events *to = k + 1 == n || st[k].hi >= s->n_event_periods ? &s->event_end : &s->event_at[st[k].hi];
    double units = (double)st[k].insns / (double)s->plan.unit;
    for (unsigned e = 0; e < SAMPLE_EVENTS; e++) {
        double sum = to->n[e] - from->n[e] - (k + 1 == n && s->n_tail ? s->event_tail.n[e] : 0);
        per_unit[e] = units > 0 ? sum / units : 0;
    }
}

/* The fewest picked units of a stratum whose events move its mean: fewer, the slope is too loose. */
enum { MIN_REGRESSION_UNITS = 50 };

/* A stratum's regression (stratum_mean): the slope B of X's unknown part on the units' events, by
 * least squares over the picked units' successive differences (as the spread: covariance()), and
 * what it leaves: the residuals' variance per unit (SE2) and Z, (D'D)^-1 times the events the
 * stratum has more of per unit than its units (MORE), D holding the events' differences. An event
 * that moves in too few units (MIN_REGRESSION_UNITS / 5) or is a combination of the others keeps a
 * slope of 0 and no part of Z. */
struct regression {
    double b[SAMPLE_EVENTS], z[SAMPLE_EVENTS], se2;
};

/* Each event's difference from unit LAST to unit U into D; the unknown part's into *DY. */
static void differences(const struct sample_stream *s, struct units x, size_t last, size_t u, double *d, double *dy)
{
    *dy = unknown(x, u) - unknown(x, last);
    for (unsigned i = 0; i < SAMPLE_EVENTS; i++)
        d[i] = s->event_unit[u].n[i] - s->event_unit[last].n[i];
}

static void regress(const struct sample_stream *s, struct units x, struct pick p, const struct stratum *st,
                    const double *more, struct regression *g)
{
    enum { Y = SAMPLE_EVENTS, M = SAMPLE_EVENTS + 1 };     /* the columns of DY and of MORE */
    double a[SAMPLE_EVENTS][SAMPLE_EVENTS + 2] = { { 0 } };
    size_t moved[SAMPLE_EVENTS] = { 0 };
    for (size_t last = next_pick(p, st->lo, st->hi), u; (u = next_pick(p, last + 1, st->hi)) < st->hi; last = u) {
        double d[SAMPLE_EVENTS], dy;
        differences(s, x, last, u, d, &dy);
        for (unsigned i = 0; i < SAMPLE_EVENTS; i++) {
            moved[i] += d[i] != 0;
            for (unsigned j = 0; j < SAMPLE_EVENTS; j++)
                a[i][j] += d[i] * d[j];
            a[i][Y] += d[i] * dy;
        }
    }
    bool used[SAMPLE_EVENTS];
    double diag[SAMPLE_EVENTS];
    for (unsigned i = 0; i < SAMPLE_EVENTS; i++) {
        used[i] = moved[i] >= MIN_REGRESSION_UNITS / 5;
        diag[i] = a[i][i];
        a[i][M] = more[i];
    }
    /* Gauss-Jordan on the events used; a pivot that vanishes against its diagonal drops its event */
    unsigned k = 0;
    for (unsigned i = 0; i < SAMPLE_EVENTS; i++) {
        if (!used[i] || !(a[i][i] > 1e-9 * diag[i]) || !(diag[i] > 0)) {
            used[i] = false;
            continue;
        }
        k++;
        for (unsigned r = 0; r < SAMPLE_EVENTS; r++) {
            if (r == i || !used[r])
                continue;
            double f = a[r][i] / a[i][i];
            for (unsigned c = 0; c <= M; c++)
                a[r][c] -= f * a[i][c];
        }
    }
    for (unsigned i = 0; i < SAMPLE_EVENTS; i++) {
        g->b[i] = used[i] ? a[i][Y] / a[i][i] : 0;
        g->z[i] = used[i] ? a[i][M] / a[i][i] : 0;
    }
    /* the residuals' differences: twice a unit's variance, over the degrees of freedom left */
    double sum = 0;
    for (size_t last = next_pick(p, st->lo, st->hi), u; (u = next_pick(p, last + 1, st->hi)) < st->hi; last = u) {
        double d[SAMPLE_EVENTS], dy;
        differences(s, x, last, u, d, &dy);
        for (unsigned i = 0; i < SAMPLE_EVENTS; i++)
            dy -= g->b[i] * d[i];
        sum += dy * dy;
    }
    g->se2 = st->n > k + 1 ? sum / (2.0 * (double)(st->n - 1 - k)) : 0;
}

/* The covariance of a unit's X and Y over a stratum's picked units, from successive differences
 * (Wolter's estimator for a systematic sample): a program's phases (start-up, then a kernel) are
 * trends, not spread, and the units of one period apart see the same phase but at its ends. */
static double covariance(struct units x, struct units y, struct pick p, const struct stratum *st)
{
    double sum = 0;
    for (size_t last = next_pick(p, st->lo, st->hi), u; (u = next_pick(p, last + 1, st->hi)) < st->hi; last = u)
        sum += (unknown(x, u) - unknown(x, last)) * (unknown(y, u) - unknown(y, last));
    return st->n > 1 ? sum / (2.0 * (double)(st->n - 1)) : 0;
}

bool sample_keeps_period(const double *unit, const double *known, size_t n)
{
    struct units u = { unit, known };
    struct pick every = { 1, 0, 0 };
    struct stratum all = { .lo = 0, .hi = n, .n = n };
    double m = mean(u, every, &all);
    return n >= 2 && m > 0 && 1.96 * sqrt(covariance(u, u, every, &all) / (double)n) > SAMPLE_KEEP_WIDTH * m;
}

/* The rest's epochs as strata, with the units P picks: EPOCH periods each, from the start of each
 * span of one period's length (sample_span) on, the last cut short where the span ends, and for a
 * lane that takes turns the first where the turns begin (turns_cut); one with
 * fewer than two of them joins the one before (the last, cut short), or the first the one after it,
 * so that each has a spread. Returns their number. */
static unsigned strata(const struct sample_stream *s, struct pick pk, struct stratum *out)
{
    const struct sample_plan *p = &s->plan;
    uint64_t left = s->n_rest - s->n_tail, period = p->period, at = 0;    /* AT: the periods before it */
    size_t unit = 0;
    unsigned k = 0, sp = 0;         /* strata made, the span they are in */
    while (left && k < SAMPLE_MAX_STRATA) {
        uint64_t periods = p->epoch ? p->epoch : UINT64_MAX;
        if (s->span) {
            while (sp + 1 < s->n_spans && s->span[sp + 1].from <= at)
                sp++;
            period = s->span[sp].period;
            if (sp + 1 < s->n_spans && s->span[sp + 1].from - at < periods)
                periods = s->span[sp + 1].from - at;
        }
        if (pk.every > 1 && at < turns_cut(p) && turns_cut(p) - at < periods)
            periods = turns_cut(p) - at;
        bool cut = periods != UINT64_MAX && periods <= (left - 1) / period && k + 1 < SAMPLE_MAX_STRATA;
        uint64_t insns = cut ? periods * period : left;
        size_t n = !cut || s->n_units - unit < periods ? s->n_units - unit : (size_t)periods;
        size_t m = picked(pk, unit, unit + n);
        if (k && (m < 2 || out[k - 1].n < 2)) {
            out[k - 1].insns += insns;
            out[k - 1].hi = unit + n;
            out[k - 1].n += m;
        } else {
            out[k++] = (struct stratum){ insns, unit, unit + n, m };
        }
        unit += n;
        left -= insns;
        at += periods;
        period *= s->span || !p->epoch || at % p->epoch ? 1 : 2;   /* without spans: doubling every epoch */
    }
    return k;
}

bool sample_too_wide(const struct sample_clock *c, const double *unit, const double *known, size_t n,
                     uint64_t n_exact, uint64_t ahead, uint64_t period)
{
    uint64_t insns = 0;             /* of the first N periods */
    for (unsigned i = 0; i < c->n_spans && c->span[i].from < n; i++) {
        uint64_t to = i + 1 < c->n_spans && c->span[i + 1].from < n ? c->span[i + 1].from : n;
        insns += (to - c->span[i].from) * c->span[i].period;
    }
    struct sample_stream s = { .plan = c->plan, .span = c->span, .n_spans = c->n_spans, .n_rest = insns,
                               .n_units = n };
    struct pick every = { 1, 0, 0 };
    struct stratum st[SAMPLE_MAX_STRATA];
    unsigned k = n >= 2 ? strata(&s, every, st) : 0;
    struct units whole = { unit, NULL }, rest = { unit, known };
    double cycles = 0, var = 0, m = 0, spread = 0;
    for (unsigned i = 0; i < k; i++) {
        double units = (double)st[i].insns / (double)c->plan.unit, nk = (double)st[i].n;
        double fpc = nk < units ? 1 - nk / units : 0;
        m = mean(whole, every, &st[i]);
        spread = covariance(rest, rest, every, &st[i]);
        cycles += units * m;
        var += nk > 0 ? units * units * fpc * spread / nk : 0;
    }
    /* the exact part at the units' rate; AHEAD periods more of PERIOD, each a stratum of one unit,
     * as the last stratum's */
    double per = (double)period / (double)c->plan.unit;
    cycles += insns ? cycles * (double)n_exact / (double)insns : 0;
    cycles += (double)ahead * per * m;
    var += (double)ahead * per * per * (1 - 1 / per) * spread;
    return cycles > 0 && 1.96 * sqrt(var) > SAMPLE_WIDTH_AIM * cycles;
}

/* Whether stratum K's mean is moved by its events (stratum_mean). */
static bool regresses(const struct sample_stream *s, const struct stratum *st, unsigned k)
{
    return s->event_unit && s->event_at && st[k].n >= MIN_REGRESSION_UNITS;
}

/* Stratum K's (of N) mean of X over the units PK picks, moved by the events (sample_stream) its
 * stratum has more or less of than those units, at the units' slope (a regression estimator);
 * with VAR, the mean's variance: the residuals' over the units, and the slope's own uncertainty
 * at the stratum's difference in events, 2 se2 MORE' (D'D)^-1 MORE (the differences' D'D is twice
 * the centred events' cross-products). Without events or with fewer than MIN_REGRESSION_UNITS
 * units: the plain mean (and no variance: the caller takes covariance()). */
static double stratum_mean(const struct sample_stream *s, struct units x, struct pick pk, const struct stratum *st,
                           unsigned k, unsigned n, double *var)
{
    double m = mean(x, pk, &st[k]);
    if (var)
        *var = 0;
    if (!regresses(s, st, k))
        return m;
    double pop[SAMPLE_EVENTS], more[SAMPLE_EVENTS];
    stratum_events(s, st, k, n, pop);
    for (unsigned e = 0; e < SAMPLE_EVENTS; e++) {
        double sum = 0;
        for (size_t u = st[k].lo; u < st[k].hi; u++)
            sum += picks(pk, u) ? s->event_unit[u].n[e] : 0;
        more[e] = pop[e] - sum / (double)st[k].n;
    }
    struct regression g;
    regress(s, x, pk, &st[k], more, &g);
    double slope_var = 0;
    for (unsigned e = 0; e < SAMPLE_EVENTS; e++) {
        m += g.b[e] * more[e];
        slope_var += more[e] * g.z[e];
    }
    if (var) {
        double units = (double)st[k].insns / (double)s->plan.unit, nk = (double)st[k].n;
        double fpc = nk < units ? 1 - nk / units : 0;
        *var = fpc * g.se2 / nk + 2 * g.se2 * (slope_var > 0 ? slope_var : 0);
    }
    return m;
}

/* The rest's READING of lane L at the units' rate, stratum by stratum, over the units PK picks,
 * and the tail's; with no unit, at the exact part's. */
static double rest(const struct sample_stream *s, struct pick pk, const struct sample_lane *l, unsigned reading)
{
    if (!s->n_units && s->n_tail)
        return (double)s->n_rest * l->tail[reading] / (double)s->n_tail;
    if (!s->n_units)
        return s->n_exact ? (double)s->n_rest * l->exact[reading] / (double)s->n_exact : 0;
    struct stratum st[SAMPLE_MAX_STRATA];
    unsigned k = strata(s, pk, st);
    double sum = s->n_tail ? l->tail[reading] : 0;
    for (unsigned i = 0; i < k; i++)
        sum += (st[i].n ? (double)st[i].insns * stratum_mean(s, units_of(s, l, reading), pk, st, i, k, NULL) /
                              (double)s->plan.unit : 0) +
               (reading == SAMPLE_TIME ? known(s, st, i, k) : 0);
    return sum;
}

/* How much narrower than the units' own spread the events may make a stratum's interval: the
 * regression fits one slope through phases whose misses cost differently (overlapped or not), an
 * error its residuals do not show. Against --exact (README, "Sampling"), the regression's own
 * variance left the exact cycles outside in 5 replays of 54 (z to -2.7); bounded at half the
 * units' spread, in none. */
enum { EVENTS_NARROW_AT_MOST = 2 };

/* The covariance of the rest's estimates from units X and Y (those PK picks): each stratum's, its
 * units a sample of its population of units (the finite population correction), summed. With
 * MOVED (X is Y), the variance of the estimate as it is made: a stratum moved by its events
 * (stratum_mean) takes the regression's variance, no less than EVENTS_NARROW_AT_MOST allows. DF:
 * the degrees of freedom. */
static double rest_covariance(const struct sample_stream *s, struct pick pk, struct units x, struct units y,
                              bool moved, double *df)
{
    struct stratum st[SAMPLE_MAX_STRATA];
    unsigned k = strata(s, pk, st);
    double v = 0;
    *df = 0;
    for (unsigned i = 0; i < k; i++) {
        if (st[i].n < 2)
            continue;
        double units = (double)st[i].insns / (double)s->plan.unit, n = (double)st[i].n;
        double fpc = n < units ? 1 - n / units : 0;
        double var = fpc / n * covariance(x, y, pk, &st[i]), by_events;
        if (moved && regresses(s, st, i)) {
            stratum_mean(s, x, pk, st, i, k, &by_events);
            var = fmax(by_events, var / (EVENTS_NARROW_AT_MOST * EVENTS_NARROW_AT_MOST));
        }
        v += units * units * var;
        *df += n - 1;
    }
    return v;
}

/* The reading that gives the lane's cycles: the larger estimate. */
static unsigned binding(const struct sample_stream *s, struct pick pk, const struct sample_lane *l)
{
    return l->exact[SAMPLE_ASYNC] + rest(s, pk, l, SAMPLE_ASYNC) > l->exact[SAMPLE_TIME] + rest(s, pk, l, SAMPLE_TIME)
               ? SAMPLE_ASYNC : SAMPLE_TIME;
}

unsigned sample_strata(const struct sample_stream *s, const struct sample_lane *base, size_t *hi, double *est)
{
    if (!s->n_units)
        return 0;
    struct pick pk = pick_of(base);
    struct stratum st[SAMPLE_MAX_STRATA];
    unsigned n = strata(s, pk, st), k = binding(s, pk, base);
    for (unsigned i = 0; i < n; i++) {
        hi[i] = st[i].hi;
        est[i] = st[i].n ? (double)st[i].insns * stratum_mean(s, units_of(s, base, k), pk, st, i, n, NULL) /
                               (double)s->plan.unit : 0;
    }
    return n;
}

/* Why the drift widens the intervals. The units' spread measures where the units fall, not how
 * far from its steady state a warm-up left the model: a matrix product's ROB-bound overlap takes
 * longer than 2,000 instructions to settle on Ice Lake and Alder Lake (the comment on
 * sample_plan_fit_window), and then every unit errs the same way. The warm-up's last unit-long
 * part, measured as a unit is, shows it: where the warm-up is long enough, the part and the unit
 * after it are alike but for where they fall, and their difference averages to nothing; where the
 * transient lasts, it does not, and the unit, a part further on, may still be off by as much.
 * What the reader knows (the strings' cycles) is left out of both, as of the units. Over 58 replays
 * against --exact (reduction, matrix products, pointer chase, random branches, stencil, misses
 * and copies, PIE and AArch64 dynamic builds, on the four cores, at periods of 10,000 and the
 * default), the exact cycles fell outside 5 intervals, 4 of them at 10,000 where the warm-ups
 * drifted one way: gemm 112 -0.71% (drift +0.76% +-0.33%) on Ice Lake and -0.70% (+2.54% +-0.60%)
 * on Alder Lake, a pointer chase over 1 MiB -0.67% on Skylake (+0.47% +-0.23%), a stencil -0.67% on
 * the Cortex-A72 (+1.11% +-0.57%), in intervals of +-0.3% to +-0.6%. Widened by the drift beyond its
 * standard error, 2 fall outside: the chase on Skylake (-0.67% in +-0.58%), and one whose drift is
 * in its noise (-1.12% in +-1.06%, drift +0.37% +-0.52%: the 5% a 95% interval leaves). 7 of the 58
 * widened, by 0.24% to 1.94%; none grew wider than 5%. */
static double drift_of(const struct sample_stream *s, size_t u)
{
    double d = s->drift_unit[u];
    return s->known_pre && s->known_unit ? d - s->known_pre[u] + s->known_unit[u] : d;
}

/* The drift of N strata ST, and its variance (*VAR): each stratum's mean over its units that
 * measured one, the variance from their successive differences (as covariance()). */
static double drift_over(const struct sample_stream *s, const struct stratum *st, unsigned n, double *var)
{
    double bias = 0;
    *var = 0;
    for (unsigned k = 0; k < n; k++) {
        double sum = 0, sq = 0, last = NAN;
        size_t m = 0;
        for (size_t u = st[k].lo; u < st[k].hi; u++) {
            double d = drift_of(s, u);
            if (isnan(d))
                continue;
            sum += d, m++;
            sq += isnan(last) ? 0 : (d - last) * (d - last);
            last = d;
        }
        double w = (double)st[k].insns / (double)s->plan.unit;
        bias += m ? w * sum / (double)m : 0;
        *var += m > 1 ? w * w * sq / (2.0 * (double)(m - 1)) / (double)m : 0;
    }
    return bias;
}

double sample_drift(const struct sample_stream *s, double *se)
{
    double var = 0, bias = 0;
    if (s->drift_unit && s->n_units) {
        struct stratum st[SAMPLE_MAX_STRATA];
        bias = drift_over(s, st, strata(s, (struct pick){ 1, 0, 0 }, st), &var);
    }
    if (se)
        *se = sqrt(var);
    return bias;
}

/* The interval's widening: what of the drift its standard error does not account for, where the
 * drift is more than DRIFT_NOISE standard errors (less, the units' own noise: python3's dictionary,
 * whose units are led by runs of misses to memory, drifts +0.66% +-1.52%). */
#define DRIFT_NOISE 1.5
double sample_drift_widening(const struct sample_stream *s)
{
    double se, d = fabs(sample_drift(s, &se));
    return d > DRIFT_NOISE * se ? d - se : 0;
}

/* Lane L's cycles from the units PK picks. */
static struct sample_estimate cycles_from(const struct sample_stream *s, struct pick pk, const struct sample_lane *l)
{
    unsigned k = binding(s, pk, l);
    struct units u = units_of(s, l, k);
    double r = rest(s, pk, l, k), c = l->exact[k] + r, half, df;
    double v = rest_covariance(s, pk, u, u, true, &df);
    if (!s->n_units && s->n_tail == s->n_rest)
        half = 0;                   /* every instruction of the rest was modelled */
    else if (df < 1)
        half = r;                   /* no spread known: the rest may be nothing or twice its estimate */
    else
        half = t975(df) * sqrt(v) + (k == SAMPLE_TIME ? sample_drift_widening(s) : 0);
    return (struct sample_estimate){ c, c - half > l->exact[k] ? c - half : l->exact[k], c + half };
}

size_t sample_lane_units(const struct sample_stream *s, const struct sample_lane *l)
{
    return picked(pick_of(l), 0, s->n_units);
}

struct sample_estimate sample_cycles(const struct sample_stream *s, const struct sample_lane *l)
{
    return cycles_from(s, pick_of(l), l);
}

struct sample_estimate sample_speedup(const struct sample_stream *s, const struct sample_lane *base,
                                      const struct sample_lane *lane)
{
    struct pick pk = pick_of(lane);
    unsigned k0 = binding(s, pk, base), k1 = binding(s, pk, lane);
    double c0 = base->exact[k0] + rest(s, pk, base, k0), c1 = lane->exact[k1] + rest(s, pk, lane, k1);
    double sp = c1 > 0 ? c0 / c1 : 1, df;
    struct units u0 = units_of(s, base, k0), u1 = units_of(s, lane, k1);
    double v0 = rest_covariance(s, pk, u0, u0, false, &df), v1 = rest_covariance(s, pk, u1, u1, false, &df);
    double v01 = rest_covariance(s, pk, u0, u1, false, &df);
    if (df < 1 || !(c0 > 0) || !(c1 > 0)) {
        struct sample_estimate b = cycles_from(s, pk, base), l = cycles_from(s, pk, lane);
        return (struct sample_estimate){ sp, l.high > 0 ? b.low / l.high : sp, l.low > 0 ? b.high / l.low : sp };
    }
    double var = sp * sp * (v0 / (c0 * c0) + v1 / (c1 * c1) - 2 * v01 / (c0 * c1));
    double half = t975(df) * sqrt(var > 0 ? var : 0);
    return (struct sample_estimate){ sp, sp - half, sp + half };
}

struct sample_estimate sample_lane_cycles(const struct sample_stream *s, const struct sample_lane *base,
                                          const struct sample_lane *lane)
{
    if (pick_of(lane).every == 1)
        return sample_cycles(s, lane);
    struct sample_estimate b = sample_cycles(s, base), sp = sample_speedup(s, base, lane);
    if (!(sp.cycles > 0))
        return sample_cycles(s, lane);
    return (struct sample_estimate){ b.cycles / sp.cycles, sp.high > 0 ? b.low / sp.high : b.low / sp.cycles,
                                     sp.low > 0 ? b.high / sp.low : b.high / sp.cycles };
}

/* ---- what the model read at the marks ---------------------------------------------------------- */

void sample_rec_init(struct sample_rec *r, unsigned n_lanes, bool baseline, const struct sample_plan *plan)
{
    *r = (struct sample_rec){ .n_lanes = n_lanes, .baseline = baseline, .parked = n_lanes, .hand_at = n_lanes,
                              .pre_at = NAN };
    r->at_start = alloc_zeroed((size_t)n_lanes * SAMPLE_READINGS, sizeof *r->at_start);
    r->at_end = alloc_zeroed((size_t)n_lanes * SAMPLE_READINGS, sizeof *r->at_end);
    r->lane = alloc_zeroed(n_lanes, sizeof *r->lane);
    r->resting = alloc_zeroed(n_lanes, sizeof *r->resting);
    r->turn = alloc_zeroed(n_lanes, sizeof *r->turn);
    if (baseline && plan->epoch) {
        r->cap_published = plan->epoch * 64;     /* enough for the periods' rules (run.c) */
        r->published = alloc_zeroed(r->cap_published, sizeof *r->published);
    }
    /* every lane joins period P when P < FROM or P % K is 0: all in the same periods, so that each
     * goes on from its own state (a lane that sat out a join the others took would lose it) */
    struct pick pk = plan_pick(plan);
    for (unsigned l = 1; l < n_lanes; l++)
        r->lane[l] = (struct sample_lane){ .every = pk.every, .first = pk.first, .from = pk.from };
}

void sample_rec_free(struct sample_rec *r)
{
    for (unsigned l = 0; r->lane && l < r->n_lanes; l++)
        for (unsigned k = 0; k < SAMPLE_READINGS; k++)
            free(r->lane[l].unit[k]);
    free(r->lane);
    free(r->at_start);
    free(r->at_end);
    free(r->resting);
    free(r->turn);
    free(r->published);
    free(r->drift);
    free(r->at_exact.charge);
    for (size_t e = 0; e < r->n_epochs; e++)
        free(r->at_epoch[e].charge);
    free(r->at_epoch);
    free(r->epoch_units);
    free(r->at_tail.charge);
    memset(r, 0, sizeof *r);
}

void sample_rec_park(struct sample_rec *r, unsigned from)
{
    r->parked = from;
    for (unsigned l = from; l < r->n_lanes; l++)
        r->resting[l] = true;
}

void sample_rec_hand_at(struct sample_rec *r, unsigned from)
{
    r->hand_at = from;
}

size_t sample_rec_published(struct sample_rec *r)
{
    return atomic_load_explicit(&r->n_published, memory_order_acquire);
}

void sample_rec_graft(struct sample_rec *r, unsigned l, const struct sample_rec *from, unsigned k)
{
    size_t n = from->n_units < r->n_units ? from->n_units : r->n_units;
    memcpy(r->lane[l].exact, from->lane[k].exact, sizeof r->lane[l].exact);
    for (unsigned j = 0; j < SAMPLE_READINGS && n; j++)
        memcpy(r->lane[l].unit[j], from->lane[k].unit[j], n * sizeof *r->lane[l].unit[j]);
}

/* Room for one more unit in every lane. */
static void room_for_unit(struct sample_rec *r)
{
    if (r->n_units < r->cap_units)
        return;
    r->cap_units = r->cap_units ? 2 * r->cap_units : 1024;
    r->drift = alloc_resize(r->drift, r->cap_units, sizeof *r->drift);
    for (unsigned l = 0; l < r->n_lanes; l++)
        for (unsigned k = 0; k < SAMPLE_READINGS; k++)
            r->lane[l].unit[k] = alloc_resize(r->lane[l].unit[k], r->cap_units, sizeof *r->lane[l].unit[k]);
}

static void readings(const struct rt_model *md, unsigned lane, double *out)
{
    out[SAMPLE_TIME] = rt_model_time(md, lane);
    out[SAMPLE_ASYNC] = rt_model_async_bound(md, lane);
}

/* MD's baseline now, into S (its charges' array reused). */
static void snap_take(struct sample_snap *s, const struct rt_model *md)
{
    const double *c = rt_model_charges(md, &s->n_charge);
    s->time = rt_model_time(md, 0);
    s->charge = alloc_resize(s->charge, s->n_charge ? s->n_charge : 1, sizeof *s->charge);
    memcpy(s->charge, c, s->n_charge * sizeof *c);
    rt_model_topdown(md, false, &s->slots);
}

/* The exact part's end: each lane's readings, and the baseline's charges and slots, from which
 * the sampled part's are told apart. */
static void read_exact(struct sample_rec *r, const struct rt_model *md)
{
    for (unsigned l = 0; l < r->n_lanes; l++) {
        readings(md, l, r->lane[l].exact);
        memcpy(&r->at_end[l * SAMPLE_READINGS], r->lane[l].exact, sizeof r->lane[l].exact);
    }
    if (r->baseline)
        snap_take(&r->at_exact, md);
}

/* A unit ends: how far each reading of each lane moved since it started. */
static void read_unit(struct sample_rec *r, const struct rt_model *md)
{
    room_for_unit(r);
    for (unsigned l = 0; l < r->n_lanes; l++) {
        double now[SAMPLE_READINGS];
        readings(md, l, now);
        for (unsigned k = 0; k < SAMPLE_READINGS; k++) {
            r->lane[l].unit[k][r->n_units] = now[k] - r->at_start[l * SAMPLE_READINGS + k];
            r->at_end[l * SAMPLE_READINGS + k] = now[k];
        }
    }
    /* NaN without a part measured before the unit */
    r->drift[r->n_units] = r->at_start[SAMPLE_TIME] - r->pre_at - r->lane[0].unit[SAMPLE_TIME][r->n_units];
    r->pre_at = NAN;
    if (r->n_units < r->cap_published) {
        r->published[r->n_units] = r->lane[0].unit[SAMPLE_TIME][r->n_units];
        atomic_store_explicit(&r->n_published, r->n_units + 1, memory_order_release);
    }
    r->n_units++;
}

/* A stratum ended with the unit just read: the baseline's snapshot there, and the units before it. */
static void read_stratum_end(struct sample_rec *r, const struct rt_model *md)
{
    if (!r->baseline || r->n_epochs == SAMPLE_MAX_STRATA)
        return;
    r->at_epoch = alloc_resize(r->at_epoch, r->n_epochs + 1, sizeof *r->at_epoch);
    r->epoch_units = alloc_resize(r->epoch_units, r->n_epochs + 1, sizeof *r->epoch_units);
    r->at_epoch[r->n_epochs] = (struct sample_snap){ 0 };
    r->epoch_units[r->n_epochs] = r->n_units;
    snap_take(&r->at_epoch[r->n_epochs++], md);
}

/* The tail, modelled after the last unit: how far it moved each reading. A lane that rests moved
 * the baseline's way; one that joined since the last unit, the baseline's way until then and its
 * own since (join); one stepped since the last unit, its own way from its readings then. */
static void read_tail(struct sample_rec *r, const struct rt_model *md)
{
    for (unsigned l = 0; l < r->n_lanes; l++) {
        double now[SAMPLE_READINGS];
        readings(md, r->resting[l] ? 0 : l, now);
        const double *from = &r->at_end[(r->resting[l] ? 0 : l) * SAMPLE_READINGS];
        for (unsigned k = 0; k < SAMPLE_READINGS; k++)
            r->lane[l].tail[k] = now[k] - from[k];
    }
}

/* The period that begins: which lanes join it. */
static const bool *turns(struct sample_rec *r)
{
    uint64_t p = r->joins++;
    for (unsigned l = 0; l < r->n_lanes; l++)
        r->turn[l] = l < r->parked && picks(pick_of(&r->lane[l]), p);  /* the baseline's pick: every period */
    return r->turn;
}

/* The resting lanes in WHICH join, from their own state or the baseline's. Each one's readings at
 * the last unit's end become those it joins with, less what the baseline's moved since: a tail
 * (read_tail) then counts for it the baseline's cycles while it rested, as it counts its own
 * after (a lane that joins from the baseline's state takes them with it). */
static void join(struct sample_rec *r, struct rt_model *md, const bool *which)
{
    rt_model_lanes_join(md, which);
    double base[SAMPLE_READINGS];
    readings(md, 0, base);
    for (unsigned l = 1; l < r->n_lanes; l++) {
        if (!r->resting[l] || !which[l])
            continue;
        r->resting[l] = false;
        double *end = &r->at_end[l * SAMPLE_READINGS];
        readings(md, l, end);
        for (unsigned k = 0; k < SAMPLE_READINGS; k++)
            end[k] -= base[k] - r->at_end[k];
    }
}

/* The tail starts (SAMPLE_END): the baseline's cycles, charges and slots then. The report scales
 * what was modelled before to the sampled rest and adds the tail's as measured: scaled with the
 * rest, a chase of 4,000 steps ending a run of 35M instructions read ten times its cycles. */
static void read_tail_start(struct sample_rec *r, const struct rt_model *md)
{
    if (!r->baseline)
        return;
    r->tail = true;
    snap_take(&r->at_tail, md);
}

/* The end phase begins, right after a unit or a skip (nothing modelled since the last unit): the
 * lanes resting join (from their own state, or the baseline's), so the tail counts their own
 * cycles from the readings they join with (it would count the baseline's: the end of a run of gemm
 * 96 took its latency speed-up from 1.1267 to 1.1223, the exact one 1.1255). */
static void join_for_end(struct sample_rec *r, struct rt_model *md)
{
    bool any = false;
    for (unsigned l = 0; l < r->n_lanes; l++) {
        r->turn[l] = l > 0 && l < r->parked && r->resting[l];
        any |= r->turn[l];
    }
    if (!any)
        return;
    join(r, md, r->turn);
}

void sample_rec_mark(struct sample_rec *r, struct rt_model *md, unsigned what)
{
    if (what & SAMPLE_EXACT_END)
        read_exact(r, md);
    if (what & SAMPLE_UNIT_END)
        read_unit(r, md);
    if ((what & (SAMPLE_UNIT_END | SAMPLE_STRATUM_END)) == (SAMPLE_UNIT_END | SAMPLE_STRATUM_END))
        read_stratum_end(r, md);
    if (what & SAMPLE_REST) {
        rt_model_lanes_rest(md);
        for (unsigned l = 1; l < r->n_lanes; l++)
            r->resting[l] = true;
    }
    if (what & SAMPLE_RELEASE) {
        rt_model_lanes_forget(md, r->hand_at);
        r->parked = r->n_lanes;
    }
    if (what & SAMPLE_JOIN)
        join(r, md, turns(r));
    if (what & SAMPLE_END) {
        read_tail_start(r, md);
        join_for_end(r, md);
    }
    if (what & SAMPLE_PRE_START)
        r->pre_at = rt_model_time(md, 0);
    if (what & SAMPLE_UNIT_START)
        for (unsigned l = 0; l < r->n_lanes; l++)
            readings(md, l, &r->at_start[l * SAMPLE_READINGS]);
    if (what & SAMPLE_TAIL_END)
        read_tail(r, md);
}
