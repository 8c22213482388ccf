/* Pass 3: turns a checked description into the tables the runtime reads. Port mappings and
 * templates become conjunctive abstract resources (Gus after Palmed): every connected union of
 * the unit sets used, with as many uses per cycle as it has instances. */
#include "lower.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

_Static_assert((int)P_COUNT == (int)MDL_PARAM_COUNT, "mdlc's keys and the runtime's are param.def's");

struct occupancy {                  /* `count` uop-cycles on any instance of `atoms` */
    uint64_t atoms;
    double count;
};
typedef VEC(struct occupancy) occupancies;

struct lowering {
    struct program *p;
    struct mdl_machine *m;
    VEC(struct mdl_resource) res;
    VEC(struct mdl_use) uses;
    VEC(struct mdl_async_use) async_uses;
    VEC(struct mdl_occupancy) occupancies;
    VEC(uint32_t) match;
    VEC(struct mdl_uncertain) uncertain;
    VEC(occupancies) occ;           /* per template, before resources exist */
    struct map mnemonic_forms;      /* mnemonic -> VEC of template indices */
};

typedef VEC(uint32_t) index_list;

/* ---- occupancies of one entry ---------------------------------------------------------------- */

static void occ_add(struct lowering *lw, occupancies *o, uint64_t atoms, double count)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i].atoms == atoms) {
            o->v[i].count += count;
            return;
        }
    vec_push(lw->p->ar, o, ((struct occupancy){ atoms, count }));
}

static uint64_t use_atoms(const struct program *p, const struct ast_use *u)
{
    const struct prog_unit *pu = map_get(&p->unit_map, u->unit.name);
    if (!u->has_instances || !pu)
        return check_unit_set(p, u->unit.name);
    uint64_t set = 0;
    for (size_t k = 0; k < u->instances.n; k++)
        set |= 1ull << (pu->first + (unsigned)u->instances.v[k]);
    return set;
}

/* Alternatives share a shape (check), so position by position their choices merge into one
 * set: the instruction may use any of them. Returns the template's length in cycles. */
static double occ_template(struct lowering *lw, occupancies *o, const struct ast_attr *a)
{
    const ast_alt *first = &a->alts.v[0];
    double length = 0;
    for (size_t c = 0; c < first->n; c++) {
        long longest = 0;
        for (size_t u = 0; u < first->v[c].n; u++) {
            const struct ast_use *use = &first->v[c].v[u];
            if (use->cycles > longest)
                longest = use->cycles;
            if (use->nothing)
                continue;
            uint64_t set = 0;
            for (size_t alt = 0; alt < a->alts.n; alt++)
                set |= use_atoms(lw->p, &a->alts.v[alt].v[c].v[u]);
            occ_add(lw, o, set, (double)(use->quantity * use->cycles));
        }
        length += (double)longest;
    }
    return length;
}

/* ---- templates ------------------------------------------------------------------------------- */

static const struct ast_attr *attr_of(const struct ast_decl *d, enum ast_attr_kind k)
{
    for (size_t i = 0; i < d->attrs.n; i++)
        if (d->attrs.v[i].kind == k)
            return &d->attrs.v[i];
    return NULL;
}

