/* The HTML view on results built by hand: one self-contained document, every string from the
 * program or the description escaped, the elements the page checker (tests/views/check_html.py)
 * relies on present. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "views/view_html.h"
#include "views/view_text.h"
#include "analysis/analysis.h"

extern const struct mdl_machine mdl_machine_skylake;

enum { P0156 = 0, P23 = 2, P01 = 5 };   /* indices in skylake's resources */

/* Strings as a hostile binary or description could have them: markup, quotes, a control byte. */
static const char evil_disasm[] = "<script>alert(\"pwned\")</script> & 'x'\x01";
static const char evil_form[] = "<script src=x>ADD (R64, M64)\x07";
static const char evil_scope[] = "loop<b>&\"'";

static void add_use(struct result *r, struct result_row *row, unsigned resource, double cost, double share)
{
    if (!row->use_count)
        row->use_first = r->n_uses;
    r->uses[r->n_uses++] = (struct result_use){ resource, cost, share };
    row->use_count++;
}

static struct result_row *add_row(struct result *r, uint64_t pc, const char *disasm, const char *form)
{
    struct result_row *row = &r->rows[r->n_rows];
    *row = (struct result_row){ .index = (unsigned)r->n_rows, .pc = pc, .disasm = disasm, .key = form,
                                .form = { form, NULL }, .tmpl = form, .executions = 1, .latency_min = 1,
                                .latency_max = 1, .uops = 1 };
    r->n_rows++;
    return row;
}

/* Lane L: one knob (or two) on resources, at weight W, with speed-up S. */
static void lane(struct result *r, unsigned l, const char *a, const char *b, double w, double s)
{
    struct result_lane *ln = &r->lanes[l];
    ln->cfg.weight = w;
    ln->speedup = s;
    ln->cycles = r->cycles / s;
    snprintf(ln->knob_label[0], sizeof ln->knob_label[0], "%s", a);
    snprintf(ln->knob_label[1], sizeof ln->knob_label[1], "%s", b ? b : "");
    snprintf(ln->label, sizeof ln->label, "%s%s%s", a, b ? "+" : "", b ? b : "");
    if (l >= r->n_lanes)
        r->n_lanes = l + 1;
}

static void curve(struct result *r, const char *label, unsigned first_lane, const double *s)
{
    struct result_curve *c = &r->curves[r->n_curves++];
    snprintf(c->label, sizeof c->label, "%s", label);
    c->n = r->n_weights;
    for (unsigned j = 0; j < c->n; j++) {
        c->weight[j] = r->weights[j];
        c->speedup[j] = s[j];
        c->lane[j] = first_lane + j;
        lane(r, first_lane + j, label, NULL, r->weights[j], s[j]);
    }
}

static void sensitivity(struct result *r)
{
    static const double p23[] = { 1.05, 1.13 }, p01[] = { 1, 1.02 }, lat[] = { 1, 1 };
    r->sensitivity = true;
    r->n_weights = 2;
    r->weights[0] = 1.05;
    r->weights[1] = 1.15;
    lane(r, 0, "baseline", NULL, 1, 1);
    curve(r, "p23", 1, p23);
    curve(r, "p01", 3, p01);
    curve(r, "lat<&>", 5, lat);
    lane(r, 7, "p23", "p01", 1.15, 1.2);
    lane(r, 8, "p23", "lat<&>", 1.15, 1.14);
    r->n_single = 6;
    for (unsigned i = 0; i < 6; i++)
        r->single[i] = i + 1;
    r->n_pairs = 2;
    r->pairs[0] = 7;
    r->pairs[1] = 8;
    r->has_bounds = true;
    r->bound_infinite_resources = 3.5;
    r->bound_no_dependencies = 5.5;
}

static void topdown(struct result *r)
{
    struct result_topdown *t = &r->topdown;
    *t = (struct result_topdown){ .valid = true, .slots = 24, .retiring = 0.5, .bad_speculation = 0.05,
                                  .frontend = 0.15, .backend = 0.3, .frontend_latency = 0.1,
                                  .frontend_bandwidth = 0.05, .memory = 0.2, .core = 0.1, .n_levels = 2 };
    snprintf(t->level[0], sizeof t->level[0], "L1\"D<");
    snprintf(t->level[1], sizeof t->level[1], "DRAM");
    t->level_share[0] = 0.15;
    t->level_share[1] = 0.05;
}

