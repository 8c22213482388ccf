/* Unit tests of the lexer (mdl/lexer.l): tokens and their byte spans, the values it attaches,
 * and the lexical errors it reports, through the lexer itself and through parse_file. */
#include <criterion/criterion.h>
#include "fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "lexer.h"
#include "parse.h"
#include "parser.h"
#include "source.h"
#define YY_DECL int mdl_lex(YYSTYPE *yylval_param, YYLTYPE *yylloc_param, yyscan_t yyscanner)
#include "lexer.gen.h"

/* ---- one compilation's state, rebuilt by each helper call (every test is its own process) -- */

static struct arena ar;
static struct src_manager sm;
static struct diag dg;
static char *errbuf;
static size_t errlen;
static FILE *errf;

/* What the last load built, released before the next (a test may load several texts). */
static bool loaded;

static void release(void) { fixture_release(&ar, &sm, &errf, &errbuf, &loaded); }

static uint32_t load(const char *text, size_t len)
{
    release();
    loaded = true;
    arena_init(&ar);
    src_init(&sm);
    errf = open_memstream(&errbuf, &errlen);
    cr_assert(errf);
    diag_init(&dg, &sm, errf);
    return (uint32_t)src_add_text(&sm, "t.mdl", text, len);
}

/* Everything diagnosed so far. */
static const char *diags(void)
{
    fflush(errf);
    return errbuf ? errbuf : "";
}

struct tok {
    int kind;
    struct span at;
    const char *str;            /* identifier, number, string or variable text */
};

enum { MAX_TOKS = 64 };
static struct tok toks[MAX_TOKS];

/* Runs the lexer alone over LEN bytes of TEXT; returns the number of tokens before the end. */
static size_t lex_bytes(const char *text, size_t len)
{
    uint32_t file = load(text, len);
    struct lex_ctx cx = { .ar = &ar, .diag = &dg, .file = file };
    map_init(&cx.strings, &ar);
    yyscan_t scanner;
    cr_assert_eq(yylex_init_extra(&cx, &scanner), 0);
    const struct src_file *f = src_get(&sm, file);
    YY_BUFFER_STATE buf = yy_scan_bytes(f->text, (int)f->len, scanner);
    size_t n = 0;
    for (;;) {
        YYSTYPE val = { 0 };
        YYLTYPE loc = { 0 };
        int kind = mdl_lex(&val, &loc, scanner);
        if (kind == 0)
            break;
        cr_assert_lt(n, MAX_TOKS, "too many tokens");
        toks[n].kind = kind;
        toks[n].at = loc;
        toks[n].str = (kind == IDENT || kind == VAR || kind == STRING || kind == INTEGER || kind == DECIMAL)
                          ? val.str : NULL;
        n++;
    }
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    return n;
}

static size_t lex(const char *text) { return lex_bytes(text, strlen(text)); }

static struct ast_file *parse_bytes(const char *text, size_t len)
{
    uint32_t file = load(text, len);
    return parse_file(&ar, &dg, &sm, file);
}

static struct ast_file *parse(const char *text) { return parse_bytes(text, strlen(text)); }

static void expect_tok(size_t i, int kind, uint32_t lo, uint32_t hi, const char *str)
{
    cr_expect_eq(toks[i].kind, kind, "token %zu: kind %d, expected %d", i, toks[i].kind, kind);
    cr_expect_eq(toks[i].at.lo, lo, "token %zu starts at byte %u, expected %u", i, toks[i].at.lo, lo);
    cr_expect_eq(toks[i].at.hi, hi, "token %zu ends at byte %u, expected %u", i, toks[i].at.hi, hi);
    if (str) {
        cr_assert(toks[i].str, "token %zu has no text", i);
        cr_expect_str_eq(toks[i].str, str, "token %zu", i);
    }
}

/* The value of the first parameter of the first declaration (a block). */
static const struct ast_value *first_value(const struct ast_file *f)
{
    cr_assert_geq(f->decls.n, 1, "no declaration parsed; diagnostics:\n%s", diags());
    cr_assert_geq(f->decls.v[0]->block.params.n, 1, "no parameter parsed; diagnostics:\n%s", diags());
    return &f->decls.v[0]->block.params.v[0].value;
}

/* ---- tokens and spans ------------------------------------------------------------------------ */

Test(lexer, gives_every_token_its_byte_span)
{
    size_t n = lex("insn  ADD (R64, M64);");
    cr_assert_eq(n, 8);
    expect_tok(0, INSN, 0, 4, NULL);
    expect_tok(1, IDENT, 6, 9, "ADD");
    expect_tok(2, '(', 10, 11, NULL);
    expect_tok(3, IDENT, 11, 14, "R64");
    expect_tok(4, ',', 14, 15, NULL);
    expect_tok(5, IDENT, 16, 19, "M64");
    expect_tok(6, ')', 19, 20, NULL);
    expect_tok(7, ';', 20, 21, NULL);
    cr_expect_eq(dg.errors, 0);
}

