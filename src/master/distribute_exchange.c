/* The outputs of a distributed master's components across ranks, once per
 * macro step: which values cross to which rank is planned at initialize (a
 * rank reads a component's outputs when one of its components consumes
 * them; rank 0 reads all, it writes the results; with step control every
 * rank reads all, the step size comes from every connection's error). The
 * buffers are allocated there; a step allocates nothing.
 * Jacobi: every rank reads its own publishing components, packs the values
 * others read into one buffer and one MPI_Allgatherv moves them all
 * (a feedthrough component whose inputs are refreshed from a value published
 * earlier in the same tick starts a second round, as the single-process
 * master reads them in that order). Gauss-Seidel: the owner of a component
 * sends its values, as soon as it has stepped, to each rank reading them,
 * point to point. Each message carries the component's status, so that a
 * failure stops the run naming the component and its rank. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "master/distribute_internal.h"
#include "master/master_internal.h"

enum { TAG_VALUES = 41, TAG_TEXT = 42 };

/* What precedes the values: a component's status (Gauss-Seidel), or a
 * rank's first failing component as its position in the tick's list
 * (Jacobi; INT64_MAX for none). */
typedef struct wire_status {
    int32_t status;
    uint32_t unusual;
    int64_t position;
} wire_status;

typedef struct xcomp {
    remote *r;
    int owner;
    size_t bytes;         /* its out batches, every type */
    bool crosses;         /* some rank other than its owner reads them */
    bool read_here;       /* this rank reads them and does not own them */
    int *readers;         /* the ranks other than the owner reading them */
    size_t reader_count;
    unsigned char *msg;   /* Gauss-Seidel: wire_status + bytes, sent or received */
    char text[RTCOSIM_ERROR_MESSAGE_MAX]; /* the owner's failure, sent with it */
    void *requests;       /* owner: [2 * reader_count] sends in flight */
    size_t in_flight;
} xcomp;

typedef struct master_exchange {
    rtcosim_distribution *d;
    const rtcosim_transport *t;
    xcomp *comps;
    uint64_t *stamp, stamp_gen; /* [comp_count]: Jacobi round membership */
    unsigned char *send, *recv;
    size_t *recv_bytes, *recv_offset, *cursor; /* [size] */
} master_exchange;

static rtcosim_status oom(rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "distribute: out of memory");
}

rtcosim_status master_exchange_create(rtcosim_master *m, rtcosim_error *err)
{
    remote *first = NULL;
    for (size_t c = 0; c < m->comp_count && !first; c++)
        first = master_remote_of(m->comps[c].c);
    if (!first)
        return RTCOSIM_OK;
    const rtcosim_transport *t = first->d->t;
    if (!t->allgatherv || !t->isend || !t->recv || !t->wait || !t->request_bytes)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "distribute: the transport has no"
                                 " point-to-point and allgather calls");
    const size_t n = m->comp_count, ranks = (size_t)t->size;
    master_exchange *x = calloc(1, sizeof *x);
    if (!x)
        return oom(err);
    m->xchg = x;
    x->d = first->d;
    x->t = t;
    x->d->failure_shared = true;
    x->comps = calloc(n, sizeof *x->comps);
    x->stamp = calloc(n, sizeof *x->stamp);
    x->recv_bytes = calloc(ranks, sizeof(size_t));
    x->recv_offset = calloc(ranks, sizeof(size_t));
    x->cursor = calloc(ranks, sizeof(size_t));
    bool *reads = calloc(n * ranks, sizeof *reads);
    if (!x->comps || !x->stamp || !x->recv_bytes || !x->recv_offset || !x->cursor || !reads) {
        free(reads);
        return oom(err);
    }
    for (size_t c = 0; c < n; c++) {
        xcomp *xc = &x->comps[c];
        if (!(xc->r = master_remote_of(m->comps[c].c))) {
            free(reads);
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "distribute: component '%s' is not"
                                     " placed on a rank", m->comps[c].name);
        }
        xc->owner = xc->r->owner;
        reads[c * ranks] = true; /* rank 0 writes the results */
        if (m->step_control.enabled)
            memset(&reads[c * ranks], 1, ranks * sizeof *reads);
    }
    for (size_t i = 0; i < m->conn_count; i++)
        reads[m->conns[i].from * ranks + (size_t)x->comps[m->conns[i].to].owner] = true;
    size_t total = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (size_t c = 0; c < n && st == RTCOSIM_OK; c++) {
        xcomp *xc = &x->comps[c];
        const master_component *mc = &m->comps[c];
        for (unsigned i = 0; i < mc->out_type_count; i++)
            xc->bytes += mc->out[mc->out_types[i]].n * rtcosim_type_size(mc->out_types[i]);
        if (!(xc->readers = calloc(ranks, sizeof *xc->readers))) {
            st = oom(err);
            break;
        }
        for (size_t r = 0; r < ranks; r++)
            if (reads[c * ranks + r] && (int)r != xc->owner)
                xc->readers[xc->reader_count++] = (int)r;
        xc->crosses = xc->reader_count > 0;
        xc->read_here = t->rank != xc->owner && reads[c * ranks + (size_t)t->rank];
        for (unsigned i = 0; xc->crosses && i < mc->out_type_count; i++)
            if (mc->out_types[i] == RTCOSIM_TYPE_STRING || mc->out_types[i] == RTCOSIM_TYPE_BINARY)
                st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "component '%s': string and"
                                       " binary values do not cross ranks yet", mc->name);
        if (xc->crosses)
            total += xc->bytes;
        if (((xc->crosses && t->rank == xc->owner) || xc->read_here) &&
            !(xc->msg = malloc(sizeof(wire_status) + xc->bytes)))
            st = oom(err);
        if (xc->crosses && t->rank == xc->owner &&
            !(xc->requests = calloc(2 * xc->reader_count, t->request_bytes)))
            st = oom(err);
    }
    free(reads);
    if (st != RTCOSIM_OK)
        return st;
    x->send = malloc(sizeof(wire_status) + total);
    x->recv = malloc(ranks * sizeof(wire_status) + total);
    return x->send && x->recv ? RTCOSIM_OK : oom(err);
}