static void lower_entry(struct lowering *lw, struct mdl_template *t, const struct ast_decl *d)
{
    occupancies o = { 0 };
    const struct ast_attr *a;
    double length = 0;
    if ((a = attr_of(d, AST_ATTR_PORTS)))
        for (size_t i = 0; i < a->terms.n; i++)
            occ_add(lw, &o, check_unit_set(lw->p, a->terms.v[i].set.name), (double)a->terms.v[i].count);
    if ((a = attr_of(d, AST_ATTR_TEMPLATE)))
        length = occ_template(lw, &o, a);
    t->latency_min = t->latency_max = (float)(length > 0 ? length : 1);
    if ((a = attr_of(d, AST_ATTR_LATENCY))) {
        t->latency_min = (float)a->num.lo;
        t->latency_max = (float)a->num.hi;
    }
    t->uops_fused = t->uops_unfused = 1;
    if ((a = attr_of(d, AST_ATTR_UOPS))) {
        t->uops_fused = (uint32_t)a->fused;
        t->uops_unfused = (uint32_t)a->unfused;
    }
    if ((a = attr_of(d, AST_ATTR_TP)))
        t->tp = (float)a->num.lo;
    t->cls = MDL_CLASS_UNSET;
    if ((a = attr_of(d, AST_ATTR_CLASS)))
        t->cls = (uint8_t)check_class_index(a->cls.name);
    if ((a = attr_of(d, AST_ATTR_ASYNC))) {
        t->async_first = (uint16_t)lw->async_uses.n;
        for (size_t i = 0; i < a->async.n; i++) {
            const struct prog_unit *u = map_get(&lw->p->unit_map, a->async.v[i].name.name);
            struct mdl_async_use au = { (uint16_t)u->first, (float)a->async.v[i].quantity / (float)u->unit->count };
            vec_push(lw->p->ar, &lw->async_uses, au);
        }
        t->async_count = (uint16_t)a->async.n;
    }
    vec_push(lw->p->ar, &lw->occ, o);
}

/* ---- uncertain values ------------------------------------------------------------------------ */

/* An uncertain value of the machine: where it lives, its range, why, and the line it is on. */
static void uncertain_add(struct lowering *lw, struct mdl_uncertain u, const struct ast_value *range,
                          const struct ast_src *annot)
{
    unsigned line, col;
    struct span at = range->span;
    src_position(lw->p->sm, at.file, at.lo, &line, &col);
    u.reason = check_source_text(lw->p, range->src.kind != AST_SRC_NONE ? &range->src : annot);
    u.where = arena_printf(lw->p->ar, "%s:%u", src_get(lw->p->sm, at.file)->path, line);
    vec_push(lw->p->ar, &lw->uncertain, u);
}

/* The latency of template T, from entry D, when it has a range (only a single latency may). */
static void uncertain_latency(struct lowering *lw, uint32_t t, const struct ast_decl *d)
{
    for (size_t i = 0; i < d->attrs.n; i++) {
        const struct ast_attr *a = &d->attrs.v[i];
        if (a->kind != AST_ATTR_LATENCY || !a->range)
            continue;
        const char *name = d->kind == AST_DECL_CLASS ? arena_printf(lw->p->ar, "class.%s.latency", d->name.name)
                                                      : arena_printf(lw->p->ar, "insn.%s.latency", d->text);
        uncertain_add(lw, (struct mdl_uncertain){ .name = name, .vary = MDL_VARY_LATENCY, .index = t,
                                                  .value = (float)a->num.lo, .lo = (float)a->range->lo,
                                                  .hi = (float)a->range->hi },
                      a->range, check_attr_source(d, i));
    }
}

static int template_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct ast_decl *const *)a)->text, (*(const struct ast_decl *const *)b)->text);
}

static void lower_templates(struct lowering *lw)
{
    struct program *p = lw->p;
    size_t nf = p->forms.n, n = nf + p->classes.n;
    const struct ast_decl **sorted = arena_alloc(p->ar, (nf + 1) * sizeof *sorted);
    if (nf)
        memcpy(sorted, p->forms.v, nf * sizeof *sorted);
    qsort(sorted, nf, sizeof *sorted, template_cmp);
    struct mdl_template *t = arena_alloc(p->ar, (n + 1) * sizeof *t);
    map_init(&lw->mnemonic_forms, p->ar);
    for (size_t i = 0; i < nf; i++) {
        t[i].name = sorted[i]->text;
        lower_entry(lw, &t[i], sorted[i]);
        uncertain_latency(lw, (uint32_t)i, sorted[i]);
        index_list *l = map_get(&lw->mnemonic_forms, sorted[i]->form.mnemonic.name);
        if (!l) {
            l = arena_alloc(p->ar, sizeof *l);
            map_put(&lw->mnemonic_forms, sorted[i]->form.mnemonic.name, l);
        }
        vec_push(p->ar, l, (uint32_t)i);
    }
    for (size_t c = 0; c < MDL_CLASS_COUNT; c++)
        lw->m->class_default[c] = UINT32_MAX;
    for (size_t i = 0; i < p->classes.n; i++) {
        const struct ast_decl *d = p->classes.v[i];
        t[nf + i].name = arena_printf(p->ar, "class:%s", d->name.name);
        lower_entry(lw, &t[nf + i], d);
        uncertain_latency(lw, (uint32_t)(nf + i), d);
        int c = check_class_index(d->name.name);
        t[nf + i].cls = (uint8_t)c;
        lw->m->class_default[c] = (uint32_t)(nf + i);
    }
    for (size_t c = 0; c < MDL_CLASS_COUNT; c++)
        if (lw->m->class_default[c] == UINT32_MAX)
            lw->m->class_default[c] = lw->m->class_default[MDL_CLASS_GENERIC];
    lw->m->templates = t;
    lw->m->n_forms = (uint32_t)nf;
    lw->m->n_templates = (uint32_t)n;
}

