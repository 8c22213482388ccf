/* State the reentrant lexer shares with the parser and the caller. */
#ifndef MDL_LEXER_H
#define MDL_LEXER_H
#include "arena.h"
#include "diag.h"

struct lex_ctx {
    struct arena *ar;
    struct diag *diag;
    uint32_t file;
    uint32_t pos;               /* byte offset of the next unread character */
    uint32_t comment_start;
    struct span prev, cur;      /* the last two tokens handed to the parser */     /* of the open block comment, for the unterminated error */
};

#endif
