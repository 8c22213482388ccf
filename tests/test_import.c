/* Tests of the uops.info importer: CSV rows to MDL `insn` entries, and whole files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formcheck.h"
#include "import_uops.h"

#define HEADER "\"instruction\",\"family\",\"latency\",\"throughput\",\"uops\",\"ports\""

/* Builds a CSV line from the six field values, quoting each as uops.info does. */
static const char *csv(const char *form, const char *lat, const char *tp, const char *uops,
                       const char *ports)
{
    static char line[1024];

    snprintf(line, sizeof(line), "\"%s\",\"BASE\",\"%s\",\"%s\",\"%s\",\"%s\"\n", form, lat, tp,
             uops, ports);
    return line;
}

static void expect_entry(const char *line, const char *want)
{
    struct import_uops_row row;
    char err[256] = "", got[1024];

    cr_assert_eq(import_uops_parse_line(line, &row, err, sizeof(err)), IMPORT_UOPS_ROW,
                 "%s", err);
    import_uops_format_row(&row, "uops_t", got, sizeof(got));
    cr_assert_str_eq(got, want);
}

static void expect_error(const char *line, const char *want)
{
    struct import_uops_row row;
    char err[256] = "";

    cr_assert_eq(import_uops_parse_line(line, &row, err, sizeof(err)), IMPORT_UOPS_ERROR);
    cr_assert_str_eq(err, want);
}

/* Runs the whole-file conversion on text, rows checked against KEYS when given; returns its
 * output (malloc'd) or NULL. */
static char *convert_checked(const char *text, const struct formcheck *keys, long *line, char *err, size_t errlen)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct import_uops_opts o = {
        .csv_name = "t.csv", .source = "uops_t", .desc = "uops.info measurements for T", .keys = keys,
    };
    int rc = import_uops_convert(in, out, &o, line, err, errlen);

    fclose(in);
    fclose(out);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *convert(const char *text, long *line, char *err, size_t errlen)
{
    return convert_checked(text, NULL, line, err, errlen);
}

/* ---- latency -------------------------------------------------------------- */

Test(import_uops, converts_a_single_latency)
{
    expect_entry(csv("ADD (R64, R64)", "1", "0.25", "1 / 1", "1*p0156"),
                 "insn ADD (R64, R64) latency 1 uops 1 ports 1*p0156 tp 0.25 @uops_t;");
}

Test(import_uops, converts_an_upper_bound_latency_to_the_bound_and_flags_it)
{
    struct import_uops_row row;
    char err[256];

    expect_entry(csv("CMPXCHG (M8, R8l)", "\xe2\x89\xa4" "5", "6.00", "4 / 4", ""),
                 "insn CMPXCHG (M8, R8l) latency 5 uops 4 tp 6.00 @uops_t;");
    import_uops_parse_line(csv("X", "\xe2\x89\xa4" "5", "1", "1 / 1", ""), &row, err, 256);
    cr_assert(row.lat_min_bound && row.lat_max_bound);
}

Test(import_uops, converts_range_latency)
{
    expect_entry(csv("ADCX (R32, M32)", "[1;6]", "0.50 / 0.56", "1 / 2", "1*p06+1*p23"),
                 "insn ADCX (R32, M32) latency 1..6 uops 1/2 ports 1*p06+1*p23 tp 0.56 @uops_t;");
}

Test(import_uops, converts_range_latency_with_upper_bounds)
{
    expect_entry(csv("SAR (M64, 1)", "[\xe2\x89\xa4" "3;\xe2\x89\xa4" "10]", "1.00 / 1.00",
                     "3 / 4", "1*p06+1*p23+1*p237+1*p4"),
                 "insn SAR (M64, 1) latency 3..10 uops 3/4 ports 1*p06+1*p23+1*p237+1*p4 "
                 "tp 1.00 @uops_t;");
}

