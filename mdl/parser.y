/* Grammar of the machine description language (spec.md is its prose). A file is a flat list
 * of declarations; a syntax error skips to the next ';' or '}' so one run reports many. */
%define api.pure full
%define parse.error custom
%define api.location.type {struct span}
%locations
%expect 0
%param {void *scanner}
%parse-param {struct parse_ctx *px}

%code requires {
#include "ast.h"
#include "diag.h"
struct parse_ctx {
    struct arena *ar;
    struct diag *diag;
    const struct src_file *src;
    struct ast_file *out;
    ast_attrs attrs;            /* the attributes of the entry being read, reused by the next */
};
}

%code provides {
int mdl_lex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);
}

%code {
#include <stdlib.h>
#include <string.h>
#include "lexer.h"
#include "parse.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N) do { \
        if (N) { \
            (Cur).file = YYRHSLOC(Rhs, 1).file; \
            (Cur).lo = YYRHSLOC(Rhs, 1).lo; \
            (Cur).hi = YYRHSLOC(Rhs, N).hi; \
        } else { \
            (Cur).file = YYRHSLOC(Rhs, 0).file; \
            (Cur).lo = (Cur).hi = YYRHSLOC(Rhs, 0).hi; \
        } \
    } while (0)

#define NEW(T) ((T *)arena_alloc(px->ar, sizeof(T)))
#define PUSH(vec, item) vec_push(px->ar, (vec), (item))

/* Stops the parse after too many errors by feeding it an end of file. */
struct lex_ctx *yyget_extra(void *scanner);

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner)
{
    struct lex_ctx *cx = yyget_extra(scanner);
    int tok = cx->diag->too_many ? 0 : mdl_lex(lval, lloc, scanner);
    if (tok == 0)
        *lloc = (struct span){ cx->file, cx->pos, cx->pos };
    cx->prev = cx->cur;
    cx->cur = *lloc;
    return tok;
}

/* Only bison's own failures (stack exhausted) come here; syntax errors go through
 * yyreport_syntax_error. */
static void yyerror(YYLTYPE *loc, void *scanner, struct parse_ctx *px, const char *msg)
{
    (void)scanner;
    diag_error(px->diag, *loc, "%s", msg);
}

static struct ast_ident mkident(const char *name, struct span at)
{
    return (struct ast_ident){ name, at };
}

static struct ast_decl *mkdecl(struct parse_ctx *px, enum ast_decl_kind kind, struct span at)
{
    struct ast_decl *d = NEW(struct ast_decl);
    d->kind = kind;
    d->span = at;
    return d;
}

/* The number in V, which the grammar reads as a value (a parameter's may have a unit). */
static struct ast_number number_of(struct ast_value v)
{
    return (struct ast_number){ v.kind, v.integral, v.span, v.lo, v.hi, v.text };
}

/* The attributes read into px->attrs, in storage of their own number: a list grown in the
 * arena one attribute at a time would leave its shorter copies behind, and most of a large
 * description is insn lines of four attributes. */
static ast_attrs take_attrs(struct parse_ctx *px)
{
    ast_attrs a = { arena_alloc(px->ar, px->attrs.n * sizeof *a.v), px->attrs.n, px->attrs.n };
    if (px->attrs.n)                /* none read (an entry without attributes): no list to copy from */
        memcpy(a.v, px->attrs.v, px->attrs.n * sizeof *a.v);
    return a;
}

/* `range LO..HI` at AT: a range value of its own, its text the bounds as written. */
static struct ast_value *mkrange(struct parse_ctx *px, struct ast_value lo, struct ast_value hi, struct span at)
{
    struct ast_value *r = NEW(struct ast_value);
    *r = (struct ast_value){ .kind = AST_VAL_RANGE, .integral = lo.integral && hi.integral, .span = at,
                             .lo = lo.lo, .hi = hi.lo, .text = arena_printf(px->ar, "%s..%s", lo.text, hi.text) };
    return r;
}

static struct ast_value mknumber(const char *text, double v, struct span at)
{
    struct ast_value val = { .kind = AST_VAL_NUMBER, .lo = v, .hi = v, .text = text, .span = at };
    val.integral = strchr(text, '.') == NULL;
    return val;
}
}

