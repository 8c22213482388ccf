/* Semantic checks of a resolved description. Every check reports at the span of the offending
 * text and goes on, so one run lists every mistake; nothing here changes what was declared. */
#include "check.h"
#include <math.h>
#include <string.h>
#include "formcheck.h"
#include "isainfo.h"
#include "resolve.h"
#include "suggest.h"

const char *const check_class_names[] = {
#define X(e, s, doc) s,
#include "class.def"
#undef X
};
const size_t check_class_count = sizeof check_class_names / sizeof *check_class_names;

const char *const param_block_names[PB_COUNT] = {
#define B(e, s) s,
#include "param_blocks.def"
#undef B
};

const struct param_info param_table[P_COUNT] = {
#define X(blk, key, dim, en, lo, hi, fixed, doc) { PB_##blk, #key, DIM_##dim, #en, lo, hi, fixed, doc },
#include "param.def"
#undef X
};

static const struct { const char *type, *name; } enum_values[] = {
#define X(t, e, s) { #t, s },
#include "enum.def"
#undef X
};
enum { N_ENUM_VALUES = sizeof enum_values / sizeof *enum_values };

static const char *const depend_names[] = {
#define X(e, s, doc) s,
#include "depend.def"
#undef X
};
enum { N_DEPENDS = sizeof depend_names / sizeof *depend_names };

const char *check_enum_name(const char *type, unsigned index)
{
    for (unsigned i = 0; i < N_ENUM_VALUES; i++)
        if (strcmp(enum_values[i].type, type) == 0 && index-- == 0)
            return enum_values[i].name;
    return "?";
}

int check_depend_index(const char *name)
{
    for (int i = 0; i < N_DEPENDS; i++)
        if (strcmp(name, depend_names[i]) == 0)
            return i;
    return -1;
}

int check_class_index(const char *name)
{
    for (size_t i = 0; i < check_class_count; i++)
        if (strcmp(name, check_class_names[i]) == 0)
            return (int)i;
    return -1;
}

static struct diag *D(const struct program *p) { return p->diag; }

const char *check_span_text(const struct program *p, struct span s)
{
    const struct src_file *f = src_get(p->sm, s.file);
    return arena_strndup(p->ar, f->text + s.lo, s.hi - s.lo);
}

/* "; did you mean 'x'?" or "" */
static const char *suggestion(const struct program *p, const char *word, const char *const *cands, size_t n)
{
    const char *s = suggest_closest(word, cands, n);
    return s ? arena_printf(p->ar, "; did you mean '%s'?", s) : "";
}

/* ---- units -------------------------------------------------------------------------------- */

uint64_t check_unit_atoms(const struct prog_unit *u)
{
    if (u->async || u->first + (unsigned)u->unit->count > CHECK_MAX_ATOMS)
        return 0;
    uint64_t bits = u->unit->count >= 64 ? ~0ull : (1ull << u->unit->count) - 1;
    return bits << u->first;
}

uint64_t check_unit_set(const struct program *p, const char *name)
{
    const struct prog_unit *u = map_get(&p->unit_map, name);
    if (u)
        return check_unit_atoms(u);
    size_t len = strlen(name);
    char buf[128];
    if (len >= sizeof buf)
        return 0;
    for (size_t k = 1; k < len; k++) {
        uint64_t set = 0;
        memcpy(buf, name, k);
        buf[k + 1] = '\0';
        size_t c;
        for (c = k; c < len; c++) {
            buf[k] = name[c];
            const struct prog_unit *part = map_get(&p->unit_map, buf);
            if (!part || part->async || part->unit->count != 1)
                break;
            set |= check_unit_atoms(part);
        }
        if (c == len)
            return set;
    }
    return 0;
}

const char *check_atom_name(const struct program *p, unsigned atom)
{
    for (size_t i = 0; i < p->units.n; i++) {
        const struct prog_unit *u = p->units.v[i];
        if (u->async || atom < u->first || atom >= u->first + (unsigned)u->unit->count)
            continue;
        if (u->unit->count == 1)
            return u->unit->name.name;
        return arena_printf(p->ar, "%s[%u]", u->unit->name.name, atom - u->first);
    }
    return "?";
}

static void check_units(struct program *p)
{
    for (size_t i = 0; i < p->units.n; i++) {
        struct prog_unit *u = p->units.v[i];
        if (u->unit->count < 1 || u->unit->count > CHECK_MAX_ATOMS) {
            diag_error(D(p), u->unit->count_span, "the count of '%s' must be between 1 and %d",
                       u->unit->name.name, CHECK_MAX_ATOMS);
            continue;
        }
        if (u->async) {
            u->first = p->n_async++;
            continue;
        }
        if (p->n_atoms + (unsigned)u->unit->count > CHECK_MAX_ATOMS) {
            diag_error(D(p), u->unit->name.span, "too many unit instances: at most %d in one machine",
                       CHECK_MAX_ATOMS);
            u->first = CHECK_MAX_ATOMS;     /* denotes no instance from now on */
            continue;
        }
        u->first = p->n_atoms;
        p->n_atoms += (unsigned)u->unit->count;
    }
}

/* Names of all units, for suggestions. */
static const char *const *unit_names(const struct program *p, size_t *n)
{
    const char **names = arena_alloc(p->ar, (p->units.n + 1) * sizeof *names);
    for (size_t i = 0; i < p->units.n; i++)
        names[i] = p->units.v[i]->unit->name.name;
    *n = p->units.n;
    return names;
}

/* Resolves a mapping or template unit reference; reports unknown or async names. */
static uint64_t check_unit_ref(const struct program *p, const struct ast_ident *id, const char *where)
{
    const struct prog_unit *u = map_get(&p->unit_map, id->name);
    if (u && u->async) {
        diag_error(D(p), id->span, "'%s' is an asynchronous resource; use it with 'async %s(N)', not in %s",
                   id->name, id->name, where);
        return 0;
    }
    uint64_t set = check_unit_set(p, id->name);
    if (!set && u)
        return 0;   /* declared with a count that was refused: reported there, once */
    if (!set) {
        size_t n;
        const char *const *names = unit_names(p, &n);
        diag_error(D(p), id->span, "unknown port or unit '%s' in %s%s", id->name, where,
                   suggestion(p, id->name, names, n));
    }
    return set;
}