Test(import_uops, converts_range_latency_with_one_upper_bound_on_either_side)
{
    struct import_uops_row row;
    char err[256];

    expect_entry(csv("VPGATHERDD (XMM, VSIB_XMM, XMM)", "[\xe2\x89\xa4" "0;20]", "2.00 / 4.00",
                     "4 / 5", "1*p0+1*p015+4*p23+1*p5"),
                 "insn VPGATHERDD (XMM, VSIB_XMM, XMM) latency 0..20 uops 4/5 "
                 "ports 1*p0+1*p015+4*p23+1*p5 tp 4.00 @uops_t;");
    import_uops_parse_line(csv("X", "[1;\xe2\x89\xa4" "8]", "1", "1 / 1", ""), &row, err, 256);
    cr_assert(!row.lat_min_bound && row.lat_max_bound);
    cr_assert_str_eq(row.lat_max, "8");
}

Test(import_uops, keeps_decimal_latencies_as_written)
{
    expect_entry(csv("FOO (XMM)", "[0.5;11.0]", "1.00", "1 / 1", ""),
                 "insn FOO (XMM) latency 0.5..11.0 uops 1 tp 1.00 @uops_t;");
}

Test(import_uops, writes_a_range_with_equal_ends_as_one_latency)
{
    expect_entry(csv("FOO (XMM)", "[4;4.0]", "1.00", "1 / 1", ""),
                 "insn FOO (XMM) latency 4 uops 1 tp 1.00 @uops_t;");
}

Test(import_uops, omits_an_empty_latency)
{
    expect_entry(csv("PREFETCHW (M512)", "", "0.50 / 0.50", "1 / 1", "1*p23"),
                 "insn PREFETCHW (M512) uops 1 ports 1*p23 tp 0.50 @uops_t;");
}

Test(import_uops, rejects_a_latency_range_whose_minimum_exceeds_its_maximum)
{
    expect_error(csv("X", "[6;1]", "1", "1 / 1", ""),
                 "latency \"[6;1]\" has its minimum above its maximum");
}

Test(import_uops, rejects_malformed_latencies_quoting_the_value)
{
    expect_error(csv("X", "1.", "1", "1 / 1", ""),
                 "bad latency \"1.\": expected N, \xe2\x89\xa4N or [A;B]");
    expect_error(csv("X", "[1;6", "1", "1 / 1", ""),
                 "bad latency \"[1;6\": expected N, \xe2\x89\xa4N or [A;B]");
    expect_error(csv("X", "[1,6]", "1", "1 / 1", ""),
                 "bad latency \"[1,6]\": expected N, \xe2\x89\xa4N or [A;B]");
    expect_error(csv("X", "<=1", "1", "1 / 1", ""),
                 "bad latency \"<=1\": expected N, \xe2\x89\xa4N or [A;B]");
    expect_error(csv("X", " 1", "1", "1 / 1", ""),
                 "bad latency \" 1\": expected N, \xe2\x89\xa4N or [A;B]");
}

/* ---- throughput and uops -------------------------------------------------- */

Test(import_uops, keeps_a_single_throughput_digit_for_digit)
{
    expect_entry(csv("VMOVAPD_28 (XMM, XMM)", "[0;1]", "0.25", "1 / 0", ""),
                 "insn VMOVAPD_28 (XMM, XMM) latency 0..1 uops 1/0 tp 0.25 @uops_t;");
}

Test(import_uops, takes_the_measured_of_two_throughputs)
{
    expect_entry(csv("DIVSD (XMM, XMM)", "13", "1.00 / 4.00", "1 / 1", "1*p0"),
                 "insn DIVSD (XMM, XMM) latency 13 uops 1 ports 1*p0 tp 4.00 @uops_t;");
}

