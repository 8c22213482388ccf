/* The findings list: appended to by each benchmark module, read by the draft and the JSON. */
#include "findings.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void findings_free(struct findings *f)
{
    for (size_t i = 0; i < f->n_curves; i++)
        free(f->curves[i].p);
    free(f->curves);
    free(f->v);
    memset(f, 0, sizeof *f);
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t cap2 = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, cap2 * elem);
    if (!p)
        return false;
    *v = p, *cap = cap2;
    return true;
}

struct finding *findings_add(struct findings *f, enum findings_block b, unsigned level, const char *key,
                             const char *form)
{
    if (!grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v)) {
        f->oom = true;
        return NULL;
    }
    struct finding *x = &f->v[f->n++];
    memset(x, 0, sizeof *x);
    x->block = b, x->level = level, x->reliable = true;
    snprintf(x->key, sizeof x->key, "%s", key);
    snprintf(x->form, sizeof x->form, "%s", form ? form : "");
    return x;
}

const struct finding *findings_get(const struct findings *f, enum findings_block b, unsigned level,
                                   const char *key, const char *form)
{
    for (size_t i = 0; i < f->n; i++) {
        const struct finding *x = &f->v[i];
        if (x->block == b && x->level == level && strcmp(x->key, key) == 0 && (!form || strcmp(x->form, form) == 0))
            return x;
    }
    return NULL;
}

struct finding *findings_edit(struct findings *f, enum findings_block b, unsigned level, const char *key,
                              const char *form)
{
    const struct finding *x = findings_get(f, b, level, key, form);
    return x ? &f->v[x - f->v] : NULL;
}

void findings_reject(struct finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->note, sizeof f->note, fmt, ap);
    va_end(ap);
    f->reliable = false;
}

size_t findings_curve(struct findings *f, const char *name, const char *x_unit, const char *y_unit)
{
    struct findings_curve *c = realloc(f->curves, (f->n_curves + 1) * sizeof *c);
    if (!c) {
        f->oom = true;
        return (size_t)-1;
    }
    f->curves = c;
    c = &f->curves[f->n_curves];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->x_unit, sizeof c->x_unit, "%s", x_unit);
    snprintf(c->y_unit, sizeof c->y_unit, "%s", y_unit);
    return f->n_curves++;
}

void findings_point(struct findings *f, size_t curve, double x, double y)
{
    if (curve >= f->n_curves)
        return;
    struct findings_curve *c = &f->curves[curve];
    if (!grow((void **)&c->p, &c->cap, c->n + 1, sizeof *c->p)) {
        f->oom = true;
        return;
    }
    c->p[c->n++] = (struct findings_xy){ x, y };
}

static bool same(const struct finding *a, const struct finding *b)
{
    return a->block == b->block && a->level == b->level && !strcmp(a->key, b->key) && !strcmp(a->form, b->form);
}

/* Keeps the faster of KEPT and X in KEPT. */
static void merge(struct finding *kept, const struct finding *x)
{
    double fast = fmin(kept->stat.min, x->stat.min), slow = fmax(kept->stat.min, x->stat.min);
    if (x->stat.min < kept->stat.min)
        *kept = *x;
    if (kept->reliable && fast > 0 && slow > fast * 1.05)
        snprintf(kept->note, sizeof kept->note, "the other pass was %.0f%% slower (a busy sibling thread?)",
                 100 * (slow / fast - 1));
}

void findings_keep_best(struct findings *f)
{
    size_t out = 0;
    for (size_t i = 0; i < f->n; i++) {
        size_t j = 0;
        while (j < out && !same(&f->v[j], &f->v[i]))
            j++;
        if (j < out)
            merge(&f->v[j], &f->v[i]);
        else
            f->v[out++] = f->v[i];
    }
    f->n = out;
}

double findings_round_cycles(double cycles)
{
    double whole = round(cycles);
    return fabs(cycles - whole) <= 0.1 ? whole : round(cycles * 10) / 10;
}
