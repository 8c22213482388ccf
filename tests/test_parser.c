/* Unit tests of the parser (mdl/parser.y): the syntax tree of each kind of declaration, with
 * spans as byte offsets, the syntax errors reported and the recovery that goes on after them. */
#include <criterion/criterion.h>
#include "fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "parse.h"
#include "source.h"

static struct arena ar;
static struct src_manager sm;
static struct diag dg;
static char *errbuf;
static size_t errlen;
static FILE *errf;

/* What the last parse built, released before the next (a test may parse several times). */
static bool parsed;

static void release(void) { fixture_release(&ar, &sm, &errf, &errbuf, &parsed); }

static struct ast_file *parse_bytes(const char *text, size_t len)
{
    release();
    parsed = true;
    arena_init(&ar);
    src_init(&sm);
    errf = open_memstream(&errbuf, &errlen);
    cr_assert(errf);
    diag_init(&dg, &sm, errf);
    int id = src_add_text(&sm, "t.mdl", text, len);
    struct ast_file *f = parse_file(&ar, &dg, &sm, (uint32_t)id);
    cr_assert(f, "parse_file returned NULL");
    return f;
}

static struct ast_file *parse(const char *text) { return parse_bytes(text, strlen(text)); }

static const char *diags(void)
{
    fflush(errf);
    return errbuf ? errbuf : "";
}

/* Parses TEXT, which must have no error, and returns its only declaration. */
static const struct ast_decl *only_decl(const char *text)
{
    struct ast_file *f = parse(text);
    cr_assert_eq(dg.errors, 0, "unexpected errors:\n%s", diags());
    cr_assert_eq(f->decls.n, 1, "%zu declarations, expected 1", f->decls.n);
    return f->decls.v[0];
}

/* Offset of the first occurrence of NEEDLE in TEXT (for spans). */
static uint32_t at(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    cr_assert(p, "'%s' not in the text", needle);
    return (uint32_t)(p - text);
}

static void expect_span(struct span s, uint32_t lo, uint32_t hi, const char *what)
{
    cr_expect_eq(s.lo, lo, "%s starts at byte %u, expected %u", what, s.lo, lo);
    cr_expect_eq(s.hi, hi, "%s ends at byte %u, expected %u", what, s.hi, hi);
}

static const struct ast_attr *attr(const struct ast_decl *d, size_t i, enum ast_attr_kind kind)
{
    cr_assert_lt(i, d->attrs.n, "declaration has %zu attributes", d->attrs.n);
    cr_expect_eq(d->attrs.v[i].kind, kind, "attribute %zu is '%s', expected '%s'", i,
                 ast_attr_names[d->attrs.v[i].kind], ast_attr_names[kind]);
    return &d->attrs.v[i];
}

/* ---- declarations -------------------------------------------------------------------------- */

Test(parser, parses_a_machine_block_with_its_parameters)
{
    const char *text = "machine skylake {\n    isa x86_64;\n    description \"Intel core\";\n}\n";
    const struct ast_decl *d = only_decl(text);
    cr_expect_eq(d->kind, AST_DECL_MACHINE);
    cr_expect_str_eq(d->name.name, "skylake");
    expect_span(d->name.span, 8, 15, "the machine name");
    expect_span(d->span, 0, (uint32_t)strlen(text) - 1, "the declaration");
    cr_expect_str_eq(d->block.kind.name, "machine");
    cr_expect_null(d->parent.name);
    cr_assert_eq(d->block.params.n, 2);
    const struct ast_param *isa = &d->block.params.v[0], *desc = &d->block.params.v[1];
    cr_expect_str_eq(isa->key.name, "isa");
    cr_expect_eq(isa->value.kind, AST_VAL_IDENT);
    cr_expect_str_eq(isa->value.text, "x86_64");
    expect_span(isa->key.span, at(text, "isa"), at(text, "isa") + 3, "the key");
    expect_span(isa->span, at(text, "isa"), at(text, "x86_64;") + 7, "the parameter");
    cr_expect_eq(desc->value.kind, AST_VAL_STRING);
    cr_expect_str_eq(desc->value.text, "Intel core");
    expect_span(desc->value.span, at(text, "\"Intel"), at(text, "\";") + 1, "the string value");
}

