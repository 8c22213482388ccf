/* The core model of Gus (Algorithm 1): constraint propagation over resources, front end,
 * dispatch window and shadow state, advanced in lockstep for several lanes, each lane being
 * the baseline or one resource accelerated; causality taints run in the baseline lane. */
#ifndef RT_MODEL_H
#define RT_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "insn.h"
#include "mdl_machine.h"

/* What a lane changes: one knob (or two, for the interaction matrix) scaled by a weight. */
enum rt_knob {
#define X(e, s, arg, kind, doc) RT_KNOB_##e,
#include "knob.def"
#undef X
    RT_KNOB_COUNT
};
/* Where the front end takes an instruction from (path.def). */
enum rt_path {
#define X(e, s, label, doc) RT_PATH_##e,
#include "path.def"
#undef X
    RT_PATH_COUNT
};

enum rt_knob_arg { RT_KNOB_ARG_NONE, RT_KNOB_ARG_RESOURCE, RT_KNOB_ARG_CACHE };
enum rt_knob_kind { RT_KNOB_KIND_BASE, RT_KNOB_KIND_SWEPT, RT_KNOB_KIND_WINDOW, RT_KNOB_KIND_BOUND };

struct rt_lane_cfg {
    enum rt_knob knob[2];
    int arg[2];                 /* resource index or cache level for RESOURCE / CACHE_BW */
    double weight;              /* 1.15: 15% faster; ignored by the two bound knobs */
};

enum { RT_MAX_LANES = 512 };
/* Lanes are stepped a vector at a time: a model's are padded to a multiple of this many (8 with
 * AVX-512, else 4). Models that share lanes out waste least with multiples of it. */
unsigned rt_lane_group(void);
/* The copies of the stepping kernel the build makes, one per vector extension, by index (NULL
 * beyond the last): "avx512f", "avx2" (x86-64 with GCC), "default" (the baseline ISA). */
const char *rt_model_vector_isa(unsigned k);

struct rt_model;

/* Creates a model of M with N lanes. CAUSALITY enables the taint propagation of lane 0, which
 * must then be the baseline. NULL with ERR when the configuration is invalid. */
struct rt_model *rt_model_new(const struct mdl_machine *m, const struct rt_lane_cfg *lanes, unsigned n,
                              bool causality, unsigned n_static, char *err, size_t errlen);
void rt_model_free(struct rt_model *md);
/* MD as rt_model_new would make it with these lanes, for N_STATIC static instructions, in the
 * memory it has (a model per block costs more in allocation than in steps on small blocks).
 * False when the lanes do not fit it (another count or window size): MD is then only for
 * rt_model_free. */
bool rt_model_reset(struct rt_model *md, const struct rt_lane_cfg *lanes, unsigned n, unsigned n_static);

/* One dynamic instance of static instruction IN (index SIDX among the analysed static
 * instructions), with its memory addresses (one per in->mem), the data-side cache level that
 * served each (0: the first; the number of levels: memory; LEVELS NULL: all the first) and,
 * for branches, whether the predictor missed. */
void rt_model_step(struct rt_model *md, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                   const uint8_t *levels, bool mispredicted);

/* One execution of a repeated string instruction (insn.h, enum rt_rep) with its iterations merged:
 * what they moved and what the caches did with it. */
enum { RT_STRING_LEVELS = 4 };
struct rt_string {
    uint64_t iterations;
    uint64_t bytes;                 /* of each access stream: iterations x the element's size */
    /* the lines the access streams touched, each once, by how deep the access went: LINES[j] counts
     * those that reached level j (served there or deeper; memory is the number of levels), the
     * last entry those of that depth or more; LINES[0] every line */
    uint32_t lines[RT_STRING_LEVELS];
    bool unaligned;                 /* the destination starts inside a line */
};
/* rt_model_step for IN, a repeated string instruction: ADDR and LEVELS as there, one per access of
 * IN (its first iteration's addresses, the deepest level each access reached); STR what its
 * iterations did. Its cost follows the machine's `strings` facts (spec.md). */
void rt_model_step_string(struct rt_model *md, const struct rt_insn *in, uint32_t sidx, const uint64_t *addr,
                          const uint8_t *levels, const struct rt_string *str);