Test(import_uops, rejects_malformed_throughputs)
{
    expect_error(csv("X", "1", "", "1 / 1", ""), "bad throughput \"\": expected X or X / Y");
    expect_error(csv("X", "1", "0,25", "1 / 1", ""),
                 "bad throughput \"0,25\": expected X or X / Y");
    expect_error(csv("X", "1", "0.25/0.50", "1 / 1", ""),
                 "bad throughput \"0.25/0.50\": expected X or X / Y");
    expect_error(csv("X", "1", "0.25 / ", "1 / 1", ""),
                 "bad throughput \"0.25 / \": expected X or X / Y");
}

Test(import_uops, writes_eliminated_moves_as_one_fused_and_zero_unfused_uops)
{
    expect_entry(csv("MOV (R64, R64)", "[0;1]", "0.25", "1 / 0", ""),
                 "insn MOV (R64, R64) latency 0..1 uops 1/0 tp 0.25 @uops_t;");
}

Test(import_uops, writes_microcoded_forms_with_more_fused_than_unfused_uops)
{
    expect_entry(csv("VZEROALL", "", "2.50 / 12.00", "34 / 10", "4*p0156+4*p06+1*p1+1*p5"),
                 "insn VZEROALL uops 34/10 ports 4*p0156+4*p06+1*p1+1*p5 tp 12.00 @uops_t;");
}

Test(import_uops, rejects_malformed_uops)
{
    expect_error(csv("X", "1", "1", "1", ""), "bad uops \"1\": expected FUSED / UNFUSED");
    expect_error(csv("X", "1", "1", "1/1", ""), "bad uops \"1/1\": expected FUSED / UNFUSED");
    expect_error(csv("X", "1", "1", "1 / 1.5", ""),
                 "bad uops \"1 / 1.5\": expected FUSED / UNFUSED");
    expect_error(csv("X", "1", "1", "1 / x", ""), "bad uops \"1 / x\": expected FUSED / UNFUSED");
}

/* ---- ports ---------------------------------------------------------------- */

Test(import_uops, omits_empty_ports)
{
    expect_entry(csv("VZEROUPPER", "", "1.00", "4 / 0", ""),
                 "insn VZEROUPPER uops 4/0 tp 1.00 @uops_t;");
}

Test(import_uops, keeps_multi_term_ports)
{
    expect_entry(csv("CMPXCHG16B (M128)", "", "16.00", "19 / 9", "4*p0156+2*p06+2*p23+1*p4"),
                 "insn CMPXCHG16B (M128) uops 19/9 ports 4*p0156+2*p06+2*p23+1*p4 "
                 "tp 16.00 @uops_t;");
}

Test(import_uops, keeps_alder_lake_letter_ports)
{
    expect_entry(csv("PREFETCHW (M512)", "", "0.33 / 0.33", "1 / 1", "1*p23A"),
                 "insn PREFETCHW (M512) uops 1 ports 1*p23A tp 0.33 @uops_t;");
    expect_entry(csv("ADD (R8l, I8)", "1", "0.20", "1 / 1", "1*p0156B"),
                 "insn ADD (R8l, I8) latency 1 uops 1 ports 1*p0156B tp 0.20 @uops_t;");
}

Test(import_uops, rejects_malformed_ports)
{
    const char *bad[] = { "p0", "1p0", "1*", "1*0", "1*p0+", "1*p0 + 1*p1", "*p0", "1*p-0" };

    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        char want[128];

        snprintf(want, sizeof(want), "bad ports \"%s\": expected COUNT*SET(+COUNT*SET)*", bad[i]);
        expect_error(csv("X", "1", "1", "1 / 1", bad[i]), want);
    }
}

/* ---- instruction forms ---------------------------------------------------- */

Test(import_uops, writes_a_form_without_operands_as_the_bare_mnemonic)
{
    expect_entry(csv("CDQ", "1", "0.50 / 0.50", "1 / 1", "1*p06"),
                 "insn CDQ latency 1 uops 1 ports 1*p06 tp 0.50 @uops_t;");
}

Test(import_uops, drops_spaces_around_a_bare_mnemonic)
{
    expect_entry(csv("  NOP   ", "", "0.25", "1 / 1", ""), "insn NOP uops 1 tp 0.25 @uops_t;");
}

