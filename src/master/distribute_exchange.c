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
 * point to point; every other rank receives at least its status. Each
 * message carries the status, so that a failure stops the run naming the
 * component and its rank, and a request to terminate (FMI 2.0 fmi2Terminated,
 * FMI 3.0 terminateSimulation, also on a discarded step) ends the run on
 * every rank in the same tick, as in one process (step.c's step_outcome).
 * Jacobi: the first round of a tick carries the step outcomes of every
 * component that stepped in it, so that with more than one rank it happens
 * every tick, with the status alone when no value crosses. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "master/distribute_internal.h"
#include "master/master_internal.h"

enum { TAG_VALUES = 41, TAG_TEXT = 42 };

/* What precedes the values. Jacobi: a rank's first failing read as its
 * position in the round's list, and (first round of a tick) the outcomes of
 * its components' steps as positions in m->active: every rank merges them
 * into the same decision. Gauss-Seidel: the component's status and, as a
 * position 0, whether it asked to terminate or discarded its step. */
typedef struct wire_status {
    int32_t status;      /* of the read at `position` / of the component */
    int32_t step_status; /* of the step at `step_error` */
    int64_t position;    /* INT64_MAX: none */
    int64_t step_error;  /* the first failing step (or input set); INT64_MAX: none */
    int64_t terminate;   /* the first step asking to terminate; INT64_MAX: none */
    int64_t discard;     /* the last discarded step asking to terminate; -1: none */
    int64_t discards;    /* how many such */
} wire_status;

static const wire_status none = {RTCOSIM_OK, RTCOSIM_OK, INT64_MAX, INT64_MAX, INT64_MAX, -1, 0};

typedef struct xcomp {
    remote *r;
    int owner;
    size_t bytes;         /* its out batches, every type */
    bool crosses;         /* some rank other than its owner reads them */
    bool read_here;       /* this rank reads them and does not own them */
    int *readers;         /* Jacobi: the ranks other than the owner reading them;
                           * Gauss-Seidel: every other rank (the status) */
    bool *values_to;      /* Gauss-Seidel: [reader_count] the reader takes the values */
    size_t reader_count;
    bool status_here;     /* Gauss-Seidel: this rank receives its status */
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
    /* Jacobi: this rank's outputs before the first round's reads, put back
     * when a step elsewhere was discarded (one process would not have read) */
    unsigned char *backup;
    char step_text[RTCOSIM_ERROR_MESSAGE_MAX]; /* this rank's first failing step */
} master_exchange;

static rtcosim_status oom(rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "distribute: out of memory");
}

/* The first component placed on a rank (--distribute), or NULL in one process. */
static remote *first_remote(const rtcosim_master *m)
{
    remote *first = NULL;
    for (size_t c = 0; c < m->comp_count && !first; c++)
        first = master_remote_of(m->comps[c].c);
    return first;
}

rtcosim_status master_exchange_check(const rtcosim_master *m, rtcosim_error *err)
{
    if (!first_remote(m))
        return RTCOSIM_OK;
    /* (rank 0 writes every component's results, so any would cross) */
    for (size_t i = 0; i < m->conn_count; i++)
        if (master_type_owned(m->conns[i].type))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "distribute: connection %s: "
                                     "%s values do not cross MPI ranks yet (run the system "
                                     "in one process)", m->conns[i].name,
                                     rtcosim_type_name(m->conns[i].type));
    return RTCOSIM_OK;
}

