/* Systematic sampling of a long stream, as SMARTS does: the first instructions are modelled in full
 * (a short run stays exact), then one unit in each period is measured in detail after a detailed
 * warm-up, and the instructions between are only warmed functionally (caches, predictors). The
 * estimate of each lane's cycles and of each speed-up carries a 95% confidence interval. */
#ifndef SAMPLE_H
#define SAMPLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include "model.h"

/* The schedule, in instructions of the region. EXACT: modelled in full first (UINT64_MAX: all of
 * them, no sampling). Then periods: WARM modelled unmeasured and 0 to WARM_SPREAD more, UNIT
 * measured, the rest of the period skipped, the warm-up starting anywhere the period leaves room
 * for; the warm-up's start and its length are hashes of the period's number. Through the first
 * REST instructions of the warm-up (at most WARM) only the baseline lane is stepped. After EPOCH
 * periods the period doubles: however long the run, the sample stays between one and a few times
 * EPOCH units (each epoch is a stratum of its own), and the share modelled falls as the run grows.
 * From period LANES_FROM on (counted from 0), the lanes but the baseline join the warm-up and unit
 * of one period in LANES_EVERY (0 or 1: every period), all the same one: the periods P where
 * P % LANES_EVERY is 0; they rest through the others (SAMPLE_REST and SAMPLE_JOIN mark where they
 * rest and join, REST 0 included). For the lanes' estimates, the first LANES_FROM periods are a
 * stratum of their own where they end inside the first epoch: the lanes sample them at another
 * rate. */
struct sample_plan {
    uint64_t exact, period, warm, warm_spread, rest, unit, epoch;
    unsigned lanes_every;
    uint64_t lanes_from;
    /* Of a whole run, the stream's last LAST instructions or more (0: none) are modelled in full too
     * (run.c tells the clock when it sees them coming: sample_clock_end), and every one when the
     * stream ends within SHORT more after them as the exact part runs: too few units to sample. */
    uint64_t last, short_rest;
};
/* The default schedule: exact for the first SAMPLE_EXACT_DEFAULT instructions and the last
 * SAMPLE_LAST_DEFAULT (with FORCE, --sample: neither), then the first period SAMPLE_PERIOD_DEFAULT
 * (PERIOD, when not 0). */
#define SAMPLE_EXACT_DEFAULT 1000000ull
#define SAMPLE_LAST_DEFAULT 100000ull
/* A whole run, or a region, whose stream ends within SHORT after them is exact (run.c, near_end):
 * 1,400,000, so that a run of about 2.5M instructions is. Sampled, the 1.5M between its exact
 * parts got 60 to 75 units, too few for their spread: gemm.x86 64 (2.35M) on Alder Lake came out in an interval 5.7% wide, reduction.x86 120000
 * (2.1M) 3.8% to 4.2% wide and 0.9% off on Ice Lake; modelled in full they take 1.3 times the
 * sampled replay's time (1.5 times its processor time). The caches' stage must see that far ahead
 * (stage_ends_within): its buffers hold about 2M words, a gemm's 3M instructions, a sort's 1.7M; a
 * stream denser than that is sampled, as any longer one. */
#define SAMPLE_SHORT_DEFAULT 1400000ull
#define SAMPLE_PERIOD_DEFAULT 20000ull
/* The lanes take turns from period SAMPLE_LANES_FROM on (sample.c says why). */
#define SAMPLE_LANES_FROM 125ull
struct sample_plan sample_plan_default(bool force, uint64_t period);
/* PLAN's warm-ups, for a machine whose reorder buffer holds WINDOW entries: SAMPLE_WARM_WINDOWS
 * times WINDOW at least, and their lengths spread over as many more (sample.c says why), as far as
 * the first period leaves room for. */
enum { SAMPLE_WARM_WINDOWS = 4 };
void sample_plan_fit_window(struct sample_plan *plan, unsigned window);
/* In how many periods each lane joins one once it takes turns, under PLAN (1: every one). */
unsigned sample_lanes_every(const struct sample_plan *plan);
struct sample_plan sample_plan_exact(void);

