/* State the reentrant lexer shares with the parser and the caller. */
#ifndef MDL_LEXER_H
#define MDL_LEXER_H
#include "arena.h"
#include "diag.h"
#include "map.h"

struct lex_ctx {
    struct arena *ar;
    struct diag *diag;
    uint32_t file;
    uint32_t pos;               /* byte offset of the next unread character */
    uint32_t comment_start;     /* of the open block comment, for the unterminated error */
    struct span prev, cur;      /* the last two tokens handed to the parser */
    struct map strings;         /* the text of every token read, each once (lex_intern) */
};

#endif
