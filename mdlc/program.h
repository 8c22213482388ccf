/* A description after resolution: the extends chain with includes expanded, and the
 * effective declaration behind every name. Built by resolve, validated by check. */
#ifndef MDLC_PROGRAM_H
#define MDLC_PROGRAM_H
#include <stdbool.h>
#include "ast.h"
#include "diag.h"
#include "map.h"

struct formcheck;

enum param_block {
#define B(e, s) PB_##e,
#include "param_blocks.def"
#undef B
    PB_COUNT
};

enum param_id {
#define X(blk, key, dim, en, lo, hi, fixed, doc) P_##blk##_##key,
#include "param.def"
#undef X
    P_COUNT
};

enum param_dim { DIM_COUNT, DIM_CYCLES, DIM_BYTES, DIM_BANDWIDTH, DIM_ENUM, DIM_STRING };

enum enum_type {
    ENUM_NONE,
#define X(t, e, s) ENUM_T_##t##_##e,
#include "enum.def"
#undef X
};

struct param_info {
    enum param_block block;
    const char *key;
    enum param_dim dim;
    const char *enum_type;          /* "ISA", "POLICY", ... or NULL */
    double lo, hi;
    const char *fixed;              /* "" when lanes may vary it, else why not */
    const char *doc;
};
extern const struct param_info param_table[P_COUNT];
extern const char *const param_block_names[PB_COUNT];

struct param_val {                  /* a checked value: numbers in base units (B, cycles) */
    bool set;
    bool ranged;                    /* a checked `range`: range_lo < range_hi, around num */
    double num, num_hi;
    double range_lo, range_hi;
    const char *str;                /* string, or enum name */
    int enum_index;                 /* position among the enum's values */
    const struct ast_param *src;
};

struct prog_block {                 /* one parameter block after merging parent and child */
    enum param_block kind;
    const char *name;               /* cache name; NULL for singletons */
    const struct ast_decl *decl;    /* the declaration that introduced it last */
    VEC(const struct ast_param *) params;
    struct param_val vals[P_COUNT];
};

struct prog_unit {
    const struct ast_unit *unit;
    const struct ast_decl *decl;
    bool async;
    unsigned first;                 /* first instance (atom) or async index, set by check */
};

struct prog_layer {                 /* one machine file of the extends chain */
    const struct ast_decl *machine;
    VEC(const struct ast_decl *) decls;
    struct map included;            /* canonical path -> the include that read it */
};

struct program {
    struct arena *ar;
    struct src_manager *sm;
    struct diag *diag;
    VEC(struct prog_layer) layers;  /* [0] the base ancestor ... [n-1] the file compiled */
    VEC(const char *) files;        /* every file read, for the depfile */
    const struct ast_decl *machine; /* of the file compiled */
    const char *name;
    /* effective declarations, in first-declaration order */
    VEC(const struct ast_decl *) sources, forms, classes;
    VEC(struct prog_unit *) units;
    VEC(struct prog_block *) blocks;
    VEC(const struct ast_decl *) maximums, replaces, bypasses, depends, decoders;
    struct map source_map, form_map, class_map, unit_map, block_map;
    struct map mnemonic_map;        /* mnemonic -> first form with it, set by check */
    unsigned n_atoms, n_async;      /* unit instances and asynchronous resources, set by check */
    bool warn_missing_source;       /* -Wmissing-source: check reports numbers without a source */
    bool no_warn_unmatched_form;    /* -Wno-unmatched-form: no warning for a key no instruction decodes as */
    const struct formcheck *keys;   /* the decoder's vocabulary for the machine's isa, during check */
};

#endif
