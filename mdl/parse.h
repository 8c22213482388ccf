/* Entry point of the parser: one source file to one syntax tree. */
#ifndef MDL_PARSE_H
#define MDL_PARSE_H
#include "ast.h"
#include "diag.h"

/* Parses FILE of SM. Syntax errors are reported to D and recovered from at declaration
 * boundaries; the tree holds every declaration that parsed. Never returns NULL. */
struct ast_file *parse_file(struct arena *ar, struct diag *d, const struct src_manager *sm, uint32_t file);

#endif
