/* Includes and extends are expanded into layers; names are bound to their declarations,
 * a layer's own duplicates are errors and a child's redefinitions replace the parent's. */
#include "resolve.h"
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "parse.h"
#include "suggest.h"

enum { RESOLVE_MAX_DEPTH = 64 };

struct resolver {
    struct program *p;
    const struct resolve_opts *opts;
    const char *root;               /* the described machine's directory: its tree, with the -I ones */
    const char *stack[RESOLVE_MAX_DEPTH];   /* canonical paths being read: include/extends chain */
    size_t depth;
};

/* What looking for a file gave: a file to read, nothing, or one that may not be read. */
enum found { FOUND, NOT_FOUND, OUTSIDE, NOT_REGULAR };

/* Whether REAL (a resolved path) lies below directory DIR. */
static bool below(const char *real, const char *dir)
{
    char root[PATH_MAX];
    if (!realpath(dir, root))
        return false;
    size_t n = strlen(root);
    return strncmp(real, root, n) == 0 && (real[n] == '/' || (n == 1 && root[0] == '/'));
}

/* CANDIDATE, if it exists: taken when it is a regular file below the described machine's directory
 * or an -I directory (a description reads only its own tree: not /proc, not a FIFO, not
 * ../../elsewhere). */
static enum found resolve_try(const struct resolver *r, const char *candidate)
{
    char real[PATH_MAX];
    struct stat st;
    if (access(candidate, F_OK) != 0 || !realpath(candidate, real))
        return NOT_FOUND;
    bool inside = below(real, r->root);
    for (size_t i = 0; !inside && i < r->opts->n_include_dirs; i++)
        inside = below(real, r->opts->include_dirs[i]);
    if (!inside)
        return OUTSIDE;
    return stat(real, &st) == 0 && S_ISREG(st.st_mode) ? FOUND : NOT_REGULAR;
}

/* NAME relative to the including file first, then the -I dirs (*PATH: the first taken); OUTSIDE or
 * NOT_REGULAR when it exists only where it may not be read. */
static enum found resolve_find(struct resolver *r, const char *from_path, const char *name, char **path)
{
    char buf[PATH_MAX];
    char *dir = dirname(arena_strdup(r->p->ar, from_path));
    enum found why = NOT_FOUND;
    for (size_t i = 0; i <= r->opts->n_include_dirs; i++) {
        if (name[0] == '/')
            snprintf(buf, sizeof buf, "%s", name);
        else if (i == 0)
            snprintf(buf, sizeof buf, "%s/%s", dir, name);
        else
            snprintf(buf, sizeof buf, "%s/%s", r->opts->include_dirs[i - 1], name);
        enum found f = resolve_try(r, buf);
        if (f == FOUND) {
            *path = arena_strdup(r->p->ar, strcmp(dir, ".") == 0 && i == 0 && name[0] != '/' ? name : buf);
            return FOUND;
        }
        if (f != NOT_FOUND && why == NOT_FOUND)
            why = f;
        if (name[0] == '/')
            break;
    }
    return why;
}

/* The error for a file that was not taken, at AT: WHAT names it ("included file", ...). */
static void not_taken(struct resolver *r, enum found why, struct span at, const char *what, const char *name)
{
    if (why == OUTSIDE)
        diag_error(r->p->diag, at, "%s '%s' is outside the description's tree (the directory of the machine "
                   "described and the -I directories)", what, name);
    else
        diag_error(r->p->diag, at, "%s '%s' is not a regular file", what, name);
}

static int resolve_on_stack(const struct resolver *r, const char *real)
{
    for (size_t i = 0; i < r->depth; i++)
        if (strcmp(r->stack[i], real) == 0)
            return (int)i;
    return -1;
}

/* Loads PATH, or reports why not at AT (or plainly for the file named on the command line). */
static const struct ast_file *resolve_load(struct resolver *r, const char *path, const struct span *at,
                                           const char *what)
{
    char err[256];
    int id = src_load(r->p->sm, path, err, sizeof err);
    if (id < 0) {
        if (at)
            diag_error(r->p->diag, *at, "cannot read %s '%s': %s", what, path, err);
        else
            diag_plain(r->p->diag, DIAG_ERROR, "cannot read '%s': %s", path, err);
        return NULL;
    }
    vec_push(r->p->ar, &r->p->files, r->p->sm->files[id]->path);
    return parse_file(r->p->ar, r->p->diag, r->p->sm, (uint32_t)id);
}

