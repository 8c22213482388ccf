/* Text and JSON views of a block analysis. */
#include "report.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
    unsigned lane;
    double speedup;
};

static const char *knob_label(const struct report *rep, enum rt_knob k, int arg)
{
    if (k == RT_KNOB_RESOURCE)
        return rep->m->resources[arg].name;
    if (k == RT_KNOB_CACHE_BW)
        return rep->m->caches[arg].name;
    return rt_knob_name(k);
}

static bool is_pair(const struct rt_lane_cfg *c) { return c->knob[1] != RT_KNOB_NONE; }

static const char *lane_name(const struct report *rep, unsigned l, char *buf, size_t len)
{
    const struct rt_lane_cfg *c = &rep->lanes[l];
    const char *base = knob_label(rep, c->knob[0], c->arg[0]);
    bool several = false;
    for (unsigned k = 1; k < rep->n_lanes; k++)
        several |= rep->lanes[k].weight != rep->lanes[1].weight && rep->lanes[k].knob[0] < RT_KNOB_ALL_RESOURCES;
    if (c->knob[0] == RT_KNOB_CACHE_BW)
        snprintf(buf, len, "%s_bandwidth", base);
    else
        snprintf(buf, len, "%s", base);
    if (is_pair(c))
        snprintf(buf + strlen(buf), len - strlen(buf), "+%s", knob_label(rep, c->knob[1], c->arg[1]));
    if (several && c->knob[0] < RT_KNOB_ALL_RESOURCES)
        snprintf(buf + strlen(buf), len - strlen(buf), "@%g%%", (c->weight - 1) * 100);
    return buf;
}

static int by_speedup(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return x->speedup < y->speedup ? 1 : x->speedup > y->speedup ? -1 : (int)x->lane - (int)y->lane;
}

/* Sensitivity lanes of one resource (PAIRS false) or of two together, largest speed-up first;
 * never the baseline or the two bounds. */
static size_t ranked_lanes(const struct report *rep, struct ranked *out, bool pairs)
{
    size_t n = 0;
    double base = rep->r->cycles[0];
    for (unsigned l = 1; l < rep->n_lanes; l++) {
        enum rt_knob k = rep->lanes[l].knob[0];
        if (k == RT_KNOB_ALL_RESOURCES || k == RT_KNOB_NO_DEPS || is_pair(&rep->lanes[l]) != pairs)
            continue;
        out[n++] = (struct ranked){ l, rep->r->cycles[l] > 0 ? base / rep->r->cycles[l] : 1 };
    }
    qsort(out, n, sizeof *out, by_speedup);
    return n;
}

static double bound(const struct report *rep, enum rt_knob k)
{
    for (unsigned l = 1; l < rep->n_lanes; l++)
        if (rep->lanes[l].knob[0] == k)
            return rep->r->cycles[l];
    return -1;
}

static double critical_share(const struct report *rep, size_t i)
{
    return rep->r->seen[i] ? (double)rep->r->crit[i] / (double)rep->r->seen[i] : 0;
}

/* Per iteration, the cost each entry puts on each resource, summed: the denominator of the
 * per-instruction shares of Table 1. */
