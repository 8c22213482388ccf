/* The syntax tree of a description file: declarations as written, every node with the byte
 * span it came from, names still unresolved. */
#ifndef MDL_AST_H
#define MDL_AST_H
#include <stdbool.h>
#include <stdio.h>
#include "arena.h"
#include "source.h"

struct ast_ident {
    const char *name;
    struct span span;
};
typedef VEC(struct ast_ident) ast_idents;
typedef VEC(long) ast_longs;

enum ast_src_kind { AST_SRC_NONE, AST_SRC_NAME, AST_SRC_TEXT };
struct ast_src {                        /* `@name` or `@"text"`: where a value comes from */
    enum ast_src_kind kind;
    struct span span;
    const char *text;
};

enum ast_value_kind { AST_VAL_NUMBER, AST_VAL_RANGE, AST_VAL_IDENT, AST_VAL_STRING };
/* What a number is: a value without the unit and source a parameter may add. An attribute holds
 * only this (an insn line has several: they are most of a large description's tree). */
#define AST_NUMBER_FIELDS \
    enum ast_value_kind kind; \
    bool integral;                      /* written without a decimal point */ \
    struct span span; \
    double lo, hi;                      /* numbers; hi == lo unless a range */ \
    const char *text;                   /* number as written, identifier or string */
struct ast_number {
    AST_NUMBER_FIELDS
};
struct ast_value {
    AST_NUMBER_FIELDS
    struct ast_ident unit, per;         /* `64 B/cycle`: unit B, per cycle; name NULL if absent */
    struct ast_src src;
    struct ast_value *range;            /* `range LO..HI [unit] ["why"]`: where the value plausibly lies (its
                                         * src the reason, if given); NULL for a value known */
};

struct ast_param {                      /* `key value [unit] [@src];` in a block */
    struct ast_ident key;
    struct ast_value value;
    struct span span;
};

struct ast_block {                      /* `frontend { ... }`, `cache L1D { ... }` */
    struct ast_ident kind, name;        /* name.name NULL when absent */
    VEC(struct ast_param) params;
};

struct ast_unit {                       /* `p0`, `U_ALU*3` in ports/units/async */
    struct ast_ident name;
    long count;
    struct span count_span;
    struct ast_src src;
};

struct ast_form {                       /* `ADD (R64, M64)`; a bare mnemonic has no list */
    struct ast_ident mnemonic;
    bool has_kinds;
    ast_idents kinds;                   /* `*` is kept as the name "*" */
    struct span span;
};

struct ast_term {                       /* `2*p06` */
    long count;
    struct ast_ident set;
    struct span span;
};

struct ast_use {                        /* `U_ALU[0,2](1)*3` or `NOTHING*3` in a template */
    struct ast_ident unit;              /* name "NOTHING" for an empty cycle */
    bool nothing, has_instances;
    ast_longs instances;
    long quantity, cycles;
    struct span span;
};
typedef VEC(struct ast_use) ast_cycle;
typedef VEC(ast_cycle) ast_alt;

struct ast_async_use {
    struct ast_ident name;
    long quantity;
    struct span span;
};

#define AST_ATTRS(X) \
    X(LATENCY, "latency") X(UOPS, "uops") X(TP, "tp") X(PORTS, "ports") \
    X(TEMPLATE, "template") X(ASYNC, "async") X(CLASS, "class")
enum ast_attr_kind {
#define X(e, s) AST_ATTR_##e,
    AST_ATTRS(X)
#undef X
    AST_ATTR_COUNT
};
extern const char *const ast_attr_names[];

