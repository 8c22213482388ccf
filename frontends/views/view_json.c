/* The JSON view of an analysis result: one object on one line, the same keys for block, run and
 * replay (frontends/views/mdlsim.schema.json). */
#include "view_json.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ----------------------------------------------------------------------------------
 * Written directly: one object per block and thousands of blocks per second, where building a
 * jansson tree first cost a third of the run. Only one thread writes to a report's stream (a
 * batch thread's own, or stdout with one thread), so it is not locked for each of its hundreds
 * of small writes. */

static void jstr(FILE *out, const char *s)
{
    putc_unlocked('"', out);
    for (;;) {
        size_t n = 0;   /* the run of characters that need no escape, written at once */
        while ((unsigned char)s[n] >= 0x20 && s[n] != '"' && s[n] != '\\')
            n++;
        fwrite_unlocked(s, 1, n, out);
        s += n;
        if (!*s)
            break;
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else
            fprintf(out, "\\u%04x", (unsigned char)*s);
        s++;
    }
    putc_unlocked('"', out);
}

/* The common case of "%.6g" without printf (a tenth of the time): 1e-4 <= |x| < 1e6 scaled to
 * six digits, rounded half to even. The scaling rounds once, by at most 1.2e-10 below 1e6, so
 * only a fraction within 1e-9 of a half could round otherwise than printf, which rounds the exact
 * value: those, and every other case, go to printf. */
void view_json_g6(char *buf, double x)
{
    static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
    double a = x < 0 ? -x : x;
    int e = -5;
    while (e < 6 && a >= (e < 0 ? 1 / pow10[-e] : pow10[e]))
        e++;
    e--;                                    /* 10^e <= a < 10^(e+1) */
    double y = e >= -4 && e <= 5 ? a * pow10[5 - e] : 0, f = y - floor(y);
    if (e < -4 || e > 5 || y < 1e5 || y >= 1e6 || (f > 0.5 - 1e-9 && f < 0.5 + 1e-9)) {
        snprintf(buf, 32, "%.6g", x);
        return;
    }
    long r = (long)floor(y) + (f > 0.5);
    if (r == 1000000) {                     /* rounded up to the next power of ten */
        r = 100000;
        if (++e > 5) {
            snprintf(buf, 32, "%.6g", x);
            return;
        }
    }
    char digits[7], *p = buf;
    for (int i = 5; i >= 0; i--, r /= 10)
        digits[i] = (char)('0' + r % 10);
    digits[6] = 0;
    if (x < 0)
        *p++ = '-';
    if (e < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > e; i--)
            *p++ = '0';
        memcpy(p, digits, 7);
    } else {
        memcpy(p, digits, (size_t)e + 1);
        p += e + 1;
        *p++ = '.';
        memcpy(p, digits + e + 1, 6 - (size_t)e);
    }
    /* trailing zeros go, and the point with them when nothing follows it */
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = 0;
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = 0;
}

/* Most numbers of a report are small integers (indices, counts, whole cycles): they skip
 * printf's floating-point path. */
static void jnum(FILE *out, double x)
{
    if (x != x || x > 1e300 || x < -1e300) {
        fputs_unlocked("null", out);
    } else if (x == (double)(long)x && x < 1e6 && x > -1e6) {
        char buf[24], *p = buf + sizeof buf;
        long v = (long)x;
        unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
        *--p = 0;
        do
            *--p = (char)('0' + u % 10);
        while (u /= 10);
        if (v < 0)
            *--p = '-';
        fputs_unlocked(p, out);
    } else {
        char buf[32];
        view_json_g6(buf, x);
        fputs_unlocked(buf, out);
    }
}

/* `"key":` preceded by a comma unless it opens the object. */
static void jkey(FILE *out, const char *key, bool first)
{
    if (!first)
        putc_unlocked(',', out);
    jstr(out, key);
    putc_unlocked(':', out);
}

static void jnull_str(FILE *out, const char *s)
{
    if (s)
        jstr(out, s);
    else
        fputs_unlocked("null", out);
}

