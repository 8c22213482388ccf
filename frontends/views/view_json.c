/* The JSON view of an analysis result: one object on one line, the same keys for block, run and
 * replay (frontends/views/mdlsim.schema.json). */
#include "view_json.h"
#include "alloc.h"
#include "utf8.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writer ------------------------------------------------------------------------------
 * A report is hundreds of small pieces: they go into a buffer of the view's own, which reaches
 * the stream in large writes (stdio's per-call cost was most of the view's time). */
struct jw {
    FILE *out;
    char *p;
    bool failed;
    char buf[1 << 14];
};

static void jw_flush(struct jw *w)
{
    size_t n = (size_t)(w->p - w->buf);
    if (n && fwrite_unlocked(w->buf, 1, n, w->out) != n)
        w->failed = true;
    w->p = w->buf;
}

static void jw_bytes(struct jw *w, const char *s, size_t n)
{
    if ((size_t)(w->buf + sizeof w->buf - w->p) < n) {
        jw_flush(w);
        if (n > sizeof w->buf) {
            w->failed |= fwrite_unlocked(s, 1, n, w->out) != n;
            return;
        }
    }
    memcpy(w->p, s, n);
    w->p += n;
}

static void jw_char(struct jw *w, char c)
{
    if (w->p == w->buf + sizeof w->buf)
        jw_flush(w);
    *w->p++ = c;
}

static void jw_str(struct jw *w, const char *s) { jw_bytes(w, s, strlen(s)); }

/* The bytes a JSON string escapes: control characters, the quote and the backslash (and the
 * terminating zero, which ends the scan). */
