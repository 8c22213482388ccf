/* The HTML report: verdict, top-down bar, Gus heat map, bounds, interactions, instruction table. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "view_html.h"
#include "alloc.h"
#include "utf8.h"

/* How much one page shows: past these, a note says how many were left out (a page of thousands
 * of rows is not read, and browsers slow down on it). */
enum {
    HEAT_ROWS = 24,
    HEAT_COLUMNS = HEAT_ROWS * RESULT_MAX_WEIGHTS,
    TABLE_ROWS = 300,
    MATRIX_KNOBS = 24,
    CRITICAL_ROWS = 10,
    DEFAULT_ROWS = 100,
};

/* Heat map geometry (SVG pixels). */
enum { CELL_W = 64, CELL_H = 24, CELL_GAP = 2, HEAD_H = 40, LEGEND_W = 240 };

static const char style[] =
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:#f3f4f7;color:#1c2230;"
    "font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}\n"
    "header{background:#1c2230;color:#fff;padding:18px 28px 16px}\n"
    "header h1{margin:0;font-size:19px;font-weight:600;letter-spacing:.01em}\n"
    "header h1 .sep{color:#7d879c;margin:0 .45em}\n"
    ".stats{display:flex;flex-wrap:wrap;gap:10px 36px;margin-top:12px}\n"
    ".stat b{display:block;font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}\n"
    ".stat span{font-size:11px;text-transform:uppercase;letter-spacing:.07em;color:#a9b1c3}\n"
    "main{padding:18px 28px 28px;max-width:1500px}\n"
    "section,.banner{background:#fff;border:1px solid #dfe3ea;border-radius:6px;padding:14px 18px;"
    "margin:0 0 16px;overflow-x:auto}\n"
    "h2{font-size:15px;margin:0 0 4px;font-weight:600}\n"
    ".sub{color:#677086;font-size:12.5px;margin:0 0 10px}\n"
    ".note{color:#677086;font-size:12.5px;margin:8px 0 0}\n"
    ".banner{border-left:7px solid #8a93a6;padding:14px 20px}\n"
    ".banner .tag{font-size:11px;text-transform:uppercase;letter-spacing:.08em;color:#677086}\n"
    "#verdict{font-size:19px;font-weight:600;margin:2px 0 0}\n"
    ".k-resource{border-left-color:#d9480f;background:#fff6f0}\n"
    ".k-pair{border-left-color:#7048e8;background:#f6f3ff}\n"
    ".k-saturated{border-left-color:#b3001b;background:#fff1f2}\n"
    ".k-none{border-left-color:#2b8a3e;background:#f2fbf4}\n"
    ".bar{display:flex;height:34px;border-radius:4px;overflow:hidden;background:#eef0f4}\n"
    ".bar div{color:#fff;font-size:12px;font-weight:600;display:flex;align-items:center;"
    "justify-content:center;white-space:nowrap;overflow:hidden}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:6px 20px;margin-top:9px;font-size:12.5px}\n"
    ".legend b{font-variant-numeric:tabular-nums;font-weight:600}\n"
    ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}\n"
    "table{border-collapse:collapse;font-size:12.5px}\n"
    "th,td{padding:3px 7px;border-bottom:1px solid #edf0f4;text-align:left;white-space:nowrap}\n"
    "th{font-weight:600;color:#4a5367;background:#f7f8fa;border-bottom:1px solid #dfe3ea}\n"
    "thead th{position:sticky;top:0}\n"
    ".n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12px}\n"
    ".dim{color:#8a93a6}\n"
    ".badge{font-size:10.5px;color:#5f3dc4;border:1px solid #d0bfff;border-radius:3px;padding:0 3px;margin-left:5px}\n"
    "tr.crit td:first-child{box-shadow:inset 4px 0 #c92a2a}\n"
    "tbody tr:hover td{outline:1px solid #c7cdd8}\n"
    "td.res{min-width:40px}\n"
    ".form{max-width:340px;overflow:hidden;text-overflow:ellipsis}\n"
    "th.bn{background:#ffe3d3;color:#b33a0b}\n"
    "tfoot td{border-top:1px solid #dfe3ea;color:#4a5367;font-weight:600}\n"
    ".matrix td{min-width:64px;text-align:center;font-variant-numeric:tabular-nums}\n"
    ".matrix td.alone{font-style:italic}\n"
    "svg text{font-size:12px;fill:#1c2230}\n"
    "svg .cv{font-size:11px;pointer-events:none;font-variant-numeric:tabular-nums}\n"
    "svg .cz{font-size:11px;pointer-events:none;fill:#a3aab8}\n"
    "svg .ax{fill:#677086;font-size:11px}\n";

/* A sequential scale from white (nothing) to dark red (the most on the page), after ColorBrewer's
 * OrRd, so that every "how much" on the page reads the same way. */
static const unsigned char heat_stops[][3] = {
    { 255, 255, 255 }, { 254, 232, 200 }, { 253, 187, 132 }, { 252, 141, 89 }, { 227, 74, 51 }, { 179, 0, 0 },
};
enum { N_STOPS = sizeof heat_stops / sizeof heat_stops[0] };

/* The colour of T in [0, 1] (clamped; NaN is 0) as "#rrggbb". */
static const char *heat(double t, char rgb[8])
{
    t = t > 0 ? (t < 1 ? t : 1) : 0;
    double x = t * (N_STOPS - 1);
    unsigned i = x >= N_STOPS - 1 ? N_STOPS - 2 : (unsigned)x;
    double f = x - i;
    unsigned c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (unsigned)lround(heat_stops[i][k] + f * (heat_stops[i + 1][k] - heat_stops[i][k]));
    snprintf(rgb, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
    return rgb;
}

/* Text on a heat colour: dark on the light half, white on the dark one. */
static const char *ink(double t) { return t > 0.62 ? "#fff" : "#1c2230"; }

/* A fraction's place on the scale (a share of a resource's busy time, of a critical path): fixed,
 * 0 to 1, so that pages compare; the square root keeps the 5-20% shares of a long run visible. */
static double fraction_t(double x) { return x > 0 ? sqrt(x) : 0; }

/* S's place on the page's speed-up scale: 0 at 1.0x, 1 at the largest speed-up shown. */
static double speed_t(double s, double top) { return top > 1 ? (s - 1) / (top - 1) : 0; }

/* Up to N bytes of S as HTML text or attribute value. S comes from a binary, an assembly file or
 * a .mdl: markup characters become references so that it can neither open a tag nor end an
 * attribute, and control bytes and bytes that start no well-formed UTF-8 character become
 * U+FFFD (HTML has no reference for most of them; the page is UTF-8). */
static void escn(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; s && i < n && s[i];) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c >= 0x80 ? utf8_char(s + i, n - i) : 1;
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '\'')
            fputs("&#39;", out);
        else if (c == '\t' || c == '\n')
            putc(' ', out);
        else if (c < 0x20 || c == 0x7f || k == 0)
            fputs("&#xfffd;", out);
        else
            fwrite(s + i, 1, k, out);
        i += k ? k : 1;
    }
}

static void esc(FILE *out, const char *s) { escn(out, s, SIZE_MAX); }

/* A resource's name, guarded against an index the machine does not have. */
static const char *resource_name(const struct result *r, unsigned i)
{
    const char *name = result_resource_name(r, i);
    return name ? name : "?";
}

/* The weight as the percentage a knob is accelerated by (1.15: "+15%"). */
static void weight_pct(FILE *out, double w) { fprintf(out, "%+.4g%%", (w - 1) * 100); }

/* A count of cycles or issue slots as the page shows it: a run's in whole numbers (a run of
 * millions of cycles in %g would read 7.39667e+06), a block's per iteration, fractions kept. */