static void resolve_file(struct resolver *r, const struct ast_file *f, struct prog_layer *layer, bool top);

static void resolve_include(struct resolver *r, const struct ast_decl *d, const char *from,
                            struct prog_layer *layer)
{
    char *path = NULL;
    enum found why = resolve_find(r, from, d->text, &path);
    if (why == NOT_FOUND) {
        diag_error(r->p->diag, d->text_span, "included file '%s' not found", d->text);
        return;
    }
    if (why != FOUND) {
        not_taken(r, why, d->text_span, "included file", d->text);
        return;
    }
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    if (resolve_on_stack(r, real) >= 0) {
        diag_error(r->p->diag, d->text_span, "include cycle: '%s' includes itself through this line", d->text);
        return;
    }
    const struct ast_decl *first = map_get(&layer->included, real);
    if (first) {
        diag_error(r->p->diag, d->text_span, "'%s' is already included in this machine", d->text);
        diag_note(r->p->diag, first->text_span, "first included here");
        return;
    }
    map_put(&layer->included, arena_strdup(r->p->ar, real), (void *)d);
    if (r->depth == RESOLVE_MAX_DEPTH) {
        diag_error(r->p->diag, d->text_span, "includes nested deeper than %d files", RESOLVE_MAX_DEPTH);
        return;
    }
    const struct ast_file *inc = resolve_load(r, path, &d->text_span, "included file");
    if (!inc)
        return;
    r->stack[r->depth++] = arena_strdup(r->p->ar, real);
    resolve_file(r, inc, layer, false);
    r->depth--;
}

static void resolve_file(struct resolver *r, const struct ast_file *f, struct prog_layer *layer, bool top)
{
    const char *path = r->p->sm->files[f->file]->path;
    for (size_t i = 0; i < f->decls.n; i++) {
        const struct ast_decl *d = f->decls.v[i];
        if (d->kind == AST_DECL_INCLUDE) {
            resolve_include(r, d, path, layer);
        } else if (d->kind == AST_DECL_MACHINE && !top) {
            diag_error(r->p->diag, d->name.span,
                       "an included file cannot declare a machine; use 'extends %s' instead", d->name.name);
        } else if (d->kind == AST_DECL_MACHINE && layer->machine) {
            diag_error(r->p->diag, d->name.span, "second machine '%s' in one file", d->name.name);
            diag_note(r->p->diag, layer->machine->name.span, "the file's machine is declared here");
        } else {
            if (d->kind == AST_DECL_MACHINE)
                layer->machine = d;
            vec_push(r->p->ar, &layer->decls, d);
        }
    }
}

static bool resolve_layer(struct resolver *r, const char *path, const struct span *at, const char *expect);

/* The parent named by `extends NAME` is NAME.mdl; `extends "file.mdl"` names the file. */
static void resolve_parent(struct resolver *r, const struct ast_decl *m, const char *from)
{
    const char *name = m->parent_is_path ? m->parent.name : arena_printf(r->p->ar, "%s.mdl", m->parent.name);
    char *path = NULL;
    enum found why = resolve_find(r, from, name, &path);
    if (why == NOT_FOUND) {
        diag_error(r->p->diag, m->parent.span, "machine '%s' not found (looked for '%s')", m->parent.name, name);
        return;
    }
    if (why != FOUND) {
        not_taken(r, why, m->parent.span, "parent description", name);
        return;
    }
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    if (resolve_on_stack(r, real) >= 0) {
        diag_error(r->p->diag, m->parent.span, "machine '%s' extends itself through '%s'", m->name.name, name);
        return;
    }
    resolve_layer(r, path, &m->parent.span, m->parent_is_path ? NULL : m->parent.name);
}