Test(parser, parses_extends_by_name_and_by_path)
{
    const struct ast_decl *d = only_decl("machine icelake extends skylake { }");
    cr_expect_str_eq(d->parent.name, "skylake");
    cr_expect_not(d->parent_is_path);
    expect_span(d->parent.span, 24, 31, "the parent");

    d = only_decl("machine icelake extends \"intel/skylake.mdl\" { }");
    cr_expect_str_eq(d->parent.name, "intel/skylake.mdl");
    cr_expect(d->parent_is_path);
    cr_expect_eq(d->block.params.n, 0);
}

Test(parser, parses_include_and_source)
{
    const char *text = "include \"uops/skylake.mdl\";\nsource intel \"Intel SDM\";";
    struct ast_file *f = parse(text);
    cr_assert_eq(dg.errors, 0, "%s", diags());
    cr_assert_eq(f->decls.n, 2);
    const struct ast_decl *inc = f->decls.v[0], *src = f->decls.v[1];
    cr_expect_eq(inc->kind, AST_DECL_INCLUDE);
    cr_expect_str_eq(inc->text, "uops/skylake.mdl");
    expect_span(inc->text_span, 8, 26, "the included path");
    cr_expect_eq(src->kind, AST_DECL_SOURCE);
    cr_expect_str_eq(src->name.name, "intel");
    cr_expect_str_eq(src->text, "Intel SDM");
    expect_span(src->span, at(text, "source"), (uint32_t)strlen(text), "the source declaration");
}

Test(parser, parses_unit_lists_with_counts_and_sources)
{
    const char *text = "ports p0, p1 @intel;\nunits U_ALU*3, DIV @\"SDM 2.3\";\nasync L1_Rd*2;";
    struct ast_file *f = parse(text);
    cr_assert_eq(dg.errors, 0, "%s", diags());
    cr_assert_eq(f->decls.n, 3);
    const struct ast_decl *ports = f->decls.v[0], *units = f->decls.v[1], *async = f->decls.v[2];

    cr_expect_eq(ports->kind, AST_DECL_PORTS);
    cr_assert_eq(ports->units.n, 2);
    cr_expect_str_eq(ports->units.v[0].name.name, "p0");
    cr_expect_eq(ports->units.v[0].count, 1);
    cr_expect_eq(ports->units.v[0].src.kind, AST_SRC_NONE);
    cr_expect_eq(ports->units.v[1].src.kind, AST_SRC_NAME);
    cr_expect_str_eq(ports->units.v[1].src.text, "intel");
    expect_span(ports->units.v[1].src.span, at(text, "@intel"), at(text, "@intel") + 6, "the annotation");

    cr_expect_eq(units->kind, AST_DECL_UNITS);
    cr_assert_eq(units->units.n, 2);
    cr_expect_str_eq(units->units.v[0].name.name, "U_ALU");
    cr_expect_eq(units->units.v[0].count, 3);
    expect_span(units->units.v[0].count_span, at(text, "*3"), at(text, "*3") + 2, "the count");
    cr_expect_eq(units->units.v[1].count, 1);
    cr_expect_eq(units->units.v[1].src.kind, AST_SRC_TEXT);
    cr_expect_str_eq(units->units.v[1].src.text, "SDM 2.3");

    cr_expect_eq(async->kind, AST_DECL_ASYNC);
    cr_expect_eq(async->units.v[0].count, 2);
}

Test(parser, parses_a_maximum_group)
{
    const char *text = "maximum 4 from p0, p1, p5;";
    const struct ast_decl *d = only_decl(text);
    cr_expect_eq(d->kind, AST_DECL_MAXIMUM);
    cr_expect_eq(d->maximum, 4);
    expect_span(d->maximum_span, 8, 9, "the limit");
    cr_assert_eq(d->members.n, 3);
    cr_expect_str_eq(d->members.v[2].name, "p5");
    expect_span(d->members.v[2].span, 23, 25, "the last member");
}