void master_exchange_free(rtcosim_master *m)
{
    master_exchange *x = m->xchg;
    if (!x)
        return;
    for (size_t c = 0; x->comps && c < m->comp_count; c++) {
        xcomp *xc = &x->comps[c];
        /* sends still in flight end before their buffers; after a failure
         * a reader may have left, and the process is ended anyway */
        if (xc->in_flight && !m->failed)
            x->t->wait(x->t->context, xc->requests, xc->in_flight, NULL);
        free(xc->readers);
        free(xc->msg);
        free(xc->requests);
    }
    free(x->comps);
    free(x->stamp);
    free(x->send);
    free(x->recv);
    free(x->recv_bytes);
    free(x->recv_offset);
    free(x->cursor);
    free(x);
    m->xchg = NULL;
}

/* The owner's read of its component at t: the status of its steps and
 * writes since the last read comes first. */
static rtcosim_status own_read(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                               rtcosim_error *own, bool *unusual)
{
    master_component *mc = &m->comps[comp];
    remote *r = m->xchg->comps[comp].r;
    rtcosim_status st = RTCOSIM_OK;
    if (r->pending == RTCOSIM_OK)
        st = master_publish_prepare(m, comp, t, own); /* sets through the proxy: pending */
    if (r->pending != RTCOSIM_OK) {
        st = r->pending;
        *own = r->pending_err;
    }
    for (unsigned i = 0; st == RTCOSIM_OK && i < mc->out_type_count; i++) {
        unsigned ty = mc->out_types[i];
        st = rtcosim_component_get(r->inner, (rtcosim_type)ty, mc->out[ty].vrs, mc->out[ty].n,
                                   mc->out[ty].values, own);
    }
    r->pending = RTCOSIM_OK;
    *unusual = st == RTCOSIM_OK && r->unusual_step;
    return st;
}

static unsigned char *pack(const master_component *mc, unsigned char *p)
{
    for (unsigned i = 0; i < mc->out_type_count; i++) {
        const typed_batch *b = &mc->out[mc->out_types[i]];
        size_t bytes = b->n * rtcosim_type_size(mc->out_types[i]);
        memcpy(p, b->values, bytes);
        p += bytes;
    }
    return p;
}

static void unpack(master_component *mc, const unsigned char *p)
{
    for (unsigned i = 0; i < mc->out_type_count; i++) {
        typed_batch *b = &mc->out[mc->out_types[i]];
        size_t bytes = b->n * rtcosim_type_size(mc->out_types[i]);
        memcpy(b->values, p, bytes);
        p += bytes;
    }
}

static rtcosim_status failure(const xcomp *xc, rtcosim_status status, bool unusual,
                              const char *text, rtcosim_error *err)
{
    if (status == RTCOSIM_OK && unusual)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "component '%s' on rank %d returned"
                                 " early, asked for event handling or to terminate: not"
                                 " supported with --distribute", xc->r->name, xc->owner);
    return rtcosim_error_set(err, status, "component '%s' on rank %d: %s", xc->r->name,
                             xc->owner, text);
}