Test(lexer, counts_offsets_across_lines_and_comments)
{
    size_t n = lex("// a comment\n/* a\nblock */ ports\r\n\tp0;");
    cr_assert_eq(n, 3);
    expect_tok(0, PORTS, 27, 32, NULL);
    expect_tok(1, IDENT, 35, 37, "p0");
    expect_tok(2, ';', 37, 38, NULL);
}

Test(lexer, keeps_dash_and_dot_groups_in_identifiers_but_splits_arrows)
{
    size_t n = lex("cortex-a72 B.cond a->b");
    cr_assert_eq(n, 5);
    expect_tok(0, IDENT, 0, 10, "cortex-a72");
    expect_tok(1, IDENT, 11, 17, "B.cond");
    expect_tok(2, IDENT, 18, 19, "a");
    expect_tok(3, ARROW, 19, 21, NULL);
    expect_tok(4, IDENT, 21, 22, "b");
}

Test(lexer, tells_keywords_from_identifiers_case_sensitively)
{
    size_t n = lex("machine Machine NOTHING nothing none latency");
    cr_assert_eq(n, 6);
    cr_expect_eq(toks[0].kind, MACHINE);
    cr_expect_eq(toks[1].kind, IDENT);
    cr_expect_eq(toks[2].kind, NOTHING);
    cr_expect_eq(toks[3].kind, IDENT);
    cr_expect_eq(toks[4].kind, NONE);
    cr_expect_eq(toks[5].kind, LATENCY);
}

Test(lexer, reads_integers_decimals_and_ranges)
{
    size_t n = lex("42 0.25 1..6 1/2");
    cr_assert_eq(n, 8);
    expect_tok(0, INTEGER, 0, 2, "42");
    expect_tok(1, DECIMAL, 3, 7, "0.25");
    expect_tok(2, INTEGER, 8, 9, "1");
    expect_tok(3, DOTDOT, 9, 11, NULL);
    expect_tok(4, INTEGER, 11, 12, "6");
    expect_tok(5, INTEGER, 13, 14, "1");
    expect_tok(6, '/', 14, 15, NULL);
    expect_tok(7, INTEGER, 15, 16, "2");
    cr_expect_eq(dg.errors, 0);
}

Test(lexer, reads_variables_and_source_annotations)
{
    size_t n = lex("$a $dst @uops_info @\"x\" ++");
    cr_assert_eq(n, 7);
    expect_tok(0, VAR, 0, 2, "$a");
    expect_tok(1, VAR, 3, 7, "$dst");
    expect_tok(2, '@', 8, 9, NULL);
    expect_tok(3, IDENT, 9, 18, "uops_info");
    expect_tok(4, '@', 19, 20, NULL);
    expect_tok(5, STRING, 20, 23, "x");
    expect_tok(6, PLUSPLUS, 24, 26, NULL);
}

/* ---- values ------------------------------------------------------------------------------------ */

Test(lexer, unescapes_the_four_string_escapes)
{
    size_t n = lex("\"a\\\"b\\\\c\\nd\\te\"");
    cr_assert_eq(n, 1);
    cr_expect_str_eq(toks[0].str, "a\"b\\c\nd\te");
    cr_expect_eq(toks[0].at.lo, 0);
    cr_expect_eq(toks[0].at.hi, 15);
    cr_expect_eq(dg.errors, 0);
}

Test(lexer, marks_numbers_written_without_a_dot_as_integral)
{
    struct ast_file *f = parse("window { rob 224; }");
    const struct ast_value *v = first_value(f);
    cr_expect_eq(v->kind, AST_VAL_NUMBER);
    cr_expect(v->integral);
    cr_expect_float_eq(v->lo, 224.0, 1e-9);
    cr_expect_str_eq(v->text, "224");

    f = parse("window { rob 2.50; }");
    v = first_value(f);
    cr_expect_not(v->integral);
    cr_expect_float_eq(v->lo, 2.5, 1e-9);
    cr_expect_str_eq(v->text, "2.50");
}

/* ---- lexical errors ------------------------------------------------------------------------------ */

Test(lexer, reports_unterminated_comment_at_its_opening)
{
    struct ast_file *f = parse("machine t { isa x86_64; }\n  /* never\nclosed");
    cr_expect_str_eq(diags(), "t.mdl:2:3: error: unterminated comment\n"
                              "  /* never\n"
                              "  ^~\n");
    cr_expect_eq(dg.errors, 1);
    cr_expect_eq(f->decls.n, 1, "the machine before the comment is kept");
}

Test(lexer, ends_a_block_comment_at_the_first_star_slash)
{
    struct ast_file *f = parse("/* a ** b */ ports p0; /* c */");
    cr_expect_eq(dg.errors, 0, "%s", diags());
    cr_assert_eq(f->decls.n, 1);
    cr_expect_eq(f->decls.v[0]->kind, AST_DECL_PORTS);
}