static void count(FILE *out, const struct result *r, double x)
{
    fprintf(out, r->scope == RESULT_SCOPE_BLOCK ? "%.6g" : "%.0f", x);
}

/* ---- head and title ------------------------------------------------------------------------ */

static void scope_text(FILE *out, const struct result *r)
{
    if (r->scope == RESULT_SCOPE_RUN) {
        fputs("whole run", out);
    } else if (r->scope == RESULT_SCOPE_ROI) {
        fputs(r->scope_name ? "region " : "region", out);
        esc(out, r->scope_name);
    } else {
        esc(out, r->scope_name ? r->scope_name : "block");
    }
}

/* "machine SEP command SEP scope": the page's title and its heading. */
static void what(FILE *out, const struct result *r, const char *sep)
{
    esc(out, r->m->name);
    for (unsigned i = 0; i < r->n_set; i++) {
        fputs(i ? ", " : " with ", out);
        esc(out, r->set[i]);
    }
    fputs(sep, out);
    esc(out, r->command);
    fputs(sep, out);
    scope_text(out, r);
}

static void head(FILE *out, const struct result *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mdlsim: ", out);
    what(out, r, " &#183; ");
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

static void stat_box(FILE *out, const char *value, const char *what)
{
    fprintf(out, "<div class=\"stat\"><b>%s</b><span>%s</span></div>\n", value, what);
}

/* N instructions, or "N to N + MORE" where each period draws the length. */
static void html_span(char *buf, size_t size, uint64_t n, uint64_t more)
{
    int k = snprintf(buf, size, "%" PRIu64, n);
    if (more && k > 0 && (size_t)k < size)
        snprintf(buf + k, size - (size_t)k, " to %" PRIu64, n + more);
}

/* A sampled run says so before any number: which instructions the model saw, and how sure the
 * estimates are. */
static void sampling_note(FILE *out, const struct result *r)
{
    const struct result_sampling *s = &r->sampling;
    if (!s->sampled)
        return;
    char lanes[200] = "", warm[48], lanes_warm[48];
    html_span(warm, sizeof warm, s->warm, s->warm_spread);
    html_span(lanes_warm, sizeof lanes_warm, s->lanes_warm, s->warm_spread);
    if (s->lanes_warm < s->warm)
        snprintf(lanes, sizeof lanes, ", the sensitivity lanes' last %s", lanes_warm);
    if (s->lanes_every > 1)
        snprintf(lanes + strlen(lanes), sizeof lanes - strlen(lanes),
                 "; after the first %" PRIu64 " intervals, the sensitivity lanes measured in one of %u, all in the same, "
                 "each in %" PRIu64 " or more",
                 s->lanes_from, s->lanes_every, s->lane_units);
    char tail[64] = "", doubling[240] = "";
    if (s->tail)
        snprintf(tail, sizeof tail, ", and the last %" PRIu64 " in full", s->tail);
    if (s->epoch && s->units > s->epoch)
        snprintf(doubling, sizeof doubling, " at first, the period doubling after every %" PRIu64 " intervals", s->epoch);
    if (s->kept)
        snprintf(doubling + strlen(doubling), sizeof doubling - strlen(doubling),
                 " but kept %u time%s, where the intervals spread widely", s->kept, s->kept == 1 ? "" : "s");
    if (s->halved)
        snprintf(doubling + strlen(doubling), sizeof doubling - strlen(doubling),
                 "%s halved %u time%s, where the run's interval was wide",
                 !doubling[0] ? " at first, the period" : s->kept ? " and" : "", s->halved, s->halved == 1 ? "" : "s");
    fprintf(out, "<p class=\"note\" data-sampling>Sampled: the first %" PRIu64 " instructions were modelled in full, "
                 "then %" PRIu64 " intervals of %" PRIu64 " instructions (one in every %" PRIu64 "%s, each after %s"
                 " of warm-up%s)%s: %.2f%% of the scope. Cycles and speed-ups are estimates; cycles lie between "
                 "%.0f and %.0f with 95%% confidence. Instruction and event counts are exact.</p>\n",
            s->exact, s->units, s->unit, s->period, doubling, warm, lanes, tail,
            r->instructions ? 100.0 * (double)s->modelled / (double)r->instructions : 0, r->cycles_low, r->cycles_high);
    if (s->warmups)
        fprintf(out, "<p class=\"note\" data-sampling-resumed>%" PRIu64 " of %" PRIu64 " warm-ups began where the "
                     "model left off, at the address after its last interval: there, the model went on as if nothing "
                     "had been skipped.</p>\n", s->resumed, s->warmups);
    if (s->strings)
        fprintf(out, "<p class=\"note\" data-sampling-strings>The cycles of %" PRIu64 " repeated string instructions "
                     "(%.0f) are counted as the description times them, not sampled: the intervals sample the rest.</p>\n",
                s->strings, s->string_cycles);
    if (s->drift_widened > 0 && r->cycles > 0)
        fprintf(out, "<p class=\"note\" data-sampling-drift>The model still moved as the intervals began: the last "
                     "%" PRIu64 " instructions of each warm-up, measured as an interval, would change the cycles by "
                     "%+.2f%% (+-%.2f%%). A warm-up too short errs the same way in every interval, which their spread "
                     "does not show: the cycles' interval is %.2f%% wider each way for it.</p>\n",
                s->unit, 100 * s->drift / r->cycles, 100 * s->drift_se / r->cycles, 100 * s->drift_widened / r->cycles);
}

/* Machine, command and scope, then the numbers a reader checks first. */
static void title(FILE *out, const struct result *r)
{
    bool block = r->scope == RESULT_SCOPE_BLOCK;
    char v[64];
    fputs("<header>\n<h1>", out);
    what(out, r, "<span class=\"sep\">/</span>");
    fputs("</h1>\n<div class=\"stats\">\n", out);
    snprintf(v, sizeof v, "%" PRIu64, r->instructions);
    stat_box(out, v, block ? "instructions / iteration" : "instructions");
    snprintf(v, sizeof v, block ? "%.2f" : "%.0f", r->cycles);
    if (r->sampling.sampled)
        snprintf(v, sizeof v, "%.0f &#177;%.1f%%", r->cycles,
                 r->cycles > 0 ? 100 * (r->cycles_high - r->cycles) / r->cycles : 0);
    stat_box(out, v, block ? "cycles / iteration" : r->sampling.sampled ? "cycles (sampled, 95%)" : "cycles");
    snprintf(v, sizeof v, "%.2f", r->ipc);
    stat_box(out, v, "IPC");
    if (block) {
        snprintf(v, sizeof v, "%u", r->iterations);
        stat_box(out, v, "iterations simulated");
        if (r->period)
            snprintf(v, sizeof v, "%u", r->period);
        stat_box(out, r->period ? v : "no period",
                 r->period ? "iterations the timing repeats in" : "cycles: the slope of the second half");
    } else if (r->executed != r->instructions) {
        snprintf(v, sizeof v, "%" PRIu64, r->executed);
        stat_box(out, v, "instructions in the run");
    }
    if (r->macro_fused) {
        snprintf(v, sizeof v, "%" PRIu64, r->macro_fused);
        stat_box(out, v, "macro-fused pairs");
    }
    fputs("</div>\n</header>\n<main>\n", out);
    sampling_note(out, r);
    if (r->replaced_by) {
        fputs("<p class=\"note\" data-replaced-by>The program replaced itself with ", out);
        esc(out, *r->replaced_by ? r->replaced_by : "another program");
        fprintf(out, " (exec) after %" PRIu64 " instructions: this page covers what ran before; the new program ran "
                     "natively, outside the analysis.</p>\n", r->executed);
    }
    if (r->killed_by > 0) {
        const char *descr = sigdescr_np(r->killed_by);
        fprintf(out, "<p class=\"note\" data-killed-by=\"%d\">The program was killed by signal %d (", r->killed_by,
                r->killed_by);
        esc(out, descr ? descr : "unknown signal");
        fprintf(out, ") after %" PRIu64 " instructions: this page covers what ran before.</p>\n", r->executed);
    }
}

static const char *verdict_kind(enum result_verdict_kind k)
{
    switch (k) {
    case RESULT_VERDICT_RESOURCE: return "resource";
    case RESULT_VERDICT_PAIR: return "pair";
    case RESULT_VERDICT_SATURATED: return "saturated";
    case RESULT_VERDICT_NONE: return "none";
    default: return "no_lanes";
    }
}

/* The verdict alone in its element, so that its text is exactly the result's. */
static void verdict(FILE *out, const struct result *r)
{
    const char *k = verdict_kind(r->verdict.kind);
    fprintf(out, "<div class=\"banner k-%s\" data-kind=\"%s\">\n<span class=\"tag\">verdict</span>\n", k, k);
    fputs("<p id=\"verdict\">", out);
    escn(out, r->verdict.text, sizeof r->verdict.text);
    fputs("</p>\n", out);
    if (r->robustness.checked) {
        fprintf(out, "<p id=\"robustness\" class=\"note\" data-holds=\"%s\">Across the estimates: ",
                r->robustness.holds ? "true" : "false");
        escn(out, r->robustness.text, sizeof r->robustness.text);
        fputs("</p>\n", out);
    }
    fputs("</div>\n", out);
}

/* ---- top-down -------------------------------------------------------------------------------- */

struct segment {
    const char *category, *level, *name, *colour;
    double share;
};

static const char *const level_colours[RESULT_MAX_LEVELS] = {
    "#5f3dc4", "#7950f2", "#9775fa", "#b197fc", "#4c2a9e", "#845ef7", "#a48cf0", "#c4b5fd",
};

/* The leaves of the breakdown, left to right: they add to the slots. */
static unsigned segments(const struct result_topdown *t, struct segment *s)
{
    unsigned n = 0;
    s[n++] = (struct segment){ "retiring", NULL, "Retiring", "#2f9e44", t->retiring };
    s[n++] = (struct segment){ "bad_speculation", NULL, "Bad speculation", "#e03131", t->bad_speculation };
    s[n++] = (struct segment){ "frontend_latency", NULL, "Front-end latency", "#1971c2", t->frontend_latency };
    s[n++] = (struct segment){ "frontend_bandwidth", NULL, "Front-end bandwidth", "#74c0fc", t->frontend_bandwidth };
    s[n++] = (struct segment){ "core_bound", NULL, "Core bound", "#f08c00", t->core };
    unsigned levels = t->n_levels < RESULT_MAX_LEVELS ? t->n_levels : RESULT_MAX_LEVELS;
    if (levels == 0)    /* memory bound with no level to split it by: one segment */
        s[n++] = (struct segment){ "memory", NULL, "Memory bound", level_colours[0], t->memory };
    for (unsigned i = 0; i < levels; i++)
        s[n++] = (struct segment){ "memory:", t->level[i], "Memory bound: ", level_colours[i], t->level_share[i] };
    return n;
}

static const size_t level_len = sizeof ((struct result_topdown *)0)->level[0];

static void segment_name(FILE *out, const struct segment *s)
{
    fputs(s->name, out);
    if (s->level)
        escn(out, s->level, level_len);
}

static void segment(FILE *out, const struct segment *s)
{
    fprintf(out, "<div data-category=\"%s", s->category);
    if (s->level)
        escn(out, s->level, level_len);
    fprintf(out, "\" data-share=\"%.6g\" style=\"width:%.4f%%;background:%s\" title=\"", s->share,
            s->share > 0 ? s->share * 100 : 0, s->colour);
    segment_name(out, s);
    fprintf(out, ": %.1f%%\">", s->share * 100);
    if (s->share >= 0.06)
        fprintf(out, "%.0f%%", s->share * 100);
    fputs("</div>\n", out);
}

/* T's bar, its segments (room for 5 + RESULT_MAX_LEVELS) in S: their count. */
static unsigned bar(FILE *out, const struct result_topdown *t, struct segment *s)
{
    unsigned n = segments(t, s);
    fputs("<div class=\"bar\">\n", out);
    for (unsigned i = 0; i < n; i++)
        segment(out, &s[i]);
    fputs("</div>\n", out);
    return n;
}

static void topdown(FILE *out, const struct result *r)
{
    const struct result_topdown *t = &r->topdown;
    fputs("<section id=\"topdown\">\n<h2>Top-down: where the issue slots went</h2>\n", out);
    if (!t->valid) {
        fputs("<p class=\"note\">No top-down breakdown: the machine description gives no issue width.</p>\n"
              "</section>\n", out);
        return;
    }
    fputs("<p class=\"sub\">", out);
    count(out, r, t->slots);
    fprintf(out, " issue slots (cycles &#215; issue width); front end %.1f%%, back end %.1f%% (core %.1f%%, "
            "memory %.1f%%).</p>\n", t->frontend * 100, t->backend * 100, t->core * 100, t->memory * 100);
    struct segment s[5 + RESULT_MAX_LEVELS];
    unsigned n = bar(out, t, s);
    fputs("<div class=\"legend\">\n", out);
    for (unsigned i = 0; i < n; i++) {
        fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>", s[i].colour);
        segment_name(out, &s[i]);
        fprintf(out, " <b>%.1f%%</b></span>\n", s[i].share * 100);
    }
    fputs("</div>\n</section>\n", out);
}

/* ---- the heat map (Gus, Figure 11) ------------------------------------------------------------ */

static double last_speedup(const struct result_curve *c) { return c->n ? c->speedup[c->n - 1] : 1; }

/* The largest speed-up on the page: the top of the one colour scale of curves and pairs. */
static double top_speedup(const struct result *r)
{
    double top = 1;
    for (unsigned i = 0; i < r->n_curves && i < RT_MAX_LANES; i++)
        for (unsigned j = 0; j < r->curves[i].n && j < RESULT_MAX_WEIGHTS; j++)
            top = fmax(top, r->curves[i].speedup[j]);
    for (unsigned i = 0; i < r->n_pairs && i < RT_MAX_LANES; i++)
        if (r->pairs[i] < r->n_lanes)
            top = fmax(top, r->lanes[r->pairs[i]].speedup);
    return top;
}

static bool same_weight(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

struct heat_layout {
    unsigned row[RT_MAX_LANES], n_rows, n_hidden;
    double col[HEAT_COLUMNS];
    unsigned n_cols, label_w;
};

/* Adds W to the sorted columns unless it is there. */
static void add_column(struct heat_layout *h, double w)
{
    unsigned i = 0;
    while (i < h->n_cols && h->col[i] < w && !same_weight(h->col[i], w))
        i++;
    if ((i < h->n_cols && same_weight(h->col[i], w)) || h->n_cols == HEAT_COLUMNS)
        return;
    memmove(&h->col[i + 1], &h->col[i], (h->n_cols - i) * sizeof h->col[0]);
    h->col[i] = w;
    h->n_cols++;
}

/* Rows: the curves by their speed-up at the largest weight, descending (ties in result order);
 * columns: every weight a shown curve has. */
static void lay_out(const struct result *r, struct heat_layout *h)
{
    unsigned n = r->n_curves < RT_MAX_LANES ? r->n_curves : RT_MAX_LANES;
    h->n_rows = h->n_cols = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = h->n_rows++;
        for (; j > 0 && last_speedup(&r->curves[h->row[j - 1]]) < last_speedup(&r->curves[i]); j--)
            h->row[j] = h->row[j - 1];
        h->row[j] = i;
    }
    h->n_hidden = h->n_rows > HEAT_ROWS ? h->n_rows - HEAT_ROWS : 0;
    h->n_rows -= h->n_hidden;
    size_t longest = 0;
    for (unsigned i = 0; i < h->n_rows; i++) {
        const struct result_curve *c = &r->curves[h->row[i]];
        for (unsigned j = 0; j < c->n && j < RESULT_MAX_WEIGHTS; j++)
            add_column(h, c->weight[j]);
        size_t len = strnlen(c->label, sizeof c->label);
        longest = len > longest ? len : longest;
    }
    h->label_w = (unsigned)(longest * 7 + 24);
    h->label_w = h->label_w < 110 ? 110 : h->label_w;
}

static unsigned column_of(const struct heat_layout *h, double w)
{
    unsigned i = 0;
    while (i < h->n_cols && !same_weight(h->col[i], w))
        i++;
    return i;
}

static void heat_cell(FILE *out, const struct result_curve *c, unsigned j, unsigned x, unsigned y, double top)
{
    char rgb[8];
    double s = c->speedup[j], t = speed_t(s, top);
    fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"2\" fill=\"%s\" stroke=\"#e3e6ec\" "
            "data-resource=\"", x, y, CELL_W - CELL_GAP, CELL_H - CELL_GAP, heat(t, rgb));
    escn(out, c->label, sizeof c->label);
    fprintf(out, "\" data-weight=\"%.6g\" data-speedup=\"%.6g\"><title>", c->weight[j], s);
    escn(out, c->label, sizeof c->label);
    fputs(" ", out);
    weight_pct(out, c->weight[j]);
    fprintf(out, ": speed-up %.4fx (%+.2f%%)</title></rect>\n", s, (s - 1) * 100);
    unsigned cx = x + (CELL_W - CELL_GAP) / 2, cy = y + CELL_H / 2 + 3;
    if (fabs(s - 1) < 5e-4)     /* no effect: a quiet mark, so that the rows that matter stand out */
        fprintf(out, "<text class=\"cz\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">0</text>\n", cx, cy);
    else
        fprintf(out, "<text class=\"cv\" x=\"%u\" y=\"%u\" text-anchor=\"middle\" style=\"fill:%s\">%+.1f%%</text>\n",
                cx, cy, ink(t), (s - 1) * 100);
}

static void heat_row(FILE *out, const struct heat_layout *h, const struct result_curve *c, unsigned y, double top)
{
    fprintf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">", h->label_w - 10, y + CELL_H / 2 + 3);
    escn(out, c->label, sizeof c->label);
    fputs("</text>\n", out);
    for (unsigned j = 0; j < c->n && j < RESULT_MAX_WEIGHTS; j++)
        heat_cell(out, c, j, h->label_w + column_of(h, c->weight[j]) * CELL_W, y, top);
}