Test(import_uops, normalises_spacing_in_the_operand_list)
{
    expect_entry(csv("ADD( R64 ,R64 )  ", "1", "0.25", "1 / 1", "1*p0156"),
                 "insn ADD (R64, R64) latency 1 uops 1 ports 1*p0156 tp 0.25 @uops_t;");
}

Test(import_uops, rejects_malformed_instruction_forms)
{
    const char *bad[] = { "", "X (R64", "X ()", "X (R64,)", "(R64)", "X Y", "1X (R64)",
                          "X (R64) Y", "X (R-64)", "X (R64))" };

    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        char want[160];

        snprintf(want, sizeof(want),
                 "bad instruction form \"%s\": expected MNEMONIC or MNEMONIC (KIND, ...)", bad[i]);
        expect_error(csv(bad[i], "1", "1", "1 / 1", ""), want);
    }
}

/* ---- CSV ------------------------------------------------------------------ */

Test(import_uops, recognises_the_header_line_quoted_or_not)
{
    struct import_uops_row row;
    char err[256];

    cr_assert_eq(import_uops_parse_line(HEADER "\n", &row, err, 256), IMPORT_UOPS_HEADER);
    cr_assert_eq(import_uops_parse_line("instruction,family,latency,throughput,uops,ports\r\n",
                                        &row, err, 256), IMPORT_UOPS_HEADER);
}

Test(import_uops, rejects_a_line_with_the_wrong_column_count)
{
    expect_error("\"X\",\"BASE\",\"1\",\"1\",\"1 / 1\"\n", "expected 6 fields, found 5");
    expect_error("\"X\",\"BASE\",\"1\",\"1\",\"1 / 1\",\"\",\"\"\n", "expected 6 fields, found 7");
    expect_error("\n", "expected 6 fields, found 1");
}

Test(import_uops, unquotes_doubled_quotes_and_quoted_commas)
{
    struct import_uops_row row;
    char err[256] = "";

    cr_assert_eq(import_uops_parse_line("\"X\",\"A\"\"B,C\",\"1\",\"1\",\"1 / 1\",\"\"", &row,
                                        err, 256), IMPORT_UOPS_ROW, "%s", err);
    cr_assert_str_eq(row.family, "A\"B,C");
    expect_error("\"X \"\"Y\"\"\",\"B\",\"1\",\"1\",\"1 / 1\",\"\"",
                 "bad instruction form \"X \"Y\"\": expected MNEMONIC or MNEMONIC (KIND, ...)");
}

Test(import_uops, accepts_unquoted_fields_and_crlf_line_ends)
{
    expect_entry("NEG (R64),BASE,1,0.25,1 / 1,1*p0156\r\n",
                 "insn NEG (R64) latency 1 uops 1 ports 1*p0156 tp 0.25 @uops_t;");
}

Test(import_uops, rejects_broken_quoting)
{
    expect_error("\"X\",\"BASE\",\"1\",\"1\",\"1 / 1\",\"", "unterminated quoted field 6");
    expect_error("\"X\"Y,\"BASE\",\"1\",\"1\",\"1 / 1\",\"\"",
                 "text after the closing quote of field 1");
    expect_error("X\"Y\",\"BASE\",\"1\",\"1\",\"1 / 1\",\"\"", "quote inside unquoted field 1");
}

Test(import_uops, rejects_an_overlong_field)
{
    char line[1024];

    snprintf(line, sizeof(line), "\"X\",\"%0300d\",\"1\",\"1\",\"1 / 1\",\"\"", 0);
    expect_error(line, "field 2 is longer than 255 bytes");
}