/* What the model does with the next instruction of the region, and the marks before it. */
enum {
    SAMPLE_MODEL = 1,               /* step it */
    SAMPLE_EXACT_END = 2,           /* the exact part ended before it: read the lanes' cycles */
    SAMPLE_UNIT_START = 4,          /* a unit starts with it: read the lanes' cycles */
    SAMPLE_UNIT_END = 8,            /* the unit ended before it: read them again */
    SAMPLE_TAIL_END = 16,           /* (run.c, at the stream's end) the instructions after the last unit,
                                       modelled once the stream ended: read them */
    SAMPLE_REST = 32,               /* a warm-up starts with it: the lanes but the baseline rest */
    SAMPLE_JOIN = 64,               /* the lanes join the baseline again before it */
    SAMPLE_RELEASE = 128,           /* (run.c, with a SAMPLE_JOIN) the parked lanes join from now on, and
                                       those from hand_at on from the baseline's state */
    SAMPLE_END = 256,               /* every instruction is modelled from it on: the resting lanes join */
    SAMPLE_STRATUM_END = 512,       /* (with SAMPLE_UNIT_END) the unit was its stratum's last */
    SAMPLE_PRE_START = 1024         /* the warm-up's last unit-long part starts with it: read the
                                       baseline's time (sample_drift) */
};

/* An epoch keeps the period of the one before, rather than doubling it, when the units of the
 * epoch before that spread too widely for half as many per instruction (sample_keeps_period); at
 * most SAMPLE_KEEP_MAX epochs keep it in a run, so that the strata stay few. And the period halves
 * for the rest of the epoch where the units so far would leave the run's interval too wide an epoch
 * from now (sample_too_wide), at most SAMPLE_HALVE_MAX times in a run and never below twice a
 * warm-up and unit (run.c, choose_period and choose_density); the next epoch doubles the halved
 * period, so that the run goes on as densely sampled as it needed. */
enum { SAMPLE_KEEP_MAX = 16, SAMPLE_HALVE_MAX = 8 };
/* The periods from period number FROM (counted from 0) on are PERIOD long, up to the next span's
 * FROM. A clock's first span starts at 0; each epoch, and each halving, starts one. */
struct sample_span {
    uint64_t from, period;
};
enum { SAMPLE_MAX_SPANS = 64 };
struct sample_clock {
    struct sample_plan plan;        /* PLAN.period: the current epoch's */
    bool keep;                      /* the next epoch keeps PLAN.period (sample_clock_keep) */
    bool halve;                     /* the next period halves it, beginning a span (sample_clock_halve) */
    unsigned kept, halved;          /* the epochs that kept the period; the times it halved */
    struct sample_span span[SAMPLE_MAX_SPANS];
    unsigned n_spans;
    uint64_t periods;               /* begun in the current epoch */
    uint64_t begun;                 /* periods begun in all */
    uint64_t lead;                  /* of the current period: skipped before its warm-up */
    uint64_t longer;                /* of the current period: its warm-up's length beyond WARM */
    uint64_t left;                  /* instructions before the phase changes */
    unsigned phase, flags;          /* flags: SAMPLE_MODEL while the phase models */
    bool ending;                    /* sample_clock_end: no skip from now on */
    /* Where the baseline ([0]) and the lanes ([1]) left off: the address of the instruction after
     * the last unit each was stepped through (or after the exact part); how far the current
     * period's warm-up moved on to meet them (sample_turn); what the periods so far took beyond
     * their length, moving on that far, given back by the next skips */
    uint64_t resume[2], moved, debt;
    uint64_t warmups, resumed;      /* warm-ups begun, and those begun where the model left off */
};
void sample_clock_start(struct sample_clock *c, const struct sample_plan *p);
/* The stream's end is near: every instruction from here on is modelled, once the exact part or the
 * unit in progress ended (a warm-up goes on to its unit); a skip ends at once. */
void sample_clock_end(struct sample_clock *c);
/* Whether the exact part (or nothing yet) is running. */
bool sample_clock_exact(const struct sample_clock *c);
/* The instructions left before the model steps again, while the sampling skips: the skip's and
 * the next period's lead (the period after it starts modelled); else those left in the phase. */
uint64_t sample_clock_skip_left(const struct sample_clock *c);
/* The next epoch keeps the current period (called while the current epoch's last period runs). */
void sample_clock_keep(struct sample_clock *c);
/* The next period halves the current one, if SAMPLE_HALVE_MAX allows and the half holds twice the
 * warm-up and unit; it begins a span (and a stratum), the epoch going on. Whether it will: the
 * unit that ends now ends a stratum (SAMPLE_STRATUM_END). */
