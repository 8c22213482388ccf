/* The result of one analysis (a block, a region of a program, a whole run): everything the views
 * show, filled by the block and stream engines and completed by analysis_finish. Views read only
 * this; they never see an engine. */
#ifndef RESULT_H
#define RESULT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mdl_machine.h"
#include "model.h"

/* The version of the JSON this result is written as (frontends/views/mdlsim.schema.json). */
#define RESULT_SCHEMA_VERSION 1

enum result_scope { RESULT_SCOPE_BLOCK, RESULT_SCOPE_ROI, RESULT_SCOPE_RUN };
enum { RESULT_MAX_WEIGHTS = 8, RESULT_LABEL = 96, RESULT_MAX_LEVELS = 8 };

/* One lane of the plan and what it measured. Every fixed-size string here is NUL-terminated. */
struct result_lane {
    struct rt_lane_cfg cfg;
    char label[RESULT_LABEL];       /* "p0156", "L1D_bandwidth", "latency+p01"; "@15%" when weights differ */
    char knob_label[2][RESULT_LABEL / 2];   /* each knob alone ("p0156", "latency") */
    double cycles;                  /* as result.cycles: per iteration for a block, in all for a run */
    double speedup;                 /* baseline cycles / cycles */
    /* sampled (result.sampling): the 95% intervals of both; else equal to them */
    double cycles_low, cycles_high, speedup_low, speedup_high;
};

/* Run, replay: how the scope was modelled. In full, or sampled (frontends/qemu/sample.h): the
 * first EXACT instructions in full, then in each PERIOD a UNIT measured after WARM to WARM +
 * WARM_SPREAD modelled (the length drawn for each period); the cycles, each lane's and each
 * speed-up are then estimates with 95% intervals. */
struct result_sampling {
    bool sampled;
    uint64_t exact, period, warm, warm_spread, unit;
    uint64_t epoch;                 /* the period doubles after every EPOCH units (0: never), */
    unsigned kept;                  /* but at KEPT of them, where the units spread widely (sample.h), */
    unsigned halved;                /* and it halved HALVED times, where the run's interval was too wide */
    uint64_t warmups, resumed;      /* warm-ups begun, RESUMED of them where the model left off (sample.h) */
    uint64_t lanes_warm;            /* of the warm-up, the last instructions the sensitivity lanes stepped
                                       (and 0 to WARM_SPREAD more) */
    unsigned lanes_every;           /* after the first LANES_FROM units, the sensitivity lanes measured one */
    uint64_t lanes_from;            /* in LANES_EVERY, all the same one */
    uint64_t lane_units;            /* the fewest units a sensitivity lane measured */
    uint64_t units;                 /* units measured */
    uint64_t tail;                  /* the instructions after the last unit, modelled in full (the run's end) */
    uint64_t modelled;              /* instructions of the scope the model stepped */
    /* repeated string instructions of the sampled part whose cycles the estimate counts as the
     * description times them rather than samples (sample_stream's known part), and those cycles */
    uint64_t strings;
    double string_cycles;
    /* how far the model still moved as the units began (sample_drift), in cycles, its standard
       error, and how much each end of the cycles' interval moved out for it (0: within its noise) */
    double drift, drift_se, drift_widened;
    double confidence;
};

/* What an instruction costs a resource: cycles per execution, and its share of the resource's
 * busy time over the scope (executions x cost / all instructions' executions x cost). */
struct result_use {
    unsigned resource;              /* index in the machine's resources; n_resources: the serial unit (dividers) */
    double cost, share;
};

/* How a form's entry stands for the instruction: it names the instruction's form (exactly, as an
 * encoding variant such as MOV_89 (R32, R32), or by uops.info's LEA shape); it is the one entry
 * for every condition (AArch64's B.cond); it is the nearest the description has (a bare
 * mnemonic, `*` kinds, other widths). */
enum result_match { RESULT_MATCH_FORM, RESULT_MATCH_CONDITIONS, RESULT_MATCH_NEAREST };

/* One static instruction (after macro-fusion: a fused pair is one row). Strings point into the
 * engine's decoded instructions, which outlive the views. */
