/* "Did you mean": the nearest variable name by edit distance, for the
 * messages that name a variable a model does not have (start values, output
 * variables, input columns, system connections), as peers' tools offer. */
#include <string.h>

#include "rtcosim/component.h"

/* Edits between a and b: insertions, deletions, substitutions and swaps of
 * two neighbouring characters, one each (the optimal string alignment
 * distance): "fsat0" is one edit from "fast0", as a typist's swap is one
 * slip. (size_t)-1 when a or b is longer than 255 bytes (no name that long
 * is a typo of a short one worth the time: a 3 MB column name took 28 s). */
size_t rtcosim_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(b);
    if (n > 255 || strnlen(a, 256) > 255)
        return (size_t)-1;
    size_t rows[3][256], *before = rows[0], *prev = rows[1], *row = rows[2];
    for (size_t j = 0; j <= n; j++)
        prev[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                a[i - 1] != a[i - 2] && before[j - 2] + 1 < best)
                best = before[j - 2] + 1; /* two neighbours swapped */
            row[j] = best;
        }
        size_t *spare = before;
        before = prev, prev = row, row = spare;
    }
    return prev[n];
}

bool rtcosim_name_is_close(const char *typed, const char *candidate, size_t distance)
{
    size_t len = strlen(typed) > strlen(candidate) ? strlen(typed) : strlen(candidate);
    /* at most a third of the longer name, one edit for short names */
    return distance <= (len >= 6 ? len / 3 : 1);
}

const char *rtcosim_component_nearest_variable(const rtcosim_component *c, const char *name)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    size_t n = c && name ? rtcosim_component_variable_count(c) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *candidate = rtcosim_component_variable(c, i)->name;
        size_t d = rtcosim_edit_distance(name, candidate);
        if (d < best_distance && rtcosim_name_is_close(name, candidate, d)) {
            best_distance = d;
            best = candidate;
        }
    }
    return best;
}
