/* Did-you-mean by Levenshtein distance: a name misspelled by a letter or two is found, an
 * unrelated one is not. */
#include "suggest.h"
#include <string.h>

/* Bounded to names of 63 bytes: longer ones are never suggested (64 is above every bound). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *suggest_closest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t len = strlen(word), best_d = len / 3 + 1;
    for (size_t i = 0; i < n; i++) {
        size_t other = strlen(candidates[i]);
        if ((other > len ? other - len : len - other) > best_d)
            continue;           /* the distance is at least the difference in length */
        size_t d = edit_distance(word, candidates[i]);
        if (d <= best_d && (!best || d < best_d)) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}