/* EXPECT: the machine name `extends NAME` promised, checked against the file's declaration. */
static bool resolve_layer(struct resolver *r, const char *path, const struct span *at, const char *expect)
{
    if (r->depth == RESOLVE_MAX_DEPTH) {
        diag_error(r->p->diag, *at, "machines extend each other deeper than %d levels", RESOLVE_MAX_DEPTH);
        return false;
    }
    unsigned errors_before = r->p->diag->errors;
    const struct ast_file *f = resolve_load(r, path, at, "machine");
    if (!f)
        return false;
    bool parsed_clean = r->p->diag->errors == errors_before;
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    r->stack[r->depth++] = arena_strdup(r->p->ar, real);
    struct prog_layer layer = { 0 };
    map_init(&layer.included, r->p->ar);
    resolve_file(r, f, &layer, true);
    if (!layer.machine && !parsed_clean) {
        /* The machine declaration was probably the one that failed to parse. */
    } else if (!layer.machine) {
        struct span start = { f->file, 0, 0 };
        diag_error(r->p->diag, start, "no machine declaration: a description starts with 'machine NAME { isa ...; }'");
    } else if (expect && strcmp(layer.machine->name.name, expect) != 0) {
        diag_error(r->p->diag, *at, "'%s' declares machine '%s', not '%s'", path, layer.machine->name.name, expect);
    } else if (layer.machine->parent.name) {
        resolve_parent(r, layer.machine, path);
    }
    r->depth--;
    vec_push(r->p->ar, &r->p->layers, layer);
    return layer.machine != NULL;
}

/* ---- binding names ------------------------------------------------------------------------ */

static const char *decl_what(enum ast_decl_kind k)
{
    switch (k) {
    case AST_DECL_INSN: return "instruction form";
    case AST_DECL_CLASS: return "class default";
    case AST_DECL_SOURCE: return "source";
    case AST_DECL_BLOCK: return "block";
    default: return "unit";
    }
}

/* Binds KEY in the layer's table (duplicates are errors) and in the program's (replacing). */
static bool bind(struct program *p, struct map *layer_seen, const char *key, const void *what,
                 struct span at, struct span *prev_at, enum ast_decl_kind kind, const char *shown)
{
    const void *prev = map_put(layer_seen, key, (void *)what);
    if (prev) {
        diag_error(p->diag, at, "redefinition of %s '%s'", decl_what(kind), shown);
        diag_note(p->diag, *prev_at, "previous definition is here");
        return false;
    }
    return true;
}

static enum param_block block_kind(const char *name)
{
    for (int i = 0; i < PB_COUNT; i++)
        if (strcmp(name, param_block_names[i]) == 0)
            return (enum param_block)i;
    return PB_COUNT;
}