/* ---- abstract resources ----------------------------------------------------------------------- */

static const char *resource_name(const struct program *p, uint64_t atoms)
{
    /* Compact form when every instance is a one-instance unit named prefix+char (p0156). */
    size_t plen = 0;
    const char *prefix = NULL;
    bool compact = true;
    char buf[512];
    size_t len = 0;
    for (unsigned a = 0; a < 64 && compact; a++) {
        if (!(atoms >> a & 1))
            continue;
        const char *n = check_atom_name(p, a);
        size_t l = strlen(n);
        if (!prefix) {
            prefix = n;
            plen = l - 1;
        }
        if (l != plen + 1 || strncmp(n, prefix, plen) != 0 || strchr(n, '['))
            compact = false;
        else if (len < sizeof buf - 2)
            buf[len++] = n[plen];
    }
    if (compact && prefix && __builtin_popcountll(atoms) > 1)
        return arena_printf(p->ar, "%.*s%.*s", (int)plen, prefix, (int)len, buf);
    for (size_t i = 0; i < p->units.n; i++)
        if (!p->units.v[i]->async && check_unit_atoms(p->units.v[i]) == atoms)
            return p->units.v[i]->unit->name.name;
    len = 0;
    for (unsigned a = 0; a < 64; a++)
        if (atoms >> a & 1)
            len += (size_t)snprintf(buf + len, len < sizeof buf ? sizeof buf - len : 0, "%s%s",
                                    len ? "|" : "", check_atom_name(p, a));
    return arena_strdup(p->ar, buf);
}

static bool resource_known(const struct lowering *lw, uint64_t atoms)
{
    for (size_t i = 0; i < lw->res.n; i++)
        if (!lw->res.v[i].is_group && lw->res.v[i].units == atoms)
            return true;
    return false;
}

static void resource_add(struct lowering *lw, uint64_t atoms)
{
    struct mdl_resource r = { NULL, atoms, (uint16_t)__builtin_popcountll(atoms), 0 };
    vec_push(lw->p->ar, &lw->res, r);
}

/* Every set used, then unions of overlapping pairs until nothing new appears: a union of
 * disjoint sets never binds tighter than its parts, so only connected unions are kept. */
static bool lower_resources(struct lowering *lw)
{
    for (size_t t = 0; t < lw->occ.n; t++)
        for (size_t i = 0; i < lw->occ.v[t].n; i++)
            if (lw->occ.v[t].v[i].atoms && !resource_known(lw, lw->occ.v[t].v[i].atoms))
                resource_add(lw, lw->occ.v[t].v[i].atoms);
    for (size_t i = 0; i < lw->res.n; i++)
        for (size_t j = 0; j < i; j++) {
            uint64_t a = lw->res.v[i].units, b = lw->res.v[j].units;
            if ((a & b) && !resource_known(lw, a | b))
                resource_add(lw, a | b);
            if (lw->res.n > LOWER_MAX_RESOURCES) {
                diag_plain(lw->p->diag, DIAG_ERROR, "machine '%s': the port mappings make more than %d abstract "
                           "resources; merge some unit sets", lw->p->name, LOWER_MAX_RESOURCES);
                return false;
            }
        }
    for (size_t i = 0; i < lw->res.n; i++)
        lw->res.v[i].name = resource_name(lw->p, lw->res.v[i].units);
    return true;
}