static const bool escaped[256] = {
    [0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1, [9] = 1, [10] = 1, [11] = 1,
    [12] = 1, [13] = 1, [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1,
    [23] = 1, [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1, ['"'] = 1, ['\\'] = 1,
};

/* S as a JSON string, valid UTF-8 whatever S holds: a byte that starts no well-formed UTF-8
 * character (a Latin-1 symbol, a path's raw bytes) is written as \ufffd, U+FFFD. */
static void jstr(struct jw *out, const char *s)
{
    jw_char(out, '"');
    for (;;) {
        size_t n = 0;   /* the run of ASCII characters that need no escape, written at once */
        while (!escaped[(unsigned char)s[n]] && (unsigned char)s[n] < 0x80)
            n++;
        jw_bytes(out, s, n);
        s += n;
        if (!*s)
            break;
        size_t k = (unsigned char)*s >= 0x80 ? utf8_char(s, SIZE_MAX) : 0;
        if (k) {
            jw_bytes(out, s, k);
            s += k;
            continue;
        }
        if (*s == '"' || *s == '\\') {
            jw_char(out, '\\');
            jw_char(out, *s);
        } else if ((unsigned char)*s >= 0x80) {
            jw_bytes(out, "\\ufffd", 6);
        } else {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)*s);
            jw_bytes(out, esc, 6);
        }
        s++;
    }
    jw_char(out, '"');
}

/* X as "%.15g", "%.16g" or "%.17g" writes it, the first that reads back as X: no more digits than
 * it takes for a script summing a report's rows to get the report's totals. */
static void round_trip(char *buf, double x)
{
    for (int digits = 15; digits < 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return;
    }
    snprintf(buf, 32, "%.17g", x);
}

/* The decimal of N / 10^K (N < 10^17, K <= 21) without its trailing zeros, into BUF. */
static void fixed(char *buf, bool negative, uint64_t n, int k)
{
    char digits[24], *p = buf;
    int len = 0;
    do
        digits[len++] = (char)('0' + n % 10);
    while (n /= 10);
    while (len <= k)                        /* a leading "0." and zeros: 0.00012 is 12 / 10^5 */
        digits[len++] = '0';
    if (negative)
        *p++ = '-';
    for (int i = len - 1; i >= k; i--)
        *p++ = digits[i];
    int last = 0;                           /* the last fractional digit kept */
    while (last < k && digits[last] == '0')
        last++;
    if (last < k) {
        *p++ = '.';
        for (int i = k - 1; i >= last; i--)
            *p++ = digits[i];
    }
    *p = 0;
}

/* ---- 15 to 17 digits, exactly, without printf ------------------------------------------------
 * For 1e-4 <= |X| < 1e15 a double is M * 2^-S exactly (M < 2^53, 3 <= S <= 66), and X * 10^K for
 * K <= 20 is M * 10^K / 2^S, whose numerator fits in 128 bits: its integer part and remainder give
 * the decimal of X rounded to any number of digits up to 17, as printf rounds it (to nearest, a
 * tie to even), and comparing the decimal with the ends of X's rounding interval, in the same
 * integers, says whether strtod reads it back as X. Half the time of a JSON report went to the
 * printf and strtod calls these replace (a number took up to three of each). */
typedef unsigned __int128 u128;

static const uint64_t pow10_u64[] = { 1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                      100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                      1000000000000ull, 10000000000000ull, 100000000000000ull,
                                      1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                      1000000000000000000ull, 10000000000000000000ull };

static u128 pow10_u128(int k)
{
    return k < 20 ? pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

/* A = M * 2^-S, A positive and normal, as its bits say. */
static void split(double a, uint64_t *m, int *s)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    *m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    *s = 1075 - (int)(bits >> 52 & 0x7ff);
}

/* M * 2^-S (A, 1e-4 <= A < 1e15) rounded to DIGITS significant digits (15 to 17) as N / 10^K, N of
 * DIGITS digits; false when the rounding carries into another digit (printf may then write an
 * exponent). */
static bool round_digits(double a, uint64_t m, int s, int digits, uint64_t *n, int *k)
{
    /* the decimal exponent, -4 to 14: log10's, which may be one off (log10(1e15 - 0.125) is 15),
     * made exact by the digits it gives */
    int e = (int)floor(log10(a));
    e = e < -4 ? -4 : e > 14 ? 14 : e;
    for (int tries = 0; tries < 3; tries++) {
        *k = digits - 1 - e;
        u128 num = (u128)m * pow10_u128(*k), q = num >> s;
        if (q < pow10_u64[digits - 1] && e > -4) {
            e--;
        } else if (q >= pow10_u64[digits] && e < 14) {
            e++;
        } else if (q >= pow10_u64[digits - 1] && q < pow10_u64[digits]) {
            u128 rem = num - (q << s), half = (u128)1 << (s - 1);
            *n = (uint64_t)q + (rem > half || (rem == half && (q & 1)));
            return *n < pow10_u64[digits];
        } else {
            return false;
        }
    }
    return false;
}

/* Whether strtod reads N / 10^K back as M * 2^-S (M normal): the decimal lies within half a gap of
 * it on each side (the gap below is half as wide at a power of two), an end itself when M is even
 * (strtod rounds a tie to even). */
static bool reads_back(uint64_t m, int s, uint64_t n, int k)
{
    u128 d = (u128)n << (s + 2), p = pow10_u128(k);
    u128 high = ((u128)(4 * m + 2)) * p, low = ((u128)(m == 1ull << 52 ? 4 * m - 1 : 4 * m - 2)) * p;
    return (m & 1) ? d < high && d > low : d <= high && d >= low;
}

/* X (A = |X|, 1e-4 <= A < 1e15) as round_trip writes it; false when a rounding carries into
 * another digit. */
static bool round_trip_exact(char *buf, double x, double a)
{
    uint64_t m, n;
    int s, k;
    split(a, &m, &s);
    for (int digits = 15; digits <= 17; digits++) {
        if (!round_digits(a, m, s, digits, &n, &k))
            return false;
        if (digits == 17 || reads_back(m, s, n, k)) {
            fixed(buf, x < 0, n, k);
            return true;
        }
    }
    return false;
}

/* The common case without printf (a tenth of the time): a short decimal N / 10^K that reads back
 * as X (A = |X|, 1e-4 <= A < 1e15). N / 10^K is then the nearest double to that decimal (both
 * exact, the division rounded once), and "%.15g" writes it as it is when it has at most 15 digits
 * (no exponent in that range): X lies within half an ulp of it, far below the fifteenth digit.
 * False when X is no such decimal. The powers are doubles: the loop multiplies by them. */
static bool short_decimal(char *buf, double x, double a)
{
    static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
                                    1e14, 1e15 };
    for (int k = 0; k <= 15; k++) {
        double y = a * pow10[k];
        if (y >= 1e15)                      /* 16 digits or more */
            return false;
        if (y == floor(y) && y / pow10[k] == a) {
            fixed(buf, x < 0, (uint64_t)y, k);
            return true;
        }
    }
    return false;
}

/* From 1e-4 to 1e15 a short decimal, else 15 to 17 digits in integers; other numbers, and the
 * rare rounding that carries into another digit, go to printf. */
