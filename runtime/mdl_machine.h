/* What mdlc emits for one machine and the runtime reads: constants, abstract resources,
 * instruction templates and rules. Shared by generated/<machine>.c and runtime/. */
#ifndef MDL_MACHINE_H
#define MDL_MACHINE_H
#include <stdint.h>
#include "../mdl/isa_enum.h"

enum mdl_class {
#define X(e, s, doc) MDL_CLASS_##e,
#include "../mdl/class.def"
#undef X
    MDL_CLASS_COUNT,
    MDL_CLASS_UNSET = 0xff      /* a form that names no class: the decoder's class applies */
};

/* What a form reads beyond its operands (`depends` rules): bit (1 << MDL_DEPEND_x) of a template. */
enum mdl_depend {
#define X(e, s, doc) MDL_DEPEND_##e,
#include "../mdl/depend.def"
#undef X
    MDL_DEPEND_COUNT
};

/* The keys of the parameter blocks (mdl/param.def), naming the value an uncertain entry varies. */
enum mdl_param {
#define X(blk, key, dim, en, lo, hi, fixed, doc) MDL_PARAM_##blk##_##key,
#include "../mdl/param.def"
#undef X
    MDL_PARAM_COUNT
};

enum mdl_policy { MDL_POLICY_LRU, MDL_POLICY_PLRU, MDL_POLICY_FIFO, MDL_POLICY_RANDOM };
enum mdl_prefetch { MDL_PREFETCH_NONE, MDL_PREFETCH_NEXT_LINE, MDL_PREFETCH_STRIDE };
enum mdl_predictor { MDL_PREDICTOR_STATIC, MDL_PREDICTOR_BIMODAL, MDL_PREDICTOR_GSHARE, MDL_PREDICTOR_TAGE };
enum mdl_indirect { MDL_INDIRECT_NONE, MDL_INDIRECT_BTB, MDL_INDIRECT_ITTAGE };
enum mdl_cache_kind { MDL_CACHE_DATA, MDL_CACHE_INSTRUCTION, MDL_CACHE_UNIFIED };
enum mdl_port_choice { MDL_PORT_CHOICE_NONE, MDL_PORT_CHOICE_LEAST_USED };

/* An abstract resource: a set of unit instances used together as one throughput limit. */
struct mdl_resource {
    const char *name;           /* "p0156", "U_ALU", "DIV", "maximum0" */
    uint64_t units;             /* bit i: unit instance i */
    uint16_t width;             /* instances: uses per cycle */
    uint8_t is_group;           /* from a `maximum N from` limit */
};

/* Cycles an instruction occupies a resource, already divided by its width. */
struct mdl_use {
    uint16_t resource;
    float cost;
};

/* COUNT uop-cycles on any one unit instance of UNITS, as the entry states them (before lowering):
 * what the runtime gives ports to when the machine chooses them (port_choice). */
struct mdl_occupancy {
    uint64_t units;
    float count;
};

struct mdl_async_use {
    uint16_t resource;          /* index in mdl_machine.async */
    float cost;                 /* quantity / capacity */
};

struct mdl_async {
    const char *name;
    uint16_t capacity;
};

struct mdl_template {
    const char *name;           /* form key "ADD (R64, M64)", or "class:int_alu" */
    uint8_t cls;                /* enum mdl_class; MDL_CLASS_UNSET when the entry names none */
    uint32_t uops_fused, uops_unfused;
    float latency_min, latency_max;
    float tp;                   /* measured inverse throughput, 0 if unknown */
    uint32_t use_first;
    uint16_t use_count;
    uint16_t async_first, async_count;
    uint8_t depends;            /* bits of enum mdl_depend: the old values it waits for */
    uint32_t occ_first;         /* its occupancies in mdl_machine.occupancies */
    uint16_t occ_count;
    uint8_t complex_decode;     /* only the complex decoders take it (a `decoder complex` rule) */
};

enum mdl_replace_kind { MDL_REPLACE_NOP, MDL_REPLACE_FORM };

/* `replace` rules: operand slots 0-7 belong to the first instruction, 8-15 to the second. */
struct mdl_replace {
    uint8_t kind, pair;
    uint32_t first, first_count;    /* template indices in mdl_machine.match */
    uint32_t second, second_count;
    int32_t target;                 /* template index, -1 for nop */
    uint16_t reads, writes;         /* operand slot masks */
    uint8_t n_same;
    uint8_t same[8][2];             /* pairs of slots that must hold the same register */
};

struct mdl_bypass {
    uint64_t from_classes, to_classes;
    uint32_t from, from_count, to, to_count;    /* template indices in mdl_machine.match */
    uint8_t memory;
    int8_t sign;                    /* +1/-1: relative to the producer's latency; 0: absolute */
    float latency;
};