/* A `maximum N from G` limit is one more resource of width N taken by every use inside G. */
static void lower_groups(struct lowering *lw)
{
    for (size_t g = 0; g < lw->p->maximums.n; g++) {
        const struct ast_decl *d = lw->p->maximums.v[g];
        uint64_t group = 0;
        for (size_t i = 0; i < d->members.n; i++)
            group |= check_unit_set(lw->p, d->members.v[i].name);
        struct mdl_resource r = { arena_printf(lw->p->ar, "maximum%zu", g), group, (uint16_t)d->maximum, 1 };
        vec_push(lw->p->ar, &lw->res, r);
    }
}

/* The key under which identical occupancy lists share one run of uses. */
static const char *occ_key(struct arena *ar, const occupancies *o)
{
    char *key = arena_alloc(ar, o->n * 40 + 1), *k = key;
    for (size_t i = 0; i < o->n; i++)
        k += sprintf(k, "%llx:%.17g;", (unsigned long long)o->v[i].atoms, o->v[i].count);
    return key;
}

static void lower_uses_of(struct lowering *lw, const occupancies *o)
{
    for (size_t r = 0; r < lw->res.n; r++) {
        double count = 0;
        for (size_t i = 0; i < o->n; i++)
            if (o->v[i].atoms && (o->v[i].atoms & ~lw->res.v[r].units) == 0)
                count += o->v[i].count;
        if (count > 0)
            vec_push(lw->p->ar, &lw->uses, ((struct mdl_use){ (uint16_t)r, (float)(count / lw->res.v[r].width) }));
    }
}

static void lower_occupancies_of(struct lowering *lw, const occupancies *o)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i].atoms)
            vec_push(lw->p->ar, &lw->occupancies, ((struct mdl_occupancy){ o->v[i].atoms, (float)o->v[i].count }));
}

/* Cost of a template on each resource: its uop-cycles on sets inside the resource, per
 * instance; and its occupancies as they are, for a machine that chooses ports. Templates with
 * the same occupancies (most of a uops.info table) share one run of each. */
static void lower_uses(struct lowering *lw)
{
    struct mdl_template *t = (struct mdl_template *)lw->m->templates;
    struct map runs;
    map_init(&runs, lw->p->ar);
    for (size_t k = 0; k < lw->m->n_templates; k++) {
        const char *key = occ_key(lw->p->ar, &lw->occ.v[k]);
        const struct mdl_template *same = map_get(&runs, key);
        if (same) {
            t[k].use_first = same->use_first;
            t[k].use_count = same->use_count;
            t[k].occ_first = same->occ_first;
            t[k].occ_count = same->occ_count;
            continue;
        }
        t[k].use_first = (uint32_t)lw->uses.n;
        lower_uses_of(lw, &lw->occ.v[k]);
        t[k].use_count = (uint16_t)(lw->uses.n - t[k].use_first);
        t[k].occ_first = (uint32_t)lw->occupancies.n;
        lower_occupancies_of(lw, &lw->occ.v[k]);
        t[k].occ_count = (uint16_t)(lw->occupancies.n - t[k].occ_first);
        map_put(&runs, key, &t[k]);
    }
}

/* ---- rules ------------------------------------------------------------------------------------ */

static uint32_t template_index(const struct lowering *lw, const char *key)
{
    const struct mdl_template *t = lw->m->templates;
    size_t lo = 0, hi = lw->m->n_forms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(t[mid].name, key);
        if (c == 0)
            return (uint32_t)mid;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return UINT32_MAX;
}