void view_json_number(char *buf, double x)
{
    double a = x < 0 ? -x : x;
    if (a >= 1e-4 && a < 1e15 && (short_decimal(buf, x, a) || round_trip_exact(buf, x, a)))
        return;
    round_trip(buf, x);
}

/* Most numbers of a report are small integers (indices, counts, whole cycles): they skip
 * printf's floating-point path. A NaN or an infinity has no JSON number: null. */
static void jnum(struct jw *out, double x)
{
    if (!isfinite(x)) {
        jw_str(out, "null");
    } else if (x == (double)(long)x && x < 1e15 && x > -1e15) {
        char buf[24], *p = buf + sizeof buf;
        long v = (long)x;
        unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
        *--p = 0;
        do
            *--p = (char)('0' + u % 10);
        while (u /= 10);
        if (v < 0)
            *--p = '-';
        jw_str(out, p);
    } else {
        char buf[32];
        view_json_number(buf, x);
        jw_str(out, buf);
    }
}

/* `"key":` preceded by a comma unless it opens the object. */
/* Keys are the view's own names: nothing in them to escape. */
static void jkey(struct jw *out, const char *key, bool first)
{
    if (!first)
        jw_char(out, ',');
    jw_char(out, '"');
    jw_str(out, key);
    jw_bytes(out, "\":", 2);
}

static void jnull_str(struct jw *out, const char *s)
{
    if (s)
        jstr(out, s);
    else
        jw_str(out, "null");
}

static void jbool(struct jw *out, bool b) { jw_str(out, b ? "true" : "false"); }

static void jkey_num(struct jw *out, const char *key, double x, bool first)
{
    jkey(out, key, first);
    jnum(out, x);
}

/* Counts can pass 1e6 and must stay exact: integers as integers. */
static void jkey_u64(struct jw *out, const char *key, uint64_t v, bool first)
{
    jkey(out, key, first);
    char buf[24], *p = buf + sizeof buf;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    jw_bytes(out, p, (size_t)(buf + sizeof buf - p));
}

static void jkey_str(struct jw *out, const char *key, const char *s, bool first)
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

/* How the program of a run ended: an exit, or a signal (the result covers what ran before). */
static void program_end(struct jw *out, const struct result *r)
{
    jkey(out, "program_end", false);
    jw_char(out, '{');
    jkey_str(out, "how", r->killed_by > 0 ? "killed" : "exited", true);
    if (r->killed_by > 0) {
        char name[32];
        const char *abbrev = sigabbrev_np(r->killed_by);
        snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
        jkey_u64(out, "signal", (uint64_t)r->killed_by, false);
        jkey_str(out, "signal_name", name, false);
    } else {
        jkey_u64(out, "exit_code", (uint64_t)r->exit_code, false);
    }
    jw_char(out, '}');
}

/* How a run's scope was modelled: "exact", or "sampled" with the schedule (sample.h). */
static void json_sampling(struct jw *out, const struct result *r)
{
    const struct result_sampling *s = &r->sampling;
    jw_str(out, ",\"sampling\":{");
    jkey_str(out, "mode", s->sampled ? "sampled" : "exact", true);
    if (s->sampled) {
        jkey_u64(out, "exact_instructions", s->exact, false);
        jkey_u64(out, "period", s->period, false);
        jkey_u64(out, "period_doubles_every", s->epoch, false);
        jkey_u64(out, "period_kept", s->kept, false);
        jkey_u64(out, "period_halved", s->halved, false);
        jkey_u64(out, "warmups_resumed", s->resumed, false);
        jkey_u64(out, "warmup", s->warm, false);
        jkey_u64(out, "warmup_spread", s->warm_spread, false);
        jkey_u64(out, "lanes_warmup", s->lanes_warm, false);
        jkey_u64(out, "lanes_every", s->lanes_every, false);
        jkey_u64(out, "lanes_every_after", s->lanes_from, false);
        jkey_u64(out, "lane_intervals", s->lane_units, false);
        jkey_u64(out, "interval_length", s->unit, false);
        jkey_u64(out, "intervals", s->units, false);
        jkey_u64(out, "tail_instructions", s->tail, false);
        jkey_u64(out, "detailed_instructions", s->modelled, false);
        jkey_u64(out, "known_strings", s->strings, false);
        jkey_num(out, "known_string_cycles", s->string_cycles, false);
        jkey_num(out, "warmup_drift", r->cycles > 0 ? s->drift / r->cycles : 0, false);
        jkey_num(out, "warmup_drift_error", r->cycles > 0 ? s->drift_se / r->cycles : 0, false);
        jkey_num(out, "warmup_drift_widening", r->cycles > 0 ? s->drift_widened / r->cycles : 0, false);
        jkey_num(out, "confidence", s->confidence, false);
    }
    jw_char(out, '}');
}

