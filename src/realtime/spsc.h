/* A lock-free single-producer single-consumer queue of fixed-size slots
 * (C11 atomics, preallocated power-of-two ring). It carries time-stamped
 * samples between the paced real-time thread and a non-real-time thread:
 * neither side ever blocks, allocates or takes a lock. */
#ifndef RTCOSIM_REALTIME_SPSC_H
#define RTCOSIM_REALTIME_SPSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/status.h"

typedef struct rtcosim_spsc {
    /* head: next slot the consumer reads; tail: next slot the producer
     * writes. Kept on separate cache lines so the two threads do not
     * false-share. Indices run freely and are masked on use. */
    _Alignas(64) _Atomic size_t head;
    _Alignas(64) _Atomic size_t tail;
    _Alignas(64) size_t mask;
    size_t slot_size;
    unsigned char *slots;
} rtcosim_spsc;

/* capacity: rounded up to a power of two (at least 2). */
rtcosim_status rtcosim_spsc_init(rtcosim_spsc *q, size_t capacity, size_t slot_size,
                                 rtcosim_error *err);
void rtcosim_spsc_destroy(rtcosim_spsc *q);

/* Producer: the free slot to fill, or NULL when full; then push publishes it. */
void *rtcosim_spsc_reserve(rtcosim_spsc *q);
void rtcosim_spsc_push(rtcosim_spsc *q);
/* Consumer: the oldest slot, or NULL when empty; then pop releases it. */
const void *rtcosim_spsc_front(rtcosim_spsc *q);
void rtcosim_spsc_pop(rtcosim_spsc *q);
/* Either side: number of filled slots (a snapshot). */
size_t rtcosim_spsc_size(rtcosim_spsc *q);
size_t rtcosim_spsc_capacity(const rtcosim_spsc *q);

#endif