/* ---- sources ------------------------------------------------------------------------------ */

static void check_src(const struct program *p, const struct ast_src *s)
{
    if (s->kind != AST_SRC_NAME || map_get(&p->source_map, s->text))
        return;
    const char **names = arena_alloc(p->ar, (p->sources.n + 1) * sizeof *names);
    for (size_t i = 0; i < p->sources.n; i++)
        names[i] = p->sources.v[i]->name.name;
    diag_error(D(p), s->span, "unknown source '%s'; declare it with 'source %s \"...\";'%s", s->text, s->text,
               suggestion(p, s->text, names, p->sources.n));
}

/* ---- parameter blocks --------------------------------------------------------------------- */

static enum param_id param_lookup(enum param_block blk, const char *key)
{
    for (int i = 0; i < P_COUNT; i++)
        if (param_table[i].block == blk && strcmp(param_table[i].key, key) == 0)
            return (enum param_id)i;
    return P_COUNT;
}

/* "; 'KEY' belongs in a cache or memory block" when KEY is a key of blocks other than HERE, or "". */
static const char *param_home(const struct program *p, enum param_block here, const char *key)
{
    const char *home = NULL;
    for (int b = 0; b < PB_COUNT; b++)
        if (b != (int)here && param_lookup((enum param_block)b, key) != P_COUNT)
            home = home ? arena_printf(p->ar, "%s or %s", home, param_block_names[b]) : param_block_names[b];
    if (!home)
        return "";
    if (strcmp(home, param_block_names[PB_MACHINE]) == 0)
        return arena_printf(p->ar, "; '%s' belongs in the machine's own block, 'machine NAME { ... }'", key);
    return arena_printf(p->ar, "; '%s' belongs in a %s block", key, home);
}

static void param_unknown(struct program *p, const struct prog_block *b, const struct ast_param *pa)
{
    const char *keys[P_COUNT];
    size_t n = 0;
    for (int i = 0; i < P_COUNT; i++)
        if (param_table[i].block == b->kind)
            keys[n++] = param_table[i].key;
    const char *home = param_home(p, b->kind, pa->key.name);
    diag_error(D(p), pa->key.span, "unknown key '%s' in a %s block%s", pa->key.name, param_block_names[b->kind],
               home[0] ? home : suggestion(p, pa->key.name, keys, n));
}

static double unit_scale(const char *unit, const char *const *names, const double *scales, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(unit, names[i]) == 0)
            return scales[i];
    return 0;
}

static const char *const size_units[] = { "B", "KiB", "MiB", "GiB" };
static const double size_scales[] = { 1, 1024, 1048576, 1073741824 };

/* Checks the unit of a numeric value for its dimension; returns the scale to base units. */
static double param_scale(struct program *p, const struct param_info *pi, const struct ast_value *v)
{
    const char *u = v->unit.name, *per = v->per.name;
    switch (pi->dim) {
    case DIM_COUNT:
        if (u) {
            diag_error(D(p), v->unit.span, "'%s' is a count and takes no unit", pi->key);
            return 0;
        }
        if (!v->integral) {
            diag_error(D(p), v->span, "'%s' must be a whole number, got %s", pi->key, v->text);
            return 0;
        }
        return 1;
    case DIM_CYCLES:
        if (u && (per || (strcmp(u, "cycles") != 0 && strcmp(u, "cycle") != 0))) {
            diag_error(D(p), span_join(v->unit.span, per ? v->per.span : v->unit.span),
                       "'%s' is a time: write it in cycles", pi->key);
            return 0;
        }
        return 1;
    case DIM_BYTES:
    case DIM_BANDWIDTH: {
        bool bw = pi->dim == DIM_BANDWIDTH;
        double s = u ? unit_scale(u, size_units, size_scales, 4) : 0;
        bool per_ok = bw ? per && (strcmp(per, "cycle") == 0) : !per;
        if (!s || !per_ok) {
            diag_error(D(p), u ? span_join(v->unit.span, per ? v->per.span : v->unit.span) : v->span,
                       bw ? "'%s' is a bandwidth: write it as bytes per cycle, e.g. '64 B/cycle'"
                          : "'%s' is a size: give it a unit, B, KiB, MiB or GiB", pi->key);
            return 0;
        }
        return s;
    }
    default:
        return 0;
    }
}