/* A sampled lane's speed-up interval. */
static void json_speedup_interval(struct jw *out, const struct result *r, const struct result_lane *ln)
{
    if (!r->sampling.sampled)
        return;
    jkey_num(out, "speedup_low", ln->speedup_low, false);
    jkey_num(out, "speedup_high", ln->speedup_high, false);
}

/* --set: the values of the machine changed for this analysis, each key and value as given. */
static void json_set(struct jw *out, const struct result *r)
{
    if (!r->n_set)
        return;
    jkey(out, "set", false);
    jw_char(out, '[');
    for (unsigned i = 0; i < r->n_set; i++) {
        char key[256];
        const char *eq = strchr(r->set[i], '=');
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - r->set[i]) : 0, r->set[i]);
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "key", key, true);
        jkey_str(out, "value", eq ? eq + 1 : "", false);
        jw_char(out, '}');
    }
    jw_char(out, ']');
}

static void json_head(struct jw *out, const struct result *r)
{
    jw_str(out, "{\"schema_version\":");
    jnum(out, RESULT_SCHEMA_VERSION);
    jkey_str(out, "command", r->command, false);
    jkey_str(out, "machine", r->m->name, false);
    json_set(out, r);
    jw_str(out, ",\"scope\":{");
    jkey_str(out, "kind", scope_kind(r->scope), true);
    jkey_str(out, "name", r->scope_name, false);
    jw_char(out, '}');
    if (r->scope != RESULT_SCOPE_BLOCK)
        jkey_str(out, "roi", r->scope_name, false);
    jkey_u64(out, "iterations", r->iterations, false);
    if (r->scope == RESULT_SCOPE_BLOCK) {
        jkey_u64(out, "period", r->period, false);
        jkey_u64(out, "lanes_fitted", r->lanes_fitted, false);
    }
    jkey_u64(out, "instructions", r->instructions, false);
    jkey_u64(out, "executed", r->executed, false);
    if (r->killed_by > 0 || r->exit_code >= 0)
        program_end(out, r);
    if (r->replaced_by)
        jkey_str(out, "replaced_by", r->replaced_by, false);
    jkey_num(out, "cycles", r->cycles, false);
    if (r->sampling.sampled) {
        jkey_num(out, "cycles_low", r->cycles_low, false);
        jkey_num(out, "cycles_high", r->cycles_high, false);
    }
    if (r->scope != RESULT_SCOPE_BLOCK)
        json_sampling(out, r);
    if (r->scope == RESULT_SCOPE_BLOCK)
        jkey_num(out, "cycles_per_iteration", r->cycles, false);
    jkey_num(out, "ipc", r->ipc, false);
    jkey_u64(out, "macro_fused", r->macro_fused, false);
    jkey(out, "weights", false);
    jw_char(out, '[');
    for (unsigned i = 0; i < r->n_weights; i++) {
        if (i)
            jw_char(out, ',');
        jnum(out, r->weights[i]);
    }
    jw_char(out, ']');
}

static void json_verdict(struct jw *out, const struct result *r)
{
    const struct result_verdict *v = &r->verdict;
    jkey_str(out, "verdict", v->text, false);
    jw_str(out, ",\"verdict_detail\":{");
    jkey_str(out, "kind", verdict_kind(v->kind), true);
    jkey(out, "resources", false);
    jw_char(out, '[');
    for (unsigned i = 0; i < v->n_names; i++) {
        if (i)
            jw_char(out, ',');
        jstr(out, v->names[i]);
    }
    jw_char(out, ']');
    bool lane = v->kind == RESULT_VERDICT_RESOURCE || v->kind == RESULT_VERDICT_PAIR;
    jkey_num(out, "speedup", lane ? v->speedup : NAN, false);
    jkey_num(out, "weight", lane ? v->weight : NAN, false);
    jw_char(out, '}');
    if (r->has_bounds) {
        jw_str(out, ",\"bounds\":{");
        jkey_num(out, "infinite_resources", r->bound_infinite_resources, true);
        jkey_num(out, "no_dependencies", r->bound_no_dependencies, false);
        jw_char(out, '}');
    }
}

