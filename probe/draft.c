/* The .mdl writer: parameter blocks with the measured keys only (blocks merge key by key with
 * the base's, spec.md 6), cache blocks under the base's names, and instruction entries that
 * replace the base's, keeping its other attributes with their sources. */
#include "draft.h"
#include <math.h>
#include <string.h>

struct out {
    FILE *fp;
    const struct findings *f;
    const struct base *b;
    size_t values;
};

static bool is_bytes(const char *key) { return !strcmp(key, "size") || !strcmp(key, "line"); }
static bool is_cycles(const char *key) { return !strcmp(key, "latency") || !strcmp(key, "mispredict_penalty"); }

/* A value as the language writes it (spec.md 8): sizes with a unit, times in cycles. */
static void value_text(const char *key, double v, char *buf, size_t len)
{
    if (is_bytes(key) && v >= 1 << 20 && fmod(v, 1 << 20) == 0)
        snprintf(buf, len, "%.0f MiB", v / (1 << 20));
    else if (is_bytes(key) && v >= 1024 && fmod(v, 1024) == 0)
        snprintf(buf, len, "%.0f KiB", v / 1024);
    else if (is_bytes(key))
        snprintf(buf, len, "%.0f B", v);
    else if (is_cycles(key))
        snprintf(buf, len, "%g cycles", v);
    else
        snprintf(buf, len, "%.0f", v);
}

/* "4 cycles, spread 0.3%, 7 runs: METHOD; sysfs: 32 KiB" */
static void note_text(const struct finding *x, char *buf, size_t len)
{
    char sys[48] = "";
    if (x->sysfs > 0) {
        char v[32];
        value_text(x->key, x->sysfs, v, sizeof v);
        snprintf(sys, sizeof sys, "; sysfs: %s", v);
    }
    if (x->stat.runs)
        snprintf(buf, len, "%.2f, spread %.1f%%, %u runs: %s%s", x->raw, 100 * x->stat.spread, x->stat.runs,
                 x->method, sys);
    else
        snprintf(buf, len, "%s%s", x->method, sys);
}

static void param(struct out *o, const struct finding *x)
{
    char v[32], note[400];
    value_text(x->key, x->value, v, sizeof v);
    note_text(x, note, sizeof note);
    fprintf(o->fp, "    %-18s %-12s @probe;  // %s\n", x->key, v, note);
    o->values++;
}

static void rejected(struct out *o, const struct finding *x, const char *indent)
{
    char note[400];
    note_text(x, note, sizeof note);
    fprintf(o->fp, "%s// %s: not used (%s): %s\n", indent, x->key, x->note, note);
}

static size_t count_block(const struct findings *f, enum findings_block b, unsigned level, bool reliable)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        n += f->v[i].block == b && f->v[i].level == level && f->v[i].reliable == reliable;
    return n;
}

/* A block of the measured keys; when none is reliable, only the comments. */
static void simple_block(struct out *o, enum findings_block b, const char *name)
{
    bool any = count_block(o->f, b, 0, true) > 0;
    if (!any && !count_block(o->f, b, 0, false))
        return;
    if (any)
        fprintf(o->fp, "%s {\n", name);
    for (size_t i = 0; i < o->f->n; i++) {
        const struct finding *x = &o->f->v[i];
        if (x->block == b && x->reliable)
            param(o, x);
        else if (x->block == b)
            rejected(o, x, any ? "    " : "");
    }
    if (any)
        fprintf(o->fp, "}\n");
    fprintf(o->fp, "\n");
}

/* ---- caches ------------------------------------------------------------------------------------ */

static const struct finding *cache_get(const struct out *o, unsigned level, const char *key, bool *usable)
{
    const struct finding *x = findings_get(o->f, FB_CACHE, level, key, NULL);
    *usable = x && x->reliable;
    return x;
}

/* The size is written only when it stays a whole number of sets with the ways and line that will
 * be in force (measured or the base's): mdlc checks that (spec.md 12.3). */
static bool size_fits(const struct out *o, unsigned level)
{
    bool s_ok, w_ok, l_ok;
    const struct finding *s = cache_get(o, level, "size", &s_ok), *w = cache_get(o, level, "ways", &w_ok);
    const struct finding *l = cache_get(o, level, "line", &l_ok);
    double ways = w_ok ? w->value : base_cache_value(o->b, level, "ways");
    double line = l_ok ? l->value : base_cache_value(o->b, level, "line");
    return s_ok && ways > 0 && line > 0 && fmod(s->value, ways * line) == 0;
}

static void cache_key(struct out *o, unsigned level, const char *key)
{
    bool ok;
    const struct finding *x = cache_get(o, level, key, &ok);
    if (x && ok && (strcmp(key, "size") != 0 || size_fits(o, level)))
        param(o, x);
    else if (x && ok)
        fprintf(o->fp, "    // size: not used (not a whole number of sets with the ways and line in force)\n");
    else if (x)
        rejected(o, x, "    ");
}

static bool all_usable(const struct out *o, unsigned level)
{
    static const char *const keys[] = { "size", "ways", "line", "latency" };
    bool ok = true, one;
    for (size_t i = 0; i < 4; i++)
        ok &= cache_get(o, level, keys[i], &one) && one;
    return ok && size_fits(o, level);
}

