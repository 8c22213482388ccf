/* UTF-8 validation by the table of RFC 3629, section 4: the second byte's range depends on the
 * first (no overlong forms, no surrogates, nothing above U+10FFFF). */
#include "utf8.h"
#include <stdlib.h>
#include <string.h>

size_t utf8_char(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x80)
        return 1;
    size_t len = u[0] >= 0xC2 && u[0] <= 0xDF ? 2 : u[0] >= 0xE0 && u[0] <= 0xEF ? 3 : u[0] >= 0xF0 && u[0] <= 0xF4 ? 4 : 0;
    if (len == 0 || n < len)
        return 0;
    unsigned lo = u[0] == 0xE0 ? 0xA0 : u[0] == 0xF0 ? 0x90 : 0x80;
    unsigned hi = u[0] == 0xED ? 0x9F : u[0] == 0xF4 ? 0x8F : 0xBF;
    if (u[1] < lo || u[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (u[i] < 0x80 || u[i] > 0xBF)
            return 0;
    return len;
}

char *utf8_fixed(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1), *o = out;     /* each byte at worst becomes U+FFFD's three */
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_char(s + i, n - i);
        if (k) {
            memcpy(o, s + i, k);
            o += k, i += k;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3, i++;
        }
    }
    *o = '\0';
    return out;
}