static void param_enum(struct program *p, const struct param_info *pi, const struct ast_param *pa,
                       struct param_val *out)
{
    const char *names[N_ENUM_VALUES];
    size_t n = 0;
    int idx = -1;
    for (size_t i = 0; i < N_ENUM_VALUES; i++) {
        if (strcmp(enum_values[i].type, pi->enum_type) != 0)
            continue;
        if (pa->value.kind == AST_VAL_IDENT && strcmp(enum_values[i].name, pa->value.text) == 0)
            idx = (int)n;
        names[n++] = enum_values[i].name;
    }
    if (idx >= 0) {
        out->str = names[idx];
        out->enum_index = idx;
        out->set = true;
        return;
    }
    char list[256] = "";
    for (size_t i = 0, len = 0; i < n; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    diag_error(D(p), pa->value.span, "invalid %s '%s': expected one of %s%s", pi->key, pa->value.text, list,
               pa->value.kind == AST_VAL_IDENT ? suggestion(p, pa->value.text, names, n) : "");
}

/* Whether LO..HI (base units) lies within the key's bounds; if not, says so at AT. */
static bool param_within(struct program *p, const struct param_info *pi, struct span at, double lo, double hi)
{
    if (lo >= pi->lo && hi <= pi->hi)
        return true;
    diag_error(D(p), at, "%s %s is out of range: it must be between %.15g and %.15g%s", pi->key, check_span_text(p, at),
               pi->lo, pi->hi, pi->dim == DIM_BYTES || pi->dim == DIM_BANDWIDTH ? " bytes" : "");
    return false;
}

static void param_number(struct program *p, const struct param_info *pi, const struct ast_param *pa,
                         struct param_val *out)
{
    const struct ast_value *v = &pa->value;
    if (v->kind == AST_VAL_RANGE) {
        diag_error(D(p), v->span, "'%s' takes one value, not a range", pi->key);
        return;
    }
    double scale = param_scale(p, pi, v);
    if (!scale || !param_within(p, pi, v->span, v->lo * scale, v->lo * scale))
        return;
    out->num = out->num_hi = v->lo * scale;
    out->set = true;
}

/* ---- plausible ranges of uncertain values (§8.1) ------------------------------------------- */

/* The bounds as written, with the unit they are in: "11..20 cycles". */
static const char *range_text(const struct program *p, const struct ast_value *r, const struct ast_value *v)
{
    const struct ast_value *u = r->unit.name ? r : v;
    if (!u->unit.name)
        return r->text;
    return arena_printf(p->ar, "%s %s%s%s", r->text, u->unit.name, u->per.name ? "/" : "", u->per.name ? u->per.name : "");
}

/* What every range must be, LO, HI and X in one unit: two ordered bounds around the value, and a
 * reason (its own, else the annotation SRC that covers the value). WHAT names the value. */
static bool range_holds(struct program *p, const struct ast_value *r, double lo, double hi, double x,
                        const char *what, const char *bounds, const struct ast_src *src)
{
    if (lo > hi) {
        diag_error(D(p), r->span, "range %s is reversed: write the smaller bound first", r->text);
        return false;
    }
    if (lo == hi) {
        diag_error(D(p), r->span, "range %s is empty: its bounds must differ", r->text);
        return false;
    }
    if (x < lo || x > hi) {
        diag_error(D(p), r->span, "%s is outside its own range %s", what, bounds);
        return false;
    }
    if (r->src.kind == AST_SRC_NONE && (!src || src->kind == AST_SRC_NONE)) {
        diag_error(D(p), r->span, "a range needs its reason: write it after the bounds, as in 'range %s \"why\"', "
                   "or annotate the value", r->text);
        return false;
    }
    return true;
}

/* A block value's range: in the value's unit unless it names its own, checked as the value is
 * (unit, whole number, the key's bounds), for a key whose value each lane may hold apart. */
static void param_range(struct program *p, const struct param_info *pi, const struct ast_param *pa,
                        struct param_val *out)
{
    const struct ast_value *r = pa->value.range;
    if (r && pi->fixed[0])
        diag_error(D(p), r->span, "'%s' cannot take a range: %s", pi->key, pi->fixed);
    if (!r || pi->fixed[0] || !out->set)
        return;                 /* no range, one refused, or a value refused already */
    struct ast_value inherit = *r;
    if (!r->unit.name) {
        inherit.unit = pa->value.unit;
        inherit.per = pa->value.per;
    }
    double scale = param_scale(p, pi, &inherit);
    if (!scale || !range_holds(p, r, r->lo * scale, r->hi * scale, out->num,
                               arena_printf(p->ar, "%s %s", pi->key, check_span_text(p, pa->value.span)),
                               range_text(p, r, &pa->value), &pa->value.src) ||
        !param_within(p, pi, r->span, r->lo * scale, r->hi * scale))
        return;
    out->ranged = true;
    out->range_lo = r->lo * scale;
    out->range_hi = r->hi * scale;
}

/* Only an entry's latency, a single value, may carry a range: the other attributes are counts,
 * measurements or resources, and a MIN..MAX latency is a spread over operand pairs already. */
static void attr_range(struct program *p, const struct ast_decl *d, size_t i)
{
    const struct ast_attr *a = &d->attrs.v[i];
    const struct ast_value *r = a->range;
    if (!r)
        return;
    const char *name = ast_attr_names[a->kind];
    if (a->kind != AST_ATTR_LATENCY) {
        bool number = a->kind == AST_ATTR_UOPS || a->kind == AST_ATTR_TP;
        diag_error(D(p), r->span, "'%s' cannot take a range: %s", name,
                   number ? "of an entry's values only its latency can vary" : "it is not a number");
        return;
    }
    if (a->num.kind == AST_VAL_RANGE) {
        diag_error(D(p), r->span, "'latency %s' cannot take a range: it is a spread over operand pairs, not one value",
                   a->num.text);
        return;
    }
    static const struct param_info latency = { .key = "latency", .dim = DIM_CYCLES };
    if (param_scale(p, &latency, r) &&
        range_holds(p, r, r->lo, r->hi, a->num.lo, arena_printf(p->ar, "latency %s", a->num.text),
                    range_text(p, r, r), check_attr_source(d, i)) &&
        r->hi > CHECK_MAX_COUNT)
        diag_error(D(p), r->span, "latency range %s is out of range: at most %d cycles", r->text, CHECK_MAX_COUNT);
}

/* A bypass rule's latency: the bounds are of the number as written, its sign apart. */
static void bypass_range(struct program *p, const struct ast_decl *d)
{
    const struct ast_value *v = &d->bypass->latency, *r = v->range;
    static const struct param_info latency = { .key = "bypass latency", .dim = DIM_CYCLES };
    if (r && param_scale(p, &latency, r) &&
        range_holds(p, r, r->lo, r->hi, v->lo, arena_printf(p->ar, "bypass latency %s", check_span_text(p, v->span)),
                    range_text(p, r, r), &d->src) &&
        r->hi > 1000)
        diag_error(D(p), r->span, "bypass latency range %s is out of range: at most 1000 cycles", r->text);
}

const struct ast_src *check_attr_source(const struct ast_decl *d, size_t i)
{
    for (; i < d->attrs.n; i++)
        if (d->attrs.v[i].src.kind != AST_SRC_NONE)
            return &d->attrs.v[i].src;
    return NULL;
}

const char *check_source_text(const struct program *p, const struct ast_src *s)
{
    if (s->kind == AST_SRC_TEXT)
        return s->text;
    const struct ast_decl *d = s->kind == AST_SRC_NAME ? map_get(&p->source_map, s->text) : NULL;
    return d ? d->text : "";
}

static void check_param(struct program *p, struct prog_block *b, const struct ast_param *pa)
{
    enum param_id id = param_lookup(b->kind, pa->key.name);
    if (id == P_COUNT) {
        param_unknown(p, b, pa);
        return;
    }
    const struct param_info *pi = &param_table[id];
    struct param_val val = { .src = pa };
    bool numeric = pa->value.kind == AST_VAL_NUMBER || pa->value.kind == AST_VAL_RANGE;
    if (pi->dim == DIM_STRING) {
        if (pa->value.kind == AST_VAL_STRING)
            val = (struct param_val){ .set = true, .str = pa->value.text, .src = pa };
        else
            diag_error(D(p), pa->value.span, "'%s' takes a string in double quotes", pi->key);
    } else if (pi->dim == DIM_ENUM) {
        param_enum(p, pi, pa, &val);
    } else if (!numeric) {
        diag_error(D(p), pa->value.span, "'%s' takes a number, got %s", pi->key,
                   pa->value.kind == AST_VAL_STRING ? "a string" : arena_printf(p->ar, "'%s'", pa->value.text));
    } else {
        param_number(p, pi, pa, &val);
    }
    param_range(p, pi, pa, &val);
    check_src(p, &pa->value.src);
    if (val.set)
        b->vals[id] = val;
}

/* A key given twice in one block is a mistake; a child block giving it again overrides. */
static void check_param_duplicates(struct program *p, const struct ast_block *blk)
{
    for (size_t i = 0; i < blk->params.n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(blk->params.v[i].key.name, blk->params.v[j].key.name) == 0) {
                diag_error(D(p), blk->params.v[i].key.span, "'%s' is given twice in this block",
                           blk->params.v[i].key.name);
                diag_note(D(p), blk->params.v[j].key.span, "first given here");
                break;
            }
}

bool check_pow2(double x) { return x >= 1 && x == floor(x) && ((unsigned long long)x & ((unsigned long long)x - 1)) == 0; }

/* Whether the block gives KEY at all, valid or not: a wrong value is reported once, not
 * again as missing. */
static bool block_mentions(const struct prog_block *b, const char *key)
{
    for (size_t i = 0; b && i < b->params.n; i++)
        if (strcmp(b->params.v[i]->key.name, key) == 0)
            return true;
    return false;
}

static void check_cache(struct program *p, const struct prog_block *b)
{
    struct span at = b->decl->block.name.span;
    const struct param_val *size = &b->vals[P_CACHE_size], *ways = &b->vals[P_CACHE_ways], *line = &b->vals[P_CACHE_line];
    static const enum param_id required[] = { P_CACHE_level, P_CACHE_size, P_CACHE_ways, P_CACHE_line, P_CACHE_latency };
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!block_mentions(b, param_table[required[i]].key))
            diag_error(D(p), at, "cache %s does not give its %s", b->name, param_table[required[i]].key);
    if (line->set && !check_pow2(line->num))
        diag_error(D(p), line->src->value.span, "a cache line must be a power of two bytes, got %s", line->src->value.text);
    if (size->set && ways->set && line->set && fmod(size->num, ways->num * line->num) != 0)
        diag_error(D(p), size->src->value.span, "cache %s: size %s is not a whole number of sets of %g ways of %g bytes",
                   b->name, check_span_text(p, size->src->value.span), ways->num, line->num);
}

