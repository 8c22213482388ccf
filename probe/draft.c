/* The .mdl writer: parameter blocks with the keys plan.c decides to set (blocks merge key by key
 * with the base's, spec.md 6), cache blocks under the base's names, and instruction entries that
 * replace the base's, keeping its other attributes with their sources. */
#include "draft.h"
#include <math.h>
#include <string.h>
#include "plan.h"

struct out {
    FILE *fp;
    const struct findings *f;
    const struct base *b;
    const struct draft_info *info;
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

/* One value of a block, said again in the summary as the file has it. */
static void value_line(struct out *o, const char *scope, const char *key, const char *value, const char *src,
                       const char *note)
{
    fprintf(o->fp, "    %-18s %-12s @%s;  // %s\n", key, value, src, note);
    if (o->info->summary)
        fprintf(o->info->summary, "%s: %s %s @%s\n", scope, key, value, src);
    o->values++;
}

static void param(struct out *o, const char *scope, const struct finding *x)
{
    char v[32], note[400];
    value_text(x->key, x->value, v, sizeof v);
    note_text(x, note, sizeof note);
    value_line(o, scope, x->key, v, "probe", note);
}

/* A value the plan took from the kernel or derived from measurements. */
static void planned(struct out *o, const char *scope, const char *key, const struct plan_value *v)
{
    char text[32];
    value_text(key, v->value, text, sizeof text);
    value_line(o, scope, key, text, v->src == PLAN_SYSFS ? "sysfs" : "probe", v->why);
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

/* A block of the measured keys and of DERIVED (NULL, or a value derived from them under the key
 * DERIVED_KEY); when none is written, only the comments. */
static void simple_block(struct out *o, enum findings_block b, const char *name, const char *derived_key,
                         const struct plan_value *derived)
{
    bool extra = derived && derived->src != PLAN_BASE;
    bool any = count_block(o->f, b, 0, true) > 0 || extra;
    if (!any && !count_block(o->f, b, 0, false))
        return;
    if (any)
        fprintf(o->fp, "%s {\n", name);
    for (size_t i = 0; i < o->f->n; i++) {
        const struct finding *x = &o->f->v[i];
        if (x->block == b && x->reliable)
            param(o, name, x);
        else if (x->block == b)
            rejected(o, x, any ? "    " : "");
    }
    if (extra)
        planned(o, name, derived_key, derived);
    if (any)
        fprintf(o->fp, "}\n");
    fprintf(o->fp, "\n");
}

/* ---- caches ------------------------------------------------------------------------------------ */

static const char *const cache_keys[] = { "size", "ways", "line", "latency" };

/* A level the base lacks, not known whole: what is known of it, in comments. */
static void cache_comments(struct out *o, unsigned level, const struct plan_value *const v[4])
{
    fprintf(o->fp, "// L%u: the base has no such level and not all of it was measured reliably or given by sysfs\n",
            level);
    for (size_t i = 0; i < 4; i++) {
        const struct finding *x = findings_get(o->f, FB_CACHE, level, cache_keys[i], NULL);
        if (v[i]->src != PLAN_BASE)
            fprintf(o->fp, "//   %s %g (%s)\n", cache_keys[i], v[i]->value, v[i]->src == PLAN_SYSFS ? "sysfs" : "measured");
        else if (x)
            rejected(o, x, "//   ");
    }
    fprintf(o->fp, "\n");
}

/* A level the base lacks opens with its level (its latency was measured: a plateau of the curve)
 * and its type, the kernel's when it gives one. */
static void cache_head(struct out *o, const char *scope, unsigned level, const struct sysfs_cache *k)
{
    char value[16], note[64];
    snprintf(value, sizeof value, "%u", level);
    snprintf(note, sizeof note, "the %u%s plateau of the latency curve", level,
             level == 1 ? "st" : level == 2 ? "nd" : level == 3 ? "rd" : "th");
    value_line(o, scope, "level", value, "probe", note);
    fprintf(o->fp, "    %-18s %s;\n", "type", k && !strcmp(k->type, "Data") ? "data" : "unified");
}

/* Each key as the plan has it (spec.md 12.3): measured, else the kernel's, else the base's (not
 * written); the measurements not used in comments. */
static void cache(struct out *o, unsigned level)
{
    const struct sysfs_cache *k = sysfs_data_level(o->info->sysfs, o->info->n_sysfs, level);
    const char *name = base_cache(o->b, level);
    struct plan_cache pc;
    plan_cache(o->f, level, k, base_cache_value(o->b, level, "ways"), base_cache_value(o->b, level, "line"), &pc);
    const struct plan_value *const v[4] = { &pc.size, &pc.ways, &pc.line, &pc.latency };
    bool whole = v[0]->src != PLAN_BASE && v[1]->src != PLAN_BASE && v[2]->src != PLAN_BASE, any = pc.size_dropped;
    for (size_t i = 0; i < 4; i++)
        any |= v[i]->src != PLAN_BASE || findings_get(o->f, FB_CACHE, level, cache_keys[i], NULL);
    if (!any)
        return;     /* the base's level as it is */
    if (!name && !(whole && v[3]->src == PLAN_PROBE)) {
        cache_comments(o, level, v);
        return;
    }
    char scope[48];
    if (name)
        snprintf(scope, sizeof scope, "cache %s", name);
    else
        snprintf(scope, sizeof scope, "cache L%u", level);
    fprintf(o->fp, "%s {\n", scope);
    if (!name)
        cache_head(o, scope, level, k);
    for (size_t i = 0; i < 4; i++) {
        const struct finding *x = findings_get(o->f, FB_CACHE, level, cache_keys[i], NULL);
        if (x && !x->reliable)
            rejected(o, x, "    ");
        if (i == 0 && pc.size_dropped)
            fprintf(o->fp, "    // size: not used (not a whole number of sets with the ways and line in force)\n");
        if (v[i]->src == PLAN_PROBE)
            param(o, scope, x);
        else if (v[i]->src == PLAN_SYSFS)
            planned(o, scope, cache_keys[i], v[i]);
    }
    fprintf(o->fp, "}\n\n");
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

/* Of the ALU form, a throughput that shows more ALUs than the base has: said, not applied. */
static void alu_ports(struct out *o, const char *key, const struct finding *tp)
{
    char why[400];
    if (strcmp(key, PLAN_ALU_FORM) != 0 ||
        !plan_alu_ports(tp, base_form_ports(o->b, key), base_extends(o->b), why, sizeof why))
        return;
    fprintf(o->fp, "// %s\n", why);
    if (o->info->summary)
        fprintf(o->info->summary, "note: %s\n", why);
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
    alu_ports(o, key, tp);
    char scope[64], lat_text[32], tp_text[32];
    snprintf(scope, sizeof scope, "insn %s", key);
    snprintf(lat_text, sizeof lat_text, "%g", lat_ok ? lat->value : 0);
    snprintf(tp_text, sizeof tp_text, "%.2f", tp_ok ? tp->value : 0);
    fprintf(o->fp, "%s", scope);
    if (lat_ok)
        fprintf(o->fp, " latency %s @probe", lat_text);
    if (rest[0])
        fprintf(o->fp, " %s", rest);
    if (tp_ok)
        fprintf(o->fp, " tp %s @probe", tp_text);
    fprintf(o->fp, ";\n");
    if (o->info->summary && lat_ok)
        fprintf(o->info->summary, "%s: latency %s @probe\n", scope, lat_text);
    if (o->info->summary && tp_ok)
        fprintf(o->info->summary, "%s: tp %s @probe\n", scope, tp_text);
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
    fprintf(o->fp, "// Set here: what was measured (@probe), and the cache geometry the probe could not measure as\n");
    fprintf(o->fp, "// the kernel gives it (@sysfs); everything else is %s's, the base. Compile it with\n", ext);
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
    fprintf(o->fp, ";\n");
    if (info->n_sysfs)
        fprintf(o->fp, "source sysfs \"the kernel's cache topology of cpu0: /sys/devices/system/cpu/cpu0/cache/index*/"
                       "{level,type,size,ways_of_associativity,coherency_line_size}\";\n");
    fprintf(o->fp, "\n");
}

size_t draft_write(FILE *fp, const struct findings *f, const struct base *b, const struct draft_info *info)
{
    struct out o = { fp, f, b, info, 0 };
    struct plan_value retire = plan_retire_width(findings_get(f, FB_FRONTEND, 0, "issue_width", NULL),
                                                 base_value(b, "window", "retire_width"), base_extends(b));
    header(&o, info);
    simple_block(&o, FB_FRONTEND, "frontend", NULL, NULL);
    simple_block(&o, FB_WINDOW, "window", "retire_width", &retire);
    for (unsigned level = 1, deepest = plan_deepest_level(f, info->sysfs, info->n_sysfs); level <= deepest; level++)
        cache(&o, level);
    simple_block(&o, FB_MEMORY, "memory", NULL, NULL);
    simple_block(&o, FB_BRANCH, "branch", NULL, NULL);
    forms(&o);
    return o.values;
}