%union {
    char *str;
    double num;
    struct ast_decl *decl;
    struct ast_ident ident;
    struct ast_value value;             /* by value: a node per number would outlive its copy */
    struct ast_value *range;            /* `range LO..HI`: rare, so a node of its own */
    struct ast_src src;
    struct ast_form form;
    struct ast_attr attr;
    ast_idents *idents;
    struct ast_unit unit;
    struct ast_block *block;
    struct ast_param *param;
    struct ast_term term;
    struct ast_use *use;
    ast_cycle *cycle;
    ast_alt *alt;
    struct ast_selector *sel;
    struct ast_pattern *pattern;
    struct ast_replace *replace;
    struct ast_bypass *bypass;
    struct ast_decl *units;
    ast_longs *longs;
    long ival;
}

%token <str> IDENT "identifier" VAR "variable" STRING "string"
%token <str> INTEGER "integer" DECIMAL "number"
%token MACHINE "'machine'" EXTENDS "'extends'" INCLUDE "'include'" SOURCE "'source'"
%token PORTS "'ports'" UNITS "'units'" ASYNC "'async'" MAXIMUM "'maximum'" FROM "'from'"
%token INSN "'insn'" CLASS "'class'" REPLACE "'replace'" WITH "'with'" NOP "'nop'"
%token BYPASS "'bypass'" LATENCY "'latency'" FOR "'for'" MEMORY "'memory'"
%token TEMPLATE "'template'" UOPS "'uops'" TP "'tp'" NOTHING "'NOTHING'" NONE "'none'"
%token DEPENDS "'depends'" ON "'on'" DECODER "'decoder'" RANGE "'range'"
%token ARROW "'->'" DOTDOT "'..'" PLUSPLUS "'++'"

%type <decl> decl machine_decl block_decl units_decl
%type <ident> ident class_name block_kind param_key sel_name
%type <value> number number_or_range value
%type <range> range_opt range_bounds
%type <src> src_opt
%type <form> form
%type <idents> kinds kind_list ident_list operands var_list
%type <ident> kind operand
%type <attr> attr attr_body async_list
%type <unit> unit
%type <block> params block_body
%type <param> param
%type <term> term
%type <attr> mapping alts
%type <use> use
%type <cycle> cycle
%type <alt> alt
%type <sel> selector
%type <pattern> pattern
%type <ival> count_opt quantity_opt repeat_opt
%type <replace> replacement flow
%type <bypass> bypass_latency
%type <units> unit_list
%type <longs> instances_opt int_list

%%

file
    : %empty
    | file decl             { if ($2) PUSH(&px->out->decls, $2); }
    ;

decl
    : machine_decl
    | block_decl
    | units_decl
    | INCLUDE STRING ';'
        { $$ = mkdecl(px, AST_DECL_INCLUDE, @$); $$->text = $2; $$->text_span = @2; }
    | SOURCE ident STRING ';'
        { $$ = mkdecl(px, AST_DECL_SOURCE, @$); $$->name = $2; $$->text = $3; $$->text_span = @3; }
    | MAXIMUM INTEGER FROM ident_list src_opt ';'
        { $$ = mkdecl(px, AST_DECL_MAXIMUM, @$); $$->maximum = (long)atol($2);
          $$->maximum_span = @2; $$->members = *$4; $$->src = $5; }
    | INSN form attrs ';'
        { $$ = mkdecl(px, AST_DECL_INSN, @$); $$->form = $2; $$->name = $2.mnemonic; $$->attrs = take_attrs(px);
          $$->text = ast_form_key(px->ar, &$2); }
    | CLASS class_name attrs ';'
        { $$ = mkdecl(px, AST_DECL_CLASS, @$); $$->name = $2; $$->attrs = take_attrs(px); }
    | REPLACE pattern WITH replacement ';'
        { $$ = mkdecl(px, AST_DECL_REPLACE, @$); $$->replace = $4; $$->replace->first = *$2; }
    | REPLACE pattern PLUSPLUS pattern WITH replacement ';'
        { $$ = mkdecl(px, AST_DECL_REPLACE, @$); $$->replace = $6;
          $$->replace->first = *$2; $$->replace->second = *$4; $$->replace->pair = true; }
    | BYPASS LATENCY bypass_latency range_opt FOR selector ARROW selector src_opt ';'
        { $$ = mkdecl(px, AST_DECL_BYPASS, @$); $$->bypass = $3; $$->bypass->latency.range = $4;
          $$->bypass->from = *$6; $$->bypass->to = *$8; $$->src = $9; }
    | BYPASS LATENCY bypass_latency range_opt FOR selector ARROW MEMORY selector src_opt ';'
        { $$ = mkdecl(px, AST_DECL_BYPASS, @$); $$->bypass = $3; $$->bypass->latency.range = $4;
          $$->bypass->from = *$6; $$->bypass->to = *$9; $$->bypass->memory = true; $$->src = $10; }
    | DEPENDS selector ON ident_list src_opt ';'
        { $$ = mkdecl(px, AST_DECL_DEPENDS, @$); $$->depends.sel = *$2; $$->depends.targets = *$4; $$->src = $5; }
    | DECODER ident selector src_opt ';'
        { $$ = mkdecl(px, AST_DECL_DECODER, @$); $$->decoder.kind = $2; $$->decoder.sel = *$3; $$->src = $4; }
    /* A declaration boundary ends recovery; inside a block the parser stays quiet for a few
     * tokens instead, so a missing '}' is not reported again at every later ';'. */
    | error ';'             { $$ = NULL; yyerrok; }
    | error '}'             { $$ = NULL; yyerrok; }
    ;