rtcosim_status master_exchange_create(rtcosim_master *m, rtcosim_error *err)
{
    remote *first = first_remote(m);
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
    size_t total = 0, owned = 0;
    const bool gs = m->order == RTCOSIM_ORDER_GAUSS_SEIDEL;
    rtcosim_status st = RTCOSIM_OK;
    for (size_t c = 0; c < n && st == RTCOSIM_OK; c++) {
        xcomp *xc = &x->comps[c];
        const master_component *mc = &m->comps[c];
        for (unsigned i = 0; i < mc->out_type_count; i++)
            xc->bytes += mc->out[mc->out_types[i]].n * rtcosim_type_size(mc->out_types[i]);
        if (!(xc->readers = calloc(ranks, sizeof *xc->readers)) ||
            !(xc->values_to = calloc(ranks, sizeof *xc->values_to))) {
            st = oom(err);
            break;
        }
        for (size_t r = 0; r < ranks; r++)
            if ((reads[c * ranks + r] || gs) && (int)r != xc->owner) {
                xc->values_to[xc->reader_count] = reads[c * ranks + r];
                xc->readers[xc->reader_count++] = (int)r;
            }
        xc->read_here = t->rank != xc->owner && reads[c * ranks + (size_t)t->rank];
        xc->crosses = false;
        for (size_t r = 0; r < ranks; r++)
            xc->crosses |= reads[c * ranks + r] && (int)r != xc->owner;
        xc->status_here = t->rank != xc->owner && (gs || xc->read_here);
        if (t->rank == xc->owner)
            owned += xc->bytes;
        for (unsigned i = 0; xc->crosses && i < mc->out_type_count; i++)
            if (mc->out_types[i] == RTCOSIM_TYPE_STRING || mc->out_types[i] == RTCOSIM_TYPE_BINARY)
                st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "component '%s': string and"
                                       " binary values do not cross ranks yet", mc->name);
        if (xc->crosses)
            total += xc->bytes;
        if (((xc->reader_count && t->rank == xc->owner) || xc->status_here) &&
            !(xc->msg = malloc(sizeof(wire_status) + xc->bytes)))
            st = oom(err);
        if (xc->reader_count && t->rank == xc->owner &&
            !(xc->requests = calloc(2 * xc->reader_count, t->request_bytes)))
            st = oom(err);
    }
    free(reads);
    if (st != RTCOSIM_OK)
        return st;
    x->send = malloc(sizeof(wire_status) + total);
    x->recv = malloc(ranks * sizeof(wire_status) + total);
    x->backup = malloc(owned + 1);
    return x->send && x->recv && x->backup ? RTCOSIM_OK : oom(err);
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
        free(xc->values_to);
        free(xc->msg);
        free(xc->requests);
    }
    free(x->comps);
    free(x->stamp);
    free(x->send);
    free(x->recv);
    free(x->backup);
    free(x->recv_bytes);
    free(x->recv_offset);
    free(x->cursor);
    free(x);
    m->xchg = NULL;
}

/* The owner's read of its component at t: the status of its steps and
 * writes since the last read comes first. */
static rtcosim_status own_read(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                               rtcosim_error *own)
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
        if (st == RTCOSIM_OK && master_type_owned((rtcosim_type)ty))
            st = master_text_keep_all(mc, (rtcosim_type)ty, own);
    }
    r->pending = RTCOSIM_OK;
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

static const unsigned char *unpack(master_component *mc, const unsigned char *p)
{
    for (unsigned i = 0; i < mc->out_type_count; i++) {
        typed_batch *b = &mc->out[mc->out_types[i]];
        size_t bytes = b->n * rtcosim_type_size(mc->out_types[i]);
        memcpy(b->values, p, bytes);
        p += bytes;
    }
    return p;
}