static double *resource_totals(const struct report *rep)
{
    const struct mdl_machine *m = rep->m;
    double *tot = calloc(m->n_resources + 1u, sizeof *tot);
    for (size_t i = 0; i < rep->b->n; i++) {
        const struct rt_insn *in = &rep->b->insns[i];
        const struct mdl_template *t = &m->templates[in->tmpl];
        for (unsigned k = 0; !in->eliminated && k < t->use_count; k++)
            tot[m->uses[t->use_first + k].resource] += m->uses[t->use_first + k].cost;
    }
    return tot;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* When nothing accelerated alone or in pairs helps, several resources are saturated at once:
 * name those the block keeps busy all the time. */
static void saturated(const struct report *rep, char *buf, size_t len)
{
    const struct mdl_machine *m = rep->m;
    double *busy = calloc(m->n_resources + 1u, sizeof *busy), fe, ret, c = rep->r->cycles[0];
    block_busy(rep->b, m, busy, &fe, &ret);
    size_t n = (size_t)snprintf(buf, len, "balanced: saturated together:");
    bool any = false;
    for (unsigned r = 0; r < m->n_resources && n < len; r++)
        if (!m->resources[r].is_group && busy[r] >= 0.99 * c) {
            n += (size_t)snprintf(buf + n, len - n, " %s", m->resources[r].name);
            any = true;
        }
    if (fe >= 0.99 * c && n < len)
        n += (size_t)snprintf(buf + n, len - n, " frontend"), any = true;
    if (ret >= 0.99 * c && n < len)
        n += (size_t)snprintf(buf + n, len - n, " retire"), any = true;
    if (!any)
        snprintf(buf, len, "no resource, pair or saturated set binds");
    free(busy);
}

/* The verdict: one resource when accelerating it alone helps; else the pair that helps when
 * accelerated together (a balanced kernel); else none within the weight. */
static const char *verdict(const struct report *rep, char *buf, size_t len)
{
    struct ranked one[RT_MAX_LANES], two[RT_MAX_LANES];
    size_t n1 = ranked_lanes(rep, one, false), n2 = ranked_lanes(rep, two, true);
    char name[96];
    if (n1 && one[0].speedup > 1.01)
        snprintf(buf, len, "%s bound (%.3fx when %g%% faster)", lane_name(rep, one[0].lane, name, sizeof name),
                 one[0].speedup, (rep->lanes[one[0].lane].weight - 1) * 100);
    else if (n2 && two[0].speedup > 1.01)
        snprintf(buf, len, "balanced: %s bind together (%.3fx only when both are faster)",
                 lane_name(rep, two[0].lane, name, sizeof name), two[0].speedup);
    else
        saturated(rep, buf, len);
    if (rep->n_lanes == 1 && strncmp(buf, "balanced", 8) != 0)
        snprintf(buf, len, "no sensitivity lanes were run");
    return buf;
}

static void text_interactions(FILE *out, const struct report *rep)
{
    struct ranked rk[RT_MAX_LANES];
    size_t n = ranked_lanes(rep, rk, true);
    char name[96];
    if (n)
        fputs("Interactions (two resources accelerated together):\n", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-32s %6.3fx\n", lane_name(rep, rk[i].lane, name, sizeof name), rk[i].speedup);
}

static void text_bottlenecks(FILE *out, const struct report *rep)
{
    struct ranked rk[RT_MAX_LANES];
    size_t n = ranked_lanes(rep, rk, false);
    if (!n)
        return;
    char name[96];
    fprintf(out, "\nBottlenecks (speed-up of the block when one resource is %g%% faster):\n",
            (rep->lanes[1].weight - 1) * 100);
    for (size_t i = 0; i < n && (i < 8 || rk[i].speedup > 1.0005); i++)
        fprintf(out, "  %-24s %6.3fx%s\n", lane_name(rep, rk[i].lane, name, sizeof name), rk[i].speedup,
                i == 0 && rk[i].speedup > 1.0005 ? "   <- bottleneck" : "");
    double inf = bound(rep, RT_KNOB_ALL_RESOURCES), nodep = bound(rep, RT_KNOB_NO_DEPS);
    if (inf >= 0)
        fprintf(out, "Bounds: infinite resources %.2f cycles/iteration, no dependencies %.2f cycles/iteration\n",
                inf, nodep);
    text_interactions(out, rep);
    char v[256];
    fprintf(out, "Verdict: %s\n", verdict(rep, v, sizeof v));
}

static void text_table(FILE *out, const struct report *rep)
{
    const struct mdl_machine *m = rep->m;
    double *tot = resource_totals(rep);
    fprintf(out, "\n  #  %-34s %-28s %7s %5s %8s  resources (cost, share of the resource)\n", "instruction",
            "form", "latency", "uops", "critical");
    for (size_t i = 0; i < rep->b->n; i++) {
        const struct rt_insn *in = &rep->b->insns[i];
        const struct mdl_template *t = &m->templates[in->tmpl];
        char lat[32];
        snprintf(lat, sizeof lat, t->latency_min == t->latency_max ? "%g" : "%g-%g", t->latency_min, t->latency_max);
        fprintf(out, "%3u  %-34.34s %-28.28s %7s %5u %7.0f%%  ", rep->b->orig[i], in->disasm,
                in->unknown ? "(class default)" : in->eliminated ? "(eliminated)" : t->name, lat,
                t->uops_fused, 100 * critical_share(rep, rep->b->orig[i]));
        for (unsigned k = 0; !in->eliminated && k < t->use_count; k++) {
            const struct mdl_use *u = &m->uses[t->use_first + k];
            fprintf(out, "%s%s %.2f (%.0f%%)", k ? ", " : "", m->resources[u->resource].name, u->cost,
                    tot[u->resource] > 0 ? 100 * u->cost / tot[u->resource] : 0);
        }
        fputc('\n', out);
    }
    free(tot);
}

static void text_unknown(FILE *out, const struct report *rep)
{
    bool any = false;
    for (size_t i = 0; i < rep->b->n; i++)
        if (rep->b->insns[i].unknown) {
            if (!any)
                fputs("\nModelled by their class default (no entry in the machine description):\n", out);
            any = true;
            fprintf(out, "  %u: %s  [%s]\n", rep->b->orig[i], rep->b->insns[i].disasm, rep->b->insns[i].key);
        }
}

void report_text(FILE *out, const struct report *rep, const char *label)
{
    double c = rep->r->cycles[0];
    fprintf(out, "Block:              %s\n", label);
    fprintf(out, "Machine:            %s\n", rep->m->name);
    fprintf(out, "Iterations:         %u simulated (the state repeats or the critical-path window is full)\n",
            rep->r->iterations);
    fprintf(out, "Instructions:       %zu per iteration\n", rep->b->n_orig);
    fprintf(out, "Cycles/iteration:   %.2f\n", c);
    fprintf(out, "IPC:                %.2f\n", c > 0 ? rep->b->n_orig / c : 0);
    text_bottlenecks(out, rep);
    text_table(out, rep);
    text_unknown(out, rep);
    fputc('\n', out);
}

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
void report_g6(char *buf, double x)
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
        report_g6(buf, x);
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

static void json_interactions(FILE *out, const struct report *rep)
{
    struct ranked rk[RT_MAX_LANES];
    size_t n = ranked_lanes(rep, rk, true);
    putc_unlocked('[', out);
    for (size_t i = 0; i < n; i++) {
        const struct rt_lane_cfg *c = &rep->lanes[rk[i].lane];
        fputs_unlocked(i ? ",{" : "{", out);
        jkey(out, "resources", true);
        putc_unlocked('[', out);
        jstr(out, knob_label(rep, c->knob[0], c->arg[0]));
        putc_unlocked(',', out);
        jstr(out, knob_label(rep, c->knob[1], c->arg[1]));
        putc_unlocked(']', out);
        jkey(out, "speedup", false);
        jnum(out, rk[i].speedup);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
}

static void json_bottlenecks(FILE *out, const struct report *rep)
{
    struct ranked rk[RT_MAX_LANES];
    size_t n = ranked_lanes(rep, rk, false);
    char name[96];
    putc_unlocked('[', out);
    for (size_t i = 0; i < n; i++) {
        fputs_unlocked(i ? ",{" : "{", out);
        jkey(out, "resource", true);
        jstr(out, lane_name(rep, rk[i].lane, name, sizeof name));
        jkey(out, "speedup", false);
        jnum(out, rk[i].speedup);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
}

static int by_share(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : (x[0] > y[0]) - (x[0] < y[0]);
}

static void json_critical(FILE *out, const struct report *rep)
{
    size_t n = rep->b->n_orig, k = 0;
    double (*v)[2] = calloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        v[i][0] = (double)i;
        v[i][1] = critical_share(rep, i);
    }
    qsort(v, n, sizeof *v, by_share);
    putc_unlocked('[', out);
    for (size_t i = 0; i < n && rep->causality; i++) {
        if (v[i][1] <= 0)
            continue;
        fputs_unlocked(k++ ? ",{\"index\":" : "{\"index\":", out);
        jnum(out, v[i][0]);
        fputs_unlocked(",\"share\":", out);
        jnum(out, v[i][1]);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
    free(v);
}

static void json_entry(FILE *out, const struct report *rep, const struct rt_insn *in, unsigned orig, const double *tot)
{
    const struct mdl_machine *m = rep->m;
    const struct mdl_template *t = &m->templates[in->tmpl];
    fputs_unlocked("{\"index\":", out);
    jnum(out, orig);
    fputs_unlocked(",\"disasm\":", out);
    jstr(out, in->disasm);
    jkey(out, "key", false);
    jstr(out, in->key);
    jkey(out, "template", false);
    jstr(out, t->name);
    jkey(out, "class_default", false);
    fputs_unlocked(in->unknown ? "true" : "false", out);
    jkey(out, "eliminated", false);
    fputs_unlocked(in->eliminated ? "true" : "false", out);
    jkey(out, "latency", false);
    putc_unlocked('[', out);
    jnum(out, t->latency_min);
    putc_unlocked(',', out);
    jnum(out, t->latency_max);
    fputs_unlocked("],\"uops\":", out);
    jnum(out, t->uops_fused);
    fputs_unlocked(",\"resources\":[", out);
    for (unsigned k = 0; !in->eliminated && k < t->use_count; k++) {
        const struct mdl_use *u = &m->uses[t->use_first + k];
        fputs_unlocked(k ? ",{" : "{", out);
        jkey(out, "resource", true);
        jstr(out, m->resources[u->resource].name);
        jkey(out, "cost", false);
        jnum(out, u->cost);
        jkey(out, "share", false);
        jnum(out, tot[u->resource] > 0 ? u->cost / tot[u->resource] : 0.0);
        putc_unlocked('}', out);
    }
    fputs_unlocked("],\"critical\":", out);
    jnum(out, critical_share(rep, orig));
    putc_unlocked('}', out);
}

static void json_table(FILE *out, const struct report *rep)
{
    double *tot = resource_totals(rep);
    putc_unlocked('[', out);
    for (size_t i = 0; i < rep->b->n; i++) {
        if (i)
            putc_unlocked(',', out);
        json_entry(out, rep, &rep->b->insns[i], rep->b->orig[i], tot);
    }
    putc_unlocked(']', out);
    free(tot);
}

static void json_unknown(FILE *out, const struct report *rep)
{
    size_t k = 0;
    putc_unlocked('[', out);
    for (size_t i = 0; i < rep->b->n; i++) {
        const struct rt_insn *in = &rep->b->insns[i];
        if (!in->unknown)
            continue;
        fprintf(out, "%s{\"index\":%u,\"disasm\":", k++ ? "," : "", rep->b->orig[i]);
        jstr(out, in->disasm);
        jkey(out, "key", false);
        jstr(out, in->key);
        putc_unlocked('}', out);
    }
    putc_unlocked(']', out);
}

void report_json(FILE *out, const struct report *rep)
{
    double c = rep->r->cycles[0];
    char v[256];
    fputs_unlocked("{\"machine\":", out);
    jstr(out, rep->m->name);
    fprintf(out, ",\"iterations\":%u,\"instructions\":%zu,\"cycles_per_iteration\":", rep->r->iterations,
            rep->b->n_orig);
    jnum(out, c);
    jkey(out, "ipc", false);
    jnum(out, c > 0 ? rep->b->n_orig / c : 0.0);
    jkey(out, "bottlenecks", false);
    json_bottlenecks(out, rep);
    jkey(out, "interactions", false);
    json_interactions(out, rep);
    jkey(out, "verdict", false);
    jstr(out, verdict(rep, v, sizeof v));
    double inf = bound(rep, RT_KNOB_ALL_RESOURCES), nodep = bound(rep, RT_KNOB_NO_DEPS);
    if (inf >= 0) {
        fputs_unlocked(",\"bounds\":{\"infinite_resources\":", out);
        jnum(out, inf);
        jkey(out, "no_dependencies", false);
        jnum(out, nodep);
        putc_unlocked('}', out);
    }
    jkey(out, "critical", false);
    json_critical(out, rep);
    jkey(out, "table", false);
    json_table(out, rep);
    jkey(out, "unknown", false);
    json_unknown(out, rep);
    fputs_unlocked("}\n", out);
}

void report_error(FILE *out, bool json, const char *label, const char *msg)
{
    if (json) {
        fputs_unlocked("{\"block\":", out);
        jstr(out, label);
        fputs_unlocked(",\"error\":", out);
        jstr(out, msg);
        fputs_unlocked("}\n", out);
    }
    fprintf(stderr, "mdlsim: error: %s: %s\n", label, msg);
}