Test(import_uops, formats_like_snprintf_when_the_buffer_is_short)
{
    struct import_uops_row row;
    char err[256], small[8];
    const char *want = "insn CDQ latency 1 uops 1 ports 1*p06 tp 0.50 @uops_t;";

    import_uops_parse_line(csv("CDQ", "1", "0.50", "1 / 1", "1*p06"), &row, err, 256);
    cr_assert_eq(import_uops_format_row(&row, "uops_t", small, sizeof(small)),
                 (int)strlen(want));
    cr_assert_str_eq(small, "insn CD");
}

/* ---- whole files ---------------------------------------------------------- */

Test(import_uops, converts_a_small_table_end_to_end)
{
    const char *text = HEADER "\n"
        "\"ADCX (R32, M32)\",\"ADOX_ADCX\",\"[1;6]\",\"0.50 / 0.56\",\"1 / 2\",\"1*p06+1*p23\"\n"
        "\"ADCX (R32, R32)\",\"ADOX_ADCX\",\"1\",\"0.50 / 0.50\",\"1 / 1\",\"1*p06\"\n"
        "\"VMOVAPD_28 (XMM, XMM)\",\"AVX\",\"[0;1]\",\"0.25\",\"1 / 0\",\"\"\n"
        "\"PREFETCHW (M512)\",\"3DNOW_PREFETCH\",\"\",\"0.50 / 0.50\",\"1 / 1\",\"1*p23\"\n"
        "\"SAR (M64, 1)\",\"BASE\",\"[\xe2\x89\xa4" "3;\xe2\x89\xa4" "10]\",\"1.00 / 1.00\","
        "\"3 / 4\",\"1*p06+1*p23+1*p237+1*p4\"";
    const char *want =
        "// Generated by uops2mdl from t.csv (uops.info, Apache-2.0): do not edit; "
        "regenerate instead.\n"
        "// Columns: latency min..max over operand pairs (an upper bound \"\xe2\x89\xa4\" is "
        "kept as the bound itself),\n"
        "// uops fused/unfused domain, tp = measured inverse throughput in cycles.\n"
        "source uops_t \"uops.info measurements for T\";\n"
        "\n"
        "insn ADCX (R32, M32) latency 1..6 uops 1/2 ports 1*p06+1*p23 tp 0.56 @uops_t;\n"
        "insn ADCX (R32, R32) latency 1 uops 1 ports 1*p06 tp 0.50 @uops_t;\n"
        "insn VMOVAPD_28 (XMM, XMM) latency 0..1 uops 1/0 tp 0.25 @uops_t;\n"
        "insn PREFETCHW (M512) uops 1 ports 1*p23 tp 0.50 @uops_t;\n"
        "insn SAR (M64, 1) latency 3..10 uops 3/4 ports 1*p06+1*p23+1*p237+1*p4 tp 1.00 "
        "@uops_t;\n";
    char err[256] = "";
    long line = -1;
    char *got = convert(text, &line, err, sizeof(err));

    cr_assert_not_null(got, "%s", err);
    cr_assert_str_eq(got, want);
    cr_assert_eq(line, 0);
    free(got);
}

/* A row the decoder cannot produce (Capstone has no VPROLD) stays a comment, so that the table
 * compiles without a warning; one it can (a uops.info variant of ADD) stays an entry. */
Test(import_uops, keeps_a_row_no_instruction_decodes_as_as_a_comment)
{
    const char *text = HEADER "\n"
        "\"VPROLD (ZMM, ZMM, I8)\",\"AVX512EVEX\",\"1\",\"1.00\",\"1 / 1\",\"1*p0\"\n"
        "\"ADD_01 (R64, R64)\",\"BASE\",\"1\",\"0.25\",\"1 / 1\",\"1*p0156\"\n";
    char err[256] = "";
    long line = -1;
    struct formcheck *keys = formcheck_open(MDL_ISA_X86_64, err, sizeof(err));
    cr_assert_not_null(keys, "%s", err);
    char *got = convert_checked(text, keys, &line, err, sizeof(err));
    formcheck_free(keys);

    cr_assert_not_null(got, "%s", err);
    cr_expect(strstr(got, "// A row whose form no instruction decodes as"), "%s", got);
    cr_expect(strstr(got, "\n// never matches: insn VPROLD (ZMM, ZMM, I8) latency 1 uops 1 ports 1*p0 tp 1.00 "
                          "@uops_t;\n"), "%s", got);
    cr_expect(strstr(got, "\ninsn ADD_01 (R64, R64) latency 1 uops 1 ports 1*p0156 tp 0.25 @uops_t;\n"), "%s", got);
    free(got);
}