static void bind_block(struct program *p, struct map *seen, struct map *spans, const struct ast_decl *d)
{
    enum param_block kind = block_kind(d->block.kind.name);
    if (kind == PB_COUNT || (kind == PB_MACHINE && d->kind != AST_DECL_MACHINE)) {
        const char *s = suggest_closest(d->block.kind.name, param_block_names + 1, PB_COUNT - 1);
        diag_error(p->diag, d->block.kind.span, "unknown declaration '%s'%s%s%s", d->block.kind.name,
                   s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
        return;
    }
    if (kind == PB_CACHE && !d->block.name.name) {
        diag_error(p->diag, d->block.kind.span, "a cache block needs a name, as in 'cache L1D { ... }'");
        return;
    }
    if (kind != PB_CACHE && kind != PB_MACHINE && d->block.name.name) {
        diag_error(p->diag, d->block.name.span, "a '%s' block takes no name", param_block_names[kind]);
        return;
    }
    const char *key = kind == PB_CACHE ? arena_printf(p->ar, "block:cache:%s", d->block.name.name)
                                       : arena_printf(p->ar, "block:%s", param_block_names[kind]);
    const char *shown = kind == PB_CACHE ? arena_printf(p->ar, "cache %s", d->block.name.name)
                                         : param_block_names[kind];
    struct span *prev = map_get(spans, key);
    struct span at = kind == PB_CACHE ? d->block.name.span : d->block.kind.span;
    if (!bind(p, seen, key, d, at, prev, AST_DECL_BLOCK, shown))
        return;
    struct span *here = arena_alloc(p->ar, sizeof *here);
    *here = at;
    map_put(spans, key, here);
    struct prog_block *b = map_get(&p->block_map, key);
    if (!b) {
        b = arena_alloc(p->ar, sizeof *b);
        b->kind = kind;
        b->name = d->block.name.name && kind == PB_CACHE ? d->block.name.name : NULL;
        map_put(&p->block_map, key, b);
        vec_push(p->ar, &p->blocks, b);
    }
    b->decl = d;
    for (size_t i = 0; i < d->block.params.n; i++)
        vec_push(p->ar, &b->params, &d->block.params.v[i]);
}

static void bind_named(struct program *p, struct map *seen, struct map *spans, struct map *table,
                       const char *prefix, const char *name, struct span at, const struct ast_decl *d)
{
    const char *key = arena_printf(p->ar, "%s%s", prefix, name);
    if (!bind(p, seen, key, d, at, map_get(spans, key), d->kind, name))
        return;
    struct span *here = arena_alloc(p->ar, sizeof *here);
    *here = at;
    map_put(spans, key, here);
    map_put(table, name, (void *)d);
}

static void bind_units(struct program *p, struct map *seen, struct map *spans, const struct ast_decl *d)
{
    for (size_t i = 0; i < d->units.n; i++) {
        const struct ast_unit *u = &d->units.v[i];
        const char *key = arena_printf(p->ar, "unit:%s", u->name.name);
        if (!bind(p, seen, key, u, u->name.span, map_get(spans, key), d->kind, u->name.name))
            continue;
        struct span *here = arena_alloc(p->ar, sizeof *here);
        *here = u->name.span;
        map_put(spans, key, here);
        struct prog_unit *pu = map_get(&p->unit_map, u->name.name);
        if (!pu) {
            pu = arena_alloc(p->ar, sizeof *pu);
            map_put(&p->unit_map, u->name.name, pu);
            vec_push(p->ar, &p->units, pu);
        }
        pu->unit = u;
        pu->decl = d;
        pu->async = d->kind == AST_DECL_ASYNC;
    }
}

static void bind_layer(struct program *p, const struct prog_layer *layer)
{
    struct map seen, spans;
    map_init(&seen, p->ar);
    map_init(&spans, p->ar);
    for (size_t i = 0; i < layer->decls.n; i++) {
        const struct ast_decl *d = layer->decls.v[i];
        switch (d->kind) {
        case AST_DECL_MACHINE: case AST_DECL_BLOCK:
            bind_block(p, &seen, &spans, d);
            break;
        case AST_DECL_SOURCE:
            bind_named(p, &seen, &spans, &p->source_map, "source:", d->name.name, d->name.span, d);
            break;
        case AST_DECL_CLASS:
            bind_named(p, &seen, &spans, &p->class_map, "class:", d->name.name, d->name.span, d);
            break;
        case AST_DECL_INSN:
            bind_named(p, &seen, &spans, &p->form_map, "form:", d->text,
                       d->form.span, d);
            break;
        case AST_DECL_PORTS: case AST_DECL_UNITS: case AST_DECL_ASYNC:
            bind_units(p, &seen, &spans, d);
            break;
        case AST_DECL_MAXIMUM: vec_push(p->ar, &p->maximums, d); break;
        case AST_DECL_REPLACE: vec_push(p->ar, &p->replaces, d); break;
        case AST_DECL_BYPASS: vec_push(p->ar, &p->bypasses, d); break;
        case AST_DECL_DEPENDS: vec_push(p->ar, &p->depends, d); break;
        case AST_DECL_DECODER: vec_push(p->ar, &p->decoders, d); break;
        case AST_DECL_INCLUDE: break;
        }
    }
}

/* Lists the declarations that won, in the order they were written (base machine first). */
static void collect_effective(struct program *p)
{
    for (size_t l = 0; l < p->layers.n; l++) {
        const struct prog_layer *layer = &p->layers.v[l];
        for (size_t i = 0; i < layer->decls.n; i++) {
            const struct ast_decl *d = layer->decls.v[i];
            if (d->kind == AST_DECL_SOURCE && map_get(&p->source_map, d->name.name) == d)
                vec_push(p->ar, &p->sources, d);
            else if (d->kind == AST_DECL_CLASS && map_get(&p->class_map, d->name.name) == d)
                vec_push(p->ar, &p->classes, d);
            else if (d->kind == AST_DECL_INSN && map_get(&p->form_map, d->text) == d)
                vec_push(p->ar, &p->forms, d);
        }
    }
}

bool resolve_program(struct program *p, const char *path, const struct resolve_opts *opts)
{
    struct resolver r = { .p = p, .opts = opts, .root = dirname(arena_strdup(p->ar, path)) };
    map_init(&p->source_map, p->ar);
    map_init(&p->form_map, p->ar);
    map_init(&p->class_map, p->ar);
    map_init(&p->unit_map, p->ar);
    map_init(&p->block_map, p->ar);
    unsigned before = p->diag->errors;
    if (!resolve_layer(&r, path, NULL, NULL))
        return false;
    p->machine = p->layers.v[p->layers.n - 1].machine;
    p->name = p->machine->name.name;
    for (size_t i = 0; i < p->layers.n; i++)
        bind_layer(p, &p->layers.v[i]);
    collect_effective(p);
    return p->diag->errors == before;
}