/* Appends the templates a selector names to the match list; returns how many. */
static uint32_t lower_selector(struct lowering *lw, const struct ast_selector *s, uint64_t *classes)
{
    size_t before = lw->match.n;
    for (size_t i = 0; i < s->names.n; i++) {
        const char *name = s->names.v[i].name;
        if (classes && !s->has_kinds && check_class_index(name) >= 0) {
            *classes |= 1ull << check_class_index(name);
            continue;
        }
        if (s->has_kinds) {
            struct ast_form f = { .mnemonic = s->names.v[i], .has_kinds = true, .kinds = s->kinds };
            uint32_t k = template_index(lw, ast_form_key(lw->p->ar, &f));
            if (k != UINT32_MAX)
                vec_push(lw->p->ar, &lw->match, k);
            continue;
        }
        const index_list *l = map_get(&lw->mnemonic_forms, name);
        for (size_t j = 0; l && j < l->n; j++)
            vec_push(lw->p->ar, &lw->match, l->v[j]);
    }
    return (uint32_t)(lw->match.n - before);
}

static int slot_of(const struct ast_replace *r, const char *var)
{
    for (size_t i = 0; i < r->first.operands.n; i++)
        if (strcmp(r->first.operands.v[i].name, var) == 0)
            return (int)i;
    for (size_t i = 0; r->pair && i < r->second.operands.n; i++)
        if (strcmp(r->second.operands.v[i].name, var) == 0)
            return 8 + (int)i;
    return -1;
}

static void lower_same(struct mdl_replace *out, const struct ast_replace *r, const ast_idents *ops, int base)
{
    for (size_t i = 0; i < ops->n && i < 8; i++) {
        int first = slot_of(r, ops->v[i].name);
        if (ops->v[i].name[0] == '$' && first != base + (int)i && out->n_same < 8) {
            out->same[out->n_same][0] = (uint8_t)first;
            out->same[out->n_same][1] = (uint8_t)(base + (int)i);
            out->n_same++;
        }
    }
}

static uint16_t slot_mask(const struct ast_replace *r, const ast_idents *vars)
{
    uint16_t mask = 0;
    for (size_t i = 0; i < vars->n; i++) {
        int s = slot_of(r, vars->v[i].name);
        if (s >= 0 && s < 16)
            mask |= (uint16_t)(1u << s);
    }
    return mask;
}

/* The entry of exactly that key, else the single form of a bare mnemonic (check). */
static int32_t lower_target(const struct lowering *lw, const struct ast_form *f)
{
    uint32_t k = template_index(lw, ast_form_key(lw->p->ar, f));
    if (k == UINT32_MAX && !f->has_kinds) {
        const index_list *l = map_get(&lw->mnemonic_forms, f->mnemonic.name);
        if (l && l->n)
            k = l->v[0];
    }
    return k == UINT32_MAX ? -1 : (int32_t)k;
}

static void lower_replaces(struct lowering *lw)
{
    struct mdl_replace *out = arena_alloc(lw->p->ar, (lw->p->replaces.n + 1) * sizeof *out);
    for (size_t i = 0; i < lw->p->replaces.n; i++) {
        const struct ast_replace *r = lw->p->replaces.v[i]->replace;
        out[i].kind = r->to_nop ? MDL_REPLACE_NOP : MDL_REPLACE_FORM;
        out[i].pair = r->pair;
        out[i].first = (uint32_t)lw->match.n;
        out[i].first_count = lower_selector(lw, &r->first.sel, NULL);
        out[i].second = (uint32_t)lw->match.n;
        out[i].second_count = r->pair ? lower_selector(lw, &r->second.sel, NULL) : 0;
        out[i].target = -1;
        if (!r->to_nop)
            out[i].target = lower_target(lw, &r->target);
        out[i].reads = slot_mask(r, &r->reads);
        out[i].writes = slot_mask(r, &r->writes);
        lower_same(&out[i], r, &r->first.operands, 0);
        if (r->pair)
            lower_same(&out[i], r, &r->second.operands, 8);
    }
    lw->m->replaces = out;
    lw->m->n_replaces = (uint32_t)lw->p->replaces.n;
}