static void json_robust_end(struct jw *out, const char *key, const struct result_robust_end *e)
{
    jkey(out, key, false);
    jw_char(out, '{');
    jkey_num(out, "value", e->value, true);
    jkey(out, "described", false);
    jbool(out, e->same);
    jkey(out, "moves_cycles", false);
    jbool(out, e->moved);
    jkey_num(out, "cycles", e->cycles, false);
    jkey_str(out, "verdict", e->verdict, false);
    jkey_num(out, "speedup", e->speedup > 0 ? e->speedup : NAN, false);
    jkey(out, "holds", false);
    jbool(out, e->holds);
    jw_char(out, '}');
}

/* Whether the verdict holds at both ends of every estimated value (robust.h); absent when it was
 * not checked. */
static void json_robustness(struct jw *out, const struct result *r)
{
    const struct result_robustness *rb = &r->robustness;
    if (!rb->checked)
        return;
    jw_str(out, ",\"robustness\":{");
    jkey(out, "holds", true);
    jbool(out, rb->holds);
    jkey_str(out, "text", rb->text, false);
    jkey_str(out, "verdict", rb->verdict, false);
    jkey_num(out, "cycles_low", rb->cycles_low, false);
    jkey_num(out, "cycles_high", rb->cycles_high, false);
    jkey(out, "values", false);
    jw_char(out, '[');
    for (unsigned i = 0; i < rb->n_values; i++) {
        const struct result_robust_value *v = &r->robust[i];
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "name", v->name, true);
        jkey_num(out, "value", v->value, false);
        jkey(out, "range", false);
        jw_char(out, '[');
        jnum(out, v->lo);
        jw_char(out, ',');
        jnum(out, v->hi);
        jw_char(out, ']');
        jkey_str(out, "reason", v->reason, false);
        jkey_str(out, "where", v->where, false);
        jkey(out, "holds", false);
        jbool(out, v->holds);
        json_robust_end(out, "low", &v->end[0]);
        json_robust_end(out, "high", &v->end[1]);
        jw_char(out, '}');
    }
    jw_str(out, "]}");
}

static void json_sensitivity(struct jw *out, const struct result *r)
{
    jkey(out, "bottlenecks", false);
    jw_char(out, '[');
    for (unsigned i = 0; i < r->n_single; i++) {
        const struct result_lane *ln = &r->lanes[r->single[i]];
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "resource", ln->label, true);
        jkey_num(out, "speedup", ln->speedup, false);
        json_speedup_interval(out, r, ln);
        jw_char(out, '}');
    }
    jw_str(out, "],\"sensitivity\":[");
    for (unsigned i = 0; i < r->n_single; i++) {
        const struct result_lane *ln = &r->lanes[r->single[i]];
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "resource", ln->knob_label[0], true);
        jkey_num(out, "weight", ln->cfg.weight, false);
        jkey_num(out, "speedup", ln->speedup, false);
        json_speedup_interval(out, r, ln);
        jw_char(out, '}');
    }
    jw_str(out, "],\"interactions\":[");
    for (unsigned i = 0; i < r->n_pairs; i++) {
        const struct result_lane *ln = &r->lanes[r->pairs[i]];
        jw_str(out, i ? ",{" : "{");
        jkey(out, "resources", true);
        jw_char(out, '[');
        jstr(out, ln->knob_label[0]);
        jw_char(out, ',');
        jstr(out, ln->knob_label[1]);
        jw_char(out, ']');
        jkey_num(out, "weight", ln->cfg.weight, false);
        jkey_num(out, "speedup", ln->speedup, false);
        json_speedup_interval(out, r, ln);
        jw_char(out, '}');
    }
    jw_char(out, ']');
}

static void json_curves(struct jw *out, const struct result *r)
{
    jkey(out, "curves", false);
    jw_char(out, '[');
    for (unsigned i = 0; i < r->n_curves; i++) {
        const struct result_curve *c = &r->curves[i];
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "resource", c->label, true);
        jw_str(out, ",\"points\":[");
        for (unsigned k = 0; k < c->n; k++) {
            jw_str(out, k ? ",{" : "{");
            jkey_num(out, "weight", c->weight[k], true);
            jkey_num(out, "speedup", c->speedup[k], false);
            jw_char(out, '}');
        }
        jw_str(out, "]}");
    }
    jw_char(out, ']');
}