static void jbool(FILE *out, bool b) { fputs_unlocked(b ? "true" : "false", out); }

static void jkey_num(FILE *out, const char *key, double x, bool first)
{
    jkey(out, key, first);
    jnum(out, x);
}

/* Counts can pass 1e6 and must stay exact: integers as integers. */
static void jkey_u64(FILE *out, const char *key, uint64_t v, bool first)
{
    jkey(out, key, first);
    fprintf(out, "%llu", (unsigned long long)v);
}

static void jkey_str(FILE *out, const char *key, const char *s, bool first)
{
    jkey(out, key, first);
    jnull_str(out, s);
}

static const char *scope_kind(enum result_scope s)
{
    return s == RESULT_SCOPE_BLOCK ? "block" : s == RESULT_SCOPE_ROI ? "roi" : "run";
}

static const char *verdict_kind(enum result_verdict_kind k)
{
    static const char *const names[] = { "no_lanes", "resource", "pair", "saturated", "none" };
    return names[k];
}

static void json_head(FILE *out, const struct result *r)
{
    fprintf(out, "{\"schema_version\":%d", RESULT_SCHEMA_VERSION);
    jkey_str(out, "command", r->command, false);
    jkey_str(out, "machine", r->m->name, false);
    fputs_unlocked(",\"scope\":{", out);
    jkey_str(out, "kind", scope_kind(r->scope), true);
    jkey_str(out, "name", r->scope_name, false);
    putc_unlocked('}', out);
    if (r->scope != RESULT_SCOPE_BLOCK)
        jkey_str(out, "roi", r->scope_name, false);
    jkey_u64(out, "iterations", r->iterations, false);
    jkey_u64(out, "instructions", r->instructions, false);
    jkey_u64(out, "executed", r->executed, false);
    jkey_num(out, "cycles", r->cycles, false);
    if (r->scope == RESULT_SCOPE_BLOCK)
        jkey_num(out, "cycles_per_iteration", r->cycles, false);
    jkey_num(out, "ipc", r->ipc, false);
    jkey_u64(out, "macro_fused", r->macro_fused, false);
    jkey(out, "weights", false);
    putc_unlocked('[', out);
    for (unsigned i = 0; i < r->n_weights; i++) {
        if (i)
            putc_unlocked(',', out);
        jnum(out, r->weights[i]);
    }
    putc_unlocked(']', out);
}

static void json_verdict(FILE *out, const struct result *r)
{
    const struct result_verdict *v = &r->verdict;
    jkey_str(out, "verdict", v->text, false);
    fputs_unlocked(",\"verdict_detail\":{", out);
    jkey_str(out, "kind", verdict_kind(v->kind), true);
    jkey(out, "resources", false);
    putc_unlocked('[', out);
    for (unsigned i = 0; i < v->n_names; i++) {
        if (i)
            putc_unlocked(',', out);
        jstr(out, v->names[i]);
    }
    putc_unlocked(']', out);
    bool lane = v->kind == RESULT_VERDICT_RESOURCE || v->kind == RESULT_VERDICT_PAIR;
    jkey_num(out, "speedup", lane ? v->speedup : NAN, false);
    jkey_num(out, "weight", lane ? v->weight : NAN, false);
    putc_unlocked('}', out);
    if (r->has_bounds) {
        fputs_unlocked(",\"bounds\":{", out);
        jkey_num(out, "infinite_resources", r->bound_infinite_resources, true);
        jkey_num(out, "no_dependencies", r->bound_no_dependencies, false);
        putc_unlocked('}', out);
    }
}