Test(parser, builds_canonical_keys_of_instruction_forms)
{
    const struct ast_decl *d = only_decl("insn ADD (R64,M64) latency 1;");
    cr_expect_str_eq(d->text, "ADD (R64, M64)");
    cr_expect_str_eq(d->name.name, "ADD");
    cr_expect(d->form.has_kinds);
    cr_expect_eq(d->form.kinds.n, 2);
    expect_span(d->form.span, 5, 18, "the form");

    d = only_decl("insn NOP uops 1;");
    cr_expect_str_eq(d->text, "NOP");
    cr_expect_not(d->form.has_kinds);

    d = only_decl("insn CPUID () uops 1;");
    cr_expect_str_eq(d->text, "CPUID ()");
    cr_expect(d->form.has_kinds);
    cr_expect_eq(d->form.kinds.n, 0);

    d = only_decl("insn SHL (R64, 1, *) uops 1;");
    cr_expect_str_eq(d->text, "SHL (R64, 1, *)");
}

Test(parser, parses_every_kind_of_instruction_attribute)
{
    const char *text = "insn ADD (R64, M64) latency 1..6 uops 1/2 ports 1*p0156+2*p23 tp 0.50 class int_alu @uops_info;";
    const struct ast_decl *d = only_decl(text);
    cr_expect_eq(d->kind, AST_DECL_INSN);
    cr_assert_eq(d->attrs.n, 5);

    const struct ast_attr *a = attr(d, 0, AST_ATTR_LATENCY);
    cr_expect_eq(a->num.kind, AST_VAL_RANGE);
    cr_expect_float_eq(a->num.lo, 1.0, 1e-9);
    cr_expect_float_eq(a->num.hi, 6.0, 1e-9);
    cr_expect_str_eq(a->num.text, "1..6");
    cr_expect(a->num.integral);

    a = attr(d, 1, AST_ATTR_UOPS);
    cr_expect_eq(a->fused, 1);
    cr_expect_eq(a->unfused, 2);
    expect_span(a->num.span, at(text, "1/2"), at(text, "1/2") + 3, "the uop counts");

    a = attr(d, 2, AST_ATTR_PORTS);
    cr_expect_not(a->no_ports);
    cr_assert_eq(a->terms.n, 2);
    cr_expect_eq(a->terms.v[0].count, 1);
    cr_expect_str_eq(a->terms.v[0].set.name, "p0156");
    cr_expect_eq(a->terms.v[1].count, 2);
    cr_expect_str_eq(a->terms.v[1].set.name, "p23");
    expect_span(a->terms.v[1].span, at(text, "2*p23"), at(text, "2*p23") + 5, "the second term");

    a = attr(d, 3, AST_ATTR_TP);
    cr_expect_float_eq(a->num.lo, 0.5, 1e-9);
    cr_expect_not(a->num.integral);

    a = attr(d, 4, AST_ATTR_CLASS);
    cr_expect_str_eq(a->cls.name, "int_alu");
    cr_expect_eq(a->src.kind, AST_SRC_NAME, "the annotation belongs to the attribute before it");
    cr_expect_str_eq(a->src.text, "uops_info");
    cr_expect_eq(d->attrs.v[3].src.kind, AST_SRC_NONE);
}

Test(parser, gives_an_attribute_the_span_from_its_keyword_to_its_annotation)
{
    const char *text = "insn A latency 3 @x tp 0.5;";
    const struct ast_decl *d = only_decl(text);
    expect_span(attr(d, 0, AST_ATTR_LATENCY)->span, 7, 19, "'latency 3 @x'");
    expect_span(attr(d, 1, AST_ATTR_TP)->span, 20, 26, "'tp 0.5'");
}

Test(parser, parses_ports_none_and_asynchronous_uses)
{
    const struct ast_decl *d = only_decl("insn ST ports none async L1_Wr(2), FB;");
    cr_expect(attr(d, 0, AST_ATTR_PORTS)->no_ports);
    const struct ast_attr *a = attr(d, 1, AST_ATTR_ASYNC);
    cr_assert_eq(a->async.n, 2);
    cr_expect_str_eq(a->async.v[0].name.name, "L1_Wr");
    cr_expect_eq(a->async.v[0].quantity, 2);
    cr_expect_str_eq(a->async.v[1].name.name, "FB");
    cr_expect_eq(a->async.v[1].quantity, 1, "the quantity defaults to 1");
}