Test(import_uops, reports_the_line_of_a_malformed_row)
{
    const char *text = HEADER "\n"
        "\"CDQ\",\"BASE\",\"1\",\"0.50\",\"1 / 1\",\"1*p06\"\n"
        "\"CWD\",\"BASE\",\"1\",\"0.5O\",\"1 / 1\",\"1*p06\"\n";
    char err[256] = "";
    long line = 0;

    cr_assert_null(convert(text, &line, err, sizeof(err)));
    cr_assert_eq(line, 3);
    cr_assert_str_eq(err, "bad throughput \"0.5O\": expected X or X / Y");
}

Test(import_uops, reports_the_line_of_a_row_with_the_wrong_column_count)
{
    const char *text = HEADER "\n\"CDQ\",\"BASE\",\"1\",\"0.50\",\"1 / 1\"\n";
    char err[256] = "";
    long line = 0;

    cr_assert_null(convert(text, &line, err, sizeof(err)));
    cr_assert_eq(line, 2);
    cr_assert_str_eq(err, "expected 6 fields, found 5");
}

Test(import_uops, requires_the_header_first_and_only_once)
{
    char err[256] = "";
    long line = 0;

    cr_assert_null(convert("\"CDQ\",\"BASE\",\"1\",\"0.50\",\"1 / 1\",\"\"\n", &line, err, 256));
    cr_assert_eq(line, 1);
    cr_assert_null(convert(HEADER "\n" HEADER "\n", &line, err, 256));
    cr_assert_eq(line, 2);
    cr_assert_str_eq(err, "header repeated");
    cr_assert_null(convert("", &line, err, 256));
    cr_assert_eq(line, 1);
}

Test(import_uops, escapes_the_description_and_checks_the_source_name)
{
    FILE *in = fmemopen((void *)HEADER, strlen(HEADER), "r");
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct import_uops_opts o = { .csv_name = "t.csv", .source = "s", .desc = "a \"b\" \\ c" };
    long line;

    cr_assert_eq(import_uops_convert(in, out, &o, &line, err, 256), 0, "%s", err);
    fclose(out);
    cr_assert(strstr(buf, "\nsource s \"a \\\"b\\\" \\\\ c\";\n\n"), "%s", buf);
    free(buf);
    rewind(in);
    out = open_memstream(&buf, &len);
    o.source = "uops-t";
    cr_assert_eq(import_uops_convert(in, out, &o, &line, err, 256), -1);
    cr_assert_str_eq(err, "source name \"uops-t\" is not an MDL identifier");
    fclose(out);
    free(buf);
    fclose(in);
}

Test(import_uops, writes_entries_longer_than_its_stack_buffer)
{
    const char *text = HEADER "\n\"CDQ\",\"BASE\",\"1\",\"0.50\",\"1 / 1\",\"1*p06\"\n";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    char *buf = NULL, err[256], source[2001];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct import_uops_opts o = { .csv_name = "t.csv", .source = source, .desc = "d" };
    long line;

    memset(source, 's', 2000);
    source[2000] = '\0';
    cr_assert_eq(import_uops_convert(in, out, &o, &line, err, 256), 0, "%s", err);
    fclose(out);
    cr_assert(strstr(buf, "\ninsn CDQ latency 1 uops 1 ports 1*p06 tp 0.50 @sss"), "%s", buf);
    cr_assert(len > 4000 && !strcmp(buf + len - 3, "s;\n"));
    free(buf);
    fclose(in);
}
