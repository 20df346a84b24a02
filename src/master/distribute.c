/* The proxy of a component that runs on another rank (or on this one, for
 * the others): every rank runs the same master, so the calls on a component
 * come in the same order everywhere. Lifecycle calls and reads outside a
 * macro step (initialization) are a broadcast from the component's rank of
 * its status and values; the reads of a step go through
 * distribute_exchange.c. Steps and writes return at once and their status
 * travels with the next answer, so the ranks step their components
 * concurrently. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "master/distribute_internal.h"

/* What a broadcast carries before the values. */
typedef struct wire_head {
    int32_t status;
    uint32_t pad;
    int64_t bytes;
} wire_head;

int64_t master_distribute_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static rtcosim_status bcast(remote *r, void *data, size_t bytes, rtcosim_error *err)
{
    const rtcosim_transport *t = r->d->t;
    int64_t t0 = master_distribute_now_ns();
    rtcosim_status st = t->broadcast(t->context, data, bytes, r->owner, err);
    r->d->call_ns += master_distribute_now_ns() - t0;
    r->d->calls++;
    return st;
}

/* One answer from the owner: its status (and message), then `bytes` of
 * values (the owner's are at values already; the others receive them). */
static rtcosim_status answer(remote *r, rtcosim_status owner_status,
                             const rtcosim_error *owner_err, void *values, size_t bytes,
                             rtcosim_error *err)
{
    size_t need = sizeof(wire_head) + bytes;
    if (need > r->cap) {
        unsigned char *p = realloc(r->buf, need);
        if (!p) /* every rank sizes alike: all fail here together */
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "component '%s': out of memory",
                                     r->name);
        r->buf = p;
        r->cap = need;
    }
    wire_head h = {.status = owner_status, .bytes = (int64_t)bytes};
    if (r->mine) {
        memcpy(r->buf, &h, sizeof h);
        if (bytes && owner_status == RTCOSIM_OK)
            memcpy(r->buf + sizeof h, values, bytes);
    }
    rtcosim_status st = bcast(r, r->buf, need, err);
    if (st != RTCOSIM_OK)
        return st;
    memcpy(&h, r->buf, sizeof h);
    r->d->failure_shared = true; /* a broadcast: every rank sees the status */
    if (h.status != RTCOSIM_OK) {
        char text[RTCOSIM_ERROR_MESSAGE_MAX] = "";
        if (r->mine)
            memcpy(text, owner_err->message, sizeof text);
        st = bcast(r, text, sizeof text, err);
        if (st != RTCOSIM_OK)
            return st;
        text[sizeof text - 1] = 0;
        return rtcosim_error_set(err, (rtcosim_status)h.status, "component '%s' on rank %d: %s",
                                 r->name, r->owner, text);
    }
    if (!r->mine && bytes)
        memcpy(values, r->buf + sizeof h, bytes);
    return RTCOSIM_OK;
}

/* A lifecycle call: run by the owner, its status told to all. */
#define LIFECYCLE(call)                                                                  \
    remote *r = self;                                                                    \
    rtcosim_error own = {0};                                                             \
    rtcosim_status st = RTCOSIM_OK;                                                      \
    if (r->mine)                                                                         \
        st = r->pending != RTCOSIM_OK ? (own = r->pending_err, r->pending) : (call);     \
    r->pending = RTCOSIM_OK;                                                             \
    return answer(r, st, &own, NULL, 0, err)

static rtcosim_status remote_instantiate(void *self, const char *name, rtcosim_error *err)
{
    LIFECYCLE(rtcosim_component_instantiate(r->inner, name, &own));
}

static rtcosim_status remote_setup(void *self, double tolerance, rtcosim_time_ns start,
                                   rtcosim_time_ns stop, rtcosim_error *err)
{
    LIFECYCLE(rtcosim_component_setup(r->inner, tolerance, start, stop, &own));
}

static rtcosim_status remote_enter_init(void *self, rtcosim_error *err)
{
    LIFECYCLE(rtcosim_component_enter_init(r->inner, &own));
}

static rtcosim_status remote_exit_init(void *self, rtcosim_error *err)
{
    LIFECYCLE(rtcosim_component_exit_init(r->inner, &own));
}

