/* Quaternary heap and event free lists (see event_queue.h). A 4-ary heap
 * halves the depth of a binary one; its four 32-byte children share one
 * 128-byte aligned pair of cache lines (which the adjacent-line prefetcher
 * fetches together), so a level costs one memory access. */
#include <stdlib.h>
#include <string.h>

#include "event_queue.h"
#include "util/array.h"

/* The entries start 3 slots into a 128-byte aligned block, so that the four
 * children of every node (4i+1 .. 4i+4) fill exactly one aligned line pair. */
enum { HEAP_OFFSET = 3, HEAP_ALIGN = 4 * sizeof(event_heap_entry) };

void event_heap_free(event_heap *h)
{
    if (h->entries)
        free(h->entries - HEAP_OFFSET);
    h->entries = NULL;
    h->count = h->capacity = 0;
}

static bool heap_grow(event_heap *h)
{
    size_t cap = h->capacity ? 2 * h->capacity : 1024;
    size_t bytes = (cap + HEAP_OFFSET + 1) * sizeof(event_heap_entry);
    bytes = (bytes + HEAP_ALIGN - 1) & ~(size_t)(HEAP_ALIGN - 1);
    event_heap_entry *raw = aligned_alloc(HEAP_ALIGN, bytes);
    if (!raw)
        return false;
    if (h->count)
        memcpy(raw + HEAP_OFFSET, h->entries, h->count * sizeof *raw);
    if (h->entries)
        free(h->entries - HEAP_OFFSET);
    h->entries = raw + HEAP_OFFSET;
    h->capacity = cap;
    return true;
}

bool event_heap_push(event_heap *h, rtcosim_event *ev)
{
    if (h->count == h->capacity && !heap_grow(h))
        return false;
    event_heap_entry item = {ev->time, ev->tie, ev->seq, ev};
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

/* Bottom-up deletion (Floyd; Wegener 1993): move the hole down along the
 * smallest children to a leaf, then sift the last entry up from there. The
 * last entry usually belongs near the bottom, so this saves the comparisons
 * against it on the way down. */
rtcosim_event *event_heap_pop(event_heap *h)
{
    if (h->count == 0)
        return NULL;
    event_heap_entry *e = h->entries;
    rtcosim_event *top = e[0].ev;
    size_t n = --h->count;
    if (n == 0)
        return top;
    event_heap_entry item = e[n];
    size_t i = 0;
    for (;;) {
        size_t first = 4 * i + 1;
        if (first >= n)
            break;
        size_t best = first;
        if (first + 4 <= n) {
            /* selects of indices (cmov), not of entries (which the
             * compiler turns into branches when they would copy the key) */
            size_t b01 = heap_entry_before(&e[first + 1], &e[first]) ? first + 1 : first;
            size_t b23 = heap_entry_before(&e[first + 3], &e[first + 2]) ? first + 3 : first + 2;
            best = heap_entry_before(&e[b23], &e[b01]) ? b23 : b01;
        } else {
            for (size_t c = first + 1; c < n; c++)
                if (heap_entry_before(&e[c], &e[best]))
                    best = c;
        }
        e[i] = e[best];
        i = best;
    }
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!heap_entry_before(&item, &e[parent]))
            break;
        e[i] = e[parent];
        i = parent;
    }
    e[i] = item;
    return top;
}

bool event_pool_grow(event_pool *p)
{
    return util_array_reserve(&p->free, p->free_count, &p->free_cap, sizeof *p->free, 4096);
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
    if (events && !util_array_reserve(&p->free, p->free_count + events - 1, &p->free_cap,
                                      sizeof *p->free, 4096))
        return false;
    rtcosim_event *chunk = aligned_alloc(64, events * sizeof *chunk);
    if (!chunk)
        return false;
    p->chunks[p->chunk_count++] = chunk;
    /* in reverse, so that they are handed out in address order */
    for (size_t i = events; i-- > 0;)
        p->free[p->free_count++] = &chunk[i];
    return true;
}

bool event_pool_refill(event_pool *p)
{
    if (atomic_load_explicit(&p->returned, memory_order_relaxed))
        event_pool_take_returned(p);
    return p->free_count || event_pool_reserve(p, 4096);
}

void event_pool_take_returned(event_pool *p)
{
    event_batch *b = atomic_exchange_explicit(&p->returned, NULL, memory_order_acquire);
    while (b) {
        event_batch *next = b->next;
        /* (out of memory for the stack: those events are not reused; their
         * chunks are freed with their own pool) */
        if (util_array_reserve(&p->free, p->free_count + b->count - 1, &p->free_cap,
                               sizeof *p->free, 4096)) {
            memcpy(p->free + p->free_count, b->events, b->count * sizeof *b->events);
            p->free_count += b->count;
            p->taken += b->count;
        }
        free(b);
        b = next;
    }
}

/* Hand over no fewer events than this at once (one malloc per batch). */
enum { EVENT_SHARE_MIN = 256 };

void event_pool_share(event_pool *p, event_pool *pools, size_t stride, unsigned count)
{
    if (atomic_load_explicit(&p->returned, memory_order_relaxed))
        event_pool_take_returned(p);
    if (p->free_count < p->keep / 2) {
        if (!atomic_load_explicit(&p->hungry, memory_order_relaxed))
            atomic_store_explicit(&p->hungry, 1, memory_order_relaxed);
        return;
    }
    if (p->free_count < p->keep + EVENT_SHARE_MIN)
        return;
    for (unsigned i = 0; i < count; i++) {
        event_pool *q = (event_pool *)((char *)pools + (size_t)i * stride);
        if (q == p || !atomic_load_explicit(&q->hungry, memory_order_relaxed) ||
            !atomic_exchange_explicit(&q->hungry, 0, memory_order_relaxed))
            continue;
        size_t n = p->free_count - p->keep;
        event_batch *b = malloc(sizeof *b + n * sizeof *b->events);
        if (!b)
            return;
        p->free_count -= n;
        memcpy(b->events, p->free + p->free_count, n * sizeof *b->events);
        b->count = n;
        p->given += n;
        /* many givers, one taker that takes all at once: no ABA */
        b->next = atomic_load_explicit(&q->returned, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&q->returned, &b->next, b,
                                                      memory_order_release, memory_order_relaxed)) {
        }
        return;
    }
}

void event_pool_free(event_pool *p)
{
    for (event_batch *b = atomic_exchange(&p->returned, NULL), *next; b; b = next) {
        next = b->next;
        free(b);
    }
    for (size_t i = 0; i < p->chunk_count; i++)
        free(p->chunks[i]);
    free(p->chunks);
    free(p->free);
    p->chunks = NULL;
    p->free = NULL;
    p->free_count = p->free_cap = 0;
    p->chunk_count = p->chunk_capacity = 0;
}