machine_decl
    : MACHINE error block_body
        { $$ = NULL; }
    | MACHINE ident block_body
        { $$ = mkdecl(px, AST_DECL_MACHINE, @$); $$->name = $2; $$->block = *$3;
          $$->block.kind = mkident("machine", @1); $$->block.name = $2; }
    | MACHINE ident EXTENDS ident block_body
        { $$ = mkdecl(px, AST_DECL_MACHINE, @$); $$->name = $2; $$->parent = $4; $$->block = *$5;
          $$->block.kind = mkident("machine", @1); $$->block.name = $2; }
    | MACHINE ident EXTENDS STRING block_body
        { $$ = mkdecl(px, AST_DECL_MACHINE, @$); $$->name = $2; $$->parent = mkident($4, @4);
          $$->parent_is_path = true; $$->block = *$5;
          $$->block.kind = mkident("machine", @1); $$->block.name = $2; }
    ;

block_decl
    : block_kind block_body
        { $$ = mkdecl(px, AST_DECL_BLOCK, @$); $$->block = *$2; $$->block.kind = $1; $$->name = $1; }
    | block_kind ident block_body
        { $$ = mkdecl(px, AST_DECL_BLOCK, @$); $$->block = *$3; $$->block.kind = $1;
          $$->block.name = $2; $$->name = $2; }
    ;

block_kind
    : IDENT                 { $$ = mkident($1, @1); }
    | MEMORY                { $$ = mkident("memory", @1); }
    ;

block_body
    : '{' params '}'        { $$ = $2; }
    | '{' params error '}'  { $$ = $2; }
    ;

params
    : %empty                { $$ = NEW(struct ast_block); }
    | params param          { $$ = $1; PUSH(&$$->params, *$2); }
    | params error ';'      { $$ = $1; }
    ;

param
    : param_key value range_opt src_opt ';'
        { $$ = NEW(struct ast_param); $$->key = $1; $$->value = $2; $$->value.range = $3; $$->value.src = $4;
          $$->span = @$; }
    ;

param_key
    : IDENT                 { $$ = mkident($1, @1); }
    | LATENCY               { $$ = mkident("latency", @1); }
    ;

value
    : number_or_range
    | number_or_range IDENT
        { $$ = $1; $$.unit = mkident($2, @2); $$.span = @$; }
    | number_or_range IDENT '/' IDENT
        { $$ = $1; $$.unit = mkident($2, @2); $$.per = mkident($4, @4); $$.span = @$; }
    | IDENT                 { $$ = (struct ast_value){ .kind = AST_VAL_IDENT, .text = $1, .span = @$ }; }
    | NONE                  { $$ = (struct ast_value){ .kind = AST_VAL_IDENT, .text = "none", .span = @$ }; }
    | STRING                { $$ = (struct ast_value){ .kind = AST_VAL_STRING, .text = $1, .span = @$ }; }
    ;

number
    : INTEGER               { $$ = mknumber($1, atof($1), @1); }
    | DECIMAL               { $$ = mknumber($1, atof($1), @1); }
    ;

number_or_range
    : number
    | number DOTDOT number
        { $$ = $1; $$.kind = AST_VAL_RANGE; $$.hi = $3.lo;
          $$.integral = $1.integral && $3.integral;
          $$.text = arena_printf(px->ar, "%s..%s", $1.text, $3.text); $$.span = @$; }
    ;