Test(parser, parses_template_alternatives_cycles_and_uses)
{
    const char *text = "insn V template = p2+U[0,1](2)*3, NOTHING*2 | p3+U[1], NOTHING*2;";
    const struct ast_decl *d = only_decl(text);
    const struct ast_attr *a = attr(d, 0, AST_ATTR_TEMPLATE);
    cr_assert_eq(a->alts.n, 2);
    const ast_alt *alt = &a->alts.v[0];
    cr_assert_eq(alt->n, 2, "two cycles");
    cr_assert_eq(alt->v[0].n, 2, "two uses in the first cycle");

    const struct ast_use *p2 = &alt->v[0].v[0], *u = &alt->v[0].v[1], *nothing = &alt->v[1].v[0];
    cr_expect_str_eq(p2->unit.name, "p2");
    cr_expect_not(p2->has_instances);
    cr_expect_eq(p2->quantity, 1);
    cr_expect_eq(p2->cycles, 1);
    cr_expect_str_eq(u->unit.name, "U");
    cr_expect(u->has_instances);
    cr_assert_eq(u->instances.n, 2);
    cr_expect_eq(u->instances.v[0], 0);
    cr_expect_eq(u->instances.v[1], 1);
    cr_expect_eq(u->quantity, 2);
    cr_expect_eq(u->cycles, 3);
    expect_span(u->span, at(text, "U[0,1]"), at(text, "*3,") + 2, "the use");
    cr_expect(nothing->nothing);
    cr_expect_eq(nothing->cycles, 2);

    cr_expect_str_eq(a->alts.v[1].v[0].v[0].unit.name, "p3");
    cr_expect_eq(a->alts.v[1].v[0].v[1].instances.v[0], 1);
}

Test(parser, keeps_zero_quantities_and_repeats_apart_from_absent_ones)
{
    const struct ast_decl *d = only_decl("insn V template = U(0)*0;");
    const struct ast_use *u = &attr(d, 0, AST_ATTR_TEMPLATE)->alts.v[0].v[0].v[0];
    cr_expect_lt(u->quantity, 1, "(0) must not become the default quantity 1");
    cr_expect_lt(u->cycles, 1, "*0 must not become the default repeat 1");
}

Test(parser, keeps_a_zero_unit_count_apart_from_an_absent_one)
{
    const struct ast_decl *d = only_decl("units DIV*0, ALU;");
    cr_expect_eq(d->units.v[0].count, 0, "'DIV*0' declares no instance, not the default one");
    cr_expect_eq(d->units.v[1].count, 1);
}

Test(parser, parses_a_replacement_with_nop_and_its_data_flow)
{
    const struct ast_decl *d = only_decl("replace MOV (R64, R64) $d, $s with nop $s -> $d;");
    cr_expect_eq(d->kind, AST_DECL_REPLACE);
    const struct ast_replace *r = d->replace;
    cr_expect_not(r->pair);
    cr_expect(r->to_nop);
    cr_assert_eq(r->first.sel.names.n, 1);
    cr_expect_str_eq(r->first.sel.names.v[0].name, "MOV");
    cr_expect(r->first.sel.has_kinds);
    cr_expect_eq(r->first.sel.kinds.n, 2);
    cr_assert_eq(r->first.operands.n, 2);
    cr_expect_str_eq(r->first.operands.v[0].name, "$d");
    cr_expect_str_eq(r->first.operands.v[1].name, "$s");
    cr_assert_eq(r->reads.n, 1);
    cr_expect_str_eq(r->reads.v[0].name, "$s");
    cr_assert_eq(r->writes.n, 1);
    cr_expect_str_eq(r->writes.v[0].name, "$d");
}

Test(parser, parses_a_fused_pair_with_mnemonic_sets)
{
    const struct ast_decl *d = only_decl("replace {CMP, TEST} (R64, R64) ++ {JZ, JNZ} (Rel32) with JZ (Rel32);");
    const struct ast_replace *r = d->replace;
    cr_expect(r->pair);
    cr_expect_not(r->to_nop);
    cr_expect(r->first.sel.is_set);
    cr_assert_eq(r->first.sel.names.n, 2);
    cr_expect_str_eq(r->first.sel.names.v[1].name, "TEST");
    cr_expect_eq(r->first.operands.n, 0);
    cr_assert_eq(r->second.sel.names.n, 2);
    cr_expect_str_eq(r->second.sel.names.v[1].name, "JNZ");
    cr_expect_str_eq(r->target.mnemonic.name, "JZ");
    cr_expect(r->target.has_kinds);
    cr_expect_str_eq(r->target.kinds.v[0].name, "Rel32");
}