static void json_topdown(struct jw *out, const struct result *r)
{
    const struct result_topdown *t = &r->topdown;
    jkey(out, "topdown", false);
    if (!t->valid) {
        jw_str(out, "null");
        return;
    }
    jw_char(out, '{');
    jkey_num(out, "slots", t->slots, true);
    jkey_num(out, "retiring", t->retiring, false);
    jkey_num(out, "bad_speculation", t->bad_speculation, false);
    jkey_num(out, "frontend_bound", t->frontend, false);
    jkey_num(out, "frontend_latency", t->frontend_latency, false);
    jkey_num(out, "frontend_bandwidth", t->frontend_bandwidth, false);
    jkey_num(out, "backend_bound", t->backend, false);
    jkey_num(out, "memory_bound", t->memory, false);
    jkey_num(out, "core_bound", t->core, false);
    jw_str(out, ",\"memory_levels\":[");
    for (unsigned k = 0; k < t->n_levels; k++) {
        jw_str(out, k ? ",{" : "{");
        jkey_str(out, "level", t->level[k], true);
        jkey_num(out, "share", t->level_share[k], false);
        jw_char(out, '}');
    }
    jw_str(out, "]}");
}

static void json_critical(struct jw *out, const struct result *r)
{
    jkey(out, "critical", false);
    jw_char(out, '[');
    for (size_t i = 0; i < r->n_critical; i++) {
        const struct result_row *row = &r->rows[r->critical[i]];
        jw_str(out, i ? ",{" : "{");
        jkey_num(out, "index", row->index, true);
        jkey_u64(out, "pc", row->pc, false);
        jkey_str(out, "disasm", row->disasm, false);
        jkey_num(out, "share", row->critical, false);
        jw_char(out, '}');
    }
    jw_char(out, ']');
}

static void json_bytes(struct jw *out, const struct result_row *row)
{
    static const char hex[] = "0123456789abcdef";
    char buf[2 * sizeof row->bytes + 3], *p = buf;
    *p++ = '"';
    for (unsigned i = 0; i < row->len; i++) {
        *p++ = hex[row->bytes[i] >> 4];
        *p++ = hex[row->bytes[i] & 15];
    }
    *p++ = '"';
    jw_bytes(out, buf, (size_t)(p - buf));
}

static void json_row(struct jw *out, const struct result *r, const struct result_row *row)
{
    jkey_num(out, "index", row->index, true);
    jkey_u64(out, "pc", row->pc, false);
    jkey(out, "bytes", false);
    json_bytes(out, row);
    jkey_str(out, "disasm", row->disasm, false);
    char form[2 * RESULT_LABEL], note[2 * RESULT_LABEL + 96];
    jkey_str(out, "key", row->key, false);
    jkey_str(out, "form", result_row_form(row, form, sizeof form), false);
    jkey_str(out, "template", row->tmpl, false);
    jkey_str(out, "timed_as", result_row_timed_as(row, note, sizeof note) ? note : NULL, false);
    jkey(out, "class_default", false);
    jbool(out, row->class_default);
    jkey(out, "eliminated", false);
    jbool(out, row->eliminated);
    jkey(out, "fused", false);
    jbool(out, row->fused);
    jkey_u64(out, "executions", row->executions, false);
    jkey(out, "latency", false);
    jw_char(out, '[');
    jnum(out, row->latency_min);
    jw_char(out, ',');
    jnum(out, row->latency_max);
    jw_char(out, ']');
    jkey_num(out, "uops", row->uops, false);
    jw_str(out, ",\"resources\":[");
    for (unsigned k = 0; k < row->use_count; k++) {
        const struct result_use *u = &r->uses[row->use_first + k];
        jw_str(out, k ? ",{" : "{");
        jkey_str(out, "resource", result_resource_name(r, u->resource), true);
        jkey_num(out, "cost", u->cost, false);
        jkey_num(out, "share", u->share, false);
        jw_char(out, '}');
    }
    jw_char(out, ']');
    jkey_num(out, "critical", row->critical, false);
    jkey_num(out, "cycles", r->charged ? row->cycles : NAN, false);     /* a block's: null */
    jkey_u64(out, "l1_misses", row->l1_misses, false);
    jkey_u64(out, "ll_misses", row->ll_misses, false);
    jkey_u64(out, "mispredicts", row->mispredicts, false);
    jkey_str(out, "module", row->module, false);
    jkey_str(out, "function", row->function, false);
    /* in code no symbol names, where objdump -d of the module shows the instruction */
    if (row->function || (row->module && row->in_object)) {
        jkey_u64(out, "offset", row->function ? row->fn_offset : row->address, false);
    } else {
        jkey(out, "offset", false);
        jw_str(out, "null");
    }
    jkey_str(out, "file", row->file, false);
    jkey(out, "line", false);
    if (row->line)
        jnum(out, row->line);
    else
        jw_str(out, "null");
}

