/* The lowered machine as JSON, for `mdlc --dump-json` and scripts that inspect a model. */
#include "emit.h"
#include "check.h"
#include "isainfo.h"
#include "utf8.h"
#include <jansson.h>
#include <stdlib.h>

static const char *const class_names[] = {
#define X(e, s, doc) s,
#include "class.def"
#undef X
};

static const char *const depend_names[] = {
#define X(e, s, doc) s,
#include "depend.def"
#undef X
};

/* S as a JSON string (null for NULL): jansson refuses a string that is not UTF-8, and a
 * description's strings are the user's bytes; a byte that starts no UTF-8 character is U+FFFD. */
static json_t *json_text(const char *s)
{
    char *fixed = s ? utf8_fixed(s) : NULL;
    json_t *j = fixed ? json_string(fixed) : json_null();
    free(fixed);
    return j;
}

static json_t *json_resources(const struct mdl_machine *m)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < m->n_resources; i++) {
        const struct mdl_resource *r = &m->resources[i];
        json_array_append_new(a, json_pack("{s:s, s:I, s:i, s:b}", "name", r->name, "units",
                                           (json_int_t)r->units, "width", r->width, "group", r->is_group));
    }
    return a;
}

static json_t *json_template(const struct mdl_machine *m, const struct mdl_template *t)
{
    json_t *uses = json_array();
    for (unsigned k = 0; k < t->use_count; k++) {
        const struct mdl_use *u = &m->uses[t->use_first + k];
        json_array_append_new(uses, json_pack("{s:s, s:f}", "resource", m->resources[u->resource].name,
                                              "cost", (double)u->cost));
    }
    json_t *async = json_array();
    for (unsigned k = 0; k < t->async_count; k++) {
        const struct mdl_async_use *u = &m->async_uses[t->async_first + k];
        json_array_append_new(async, json_pack("{s:s, s:f}", "resource", m->async[u->resource].name,
                                               "cost", (double)u->cost));
    }
    json_t *occupancies = json_array();
    for (unsigned k = 0; k < t->occ_count; k++) {
        const struct mdl_occupancy *o = &m->occupancies[t->occ_first + k];
        json_array_append_new(occupancies, json_pack("{s:I, s:f}", "units", (json_int_t)o->units, "count",
                                                     (double)o->count));
    }
    json_t *depends = json_array();
    for (unsigned k = 0; k < MDL_DEPEND_COUNT; k++)
        if (t->depends & (1u << k))
            json_array_append_new(depends, json_string(depend_names[k]));
    return json_pack("{s:s, s:s?, s:[f,f], s:[i,i], s:f, s:o, s:o, s:o, s:o, s:b}", "name", t->name,
                     "class", t->cls < MDL_CLASS_COUNT ? class_names[t->cls] : NULL,
                     "latency", (double)t->latency_min, (double)t->latency_max, "uops", t->uops_fused,
                     t->uops_unfused, "tp", (double)t->tp, "uses", uses, "occupancies", occupancies, "async", async,
                     "depends", depends, "complex_decoder", t->complex_decode);
}

static json_t *json_templates(const struct mdl_machine *m, unsigned from, unsigned to)
{
    json_t *a = json_array();
    for (unsigned i = from; i < to; i++)
        json_array_append_new(a, json_template(m, &m->templates[i]));
    return a;
}

static json_t *json_names(const struct mdl_machine *m, uint32_t first, uint32_t count)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < count; i++)
        json_array_append_new(a, json_string(m->templates[m->match[first + i]].name));
    return a;
}

static json_t *json_rules(const struct mdl_machine *m)
{
    json_t *replaces = json_array(), *bypasses = json_array();
    for (unsigned i = 0; i < m->n_replaces; i++) {
        const struct mdl_replace *r = &m->replaces[i];
        json_array_append_new(replaces, json_pack("{s:o, s:o, s:s?, s:i, s:i, s:i}",
            "first", json_names(m, r->first, r->first_count), "second", json_names(m, r->second, r->second_count),
            "with", r->target >= 0 ? m->templates[r->target].name : NULL, "reads", r->reads, "writes", r->writes,
            "same_pairs", r->n_same));
    }
    for (unsigned i = 0; i < m->n_bypasses; i++) {
        const struct mdl_bypass *b = &m->bypasses[i];
        json_array_append_new(bypasses, json_pack("{s:I, s:o, s:I, s:o, s:b, s:i, s:f}",
            "from_classes", (json_int_t)b->from_classes, "from", json_names(m, b->from, b->from_count),
            "to_classes", (json_int_t)b->to_classes, "to", json_names(m, b->to, b->to_count),
            "memory", b->memory, "sign", b->sign, "latency", (double)b->latency));
    }
    return json_pack("{s:o, s:o}", "replace", replaces, "bypass", bypasses);
}