/* The short start-up names the strings it applies to: short_startup and short_max go together. */
static void check_strings(struct program *p, const struct prog_block *b)
{
    const struct param_val *start = &b->vals[P_STRINGS_short_startup], *max = &b->vals[P_STRINGS_short_max];
    if (start->set && !max->set && !block_mentions(b, "short_max"))
        diag_error(D(p), start->src->key.span, "'short_startup' needs 'short_max', the longest string it applies to");
    if (max->set && max->num > 0 && !start->set && !block_mentions(b, "short_startup"))
        diag_error(D(p), max->src->key.span, "'short_max' needs 'short_startup', the start-up of those strings");
}

/* A uop cache of windows (uop_cache_window) needs the rest of its organisation to be modelled. */
static void check_frontend(struct program *p, const struct prog_block *b)
{
    const struct param_val *win = &b->vals[P_FRONTEND_uop_cache_window];
    static const enum param_id needed[] = { P_FRONTEND_uop_cache_entries, P_FRONTEND_uop_cache_ways,
                                            P_FRONTEND_uop_cache_line, P_FRONTEND_uop_cache_window_ways };
    if (!win->set || win->num == 0)
        return;
    if (!check_pow2(win->num))
        diag_error(D(p), win->src->value.span, "a uop cache window must be a power of two bytes, got %s",
                   win->src->value.text);
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
        if (!b->vals[needed[i]].set || b->vals[needed[i]].num == 0)
            diag_error(D(p), win->src->value.span, "a uop cache of windows needs a nonzero %s as well",
                       param_table[needed[i]].key);
}