/* A block of three instructions on Skylake, two of them with hostile strings. */
static struct result *sample(void)
{
    struct result *r = calloc(1, sizeof *r);
    r->m = &mdl_machine_skylake;
    r->command = "block";
    r->scope = RESULT_SCOPE_BLOCK;
    r->scope_name = evil_scope;
    r->iterations = 100;
    r->instructions = r->executed = 3;
    r->cycles = 6;
    r->ipc = 0.5;
    r->causality = true;
    r->rows = calloc(r->cap_rows = 400, sizeof *r->rows);
    r->uses = calloc(r->cap_uses = 16, sizeof *r->uses);
    r->critical = calloc(r->cap_critical = 4, sizeof *r->critical);
    struct result_row *a = add_row(r, 0, "vaddsd xmm0, xmm0, qword ptr [rdx + rax + 8]", "VADDSD (XMM, XMM, M64)");
    add_use(r, a, P01, 0.5, 0.5);
    add_use(r, a, P23, 0.5, 0.5);
    a->critical = 0.75;
    struct result_row *b = add_row(r, 6, evil_disasm, evil_form);
    add_use(r, b, P0156, 0.25, 1);
    b->critical = 0.25;
    struct result_row *c = add_row(r, 10, "mov rdx, qword ptr [rsp - 0x10]", "class:load");
    c->class_default = true;
    c->key = evil_form;
    add_use(r, c, P23, 0.5, 0.5);
    add_use(r, c, P01, 0.5, 0.5);
    r->critical[r->n_critical++] = 0;
    r->critical[r->n_critical++] = 1;
    sensitivity(r);
    topdown(r);
    r->verdict.kind = RESULT_VERDICT_RESOURCE;
    snprintf(r->verdict.text, sizeof r->verdict.text, "bound by p23 <script>: 13%% faster & more");
    return r;
}

static void release(struct result *r)
{
    free(r->rows);
    free(r->uses);
    free(r->critical);
    free(r->hot);
    free(r->robust);
    free(r);
}

/* What VIEW writes of R, NUL-terminated. */
static char *rendered(const struct result *r, bool (*view)(FILE *, const struct result *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    cr_assert(out);
    cr_assert(view(out, r), "the view reported a write error on memory");
    fclose(out);
    return buf;
}

/* The page of R, and its text. */
static char *page(const struct result *r) { return rendered(r, view_html); }
static char *text_of(const struct result *r) { return rendered(r, view_text); }

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Each string of HAS is in HTML, none of LACKS (NULL-terminated lists). */
static void expect_strings(const char *html, const char *const *has, const char *const *lacks)
{
    for (; *has; has++)
        cr_expect(strstr(html, *has), "the page lacks %s", *has);
    for (; *lacks; lacks++)
        cr_expect_null(strstr(html, *lacks), "the page has %s", *lacks);
}

Test(view_html, writes_one_complete_document)
{
    struct result *r = sample();
    char *html = page(r);
    cr_expect(strncmp(html, "<!DOCTYPE html>\n", 16) == 0, "does not start with the doctype");
    size_t len = strlen(html);
    cr_expect(len > 8 && strcmp(html + len - 8, "</html>\n") == 0, "does not end with </html>");
    cr_expect_eq(count(html, "<!DOCTYPE"), 1);
    cr_expect_eq(count(html, "</html>"), 1);
    cr_expect_eq(count(html, "<body>"), 1);
    free(html);
    release(r);
}

Test(view_html, escapes_every_string_that_comes_from_the_program)
{
    struct result *r = sample();
    char *html = page(r);
    cr_expect_null(strcasestr(html, "<script"), "a raw <script from the input is in the page");
    cr_expect_null(strstr(html, "<b>&"), "the scope name is not escaped");
    cr_expect_null(strstr(html, "L1\"D<"), "the cache level is not escaped");
    cr_expect_null(strstr(html, "lat<&>"), "the knob label is not escaped");
    cr_expect(strstr(html, "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; &#39;x&#39;"),
              "the disassembly is not escaped as expected");
    cr_expect(strstr(html, "&lt;script src=x&gt;ADD (R64, M64)"), "the form is not escaped as expected");
    cr_expect(strstr(html, "loop&lt;b&gt;&amp;&quot;&#39;"), "the scope name is not escaped as expected");
    cr_expect(strstr(html, "data-category=\"memory:L1&quot;D&lt;\""), "the level name is not escaped");
    cr_expect(strstr(html, "bound by p23 &lt;script&gt;: 13% faster &amp; more"), "the verdict is not escaped");
    for (const char *p = html; *p; p++)
        cr_assert(*p == '\n' || (unsigned char)*p >= 0x20, "control byte 0x%02x at offset %td", *p, p - html);
    free(html);
    release(r);
}

/* Whether a tag of HTML has attribute NAME (outside quoted values, where escaped text from the
 * input may say anything). */
static bool has_attribute(const char *html, const char *name)
{
    size_t n = strlen(name);
    bool in_tag = false;
    char quote = 0;
    for (const char *p = html; *p; p++) {
        if (quote)
            quote = *p == quote ? 0 : quote;
        else if (!in_tag)
            in_tag = *p == '<';
        else if (*p == '"' || *p == '\'')
            quote = *p;
        else if (*p == '>')
            in_tag = false;
        else if ((p[-1] == ' ' || p[-1] == '\n') && strncasecmp(p, name, n) == 0 && p[n] == '=')
            return true;
    }
    return false;
}

Test(view_html, fetches_nothing_from_outside_the_page)
{
    struct result *r = sample();
    char *html = page(r);
    cr_expect_null(strstr(html, "http://"));
    cr_expect_null(strstr(html, "https://"));
    cr_expect_not(has_attribute(html, "src"), "an element loads a source");
    cr_expect_not(has_attribute(html, "href"), "a link");
    cr_expect_null(strstr(html, "@import"));
    cr_expect_eq(count(html, "url("), count(html, "url(#"), "a url() that is not a fragment of the page");
    free(html);
    release(r);
}

Test(view_html, has_the_sections_the_page_checker_reads)
{
    struct result *r = sample();
    char *html = page(r);
    static const char *const ids[] = { "verdict", "topdown", "heatmap", "bounds", "interactions", "instructions" };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "id=\"%s\"", ids[i]);
        cr_expect_eq(count(html, want), 1, "%s: %zu times", want, count(html, want));
    }
    cr_expect_eq(count(html, "data-resource="), 6, "one heat map cell per curve and weight");
    cr_expect(strstr(html, "data-resource=\"p23\" data-weight=\"1.15\" data-speedup=\"1.13\""));
    cr_expect_eq(count(html, "data-category="), 7, "five top-down categories and two memory levels");
    cr_expect(strstr(html, "data-category=\"retiring\" data-share=\"0.5\""));
    cr_expect_eq(count(html, "data-critical="), 3, "one table row per instruction");
    cr_expect(strstr(html, "data-index=\"1\" data-pc=\"0x6\" data-critical=\"0.25\""));
    cr_expect(strstr(html, "(class default)"));
    free(html);
    release(r);
}