static void count_call(master_exchange *x, int64_t t0)
{
    x->d->call_ns += master_distribute_now_ns() - t0;
    x->d->calls++;
}

/* The end of the Jacobi round from list[from]: before a feedthrough
 * component whose inputs are refreshed at t from a component publishing
 * earlier in the round on another rank (the single-process master reads
 * them in list order; one on the same rank has its samples taken at once). */
static size_t round_end(rtcosim_master *m, const size_t *list, size_t from, size_t n,
                        rtcosim_time_ns t)
{
    master_exchange *x = m->xchg;
    uint64_t gen = ++x->stamp_gen;
    size_t end = from;
    for (; end < n; end++) {
        const master_component *mc = &m->comps[list[end]];
        if (end > from && mc->feedthrough && t != m->start) {
            bool waits = false;
            for (size_t i = 0; i < mc->conns_in_count && !waits; i++) {
                size_t from_comp = m->conns[mc->conns_in[i]].from;
                waits = x->stamp[from_comp] == gen &&
                        x->comps[from_comp].owner != x->comps[list[end]].owner;
            }
            if (waits)
                break;
        }
        x->stamp[list[end]] = gen;
    }
    return end;
}

/* One Jacobi round: list[0..n) publish at t with one collective. */
static rtcosim_status jacobi_round(rtcosim_master *m, const size_t *list, size_t n,
                                   rtcosim_time_ns t, rtcosim_error *err)
{
    master_exchange *x = m->xchg;
    const rtcosim_transport *tr = x->t;
    const int me = tr->rank;
    const size_t ranks = (size_t)tr->size;
    wire_status mine = {RTCOSIM_OK, 0, INT64_MAX};
    rtcosim_error own = {0};
    unsigned char *p = x->send + sizeof mine;
    bool crossing = false;
    for (size_t r = 0; r < ranks; r++)
        x->recv_bytes[r] = sizeof(wire_status);
    for (size_t i = 0; i < n; i++) {
        const xcomp *xc = &x->comps[list[i]];
        if (xc->owner == me && mine.position == INT64_MAX) {
            bool unusual = false;
            rtcosim_status st = own_read(m, list[i], t, &own, &unusual);
            if (st != RTCOSIM_OK || unusual)
                mine = (wire_status){st, unusual, (int64_t)i};
            else /* before a later component of this rank refreshes from them (the
                  * samples of different connections do not interact) */
                master_publish_samples(m, list[i], t);
        }
        if (!xc->crosses)
            continue;
        crossing = true;
        x->recv_bytes[xc->owner] += xc->bytes;
        if (xc->owner == me)
            p = pack(&m->comps[list[i]], p);
    }
    if (!crossing) {
        /* No value leaves a rank in this round (one rank, or a multi-rate
         * tick of components read only where they run): no exchange. */
        if (mine.position == INT64_MAX)
            goto publish;
        x->d->failure_shared = ranks == 1;
        const xcomp *xc = &x->comps[list[mine.position]];
        return failure(xc, mine.status, mine.unusual, own.message, err);
    }
    memcpy(x->send, &mine, sizeof mine);
    for (size_t r = 0, off = 0; r < ranks; r++) {
        x->recv_offset[r] = off;
        x->cursor[r] = off + sizeof(wire_status);
        off += x->recv_bytes[r];
    }
    int64_t t0 = master_distribute_now_ns();
    rtcosim_status st = tr->allgatherv(tr->context, x->send, x->recv_bytes[me], x->recv,
                                       x->recv_bytes, x->recv_offset, err);
    count_call(x, t0);
    if (st != RTCOSIM_OK) {
        x->d->failure_shared = false;
        return st;
    }
    /* The first failure in list order, whichever rank had it: every rank
     * stops on the same component, as the single-process master does. */
    wire_status first = mine;
    for (size_t r = 0; r < ranks; r++) {
        wire_status h;
        memcpy(&h, x->recv + x->recv_offset[r], sizeof h);
        if (h.position < first.position)
            first = h;
    }
    if (first.position != INT64_MAX) {
        const xcomp *xc = &x->comps[list[first.position]];
        char text[RTCOSIM_ERROR_MESSAGE_MAX] = "";
        if (xc->owner == me)
            memcpy(text, own.message, sizeof text);
        if (first.status != RTCOSIM_OK) {
            t0 = master_distribute_now_ns();
            st = tr->broadcast(tr->context, text, sizeof text, xc->owner, err);
            count_call(x, t0);
            if (st != RTCOSIM_OK) {
                x->d->failure_shared = false;
                return st;
            }
        }
        text[sizeof text - 1] = 0;
        x->d->failure_shared = true;
        return failure(xc, (rtcosim_status)first.status, first.unusual, text, err);
    }
    for (size_t i = 0; i < n; i++) {
        const xcomp *xc = &x->comps[list[i]];
        if (!xc->crosses)
            continue;
        if (xc->owner != me)
            unpack(&m->comps[list[i]], x->recv + x->cursor[xc->owner]);
        x->cursor[xc->owner] += xc->bytes;
    }
publish:
    for (size_t i = 0; i < n; i++)
        if (x->comps[list[i]].owner != me)
            master_publish_samples(m, list[i], t);
    return RTCOSIM_OK;
}

