/* Runs the reentrant lexer and parser over one source file. */
#include "parse.h"
#include "lexer.h"
#include "parser.h"
#define YY_DECL int mdl_lex(YYSTYPE *yylval_param, YYLTYPE *yylloc_param, yyscan_t yyscanner)
#include "lexer.gen.h"

struct ast_file *parse_file(struct arena *ar, struct diag *d, const struct src_manager *sm, uint32_t file)
{
    const struct src_file *src = src_get(sm, file);
    struct ast_file *out = arena_alloc(ar, sizeof *out);
    out->file = file;
    struct lex_ctx cx = { .ar = ar, .diag = d, .file = file };
    map_init(&cx.strings, ar);
    struct parse_ctx px = { .ar = ar, .diag = d, .src = src, .out = out };
    yyscan_t scanner;
    if (yylex_init_extra(&cx, &scanner) != 0) {
        diag_plain(d, DIAG_ERROR, "cannot start the lexer");
        return out;
    }
    YY_BUFFER_STATE buf = yy_scan_bytes(src->text, (int)src->len, scanner);
    yyparse(scanner, &px);
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    return out;
}
