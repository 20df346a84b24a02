/* Quaternary heap and event free lists (see event_queue.h). A 4-ary heap
 * halves the depth of a binary one; its four 16-byte children share one cache
 * line, which is what makes it faster for the 10^4-10^5 pending events of PHOLD. */
#include <stdlib.h>

#include "event_queue.h"

void event_heap_free(event_heap *h)
{
    free(h->entries);
    h->entries = NULL;
    h->count = h->capacity = 0;
}

bool event_heap_push(event_heap *h, rtcosim_event *ev)
{
    if (h->count == h->capacity) {
        size_t cap = h->capacity ? 2 * h->capacity : 1024;
        event_heap_entry *e = realloc(h->entries, cap * sizeof *e);
        if (!e)
            return false;
        h->entries = e;
        h->capacity = cap;
    }
    event_heap_entry item = {ev->time, ev};
    size_t i = h->count++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!heap_entry_before(&item, &h->entries[parent]))
            break;
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = item;
    return true;
}

rtcosim_event *event_heap_pop(event_heap *h)
{
    if (h->count == 0)
        return NULL;
    rtcosim_event *top = h->entries[0].ev;
    event_heap_entry item = h->entries[--h->count];
    size_t n = h->count, i = 0;
    for (;;) {
        size_t first = 4 * i + 1;
        if (first >= n)
            break;
        size_t best = first, last = first + 4 < n ? first + 4 : n;
        for (size_t c = first + 1; c < last; c++)
            if (heap_entry_before(&h->entries[c], &h->entries[best]))
                best = c;
        if (!heap_entry_before(&h->entries[best], &item))
            break;
        h->entries[i] = h->entries[best];
        i = best;
    }
    if (n)
        h->entries[i] = item;
    return top;
}

bool event_pool_reserve(event_pool *p, size_t events)
{
    if (p->chunk_count == p->chunk_capacity) {
        size_t cap = p->chunk_capacity ? 2 * p->chunk_capacity : 8;
        void **c = realloc(p->chunks, cap * sizeof *c);
        if (!c)
            return false;
        p->chunks = c;
        p->chunk_capacity = cap;
    }
    rtcosim_event *chunk = malloc(events * sizeof *chunk);
    if (!chunk)
        return false;
    p->chunks[p->chunk_count++] = chunk;
    for (size_t i = 0; i < events; i++)
        event_pool_put(p, &chunk[i]);
    return true;
}

void event_pool_free(event_pool *p)
{
    for (size_t i = 0; i < p->chunk_count; i++)
        free(p->chunks[i]);
    free(p->chunks);
    p->chunks = NULL;
    p->free_list = NULL;
    p->chunk_count = p->chunk_capacity = 0;
}