/* The colour scale under the map: white at 1.0x to the page's largest speed-up. */
static void heat_legend(FILE *out, unsigned x, unsigned y, double top)
{
    char rgb[8];
    fputs("<defs><linearGradient id=\"heatscale\">", out);
    for (unsigned i = 0; i < N_STOPS; i++)
        fprintf(out, "<stop offset=\"%.3f\" stop-color=\"%s\"/>", (double)i / (N_STOPS - 1),
                heat((double)i / (N_STOPS - 1), rgb));
    fputs("</linearGradient></defs>\n", out);
    fprintf(out, "<text class=\"ax\" x=\"%u\" y=\"%u\">speed-up of the scope</text>\n", x, y);
    fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"12\" fill=\"url(#heatscale)\" stroke=\"#c9ced8\"/>\n",
            x, y + 6, LEGEND_W);
    fprintf(out, "<text class=\"ax\" x=\"%u\" y=\"%u\">1.00x</text>\n", x, y + 32);
    fprintf(out, "<text class=\"ax\" x=\"%u\" y=\"%u\" text-anchor=\"end\">%.3fx (%+.1f%%)</text>\n",
            x + LEGEND_W, y + 32, top, (top - 1) * 100);
}

static void heatmap_svg(FILE *out, const struct result *r, const struct heat_layout *h, double top)
{
    unsigned grid_w = h->label_w + h->n_cols * CELL_W;
    unsigned w = grid_w > h->label_w + LEGEND_W + 20 ? grid_w + 10 : h->label_w + LEGEND_W + 30;
    unsigned legend_y = HEAD_H + h->n_rows * CELL_H + 16, ht = legend_y + 40;
    fprintf(out, "<svg width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\">\n", w, ht, w, ht);
    fprintf(out, "<text class=\"ax\" x=\"%u\" y=\"12\">knob accelerated by</text>\n", h->label_w);
    for (unsigned j = 0; j < h->n_cols; j++) {
        fprintf(out, "<text class=\"ax\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">", h->label_w + j * CELL_W
                + (CELL_W - CELL_GAP) / 2, HEAD_H - 8);
        weight_pct(out, h->col[j]);
        fputs("</text>\n", out);
    }
    for (unsigned i = 0; i < h->n_rows; i++)
        heat_row(out, h, &r->curves[h->row[i]], HEAD_H + i * CELL_H, top);
    heat_legend(out, h->label_w, legend_y, top);
    fputs("</svg>\n", out);
}

