/* Runs the passes in order and writes the outputs only when every pass succeeded. */
#include "driver.h"
#include <string.h>
#include "check.h"
#include "emit.h"
#include "lower.h"
#include "output.h"
#include "parse.h"
#include "qemu_cpu.h"
#include "resolve.h"
#include "safefile.h"

static int dump_ast(struct program *p, const struct mdlc_opts *o)
{
    char err[256];
    int id = src_load(p->sm, o->input, err, sizeof err);
    if (id < 0) {
        diag_plain(p->diag, DIAG_ERROR, "cannot read '%s': %s", o->input, err);
        return 1;
    }
    struct ast_file *f = parse_file(p->ar, p->diag, p->sm, (uint32_t)id);
    ast_dump(o->out, f);
    return diag_failed(p->diag) ? 1 : 0;
}

/* Builds OUTDIR/<machine>.{c,h} (or --basename's) in memory, then replaces each file only if it
 * changed. */
static bool write_outputs(struct program *p, const struct mdl_machine *m, const struct mdlc_opts *o)
{
    const char *base = o->basename ? o->basename : m->name;
    struct emit_info info = { o->input, emit_c_ident(p->ar, m->name), arena_printf(p->ar, "%s.h", base) };
    struct output c, h;
    if (!output_open(&c) || !output_open(&h)) {
        diag_plain(p->diag, DIAG_ERROR, "out of memory");
        return false;
    }
    emit_c_source(c.fp, m, &info);
    emit_c_header(h.fp, m, &info);
    const char *cpath = arena_printf(p->ar, "%s/%s.c", o->outdir, base);
    const char *hpath = arena_printf(p->ar, "%s/%s.h", o->outdir, base);
    char err[512] = "";
    bool ok = output_stage(&c, cpath, err, sizeof err) && output_stage(&h, hpath, err, sizeof err) &&
              output_publish(&c, err, sizeof err) && output_publish(&h, err, sizeof err);
    output_discard(&c);
    output_discard(&h);
    if (!ok)
        diag_plain(p->diag, DIAG_ERROR, "%s", err);
    return ok;
}

/* A path as make reads it in a rule: spaces, '#' and '$' escaped. */
static void make_path(FILE *out, const char *path)
{
    for (const char *c = path; *c; c++) {
        if (*c == '$')
            fputc('$', out);
        else if (*c == ' ' || *c == '#' || *c == '\\')
            fputc('\\', out);
        fputc(*c, out);
    }
}

/* A make rule naming every file read, so editing an include rebuilds the machine. */
static bool write_depfile(struct program *p, const struct mdlc_opts *o)
{
    struct output d;
    if (!output_open(&d))
        return false;
    make_path(d.fp, o->deptarget ? o->deptarget : o->input);
    fputc(':', d.fp);
    for (size_t i = 0; i < p->files.n; i++) {
        fputc(' ', d.fp);
        make_path(d.fp, p->files.v[i]);
    }
    fputc('\n', d.fp);
    for (size_t i = 0; i < p->files.n; i++) {
        make_path(d.fp, p->files.v[i]);
        fputs(":\n", d.fp);
    }
    char err[512];
    if (!output_commit(&d, o->depfile, err, sizeof err)) {
        diag_plain(p->diag, DIAG_ERROR, "%s", err);
        return false;
    }
    return true;
}

static int run_passes(struct program *p, const struct mdlc_opts *o)
{
    struct resolve_opts ro = { o->include_dirs, o->n_include_dirs };
    char err[512];
    /* the depfile comes last: a directory that cannot take it fails before any output is written */
    if (o->depfile && !safefile_check(o->depfile, err, sizeof err)) {
        diag_plain(p->diag, DIAG_ERROR, "%s", err);
        return 1;
    }
    if (!resolve_program(p, o->input, &ro) || !check_program(p) || diag_failed(p->diag))
        return 1;
    if (!o->no_warn_qemu_cpu)
        check_qemu_cpu(p);
    struct mdl_machine *m = lower_program(p);
    if (!m || diag_failed(p->diag))
        return 1;
    if (o->action == MDLC_DUMP_JSON && !emit_json(o->out, m)) {
        diag_plain(p->diag, DIAG_ERROR, "cannot build the JSON document");
        return 1;
    }
    if (o->action == MDLC_SUMMARY)
        emit_summary(o->out, m);
    if (o->action == MDLC_EMIT && !write_outputs(p, m, o))
        return 1;
    if (o->depfile && !write_depfile(p, o))
        return 1;
    return 0;
}

int mdlc_run(const struct mdlc_opts *o)
{
    struct arena ar;
    struct src_manager sm;
    struct diag d;
    arena_init(&ar);
    src_init(&sm);
    diag_init(&d, &sm, o->err);
    d.werror = o->werror;
    struct program p = { .ar = &ar, .sm = &sm, .diag = &d, .warn_missing_source = o->warn_missing_source,
                         .no_warn_unmatched_form = o->no_warn_unmatched_form };
    int rc = o->action == MDLC_DUMP_AST ? dump_ast(&p, o) : run_passes(&p, o);
    if (rc && d.errors)
        fprintf(o->err, "%u error%s generated.\n", d.errors, d.errors == 1 ? "" : "s");
    src_free(&sm);
    arena_free(&ar);
    return rc;
}
