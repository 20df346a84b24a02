/* rtcosim_transport over MPI_COMM_WORLD: the kernel's batches per
 * destination rank go out as one message per non-empty pair per round
 * (Isend/Irecv, sizes first by one MPI_Alltoall), reductions by
 * MPI_Allreduce; point-to-point messages (null messages with their events)
 * by MPI_Isend from a pool of send buffers reused once their send completed,
 * received by MPI_Probe/Recv into one buffer that grows. Nothing is
 * allocated per call once the buffers have grown to the largest batch. */
#include <limits.h>
#include <mpi.h>

/* Built as the module librtcosim_mpi.so (loaded by transport_mpi_dl.c under
 * mpirun only), its entry points under names of their own. */
#define rtcosim_mpi_launched rtcosim_mpi_module_launched
#define rtcosim_mpi_available rtcosim_mpi_module_available
#define rtcosim_mpi_transport_open rtcosim_mpi_module_transport_open
#define rtcosim_mpi_transport_close rtcosim_mpi_module_transport_close
#define rtcosim_mpi_abort rtcosim_mpi_module_abort
#define rtcosim_mpi_peer_pid rtcosim_mpi_module_peer_pid
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launched.h"
#include "rtcosim/mpi.h"
#include "util/array.h"

/* A point-to-point send in flight (req != MPI_REQUEST_NULL) or free. */
typedef struct send_slot {
    unsigned char *data;
    size_t capacity;
    MPI_Request req;
} send_slot;

typedef struct mpi_ctx {
    int size;
    MPI_Request *requests; /* [2 * size]: one round's receives and sends */
    send_slot *slots;
    size_t slot_count, slot_next; /* slots are taken round robin from slot_next */
    unsigned char *in; /* the last received message */
    size_t in_capacity;
    int *counts, *displs;  /* [size]: MPI_Allgatherv's int arrays */
} mpi_ctx;

enum { TAG_BATCH = 17, TAG_MESSAGE = 18 };

static mpi_ctx g_ctx;

/* Every rank's pid and host (a hash of its name): see rtcosim_mpi_peer_pid. */
static long *g_peer_pids;
static int g_peer_count;

static unsigned long host_hash(void)
{
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    unsigned long h = 5381;
    for (const char *c = name; *c; c++)
        h = h * 33 + (unsigned char)*c;
    return h;
}

static void gather_peer_pids(int size)
{
    long mine[2] = {(long)getpid(), (long)host_hash()};
    long *all = calloc((size_t)size * 2, sizeof *all);
    if (!all || MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(all);
        return;
    }
    free(g_peer_pids);
    g_peer_pids = calloc((size_t)size, sizeof *g_peer_pids);
    if (!g_peer_pids) {
        free(all);
        return;
    }
    for (int r = 0; r < size; r++)
        g_peer_pids[r] = all[2 * r + 1] == mine[1] ? all[2 * r] : -1;
    g_peer_count = size;
    free(all);
}

long rtcosim_mpi_peer_pid(int rank)
{
    return g_peer_pids && rank >= 0 && rank < g_peer_count ? g_peer_pids[rank] : -1;
}

bool rtcosim_mpi_launched(void) { return mpi_env_launched(); }
bool rtcosim_mpi_available(void) { return true; }

static rtcosim_status fail(rtcosim_error *err, int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, text, &len);
    return rtcosim_error_set(err, RTCOSIM_EIO, "mpi: %s failed: %s", what, text);
}