static void heatmap(FILE *out, const struct result *r, double top)
{
    fputs("<section id=\"heatmap\">\n<h2>Sensitivity: speed-up when one knob is accelerated</h2>\n", out);
    if (r->n_curves == 0) {
        fputs("<p class=\"note\">No sensitivity analysis in this result (no lanes were run).</p>\n</section>\n", out);
        return;
    }
    fputs("<p class=\"sub\">Each row is a knob (a resource&#39;s throughput, latency, a window size...) accelerated "
          "alone; each column a weight; each cell the predicted speed-up of the whole scope.</p>\n", out);
    struct heat_layout *h = alloc_resize(NULL, 1, sizeof *h);
    lay_out(r, h);
    heatmap_svg(out, r, h, top);
    if (h->n_hidden)
        fprintf(out, "<p class=\"note\" data-hidden=\"%u\">%u more knobs, each with a smaller speed-up at the "
                "largest weight, are not shown.</p>\n", h->n_hidden, h->n_hidden);
    fputs("</section>\n", out);
    free(h);
}

/* ---- bounds and interactions ----------------------------------------------------------------- */

static void bound_row(FILE *out, const struct result *r, const char *what, const char *why, double cycles)
{
    fprintf(out, "<tr><td>%s <span class=\"dim\">%s</span></td><td class=\"n\">", what, why);
    count(out, r, cycles);
    fprintf(out, "</td><td class=\"n\">%.2fx</td></tr>\n", cycles > 0 ? r->cycles / cycles : 0);
}

static void bounds(FILE *out, const struct result *r)
{
    if (!r->has_bounds)
        return;
    fprintf(out, "<section id=\"bounds\" data-infinite-resources=\"%.6g\" data-no-dependencies=\"%.6g\">\n"
            "<h2>Bounds</h2>\n<p class=\"sub\">The scope&#39;s cycles in two limit cases: how far the dependencies "
            "alone, and the resources alone, would let it go.</p>\n<table>\n<thead><tr><th>case</th>"
            "<th class=\"n\">cycles</th><th class=\"n\">speed-up</th></tr></thead>\n<tbody>\n",
            r->bound_infinite_resources, r->bound_no_dependencies);
    bound_row(out, r, "baseline", "", r->cycles);
    bound_row(out, r, "infinite resources", "(dependency chains only)", r->bound_infinite_resources);
    bound_row(out, r, "no dependencies", "(throughput only)", r->bound_no_dependencies);
    fputs("</tbody>\n</table>\n</section>\n", out);
}

