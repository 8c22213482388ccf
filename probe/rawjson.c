/* The raw measurements as one JSON object (jansson), documented in README (mdlprobe). */
#include "rawjson.h"
#include <jansson.h>

static const char *const block_names[] = { "frontend", "window", "cache", "memory", "branch", "form", "clock" };

static json_t *stat_json(const struct nano_stat *st)
{
    return json_pack("{s:f, s:f, s:f, s:i}", "min", st->min, "median", st->median, "spread", st->spread, "runs",
                     (int)st->runs);
}

static json_t *finding_json(const struct finding *x)
{
    json_t *o = json_pack("{s:s, s:i, s:s, s:f, s:f, s:b, s:s, s:s, s:o}", "block", block_names[x->block], "level",
                          (int)x->level, "key", x->key, "value", x->value, "raw", x->raw, "reliable", x->reliable,
                          "method", x->method, "note", x->note, "stat", stat_json(&x->stat));
    if (o && x->form[0])
        json_object_set_new(o, "form", json_string(x->form));
    if (o && x->sysfs > 0)
        json_object_set_new(o, "sysfs", json_real(x->sysfs));
    return o;
}

static json_t *curves_json(const struct findings *f)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < f->n_curves; i++) {
        const struct findings_curve *c = &f->curves[i];
        json_t *pts = json_array();
        for (size_t k = 0; pts && k < c->n; k++)
            json_array_append_new(pts, json_pack("[f, f]", c->p[k].x, c->p[k].y));
        json_object_set_new(o, c->name, json_pack("{s:s, s:s, s:o}", "x", c->x_unit, "y", c->y_unit, "points", pts));
    }
    return o;
}

static json_t *sysfs_json(const struct rawjson_info *info)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < info->n_sysfs; i++) {
        const struct sysfs_cache *c = &info->sysfs[i];
        json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I, s:I}", "level", (int)c->level, "type", c->type,
                                           "size", (json_int_t)c->size, "ways", (json_int_t)c->ways, "line",
                                           (json_int_t)c->line));
    }
    return a;
}

static json_t *clock_json(const struct rawjson_info *info)
{
    return json_pack("{s:s, s:s, s:f, s:o, s:f}", "kind", timer_name(info->timer), "description", info->clock_text,
                     "ticks_per_cycle", info->timer->ticks_per_cycle, "dependent_add_ticks",
                     stat_json(&info->calib->add), "independent_add_cycles", info->calib->parallel.min);
}

bool rawjson_write(FILE *out, const struct findings *f, const struct rawjson_info *info)
{
    json_t *values = json_array();
    for (size_t i = 0; values && i < f->n; i++)
        json_array_append_new(values, finding_json(&f->v[i]));
    json_t *root = json_pack("{s:s, s:i, s:{s:s, s:s, s:s, s:b}, s:o, s:{s:s, s:s}, s:o, s:o, s:o, s:f}", "tool",
                             "mdlprobe", "schema_version", 1, "host", "cpu", info->cpu, "date", info->date, "isa",
                             "x86_64", "huge_pages", info->huge_pages, "clock", clock_json(info), "base",
                             "extends", info->base, "dir", info->base_dir, "values", values, "curves",
                             curves_json(f), "sysfs", sysfs_json(info), "seconds", info->seconds);
    bool ok = root && json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', out) != EOF;
    json_decref(root);
    return ok;
}