static void json_functions(struct jw *out, const struct result *r)
{
    jkey(out, "functions", false);
    jw_char(out, '[');
    for (size_t i = 0; i < r->n_functions; i++) {
        const struct result_function *f = &r->functions[i];
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "module", f->module, true);
        jkey_str(out, "function", f->name, false);
        const struct result_row *first = &r->rows[f->first_row];
        if (!f->name && first->in_object) {
            jkey_u64(out, "offset", first->address - first->fn_offset, false);
        } else {
            jkey(out, "offset", false);
            jw_str(out, "null");
        }
        jkey_u64(out, "pc", first->pc, false);
        jkey_u64(out, "instructions", f->instructions, false);
        jkey_num(out, "cycles", f->cycles, false);
        jkey_num(out, "share", r->cycles > 0 ? f->cycles / r->cycles : 0.0, false);
        jkey_num(out, "critical", f->seen ? (double)f->crit / (double)f->seen : 0.0, false);
        jkey_u64(out, "l1_misses", f->l1_misses, false);
        jkey_u64(out, "ll_misses", f->ll_misses, false);
        jkey_u64(out, "mispredicts", f->mispredicts, false);
        jkey_num(out, "inclusive_cycles", f->incl[RESULT_EV_CYCLES], false);
        jkey_num(out, "inclusive_instructions", f->incl[RESULT_EV_IR], false);
        jkey_u64(out, "calls", f->calls_in, false);
        jw_char(out, '}');
    }
    jw_str(out, "],\"lines\":[");
    for (size_t i = 0; i < r->n_lines; i++) {
        const struct result_line *l = &r->lines[i];
        jw_str(out, i ? ",{" : "{");
        jkey_str(out, "module", l->module, true);
        jkey_str(out, "file", l->file, false);
        jkey_num(out, "line", l->line, false);
        jkey_u64(out, "instructions", l->instructions, false);
        jkey_num(out, "cycles", l->cycles, false);
        jkey_num(out, "critical", l->seen ? (double)l->crit / (double)l->seen : 0.0, false);
        jkey_u64(out, "l1_misses", l->l1_misses, false);
        jkey_u64(out, "ll_misses", l->ll_misses, false);
        jkey_u64(out, "mispredicts", l->mispredicts, false);
        jw_char(out, '}');
    }
    jw_str(out, "],\"calls\":[");
    for (size_t i = 0, k = 0; i < r->n_calls; i++) {
        const struct result_call *c = &r->calls[i];
        if (c->caller == SIZE_MAX || c->callee == SIZE_MAX)
            continue;
        jw_str(out, k++ ? ",{" : "{");
        jkey_u64(out, "site", c->site, true);
        jkey_num(out, "caller", (double)c->caller, false);
        jkey_num(out, "callee", (double)c->callee, false);
        jkey_u64(out, "count", c->count, false);
        jkey_num(out, "inclusive_cycles", c->incl[RESULT_EV_CYCLES], false);
        jw_char(out, '}');
    }
    jw_char(out, ']');
}

static void json_table(struct jw *out, const struct result *r)
{
    jkey(out, "table", false);
    jw_char(out, '[');
    for (size_t i = 0; i < r->n_rows; i++) {
        jw_str(out, i ? ",{" : "{");
        json_row(out, r, &r->rows[i]);
        jw_char(out, '}');
    }
    jw_str(out, "],\"unknown\":[");
    size_t k = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct result_row *row = &r->rows[i];
        if (!row->class_default || !row->executions)
            continue;
        jw_str(out, k++ ? ",{" : "{");
        jkey_num(out, "index", row->index, true);
        jkey_u64(out, "pc", row->pc, false);
        jkey_str(out, "disasm", row->disasm, false);
        jkey_str(out, "key", row->key, false);
        jkey_u64(out, "count", row->executions, false);
        jw_char(out, '}');
    }
    jw_char(out, ']');
}

static void json_memory(struct jw *out, const struct result *r)
{
    jkey(out, "caches", false);
    jw_char(out, '[');
    for (unsigned k = 0; r->has_caches && k < r->n_caches; k++) {
        const struct result_cache *c = &r->caches[k];
        jw_str(out, k ? ",{" : "{");
        jkey_str(out, "level", c->name, true);
        jkey_u64(out, "accesses", c->accesses, false);
        jkey_u64(out, "hits", c->hits, false);
        jkey_num(out, "hit_rate", c->accesses ? (double)c->hits / (double)c->accesses : 0.0, false);
        jw_char(out, '}');
    }
    jw_char(out, ']');
    jkey(out, "branches", false);
    if (!r->has_branches) {
        jw_str(out, "null");
        return;
    }
    jw_char(out, '{');
    jkey_u64(out, "branches", r->branches, true);
    jkey_u64(out, "mispredicted", r->mispredicted, false);
    jw_char(out, '}');
}