void sample_clock_halve(struct sample_clock *c);
/* The epochs that kept the period, and the next one if it is to. */
unsigned sample_clock_kept(const struct sample_clock *c);
/* Whether units UNIT[N] (less KNOWN[N], the cycles the reader knows, where not NULL) spread too
 * widely for an epoch to take half as many per instruction: their mean's 95% half-width, from
 * their successive differences, over SAMPLE_KEEP_WIDTH of the mean. */
#define SAMPLE_KEEP_WIDTH 0.05
bool sample_keeps_period(const double *unit, const double *known, size_t n);
/* Whether the run's interval would be too wide if it ended AHEAD periods of PERIOD after the first
 * N units' periods: the 95% half-width of the cycles' estimate over SAMPLE_WIDTH_AIM of it, from
 * the units' time UNIT[N] (less KNOWN[N], the cycles the reader knows, where not NULL) in the
 * periods C's spans give them, the N_EXACT instructions before them at the units' rate (known
 * exactly: no spread), and the periods ahead as the last stratum's units. */
#define SAMPLE_WIDTH_AIM 0.025
/* Every SAMPLE_CHECK periods (an epoch, if shorter), run.c asks sample_too_wide of the units
 * before the last SAMPLE_CHECK (the model thread has measured them nearly always) whether the next
 * period halves; as an epoch's last begins, whether the next epoch may keep the period. */
enum { SAMPLE_CHECK = 50 };
bool sample_too_wide(const struct sample_clock *c, const double *unit, const double *known, size_t n,
                     uint64_t n_exact, uint64_t ahead, uint64_t period);
/* A skip is seamless where the model goes on at the instruction it left off before (the address
 * after its last unit): the model then sees a stream that ran, as if nothing had been skipped, and
 * a loop's steady state carries over. So a warm-up starts at the first instruction of that address
 * once its lead is over, and the lanes join where they left off, the baseline modelled meanwhile;
 * each moved on by at most SAMPLE_ALIGN_MAX instructions (or half the period's room, if less), else it
 * starts where it got to. The skip after the unit gives back what that took; beyond the period's
 * length, the next periods' skips do. sample.c says why. */
enum { SAMPLE_ALIGN_MAX = 1000 };
/* The phase that begins when the one before has run out, with the instruction at PC: its flags
 * (sample_tick's). */
unsigned sample_turn(struct sample_clock *c, uint64_t pc);
/* The next instruction of the region, at PC: its SAMPLE_* flags. A countdown on the way. */
static inline unsigned sample_tick(struct sample_clock *c, uint64_t pc)
{
    return --c->left ? c->flags : sample_turn(c, pc);
}

/* What was measured, for one lane, as two readings: [SAMPLE_TIME] when everything retired,
 * [SAMPLE_ASYNC] the bound of the asynchronous resources (bandwidths); a run's cycles are the larger
 * (run.c), so each is estimated apart and the larger taken. */
enum { SAMPLE_TIME, SAMPLE_ASYNC, SAMPLE_READINGS };
struct sample_lane {
    double exact[SAMPLE_READINGS];  /* at the exact part's end */
    double *unit[SAMPLE_READINGS];  /* [n_units]: how much each unit moved them */
    double tail[SAMPLE_READINGS];   /* how much the tail moved them */
    /* the units it measured: all before FROM, then those whose number % EVERY is FIRST (EVERY 0
     * or 1: all; the others' values are not read) */
    size_t every, first, from;
};

/* The stream: N_EXACT instructions modelled in full, N_REST after them sampled by PLAN, in which
 * N_UNITS units were measured; the last N_TAIL of the rest, after the last unit, were modelled
 * too (a stratum measured in full: a program's exit, a phase of its own, is never left out).
 * With no unit measured (a scope shorter than a period's lead and warm-up), N_TAIL counts every
 * instruction of the rest the model stepped (warm-ups, the last steps it skipped), and the rest
 * goes at their rate. */
/* The events of struct sample_stream: mispredicted branches, and accesses served by the second
 * level, by the third, and by memory. */
