/* Did-you-mean by edit distance, two neighbours swapped counting as one edit (the optimal string
 * alignment distance): a name misspelled by a letter or two ("mian" for "main") is found, an
 * unrelated one is not. */
#include "suggest.h"
#include <string.h>

/* Bounded to names of 63 bytes: longer ones are never suggested (64 is above every bound). ROW
 * holds the distances of A's first I bytes to each prefix of B, PREV and BEFORE those of I-1 and
 * I-2 bytes (a swap reaches back two rows). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t before[64], prev[64], row[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < best)
                best = before[j - 2] + 1;
            row[j] = best;
        }
        memcpy(before, prev, (lb + 1) * sizeof *prev);
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb];
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
