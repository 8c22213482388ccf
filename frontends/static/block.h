/* Static analysis of a basic block: decoded once, repeated back to back (the convention of
 * BHive, uiCA and llvm-mca), and run through the model in every sensitivity lane at once. */
#ifndef BLOCK_H
#define BLOCK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "insn.h"
#include "mdl_machine.h"
#include "model.h"

struct cls_index;
struct dec;

struct block {
    struct rt_insn *insns;      /* after fusion: a fused pair is one entry */
    uint32_t *orig;             /* index of each entry's first instruction in the block */
    size_t n, n_orig;           /* entries; instructions as written */
};

/* Instructions already decoded and classified, by their bytes: blocks share most of theirs,
 * and decoding costs more than the rest of a small block's analysis. One per thread. */
struct block_cache;
struct block_cache *block_cache_new(void);
void block_cache_free(struct block_cache *c);

/* Decodes BYTES, at address PC, into B (freeing what B held), through CACHE when not NULL. False
 * with ERR naming the offending bytes. */
enum { BLOCK_PC = 0x400000 };       /* the address of a block that has none of its own */
/* The longest block (or function) analysed: far beyond any loop body, and a bound on what a
 * line of hex can make mdlsim allocate (an instruction's model per byte). */
enum { BLOCK_MAX_BYTES = 256 * 1024 };
bool block_decode(struct block *b, struct dec *dec, const struct cls_index *ci, const struct mdl_machine *m,
                  struct block_cache *cache, const uint8_t *bytes, size_t len, uint64_t pc, char *err,
                  size_t errlen);
void block_free(struct block *b);

struct block_result {
    double cycles[RT_MAX_LANES];    /* per iteration, steady state */
    unsigned iterations;            /* simulated until every lane was measured (causality may run on) */
    unsigned period;                /* the baseline's timing repeats every PERIOD iterations; 0: never */
    unsigned fitted;                /* lanes but the baseline whose timing never repeated */
    uint64_t *crit, *seen;          /* per block instruction (as written), baseline lane */
    struct rt_topdown topdown;      /* the baseline's issue slots over the iterations its cycles come from */
};

/* Runs ITERATIONS copies of B in the model with the given lanes; fills R (crit/seen arrays of
 * b->n_orig entries are allocated and must be freed by the caller). MODEL, when not NULL, holds
 * a model of an earlier run to reuse (or NULL) and receives the one run, for the caller to free
 * with rt_model_free in the end. */
bool block_run(const struct block *b, const struct mdl_machine *m, const struct rt_lane_cfg *lanes,
               unsigned n_lanes, bool causality, unsigned iterations, struct rt_model **model,
               struct block_result *r, char *err, size_t errlen);

/* Cycles per iteration the block keeps each resource busy if nothing else limited it: the
 * abstract resources (RES, n_resources entries), the front end and retirement. */
void block_busy(const struct block *b, const struct mdl_machine *m, double *res, double *frontend, double *retire);

/* The analysis of B as the views' result: counts, the lanes' cycles per iteration, one row per
 * entry (a fused pair is one) with its causality counts. R must have been given its lanes
 * (analysis_start); analysis_finish comes after. B and its instructions must outlive R's use. */
struct result;
void block_fill(const struct block *b, const struct block_result *br, bool causality, struct result *r);

/* Parses N characters of hex (spaces allowed) into bytes; false on a bad digit (a NUL among
 * them is one, named with its offset). */
bool block_parse_hex(const char *hex, size_t n, uint8_t **bytes, size_t *len, char *err, size_t errlen);

#endif