/* The plausible range of an uncertain value, in the value's unit unless it names its own, and
 * why it is uncertain (else the value's annotation says why). */
range_opt
    : %empty                { $$ = NULL; }
    | range_bounds
    | range_bounds STRING   { $$ = $1; $$->src = (struct ast_src){ AST_SRC_TEXT, @2, $2 }; }
    ;

range_bounds
    : RANGE number DOTDOT number
        { $$ = mkrange(px, $2, $4, @$); }
    | RANGE number DOTDOT number IDENT
        { $$ = mkrange(px, $2, $4, @$); $$->unit = mkident($5, @5); }
    | RANGE number DOTDOT number IDENT '/' IDENT
        { $$ = mkrange(px, $2, $4, @$); $$->unit = mkident($5, @5); $$->per = mkident($7, @7); }
    ;

src_opt
    : %empty                { $$ = (struct ast_src){ AST_SRC_NONE, @$, NULL }; }
    | '@' IDENT             { $$ = (struct ast_src){ AST_SRC_NAME, @$, $2 }; }
    | '@' STRING            { $$ = (struct ast_src){ AST_SRC_TEXT, @$, $2 }; }
    ;

ident
    : IDENT                 { $$ = mkident($1, @1); }
    ;

ident_list
    : ident                 { $$ = NEW(ast_idents); PUSH($$, $1); }
    | ident_list ',' ident  { $$ = $1; PUSH($$, $3); }
    ;

units_decl
    : PORTS unit_list ';'   { $$ = $2; $$->kind = AST_DECL_PORTS; $$->span = @$; }
    | UNITS unit_list ';'   { $$ = $2; $$->kind = AST_DECL_UNITS; $$->span = @$; }
    | ASYNC unit_list ';'   { $$ = $2; $$->kind = AST_DECL_ASYNC; $$->span = @$; }
    ;

unit_list
    : unit                  { $$ = mkdecl(px, AST_DECL_UNITS, @$); PUSH(&$$->units, $1); }
    | unit_list ',' unit    { $$ = $1; PUSH(&$$->units, $3); }
    ;

unit
    : ident count_opt src_opt
        { $$ = (struct ast_unit){ .name = $1, .count = $2, .count_span = @2, .src = $3 };
          if ($2 < 0) { $$.count = 1; $$.count_span = @1; } }
    ;

count_opt
    : %empty                { $$ = -1; }
    | '*' INTEGER           { $$ = atol($2); }
    ;

form
    : ident                 { $$ = (struct ast_form){ .mnemonic = $1, .span = @$ }; }
    | ident kinds           { $$ = (struct ast_form){ .mnemonic = $1, .has_kinds = true, .kinds = *$2, .span = @$ }; }
    ;

kinds
    : '(' ')'               { $$ = NEW(ast_idents); }
    | '(' kind_list ')'     { $$ = $2; }
    ;

kind_list
    : kind                  { $$ = NEW(ast_idents); PUSH($$, $1); }
    | kind_list ',' kind    { $$ = $1; PUSH($$, $3); }
    ;

kind
    : IDENT                 { $$ = mkident($1, @1); }
    | INTEGER               { $$ = mkident($1, @1); }
    | '*'                   { $$ = mkident("*", @1); }
    ;

class_name
    : IDENT                 { $$ = mkident($1, @1); }
    | NOP                   { $$ = mkident("nop", @1); }
    ;

attrs
    : %empty                { px->attrs.n = 0; }
    | attrs attr            { PUSH(&px->attrs, $2); }
    ;

attr
    : attr_body range_opt src_opt
        { $$ = $1; $$.range = $2; $$.src = $3; $$.span = @$; }
    ;

attr_body
    : LATENCY number_or_range
        { $$ = (struct ast_attr){ .kind = AST_ATTR_LATENCY, .num = number_of($2) }; }
    | UOPS INTEGER
        { $$ = (struct ast_attr){ .kind = AST_ATTR_UOPS, .fused = atol($2), .unfused = atol($2),
                                    .num = number_of(mknumber($2, atof($2), @2)) }; }
    | UOPS INTEGER '/' INTEGER
        { $$ = (struct ast_attr){ .kind = AST_ATTR_UOPS, .fused = atol($2), .unfused = atol($4),
                                    .num = number_of(mknumber($2, atof($2), @2)) };
          $$.num.span = span_join(@2, @4); }
    | TP number
        { $$ = (struct ast_attr){ .kind = AST_ATTR_TP, .num = number_of($2) }; }
    | PORTS NONE
        { $$ = (struct ast_attr){ .kind = AST_ATTR_PORTS, .no_ports = true }; }
    | PORTS mapping         { $$ = $2; }
    | TEMPLATE '=' alts     { $$ = $3; }
    | ASYNC async_list      { $$ = $2; }
    | CLASS class_name
        { $$ = (struct ast_attr){ .kind = AST_ATTR_CLASS, .cls = $2 }; }
    ;