static bool same_templates(const struct lowering *lw, uint32_t a, uint32_t na, uint32_t b, uint32_t nb)
{
    return na == nb && (na == 0 || memcmp(&lw->match.v[a], &lw->match.v[b], na * sizeof *lw->match.v) == 0);
}

/* Whether a later rule selects the same producers and consumers: then rule I never applies. */
static bool bypass_shadowed(const struct lowering *lw, uint32_t i)
{
    const struct mdl_bypass *b = lw->m->bypasses, *x = &b[i];
    for (uint32_t j = i + 1; j < lw->m->n_bypasses; j++)
        if (b[j].memory == x->memory && b[j].from_classes == x->from_classes && b[j].to_classes == x->to_classes &&
            same_templates(lw, b[j].from, b[j].from_count, x->from, x->from_count) &&
            same_templates(lw, b[j].to, b[j].to_count, x->to, x->to_count))
            return true;
    return false;
}

/* Rule I's latency when it has a range and still applies: a rule restated later (a child's
 * override) takes its place, range or none. */
static void uncertain_bypass(struct lowering *lw, uint32_t i)
{
    const struct ast_decl *d = lw->p->bypasses.v[i];
    const struct ast_bypass *b = d->bypass;
    if (!b->latency.range || bypass_shadowed(lw, i))
        return;
    const char *name = arena_printf(lw->p->ar, "bypass.%s -> %s%s", check_span_text(lw->p, b->from.span),
                                    b->memory ? "memory " : "", check_span_text(lw->p, b->to.span));
    uncertain_add(lw, (struct mdl_uncertain){ .name = name, .vary = MDL_VARY_BYPASS, .index = i,
                                              .value = (float)b->latency.lo, .lo = (float)b->latency.range->lo,
                                              .hi = (float)b->latency.range->hi },
                  b->latency.range, &d->src);
}

static void lower_bypasses(struct lowering *lw)
{
    struct mdl_bypass *out = arena_alloc(lw->p->ar, (lw->p->bypasses.n + 1) * sizeof *out);
    for (size_t i = 0; i < lw->p->bypasses.n; i++) {
        const struct ast_bypass *b = lw->p->bypasses.v[i]->bypass;
        out[i].from = (uint32_t)lw->match.n;
        out[i].from_count = lower_selector(lw, &b->from, &out[i].from_classes);
        out[i].to = (uint32_t)lw->match.n;
        out[i].to_count = lower_selector(lw, &b->to, &out[i].to_classes);
        out[i].memory = b->memory;
        out[i].sign = (int8_t)b->sign;
        out[i].latency = (float)b->latency.lo;
    }
    lw->m->bypasses = out;
    lw->m->n_bypasses = (uint32_t)lw->p->bypasses.n;
    for (size_t i = 0; i < lw->p->bypasses.n; i++)
        uncertain_bypass(lw, (uint32_t)i);
}

/* A `depends` rule marks the templates it selects: the runtime adds the old values as sources. */
static void lower_depends(struct lowering *lw)
{
    for (size_t i = 0; i < lw->p->depends.n; i++) {
        const struct ast_depends *d = &lw->p->depends.v[i]->depends;
        uint8_t bits = 0;
        for (size_t k = 0; k < d->targets.n; k++)
            bits |= (uint8_t)(1u << check_depend_index(d->targets.v[k].name));
        struct mdl_template *t = (struct mdl_template *)lw->m->templates;
        size_t first = lw->match.n;
        lower_selector(lw, &d->sel, NULL);
        for (size_t k = first; k < lw->match.n; k++)
            t[lw->match.v[k]].depends |= bits;
        lw->match.n = first;        /* the marks are the whole rule: no template list to keep */
    }
}

/* A `decoder complex` rule marks the templates it selects: only the complex decoders take them. */
static void lower_decoders(struct lowering *lw)
{
    for (size_t i = 0; i < lw->p->decoders.n; i++) {
        struct mdl_template *t = (struct mdl_template *)lw->m->templates;
        size_t first = lw->match.n;
        lower_selector(lw, &lw->p->decoders.v[i]->decoder.sel, NULL);
        for (size_t k = first; k < lw->match.n; k++)
            t[lw->match.v[k]].complex_decode = 1;
        lw->match.n = first;
    }
}

