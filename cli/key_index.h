/* Entries found by a 64-bit key (cli/key_index.c): a table of open
 * addressing, at most half full, that holds each key and its entry's index
 * in the caller's array; for the per-frame lookups of `can decode` (a
 * message's column block on its bus) and `info` (an identifier's
 * statistics). */
#ifndef RTCOSIM_CLI_KEY_INDEX_H
#define RTCOSIM_CLI_KEY_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct key_index {
    uint64_t *keys;
    size_t *entries; /* index + 1, 0: an empty slot */
    size_t cap, count; /* cap a power of two */
} key_index;

/* The entry of key, or SIZE_MAX when none. */
size_t key_index_find(const key_index *x, uint64_t key);
/* Adds key for entry (not yet there); false out of memory. */
bool key_index_add(key_index *x, uint64_t key, size_t entry);
void key_index_free(key_index *x);

#endif