/* Where an uncertain value lives in the machine. */
enum mdl_vary {
    MDL_VARY_PARAM,             /* a block's key: `param`, and for a cache key the cache `index` */
    MDL_VARY_LATENCY,           /* templates[index]: latency_min and latency_max (one value) */
    MDL_VARY_BYPASS             /* bypasses[index].latency */
};

/* A value the description gives with its plausible range (`range LO..HI`, spec.md §8.1): a lane
 * that sets the value in that place to LO, or to HI, shows whether a result holds across it. The
 * numbers are in the units of the field they replace (cycles, bytes, bytes per cycle, entries). */
struct mdl_uncertain {
    const char *name;           /* "memory.store_forward_fail", "cache.L3.latency", "class.int_mul.latency" */
    uint8_t vary;               /* enum mdl_vary */
    uint16_t param;             /* enum mdl_param, for MDL_VARY_PARAM */
    uint32_t index;             /* the cache, template or bypass rule; 0 for other keys */
    float value, lo, hi;        /* as described; lo < hi, lo <= value <= hi */
    const char *reason;         /* the value's annotation: its text, or its source's */
    const char *where;          /* "skylake.mdl:140", the file and line of the value */
};

struct mdl_cache {
    const char *name;
    uint8_t level, kind, policy, prefetch;
    uint64_t size;
    uint32_t ways, line;
    float latency, bandwidth;       /* cycles; bytes per cycle (0: unlimited) */
    uint32_t outstanding;           /* misses in flight at once (0: unlimited) */
};

/* Repeated string instructions (`strings` block): one rep execution is one instruction whose bytes
 * move at these rates after its start-up (spec.md). Zero where the description is silent. */
struct mdl_strings {
    float startup, short_startup;   /* cycles */
    uint32_t short_max;             /* bytes */
    float copy_rate, unaligned_rate, fill_rate;     /* bytes per cycle */
    float element_cycles;
};

struct mdl_machine {
    /* MDL_MACHINE_MAGIC and MDL_MACHINE_ABI: what mdlsim checks before it reads a table from a
     * shared object (--mdl), so that a foreign object with the right symbol is refused, not read */
    uint32_t magic, abi;
    const char *name, *description, *qemu_cpu;
    uint8_t isa;
    /* front end and window: 0 where the description is silent */
    uint16_t fetch_bytes, predecode_width, decode_width, complex_decoders, issue_width, uop_cache_width;
    uint32_t uop_cache_entries, loop_buffer, idq;
    /* the uop cache's organisation: sets of WAYS ways of LINE uops, a set holding the uops of
     * aligned windows of WINDOW bytes, at most WINDOW_WAYS ways each; SWITCH cycles to move
     * delivery to the legacy decoders (0 where the description is silent: not modelled) */
    uint16_t uop_cache_window, uop_cache_ways, uop_cache_line, uop_cache_window_ways;
    float uop_cache_switch;
    float taken_branch_bubble;
    uint32_t rob, scheduler, load_buffer, store_buffer;
    uint16_t retire_width;
    uint8_t port_choice;                /* enum mdl_port_choice */
    float wakeup_delay;                 /* cycles more for operands ready as the uop issues or a cycle later */
    /* memory */
    const struct mdl_cache *caches;     /* ordered by level */
    uint16_t n_caches;
    float memory_latency, memory_bandwidth;
    float store_forward_fail;           /* a load's value after the stores it cannot forward from (0: not modelled) */
    float pointer_chase;                /* cycles saved by a load whose base another load wrote (0: no fast path) */
    /* branch prediction */
    uint8_t predictor, indirect;
    uint32_t history_bits, table_entries, btb_entries, btb_ways, ras_entries;
    float mispredict_penalty;
    /* execution */
    const struct mdl_resource *resources;
    uint16_t n_resources;
    const struct mdl_async *async;
    uint16_t n_async;
    const struct mdl_template *templates;   /* forms sorted by name, then class defaults */
    uint32_t n_forms, n_templates;
    const struct mdl_use *uses;
    const struct mdl_async_use *async_uses;
    const struct mdl_occupancy *occupancies;
    uint32_t class_default[MDL_CLASS_COUNT];
    const struct mdl_replace *replaces;
    uint32_t n_replaces;
    const struct mdl_bypass *bypasses;
    uint32_t n_bypasses;
    const uint32_t *match;                  /* template lists of rules */
    struct mdl_strings strings;
    const struct mdl_uncertain *uncertain;  /* the values given with a range, in description order */
    uint32_t n_uncertain;
};

#define MDL_MACHINE_MAGIC 0x314c444du   /* "MDL1" in a little-endian word */
/* The layout's version (raised when a field moves without the size changing) and its size. */
#define MDL_MACHINE_ABI ((uint32_t)(1u << 16 | sizeof(struct mdl_machine)))
_Static_assert(sizeof(struct mdl_machine) < 1u << 16, "the size fits MDL_MACHINE_ABI's low half");

#endif