static void check_blocks(struct program *p)
{
    for (size_t l = 0; l < p->layers.n; l++)
        for (size_t i = 0; i < p->layers.v[l].decls.n; i++) {
            const struct ast_decl *d = p->layers.v[l].decls.v[i];
            if (d->kind == AST_DECL_BLOCK || d->kind == AST_DECL_MACHINE)
                check_param_duplicates(p, &d->block);
        }
    for (size_t i = 0; i < p->blocks.n; i++) {
        struct prog_block *b = p->blocks.v[i];
        for (size_t k = 0; k < b->params.n; k++)
            check_param(p, b, b->params.v[k]);
        if (b->kind == PB_CACHE)
            check_cache(p, b);
        if (b->kind == PB_STRINGS)
            check_strings(p, b);
        if (b->kind == PB_FRONTEND)
            check_frontend(p, b);
    }
    if (!block_mentions(map_get(&p->block_map, "block:machine"), "isa")) {
        char isas[128] = "";
        for (unsigned i = 0, n = 0; i < MDL_ISA_COUNT && n < sizeof isas; i++)
            n += (unsigned)snprintf(isas + n, sizeof isas - n, "%s'isa %s;'", i == 0 ? "" : i + 1 == MDL_ISA_COUNT ?
                                    " or " : ", ", isainfo_get(i)->name);
        diag_error(D(p), p->machine->name.span, "machine '%s' does not give its isa: add %s to its block", p->name,
                   isas);
    }
}

/* ---- instruction forms and class defaults -------------------------------------------------- */

static void check_latency(struct program *p, const struct ast_attr *a)
{
    if (a->num.lo > a->num.hi)
        diag_error(D(p), a->num.span, "latency range %s is reversed: write the smaller bound first", a->num.text);
    else if (a->num.hi > CHECK_MAX_COUNT)
        diag_error(D(p), a->num.span, "latency %s is out of range: at most %d cycles", a->num.text, CHECK_MAX_COUNT);
}

static void check_mapping(struct program *p, const struct ast_attr *a)
{
    for (size_t i = 0; i < a->terms.n; i++) {
        const struct ast_term *t = &a->terms.v[i];
        if (t->count < 1 || t->count > CHECK_MAX_COUNT)
            diag_error(D(p), t->span, "the uop count in '%ld*%s' must be between 1 and %d", t->count, t->set.name,
                       CHECK_MAX_COUNT);
        check_unit_ref(p, &t->set, "a mapping");
    }
}

static void check_use(struct program *p, const struct ast_use *u)
{
    if (u->cycles < 1)
        diag_error(D(p), u->span, "a repeat count must be at least 1");
    if (u->quantity < 1)
        diag_error(D(p), u->span, "a unit quantity must be at least 1");
    if (u->nothing)
        return;
    uint64_t set = check_unit_ref(p, &u->unit, "a template");
    const struct prog_unit *pu = map_get(&p->unit_map, u->unit.name);
    if (!set)
        return;
    long avail = __builtin_popcountll(set);
    if (u->has_instances) {
        if (!pu) {
            diag_error(D(p), u->span, "instances can only be chosen of a declared unit, not of the set '%s'", u->unit.name);
            return;
        }
        uint64_t chosen = 0;
        for (size_t k = 0; k < u->instances.n; k++) {
            if (u->instances.v[k] >= 0 && u->instances.v[k] < pu->unit->count) {
                chosen |= 1ull << u->instances.v[k];
                continue;
            }
            diag_error(D(p), u->span, "'%s' has no instance %ld: its instances are 0 to %ld", u->unit.name,
                       u->instances.v[k], pu->unit->count - 1);
            return;
        }
        avail = __builtin_popcountll(chosen);     /* `U[1,1]` is one instance */
    }
    if (u->quantity > avail)
        diag_error(D(p), u->span, "the template needs %ld of '%s' at once but only %ld can be chosen",
                   u->quantity, u->unit.name, avail);
}

/* Alternatives are lowered position by position (the union of the units chosen at each
 * position), so they must have the same cycles with the same number of uses in each. */
static bool same_shape(const ast_alt *a, const ast_alt *b)
{
    if (a->n != b->n)
        return false;
    for (size_t c = 0; c < a->n; c++) {
        if (a->v[c].n != b->v[c].n)
            return false;
        for (size_t u = 0; u < a->v[c].n; u++)
            if (a->v[c].v[u].nothing != b->v[c].v[u].nothing ||
                a->v[c].v[u].cycles != b->v[c].v[u].cycles || a->v[c].v[u].quantity != b->v[c].v[u].quantity)
                return false;
    }
    return true;
}

static void check_template(struct program *p, const struct ast_attr *a)
{
    for (size_t i = 0; i < a->alts.n; i++) {
        for (size_t c = 0; c < a->alts.v[i].n; c++)
            for (size_t u = 0; u < a->alts.v[i].v[c].n; u++)
                check_use(p, &a->alts.v[i].v[c].v[u]);
        if (i > 0 && !same_shape(&a->alts.v[0], &a->alts.v[i])) {
            struct span at = a->alts.v[i].v[0].v[0].span;
            at = span_join(at, a->alts.v[i].v[a->alts.v[i].n - 1].v[0].span);
            diag_error(D(p), at, "alternative %zu of the template has another shape than the first: "
                       "alternatives need the same cycles with the same number of units in each", i + 1);
        }
    }
}

static void check_async_uses(struct program *p, const struct ast_attr *a)
{
    for (size_t i = 0; i < a->async.n; i++) {
        const struct ast_async_use *u = &a->async.v[i];
        const struct prog_unit *pu = map_get(&p->unit_map, u->name.name);
        if (!pu || !pu->async)
            diag_error(D(p), u->name.span, "'%s' is not an asynchronous resource; declare it with 'async %s;'",
                       u->name.name, u->name.name);
        if (u->quantity < 1)
            diag_error(D(p), u->span, "an asynchronous use needs a quantity of at least 1");
    }
}

static void check_class_name(struct program *p, const struct ast_ident *id)
{
    if (check_class_index(id->name) < 0)
        diag_error(D(p), id->span, "unknown class '%s'%s", id->name,
                   suggestion(p, id->name, check_class_names, check_class_count));
}

