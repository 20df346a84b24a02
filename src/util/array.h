/* Growing a heap array by doubling, shared by the layers that collect items
 * of unknown number while reading or configuring (SSP descriptions, CAN
 * nodes and filters), and by the event kernel's buffers that grow to their
 * steady size during a run (queues of messages, the free events, batches
 * for other ranks): amortized, nothing is allocated once they are warm. */
#ifndef RTCOSIM_UTIL_ARRAY_H
#define RTCOSIM_UTIL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room for element number `count` (0-based) in *array_ptr (a pointer
 * to the array pointer), doubling *capacity from first_capacity. Returns
 * false, leaving the array and *capacity as they were, when out of memory. */
bool util_array_reserve(void *array_ptr, size_t count, size_t *capacity, size_t element_size,
                        size_t first_capacity);

#endif
