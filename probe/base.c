/* The base description through mdlc's resolve and check passes: the effective declarations of the
 * whole extends chain, with their source text for writing attributes again. */
#include "base.h"
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "resolve.h"

struct base {
    struct arena ar;
    struct src_manager sm;
    struct diag diag;
    struct program p;
    char *extends, *dir;
};

static bool is_path(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 4 && strcmp(name + n - 4, ".mdl") == 0);
}

/* NAME.mdl in the first of DIRS that has it, or NULL. */
static char *find_machine(const char *name, const char *const *dirs, size_t n_dirs)
{
    for (size_t i = 0; i < n_dirs; i++) {
        size_t len = strlen(dirs[i]) + strlen(name) + 6;
        char *path = malloc(len);
        if (!path)
            return NULL;
        snprintf(path, len, "%s/%s.mdl", dirs[i], name);
        if (access(path, R_OK) == 0)
            return path;
        free(path);
    }
    return NULL;
}

/* Runs resolve and check on PATH with its directory as the only -I; their diagnostics go to a
 * buffer, printed only when they failed. */
static bool passes(struct base *b, const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return false;
    diag_init(&b->diag, &b->sm, mem);
    b->p = (struct program){ .ar = &b->ar, .sm = &b->sm, .diag = &b->diag };
    const char *dirs[1] = { b->dir };
    struct resolve_opts ro = { dirs, 1 };
    bool ok = resolve_program(&b->p, path, &ro) && check_program(&b->p) && !diag_failed(&b->diag);
    fclose(mem);
    if (!ok)
        fputs(buf, stderr);
    free(buf);
    return ok;
}

struct base *base_load(const char *name, const char *const *dirs, size_t n_dirs, char *err, size_t errlen)
{
    struct base *b = calloc(1, sizeof *b);
    char *path = is_path(name) ? strdup(name) : find_machine(name, dirs, n_dirs);
    if (!b || !path) {
        if (b)
            snprintf(err, errlen, "base machine '%s' not found (looked for %s.mdl in the -I directories)", name, name);
        else
            snprintf(err, errlen, "out of memory");
        free(b), free(path);
        return NULL;
    }
    arena_init(&b->ar);
    src_init(&b->sm);
    char *copy = strdup(path), *copy2 = strdup(path);
    b->dir = copy ? realpath(dirname(copy), NULL) : NULL;   /* as the draft's header names it */
    b->extends = copy2 ? strdup(is_path(name) ? basename(copy2) : name) : NULL;
    free(copy), free(copy2);
    bool ok = b->dir && b->extends && passes(b, path);
    const struct prog_block *m = ok ? map_get(&b->p.block_map, "block:machine") : NULL;
    const char *isa = m && m->vals[P_MACHINE_isa].set ? m->vals[P_MACHINE_isa].str : "";
    if (!ok)
        snprintf(err, errlen, "cannot read the base machine '%s'", path);
    else if (strcmp(isa, "x86_64") != 0)
        snprintf(err, errlen, "the base machine '%s' describes an %s core; mdlprobe measures x86-64 ones", name, isa);
    ok = ok && strcmp(isa, "x86_64") == 0;
    free(path);
    if (!ok) {
        base_free(b);
        return NULL;
    }
    return b;
}

void base_free(struct base *b)
{
    if (!b)
        return;
    src_free(&b->sm);
    arena_free(&b->ar);
    free(b->extends), free(b->dir);
    free(b);
}

const char *base_extends(const struct base *b) { return b->extends; }
const char *base_dir(const struct base *b) { return b->dir; }

static const struct prog_block *cache_block(const struct base *b, unsigned level)
{
    for (size_t i = 0; i < b->p.blocks.n; i++) {
        const struct prog_block *k = b->p.blocks.v[i];
        const struct param_val *type = &k->vals[P_CACHE_type];
        if (k->kind == PB_CACHE && k->vals[P_CACHE_level].num == level &&
            !(type->set && strcmp(type->str, "instruction") == 0))
            return k;
    }
    return NULL;
}

const char *base_cache(const struct base *b, unsigned level)
{
    const struct prog_block *k = cache_block(b, level);
    return k ? k->name : NULL;
}

/* KEY's number in block K (of kind KIND), 0 when not given. */
static double block_num(const struct prog_block *k, enum param_block kind, const char *key)
{
    for (int p = 0; k && p < P_COUNT; p++)
        if (param_table[p].block == kind && strcmp(param_table[p].key, key) == 0)
            return k->vals[p].set ? k->vals[p].num : 0;
    return 0;
}

double base_cache_value(const struct base *b, unsigned level, const char *key)
{
    return block_num(cache_block(b, level), PB_CACHE, key);
}

double base_value(const struct base *b, const char *block, const char *key)
{
    char name[64];
    snprintf(name, sizeof name, "block:%s", block);
    const struct prog_block *k = map_get(&b->p.block_map, name);
    return k ? block_num(k, k->kind, key) : 0;
}

unsigned base_form_ports(const struct base *b, const char *form)
{
    const struct ast_decl *d = map_get(&b->p.form_map, form);
    uint64_t atoms = 0;
    for (size_t i = 0; d && i < d->attrs.n; i++)
        for (size_t t = 0; d->attrs.v[i].kind == AST_ATTR_PORTS && t < d->attrs.v[i].terms.n; t++)
            atoms |= check_unit_set(&b->p, d->attrs.v[i].terms.v[t].set.name);
    return (unsigned)__builtin_popcountll(atoms);
}

static void append_span(const struct base *b, struct span s, char *out, size_t len)
{
    const struct src_file *f = src_get(&b->sm, s.file);
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%.*s", used ? " " : "", (int)(s.hi - s.lo), f->text + s.lo);
}

bool base_form_rest(const struct base *b, const char *form, bool drop_latency, bool drop_tp, char *out,
                    size_t len)
{
    const struct ast_decl *d = map_get(&b->p.form_map, form);
    out[0] = 0;
    if (!d)
        return false;
    for (size_t i = 0; i < d->attrs.n; i++) {
        const struct ast_attr *a = &d->attrs.v[i];
        if ((a->kind == AST_ATTR_LATENCY && drop_latency) || (a->kind == AST_ATTR_TP && drop_tp))
            continue;
        append_span(b, a->span, out, len);      /* with its own annotation, if it has one */
        /* else the one that covers it: the next of the entry (spec.md 7) */
        for (size_t j = i + 1; a->src.kind == AST_SRC_NONE && j < d->attrs.n; j++)
            if (d->attrs.v[j].src.kind != AST_SRC_NONE) {
                append_span(b, d->attrs.v[j].src.span, out, len);
                break;
            }
    }
    return true;
}
