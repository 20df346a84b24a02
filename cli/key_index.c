/* Entries by a 64-bit key (key_index.h). */
#include <stdlib.h>

#include "key_index.h"

static size_t slot_of(const uint64_t *keys, const size_t *entries, size_t cap, uint64_t key)
{
    size_t h = (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
    while (entries[h] && keys[h] != key)
        h = (h + 1) & (cap - 1);
    return h;
}

size_t key_index_find(const key_index *x, uint64_t key)
{
    if (!x->cap)
        return SIZE_MAX;
    size_t h = slot_of(x->keys, x->entries, x->cap, key);
    return x->entries[h] ? x->entries[h] - 1 : SIZE_MAX;
}

bool key_index_add(key_index *x, uint64_t key, size_t entry)
{
    if (2 * (x->count + 1) > x->cap) { /* twice the room, the entries placed again */
        size_t cap = x->cap ? 2 * x->cap : 64;
        uint64_t *keys = malloc(cap * sizeof *keys);
        size_t *entries = calloc(cap, sizeof *entries);
        if (!keys || !entries) {
            free(keys);
            free(entries);
            return false;
        }
        for (size_t i = 0; i < x->cap; i++)
            if (x->entries[i]) {
                size_t h = slot_of(keys, entries, cap, x->keys[i]);
                keys[h] = x->keys[i];
                entries[h] = x->entries[i];
            }
        free(x->keys);
        free(x->entries);
        x->keys = keys;
        x->entries = entries;
        x->cap = cap;
    }
    size_t h = slot_of(x->keys, x->entries, x->cap, key);
    x->keys[h] = key;
    x->entries[h] = entry + 1;
    x->count++;
    return true;
}

void key_index_free(key_index *x)
{
    free(x->keys);
    free(x->entries);
    *x = (key_index){0};
}