struct ast_attr {                       /* the fields of its kind only (one union) */
    enum ast_attr_kind kind;
    struct span span;                   /* keyword to end of value */
    struct ast_src src;
    const struct ast_value *range;      /* `latency 4 range 3..6`; NULL if none */
    union {
        struct {
            struct ast_number num;      /* latency (number or range), tp, uops (the fused count) */
            long fused, unfused;        /* uops */
        };
        struct {                        /* ports */
            bool no_ports;              /* `ports none` */
            VEC(struct ast_term) terms;
        };
        VEC(ast_alt) alts;              /* template */
        VEC(struct ast_async_use) async;
        struct ast_ident cls;           /* class */
    };
};
typedef VEC(struct ast_attr) ast_attrs;

struct ast_selector {                   /* `ADD (R64, R64)`, `{CMP, TEST} (R64, R64)`, `fp_add` */
    ast_idents names;
    bool has_kinds, is_set;
    ast_idents kinds;
    struct span span;
};

struct ast_pattern {                    /* a selector and its operands: `$a`, `_` */
    struct ast_selector sel;
    ast_idents operands;
    struct span span;
};

struct ast_replace {
    struct ast_pattern first, second;   /* second only for `++` pairs */
    bool pair;
    bool to_nop;                        /* `with nop ...` */
    struct ast_form target;             /* `with FORM ...` */
    ast_idents reads, writes;           /* `$s -> $d` */
};

struct ast_bypass {
    struct ast_value latency;
    int sign;                           /* +1 / -1 relative, 0 absolute */
    struct ast_selector from, to;
    bool memory;
};

struct ast_depends {                    /* `depends POPCNT on destination` */
    struct ast_selector sel;
    ast_idents targets;                 /* names of mdl/depend.def */
};

struct ast_decoder {                    /* `decoder complex {SETZ, SETNZ}` */
    struct ast_ident kind;              /* `complex`, the one kind of decoder a rule can name */
    struct ast_selector sel;
};

#define AST_DECLS(X) \
    X(MACHINE, "machine") X(INCLUDE, "include") X(SOURCE, "source") X(PORTS, "ports") \
    X(UNITS, "units") X(ASYNC, "async") X(MAXIMUM, "maximum") X(INSN, "insn") \
    X(CLASS, "class") X(REPLACE, "replace") X(BYPASS, "bypass") X(DEPENDS, "depends") \
    X(DECODER, "decoder") X(BLOCK, "block")
enum ast_decl_kind {
#define X(e, s) AST_DECL_##e,
    AST_DECLS(X)
#undef X
};
extern const char *const ast_decl_names[];

/* One declaration: what every kind has, then the part its kind fills (one union, so a file of
 * many `insn` lines pays for an insn's fields, not for a replace's and a bypass's as well; the
 * two largest parts are held by pointer). Read only the part of the declaration's kind. */
struct ast_decl {
    enum ast_decl_kind kind;
    struct span span;
    struct ast_ident name;              /* machine, source, class; form mnemonic for insn */
    const char *text;                   /* include path, source text, insn form key */
    struct span text_span;
    struct ast_src src;                 /* maximum, bypass, depends, decoder */
    union {
        struct {                        /* machine and parameter blocks */
            struct ast_ident parent;    /* machine `extends`; name NULL if none */
            bool parent_is_path;
            struct ast_block block;
        };
        VEC(struct ast_unit) units;     /* ports, units, async */
        struct {                        /* maximum N from members */
            long maximum;
            struct span maximum_span;
            ast_idents members;
        };
        struct {                        /* insn (form and attributes), class (attributes) */
            struct ast_form form;
            ast_attrs attrs;
        };
        struct ast_replace *replace;
        struct ast_bypass *bypass;
        struct ast_depends depends;
        struct ast_decoder decoder;
    };
};

struct ast_file {
    uint32_t file;
    VEC(struct ast_decl *) decls;
};

/* The canonical key of a form: `ADD (R64, M64)`, or the bare mnemonic. */
const char *ast_form_key(struct arena *ar, const struct ast_form *f);

/* Prints the tree in a stable indented form (`mdlc --dump-ast`). */
void ast_dump(FILE *out, const struct ast_file *f);

#endif
