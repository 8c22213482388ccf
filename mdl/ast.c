/* Printing of the syntax tree for `mdlc --dump-ast`: one line per node, spans as byte ranges. */
#include "ast.h"
#include <string.h>

const char *const ast_attr_names[] = {
#define X(e, s) s,
    AST_ATTRS(X)
#undef X
};

const char *const ast_decl_names[] = {
#define X(e, s) s,
    AST_DECLS(X)
#undef X
};

static void dump_span(FILE *out, struct span s) { fprintf(out, " @%u..%u", s.lo, s.hi); }

static void dump_src(FILE *out, const struct ast_src *s)
{
    if (s->kind == AST_SRC_NAME)
        fprintf(out, " source=%s", s->text);
    else if (s->kind == AST_SRC_TEXT)
        fprintf(out, " source=\"%s\"", s->text);
}

static void dump_idents(FILE *out, const char *label, const ast_idents *ids)
{
    fprintf(out, " %s=(", label);
    for (size_t i = 0; i < ids->n; i++)
        fprintf(out, "%s%s", i ? ", " : "", ids->v[i].name);
    fputc(')', out);
}

static void dump_unit(FILE *out, const struct ast_value *v)
{
    if (v->unit.name)
        fprintf(out, " %s", v->unit.name);
    if (v->per.name)
        fprintf(out, "/%s", v->per.name);
}

static void dump_range(FILE *out, const struct ast_value *r)
{
    if (!r)
        return;
    fprintf(out, " range=%s", r->text);
    dump_unit(out, r);
    if (r->src.kind == AST_SRC_TEXT)
        fprintf(out, " why=\"%s\"", r->src.text);
}

static void dump_value(FILE *out, const struct ast_value *v)
{
    if (v->kind == AST_VAL_STRING)
        fprintf(out, "\"%s\"", v->text);
    else
        fputs(v->text, out);
    dump_unit(out, v);
    dump_range(out, v->range);
    dump_src(out, &v->src);
}

static void dump_form(FILE *out, const struct ast_form *f)
{
    fputs(f->mnemonic.name, out);
    if (f->has_kinds)
        dump_idents(out, "kinds", &f->kinds);
}

static void dump_template(FILE *out, const struct ast_attr *a)
{
    for (size_t i = 0; i < a->alts.n; i++) {
        fputs(i ? " |" : "", out);
        for (size_t c = 0; c < a->alts.v[i].n; c++) {
            const ast_cycle *cy = &a->alts.v[i].v[c];
            fputs(c ? ", " : " ", out);
            for (size_t u = 0; u < cy->n; u++) {
                const struct ast_use *use = &cy->v[u];
                fprintf(out, "%s%s", u ? "+" : "", use->unit.name);
                if (use->has_instances) {
                    for (size_t k = 0; k < use->instances.n; k++)
                        fprintf(out, "%c%ld", k ? ',' : '[', use->instances.v[k]);
                    fputc(']', out);
                }
                fprintf(out, "(%ld)*%ld", use->quantity, use->cycles);
            }
        }
    }
}

static void dump_attr(FILE *out, const struct ast_attr *a)
{
    fprintf(out, "    attr %s", ast_attr_names[a->kind]);
    dump_span(out, a->span);
    switch (a->kind) {
    case AST_ATTR_LATENCY: case AST_ATTR_TP:
        fprintf(out, " %s", a->num.text);
        break;
    case AST_ATTR_UOPS:
        fprintf(out, " %ld/%ld", a->fused, a->unfused);
        break;
    case AST_ATTR_PORTS:
        if (a->no_ports)
            fputs(" none", out);
        for (size_t i = 0; i < a->terms.n; i++)
            fprintf(out, "%s%ld*%s", i ? "+" : " ", a->terms.v[i].count, a->terms.v[i].set.name);
        break;
    case AST_ATTR_TEMPLATE:
        dump_template(out, a);
        break;
    case AST_ATTR_ASYNC:
        for (size_t i = 0; i < a->async.n; i++)
            fprintf(out, "%s%s(%ld)", i ? ", " : " ", a->async.v[i].name.name, a->async.v[i].quantity);
        break;
    case AST_ATTR_CLASS:
        fprintf(out, " %s", a->cls.name);
        break;
    case AST_ATTR_COUNT:
        break;
    }
    dump_range(out, a->range);
    dump_src(out, &a->src);
    fputc('\n', out);
}

static void dump_selector(FILE *out, const char *label, const struct ast_selector *s)
{
    dump_idents(out, label, &s->names);
    if (s->has_kinds)
        dump_idents(out, "kinds", &s->kinds);
}