Test(lexer, reports_unterminated_string_at_its_quote_and_stops_at_the_line_end)
{
    size_t n = lex("x \"abc\nports");
    cr_expect_eq(dg.errors, 1);
    cr_expect_str_eq(diags(), "t.mdl:1:3: error: missing terminating '\"' character\n"
                              "x \"abc\n"
                              "  ^\n");
    cr_assert_eq(n, 3, "the next line is lexed again");
    /* The error token makes the parser recover without a second message. */
    expect_tok(1, YYerror, 2, 6, NULL);
    expect_tok(2, PORTS, 7, 12, NULL);
}

Test(lexer, reports_an_unknown_escape_under_its_backslash)
{
    size_t n = lex("  \"a\\qb\"");
    cr_assert_eq(n, 1);
    cr_expect_str_eq(diags(), "t.mdl:1:5: error: unknown escape sequence '\\q' in string\n"
                              "  \"a\\qb\"\n"
                              "    ^~\n");
}

Test(lexer, reports_an_integer_above_int_max_once)
{
    size_t n = lex("rob 2147483648;");
    cr_assert_eq(n, 3);
    cr_expect_eq(toks[1].kind, INTEGER);
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), "t.mdl:1:5: error: integer '2147483648' is too large (the limit is 2147483647)"),
              "%s", diags());
}

Test(lexer, accepts_int_max_itself)
{
    lex("rob 2147483647;");
    cr_expect_eq(dg.errors, 0, "%s", diags());
}

Test(lexer, reports_a_number_glued_to_letters_as_one_invalid_number)
{
    size_t n = lex("latency 12ab;");
    cr_assert_eq(n, 3);
    expect_tok(1, INTEGER, 8, 12, NULL);
    cr_expect_str_eq(diags(), "t.mdl:1:9: error: invalid number '12ab'\n"
                              "latency 12ab;\n"
                              "        ^~~~\n");
}

Test(lexer, requires_a_digit_after_a_decimal_point)
{
    lex("latency 1.;");
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), "t.mdl:1:10: error: stray '.'; did you mean '..' in a range?"), "%s", diags());
}

Test(lexer, reports_a_printable_unexpected_character_and_skips_it)
{
    size_t n = lex("ports # p0;");
    cr_expect_eq(n, 3, "'#' yields no token");
    cr_expect_str_eq(diags(), "t.mdl:1:7: error: unexpected character '#'\n"
                              "ports # p0;\n"
                              "      ^\n");
}

Test(lexer, reports_a_run_of_binary_bytes_once_in_hex)
{
    static const char text[] = "ports \x80\x81\xfe p0;";
    size_t n = lex_bytes(text, sizeof text - 1);
    cr_expect_eq(n, 3);
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), "t.mdl:1:7: error: unexpected byte 0x80 (and what follows it)"), "%s", diags());
}

Test(lexer, shows_a_control_byte_as_a_question_mark_in_the_source_line)
{
    static const char text[] = "ab\x01 cd";
    lex_bytes(text, sizeof text - 1);
    cr_expect_str_eq(diags(), "t.mdl:1:3: error: unexpected byte 0x01\n"
                              "ab? cd\n"
                              "  ^\n");
}

Test(lexer, goes_on_after_a_nul_byte)
{
    static const char text[] = "ports p0;\0\nunits U*2;";
    struct ast_file *f = parse_bytes(text, sizeof text - 1);
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), "unexpected byte 0x00"), "%s", diags());
    cr_assert_eq(f->decls.n, 2, "the declaration after the NUL byte is parsed");
    cr_expect_eq(f->decls.v[1]->kind, AST_DECL_UNITS);
    cr_expect_eq(f->decls.v[1]->units.v[0].count, 2);
}

Test(lexer, reports_a_lone_dollar)
{
    size_t n = lex("$ $a");
    cr_assert_eq(n, 2);
    cr_expect_eq(toks[0].kind, VAR);
    cr_expect_eq(toks[1].kind, VAR);
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), "t.mdl:1:1: error: '$' must start a variable name such as $a"), "%s", diags());
}

Test(lexer, counts_columns_in_bytes_and_keeps_tabs_in_the_underline)
{
    lex("\tports ~");
    cr_expect_str_eq(diags(), "t.mdl:1:8: error: unexpected character '~'\n"
                              "\tports ~\n"
                              "\t      ^\n");
}

Test(lexer, drops_the_carriage_return_of_crlf_lines_from_the_source_line)
{
    lex("ports p0;\r\nunits ~;\r\n");
    cr_expect_str_eq(diags(), "t.mdl:2:7: error: unexpected character '~'\n"
                              "units ~;\n"
                              "      ^\n");
}

Test(lexer, lexes_an_empty_text_to_nothing)
{
    size_t n = lex("");
    cr_expect_eq(n, 0);
    cr_expect_eq(dg.errors, 0);
}