Test(view_html, says_when_there_is_no_sensitivity_and_no_top_down)
{
    struct result *r = sample();
    r->n_curves = r->n_pairs = r->n_single = 0;
    r->n_lanes = 1;
    r->has_bounds = false;
    r->topdown.valid = false;
    r->verdict.kind = RESULT_VERDICT_NO_LANES;
    char *html = page(r);
    static const char *const has[] = { "id=\"heatmap\"", "No sensitivity analysis", "id=\"topdown\"", NULL };
    static const char *const lacks[] = { "data-resource=", "data-category=", "id=\"interactions\"", "id=\"bounds\"",
                                         NULL };
    expect_strings(html, has, lacks);
    free(html);
    release(r);
}

Test(view_html, shows_the_hottest_rows_of_a_long_run_and_counts_the_rest)
{
    struct result *r = sample();
    r->command = "run";
    r->scope = RESULT_SCOPE_RUN;
    r->scope_name = NULL;
    r->n_rows = r->n_uses = r->n_critical = 0;
    for (unsigned i = 0; i < 350; i++)
        add_row(r, 0x401000 + 4 * i, "nop", "NOP")->executions = 1000 + i;
    /* the ranking analysis_finish makes: the most executed first */
    r->hot = calloc(r->n_rows, sizeof *r->hot);
    for (size_t i = 0; i < r->n_rows; i++)
        r->hot[i] = r->n_rows - 1 - i;
    r->has_caches = r->has_branches = true;
    r->n_caches = 1;
    r->caches[0] = (struct result_cache){ "L1<D>", 100, 90 };
    r->branches = 10;
    r->mispredicted = 1;
    char *html = page(r);
    cr_expect_eq(count(html, "data-critical="), 300);
    /* rows 50 to 349 are the hottest */
    static const char *const has[] = { "data-omitted=\"50\"", "data-index=\"50\" ", "whole run", "L1&lt;D&gt;",
                                       "id=\"caches\"", "id=\"branches\"", NULL };
    static const char *const lacks[] = { "data-index=\"49\" ", NULL };
    expect_strings(html, has, lacks);
    free(html);
    release(r);
}