static void json_sensitivity(FILE *out, const struct result *r)
{
    jkey(out, "bottlenecks", false);
    putc_unlocked('[', out);
    for (unsigned i = 0; i < r->n_single; i++) {
        const struct result_lane *ln = &r->lanes[r->single[i]];
        fputs_unlocked(i ? ",{" : "{", out);
        jkey_str(out, "resource", ln->label, true);
        jkey_num(out, "speedup", ln->speedup, false);
        putc_unlocked('}', out);
    }
    fputs_unlocked("],\"sensitivity\":[", out);
    for (unsigned i = 0; i < r->n_single; i++) {
        const struct result_lane *ln = &r->lanes[r->single[i]];
        fputs_unlocked(i ? ",{" : "{", out);
        jkey_str(out, "resource", ln->knob_label[0], true);
        jkey_num(out, "weight", ln->cfg.weight, false);
        jkey_num(out, "speedup", ln->speedup, false);
        putc_unlocked('}', out);
    }
    fputs_unlocked("],\"interactions\":[", out);
    for (unsigned i = 0; i < r->n_pairs; i++) {
        const struct result_lane *ln = &r->lanes[r->pairs[i]];
        fputs_unlocked(i ? ",{" : "{", out);
        jkey(out, "resources", true);
        putc_unlocked('[', out);
        jstr(out, ln->knob_label[0]);
        putc_unlocked(',', out);
        jstr(out, ln->knob_label[1]);
        putc_unlocked(']', out);
        jkey_num(out, "weight", ln->cfg.weight, false);
        jkey_num(out, "speedup", ln->speedup, false);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
}

static void json_curves(FILE *out, const struct result *r)
{
    jkey(out, "curves", false);
    putc_unlocked('[', out);
    for (unsigned i = 0; i < r->n_curves; i++) {
        const struct result_curve *c = &r->curves[i];
        fputs_unlocked(i ? ",{" : "{", out);
        jkey_str(out, "resource", c->label, true);
        fputs_unlocked(",\"points\":[", out);
        for (unsigned k = 0; k < c->n; k++) {
            fputs_unlocked(k ? ",{" : "{", out);
            jkey_num(out, "weight", c->weight[k], true);
            jkey_num(out, "speedup", c->speedup[k], false);
            putc_unlocked('}', out);
        }
        fputs_unlocked("]}", out);
    }
    putc_unlocked(']', out);
}

static void json_topdown(FILE *out, const struct result *r)
{
    const struct result_topdown *t = &r->topdown;
    jkey(out, "topdown", false);
    if (!t->valid) {
        fputs_unlocked("null", out);
        return;
    }
    putc_unlocked('{', out);
    jkey_num(out, "slots", t->slots, true);
    jkey_num(out, "retiring", t->retiring, false);
    jkey_num(out, "bad_speculation", t->bad_speculation, false);
    jkey_num(out, "frontend_bound", t->frontend, false);
    jkey_num(out, "frontend_latency", t->frontend_latency, false);
    jkey_num(out, "frontend_bandwidth", t->frontend_bandwidth, false);
    jkey_num(out, "backend_bound", t->backend, false);
    jkey_num(out, "memory_bound", t->memory, false);
    jkey_num(out, "core_bound", t->core, false);
    fputs_unlocked(",\"memory_levels\":[", out);
    for (unsigned k = 0; k < t->n_levels; k++) {
        fputs_unlocked(k ? ",{" : "{", out);
        jkey_str(out, "level", t->level[k], true);
        jkey_num(out, "share", t->level_share[k], false);
        putc_unlocked('}', out);
    }
    fputs_unlocked("]}", out);
}

static void json_critical(FILE *out, const struct result *r)
{
    jkey(out, "critical", false);
    putc_unlocked('[', out);
    for (size_t i = 0; i < r->n_critical; i++) {
        const struct result_row *row = &r->rows[r->critical[i]];
        fputs_unlocked(i ? ",{" : "{", out);
        jkey_num(out, "index", row->index, true);
        jkey_u64(out, "pc", row->pc, false);
        jkey_str(out, "disasm", row->disasm, false);
        jkey_num(out, "share", row->critical, false);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
}

static void json_bytes(FILE *out, const struct result_row *row)
{
    static const char hex[] = "0123456789abcdef";
    char buf[2 * sizeof row->bytes + 3], *p = buf;
    *p++ = '"';
    for (unsigned i = 0; i < row->len; i++) {
        *p++ = hex[row->bytes[i] >> 4];
        *p++ = hex[row->bytes[i] & 15];
    }
    *p++ = '"';
    fwrite_unlocked(buf, 1, (size_t)(p - buf), out);
}

static void json_row(FILE *out, const struct result *r, const struct result_row *row)
{
    jkey_num(out, "index", row->index, true);
    jkey_u64(out, "pc", row->pc, false);
    jkey(out, "bytes", false);
    json_bytes(out, row);
    jkey_str(out, "disasm", row->disasm, false);
    jkey_str(out, "key", row->key, false);
    jkey_str(out, "template", row->form, false);
    jkey(out, "class_default", false);
    jbool(out, row->class_default);
    jkey(out, "eliminated", false);
    jbool(out, row->eliminated);
    jkey(out, "fused", false);
    jbool(out, row->fused);
    jkey_u64(out, "executions", row->executions, false);
    jkey(out, "latency", false);
    putc_unlocked('[', out);
    jnum(out, row->latency_min);
    putc_unlocked(',', out);
    jnum(out, row->latency_max);
    putc_unlocked(']', out);
    jkey_num(out, "uops", row->uops, false);
    fputs_unlocked(",\"resources\":[", out);
    for (unsigned k = 0; k < row->use_count; k++) {
        const struct result_use *u = &r->uses[row->use_first + k];
        fputs_unlocked(k ? ",{" : "{", out);
        jkey_str(out, "resource", r->m->resources[u->resource].name, true);
        jkey_num(out, "cost", u->cost, false);
        jkey_num(out, "share", u->share, false);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
    jkey_num(out, "critical", row->critical, false);
}

static void json_table(FILE *out, const struct result *r)
{
    jkey(out, "table", false);
    putc_unlocked('[', out);
    for (size_t i = 0; i < r->n_rows; i++) {
        fputs_unlocked(i ? ",{" : "{", out);
        json_row(out, r, &r->rows[i]);
        putc_unlocked('}', out);
    }
    fputs_unlocked("],\"unknown\":[", out);
    size_t k = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->class_default || !row->executions)
            continue;
        fputs_unlocked(k++ ? ",{" : "{", out);
        jkey_num(out, "index", row->index, true);
        jkey_u64(out, "pc", row->pc, false);
        jkey_str(out, "disasm", row->disasm, false);
        jkey_str(out, "key", row->key, false);
        jkey_u64(out, "count", row->executions, false);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
}

static void json_memory(FILE *out, const struct result *r)
{
    jkey(out, "caches", false);
    putc_unlocked('[', out);
    for (unsigned k = 0; r->has_caches && k < r->n_caches; k++) {
        const struct result_cache *c = &r->caches[k];
        fputs_unlocked(k ? ",{" : "{", out);
        jkey_str(out, "level", c->name, true);
        jkey_u64(out, "accesses", c->accesses, false);
        jkey_u64(out, "hits", c->hits, false);
        jkey_num(out, "hit_rate", c->accesses ? (double)c->hits / (double)c->accesses : 0.0, false);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
    jkey(out, "branches", false);
    if (!r->has_branches) {
        fputs_unlocked("null", out);
        return;
    }
    putc_unlocked('{', out);
    jkey_u64(out, "branches", r->branches, true);
    jkey_u64(out, "mispredicted", r->mispredicted, false);
    putc_unlocked('}', out);
}

bool view_json(FILE *out, const struct result *r)
{
    json_head(out, r);
    json_verdict(out, r);
    json_sensitivity(out, r);
    json_curves(out, r);
    json_topdown(out, r);
    json_critical(out, r);
    json_table(out, r);
    json_memory(out, r);
    fputs_unlocked("}\n", out);
    return !ferror(out);
}

void view_json_error(FILE *out, const char *label, const char *msg)
{
    fputs_unlocked("{\"block\":", out);
    jstr(out, label);
    fputs_unlocked(",\"error\":", out);
    jstr(out, msg);
    fputs_unlocked("}\n", out);
}