struct result_row {
    unsigned index;                 /* block: position of its first instruction; run: row number */
    uint64_t pc;                    /* block: offset in the block */
    uint8_t bytes[16];
    unsigned len;
    const char *disasm, *key;
    /* form: the description's entries its form keys found, before any replace rule ([1]: a fused
     * pair's second instruction, else NULL; [0]: NULL for a class default), and how each stands
     * for the instruction (enum result_match). tmpl: the entry whose timing it gets (a rule's
     * target, a fused pair's entry), or class:NAME. conditions: a fused branch whose rule gives
     * this many conditions that one entry (more than one), else 0. */
    const char *form[2], *tmpl;
    uint8_t match[2];
    unsigned conditions;
    uint64_t executions;            /* block: per iteration (1); run: in the scope */
    double latency_min, latency_max;
    unsigned uops;                  /* fused domain */
    bool class_default, eliminated, fused;
    size_t use_first;               /* in result.uses */
    unsigned use_count;
    uint64_t crit, seen;            /* causality: instances on the critical path / instances counted */
    double critical;                /* crit / seen */
    double cycles;                  /* the model's cycles charged to it, by retirement (run) */
    uint64_t l1_misses, ll_misses;  /* its data accesses served beyond the first level / by memory (run) */
    uint64_t mispredicts;           /* run */
    /* where it is: NULL / 0 when unknown (a block, or no symbol or line information) */
    const char *module, *function, *file;
    /* pc - the function's start: its symbol's or, in code no symbol names, the start guessed for
     * it (run.c's unnamed_entry) */
    uint64_t fn_offset;
    bool in_object;                 /* the module is an ELF object: ADDRESS is the pc's in it */
    uint64_t address;               /* pc - the module's load bias: the address objdump -d prints */
    unsigned line;
};

/* The costs a function or a call carries, as the callgrind view's events. */
enum { RESULT_EV_IR, RESULT_EV_CYCLES, RESULT_EV_CRIT, RESULT_EV_L1M, RESULT_EV_LLM, RESULT_EV_BM, RESULT_EVENTS };

/* A function's totals over the scope: its rows summed (self: what its own instructions cost), and
 * inclusive of what its calls cost, shared out as gprof does: a callee's inclusive cost goes to its
 * callers in proportion to the calls each made (calls closing a recursion carry nothing, unless no
 * other call reaches the function: the calls it receives always carry its whole inclusive cost). */
struct result_function {
    const char *module, *name;      /* name NULL: a stretch of the module's code no symbol names */
    uint64_t lo;                    /* its start (without a name, the guessed one) */
    uint64_t instructions, crit, seen, l1_misses, ll_misses, mispredicts;
    double cycles;
    double incl[RESULT_EVENTS];
    uint64_t calls_in;              /* calls made to it in the scope */
    size_t first_row;               /* a row of it (for its address) */
};

/* A source line's totals over the scope: its rows summed (self). */
struct result_line {
    const char *module, *file;
    unsigned line;
    uint64_t instructions, crit, seen, l1_misses, ll_misses, mispredicts;
    double cycles;
};

/* The calls from one call site to one function, counted; CALLER, CALLEE index functions (SIZE_MAX:
 * unknown) and INCL is the share of the callee's inclusive cost they carry (analysis_finish): the
 * calls into a function from sites in the views' rows carry its whole inclusive cost together. */
struct result_call {
    uint64_t site, callee_lo, count;
    size_t site_row, caller, callee;
    double incl[RESULT_EVENTS];
};

/* The speed-up of one knob (alone) at each weight of the plan, weights ascending. */
struct result_curve {
    char label[RESULT_LABEL / 2];
    unsigned n;
    double weight[RESULT_MAX_WEIGHTS], speedup[RESULT_MAX_WEIGHTS];
    unsigned lane[RESULT_MAX_WEIGHTS];
};

enum result_verdict_kind {
    RESULT_VERDICT_NO_LANES,        /* sensitivity was not run */
    RESULT_VERDICT_RESOURCE,        /* one knob: accelerating it alone helps */
    RESULT_VERDICT_PAIR,            /* two knobs help only together (a balanced kernel) */
    RESULT_VERDICT_SATURATED,       /* nothing helps alone or in pairs; these are busy all the time */
    RESULT_VERDICT_NONE             /* nothing binds within the weights */
};

struct result_verdict {
    enum result_verdict_kind kind;
    unsigned lane;                  /* RESOURCE, PAIR: the lane */
    double speedup, weight;         /* RESOURCE, PAIR: its speed-up at its weight (1.15: 15% faster) */
    unsigned n_names;
    char names[16][RESULT_LABEL / 2];   /* the knobs or saturated resources named */
    char text[320];                 /* the verdict line */
};

/* Top-down (seed 003): issue slots = cycles x issue width, split by what left each slot unused.
 * Fractions of the slots; retiring + bad speculation + front end + back end = 1. */
