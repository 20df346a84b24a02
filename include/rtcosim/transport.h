/* The transport between processes (ranks) that the event kernel calls, as in
 * ROSS's network layer: a small interface of collective calls (exchange of
 * per-rank batches, reduction, barrier) so that the kernel knows nothing of
 * MPI. rtcosim_mpi_transport_open (rtcosim/mpi.h) gives one over MPI. */
#ifndef RTCOSIM_TRANSPORT_H
#define RTCOSIM_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_reduce_op {
    RTCOSIM_REDUCE_SUM = 0,
    RTCOSIM_REDUCE_MIN,
    RTCOSIM_REDUCE_MAX
} rtcosim_reduce_op;

typedef struct rtcosim_transport {
    int rank, size; /* this process and how many take part */
    void *context;
    /* Every rank sends `per_rank` int64 values to each rank (send[r * per_rank
     * ...] to rank r) and receives as many from each (recv[r * per_rank ...]
     * from rank r). Collective. */
    rtcosim_status (*alltoall_i64)(void *context, const int64_t *send, int64_t *recv,
                                   size_t per_rank, rtcosim_error *err);
    /* Byte batches: send_bytes[r] bytes at send[r] to rank r; recv_bytes[r]
     * (known from a previous alltoall_i64) arrive from rank r at recv +
     * recv_offset[r]. Only the pairs with bytes to move communicate; every
     * rank calls it in the same round. */
    rtcosim_status (*exchange)(void *context, const void *const *send, const size_t *send_bytes,
                               void *recv, const size_t *recv_bytes, const size_t *recv_offset,
                               rtcosim_error *err);
    /* In place over n values on every rank. Collective. */
    rtcosim_status (*allreduce_u64)(void *context, uint64_t *values, size_t n,
                                    rtcosim_reduce_op op, rtcosim_error *err);
    rtcosim_status (*allreduce_i64)(void *context, int64_t *values, size_t n,
                                    rtcosim_reduce_op op, rtcosim_error *err);
    rtcosim_status (*barrier)(void *context, rtcosim_error *err);
    /* bytes at data from rank root to every rank (into data). Collective. */
    rtcosim_status (*broadcast)(void *context, void *data, size_t bytes, int root,
                                rtcosim_error *err);
    /* --- for the distributed co-simulation master (src/master/distribute_exchange.c) --- */
    /* Every rank's send_bytes at send arrive at every rank: rank r's
     * recv_bytes[r] at recv + recv_offset[r] (sizes known to all ranks
     * beforehand; a rank's own block included). Collective. */
    rtcosim_status (*allgatherv)(void *context, const void *send, size_t send_bytes, void *recv,
                                 const size_t *recv_bytes, const size_t *recv_offset,
                                 rtcosim_error *err);
    /* Point to point. request_bytes: the size of one request handle, storage
     * the caller provides. isend starts sending (data must stay until the
     * request completes); recv blocks until the message from `from` with
     * `tag` is in; wait completes n requests (n of them at requests). */
    size_t request_bytes;
    rtcosim_status (*isend)(void *context, const void *data, size_t bytes, int to, int tag,
                            void *request, rtcosim_error *err);
    rtcosim_status (*recv)(void *context, void *data, size_t bytes, int from, int tag,
                           rtcosim_error *err);
    rtcosim_status (*wait)(void *context, void *requests, size_t n, rtcosim_error *err);
    /* --- for the event kernel across ranks (src/events/dist_sync.c,
     * sched_spec_ranks.c) --- */
    /* Point to point (the null-message synchronization; may be NULL when a
     * transport has none): `send` queues one message to rank `to`, made of
     * head_bytes at head then body_bytes at body, and returns at once (the
     * transport keeps a copy until it is delivered: no rank ever waits for
     * another to receive). Messages between two ranks arrive in the order
     * sent. `receive` gives the next message from any rank: *from its
     * sender, *data valid until the next receive; when nothing has arrived
     * it waits if `wait`, else sets *from to -1. */
    rtcosim_status (*send)(void *context, int to, const void *head, size_t head_bytes,
                           const void *body, size_t body_bytes, rtcosim_error *err);
    rtcosim_status (*receive)(void *context, bool wait, int *from, const void **data,
                              size_t *bytes, rtcosim_error *err);
} rtcosim_transport;

#ifdef __cplusplus
}
#endif

#endif