mapping
    : term                  { $$ = (struct ast_attr){ .kind = AST_ATTR_PORTS }; PUSH(&$$.terms, $1); }
    | mapping '+' term      { $$ = $1; PUSH(&$$.terms, $3); }
    ;

term
    : INTEGER '*' ident     { $$ = (struct ast_term){ atol($1), $3, @$ }; }
    ;

async_list
    : ident quantity_opt
        { $$ = (struct ast_attr){ .kind = AST_ATTR_ASYNC };
          PUSH(&$$.async, ((struct ast_async_use){ $1, $2 ? $2 : 1, @$ })); }
    | async_list ',' ident quantity_opt
        { $$ = $1; PUSH(&$$.async, ((struct ast_async_use){ $3, $4 ? $4 : 1, span_join(@3, @4) })); }
    ;

alts
    : alt                   { $$ = (struct ast_attr){ .kind = AST_ATTR_TEMPLATE }; PUSH(&$$.alts, *$1); }
    | alts '|' alt          { $$ = $1; PUSH(&$$.alts, *$3); }
    ;

alt
    : cycle                 { $$ = NEW(ast_alt); PUSH($$, *$1); }
    | alt ',' cycle         { $$ = $1; PUSH($$, *$3); }
    ;

cycle
    : use                   { $$ = NEW(ast_cycle); PUSH($$, *$1); }
    | cycle '+' use         { $$ = $1; PUSH($$, *$3); }
    ;

use
    : ident instances_opt quantity_opt repeat_opt
        { $$ = NEW(struct ast_use); $$->unit = $1; $$->span = @$;
          if ($2) { $$->has_instances = true; $$->instances = *$2; }
          $$->quantity = $3 ? $3 : 1; $$->cycles = $4 ? $4 : 1; }
    | NOTHING repeat_opt
        { $$ = NEW(struct ast_use); $$->unit = mkident("NOTHING", @1); $$->nothing = true;
          $$->span = @$; $$->quantity = 1; $$->cycles = $2 ? $2 : 1; }
    ;

instances_opt
    : %empty                { $$ = NULL; }
    | '[' int_list ']'      { $$ = $2; }
    ;

int_list
    : INTEGER               { $$ = arena_alloc(px->ar, sizeof *$$); PUSH($$, atol($1)); }
    | int_list ',' INTEGER  { $$ = $1; PUSH($$, atol($3)); }
    ;

quantity_opt
    : %empty                { $$ = 0; }
    | '(' INTEGER ')'       { $$ = atol($2); if (!$$) $$ = -1; }
    ;

repeat_opt
    : %empty                { $$ = 0; }
    | '*' INTEGER           { $$ = atol($2); if (!$$) $$ = -1; }
    ;

selector
    : sel_name
        { $$ = NEW(struct ast_selector); PUSH(&$$->names, $1); $$->span = @$; }
    | sel_name kinds
        { $$ = NEW(struct ast_selector); PUSH(&$$->names, $1); $$->has_kinds = true; $$->kinds = *$2; $$->span = @$; }
    | '{' ident_list '}'
        { $$ = NEW(struct ast_selector); $$->names = *$2; $$->is_set = true; $$->span = @$; }
    | '{' ident_list '}' kinds
        { $$ = NEW(struct ast_selector); $$->names = *$2; $$->is_set = true; $$->has_kinds = true;
          $$->kinds = *$4; $$->span = @$; }
    ;

/* `nop` is a keyword after `with` but also the name of a class a bypass may select. */
sel_name
    : IDENT                 { $$ = mkident($1, @1); }
    | NOP                   { $$ = mkident("nop", @1); }
    ;

pattern
    : selector              { $$ = NEW(struct ast_pattern); $$->sel = *$1; $$->span = @$; }
    | selector operands     { $$ = NEW(struct ast_pattern); $$->sel = *$1; $$->operands = *$2; $$->span = @$; }
    ;