static void robust_end(FILE *out, const struct result_robust_end *e)
{
    fprintf(out, "<td class=\"n\">%.4g</td><td class=\"n\">%.4g</td><td>", e->value, e->cycles);
    esc(out, e->verdict);
    fputs(e->holds ? "" : " <b>(changes)</b>", out);
    fputs("</td>", out);
}

/* The estimated values that move the cycles within their range, each at both ends (robust.h). */
static void robustness(FILE *out, const struct result *r)
{
    const struct result_robustness *rb = &r->robustness;
    if (!rb->checked || !rb->n_moved)
        return;
    fprintf(out, "<section id=\"estimates\" data-holds=\"%s\">\n<h2>Estimates</h2>\n<p class=\"sub\">The values the "
            "description estimates that move the cycles within their plausible range, each at both ends of it "
            "(%u more %s them unchanged).</p>\n<table>\n<thead><tr><th>value</th><th class=\"n\">as described</th>"
            "<th class=\"n\">low</th><th class=\"n\">cycles</th><th>verdict</th><th class=\"n\">high</th>"
            "<th class=\"n\">cycles</th><th>verdict</th><th>why estimated</th></tr></thead>\n<tbody>\n",
            rb->holds ? "true" : "false", rb->n_values - rb->n_moved, rb->n_values - rb->n_moved == 1 ? "leaves" : "leave");
    for (unsigned i = 0; i < rb->n_values; i++) {
        const struct result_robust_value *v = &r->robust[i];
        if (!v->end[0].moved && !v->end[1].moved)
            continue;
        fputs("<tr><td class=\"mono\">", out);
        esc(out, v->name);
        fprintf(out, "</td><td class=\"n\">%.4g</td>", v->value);
        robust_end(out, &v->end[0]);
        robust_end(out, &v->end[1]);
        fputs("<td class=\"dim\">", out);
        esc(out, v->reason ? v->reason : "");
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

struct matrix {
    const char *knob[MATRIX_KNOBS];
    unsigned n, n_hidden;
    double weight;      /* the strongest pair's, at which the diagonal shows each knob alone */
};

/* The knobs of the pair lanes, in the order of the pairs' ranking (the strongest first). */
static void matrix_knobs(const struct result *r, struct matrix *mx)
{
    mx->n = mx->n_hidden = 0;
    mx->weight = r->n_pairs && r->pairs[0] < r->n_lanes ? r->lanes[r->pairs[0]].cfg.weight : 0;
    for (unsigned p = 0; p < r->n_pairs && p < RT_MAX_LANES; p++) {
        if (r->pairs[p] >= r->n_lanes)
            continue;
        for (int k = 0; k < 2; k++) {
            const char *label = r->lanes[r->pairs[p]].knob_label[k];
            unsigned i = 0;
            while (i < mx->n && strncmp(mx->knob[i], label, RESULT_LABEL / 2) != 0)
                i++;
            if (i < mx->n)
                continue;
            if (mx->n < MATRIX_KNOBS)
                mx->knob[mx->n++] = label;
            else
                mx->n_hidden++;
        }
    }
}

/* The first (strongest) pair lane of knobs A and B, or -1. */
static int pair_lane(const struct result *r, const char *a, const char *b)
{
    for (unsigned p = 0; p < r->n_pairs && p < RT_MAX_LANES; p++) {
        if (r->pairs[p] >= r->n_lanes)
            continue;
        const struct result_lane *l = &r->lanes[r->pairs[p]];
        bool ab = !strncmp(l->knob_label[0], a, RESULT_LABEL / 2) && !strncmp(l->knob_label[1], b, RESULT_LABEL / 2);
        bool ba = !strncmp(l->knob_label[0], b, RESULT_LABEL / 2) && !strncmp(l->knob_label[1], a, RESULT_LABEL / 2);
        if (ab || ba)
            return (int)r->pairs[p];
    }
    return -1;
}

/* The diagonal: knob A alone at weight W (its curve's point), for comparison with its pairs. */
static bool alone(const struct result *r, const char *a, double w, double *s)
{
    for (unsigned i = 0; i < r->n_curves && i < RT_MAX_LANES; i++) {
        const struct result_curve *c = &r->curves[i];
        if (strncmp(c->label, a, sizeof c->label) != 0)
            continue;
        for (unsigned j = 0; j < c->n && j < RESULT_MAX_WEIGHTS; j++)
            if (same_weight(c->weight[j], w)) {
                *s = c->speedup[j];
                return true;
            }
    }
    return false;
}

static void matrix_cell(FILE *out, const char *cls, double s, double top, const char *a, const char *b)
{
    char rgb[8];
    double t = speed_t(s, top);
    fprintf(out, "<td class=\"%s\" data-speedup=\"%.6g\" style=\"background:%s;color:%s\" title=\"", cls, s,
            heat(t, rgb), ink(t));
    escn(out, a, RESULT_LABEL / 2);
    if (b) {
        fputs(" + ", out);
        escn(out, b, RESULT_LABEL / 2);
    } else {
        fputs(" alone", out);
    }
    fprintf(out, ": %.4fx\">%+.1f%%</td>", s, (s - 1) * 100);
}

static void matrix_row(FILE *out, const struct result *r, const struct matrix *mx, unsigned i, double top)
{
    fputs("<tr><th>", out);
    escn(out, mx->knob[i], RESULT_LABEL / 2);
    fputs("</th>", out);
    for (unsigned j = 0; j < mx->n; j++) {
        int l = i == j ? -1 : pair_lane(r, mx->knob[i], mx->knob[j]);
        double s;
        if (l >= 0)
            matrix_cell(out, "pair", r->lanes[l].speedup, top, mx->knob[i], mx->knob[j]);
        else if (i == j && alone(r, mx->knob[i], mx->weight, &s))
            matrix_cell(out, "alone", s, top, mx->knob[i], NULL);
        else
            fputs("<td class=\"dim\">&#183;</td>", out);
    }
    fputs("</tr>\n", out);
}

static void interactions(FILE *out, const struct result *r, double top)
{
    struct matrix mx;
    matrix_knobs(r, &mx);
    if (mx.n == 0)
        return;
    fputs("<section id=\"interactions\">\n<h2>Interactions: two knobs accelerated together</h2>\n", out);
    fputs("<p class=\"sub\">Each cell: the speed-up with the row&#39;s and the column&#39;s knob accelerated "
          "together; the diagonal (italic): the knob alone at the same weight. Same colour scale as the heat "
          "map.</p>\n<table class=\"matrix\">\n<thead><tr><th></th>", out);
    for (unsigned j = 0; j < mx.n; j++) {
        fputs("<th>", out);
        escn(out, mx.knob[j], RESULT_LABEL / 2);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (unsigned i = 0; i < mx.n; i++)
        matrix_row(out, r, &mx, i, top);
    fputs("</tbody>\n</table>\n", out);
    if (mx.n_hidden)
        fprintf(out, "<p class=\"note\">%u more knobs of weaker pairs are not shown.</p>\n", mx.n_hidden);
    fputs("</section>\n", out);
}

/* ---- instructions (Gus, Table 1) ------------------------------------------------------------- */

/* Marks in SHOWN the LIMIT most executed rows (all of them if fewer), class defaults only when
 * DEFAULTS_ONLY (the result ranks the rows by executions); returns how many rows qualified. */
static size_t hottest(const struct result *r, bool defaults_only, size_t limit, bool *shown)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        size_t row = r->hot ? r->hot[i] : i;
        if (defaults_only && !r->rows[row].class_default)
            continue;
        if (n++ < limit)
            shown[row] = true;
    }
    return n;
}

struct table {
    bool *shown, *column;
    size_t n_shown, n_rows;
};

/* The resource columns: those a shown row uses. */
static void table_columns(const struct result *r, struct table *t)
{
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        for (unsigned k = 0; t->shown[i] && k < row->use_count && row->use_first + k < r->n_uses; k++)
            if (r->uses[row->use_first + k].resource <= r->m->n_resources)     /* the serial unit last */
                t->column[r->uses[row->use_first + k].resource] = true;
    }
}