Test(parser, parses_relative_absolute_and_memory_bypasses)
{
    struct ast_file *f = parse("bypass latency +1 for vec_alu -> int_alu;\n"
                               "bypass latency 5 for store -> memory load;\n"
                               "bypass latency -2 for ADD (R64, R64) -> {SUB, CMP};\n");
    cr_assert_eq(dg.errors, 0, "%s", diags());
    cr_assert_eq(f->decls.n, 3);
    const struct ast_bypass *b = f->decls.v[0]->bypass;
    cr_expect_eq(b->sign, 1);
    cr_expect_float_eq(b->latency.lo, 1.0, 1e-9);
    cr_expect_str_eq(b->from.names.v[0].name, "vec_alu");
    cr_expect_str_eq(b->to.names.v[0].name, "int_alu");
    cr_expect_not(b->memory);

    b = f->decls.v[1]->bypass;
    cr_expect_eq(b->sign, 0);
    cr_expect(b->memory);
    cr_expect_str_eq(b->to.names.v[0].name, "load");

    b = f->decls.v[2]->bypass;
    cr_expect_eq(b->sign, -1);
    cr_expect_float_eq(b->latency.lo, 2.0, 1e-9);
    cr_expect(b->from.has_kinds);
    cr_expect(b->to.is_set);
    cr_expect_eq(b->to.names.n, 2);
}

Test(parser, parses_values_with_units_per_units_and_sources)
{
    const char *text = "cache L1D { size 32 KiB; bandwidth 64 B/cycle @intel; latency 4; }";
    const struct ast_decl *d = only_decl(text);
    cr_expect_eq(d->kind, AST_DECL_BLOCK);
    cr_expect_str_eq(d->block.kind.name, "cache");
    cr_expect_str_eq(d->block.name.name, "L1D");
    cr_assert_eq(d->block.params.n, 3);
    const struct ast_value *size = &d->block.params.v[0].value, *bw = &d->block.params.v[1].value;
    cr_expect_float_eq(size->lo, 32.0, 1e-9);
    cr_expect_str_eq(size->unit.name, "KiB");
    cr_expect_null(size->per.name);
    expect_span(size->span, at(text, "32 KiB"), at(text, "32 KiB") + 6, "'32 KiB'");
    cr_expect_str_eq(bw->unit.name, "B");
    cr_expect_str_eq(bw->per.name, "cycle");
    cr_expect_eq(bw->src.kind, AST_SRC_NAME);
    cr_expect_str_eq(bw->src.text, "intel");
    cr_expect_str_eq(d->block.params.v[2].key.name, "latency", "the keyword 'latency' is also a key");
}

Test(parser, parses_a_range_after_a_value_with_its_unit_and_reason_before_the_annotation)
{
    const char *text = "memory { store_forward_fail 16 cycles range 11..20 \"Haswell only\" @sdm;"
                       " bandwidth 8 B/cycle range 6..9 B/cycle; latency 250; }";
    const struct ast_decl *d = only_decl(text);
    cr_assert_eq(d->block.params.n, 3);
    const struct ast_value *sff = &d->block.params.v[0].value, *bw = &d->block.params.v[1].value;
    cr_expect_float_eq(sff->lo, 16.0, 1e-9);
    expect_span(sff->span, at(text, "16 cycles"), at(text, "16 cycles") + 9, "the value, without its range");
    const struct ast_value *r = sff->range;
    cr_assert_not_null(r);
    cr_expect_eq(r->kind, AST_VAL_RANGE);
    cr_expect_float_eq(r->lo, 11.0, 1e-9);
    cr_expect_float_eq(r->hi, 20.0, 1e-9);
    cr_expect_str_eq(r->text, "11..20");
    cr_expect_null(r->unit.name, "a range without a unit is in its value's");
    expect_span(r->span, at(text, "range 11"), at(text, " \"Haswell"), "the range, its reason apart");
    cr_expect_eq(r->src.kind, AST_SRC_TEXT);
    cr_expect_str_eq(r->src.text, "Haswell only");
    cr_expect_eq(sff->src.kind, AST_SRC_NAME, "the annotation is the value's, after the range");
    cr_expect_str_eq(sff->src.text, "sdm");
    cr_assert_not_null(bw->range);
    cr_expect_str_eq(bw->range->unit.name, "B");
    cr_expect_str_eq(bw->range->per.name, "cycle");
    cr_expect_eq(bw->range->src.kind, AST_SRC_NONE);
    cr_expect_null(d->block.params.v[2].value.range, "a value without a range is known");
}