static void cache(struct out *o, unsigned level)
{
    static const char *const keys[] = { "size", "ways", "line", "latency" };
    const char *name = base_cache(o->b, level);
    if (!name && !all_usable(o, level)) {
        fprintf(o->fp, "// L%u: the base has no such level and not all of it was measured reliably\n", level);
        for (size_t i = 0; i < 4; i++) {
            bool ok;
            const struct finding *x = cache_get(o, level, keys[i], &ok);
            if (x && ok)
                fprintf(o->fp, "//   %s %g\n", keys[i], x->value);
            else if (x)
                rejected(o, x, "//   ");
        }
        fprintf(o->fp, "\n");
        return;
    }
    char own[16];
    snprintf(own, sizeof own, "L%u", level);
    fprintf(o->fp, "cache %s {\n", name ? name : own);
    if (!name) {
        fprintf(o->fp, "    %-18s %-12u @probe;  // the %u%s plateau of the latency curve\n", "level", level, level,
                level == 1 ? "st" : level == 2 ? "nd" : level == 3 ? "rd" : "th");
        fprintf(o->fp, "    %-18s %s;\n", "type", "unified");
        o->values++;
    }
    for (size_t i = 0; i < 4; i++)
        cache_key(o, level, keys[i]);
    fprintf(o->fp, "}\n\n");
}

static unsigned deepest_level(const struct findings *f)
{
    unsigned n = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].block == FB_CACHE && f->v[i].level > n)
            n = f->v[i].level;
    return n;
}

/* ---- instruction forms ------------------------------------------------------------------------- */

static void form_note(const struct finding *x, const char *what, char *buf, size_t len)
{
    size_t used = strlen(buf);
    if (!x)
        return;
    if (x->reliable)
        snprintf(buf + used, len - used, "%s%s %.2f (spread %.1f%%, %u runs)", used ? "; " : "", what, x->raw,
                 100 * x->stat.spread, x->stat.runs);
    else
        snprintf(buf + used, len - used, "%s%s not used (%s)", used ? "; " : "", what, x->note);
}

static void form(struct out *o, const char *key)
{
    const struct finding *lat = findings_get(o->f, FB_FORM, 0, "latency", key);
    const struct finding *tp = findings_get(o->f, FB_FORM, 0, "tp", key);
    bool lat_ok = lat && lat->reliable, tp_ok = tp && tp->reliable;
    char rest[512], note[400] = "";
    form_note(lat, "latency", note, sizeof note);
    form_note(tp, "tp", note, sizeof note);
    const char *how = lat ? lat->method : tp ? tp->method : "";
    if (!lat_ok && !tp_ok) {
        fprintf(o->fp, "// %s: %s: %s\n", key, how, note);
        return;
    }
    if (!base_form_rest(o->b, key, lat_ok, tp_ok, rest, sizeof rest)) {
        fprintf(o->fp, "// %s: the base has no entry to complete (add one by hand): %s\n", key, note);
        return;
    }
    fprintf(o->fp, "// %s: %s\n", how, note);
    fprintf(o->fp, "insn %s", key);
    if (lat_ok)
        fprintf(o->fp, " latency %g @probe", lat->value);
    if (rest[0])
        fprintf(o->fp, " %s", rest);
    if (tp_ok)
        fprintf(o->fp, " tp %.2f @probe", tp->value);
    fprintf(o->fp, ";\n");
    o->values += lat_ok + tp_ok;
}

/* Whether the I-th finding is its form's first. */
static bool first_of_form(const struct findings *f, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (f->v[j].block == FB_FORM && strcmp(f->v[j].form, f->v[i].form) == 0)
            return false;
    return true;
}

static void forms(struct out *o)
{
    for (size_t i = 0; i < o->f->n; i++)
        if (o->f->v[i].block == FB_FORM && first_of_form(o->f, i))
            form(o, o->f->v[i].form);
}

/* ---- the file ---------------------------------------------------------------------------------- */

/* TEXT in double quotes, with the escapes of spec.md 2. */
static void quoted(FILE *fp, const char *text)
{
    fputc('"', fp);
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', fp);
        fputc(*c == '\n' || *c == '\t' ? ' ' : *c, fp);
    }
    fputc('"', fp);
}

static void header(struct out *o, const struct draft_info *info)
{
    const char *ext = base_extends(o->b);
    bool path = strchr(ext, '.') != NULL;
    fprintf(o->fp, "// Drafted by mdlprobe from measurements of this host (%s), %s.\n", info->cpu, info->date);
    fprintf(o->fp, "// Only what was measured is set here; everything else is %s's. Compile it with\n", ext);
    fprintf(o->fp, "//   build/mdlc -I %s -Wmissing-source --Werror --check THIS.mdl\n", base_dir(o->b));
    fprintf(o->fp, "// Values the probe could not measure reliably are in comments, not in the description.\n\n");
    fprintf(o->fp, "machine %s extends %s%s%s {\n    description ", info->machine, path ? "\"" : "", ext,
            path ? "\"" : "");
    char desc[256];
    snprintf(desc, sizeof desc, "%s, as measured by mdlprobe", info->cpu);
    quoted(o->fp, desc);
    fprintf(o->fp, ";\n}\n\nsource probe ");
    char src[512];
    snprintf(src, sizeof src, "mdlprobe on %s, %s, clock: %s", info->cpu, info->date, info->clock);
    quoted(o->fp, src);
    fprintf(o->fp, ";\n\n");
}

size_t draft_write(FILE *fp, const struct findings *f, const struct base *b, const struct draft_info *info)
{
    struct out o = { fp, f, b, 0 };
    header(&o, info);
    simple_block(&o, FB_FRONTEND, "frontend");
    simple_block(&o, FB_WINDOW, "window");
    for (unsigned level = 1; level <= deepest_level(f); level++)
        cache(&o, level);
    simple_block(&o, FB_MEMORY, "memory");
    simple_block(&o, FB_BRANCH, "branch");
    forms(&o);
    return o.values;
}