/* A run counts millions of cycles: the page shows them, the bounds and the issue slots whole,
 * as the text does (%g would show 7.39667e+06); a block's stay per iteration, fractions kept. */
Test(view_html, shows_the_cycles_and_slots_of_a_run_as_whole_numbers)
{
    struct result *r = sample();
    r->command = "run";
    r->scope = RESULT_SCOPE_RUN;
    r->scope_name = NULL;
    r->cycles = 7396667.97;
    r->bound_infinite_resources = 7393121.4;
    r->bound_no_dependencies = 4181490.6;
    r->topdown.slots = 29586671.9;
    char *html = page(r);
    static const char *const has[] = { "<td class=\"n\">7396668</td>", "<td class=\"n\">7393121</td>",
                                       "<td class=\"n\">4181491</td>", "29586672 issue slots", NULL };
    static const char *const lacks[] = { "e+06</td>", "e+07 issue", NULL };
    expect_strings(html, has, lacks);
    free(html);
    r->scope = RESULT_SCOPE_BLOCK;
    r->cycles = 1.375;
    r->bound_infinite_resources = 1.25;
    r->bound_no_dependencies = 0.8125;
    r->topdown.slots = 5.5;
    html = page(r);
    static const char *const block_has[] = { "<td class=\"n\">1.375</td>", "<td class=\"n\">0.8125</td>",
                                             "5.5 issue slots", NULL };
    static const char *const none[] = { NULL };
    expect_strings(html, block_has, none);
    free(html);
    release(r);
}

Test(view_html, reports_a_failed_write)
{
    struct result *r = sample();
    FILE *full = fopen("/dev/full", "w");
    cr_assert(full, "no /dev/full");
    cr_expect_not(view_html(full, r));
    fclose(full);
    release(r);
}

/* Robustness by hand: two estimates, one that moves the cycles and changes the verdict at its low
 * end (a name from a description, which may hold markup), one that moves nothing. */
static void robustness(struct result *r)
{
    struct result_robustness *rb = &r->robustness;
    *rb = (struct result_robustness){ .checked = true, .holds = false, .n_values = 2, .n_moved = 1,
                                      .cycles_low = 5.5, .cycles_high = 6 };
    snprintf(rb->text, sizeof rb->text, "latency bound or p23 bound: depends on <x>, estimated 4..5");
    r->robust = calloc(2, sizeof *r->robust);
    r->robust[0] = (struct result_robust_value){ .name = "<x>", .reason = "a guess & more", .value = 5, .lo = 4, .hi = 5 };
    r->robust[0].end[0] = (struct result_robust_end){ .value = 4, .moved = true, .cycles = 5.5, .speedup = 1.1 };
    snprintf(r->robust[0].end[0].verdict, sizeof r->robust[0].end[0].verdict, "p23 bound");
    r->robust[0].end[1] = (struct result_robust_end){ .value = 5, .same = true, .cycles = 6, .holds = true };
    snprintf(r->robust[0].end[1].verdict, sizeof r->robust[0].end[1].verdict, "latency bound");
    r->robust[1] = (struct result_robust_value){ .name = "memory.latency", .value = 250, .lo = 240, .hi = 260,
                                                 .holds = true };
}

Test(view_html, says_whether_the_verdict_holds_and_shows_the_estimates_that_move_the_cycles)
{
    struct result *r = sample();
    robustness(r);
    char *html = page(r);
    cr_expect(strstr(html, "<p id=\"robustness\" class=\"note\" data-holds=\"false\">Across the estimates: latency "
                           "bound or p23 bound: depends on &lt;x&gt;, estimated 4..5</p>"), "%s", html);
    cr_expect_eq(count(html, "id=\"estimates\""), 1);
    cr_expect(strstr(html, "<td class=\"mono\">&lt;x&gt;</td><td class=\"n\">5</td><td class=\"n\">4</td>"
                           "<td class=\"n\">5.5</td><td>p23 bound <b>(changes)</b></td>"));
    cr_expect(strstr(html, "(1 more leaves them unchanged)"));
    cr_expect_null(strstr(html, "memory.latency"), "a value that moves nothing has no row");
    free(html);
    r->robustness.checked = false;
    html = page(r);
    cr_expect_null(strstr(html, "robustness"), "not checked: not shown");
    free(html);
    release(r);
}