/* The cycles IN, a repeated string instruction that did STR, holds the baseline up on its own: the
 * longer of its start-up and bytes' time and of its traffic at the first level's bandwidth, which
 * every load after it waits for (the deeper levels' hold back only their own users). It reads
 * only the description, so any thread may ask while another steps MD (the sampling's known part,
 * sample.h). */
double rt_model_string_time(const struct rt_model *md, const struct rt_insn *in, const struct rt_string *str);

/* Instructions come through the legacy decoders (predecoder over fetch blocks, decode width,
 * complex decoders) rather than a uop cache: the case of code run once or unrolled beyond the
 * uop cache. The instructions are taken as laid out back to back. */
void rt_model_legacy_decode(struct rt_model *md, bool on);

/* The front end delivers the next instructions by path P (run mode, where the reader follows the
 * uop cache: uopcache.h). From the first call on, the legacy decoders see the instructions at
 * their addresses (a taken jump starts a fetch block), their delivery restarts at a mispredicted
 * branch's redirect and runs ahead of issue by at most the IDQ; moving to them from the uop cache
 * or the loop buffer costs uop_cache_switch cycles. Before the step it applies to. */
void rt_model_path(struct rt_model *md, enum rt_path p);

/* From now on only the baseline lane advances (the others have what they need); their times
 * stay as they are. */
void rt_model_baseline_only(struct rt_model *md);
/* LANE (not the baseline, which makes the choices every lane shares) has what it needs: it is no
 * longer stepped, and its readings stay as they are. */
void rt_model_lane_done(struct rt_model *md, unsigned lane);
/* The lanes but the baseline (and those done) rest: they are not stepped and their readings stay
 * as they are; a lane stepped in a state of its own keeps it. Sampling rests them through the
 * first part of a warm-up and through the periods they sit out, as it skips the baseline. */
void rt_model_lanes_rest(struct rt_model *md);
/* The resting lanes L with WHICH[L] (NULL: all) join the baseline again: a lane that kept its own
 * state goes on from it, as the baseline goes on from its own after a skip; a lane that had the
 * baseline's (shared), or one of its own whose lane did not join the last time the others did,
 * takes the baseline's state as it then is (shared while it may be), as a lane whose parameters
 * had been the baseline's until then. */
void rt_model_lanes_join(struct rt_model *md, const bool *which);
/* The resting lanes from FIRST on lose the state they kept, and join with the baseline's: as lanes
 * another model measured until then would (a run's report is the same on one thread or two). */
void rt_model_lanes_forget(struct rt_model *md, unsigned first);
/* Lanes are stepped only once they differ from the baseline: a lane whose parameters differ
 * only in what no step has read so far has the baseline's state, which it shares (exact: it
 * takes a copy at the first step that reads one). ON by default; off, every lane is stepped
 * from the start (the reference the sharing is tested against). Before the first step. */
void rt_model_share_baseline(struct rt_model *md, bool on);
/* Whether LANE shares the baseline's state now: its readings are the baseline's to the bit. */
bool rt_model_lane_shared(const struct rt_model *md, unsigned lane);
/* MD steps its lanes with the kernel's copy for vector extension ISA (rt_model_vector_isa) rather
 * than the widest the processor has (the default); false when this processor lacks it. Every copy
 * gives the same times to the bit. */
bool rt_model_vectors(struct rt_model *md, const char *isa);

/* Time (cycles) at which everything issued so far has retired, in LANE. */
double rt_model_time(const struct rt_model *md, unsigned lane);
/* The latest time a result is ready in LANE so far: in a steady state it moves on as
 * retirement does. */
double rt_model_latest(const struct rt_model *md, unsigned lane);
/* When the lane's last instruction issued. */
double rt_model_issued(const struct rt_model *md, unsigned lane);