static rtcosim_status remote_terminate(void *self, rtcosim_error *err)
{
    LIFECYCLE(rtcosim_component_terminate(r->inner, &own));
}

static void keep_pending(remote *r, rtcosim_status st, const rtcosim_error *e)
{
    if (st != RTCOSIM_OK && r->pending == RTCOSIM_OK) {
        r->pending = st;
        r->pending_err = *e;
    }
}

/* Every rank answers the step with its plain outcome; the owner's real one
 * comes with the next exchange: a failure as the pending status, a request
 * to terminate (on a discarded step too, FMI 2.0 section 4.2.3, FMI 3.0
 * section 4.2.1) as `ended`. Early returns and event requests are not acted
 * on by the single-process master either (it never enables them). */
static rtcosim_status remote_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                     rtcosim_step_result *result, rtcosim_error *err)
{
    (void)err;
    remote *r = self;
    if (r->mine && r->pending == RTCOSIM_OK) {
        rtcosim_error e = {0};
        rtcosim_step_result real = {0};
        rtcosim_status st = rtcosim_component_do_step(r->inner, t, h, &real, &e);
        if (st == RTCOSIM_EDISCARD && real.terminate_requested)
            r->ended = REMOTE_DISCARD;
        else if (st == RTCOSIM_OK && real.terminate_requested)
            r->ended = REMOTE_TERMINATE;
        else
            keep_pending(r, st, &e);
    }
    *result = (rtcosim_step_result){.last_successful_time = t + h};
    return RTCOSIM_OK;
}

static rtcosim_status remote_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                 void *values, rtcosim_error *err)
{
    remote *r = self;
    if (type == RTCOSIM_TYPE_STRING || type == RTCOSIM_TYPE_BINARY)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "component '%s': string and binary"
                                 " values do not cross ranks yet", r->name);
    rtcosim_error own = {0};
    rtcosim_status st = RTCOSIM_OK;
    if (r->mine) {
        if (r->pending != RTCOSIM_OK) {
            st = r->pending;
            own = r->pending_err;
        } else {
            st = rtcosim_component_get(r->inner, type, vrs, n, values, &own);
        }
    }
    r->pending = RTCOSIM_OK;
    return answer(r, st, &own, values, n * rtcosim_type_size(type), err);
}

static rtcosim_status remote_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                 const void *values, rtcosim_error *err)
{
    (void)err;
    remote *r = self;
    if (r->mine && r->pending == RTCOSIM_OK) {
        rtcosim_error e = {0};
        keep_pending(r, rtcosim_component_set(r->inner, type, vrs, n, values, &e), &e);
    }
    return RTCOSIM_OK;
}

static rtcosim_status remote_set_input_derivatives(void *self, const uint32_t *vrs, size_t n,
                                                   int order, const double *values,
                                                   rtcosim_error *err)
{
    (void)err;
    remote *r = self;
    if (r->mine && r->pending == RTCOSIM_OK) {
        rtcosim_error e = {0};
        keep_pending(r, rtcosim_component_set_input_derivatives(r->inner, vrs, n, order, values,
                                                                &e), &e);
    }
    return RTCOSIM_OK;
}

static void remote_destroy(void *self)
{
    remote *r = self;
    rtcosim_component_free(r->inner);
    free(r->buf);
    free(r->name);
    free(r);
}

static const rtcosim_component_ops remote_ops = {
    .kind = "remote",
    .instantiate = remote_instantiate,
    .setup = remote_setup,
    .enter_init = remote_enter_init,
    .exit_init = remote_exit_init,
    .do_step = remote_do_step,
    .get = remote_get,
    .set = remote_set,
    .set_input_derivatives = remote_set_input_derivatives,
    .terminate = remote_terminate,
    .destroy = remote_destroy,
};

rtcosim_status rtcosim_distribution_create(const rtcosim_transport *t,
                                           rtcosim_distribution **out, rtcosim_error *err)
{
    *out = NULL;
    if (!t || !t->broadcast || t->size < 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "distribute: a transport with broadcast"
                                 " is needed");
    rtcosim_distribution *d = calloc(1, sizeof *d);
    if (!d)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "distribute: out of memory");
    d->t = t;
    *out = d;
    return RTCOSIM_OK;
}