Test(view_html, puts_the_cores_side_by_side_with_their_names_escaped)
{
    struct result *a = sample(), *b = sample();
    struct mdl_machine evil = mdl_machine_skylake;
    evil.name = "<b>core</b>";
    b->m = &evil;
    b->cycles = 2 * a->cycles;
    struct result_comparison c = { .n = 2, .core = { a, b } };
    analysis_compare(&c);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    cr_assert(view_html_comparison(out, &c));
    fclose(out);
    cr_expect(strncmp(buf, "<!DOCTYPE html>\n", 16) == 0);
    cr_expect_eq(count(buf, "</html>"), 1);
    cr_expect_null(strstr(buf, "<b>core"), "a machine's name is escaped");
    cr_expect(strstr(buf, "<th class=\"n\" data-machine=\"&lt;b&gt;core&lt;/b&gt;\">"));
    cr_expect(strstr(buf, "<td class=\"n\"><b>fastest</b></td><td class=\"n\">2.000x</td>"), "%s", buf);
    cr_expect_eq(count(buf, "<div class=\"bar\">"), 2, "a top-down bar per core");
    free(buf);
    release(a);
    release(b);
}

/* The sample as a sampled run's result: 700 units of 1,000 after its first million instructions,
 * its cycles within 1% each way. */
static struct result *sampled_run(void)
{
    struct result *r = sample();
    r->command = "run";
    r->scope = RESULT_SCOPE_RUN;
    r->cycles_low = r->cycles * 0.99, r->cycles_high = r->cycles * 1.01;
    r->sampling = (struct result_sampling){ .sampled = true, .exact = 1000000, .period = 20000, .warm = 2000,
                                            .unit = 1000, .epoch = 500, .lanes_warm = 2000, .lanes_every = 1,
                                            .units = 700, .modelled = 3000000 };
    return r;
}

/* How far the warm-ups still drifted is said, as a share of the cycles, in the text and on the
 * page; a run whose warm-ups settled (no drift) says nothing of it. */
Test(view_html, says_how_far_a_sampled_runs_warm_ups_drifted_and_nothing_where_they_settled)
{
    struct result *r = sampled_run();
    r->sampling.drift = -0.0042 * r->cycles;
    r->sampling.drift_se = 0.0011 * r->cycles;
    r->sampling.drift_widened = 0.0031 * r->cycles;
    char *html = page(r), *txt = text_of(r);
    static const char *const has[] = { "data-sampling-drift", "would change the cycles by -0.42% (+-0.11%)",
                                       "the cycles' interval is 0.31% wider each way for it", NULL };
    static const char *const none[] = { NULL };
    expect_strings(html, has, none);
    static const char *const has_text[] = { "Warm-up drift:      -0.42% of the cycles, +-0.11% (the last 1000 "
                                            "instructions of each warm-up against its interval): the cycles' "
                                            "interval widened by 0.31% each way\n", NULL };
    expect_strings(txt, has_text, none);
    free(html);
    free(txt);
    r->sampling.drift_widened = 0;
    html = page(r), txt = text_of(r);
    static const char *const noise[] = { "of the cycles, +-0.11% (the last 1000 instructions of each warm-up against "
                                         "its interval): within its noise\n", NULL };
    expect_strings(txt, noise, none);
    expect_strings(html, none, (const char *const[]){ "data-sampling-drift", NULL });
    free(html);
    free(txt);
    r->sampling.drift = 0;
    html = page(r), txt = text_of(r);
    static const char *const lacks[] = { "data-sampling-drift", NULL }, *const lacks_text[] = { "Warm-up drift", NULL };
    expect_strings(html, none, lacks);
    expect_strings(txt, none, lacks_text);
    free(html);
    free(txt);
    release(r);
}

/* A sampled run's note counts what happened once in the singular, and says how many warm-ups began
 * where the model left off. */
Test(view_html, says_how_a_sampled_run_was_modelled_and_counts_once_in_the_singular)
{
    struct result *r = sampled_run();
    r->sampling.warm_spread = 896;
    r->sampling.kept = 1, r->sampling.halved = 1;
    r->sampling.warmups = 700, r->sampling.resumed = 650;
    char *html = page(r);
    static const char *const has[] = { " but kept 1 time, where the intervals spread widely",
                                       " and halved 1 time, where the run's interval was wide",
                                       "650 of 700 warm-ups began where the model left off", NULL };
    static const char *const lacks[] = { "1 times", NULL };
    expect_strings(html, has, lacks);
    r->sampling.kept = 2, r->sampling.halved = 3;
    free(html);
    html = page(r);
    static const char *const has2[] = { " but kept 2 times,", " and halved 3 times,", NULL };
    static const char *const none[] = { NULL };
    expect_strings(html, has2, none);
    free(html);
    release(r);
}