Test(parser, parses_a_range_on_an_attribute_and_on_a_bypass_latency)
{
    const char *text = "insn IMUL (R64, R64) latency 3 range 3..4 \"other forms\" uops 1 @uops_info;";
    const struct ast_decl *d = only_decl(text);
    cr_assert_eq(d->attrs.n, 2);
    const struct ast_attr *lat = attr(d, 0, AST_ATTR_LATENCY);
    cr_assert_not_null(lat->range);
    cr_expect_float_eq(lat->range->lo, 3.0, 1e-9);
    cr_expect_float_eq(lat->range->hi, 4.0, 1e-9);
    cr_expect_str_eq(lat->range->src.text, "other forms");
    expect_span(lat->span, at(text, "latency"), at(text, " uops"), "the attribute, range included");
    cr_expect_null(attr(d, 1, AST_ATTR_UOPS)->range);

    d = only_decl("bypass latency 5 range 4..5 for store -> memory load @\"estimate\";");
    cr_assert_not_null(d->bypass->latency.range);
    cr_expect_float_eq(d->bypass->latency.range->lo, 4.0, 1e-9);
    cr_expect(d->bypass->memory);
    cr_expect_eq(d->src.kind, AST_SRC_TEXT);
}

Test(parser, reads_range_as_a_keyword_and_wants_both_bounds)
{
    struct ast_file *f = parse("memory { latency 250 cycles range 240 @\"x\"; }\nunits range;\n");
    (void)f;
    cr_expect_eq(dg.errors, 2, "%s", diags());
    cr_expect(strstr(diags(), "t.mdl:1:39: error: expected '..', found '@'"), "%s", diags());
    cr_expect(strstr(diags(), "t.mdl:2:7: error: expected identifier, found 'range'"), "%s", diags());
}

Test(parser, parses_memory_as_a_block_kind_and_nop_as_a_class_name)
{
    struct ast_file *f = parse("memory { latency 200 cycles; }\nclass nop uops 1 ports none;");
    cr_assert_eq(dg.errors, 0, "%s", diags());
    cr_assert_eq(f->decls.n, 2);
    cr_expect_str_eq(f->decls.v[0]->block.kind.name, "memory");
    cr_expect_str_eq(f->decls.v[0]->block.params.v[0].value.unit.name, "cycles");
    cr_expect_eq(f->decls.v[1]->kind, AST_DECL_CLASS);
    cr_expect_str_eq(f->decls.v[1]->name.name, "nop");
}

Test(parser, parses_an_empty_file_to_no_declarations)
{
    struct ast_file *f = parse("  // nothing here\n");
    cr_expect_eq(dg.errors, 0);
    cr_expect_eq(f->decls.n, 0);
}

/* ---- syntax errors and recovery --------------------------------------------------------------- */

Test(parser, recovers_at_the_next_semicolon_and_keeps_the_next_declaration)
{
    struct ast_file *f = parse("insn A latency ;\ninsn B latency 2;\n");
    cr_expect_eq(dg.errors, 1, "%s", diags());
    cr_assert_eq(f->decls.n, 1);
    cr_expect_str_eq(f->decls.v[0]->name.name, "B");
    cr_expect_float_eq(f->decls.v[0]->attrs.v[0].num.lo, 2.0, 1e-9);
    cr_expect_str_eq(diags(), "t.mdl:1:16: error: expected integer or number, found ';'\n"
                              "insn A latency ;\n"
                              "               ^\n");
}