operands
    : operand               { $$ = NEW(ast_idents); PUSH($$, $1); }
    | operands ',' operand  { $$ = $1; PUSH($$, $3); }
    ;

operand
    : VAR                   { $$ = mkident($1, @1); }
    | IDENT                 { $$ = mkident($1, @1); }
    ;

replacement
    : NOP flow              { $$ = $2; $$->to_nop = true; }
    | form flow             { $$ = $2; $$->target = $1; }
    ;

flow
    : %empty                { $$ = NEW(struct ast_replace); }
    | var_list              { $$ = NEW(struct ast_replace); $$->reads = *$1; }
    | ARROW var_list        { $$ = NEW(struct ast_replace); $$->writes = *$2; }
    | var_list ARROW var_list
        { $$ = NEW(struct ast_replace); $$->reads = *$1; $$->writes = *$3; }
    ;

var_list
    : VAR                   { $$ = NEW(ast_idents); PUSH($$, mkident($1, @1)); }
    | var_list ',' VAR      { $$ = $1; PUSH($$, mkident($3, @3)); }
    ;

bypass_latency
    : number                { $$ = NEW(struct ast_bypass); $$->latency = $1; }
    | '+' number            { $$ = NEW(struct ast_bypass); $$->latency = $2; $$->sign = 1; $$->latency.span = @$; }
    | '-' number            { $$ = NEW(struct ast_bypass); $$->latency = $2; $$->sign = -1; $$->latency.span = @$; }
    ;

%%

/* Token names without bison's quoting: "'machine'" stays, "\"identifier\"" loses its quotes. */
static const char *parse_token_name(yysymbol_kind_t sym)
{
    if (sym == YYSYMBOL_YYEOF)
        return "end of file";
    const char *name = yysymbol_name(sym);
    if (name[0] == '"') {
        static char buf[64];
        size_t n = strlen(name);
        snprintf(buf, sizeof buf, "%.*s", (int)(n >= 2 ? n - 2 : 0), name + 1);
        return buf;
    }
    return name;
}

static bool parse_expects(const yysymbol_kind_t *exp, int n, yysymbol_kind_t sym)
{
    for (int i = 0; i < n; i++)
        if (exp[i] == sym)
            return true;
    return false;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct parse_ctx *px)
{
    enum { MAX_LISTED = 5 };
    yysymbol_kind_t expected[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
    yysymbol_kind_t la = yypcontext_token(ctx);
    struct span at = *yypcontext_location(ctx);
    char found[128];
    if (la == YYSYMBOL_IDENT || la == YYSYMBOL_INTEGER || la == YYSYMBOL_DECIMAL || la == YYSYMBOL_VAR)
        snprintf(found, sizeof found, "%s '%.*s'", parse_token_name(la),
                 (int)(at.hi - at.lo > 40 ? 40 : at.hi - at.lo), px->src->text + at.lo);
    else
        snprintf(found, sizeof found, "%s", parse_token_name(la));
    char want[256] = "";
    size_t len = 0;
    bool listed = n > 0 && n <= MAX_LISTED;
    for (int i = 0; listed && i < n && len < sizeof want; i++)
        len += (size_t)snprintf(want + len, sizeof want - len, "%s%s",
                                i == 0 ? "" : i == n - 1 ? " or " : ", ", parse_token_name(expected[i]));
    struct lex_ctx *cx = yyget_extra(scanner);
    unsigned prev_line, line, col;
    src_position(px->diag->sm, at.file, cx->prev.hi, &prev_line, &col);
    src_position(px->diag->sm, at.file, at.lo, &line, &col);
    /* A missing ';' is noticed on the next line; the place to fix is the end of the last one. */
    bool next_line = cx->prev.hi > 0 && line > prev_line;
    if (next_line && !listed && parse_expects(expected, n, YYTRANSLATE(';'))) {
        snprintf(want, sizeof want, "';'");
        listed = true;
    }
    if (listed && next_line)
        diag_error(px->diag, cx->prev, "expected %s after '%.*s'", want,
                   (int)(cx->prev.hi - cx->prev.lo > 40 ? 40 : cx->prev.hi - cx->prev.lo),
                   px->src->text + cx->prev.lo);
    else if (listed)
        diag_error(px->diag, at, "expected %s, found %s", want, found);
    else
        diag_error(px->diag, at, "unexpected %s", found);
    return 0;
}