void rtcosim_distribution_free(rtcosim_distribution *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->place_count; i++)
        free(d->places[i].name);
    for (size_t i = 0; i < d->wrapped; i++)
        free(d->names[i]);
    free(d->places);
    free(d->names);
    free(d->ranks);
    free(d);
}

rtcosim_status rtcosim_distribution_place(rtcosim_distribution *d, const char *component,
                                          int rank, rtcosim_error *err)
{
    if (!component || !*component)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "--place: no component name");
    if (rank < 0 || rank >= d->t->size)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "--place %s=%d: there are %d rank(s)",
                                 component, rank, d->t->size);
    placement *p = realloc(d->places, (d->place_count + 1) * sizeof *p);
    if (!p)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "distribute: out of memory");
    d->places = p;
    char *name = strdup(component);
    if (!name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "distribute: out of memory");
    d->places[d->place_count++] = (placement){name, rank, false};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_distribution_wrap(void *distribution, const char *name,
                                         rtcosim_component *component, rtcosim_component **out,
                                         rtcosim_error *err)
{
    rtcosim_distribution *d = distribution;
    int rank = (int)(d->wrapped % (size_t)d->t->size);
    for (size_t i = 0; i < d->place_count; i++)
        if (strcmp(d->places[i].name, name) == 0) {
            rank = d->places[i].rank;
            d->places[i].used = true;
        }
    remote *r = calloc(1, sizeof *r);
    char **names = realloc(d->names, (d->wrapped + 1) * sizeof *names);
    if (names)
        d->names = names;
    int *ranks = realloc(d->ranks, (d->wrapped + 1) * sizeof *ranks);
    if (ranks)
        d->ranks = ranks;
    char *copy = strdup(name);
    char *copy2 = strdup(name);
    if (!r || !names || !ranks || !copy || !copy2) {
        free(r), free(copy), free(copy2);
        rtcosim_component_free(component);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "distribute: out of memory");
    }
    d->names[d->wrapped] = copy2;
    d->ranks[d->wrapped] = rank;
    d->wrapped++;
    *r = (remote){.d = d, .inner = component, .name = copy, .owner = rank,
                  .mine = rank == d->t->rank};
    /* the proxy keeps no state snapshots and does not return early */
    rtcosim_component_desc desc = *rtcosim_component_description(component);
    desc.capabilities.can_get_set_state = false;
    desc.capabilities.can_serialize_state = false;
    desc.capabilities.can_return_early = false;
    desc.capabilities.has_event_mode = false;
    return rtcosim_component_create(&remote_ops, r, &desc, out, err);
}

rtcosim_status rtcosim_distribution_check_placed(const rtcosim_distribution *d,
                                                 rtcosim_error *err)
{
    for (size_t i = 0; i < d->place_count; i++)
        if (!d->places[i].used)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "--place: the system has no"
                                     " component '%s'", d->places[i].name);
    return RTCOSIM_OK;
}

remote *master_remote_of(const rtcosim_component *c)
{
    if (c && strcmp(rtcosim_component_kind(c), remote_ops.kind) == 0)
        return rtcosim_component_impl(c);
    return NULL;
}

const rtcosim_component *rtcosim_distribution_inner(const rtcosim_component *c)
{
    if (c && strcmp(rtcosim_component_kind(c), remote_ops.kind) == 0)
        return ((const remote *)rtcosim_component_impl(c))->inner;
    return c;
}

size_t rtcosim_distribution_count(const rtcosim_distribution *d) { return d->wrapped; }

const char *rtcosim_distribution_name(const rtcosim_distribution *d, size_t i)
{
    return i < d->wrapped ? d->names[i] : NULL;
}

int rtcosim_distribution_rank_of(const rtcosim_distribution *d, const char *component)
{
    for (size_t i = 0; i < d->wrapped; i++)
        if (strcmp(d->names[i], component) == 0)
            return d->ranks[i];
    return -1;
}

void rtcosim_distribution_stats(const rtcosim_distribution *d, uint64_t *calls,
                                double *seconds)
{
    *calls = d->calls;
    *seconds = (double)d->call_ns * 1e-9;
}

bool rtcosim_distribution_failure_shared(const rtcosim_distribution *d)
{
    return d->failure_shared;
}