Test(parser, recovers_inside_a_block_and_keeps_its_other_parameters)
{
    struct ast_file *f = parse("window { rob ; scheduler 97; }\nports p0;");
    cr_expect_eq(dg.errors, 1, "%s", diags());
    cr_assert_eq(f->decls.n, 2);
    const struct ast_decl *w = f->decls.v[0];
    cr_expect_eq(w->kind, AST_DECL_BLOCK);
    cr_assert_eq(w->block.params.n, 1);
    cr_expect_str_eq(w->block.params.v[0].key.name, "scheduler");
    cr_expect_eq(f->decls.v[1]->kind, AST_DECL_PORTS);
}

Test(parser, reports_each_broken_declaration_in_one_run)
{
    struct ast_file *f = parse("ports ;\nunits U*;\ninsn A latency 1 ports p0;\nasync L1;\n");
    cr_expect_eq(dg.errors, 3, "%s", diags());
    cr_assert_eq(f->decls.n, 1);
    cr_expect_eq(f->decls.v[0]->kind, AST_DECL_ASYNC);
    cr_expect(strstr(diags(), "t.mdl:1:7: "), "%s", diags());
    cr_expect(strstr(diags(), "t.mdl:2:9: "), "%s", diags());
    cr_expect(strstr(diags(), "t.mdl:3:24: "), "%s", diags());
}

Test(parser, points_a_missing_semicolon_at_the_end_of_the_previous_line)
{
    parse("ports p0\nunits U;\n");
    cr_expect_str_eq(diags(), "t.mdl:1:7: error: expected ';' or ',' after 'p0'\n"
                              "ports p0\n"
                              "      ^~\n");
}

Test(parser, points_a_missing_semicolon_after_an_instruction_at_its_line)
{
    parse("insn A latency 1 ports 1*p0\ninsn B latency 1;\n");
    cr_expect_eq(dg.errors, 1, "%s", diags());
    cr_expect(strstr(diags(), "t.mdl:1:26: error: expected ';'"),
              "the missing ';' is at the end of line 1:\n%s", diags());
}

Test(parser, names_the_token_it_found_instead)
{
    parse("maximum x from p0;");
    cr_expect_str_eq(diags(), "t.mdl:1:9: error: expected integer, found identifier 'x'\n"
                              "maximum x from p0;\n"
                              "        ^\n");
}

Test(parser, reports_end_of_file_inside_a_declaration)
{
    parse("insn A latency");
    cr_expect_eq(dg.errors, 1);
    cr_expect(strstr(diags(), "found end of file"), "%s", diags());
}

Test(parser, stops_after_twenty_errors_with_too_many_errors)
{
    char text[4000] = "";
    for (int i = 0; i < 100; i++)
        strcat(text, "ports ;\n");
    struct ast_file *f = parse(text);
    cr_expect_eq(dg.errors, 20);
    cr_expect(dg.too_many);
    cr_expect(strstr(diags(), "mdlc: fatal: too many errors (20), stopping\n"), "%s", diags());
    cr_expect_eq(f->decls.n, 0);
}

Test(parser, survives_ten_thousand_open_braces)
{
    static char text[10002];
    memset(text, '{', 10000);
    text[10000] = '\n';
    struct ast_file *f = parse_bytes(text, 10001);
    cr_expect_geq(dg.errors, 1);
    cr_expect_eq(f->decls.n, 0);
}

Test(parser, survives_ten_thousand_open_braces_inside_a_block)
{
    static char text[10020] = "frontend ";
    memset(text + 9, '{', 10000);
    struct ast_file *f = parse_bytes(text, 10009);
    cr_expect_geq(dg.errors, 1);
    cr_expect_leq(dg.errors, 20);
    (void)f;
}

/* An entry with no attributes takes an empty list: nothing is copied from the list of attributes
 * read, which no entry before it has grown (the fuzzer's memcpy from NULL, under UBSan). */
Test(parser, parses_an_insn_line_without_attributes_as_the_first_entry)
{
    const struct ast_decl *d = only_decl("insn A0;\n");
    cr_expect_eq(d->attrs.n, 0);
}