enum { SAMPLE_EVENTS = 4 };
struct sample_events {
    double n[SAMPLE_EVENTS];
};
struct sample_stream {
    struct sample_plan plan;
    /* The periods' lengths (the clock's SPAN[N_SPANS]); NULL: PLAN.period doubling every epoch. */
    const struct sample_span *span;
    unsigned n_spans;
    uint64_t n_exact, n_rest, n_units, n_tail;
    /* The known part: what the reader knows of every instruction of the rest, modelled or skipped,
     * the cycles its repeated string instructions take on their own (rt_model_string_time): summed
     * over each unit (KNOWN_UNIT[n_units]) and each period begun (KNOWN_PERIOD[N_PERIODS], the tail's
     * own KNOWN_TAIL included). The units then sample only the cycles it does not know (a difference
     * estimator, unbiased whatever it knows): a copy of a megabyte, rare and long, no longer moves
     * the estimate by whether a unit met it. NULL: nothing known. */
    const double *known_unit, *known_period;
    size_t n_periods;
    double known_tail;
    /* Events the reader also counts on every instruction of the rest (struct sample_events): over
     * each unit (EVENT_UNIT[n_units]); so far at each period's start (EVENT_AT[N_EVENT_PERIODS], the
     * periods begun) and at the stream's end (EVENT_END); in the tail (EVENT_TAIL). Each stratum's
     * mean is moved by how many more or fewer of them it has than its units, at the slope the
     * units' successive differences give (a regression estimator), as a unit's cycles follow its
     * misses and mispredictions. NULL: none. */
    const struct sample_events *event_unit, *event_at;
    size_t n_event_periods;
    struct sample_events event_end, event_tail;
    /* The baseline's time over the last unit-long part of each unit's warm-up, less the unit's
     * (DRIFT_UNIT[n_units]; NaN where the warm-up had no such part), for sample_drift, and what the
     * reader knows of that part (KNOWN_PRE[n_units], beside KNOWN_UNIT: the drift compares the
     * unknown parts). NULL: none. */
    const double *drift_unit, *known_pre;
};
struct sample_estimate {
    double cycles, low, high;       /* the estimate and its 95% interval */
};
/* The cycles the estimates of S count as known (its known part, the measured tail's left out). */
double sample_known(const struct sample_stream *s);
/* How far the model still moved as the units began: what the rest's estimate would change by if
 * each unit took the time of the unit-long part of its warm-up just before it (DRIFT_UNIT), in
 * cycles (0: none known), and its standard error (*SE, if not NULL). A warm-up long enough leaves
 * the two alike on average; where it is not, its state's transient, which the units' spread does
 * not show, sets the estimate's error, and each lane's cycles' interval widens by as much of the
 * drift as its standard error does not account for (sample.c says why). */
double sample_drift(const struct sample_stream *s, double *se);
/* How much sample_cycles widens each end of an interval for the drift (0: within its noise). */
double sample_drift_widening(const struct sample_stream *s);
/* The units of S lane L measured. */
size_t sample_lane_units(const struct sample_stream *s, const struct sample_lane *l);
/* Lane L's cycles over the stream. */
struct sample_estimate sample_cycles(const struct sample_stream *s, const struct sample_lane *l);
/* BASE's cycles over LANE's (the speed-up when LANE's resource is faster), with its interval: the
 * units are paired (the baseline's taken at LANE's), so what both lanes share cancels. */
struct sample_estimate sample_speedup(const struct sample_stream *s, const struct sample_lane *base,
                                      const struct sample_lane *lane);
/* LANE's cycles as the report gives them: sample_cycles when it measured every unit; else the
 * baseline's over all of them at LANE's speed-up (the baseline's full sample is the better
 * estimate of what both share), the interval's ends from both intervals' ends at once. */
struct sample_estimate sample_lane_cycles(const struct sample_stream *s, const struct sample_lane *base,
                                          const struct sample_lane *lane);

/* The rest but the tail as the estimates take it, stratum by stratum (at most SAMPLE_MAX_STRATA):
 * HI[K], the units stratum K ends before (it holds units [HI[K-1], HI[K]), the first from 0), and
 * EST[K], the cycles its units estimate for it less the known part, by BASE's binding reading (that
 * of its cycles). Returns their number; none without a unit. */
enum { SAMPLE_MAX_STRATA = 64 };
unsigned sample_strata(const struct sample_stream *s, const struct sample_lane *base, size_t *hi, double *est);