/* The verdict names resource RES (its column is marked, as Gus marks the bottleneck port). */
static bool named_by_verdict(const struct result *r, unsigned res)
{
    const struct result_verdict *v = &r->verdict;
    if (v->kind == RESULT_VERDICT_NONE || v->kind == RESULT_VERDICT_NO_LANES)
        return false;
    for (unsigned i = 0; i < v->n_names && i < sizeof v->names / sizeof v->names[0]; i++)
        if (strncmp(v->names[i], resource_name(r, res), sizeof v->names[i]) == 0)
            return true;
    return false;
}

/* module!function+offset (module+address outside any symbol, as objdump -d shows it), and
 * file:line where the object has line information. */
static void where_cell(FILE *out, const struct result_row *row)
{
    fputs("<td class=\"mono where\">", out);
    if (row->module) {
        char buf[320];
        if (row->function) {
            esc(out, row->module);
            fputs("!", out);
            esc(out, row->function);
            fprintf(out, "+%#" PRIx64, row->fn_offset);
        } else {
            esc(out, result_unnamed(row, false, buf, sizeof buf));
        }
        if (row->file) {
            fputs("<br><span class=\"dim\">", out);
            const char *base = strrchr(row->file, '/');
            esc(out, base ? base + 1 : row->file);
            fprintf(out, ":%u</span>", row->line);
        }
    }
    fputs("</td>", out);
}

static void form_cell(FILE *out, const struct result_row *row)
{
    fputs("<td class=\"mono form\" title=\"", out);
    esc(out, row->key);
    fputs("\">", out);
    char form[2 * RESULT_LABEL], note[2 * RESULT_LABEL + 96];
    if (row->eliminated)
        fputs("<span class=\"dim\">(eliminated)</span>", out);
    else if (row->class_default)
        fputs("<span class=\"dim\">(class default)</span>", out);
    else
        esc(out, result_row_form(row, form, sizeof form));
    if (result_row_timed_as(row, note, sizeof note)) {
        fputs("<span class=\"dim\" title=\"", out);
        esc(out, note);
        fputs("\">*</span>", out);
    }
    if (row->fused)
        fputs("<span class=\"badge\">fused</span>", out);
    fputs("</td>", out);
}

static void latency_cell(FILE *out, const struct result_row *row)
{
    if (row->latency_min == row->latency_max)
        fprintf(out, "<td class=\"n\">%.3g</td>", row->latency_min);
    else
        fprintf(out, "<td class=\"n\">%.3g&#8211;%.3g</td>", row->latency_min, row->latency_max);
}

/* The row's use of resource RES, shaded by its share of the resource's busy time. */
static void use_cell(FILE *out, const struct result *r, const struct result_row *row, unsigned res)
{
    for (unsigned k = 0; k < row->use_count && row->use_first + k < r->n_uses; k++) {
        const struct result_use *u = &r->uses[row->use_first + k];
        if (u->resource != res)
            continue;
        char rgb[8];
        double t = fraction_t(u->share);
        fprintf(out, "<td class=\"n res\" data-share=\"%.6g\" style=\"background:%s;color:%s\" title=\"", u->share,
                heat(t, rgb), ink(t));
        esc(out, resource_name(r, res));
        fprintf(out, ": %.4g cycles per execution, %.1f%% of its busy time\">%.3g</td>", u->cost, u->share * 100,
                u->cost);
        return;
    }
    fputs("<td class=\"res\"></td>", out);
}

static void table_row(FILE *out, const struct result *r, const struct table *t, const struct result_row *row)
{
    char rgb[8];
    double ct = fraction_t(row->critical);
    fprintf(out, "<tr%s data-index=\"%u\" data-pc=\"0x%" PRIx64 "\" data-critical=\"%.6g\">",
            row->critical > 0 ? " class=\"crit\"" : "", row->index, row->pc, row->critical);
    fprintf(out, "<td class=\"mono n\">%" PRIx64 "</td><td class=\"mono\">", row->pc);
    esc(out, row->disasm);
    fputs("</td>", out);
    where_cell(out, row);
    form_cell(out, row);
    fprintf(out, "<td class=\"n\">%" PRIu64 "</td>", row->executions);
    latency_cell(out, row);
    fprintf(out, "<td class=\"n\">%u</td>", row->uops);
    if (row->critical > 0)
        fprintf(out, "<td class=\"n\" style=\"background:%s;color:%s\">%.1f%%</td>", heat(ct, rgb), ink(ct),
                row->critical * 100);
    else
        fputs("<td class=\"n dim\">&#183;</td>", out);
    for (unsigned res = 0; res <= r->m->n_resources; res++)
        if (t->column[res])
            use_cell(out, r, row, res);
    fputs("</tr>\n", out);
}

static void table_head(FILE *out, const struct result *r, const struct table *t)
{
    fputs("<table>\n<thead><tr><th class=\"n\">pc</th><th>instruction</th><th>where</th><th>form</th>"
          "<th class=\"n\">executions"
          "</th><th class=\"n\">latency</th><th class=\"n\">uops</th><th class=\"n\">critical</th>", out);
    for (unsigned res = 0; res <= r->m->n_resources; res++)
        if (t->column[res]) {
            bool bn = named_by_verdict(r, res);
            fprintf(out, "<th class=\"n%s\"%s>", bn ? " bn" : "", bn ? " title=\"named by the verdict\"" : "");
            esc(out, resource_name(r, res));
            fputs("</th>", out);
        }
    fputs("</tr></thead>\n<tbody>\n", out);
}

/* How busy each resource column is: its busy time over the scope's cycles (1: every cycle). */
static void table_foot(FILE *out, const struct result *r, const struct table *t)
{
    if (!r->busy || !(r->cycles > 0))
        return;
    fputs("<tfoot><tr><td></td><td colspan=\"7\">busy: share of the cycles each resource is in use</td>", out);
    for (unsigned res = 0; res <= r->m->n_resources; res++) {
        if (!t->column[res])
            continue;
        char rgb[8];
        double u = r->busy[res] / r->cycles, ut = fraction_t(u);
        fprintf(out, "<td class=\"n\" data-busy=\"%.6g\" style=\"background:%s;color:%s\">%.0f%%</td>", u,
                heat(ut, rgb), ink(ut), u * 100);
    }
    fputs("</tr></tfoot>\n", out);
}

/* The footnote of the rows whose form is marked '*', as the text's: which entry times them. */
static void timed_as(FILE *out, const struct result *r, const struct table *t)
{
    bool first = true;
    for (size_t i = 0; i < r->n_rows; i++) {
        char note[2 * RESULT_LABEL + 96];
        if (!t->shown[i] || !result_row_timed_as(&r->rows[i], note, sizeof note))
            continue;
        fprintf(out, "%s* %" PRIx64 ": ", first ? "<p class=\"note\" id=\"timed-as\">" : "<br>", r->rows[i].pc);
        esc(out, note);
        first = false;
    }
    if (!first)
        fputs("</p>\n", out);
}