static void check_attr(struct program *p, const struct ast_attr *a)
{
    switch (a->kind) {
    case AST_ATTR_LATENCY: check_latency(p, a); break;
    case AST_ATTR_UOPS:
        if (a->fused > CHECK_MAX_COUNT || a->unfused > CHECK_MAX_COUNT)
            diag_error(D(p), a->num.span, "uop counts must be at most %d", CHECK_MAX_COUNT);
        break;
    case AST_ATTR_TP:
        if (a->num.lo <= 0)
            diag_error(D(p), a->num.span, "tp is an inverse throughput in cycles and must be positive");
        break;
    case AST_ATTR_PORTS: check_mapping(p, a); break;
    case AST_ATTR_TEMPLATE: check_template(p, a); break;
    case AST_ATTR_ASYNC: check_async_uses(p, a); break;
    case AST_ATTR_CLASS: check_class_name(p, &a->cls); break;
    case AST_ATTR_COUNT: break;
    }
    check_src(p, &a->src);
}

static void check_entry(struct program *p, const struct ast_decl *d)
{
    const struct ast_attr *seen[AST_ATTR_COUNT] = { 0 };
    for (size_t i = 0; i < d->attrs.n; i++) {
        const struct ast_attr *a = &d->attrs.v[i];
        if (seen[a->kind]) {
            diag_error(D(p), a->span, "'%s' is given twice for this entry", ast_attr_names[a->kind]);
            diag_note(D(p), seen[a->kind]->span, "first given here");
            continue;
        }
        seen[a->kind] = a;
        check_attr(p, a);
        attr_range(p, d, i);
    }
    if (seen[AST_ATTR_PORTS] && seen[AST_ATTR_TEMPLATE])
        diag_error(D(p), seen[AST_ATTR_TEMPLATE]->span,
                   "an entry has either 'ports' or a 'template', not both");
    if (d->kind == AST_DECL_CLASS && seen[AST_ATTR_CLASS])
        diag_error(D(p), seen[AST_ATTR_CLASS]->span, "a class default cannot name another class");
}

/* ---- form keys: the decoder's spellings ----------------------------------------------------- */

/* The decoder's vocabulary for the machine's isa; NULL when the isa is not given (an error of
 * its own) or Capstone cannot be opened (said once). */
static struct formcheck *keys_open(struct program *p)
{
    const struct prog_block *b = map_get(&p->block_map, "block:machine");
    if (!b || !b->vals[P_MACHINE_isa].set)
        return NULL;
    char err[256];
    struct formcheck *fc = formcheck_open((enum mdl_isa)b->vals[P_MACHINE_isa].enum_index, err, sizeof err);
    if (!fc)
        diag_plain(D(p), DIAG_ERROR, "%s", err);
    return fc;
}

/* Reports a key the decoder cannot spell at AT: an error when it is malformed (lower case, a kind
 * the isa has not) and, where WARN, a warning when no instruction decodes with its mnemonic.
 * Returns whether it reported an error. */
static bool check_key(struct program *p, struct span at, const char *mnemonic, const ast_idents *kinds,
                      bool has_kinds, bool warn)
{
    if (!p->keys)
        return false;
    const char **k = arena_alloc(p->ar, (kinds->n + 1) * sizeof *k);
    for (size_t i = 0; i < kinds->n; i++)
        k[i] = kinds->v[i].name;
    struct formcheck_key key = { mnemonic, k, has_kinds ? kinds->n : 0, has_kinds };
    struct formcheck_verdict v;
    formcheck_key(p->keys, &key, &v);
    bool error = v.problem != FORMCHECK_OK && v.problem != FORMCHECK_UNKNOWN;
    if (!error && (v.problem == FORMCHECK_OK || !warn || p->no_warn_unmatched_form))
        return false;
    char message[512];
    formcheck_message(p->keys, &key, &v, message, sizeof message);
    if (error)
        diag_error(D(p), at, "%s", message);
    else
        diag_warning(D(p), at, "%s [-Wunmatched-form]", message);
    return error;
}

static void check_entries(struct program *p)
{
    map_init(&p->mnemonic_map, p->ar);
    for (size_t i = 0; i < p->forms.n; i++) {
        const struct ast_decl *d = p->forms.v[i];
        if (!map_get(&p->mnemonic_map, d->form.mnemonic.name))
            map_put(&p->mnemonic_map, d->form.mnemonic.name, (void *)d);
        check_key(p, d->form.span, d->form.mnemonic.name, &d->form.kinds, d->form.has_kinds, true);
        check_entry(p, d);
    }
    bool have[64] = { 0 };
    for (size_t i = 0; i < p->classes.n; i++) {
        const struct ast_decl *d = p->classes.v[i];
        check_class_name(p, &d->name);
        int c = check_class_index(d->name.name);
        if (c >= 0)
            have[c] = true;
        check_entry(p, d);
    }
    if (!have[0]) {
        diag_error(D(p), p->machine->name.span,
                   "machine '%s' has no 'class generic' default: every instruction without an entry needs one", p->name);
        return;
    }
    char missing[1024] = "";
    size_t len = 0, n = 0;
    for (size_t c = 1; c < check_class_count; c++)
        if (!have[c] && len < sizeof missing - 64) {
            len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s", n ? ", " : "", check_class_names[c]);
            n++;
        }
    if (n)
        diag_warning(D(p), p->machine->name.span, "no default for class%s %s: %s modelled as 'generic'",
                     n > 1 ? "es" : "", missing, n > 1 ? "they are" : "it is");
}

/* ---- rules: maximum, replace, bypass -------------------------------------------------------- */

static void check_maximum(struct program *p, const struct ast_decl *d)
{
    check_src(p, &d->src);
    uint64_t all = 0;
    for (size_t i = 0; i < d->members.n; i++)
        all |= check_unit_ref(p, &d->members.v[i], "a 'maximum' group");
    if (d->maximum < 1)
        diag_error(D(p), d->maximum_span, "'maximum' needs a limit of at least 1");
    else if (all && d->maximum >= __builtin_popcountll(all))
        diag_warning(D(p), d->maximum_span, "'maximum %ld' never binds: the group has only %d instance%s",
                     d->maximum, __builtin_popcountll(all), __builtin_popcountll(all) == 1 ? "" : "s");
}