rtcosim_status master_exchange_publish(rtcosim_master *m, const size_t *list, size_t n,
                                       rtcosim_time_ns t, rtcosim_error *err)
{
    for (size_t from = 0, end; from < n; from = end) {
        end = round_end(m, list, from, n, t);
        rtcosim_status st = jacobi_round(m, list + from, end - from, t, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status master_exchange_publish_one(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                           rtcosim_error *err)
{
    master_exchange *x = m->xchg;
    const rtcosim_transport *tr = x->t;
    xcomp *xc = &x->comps[comp];
    master_component *mc = &m->comps[comp];
    const size_t head = sizeof(wire_status), size = head + xc->bytes;
    rtcosim_status st;
    /* every other rank reads it: all stop on its failure together */
    const bool everyone = xc->reader_count + 1 == (size_t)tr->size;
    if (xc->owner == tr->rank) {
        rtcosim_error own = {0};
        bool unusual = false;
        rtcosim_status status = own_read(m, comp, t, &own, &unusual);
        if (xc->reader_count) {
            int64_t t0 = master_distribute_now_ns();
            /* the previous step's sends of this component: long done */
            if ((st = tr->wait(tr->context, xc->requests, xc->in_flight, err)) != RTCOSIM_OK) {
                x->d->failure_shared = false;
                return st;
            }
            xc->in_flight = 0;
            wire_status h = {status, unusual, 0};
            memcpy(xc->msg, &h, head);
            pack(mc, xc->msg + head);
            memcpy(xc->text, own.message, sizeof xc->text);
            unsigned char *req = xc->requests;
            for (size_t i = 0; i < xc->reader_count; i++) {
                st = tr->isend(tr->context, xc->msg, size, xc->readers[i], TAG_VALUES,
                               req + xc->in_flight++ * tr->request_bytes, err);
                if (st == RTCOSIM_OK && status != RTCOSIM_OK)
                    st = tr->isend(tr->context, xc->text, sizeof xc->text, xc->readers[i],
                                   TAG_TEXT, req + xc->in_flight++ * tr->request_bytes, err);
                if (st != RTCOSIM_OK) {
                    x->d->failure_shared = false;
                    return st;
                }
            }
            x->d->calls += xc->reader_count;
            x->d->call_ns += master_distribute_now_ns() - t0;
        }
        if (status != RTCOSIM_OK || unusual) {
            x->d->failure_shared = everyone;
            return failure(xc, status, unusual, own.message, err);
        }
    } else if (xc->read_here) {
        int64_t t0 = master_distribute_now_ns();
        st = tr->recv(tr->context, xc->msg, size, xc->owner, TAG_VALUES, err);
        count_call(x, t0);
        if (st != RTCOSIM_OK) {
            x->d->failure_shared = false;
            return st;
        }
        wire_status h;
        memcpy(&h, xc->msg, head);
        if (h.status != RTCOSIM_OK || h.unusual) {
            char text[RTCOSIM_ERROR_MESSAGE_MAX] = "";
            if (h.status != RTCOSIM_OK &&
                (st = tr->recv(tr->context, text, sizeof text, xc->owner, TAG_TEXT, err)) !=
                    RTCOSIM_OK) {
                x->d->failure_shared = false;
                return st;
            }
            text[sizeof text - 1] = 0;
            x->d->failure_shared = everyone;
            return failure(xc, (rtcosim_status)h.status, h.unusual, text, err);
        }
        unpack(mc, xc->msg + head);
    }
    master_publish_samples(m, comp, t);
    return RTCOSIM_OK;
}
