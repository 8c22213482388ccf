/* Well-formed UTF-8 (RFC 3629), for the writers of JSON and HTML: text that comes from a guest's
 * symbols, a path or a description is bytes, and a byte that is not UTF-8 is shown as U+FFFD. */
#ifndef MDL_UTF8_H
#define MDL_UTF8_H
#include <stddef.h>

/* The length (1 to 4) of the well-formed character S starts with, reading at most N bytes (a NUL
 * ends a character early, so SIZE_MAX suits a string); 0 when S starts none: a stray continuation
 * byte, an overlong form, a surrogate, a code point above U+10FFFF, a cut sequence. */
size_t utf8_char(const char *s, size_t n);

/* S with each byte that starts no well-formed character replaced by U+FFFD; a new string the
 * caller frees (NULL only when memory runs out). */
char *utf8_fixed(const char *s);

#endif