/* ---- parameters -------------------------------------------------------------------------------- */

static const struct param_val *val(const struct program *p, const char *block, enum param_id id)
{
    const struct prog_block *b = map_get(&p->block_map, block);
    return b && b->vals[id].set ? &b->vals[id] : NULL;
}

#define NUM(block, id) (val(lw->p, block, id) ? val(lw->p, block, id)->num : 0)
#define ENUMV(block, id, dflt) (val(lw->p, block, id) ? val(lw->p, block, id)->enum_index : (dflt))

static int cache_cmp(const void *a, const void *b)
{
    const struct mdl_cache *x = a, *y = b;
    return x->level != y->level ? x->level - y->level : x->kind - y->kind;
}

static void lower_caches(struct lowering *lw)
{
    struct program *p = lw->p;
    struct mdl_cache *c = arena_alloc(p->ar, (p->blocks.n + 1) * sizeof *c);
    size_t n = 0;
    for (size_t i = 0; i < p->blocks.n; i++) {
        const struct prog_block *b = p->blocks.v[i];
        if (b->kind != PB_CACHE)
            continue;
        const struct param_val *v = b->vals;
        c[n++] = (struct mdl_cache){
            .name = b->name, .level = (uint8_t)v[P_CACHE_level].num,
            .kind = (uint8_t)(v[P_CACHE_type].set ? v[P_CACHE_type].enum_index : MDL_CACHE_UNIFIED),
            .policy = (uint8_t)(v[P_CACHE_policy].set ? v[P_CACHE_policy].enum_index : MDL_POLICY_PLRU),
            .prefetch = (uint8_t)(v[P_CACHE_prefetch].set ? v[P_CACHE_prefetch].enum_index : MDL_PREFETCH_NONE),
            .size = (uint64_t)v[P_CACHE_size].num, .ways = (uint32_t)v[P_CACHE_ways].num,
            .line = (uint32_t)v[P_CACHE_line].num, .latency = (float)v[P_CACHE_latency].num,
            .bandwidth = (float)v[P_CACHE_bandwidth].num, .outstanding = (uint32_t)v[P_CACHE_outstanding].num,
        };
    }
    qsort(c, n, sizeof *c, cache_cmp);
    lw->m->caches = c;
    lw->m->n_caches = (uint16_t)n;
}

static void lower_params(struct lowering *lw)
{
    struct mdl_machine *m = lw->m;
    const struct param_val *v;
    m->name = lw->p->name;
    m->isa = (uint8_t)ENUMV("block:machine", P_MACHINE_isa, 0);
    m->qemu_cpu = (v = val(lw->p, "block:machine", P_MACHINE_qemu_cpu)) ? v->str : "";
    m->description = (v = val(lw->p, "block:machine", P_MACHINE_description)) ? v->str : "";
#define FE(f) m->f = (__typeof__(m->f))NUM("block:frontend", P_FRONTEND_##f);
    FE(fetch_bytes) FE(predecode_width) FE(decode_width) FE(complex_decoders) FE(issue_width) FE(uop_cache_width)
    FE(uop_cache_entries) FE(uop_cache_window) FE(uop_cache_ways) FE(uop_cache_line) FE(uop_cache_window_ways)
    FE(uop_cache_switch) FE(loop_buffer) FE(idq) FE(taken_branch_bubble)
#undef FE
#define WI(f) m->f = (__typeof__(m->f))NUM("block:window", P_WINDOW_##f);
    WI(rob) WI(scheduler) WI(load_buffer) WI(store_buffer) WI(retire_width)
#undef WI
    m->port_choice = (uint8_t)ENUMV("block:window", P_WINDOW_port_choice, MDL_PORT_CHOICE_NONE);
    m->wakeup_delay = (float)NUM("block:window", P_WINDOW_wakeup_delay);
#define BR(f) m->f = (__typeof__(m->f))NUM("block:branch", P_BRANCH_##f);
    BR(history_bits) BR(table_entries) BR(btb_entries) BR(btb_ways) BR(ras_entries) BR(mispredict_penalty)
#undef BR
    m->predictor = (uint8_t)ENUMV("block:branch", P_BRANCH_predictor, MDL_PREDICTOR_STATIC);
    m->indirect = (uint8_t)ENUMV("block:branch", P_BRANCH_indirect, MDL_INDIRECT_BTB);
    m->memory_latency = (float)NUM("block:memory", P_MEMORY_latency);
    m->memory_bandwidth = (float)NUM("block:memory", P_MEMORY_bandwidth);
    m->store_forward_fail = (float)NUM("block:memory", P_MEMORY_store_forward_fail);
    m->pointer_chase = (float)NUM("block:memory", P_MEMORY_pointer_chase);
#define ST(f) m->strings.f = (__typeof__(m->strings.f))NUM("block:strings", P_STRINGS_##f);
    ST(startup) ST(short_startup) ST(short_max) ST(copy_rate) ST(unaligned_rate) ST(fill_rate) ST(element_cycles)
#undef ST
    lower_caches(lw);
}