/* The executions by the path that delivered them; absent where no uop cache is modelled (a
 * block, a core without one). */
static void json_delivery(struct jw *out, const struct result *r)
{
    if (!r->has_delivery)
        return;
    jkey(out, "delivery", false);
    jw_char(out, '{');
    for (unsigned p = 0; p < RT_PATH_COUNT; p++)
        jkey_u64(out, rt_path_name((enum rt_path)p), r->delivery[p], p == 0);
    jw_char(out, '}');
}

/* The functions whose cycles differ most between the cores: each with its cycles on each core. */
static void json_differ(struct jw *w, const struct result_comparison *c)
{
    jkey(w, "differ", false);
    jw_char(w, '[');
    for (unsigned i = 0; i < c->n_differ; i++) {
        const struct result_function *named = NULL;
        for (unsigned k = 0; k < c->n && !named; k++)
            if (c->differ[i][k] != SIZE_MAX)
                named = &c->core[k]->functions[c->differ[i][k]];
        jw_str(w, i ? ",{" : "{");
        jkey_str(w, "module", named->module, true);
        jkey(w, "function", false);
        jnull_str(w, named->name);
        jkey_u64(w, "start", named->lo, false);
        jkey(w, "cycles", false);
        for (unsigned k = 0; k < c->n; k++) {
            jw_char(w, k ? ',' : '[');
            jnum(w, c->differ_cycles[i][k]);
        }
        jw_str(w, "]}");
    }
    jw_char(w, ']');
}

/* R as one object, without the line's end. */
static void json_result(struct jw *w, const struct result *r)
{
    json_head(w, r);
    json_verdict(w, r);
    json_robustness(w, r);
    json_sensitivity(w, r);
    json_curves(w, r);
    json_topdown(w, r);
    json_critical(w, r);
    json_table(w, r);
    json_functions(w, r);
    json_memory(w, r);
    json_delivery(w, r);
    jw_char(w, '}');
}

static struct jw *jw_new(FILE *out)
{
    struct jw *w = alloc_resize(NULL, 1, sizeof *w);
    w->out = out;
    w->p = w->buf;
    w->failed = false;
    return w;
}

/* The line's end, the buffer flushed: whether every write went through. */
static bool jw_end(struct jw *w)
{
    jw_char(w, '\n');
    jw_flush(w);
    bool ok = !w->failed && !ferror(w->out);
    free(w);
    return ok;
}

bool view_json(FILE *out, const struct result *r)
{
    struct jw *w = jw_new(out);
    json_result(w, r);
    return jw_end(w);
}

bool view_json_comparison(FILE *out, const struct result_comparison *c)
{
    struct jw *w = jw_new(out);
    const struct result *first = c->core[0];
    jw_str(w, "{\"schema_version\":");
    jnum(w, RESULT_SCHEMA_VERSION);
    jkey_str(w, "command", first->command, false);
    jkey(w, "machines", false);
    for (unsigned k = 0; k < c->n; k++) {
        jw_char(w, k ? ',' : '[');
        jstr(w, c->core[k]->m->name);
    }
    jw_char(w, ']');
    jkey_str(w, "fastest", c->core[c->fastest]->m->name, false);
    jkey(w, "relative_cycles", false);
    for (unsigned k = 0; k < c->n; k++) {
        jw_char(w, k ? ',' : '[');
        jnum(w, c->relative[k]);
    }
    jw_char(w, ']');
    json_differ(w, c);
    jkey(w, "comparison", false);
    for (unsigned k = 0; k < c->n; k++) {
        jw_char(w, k ? ',' : '[');
        json_result(w, c->core[k]);
    }
    jw_str(w, "]}");
    return jw_end(w);
}

void view_json_error(FILE *out, const char *label, const char *msg)
{
    struct jw w = { .out = out };
    w.p = w.buf;
    jw_str(&w, "{\"block\":");
    jstr(&w, label);
    jw_str(&w, ",\"error\":");
    jstr(&w, msg);
    jw_str(&w, "}\n");
    jw_flush(&w);
}