struct result_topdown {
    bool valid;                     /* false when the machine has no issue width */
    double slots;
    double retiring, bad_speculation, frontend, backend;
    double frontend_latency, frontend_bandwidth, memory, core;
    unsigned n_levels;              /* the data-side cache levels, then DRAM: at least 1 when valid */
    char level[RESULT_MAX_LEVELS][16];
    double level_share[RESULT_MAX_LEVELS];  /* memory bound by the level that served the loads */
};

/* Robustness (robust.h): one end of an uncertain value's range and the analysis there. */
struct result_robust_end {
    double value;
    bool same;                      /* the end is the value as described: nothing was run */
    bool moved;                     /* the baseline's cycles differ there; else its lanes were not run and the
                                       verdict is the analysis's */
    double cycles;                  /* the baseline's, as result.cycles */
    char verdict[RESULT_LABEL];     /* the verdict's knobs ("latency bound", "latency+p1 together") */
    double speedup;                 /* the verdict's speed-up (RESOURCE, PAIR; else 0) */
    bool holds;                     /* the verdict names what the analysis's names */
};

/* A value the description gives with a plausible range (mdl_uncertain) and the analysis at its ends. */
struct result_robust_value {
    const char *name, *reason, *where;
    double value, lo, hi;
    struct result_robust_end end[2];    /* low, high */
    bool holds;
};

struct result_robustness {
    bool checked;                   /* the ends were measured (n_values of them may still be 0) */
    bool holds;                     /* the verdict holds at every end */
    unsigned n_values, n_moved;     /* the uncertain values; those that move the cycles at an end */
    double cycles_low, cycles_high; /* the baseline's cycles over the analysis and every end */
    char verdict[RESULT_LABEL];     /* the analysis's verdict, as the ends' */
    char text[480];                 /* the one line the views print */
};

struct result_cache {
    const char *name;
    uint64_t accesses, hits;
};

struct result {
    /* ---- cleared by result_reset */
    const struct mdl_machine *m;
    /* --set: the values of M changed for this analysis, "KEY=VALUE" as given, N_SET of them (M is
     * the machine with them) */
    const char *const *set;
    unsigned n_set;
    const char *command;            /* "block", "run", "replay" */
    const char *program;            /* run, replay: the program analysed (NULL: unknown, a block) */
    char *const *program_args;      /* run: its arguments after its name, NULL-terminated; NULL: not known
                                       (replay, a block) */
    enum result_scope scope;
    const char *scope_name;         /* the block's label, the region's symbol; NULL for a whole run */
    unsigned iterations;            /* block: iterations simulated; run: 1 */
    /* block: the baseline's timing repeats every PERIOD iterations (0: never, and its cycles are
     * the slope of the second half); the lanes but the baseline measured that way */
    unsigned period, lanes_fitted;
    uint64_t instructions;          /* block: per iteration; run: in the scope */
    uint64_t executed;              /* run: in the whole run; block: = instructions */
    /* run, replay: how the program ended: its exit code, or the signal that killed it (then the
     * result covers what ran before); both -1 when unknown (a block) */
    int exit_code, killed_by;
    /* the rows, functions and lines carry the cycles charged to them (run, replay); a block's
     * instructions are not charged (its report is its cycles per iteration and their causes) */
    bool charged;
    /* run, replay: the program the guest replaced itself with by exec (the result covers what ran
     * before; the new program ran outside the analysis), "" when its path is unknown; NULL: none */
    const char *replaced_by;
    uint64_t macro_fused;           /* fused pairs (block: per iteration) */
    double cycles;                  /* block: per iteration (steady state); run: in the scope */
    double cycles_low, cycles_high; /* its 95% interval when sampled; else equal to it */
    struct result_sampling sampling;
    double ipc;
    bool causality, sensitivity;
    unsigned n_lanes;               /* in lanes[]: lane 0 is the baseline */
    unsigned n_weights;             /* the plan's weights, in the order given */
    double weights[RESULT_MAX_WEIGHTS];
    /* rankings (analysis_finish): lanes of one knob, then of two, largest speed-up first */
    unsigned n_single, n_pairs, n_curves;
    struct result_verdict verdict;
    bool has_bounds;
    double bound_infinite_resources, bound_no_dependencies;     /* cycles, as result.cycles */
    struct result_topdown topdown;
    /* memory and branches: a run's (has_caches, has_branches false for a block) */
    bool has_caches, has_branches;
    unsigned n_caches;
    struct result_cache caches[RESULT_MAX_LEVELS];
    uint64_t branches, mispredicted;
    /* run, on a core whose uop cache is modelled: the scope's executions by the path that
     * delivered them (enum rt_path) */
    bool has_delivery;
    uint64_t delivery[RT_PATH_COUNT];
    struct result_robustness robustness;    /* its values in robust[] */
    size_t n_rows, n_uses, n_critical, n_functions, n_calls, n_lines;
    /* ---- storage kept by result_reset */
    struct result_row *rows;        /* per static instruction */
    struct result_use *uses;
    size_t *critical;               /* rows on the critical path, most critical first (analysis_finish) */
    size_t *hot;                    /* [n_rows]: every row, most executed first (analysis_finish) */
    struct result_function *functions;  /* by cycles, largest first (analysis_finish) */
    struct result_call *calls;
    struct result_line *lines;      /* by cycles, largest first (analysis_finish) */
    double *busy;                   /* [n_resources + 1]: cycles each resource is in use over the scope (executions x
                                       cost, summed; costs are already divided by the width), as result.cycles:
                                       busy / cycles is its utilisation (analysis_finish) */
    struct result_robust_value *robust;     /* [robustness.n_values] */
    size_t cap_robust;
    size_t cap_rows, cap_uses, cap_critical, cap_hot, cap_functions, cap_calls, cap_lines, n_busy;
    /* ---- large, valid up to their counts */
    struct result_lane lanes[RT_MAX_LANES];
    unsigned single[RT_MAX_LANES], pairs[RT_MAX_LANES];
    struct result_curve curves[RT_MAX_LANES];
};