static uint32_t cache_index(const struct mdl_machine *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_caches; i++)
        if (strcmp(m->caches[i].name, name) == 0)
            return i;
    return 0;
}

/* The block values given with a range, block by block in the order the description gives them. */
static void uncertain_params(struct lowering *lw)
{
    for (size_t i = 0; i < lw->p->blocks.n; i++) {
        const struct prog_block *b = lw->p->blocks.v[i];
        for (int k = 0; k < P_COUNT; k++) {
            const struct param_val *v = &b->vals[k];
            if (!v->set || !v->ranged)
                continue;
            const char *key = param_table[k].key;
            const char *name = b->kind == PB_CACHE ? arena_printf(lw->p->ar, "cache.%s.%s", b->name, key)
                                                   : arena_printf(lw->p->ar, "%s.%s", param_block_names[b->kind], key);
            struct mdl_uncertain u = { .name = name, .vary = MDL_VARY_PARAM, .param = (uint16_t)k,
                                       .index = b->kind == PB_CACHE ? cache_index(lw->m, b->name) : 0,
                                       .value = (float)v->num, .lo = (float)v->range_lo, .hi = (float)v->range_hi };
            uncertain_add(lw, u, v->src->value.range, &v->src->value.src);
        }
    }
}

static void lower_async(struct lowering *lw)
{
    struct mdl_async *a = arena_alloc(lw->p->ar, (lw->p->n_async + 1) * sizeof *a);
    for (size_t i = 0; i < lw->p->units.n; i++) {
        const struct prog_unit *u = lw->p->units.v[i];
        if (u->async)
            a[u->first] = (struct mdl_async){ u->unit->name.name, (uint16_t)u->unit->count };
    }
    lw->m->async = a;
    lw->m->n_async = (uint16_t)lw->p->n_async;
}

struct mdl_machine *lower_program(struct program *p)
{
    struct lowering lw = { .p = p };
    lw.m = arena_alloc(p->ar, sizeof *lw.m);
    lower_params(&lw);
    uncertain_params(&lw);
    lower_async(&lw);
    lower_templates(&lw);
    if (!lower_resources(&lw))
        return NULL;
    lower_groups(&lw);
    lower_uses(&lw);
    lower_replaces(&lw);
    lower_bypasses(&lw);
    lower_depends(&lw);
    lower_decoders(&lw);
    lw.m->resources = lw.res.v;
    lw.m->n_resources = (uint16_t)lw.res.n;
    lw.m->uses = lw.uses.v;
    lw.m->async_uses = lw.async_uses.v;
    lw.m->occupancies = lw.occupancies.v;
    lw.m->match = lw.match.v;
    lw.m->uncertain = lw.uncertain.v;
    lw.m->n_uncertain = (uint32_t)lw.uncertain.n;
    return lw.m;
}