static void dump_replace(FILE *out, const struct ast_replace *r)
{
    dump_selector(out, "match", &r->first.sel);
    dump_idents(out, "operands", &r->first.operands);
    if (r->pair) {
        dump_selector(out, "then", &r->second.sel);
        dump_idents(out, "operands", &r->second.operands);
    }
    fputs(" with=", out);
    if (r->to_nop)
        fputs("nop", out);
    else
        dump_form(out, &r->target);
    dump_idents(out, "reads", &r->reads);
    dump_idents(out, "writes", &r->writes);
}

static void dump_block(FILE *out, const struct ast_block *b)
{
    for (size_t i = 0; i < b->params.n; i++) {
        fprintf(out, "    param %s = ", b->params.v[i].key.name);
        dump_value(out, &b->params.v[i].value);
        dump_span(out, b->params.v[i].span);
        fputc('\n', out);
    }
}

static void dump_decl(FILE *out, const struct ast_decl *d)
{
    fprintf(out, "  %s", ast_decl_names[d->kind]);
    dump_span(out, d->span);
    switch (d->kind) {
    case AST_DECL_MACHINE:
        fprintf(out, " %s", d->name.name);
        if (d->parent.name)
            fprintf(out, " extends %s%s%s", d->parent_is_path ? "\"" : "", d->parent.name,
                    d->parent_is_path ? "\"" : "");
        break;
    case AST_DECL_INCLUDE:
        fprintf(out, " \"%s\"", d->text);
        break;
    case AST_DECL_SOURCE:
        fprintf(out, " %s \"%s\"", d->name.name, d->text);
        break;
    case AST_DECL_PORTS: case AST_DECL_UNITS: case AST_DECL_ASYNC:
        for (size_t i = 0; i < d->units.n; i++) {
            fprintf(out, "%s%s*%ld", i ? ", " : " ", d->units.v[i].name.name, d->units.v[i].count);
            dump_src(out, &d->units.v[i].src);
        }
        break;
    case AST_DECL_MAXIMUM:
        fprintf(out, " %ld", d->maximum);
        dump_idents(out, "from", &d->members);
        dump_src(out, &d->src);
        break;
    case AST_DECL_INSN:
        fputc(' ', out);
        dump_form(out, &d->form);
        break;
    case AST_DECL_CLASS:
        fprintf(out, " %s", d->name.name);
        break;
    case AST_DECL_REPLACE:
        dump_replace(out, d->replace);
        break;
    case AST_DECL_BYPASS:
        fprintf(out, " %s%s", d->bypass->sign > 0 ? "+" : d->bypass->sign < 0 ? "-" : "", d->bypass->latency.text);
        dump_range(out, d->bypass->latency.range);
        dump_selector(out, "from", &d->bypass->from);
        dump_selector(out, d->bypass->memory ? "memory-to" : "to", &d->bypass->to);
        dump_src(out, &d->src);
        break;
    case AST_DECL_DEPENDS:
        dump_selector(out, "forms", &d->depends.sel);
        dump_idents(out, "on", &d->depends.targets);
        dump_src(out, &d->src);
        break;
    case AST_DECL_DECODER:
        fprintf(out, " %s", d->decoder.kind.name);
        dump_selector(out, "forms", &d->decoder.sel);
        dump_src(out, &d->src);
        break;
    case AST_DECL_BLOCK:
        fprintf(out, " %s", d->block.kind.name);
        if (d->block.name.name)
            fprintf(out, " %s", d->block.name.name);
        break;
    }
    fputc('\n', out);
    if (d->kind == AST_DECL_INSN || d->kind == AST_DECL_CLASS)
        for (size_t i = 0; i < d->attrs.n; i++)
            dump_attr(out, &d->attrs.v[i]);
    if (d->kind == AST_DECL_MACHINE || d->kind == AST_DECL_BLOCK)
        dump_block(out, &d->block);
}

void ast_dump(FILE *out, const struct ast_file *f)
{
    fprintf(out, "file #%u: %zu declarations\n", f->file, f->decls.n);
    for (size_t i = 0; i < f->decls.n; i++)
        dump_decl(out, f->decls.v[i]);
}

const char *ast_form_key(struct arena *ar, const struct ast_form *f)
{
    if (!f->has_kinds)
        return f->mnemonic.name;
    size_t len = strlen(f->mnemonic.name) + 4;
    for (size_t i = 0; i < f->kinds.n; i++)
        len += strlen(f->kinds.v[i].name) + 2;
    char *s = arena_alloc(ar, len), *o = s;
    o += sprintf(o, "%s (", f->mnemonic.name);
    for (size_t i = 0; i < f->kinds.n; i++)
        o += sprintf(o, "%s%s", i ? ", " : "", f->kinds.v[i].name);
    strcpy(o, ")");
    return s;
}