/* The results of one analysis on several cores (--machine a,b,c): the same code, or the same run,
 * modelled on each. analysis_compare fills what follows the results. */
enum { RESULT_MAX_CORES = 8, RESULT_MAX_DIFFER = 10 };
struct result_comparison {
    unsigned n;
    const struct result *core[RESULT_MAX_CORES];
    unsigned fastest;                       /* the core with the fewest cycles */
    double relative[RESULT_MAX_CORES];      /* each core's cycles / the fastest's */
    /* the functions (run, replay) whose cycles differ most between the cores: the index of each in
     * each core's function list (its first entry; SIZE_MAX: not there), and its cycles there (every
     * entry of it: a function whose code lies apart is several entries) */
    unsigned n_differ;
    size_t differ[RESULT_MAX_DIFFER][RESULT_MAX_CORES];
    double differ_cycles[RESULT_MAX_DIFFER][RESULT_MAX_CORES];
};

/* Empties R for another analysis on M, keeping the memory it has. */
void result_reset(struct result *r, const struct mdl_machine *m);
/* S with its control bytes as '?', in place: names and paths come from the guest's objects, a
 * trace or the command line, and a terminal must print them, never obey them. Returns S. */
char *result_printable(char *s);
void result_free(struct result *r);
/* A new row, zeroed but for its index; its uses follow with result_add_use. */
struct result_row *result_add_row(struct result *r);
void result_add_use(struct result *r, struct result_row *row, unsigned resource, double cost);
/* The calls from SITE to the function starting at CALLEE, COUNT of them (a run's). */
void result_add_call(struct result *r, uint64_t site, uint64_t callee, uint64_t count);
/* Whether rows A and B are code of one function: the same module, and the same symbol or, without
 * one, the same guessed start. */
bool result_same_function(const struct result_row *a, const struct result_row *b);
/* Where code no symbol names is, as objdump -d of its module shows it: "prog+0x1139" for ROW's
 * address or, with START, for the start guessed for its function; "prog@0x7f..." (the guest
 * address) in a module that is no ELF object. In BUF, printable. */
char *result_unnamed(const struct result_row *row, bool start, char *buf, size_t len);
/* The name of resource RESOURCE of a use: the machine's, or "serial" for the non-pipelined unit (dividers). */
const char *result_resource_name(const struct result *r, unsigned resource);
/* The row's instruction, decoded: pc, bytes, disassembly, form, latency, uops, class default,
 * elimination, and its resource uses from the machine's template (the divider's among them). */
struct rt_insn;
void result_row_from_insn(struct result *r, struct result_row *row, const struct rt_insn *in);
/* The row's form as its instruction reads, in BUF: each instruction's entry where it names the
 * form, else the decoder's key ("CMP_39 (R64, R64) + JNZ (Rel8)", "B.NE (L)"); NULL when it has
 * no entry (a class default). */
const char *result_row_form(const struct result_row *row, char *buf, size_t size);
/* Whether the row is timed by another entry than its form (a replace rule's target, a fused
 * pair's entry): then BUF says which and why ("timed as JZ (Rel8), the one entry ..."). BUF may
 * be NULL with SIZE 0. */
bool result_row_timed_as(const struct result_row *row, char *buf, size_t size);

#endif