static json_t *json_caches(const struct mdl_machine *m)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < m->n_caches; i++) {
        const struct mdl_cache *c = &m->caches[i];
        json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:f, s:f, s:i}", "name", c->name,
            "level", c->level, "kind", c->kind, "policy", c->policy, "prefetch", c->prefetch,
            "size", (json_int_t)c->size, "ways", c->ways, "line", c->line, "latency", (double)c->latency,
            "bandwidth", (double)c->bandwidth, "outstanding", c->outstanding));
    }
    return a;
}

static const char *const param_keys[] = {
#define X(blk, key, dim, en, lo, hi, fixed, doc) #key,
#include "param.def"
#undef X
};

/* The values given with a range: where each lives (`vary`: a block's key, a template's latency,
 * a bypass rule's) and its bounds, in the units of the lowered field. */
static json_t *json_uncertain(const struct mdl_machine *m)
{
    static const char *const vary[] = { "param", "latency", "bypass" };
    json_t *a = json_array();
    for (unsigned i = 0; i < m->n_uncertain; i++) {
        const struct mdl_uncertain *u = &m->uncertain[i];
        json_array_append_new(a, json_pack("{s:o, s:s, s:s?, s:i, s:f, s:f, s:f, s:o, s:o}", "name", json_text(u->name),
            "vary", vary[u->vary], "key", u->vary == MDL_VARY_PARAM ? param_keys[u->param] : NULL, "index", u->index,
            "value", (double)u->value, "low", (double)u->lo, "high", (double)u->hi, "reason", json_text(u->reason),
            "where", json_text(u->where)));
    }
    return a;
}

bool emit_json(FILE *out, const struct mdl_machine *m)
{
    json_t *classes = json_object();
    for (unsigned c = 0; c < MDL_CLASS_COUNT; c++)
        if (m->class_default[c] != UINT32_MAX)
            json_object_set_new(classes, class_names[c], json_string(m->templates[m->class_default[c]].name));
    json_t *root = json_pack("{s:o, s:s, s:o, s:o}", "machine", json_text(m->name), "isa", isainfo_get(m->isa)->name,
                             "qemu_cpu", json_text(m->qemu_cpu), "description", json_text(m->description));
    json_object_set_new(root, "frontend", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:i, s:i, s:f}",
        "fetch_bytes", m->fetch_bytes, "predecode_width", m->predecode_width, "decode_width", m->decode_width, "complex_decoders", m->complex_decoders,
        "issue_width", m->issue_width, "uop_cache_width", m->uop_cache_width, "uop_cache_entries",
        m->uop_cache_entries, "uop_cache_window", m->uop_cache_window, "uop_cache_ways", m->uop_cache_ways,
        "uop_cache_line", m->uop_cache_line, "uop_cache_window_ways", m->uop_cache_window_ways, "uop_cache_switch",
        (double)m->uop_cache_switch, "loop_buffer", m->loop_buffer, "idq", m->idq, "taken_branch_bubble",
        (double)m->taken_branch_bubble));
    json_object_set_new(root, "window", json_pack("{s:i, s:i, s:i, s:i, s:i, s:s, s:f}", "rob", m->rob, "scheduler",
        m->scheduler, "load_buffer", m->load_buffer, "store_buffer", m->store_buffer, "retire_width", m->retire_width,
        "port_choice", check_enum_name("PORT_CHOICE", m->port_choice), "wakeup_delay", (double)m->wakeup_delay));
    json_object_set_new(root, "caches", json_caches(m));
    json_object_set_new(root, "memory", json_pack("{s:f, s:f, s:f, s:f}", "latency", (double)m->memory_latency,
                                                  "bandwidth", (double)m->memory_bandwidth, "store_forward_fail",
                                                  (double)m->store_forward_fail, "pointer_chase",
                                                  (double)m->pointer_chase));
    json_object_set_new(root, "branch", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "predictor",
        m->predictor, "indirect", m->indirect, "history_bits", m->history_bits, "table_entries", m->table_entries,
        "btb_entries", m->btb_entries, "btb_ways", m->btb_ways, "ras_entries", m->ras_entries,
        "mispredict_penalty", (double)m->mispredict_penalty));
    const struct mdl_strings *st = &m->strings;
    json_object_set_new(root, "strings", json_pack("{s:f, s:f, s:i, s:f, s:f, s:f, s:f}", "startup",
        (double)st->startup, "short_startup", (double)st->short_startup, "short_max", st->short_max, "copy_rate",
        (double)st->copy_rate, "unaligned_rate", (double)st->unaligned_rate, "fill_rate", (double)st->fill_rate,
        "element_cycles", (double)st->element_cycles));
    json_object_set_new(root, "resources", json_resources(m));
    json_object_set_new(root, "class_defaults", classes);
    json_object_set_new(root, "forms", json_templates(m, 0, m->n_forms));
    json_object_set_new(root, "classes", json_templates(m, m->n_forms, m->n_templates));
    json_object_set_new(root, "rules", json_rules(m));
    json_object_set_new(root, "uncertain", json_uncertain(m));
    /* json_pack gives NULL for a value it refuses: then nothing, not an empty document and 0 */
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text)
        return false;
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return true;
}