enum { RT_TD_LEVELS = 8 };
/* The baseline lane's issue slots so far (cycles x issue width), by what filled or emptied them. */
struct rt_topdown {
    double retiring;                 /* slots that issued a uop (fused domain, the stack engine's sync uop included) */
    double bad_speculation;          /* slots lost to the recovery from a mispredicted branch */
    /* the front end delivered nothing for whole cycles (LCP stalls, microcode sequencer switches, ...) */
    double frontend_latency;
    double frontend_bandwidth;       /* the front end delivered, but fewer than the issue width (decoder limits) */
    double core;                     /* back end, not waiting for memory: ports, latencies, dividers */
    /* back end, waiting for loads, by the level that served them: the data-side cache levels in order
     * (the model's md->data[]), then memory (DRAM) at index n_levels-1 */
    double memory[RT_TD_LEVELS];
    unsigned n_levels;               /* data-side cache levels + 1 (memory) */
};
/* The slots so far. WITH_TAIL: the slots between the last issue and the last retirement (the
 * drain) are added as back end, so that the total is rt_model_time(md, 0) x issue width; without
 * it, the total is the time of the last issue slot's end x issue width (differences between two
 * snapshots then cover whole iterations of a steady state exactly). All zero when the machine has
 * no issue width. Should the last retirement come before the last issue slot's end (a final
 * instruction of no latency, or of more uops than the issue width), the slots beyond it come off
 * retiring. A machine of more data-side levels than RT_TD_LEVELS - 1 counts the deepest ones and
 * memory together, in the last entry. */
void rt_model_topdown(const struct rt_model *md, bool with_tail, struct rt_topdown *out);
/* The slots of T that issued nothing (every category but retiring), and all of them. */
double rt_topdown_gaps(const struct rt_topdown *t);
double rt_topdown_total(const struct rt_topdown *t);
/* From now on the slots are not counted (rt_model_topdown keeps what it had): a block measured
 * once, whose baseline goes on for causality only. rt_model_reset counts again. */
void rt_model_topdown_stop(struct rt_model *md);

/* Cycles the asynchronous resources need for all work so far (a throughput bound), in LANE. */
double rt_model_async_bound(const struct rt_model *md, unsigned lane);
/* Causality: how often static instruction SIDX was on the path that set dispatch times, and
 * how many of its instances left the taint window. */
uint64_t rt_model_critical(const struct rt_model *md, uint32_t sidx, uint64_t *seen);
/* The cycles charged to static instruction SIDX in the baseline lane: at each of its retirements,
 * its own slots (its uops at the narrower of the issue and retire widths) and the time retirement
 * waited for it, the oldest instruction not yet retired (a stall is charged to the instruction the
 * core waits on, as perf charges it). They add up to rt_model_time(md, 0), within a window's
 * slots. */
double rt_model_charge(const struct rt_model *md, uint32_t sidx);
/* Every static instruction's charge so far (rt_model_charge's), N of them: valid until the next step. */
const double *rt_model_charges(const struct rt_model *md, uint32_t *n);
/* From now on no instruction is charged (the charges keep what they had): block mode reads
 * none (about 1% of its time). rt_model_reset charges again. */
void rt_model_charges_stop(struct rt_model *md);
/* Causality follows dynamic instructions in periods: a period follows a number of them and
 * counts each as it leaves the window (rt_model_causal_window instructions later). By default
 * periods follow one another, each following a window's worth: half of the instructions.
 * Sampled: one period in ONE_IN, for long runs. */
void rt_model_sample_causality(struct rt_model *md, unsigned one_in);
/* One period that follows the next N instructions (at most a window; 0: none), and no more. */
void rt_model_follow(struct rt_model *md, uint32_t n);
/* A period is open: the instructions it follows have not all left the window. */
bool rt_model_following(const struct rt_model *md);
/* Dynamic instructions that must pass before causality counts one (0 without causality). */
uint32_t rt_model_causal_window(const struct rt_model *md);
const char *rt_knob_name(enum rt_knob k);
/* The path's name in JSON keys ("uop_cache") and in prose ("uop cache"). */
const char *rt_path_name(enum rt_path p);
const char *rt_path_label(enum rt_path p);
/* Cycles a form holds the serial unit (the divider, microcoded and serialising forms): its measured
 * inverse throughput where that is well beyond what its ports explain, else 0 (always 0 for IN, a
 * branch, call or return). */
double rt_serial_cost(const struct mdl_machine *m, const struct mdl_template *t, const struct rt_insn *in);
/* What the knob's lane argument names, and how the lane plan uses it (knob.def). */
enum rt_knob_arg rt_knob_arg(enum rt_knob k);
enum rt_knob_kind rt_knob_kind(enum rt_knob k);

#endif