/* A selector names forms (`ADD (R64, R64)`, a mnemonic, a set of mnemonics) or, where
 * CLASSES is set, instruction classes. Returns the number of kinds of the forms, or -1. */
static long check_selector(struct program *p, const struct ast_selector *s, bool classes)
{
    long nkinds = s->has_kinds ? (long)s->kinds.n : -1;
    for (size_t i = 0; i < s->names.n; i++) {
        const struct ast_ident *id = &s->names.v[i];
        if (classes && !s->has_kinds && check_class_index(id->name) >= 0)
            continue;
        const char *key = s->has_kinds ? ast_form_key(p->ar, &(struct ast_form){ .mnemonic = *id, .has_kinds = true,
                                                                                 .kinds = s->kinds })
                                       : id->name;
        bool found = s->has_kinds ? map_get(&p->form_map, key) != NULL : map_get(&p->mnemonic_map, key) != NULL;
        struct span at = s->has_kinds ? span_join(id->span, s->span) : id->span;
        if (found || ((!classes || s->has_kinds || s->is_set) && check_key(p, at, id->name, &s->kinds, s->has_kinds, false)))
            continue;
        if (classes)
            diag_error(D(p), id->span, "'%s' is neither a class nor an instruction form of this machine%s", key,
                       suggestion(p, id->name, check_class_names, check_class_count));
        else
            diag_error(D(p), at, "no instruction form '%s' in this machine", key);
    }
    return nkinds;
}

static bool var_bound(const struct ast_replace *r, const char *name)
{
    for (size_t i = 0; i < r->first.operands.n; i++)
        if (strcmp(r->first.operands.v[i].name, name) == 0)
            return true;
    for (size_t i = 0; r->pair && i < r->second.operands.n; i++)
        if (strcmp(r->second.operands.v[i].name, name) == 0)
            return true;
    return false;
}

static void check_pattern(struct program *p, const struct ast_pattern *pat)
{
    long nkinds = check_selector(p, &pat->sel, false);
    for (size_t i = 0; i < pat->operands.n; i++) {
        const struct ast_ident *op = &pat->operands.v[i];
        if (op->name[0] != '$' && strcmp(op->name, "_") != 0)
            diag_error(D(p), op->span, "a pattern operand is a variable such as $a, or _ for any; got '%s'", op->name);
    }
    if (pat->operands.n > 8)
        diag_error(D(p), pat->operands.v[8].span, "a pattern can name at most 8 operands of an instruction");
    else if (nkinds >= 0 && (long)pat->operands.n > nkinds)
        diag_error(D(p), pat->operands.v[nkinds].span, "the pattern has %zu operands but its form has %ld",
                   pat->operands.n, nkinds);
}

static void check_flow(struct program *p, const struct ast_replace *r, const ast_idents *vars)
{
    for (size_t i = 0; i < vars->n; i++)
        if (!var_bound(r, vars->v[i].name))
            diag_error(D(p), vars->v[i].span, "variable '%s' is not bound by the pattern", vars->v[i].name);
}

/* The replacement is one entry: a bare mnemonic is enough only when it has a single form. */
static void check_target(struct program *p, const struct ast_form *f)
{
    const char *key = ast_form_key(p->ar, f);
    const struct ast_decl *d = f->has_kinds ? map_get(&p->form_map, key) : map_get(&p->mnemonic_map, key);
    if (!d) {
        if (!check_key(p, f->span, f->mnemonic.name, &f->kinds, f->has_kinds, false))
            diag_error(D(p), f->span, "no instruction form '%s' in this machine to replace with", key);
        return;
    }
    if (f->has_kinds || map_get(&p->form_map, key))
        return;
    size_t forms = 0;
    for (size_t i = 0; i < p->forms.n; i++)
        forms += strcmp(p->forms.v[i]->form.mnemonic.name, key) == 0;
    if (forms > 1)
        diag_error(D(p), f->span, "'%s' has %zu forms; name the one to replace with, as in '%s'", key, forms, d->text);
}

static void check_replace(struct program *p, const struct ast_decl *d)
{
    const struct ast_replace *r = d->replace;
    check_pattern(p, &r->first);
    if (r->pair)
        check_pattern(p, &r->second);
    if (!r->to_nop)
        check_target(p, &r->target);
    check_flow(p, r, &r->reads);
    check_flow(p, r, &r->writes);
}

static void check_bypass(struct program *p, const struct ast_decl *d)
{
    check_src(p, &d->src);
    check_selector(p, &d->bypass->from, true);
    check_selector(p, &d->bypass->to, true);
    const struct ast_value *v = &d->bypass->latency;
    if (v->lo > 1000)
        diag_error(D(p), v->span, "bypass latency %s is out of range: at most 1000 cycles", v->text);
    else
        bypass_range(p, d);
}

/* The selector of a RULE that marks forms names entries, as a replacement pattern's does, and
 * no class. */
static void check_rule_forms(struct program *p, const struct ast_selector *s, const char *rule)
{
    if (!s->has_kinds && !s->is_set && check_class_index(s->names.v[0].name) >= 0)
        diag_error(D(p), s->span, "'%s' is a class: a '%s' rule names instruction forms, each with an entry",
                   s->names.v[0].name, rule);
    else
        check_selector(p, s, false);
}

/* The targets are depend.def's. */
static void check_depends(struct program *p, const struct ast_decl *d)
{
    check_src(p, &d->src);
    check_rule_forms(p, &d->depends.sel, "depends");
    for (size_t i = 0; i < d->depends.targets.n; i++) {
        const struct ast_ident *t = &d->depends.targets.v[i];
        if (check_depend_index(t->name) >= 0)
            continue;
        const char *all = depend_names[0];
        for (int k = 1; k < N_DEPENDS; k++)
            all = arena_printf(p->ar, "%s%s%s", all, k + 1 < N_DEPENDS ? ", " : " or ", depend_names[k]);
        diag_error(D(p), t->span, "unknown dependency '%s': a form can depend on its %s%s", t->name, all,
                   suggestion(p, t->name, depend_names, N_DEPENDS));
    }
}