static rtcosim_status failure(const xcomp *xc, rtcosim_status status, const char *text,
                              rtcosim_error *err)
{
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

/* This rank's step outcomes of the tick (its components in m->active). */
static wire_status step_outcomes(rtcosim_master *m)
{
    master_exchange *x = m->xchg;
    wire_status s = none;
    for (size_t a = 0; a < m->active_count; a++) {
        remote *r = x->comps[m->active[a]].r;
        if (x->comps[m->active[a]].owner != x->t->rank)
            continue;
        if (r->pending != RTCOSIM_OK && s.step_error == INT64_MAX) {
            s.step_error = (int64_t)a;
            s.step_status = r->pending;
            memcpy(x->step_text, r->pending_err.message, sizeof x->step_text);
        }
        if (r->ended == REMOTE_DISCARD) {
            s.discard = (int64_t)a;
            s.discards++;
        } else if (r->ended == REMOTE_TERMINATE && s.terminate == INT64_MAX) {
            s.terminate = (int64_t)a;
        }
        r->ended = REMOTE_RUNS;
    }
    return s;
}

static void merge(wire_status *into, const wire_status *h)
{
    if (h->position < into->position) {
        into->position = h->position;
        into->status = h->status;
    }
    if (h->step_error < into->step_error) {
        into->step_error = h->step_error;
        into->step_status = h->step_status;
    }
    if (h->terminate < into->terminate)
        into->terminate = h->terminate;
    if (h->discard > into->discard)
        into->discard = h->discard;
    into->discards += h->discards;
}

/* The failure text of `owner`, broadcast from it when the decision was
 * reached over ranks (own: this rank's text). */
static rtcosim_status failure_text(master_exchange *x, int owner, bool over_ranks,
                                   const char *own, char *text, rtcosim_error *err)
{
    memset(text, 0, RTCOSIM_ERROR_MESSAGE_MAX);
    if (owner == x->t->rank)
        memcpy(text, own, RTCOSIM_ERROR_MESSAGE_MAX);
    if (over_ranks) {
        int64_t t0 = master_distribute_now_ns();
        rtcosim_status st = x->t->broadcast(x->t->context, text, RTCOSIM_ERROR_MESSAGE_MAX, owner,
                                            err);
        count_call(x, t0);
        if (st != RTCOSIM_OK) {
            x->d->failure_shared = false;
            return st;
        }
    }
    text[RTCOSIM_ERROR_MESSAGE_MAX - 1] = 0;
    return RTCOSIM_OK;
}

/* One Jacobi round: list[0..n) publish at t with one collective. The first
 * round of a tick (steps: this rank's step outcomes) decides, on every rank
 * alike, as step_outcome in step.c does in one process: a failed step ends
 * the run (the first in m->active); else a discarded step asking to
 * terminate ends it at the tick's start (the last such names it), nothing
 * published; else a step asking to terminate ends it after this tick. */
static rtcosim_status jacobi_round(rtcosim_master *m, const size_t *list, size_t n,
                                   rtcosim_time_ns t, const wire_status *steps,
                                   rtcosim_error *err)
{
    master_exchange *x = m->xchg;
    const rtcosim_transport *tr = x->t;
    const int me = tr->rank;
    const size_t ranks = (size_t)tr->size;
    wire_status mine = steps ? *steps : none;
    rtcosim_error own = {0};
    unsigned char *p = x->send + sizeof mine, *saved = x->backup;
    bool crossing = false;
    /* a discarded step here ends the tick unread (its outputs as before) */
    const bool reads = !steps || steps->discards == 0;
    for (size_t r = 0; r < ranks; r++)
        x->recv_bytes[r] = sizeof(wire_status);
    for (size_t i = 0; i < n; i++) {
        const xcomp *xc = &x->comps[list[i]];
        if (xc->owner == me && mine.position == INT64_MAX && reads) {
            if (steps && ranks > 1)
                saved = pack(&m->comps[list[i]], saved);
            rtcosim_status st = own_read(m, list[i], t, &own);
            if (st != RTCOSIM_OK)
                mine.position = (int64_t)i, mine.status = st;
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
    wire_status first = mine;
    /* With more than one rank the first round always goes (the step
     * outcomes); a later one only when values cross. */
    const bool over_ranks = ranks > 1 && (crossing || steps);
    if (over_ranks) {
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
        /* The same merge on every rank: every rank stops on the same
         * component, as the single-process master does. */
        first = none;
        for (size_t r = 0; r < ranks; r++) {
            wire_status h;
            memcpy(&h, x->recv + x->recv_offset[r], sizeof h);
            merge(&first, &h);
        }
    }
    x->d->failure_shared = over_ranks || ranks == 1;
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    if (first.step_error != INT64_MAX) {
        const xcomp *xc = &x->comps[m->active[first.step_error]];
        rtcosim_status st = failure_text(x, xc->owner, over_ranks, x->step_text, text, err);
        return st != RTCOSIM_OK ? st : failure(xc, (rtcosim_status)first.step_status, text, err);
    }
    if (first.discards) {
        /* the outputs as one process leaves them: not read in this tick */
        const unsigned char *q = x->backup;
        for (size_t i = 0; reads && ranks > 1 && q < saved && i < n; i++)
            if (x->comps[list[i]].owner == me)
                q = unpack(&m->comps[list[i]], q);
        master_step_ended(m, &m->comps[m->active[first.discard]], true);
        m->steps -= (uint64_t)(first.discards - 1); /* step_outcome counts each */
        return RTCOSIM_OK;
    }
    if (first.terminate != INT64_MAX)
        master_step_ended(m, &m->comps[m->active[first.terminate]], false);
    if (first.position != INT64_MAX) {
        const xcomp *xc = &x->comps[list[first.position]];
        rtcosim_status st = failure_text(x, xc->owner, over_ranks, own.message, text, err);
        return st != RTCOSIM_OK ? st : failure(xc, (rtcosim_status)first.status, text, err);
    }
    for (size_t i = 0; over_ranks && i < n; i++) {
        const xcomp *xc = &x->comps[list[i]];
        if (!xc->crosses)
            continue;
        if (xc->owner != me)
            unpack(&m->comps[list[i]], x->recv + x->cursor[xc->owner]);
        x->cursor[xc->owner] += xc->bytes;
    }
    for (size_t i = 0; i < n; i++)
        if (x->comps[list[i]].owner != me)
            master_publish_samples(m, list[i], t);
    return RTCOSIM_OK;
}

rtcosim_status master_exchange_publish(rtcosim_master *m, const size_t *list, size_t n,
                                       rtcosim_time_ns t, rtcosim_error *err)
{
    const wire_status steps = step_outcomes(m);
    for (size_t from = 0, end; from < n; from = end) {
        end = round_end(m, list, from, n, t);
        rtcosim_status st =
            jacobi_round(m, list + from, end - from, t, from == 0 ? &steps : NULL, err);
        if (st != RTCOSIM_OK || m->discarded)
            return st;
    }
    return RTCOSIM_OK;
}

/* Gauss-Seidel: comp's outcome, applied on every rank as step_outcome does. */
static rtcosim_status gs_outcome(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                 const wire_status *h, const char *text, rtcosim_error *err)
{
    master_exchange *x = m->xchg;
    const xcomp *xc = &x->comps[comp];
    /* every other rank hears of it (with more than one rank): all stop together */
    x->d->failure_shared = xc->reader_count + 1 == (size_t)x->t->size;
    if (h->status != RTCOSIM_OK)
        return failure(xc, (rtcosim_status)h->status, text, err);
    if (h->discards) {
        master_step_ended(m, &m->comps[comp], true);
        return RTCOSIM_OK;
    }
    if (h->terminate != INT64_MAX)
        master_step_ended(m, &m->comps[comp], false);
    master_publish_samples(m, comp, t);
    return RTCOSIM_OK;
}

rtcosim_status master_exchange_publish_one(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                           rtcosim_error *err)
{
    master_exchange *x = m->xchg;
    const rtcosim_transport *tr = x->t;
    xcomp *xc = &x->comps[comp];
    master_component *mc = &m->comps[comp];
    const size_t head = sizeof(wire_status);
    rtcosim_status st;
    wire_status h = none;
    if (xc->owner == tr->rank) {
        rtcosim_error own = {0};
        const int ended = xc->r->ended;
        xc->r->ended = REMOTE_RUNS;
        if (ended == REMOTE_DISCARD) { /* one process does not read it */
            h.discard = 0;
            h.discards = 1;
        } else {
            h.status = own_read(m, comp, t, &own);
            if (h.status == RTCOSIM_OK && ended == REMOTE_TERMINATE)
                h.terminate = 0;
        }
        if (xc->reader_count) {
            int64_t t0 = master_distribute_now_ns();
            /* the previous step's sends of this component: long done */
            if ((st = tr->wait(tr->context, xc->requests, xc->in_flight, err)) != RTCOSIM_OK) {
                x->d->failure_shared = false;
                return st;
            }
            xc->in_flight = 0;
            memcpy(xc->msg, &h, head);
            pack(mc, xc->msg + head);
            memcpy(xc->text, own.message, sizeof xc->text);
            unsigned char *req = xc->requests;
            for (size_t i = 0; i < xc->reader_count; i++) {
                size_t size = head + (xc->values_to[i] ? xc->bytes : 0);
                st = tr->isend(tr->context, xc->msg, size, xc->readers[i], TAG_VALUES,
                               req + xc->in_flight++ * tr->request_bytes, err);
                if (st == RTCOSIM_OK && h.status != RTCOSIM_OK)
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
        return gs_outcome(m, comp, t, &h, own.message, err);
    }
    if (!xc->status_here)
        return gs_outcome(m, comp, t, &h, "", err);
    int64_t t0 = master_distribute_now_ns();
    st = tr->recv(tr->context, xc->msg, head + (xc->read_here ? xc->bytes : 0), xc->owner,
                  TAG_VALUES, err);
    count_call(x, t0);
    if (st != RTCOSIM_OK) {
        x->d->failure_shared = false;
        return st;
    }
    memcpy(&h, xc->msg, head);
    char text[RTCOSIM_ERROR_MESSAGE_MAX] = "";
    if (h.status != RTCOSIM_OK) {
        if ((st = tr->recv(tr->context, text, sizeof text, xc->owner, TAG_TEXT, err)) !=
            RTCOSIM_OK) {
            x->d->failure_shared = false;
            return st;
        }
        text[sizeof text - 1] = 0;
    } else if (xc->read_here && !h.discards) {
        unpack(mc, xc->msg + head);
    }
    return gs_outcome(m, comp, t, &h, text, err);
}