/* The baseline at one point of the stream: its time (rt_model_time), charges (rt_model_charges:
 * CHARGE[N_CHARGE]) and slots (rt_model_topdown without the drain). */
struct sample_snap {
    double time;
    double *charge;
    uint32_t n_charge;
    struct rt_topdown slots;
};
/* Snapshot S's charge to static instruction SIDX. */
static inline double sample_snap_charge(const struct sample_snap *s, size_t sidx)
{
    return sidx < s->n_charge ? s->charge[sidx] : 0;
}

/* What a model's lanes read at the marks, kept by the thread that steps the model: the exact
 * part's cycles (and, for the model with the baseline, its charges and slots then), each unit's. */
struct sample_rec {
    unsigned n_lanes;
    bool baseline;                  /* the model whose lane 0 is the report's baseline */
    double *at_start;               /* [n_lanes][SAMPLE_READINGS]: the readings at the unit's start */
    double *at_end;                 /* [n_lanes][SAMPLE_READINGS]: at the last unit's end (before any: the exact part's) */
    struct sample_lane *lane;       /* [n_lanes] */
    size_t n_units, cap_units;
    /* baseline, sampled: lane 0's time over each of the first 64 x EPOCH units, which the reader
     * may read from its thread (sample_rec_published), for the period's rules (run.c) */
    double *published;
    size_t cap_published;
    _Atomic size_t n_published;
    /* baseline: the snapshots from which the report tells the sampled part's charges and slots
     * apart, to scale each stratum's by its own factor: at the exact part's end; at the end of each
     * stratum's last unit (SAMPLE_STRATUM_END: AT_EPOCH[E], after EPOCH_UNITS[E] units); from
     * SAMPLE_END on (TAIL), at the tail's start, which is measured, not scaled with the rest */
    struct sample_snap at_exact;
    struct sample_snap *at_epoch;
    size_t *epoch_units;
    size_t n_epochs;
    bool tail;
    struct sample_snap at_tail;
    bool *resting;                  /* [n_lanes]: which lanes rest now (their readings are the
                                       baseline's: a lane resting through the end moves its way) */
    bool *turn;                     /* [n_lanes]: whether the lane joins the period that begins */
    uint64_t joins;                 /* SAMPLE_JOIN marks so far (the number of the next period) */
    /* baseline: lane 0's time as the warm-up's last part began (SAMPLE_PRE_START; NaN: it has not
     * since the last unit), and each unit's drift (sample_stream's DRIFT_UNIT) */
    double pre_at;
    double *drift;
    unsigned parked;                /* the lanes from this one on take no turn before SAMPLE_RELEASE */
    unsigned hand_at;               /* and from this one on, lose their own state there */
};
/* The readings of a model's N_LANES lanes, sampled by PLAN; BASELINE: lane 0 is the report's
 * baseline (sample_rec). */
void sample_rec_init(struct sample_rec *r, unsigned n_lanes, bool baseline, const struct sample_plan *plan);
void sample_rec_free(struct sample_rec *r);
/* Lanes FROM on of R's model rest from the start (the model rested them) and join no period before
 * the mark SAMPLE_RELEASE: another model measures them until then. */
void sample_rec_park(struct sample_rec *r, unsigned from);
/* At the mark SAMPLE_RELEASE, R's lanes FROM on lose their own state: they join with the
 * baseline's, as the lanes another model measured until then (sample_rec_park) do. */
void sample_rec_hand_at(struct sample_rec *r, unsigned from);
/* The units whose baseline time R published so far (safe from another thread): PUBLISHED[0, n). */
size_t sample_rec_published(struct sample_rec *r);
/* R's lane L takes what FROM's lane K measured before FROM's model stopped (its exact part, its
 * units; R's model went on from there, R has every unit FROM has). */
void sample_rec_graft(struct sample_rec *r, unsigned l, const struct sample_rec *from, unsigned k);
/* The mark WHAT (SAMPLE_EXACT_END, SAMPLE_UNIT_START, SAMPLE_UNIT_END, SAMPLE_TAIL_END) read from MD,
 * and SAMPLE_REST, SAMPLE_JOIN done to it, on its thread. */
void sample_rec_mark(struct sample_rec *r, struct rt_model *md, unsigned what);

#endif