/* The kind is `complex`. */
static void check_decoder(struct program *p, const struct ast_decl *d)
{
    check_src(p, &d->src);
    check_rule_forms(p, &d->decoder.sel, "decoder");
    static const char *const kinds[] = { "complex" };
    if (strcmp(d->decoder.kind.name, "complex") != 0)
        diag_error(D(p), d->decoder.kind.span, "unknown decoder '%s': a rule can name the complex decoders only "
                   "('decoder complex FORMS;')%s", d->decoder.kind.name, suggestion(p, d->decoder.kind.name, kinds, 1));
}

static void check_rules(struct program *p)
{
    for (size_t i = 0; i < p->maximums.n; i++)
        check_maximum(p, p->maximums.v[i]);
    for (size_t i = 0; i < p->replaces.n; i++)
        check_replace(p, p->replaces.v[i]);
    for (size_t i = 0; i < p->bypasses.n; i++)
        check_bypass(p, p->bypasses.v[i]);
    for (size_t i = 0; i < p->depends.n; i++)
        check_depends(p, p->depends.v[i]);
    for (size_t i = 0; i < p->decoders.n; i++)
        check_decoder(p, p->decoders.v[i]);
}

/* ---- values without a source (-Wmissing-source) ---------------------------------------------- */

/* §7: an annotation covers its own item and the unannotated items before it in the same list,
 * so an item is covered exactly when an annotation follows it there. Every file read counts,
 * parents and includes too: a value a child overrides was still written without a source. */
static void missing_source(struct program *p, struct span at, const char *what)
{
    diag_warning(D(p), at, "%s has no source; annotate it with @NAME or @\"...\" [-Wmissing-source]", what);
}

static bool attr_is_numeric(const struct ast_attr *a)
{
    return a->kind != AST_ATTR_CLASS && !(a->kind == AST_ATTR_PORTS && a->no_ports);
}

static void check_entry_sources(struct program *p, const struct ast_decl *d)
{
    size_t covered = 0;                 /* attributes before this index have a source */
    for (size_t i = d->attrs.n; i > 0 && !covered; i--)
        if (d->attrs.v[i - 1].src.kind != AST_SRC_NONE)
            covered = i;
    for (size_t i = covered; i < d->attrs.n; i++)
        if (attr_is_numeric(&d->attrs.v[i]))
            missing_source(p, d->attrs.v[i].span, arena_printf(p->ar, "'%s'", ast_attr_names[d->attrs.v[i].kind]));
}

static void check_unit_sources(struct program *p, const struct ast_decl *d)
{
    size_t covered = 0;
    for (size_t i = d->units.n; i > 0 && !covered; i--)
        if (d->units.v[i - 1].src.kind != AST_SRC_NONE)
            covered = i;
    for (size_t i = covered; i < d->units.n; i++) {
        const struct ast_unit *u = &d->units.v[i];
        missing_source(p, span_join(u->name.span, u->count_span), arena_printf(p->ar, "unit '%s'", u->name.name));
    }
}

static void check_block_sources(struct program *p, const struct ast_block *b)
{
    for (size_t i = 0; i < b->params.n; i++) {
        const struct ast_param *pa = &b->params.v[i];
        bool numeric = pa->value.kind == AST_VAL_NUMBER || pa->value.kind == AST_VAL_RANGE;
        if (numeric && pa->value.src.kind == AST_SRC_NONE)
            missing_source(p, pa->value.span, arena_printf(p->ar, "'%s'", pa->key.name));
    }
}

static void check_decl_sources(struct program *p, const struct ast_decl *d)
{
    switch (d->kind) {
    case AST_DECL_MACHINE:
    case AST_DECL_BLOCK: check_block_sources(p, &d->block); break;
    case AST_DECL_PORTS:
    case AST_DECL_UNITS:
    case AST_DECL_ASYNC: check_unit_sources(p, d); break;
    case AST_DECL_INSN:
    case AST_DECL_CLASS: check_entry_sources(p, d); break;
    case AST_DECL_MAXIMUM:
        if (d->src.kind == AST_SRC_NONE)
            missing_source(p, d->maximum_span, arena_printf(p->ar, "'maximum %ld'", d->maximum));
        break;
    case AST_DECL_BYPASS:
        if (d->src.kind == AST_SRC_NONE)
            missing_source(p, d->bypass->latency.span, arena_printf(p->ar, "'bypass latency %s'", check_span_text(p, d->bypass->latency.span)));
        break;
    case AST_DECL_DEPENDS:
        if (d->src.kind == AST_SRC_NONE)
            missing_source(p, d->depends.sel.span, arena_printf(p->ar, "'depends %s'", check_span_text(p, d->depends.sel.span)));
        break;
    case AST_DECL_DECODER:
        if (d->src.kind == AST_SRC_NONE)
            missing_source(p, d->decoder.sel.span, arena_printf(p->ar, "'decoder complex %s'", check_span_text(p, d->decoder.sel.span)));
        break;
    default: break;
    }
}

static void check_sources_given(struct program *p)
{
    for (size_t l = 0; l < p->layers.n; l++)
        for (size_t i = 0; i < p->layers.v[l].decls.n; i++)
            check_decl_sources(p, p->layers.v[l].decls.v[i]);
}

bool check_program(struct program *p)
{
    unsigned before = p->diag->errors;
    check_units(p);
    for (size_t i = 0; i < p->units.n; i++)
        check_src(p, &p->units.v[i]->unit->src);
    check_blocks(p);
    struct formcheck *keys = keys_open(p);
    p->keys = keys;
    check_entries(p);
    check_rules(p);
    p->keys = NULL;
    formcheck_free(keys);
    if (p->warn_missing_source)
        check_sources_given(p);
    return p->diag->errors == before;
}