static void table_body(FILE *out, const struct result *r, const struct table *t)
{
    table_head(out, r, t);
    for (size_t i = 0; i < r->n_rows; i++)
        if (t->shown[i])
            table_row(out, r, t, &r->rows[i]);
    fputs("</tbody>\n", out);
    table_foot(out, r, t);
    fputs("</table>\n<p class=\"note\">Resource cells: cycles per execution, shaded by the instruction&#39;s share "
          "of the resource&#39;s busy time (white 0%, darkest 100%, square-root scale). Critical: the share of its "
          "instances on the critical path (marked rows).</p>\n", out);
    timed_as(out, r, t);
    if (t->n_shown < t->n_rows)
        fprintf(out, "<p class=\"note\" data-omitted=\"%zu\">The %zu most executed of %zu instructions are shown; "
                "%zu are left out.</p>\n", t->n_rows - t->n_shown, t->n_shown, t->n_rows, t->n_rows - t->n_shown);
}

static void instructions(FILE *out, const struct result *r)
{
    fputs("<section id=\"instructions\">\n<h2>Instructions: resource use and criticality</h2>\n", out);
    struct table t = { alloc_zeroed(r->n_rows, 1), alloc_zeroed(r->m->n_resources + 1u, 1), 0, r->n_rows };
    size_t n = hottest(r, false, TABLE_ROWS, t.shown);
    t.n_shown = n < TABLE_ROWS ? n : TABLE_ROWS;
    table_columns(r, &t);
    table_body(out, r, &t);
    fputs("</section>\n", out);
    free(t.shown);
    free(t.column);
}