static rtcosim_status mpi_alltoall_i64(void *context, const int64_t *send, int64_t *recv,
                                       size_t per_rank, rtcosim_error *err)
{
    (void)context;
    int rc = MPI_Alltoall(send, (int)per_rank, MPI_INT64_T, recv, (int)per_rank, MPI_INT64_T,
                          MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Alltoall");
}

static rtcosim_status mpi_exchange(void *context, const void *const *send,
                                   const size_t *send_bytes, void *recv, const size_t *recv_bytes,
                                   const size_t *recv_offset, rtcosim_error *err)
{
    mpi_ctx *c = context;
    int n = 0;
    for (int r = 0; r < c->size; r++) {
        if (send_bytes[r] > INT_MAX || recv_bytes[r] > INT_MAX)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: a batch of more than 2 GiB");
        if (recv_bytes[r] &&
            MPI_Irecv((char *)recv + recv_offset[r], (int)recv_bytes[r], MPI_BYTE, r, TAG_BATCH,
                      MPI_COMM_WORLD, &c->requests[n++]) != MPI_SUCCESS)
            return rtcosim_error_set(err, RTCOSIM_EIO, "mpi: MPI_Irecv from rank %d failed", r);
    }
    for (int r = 0; r < c->size; r++)
        if (send_bytes[r] &&
            MPI_Isend(send[r], (int)send_bytes[r], MPI_BYTE, r, TAG_BATCH, MPI_COMM_WORLD,
                      &c->requests[n++]) != MPI_SUCCESS)
            return rtcosim_error_set(err, RTCOSIM_EIO, "mpi: MPI_Isend to rank %d failed", r);
    int rc = MPI_Waitall(n, c->requests, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Waitall");
}

static MPI_Op op_of(rtcosim_reduce_op op)
{
    return op == RTCOSIM_REDUCE_MIN ? MPI_MIN : op == RTCOSIM_REDUCE_MAX ? MPI_MAX : MPI_SUM;
}

static rtcosim_status mpi_allreduce_u64(void *context, uint64_t *values, size_t n,
                                        rtcosim_reduce_op op, rtcosim_error *err)
{
    (void)context;
    int rc = MPI_Allreduce(MPI_IN_PLACE, values, (int)n, MPI_UINT64_T, op_of(op), MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Allreduce");
}

static rtcosim_status mpi_allreduce_i64(void *context, int64_t *values, size_t n,
                                        rtcosim_reduce_op op, rtcosim_error *err)
{
    (void)context;
    int rc = MPI_Allreduce(MPI_IN_PLACE, values, (int)n, MPI_INT64_T, op_of(op), MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Allreduce");
}

static rtcosim_status mpi_barrier(void *context, rtcosim_error *err)
{
    (void)context;
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Barrier");
}

static rtcosim_status mpi_broadcast(void *context, void *data, size_t bytes, int root,
                                   rtcosim_error *err)
{
    (void)context;
    if (bytes > INT_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: a broadcast of more than 2 GiB");
    int rc = MPI_Bcast(data, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Bcast");
}

/* A free slot of at least `bytes`: completed sends are reclaimed, and only
 * when every slot is still in flight does the pool grow (the receivers
 * drain continuously, so a few slots per peer suffice in steady state).
 * Round robin: the next slot is the oldest send, usually complete, so a
 * send tests one request, not the whole pool. */
static send_slot *free_slot(mpi_ctx *c, size_t bytes)
{
    send_slot *s = NULL;
    for (size_t k = 0; k < c->slot_count && !s; k++) {
        size_t i = (c->slot_next + k) % c->slot_count;
        int done = 1;
        if (c->slots[i].req != MPI_REQUEST_NULL)
            MPI_Test(&c->slots[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            s = &c->slots[i];
            c->slot_next = (i + 1) % c->slot_count;
        }
    }
    if (!s) {
        size_t n = c->slot_count ? 2 * c->slot_count : 8;
        send_slot *grown = realloc(c->slots, n * sizeof *grown); /* request handles are values */
        if (!grown)
            return NULL;
        for (size_t i = c->slot_count; i < n; i++)
            grown[i] = (send_slot){.req = MPI_REQUEST_NULL};
        s = &grown[c->slot_count];
        c->slot_next = (c->slot_count + 1) % n;
        c->slots = grown;
        c->slot_count = n;
    }
    if (bytes && !util_array_reserve(&s->data, bytes - 1, &s->capacity, 1, 4096))
        return NULL;
    return s;
}

static rtcosim_status mpi_send(void *context, int to, const void *head, size_t head_bytes,
                               const void *body, size_t body_bytes, rtcosim_error *err)
{
    mpi_ctx *c = context;
    size_t bytes = head_bytes + body_bytes;
    if (bytes > INT_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: a message of more than 2 GiB");
    send_slot *s = free_slot(c, bytes);
    if (!s)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "mpi: out of memory for a message");
    memcpy(s->data, head, head_bytes);
    if (body_bytes)
        memcpy(s->data + head_bytes, body, body_bytes);
    int rc = MPI_Isend(s->data, (int)bytes, MPI_BYTE, to, TAG_MESSAGE, MPI_COMM_WORLD, &s->req);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Isend");
}

static rtcosim_status mpi_receive(void *context, bool wait, int *from, const void **data,
                                  size_t *bytes, rtcosim_error *err)
{
    mpi_ctx *c = context;
    MPI_Status status;
    int flag = 1, rc;
    if (wait)
        rc = MPI_Probe(MPI_ANY_SOURCE, TAG_MESSAGE, MPI_COMM_WORLD, &status);
    else
        rc = MPI_Iprobe(MPI_ANY_SOURCE, TAG_MESSAGE, MPI_COMM_WORLD, &flag, &status);
    if (rc != MPI_SUCCESS)
        return fail(err, rc, "MPI_Probe");
    *from = -1;
    if (!flag)
        return RTCOSIM_OK;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count > 0 && !util_array_reserve(&c->in, (size_t)count - 1, &c->in_capacity, 1, 4096))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "mpi: out of memory for a message");
    rc = MPI_Recv(c->in, count, MPI_BYTE, status.MPI_SOURCE, TAG_MESSAGE, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return fail(err, rc, "MPI_Recv");
    *from = status.MPI_SOURCE;
    *data = c->in;
    *bytes = (size_t)count;
    return RTCOSIM_OK;
}

static rtcosim_status mpi_add_master_calls(rtcosim_transport *t, rtcosim_error *err);

rtcosim_status rtcosim_mpi_transport_open(rtcosim_transport *out, rtcosim_error *err)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return rtcosim_error_set(err, RTCOSIM_EIO, "mpi: MPI_Init failed");
    /* errors come back as codes: the kernel turns them into rtcosim errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!g_ctx.requests) {
        g_ctx.requests = calloc((size_t)size * 2, sizeof *g_ctx.requests);
        if (!g_ctx.requests)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "mpi: out of memory");
        g_ctx.size = size;
    }
    gather_peer_pids(size);
    *out = (rtcosim_transport){.rank = rank, .size = size, .context = &g_ctx,
                               .alltoall_i64 = mpi_alltoall_i64, .exchange = mpi_exchange,
                               .allreduce_u64 = mpi_allreduce_u64,
                               .allreduce_i64 = mpi_allreduce_i64, .barrier = mpi_barrier,
                               .broadcast = mpi_broadcast, .send = mpi_send,
                               .receive = mpi_receive};
    return mpi_add_master_calls(out, err);
}

void rtcosim_mpi_transport_close(rtcosim_transport *t)
{
    (void)t;
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (size_t i = 0; !finalized && i < g_ctx.slot_count; i++)
        if (g_ctx.slots[i].req != MPI_REQUEST_NULL)
            MPI_Wait(&g_ctx.slots[i].req, MPI_STATUS_IGNORE);
    if (!finalized)
        MPI_Finalize();
    for (size_t i = 0; i < g_ctx.slot_count; i++)
        free(g_ctx.slots[i].data);
    free(g_ctx.slots);
    free(g_ctx.in);
    free(g_ctx.requests);
    free(g_ctx.counts);
    free(g_ctx.displs);
    g_ctx = (mpi_ctx){0};
}

void rtcosim_mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

/* ---- the distributed master's calls: one MPI_Allgatherv per Jacobi step,
 * point to point along the Gauss-Seidel order ---- */

static rtcosim_status mpi_allgatherv(void *context, const void *send, size_t send_bytes,
                                     void *recv, const size_t *recv_bytes,
                                     const size_t *recv_offset, rtcosim_error *err)
{
    mpi_ctx *c = context;
    /* counts and displacements as int, in the preallocated per-rank arrays */
    int *counts = c->counts, *displs = c->displs;
    for (int r = 0; r < c->size; r++) {
        if (recv_bytes[r] > INT_MAX || recv_offset[r] > INT_MAX)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: an exchange of more than"
                                     " 2 GiB");
        counts[r] = (int)recv_bytes[r];
        displs[r] = (int)recv_offset[r];
    }
    int rc = MPI_Allgatherv(send, (int)send_bytes, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                            MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Allgatherv");
}

static rtcosim_status mpi_isend(void *context, const void *data, size_t bytes, int to, int tag,
                                void *request, rtcosim_error *err)
{
    (void)context;
    if (bytes > INT_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: a message of more than 2 GiB");
    int rc = MPI_Isend(data, (int)bytes, MPI_BYTE, to, tag, MPI_COMM_WORLD, request);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Isend");
}

static rtcosim_status mpi_recv(void *context, void *data, size_t bytes, int from, int tag,
                               rtcosim_error *err)
{
    (void)context;
    if (bytes > INT_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: a message of more than 2 GiB");
    int rc = MPI_Recv(data, (int)bytes, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Recv");
}

static rtcosim_status mpi_wait(void *context, void *requests, size_t n, rtcosim_error *err)
{
    (void)context;
    if (n == 0)
        return RTCOSIM_OK;
    int rc = MPI_Waitall((int)n, requests, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? RTCOSIM_OK : fail(err, rc, "MPI_Waitall");
}

static rtcosim_status mpi_add_master_calls(rtcosim_transport *t, rtcosim_error *err)
{
    if (!g_ctx.counts) {
        g_ctx.counts = calloc((size_t)t->size, sizeof *g_ctx.counts);
        g_ctx.displs = calloc((size_t)t->size, sizeof *g_ctx.displs);
        if (!g_ctx.counts || !g_ctx.displs)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "mpi: out of memory");
    }
    t->allgatherv = mpi_allgatherv;
    t->request_bytes = sizeof(MPI_Request);
    t->isend = mpi_isend;
    t->recv = mpi_recv;
    t->wait = mpi_wait;
    return RTCOSIM_OK;
}