/* The instructions most often on the critical path, for a reader who starts from there. */
static void critical(FILE *out, const struct result *r)
{
    if (!r->causality || r->n_critical == 0)
        return;
    fputs("<section id=\"critical\">\n<h2>Critical path</h2>\n<p class=\"sub\">The instructions most often on the "
          "path that set dispatch times.</p>\n<table>\n<thead><tr><th class=\"n\">pc</th><th>instruction</th>"
          "<th class=\"n\">share</th></tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < r->n_critical && i < CRITICAL_ROWS; i++) {
        if (r->critical[i] >= r->n_rows)
            continue;
        const struct result_row *row = &r->rows[r->critical[i]];
        fprintf(out, "<tr data-index=\"%u\"><td class=\"mono n\">%" PRIx64 "</td><td class=\"mono\">", row->index,
                row->pc);
        esc(out, row->disasm);
        fprintf(out, "</td><td class=\"n\">%.1f%%</td></tr>\n", row->critical * 100);
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

/* Where the cycles went, by function (perf report's view): each instruction carries its retire
 * slots and the stalls while the core waited for it. */
static void functions(FILE *out, const struct result *r)
{
    if (!r->n_functions)
        return;
    fputs("<section id=\"functions\">\n<h2>Hottest functions</h2>\n<p class=\"sub\">A stall is charged "
          "to the instruction the core waits on, summed over each function&#39;s own instructions.</p>\n<table>\n"
          "<thead><tr><th class=\"n\">overhead</th><th class=\"n\">cycles</th><th class=\"n\">instructions</th>"
          "<th class=\"n\">IPC</th><th class=\"n\">critical</th><th class=\"n\">L1 misses</th>"
          "<th class=\"n\">LL misses</th><th class=\"n\">mispredicted</th><th>function</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->n_functions && i < CRITICAL_ROWS * 3; i++) {
        const struct result_function *f = &r->functions[i];
        double share = r->cycles > 0 ? f->cycles / r->cycles : 0, t = fraction_t(share);
        char rgb[8];
        fprintf(out, "<tr data-function-share=\"%.6g\"><td class=\"n\" style=\"background:%s;color:%s\">%.1f%%</td>"
                     "<td class=\"n\">%.0f</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.2f</td>"
                     "<td class=\"n\">%.1f%%</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>"
                     "<td class=\"n\">%" PRIu64 "</td><td class=\"mono\">",
                share, heat(t, rgb), ink(t), share * 100, f->cycles, f->instructions,
                f->cycles > 0 ? (double)f->instructions / f->cycles : 0, f->seen ? 100.0 * f->crit / f->seen : 0,
                f->l1_misses, f->ll_misses, f->mispredicts);
        char buf[320];
        if (f->name) {
            esc(out, f->module);
            fputs("!", out);
            esc(out, f->name);
        } else {
            esc(out, result_unnamed(&r->rows[f->first_row], true, buf, sizeof buf));
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

/* ---- a run's memory, branches and class defaults ---------------------------------------------- */

static void caches(FILE *out, const struct result *r)
{
    if (!r->has_caches || r->n_caches == 0)
        return;
    fputs("<section id=\"caches\">\n<h2>Caches</h2>\n<table>\n<thead><tr><th>level</th><th class=\"n\">accesses"
          "</th><th class=\"n\">hits</th><th class=\"n\">hit rate</th></tr></thead>\n<tbody>\n", out);
    for (unsigned i = 0; i < r->n_caches && i < RESULT_MAX_LEVELS; i++) {
        const struct result_cache *c = &r->caches[i];
        fputs("<tr><td>", out);
        esc(out, c->name);
        fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">",
                c->accesses, c->hits);
        if (c->accesses)
            fprintf(out, "%.2f%%</td></tr>\n", 100.0 * c->hits / c->accesses);
        else
            fputs("&#183;</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

static void branches(FILE *out, const struct result *r)
{
    if (!r->has_branches)
        return;
    fprintf(out, "<section id=\"branches\">\n<h2>Branches</h2>\n<table>\n<tbody>\n<tr><td>branches</td>"
            "<td class=\"n\">%" PRIu64 "</td></tr>\n<tr><td>mispredicted</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
            r->branches, r->mispredicted);
    if (r->branches)
        fprintf(out, "<tr><td>misprediction rate</td><td class=\"n\">%.2f%%</td></tr>\n",
                100.0 * r->mispredicted / r->branches);
    if (r->instructions)
        fprintf(out, "<tr><td>mispredictions per 1000 instructions</td><td class=\"n\">%.3g</td></tr>\n",
                1000.0 * r->mispredicted / r->instructions);
    fputs("</tbody>\n</table>\n</section>\n", out);
}

/* The executions by the path of the front end that delivered them. */
static void delivery(FILE *out, const struct result *r)
{
    if (!r->has_delivery)
        return;
    fputs("<section id=\"delivery\">\n<h2>Front end: where instructions came from</h2>\n<table>\n<tbody>\n", out);
    for (unsigned p = 0; p < RT_PATH_COUNT; p++)
        fprintf(out, "<tr><td>%s</td><td class=\"n\">%" PRIu64 "</td></tr>\n", rt_path_label((enum rt_path)p), r->delivery[p]);
    fputs("</tbody>\n</table>\n</section>\n", out);
}

static void class_defaults(FILE *out, const struct result *r)
{
    bool *shown = alloc_zeroed(r->n_rows, 1);
    size_t n = hottest(r, true, DEFAULT_ROWS, shown);
    if (n == 0) {
        free(shown);
        return;
    }
    fputs("<section id=\"class-defaults\">\n<h2>Modelled by a class default</h2>\n<p class=\"sub\">The machine "
          "description has no entry for these forms; their class&#39;s default stands in.</p>\n<table>\n<thead><tr>"
          "<th class=\"n\">pc</th><th>instruction</th><th>form key</th><th class=\"n\">executions</th></tr></thead>\n"
          "<tbody>\n", out);
    for (size_t i = 0; i < r->n_rows; i++) {
        if (!shown[i])
            continue;
        fprintf(out, "<tr data-index=\"%u\"><td class=\"mono n\">%" PRIx64 "</td><td class=\"mono\">",
                r->rows[i].index, r->rows[i].pc);
        esc(out, r->rows[i].disasm);
        fputs("</td><td class=\"mono\">", out);
        esc(out, r->rows[i].key);
        fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td></tr>\n", r->rows[i].executions);
    }
    fputs("</tbody>\n</table>\n", out);
    if (n > DEFAULT_ROWS)
        fprintf(out, "<p class=\"note\">%zu more are left out.</p>\n", n - DEFAULT_ROWS);
    fputs("</section>\n", out);
    free(shown);
}

bool view_html(FILE *out, const struct result *r)
{
    double top = top_speedup(r);
    head(out, r);
    title(out, r);
    verdict(out, r);
    topdown(out, r);
    heatmap(out, r, top);
    bounds(out, r);
    robustness(out, r);
    interactions(out, r, top);
    functions(out, r);
    critical(out, r);
    instructions(out, r);
    caches(out, r);
    branches(out, r);
    delivery(out, r);
    class_defaults(out, r);
    fputs("</main>\n</body>\n</html>\n", out);
    return fflush(out) == 0 && !ferror(out);
}

/* ---- several cores side by side ----------------------------------------------------------------- */

/* A row of the comparison table: LABEL, then each core's cell as FMT prints VALUE. */
static void compare_cells(FILE *out, const struct result_comparison *c, const char *label, const char *fmt,
                          double (*value)(const struct result *))
{
    fprintf(out, "<tr><th>%s</th>", label);
    for (unsigned k = 0; k < c->n; k++) {
        fputs("<td class=\"n\">", out);
        fprintf(out, fmt, value(c->core[k]));
        fputs("</td>", out);
    }
    fputs("</tr>\n", out);
}

static double cmp_cycles(const struct result *r) { return r->cycles; }
static double cmp_ipc(const struct result *r) { return r->ipc; }
static double cmp_interval(const struct result *r)
{
    return r->cycles > 0 ? 50 * (r->cycles_high - r->cycles_low) / r->cycles : 0;
}

static void compare_table(FILE *out, const struct result_comparison *c)
{
    bool block = c->core[0]->scope == RESULT_SCOPE_BLOCK;
    fputs("<section id=\"comparison\">\n<h2>The cores side by side</h2>\n<table>\n<thead><tr><th></th>", out);
    for (unsigned k = 0; k < c->n; k++) {
        fprintf(out, "<th class=\"n\" data-machine=\"");
        esc(out, c->core[k]->m->name);
        fputs("\">", out);
        esc(out, c->core[k]->m->name);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    compare_cells(out, c, block ? "cycles / iteration" : "cycles", block ? "%.2f" : "%.0f", cmp_cycles);
    if (c->core[0]->sampling.sampled)
        compare_cells(out, c, "95% interval (sampled)", "&#177;%.1f%%", cmp_interval);
    fputs("<tr><th>relative to the fastest</th>", out);
    for (unsigned k = 0; k < c->n; k++)
        fprintf(out, k == c->fastest ? "<td class=\"n\"><b>fastest</b></td>" : "<td class=\"n\">%.3fx</td>",
                c->relative[k]);
    fputs("</tr>\n", out);
    if (block) {
        fputs("<tr><th>the timing repeats</th>", out);
        for (unsigned k = 0; k < c->n; k++) {
            unsigned p = c->core[k]->period;
            if (p)
                fprintf(out, "<td class=\"n\">every %u</td>", p);
            else
                fputs("<td class=\"n\">never</td>", out);
        }
        fputs("</tr>\n", out);
    }
    compare_cells(out, c, "IPC", "%.2f", cmp_ipc);
    fputs("<tr><th>verdict</th>", out);
    for (unsigned k = 0; k < c->n; k++) {
        fputs("<td>", out);
        escn(out, c->core[k]->verdict.text, sizeof c->core[k]->verdict.text);
        fputs("</td>", out);
    }
    fputs("</tr>\n</tbody>\n</table>\n</section>\n", out);
}

/* Each core's top-down bar, one above the other, so that the categories line up. */
static void compare_topdown(FILE *out, const struct result_comparison *c)
{
    fputs("<section id=\"topdown\">\n<h2>Top-down: where the issue slots went</h2>\n", out);
    struct segment legend[5 + RESULT_MAX_LEVELS];
    unsigned n_legend = 0;
    for (unsigned k = 0; k < c->n; k++) {
        const struct result_topdown *t = &c->core[k]->topdown;
        fputs("<p class=\"sub\">", out);
        esc(out, c->core[k]->m->name);
        fputs("</p>\n", out);
        if (!t->valid) {
            fputs("<p class=\"note\">No top-down breakdown: the machine description gives no issue width.</p>\n", out);
            continue;
        }
        struct segment seg[5 + RESULT_MAX_LEVELS];
        unsigned n = bar(out, t, seg);
        if (!n_legend)
            memcpy(legend, seg, (n_legend = n) * sizeof *seg);
    }
    fputs("<div class=\"legend\">\n", out);
    for (unsigned i = 0; i < n_legend; i++) {
        fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>", legend[i].colour);
        segment_name(out, &legend[i]);
        fputs("</span>\n", out);
    }
    fputs("</div>\n</section>\n", out);
}

/* The functions whose cycles differ most between the cores. */
static void compare_functions(FILE *out, const struct result_comparison *c)
{
    if (!c->n_differ)
        return;
    fputs("<section id=\"differ\">\n<h2>Where the cores differ most</h2>\n<p class=\"sub\">Cycles by function, "
          "the largest spread between the cores first.</p>\n<table>\n<thead><tr><th>function</th>", out);
    for (unsigned k = 0; k < c->n; k++) {
        fputs("<th class=\"n\">", out);
        esc(out, c->core[k]->m->name);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (unsigned i = 0; i < c->n_differ; i++) {
        const struct result_function *named = NULL;
        const struct result *owner = NULL;
        for (unsigned k = 0; k < c->n && !named; k++)
            if (c->differ[i][k] != SIZE_MAX)
                owner = c->core[k], named = &owner->functions[c->differ[i][k]];
        char name[256];
        if (named->name)
            snprintf(name, sizeof name, "%s!%s", named->module, named->name);
        else
            result_unnamed(&owner->rows[named->first_row], true, name, sizeof name);
        fputs("<tr><td class=\"mono\">", out);
        esc(out, name);
        fputs("</td>", out);
        for (unsigned k = 0; k < c->n; k++) {
            fprintf(out, "<td class=\"n\">%.0f</td>", c->differ_cycles[i][k]);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

bool view_html_comparison(FILE *out, const struct result_comparison *c)
{
    const struct result *r = c->core[0];
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mdlsim: ", out);
    for (unsigned k = 0; k < c->n; k++) {
        fputs(k ? ", " : "", out);
        esc(out, c->core[k]->m->name);
    }
    fputs(" &#183; ", out);
    esc(out, r->command);
    fputs(" &#183; ", out);
    scope_text(out, r);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>", style);
    fprintf(out, "%u cores<span class=\"sep\">/</span>", c->n);
    esc(out, r->command);
    fputs("<span class=\"sep\">/</span>", out);
    scope_text(out, r);
    fputs("</h1>\n</header>\n<main>\n", out);
    compare_table(out, c);
    compare_topdown(out, c);
    compare_functions(out, c);
    fputs("</main>\n</body>\n</html>\n", out);
    return fflush(out) == 0 && !ferror(out);
}
