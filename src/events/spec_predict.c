/* Predicted input streams of the speculative scheduler: an LP that lacks the
 * next event of a declared stream processes a prediction of it (values and
 * time from rtcosim_predictor, src/speculate), and the real event's arrival
 * runs the scheme of shared/notes/speculation-scheme.md through
 * rtcosim_predictor_arrive: keep the steps n .. n+m-1 whose cumulative error
 * is within Tc, roll back to the prediction n+m only, correct the later ones.
 *
 * Book-keeping per stream (all on the receiving LP's thread):
 *  - history: the real events observed, indices [hist_base, observed), each
 *    with its stand-in, the event the LP processed for it (the real event
 *    itself, or the prediction it confirmed, which then keeps the real event
 *    "absorbed": owned here until GVT passes it, because its sender may still
 *    cancel it);
 *  - out: the predictions made and not yet confirmed, [observed, next_index),
 *    processed ones first (they are processed in time order).
 * A cancelled real event whose stand-in was processed is cancelled lazily
 * (Gafni's lazy cancellation, per stream): its sender usually sends it again
 * as it re-executes, and a replacement bitwise equal to it at the same time
 * keeps the LP's history (so lazy cancellation never changes a result);
 * measured on the vehicle, these cancellations caused four fifths of all
 * rollbacks at a 10 ms max_ahead. A replacement that differs, or none before
 * GVT passes its time, takes the stream back to before j: the LP rolls
 * back to x[j]'s stand-in, the history is cut at j and the predictor is
 * rebuilt from the history before j (reset and replay of plain observations;
 * the corrected curve of those steps is not replayed: it only steers which
 * later steps roll back). Predictions earlier than the GVT of the real events
 * can no longer be confirmed at their time and are withdrawn until the next
 * real event (so GVT, which may not pass an unconfirmed prediction, moves). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/speculate.h"
#include "spec_internal.h"

enum {
    AHEAD = 8,   /* predictions outstanding per stream (the predictor's horizon) */
    ORDER = 2,   /* of the least-squares predictor: exact for ramps and sines */
    WINDOW = 8,  /* its equations; measured: the predictor's cost per arrival
                  * dominated the vehicle at order 3 over 16 with 32 ahead */
    REFIT = 8,   /* arrivals between least-squares fits (the weights are reused in
                  * between): measured, refitting on every arrival was a tenth of
                  * the CPU time of the vehicle at N = 16 */
    REPLAY = 16, /* observations replayed to rebuild a predictor (>= window + order) */
};

typedef struct stream_obs {
    rtcosim_time_ns t;
    rtcosim_event *real;     /* NULL once committed, or cancelled */
    rtcosim_event *stand_in; /* what the LP processed for it */
    bool cancelled;          /* its sender cancelled it; a replacement may come */
    double v[SPEC_STREAM_WIDTH_MAX];
} stream_obs;

typedef struct spec_stream {
    const spec_prediction_decl *decl;
    double threshold, correction_capacity;
    rtcosim_predictor *pred;
    uint64_t pred_base; /* stream index of the predictor's observation 0 */
    uint64_t tie, last_seq, seq_step;
    stream_obs *hist;
    size_t hist_cap; /* power of two */
    uint64_t hist_base, observed, next_index;
    uint64_t committed; /* entries before it are below GVT: real, stand-in cleared */
    rtcosim_event *out[AHEAD];
    /* New predictions come after `floor`, the time of the last real event
     * or of a cancelled one (which was not below GVT): a prediction is made
     * when a real event arrives or is cancelled, or when the previous
     * prediction is processed, so it is never below a GVT computed without it. */
    rtcosim_time_ns floor;
    /* lazily cancelled history entries form the suffix [first_cancelled,
     * observed) when `cancelled` (see spec_predict_cancel) */
    uint64_t first_cancelled;
    bool cancelled;
    bool retracted;
} spec_stream;

rtcosim_status rtcosim_events_add_prediction(rtcosim_events *sim, rtcosim_lp_id src,
                                             rtcosim_lp_id dst, uint16_t type, size_t width,
                                             const double *value_scale, rtcosim_error *err)
{
    if (src >= sim->lp_count || dst >= sim->lp_count || src == dst)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: prediction %u -> %u needs two"
                                 " different existing LPs", src, dst);
    if (width == 0 || width > SPEC_STREAM_WIDTH_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: prediction '%s' -> '%s': width %zu"
                                 " is not in 1..%d", sim->lps[src]->name, sim->lps[dst]->name,
                                 width, SPEC_STREAM_WIDTH_MAX);
    for (size_t i = 0; value_scale && i < width; i++)
        if (!(value_scale[i] > 0) || isinf(value_scale[i]))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: prediction '%s' -> '%s': value"
                                     " scale %zu must be positive and finite",
                                     sim->lps[src]->name, sim->lps[dst]->name, i);
    for (size_t i = 0; i < sim->prediction_count; i++) {
        spec_prediction_decl *d = &sim->predictions[i];
        if (d->src == src && d->dst == dst && d->type == type)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: prediction '%s' -> '%s' type"
                                     " %u declared twice", sim->lps[src]->name,
                                     sim->lps[dst]->name, type);
    }
    spec_prediction_decl *p = realloc(sim->predictions,
                                      (sim->prediction_count + 1) * sizeof *p);
    if (!p)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    sim->predictions = p;
    spec_prediction_decl *d = &p[sim->prediction_count++];
    memset(d, 0, sizeof *d);
    d->src = src;
    d->dst = dst;
    d->type = type;
    d->width = width;
    for (size_t i = 0; i < width; i++)
        d->scale[i] = value_scale ? value_scale[i] : 1.0;
    return RTCOSIM_OK;
}

static void stream_free(spec_stream *s)
{
    rtcosim_predictor_free(s->pred);
    free(s->hist);
    free(s);
}

void spec_predict_teardown(rtcosim_events *sim)
{
    for (size_t i = 0; i < sim->lp_count; i++) {
        spec_lp *l = sim->lps[i]->spec;
        if (!l)
            continue;
        for (size_t k = 0; k < l->stream_count; k++) {
            spec_stream *s = l->streams[k];
            /* absorbed real events are owned here; the others are freed with
             * the pools */
            for (uint64_t j = s->hist_base; j < s->observed; j++) {
                stream_obs *o = &s->hist[j & (s->hist_cap - 1)];
                if (o->real && (o->real->reserved_ & EV_ABSORBED))
                    o->real->reserved_ = 0; /* the pool memory goes with the pools */
            }
            stream_free(s);
        }
        free(l->streams);
        l->streams = NULL;
        l->stream_count = 0;
    }
}

static rtcosim_status stream_new_predictor(spec_stream *s, rtcosim_error *err)
{
    rtcosim_predictor_config pc = {.width = s->decl->width, .horizon = AHEAD, .order = ORDER,
                                   .window = WINDOW, .refit_interval = REFIT,
                                   .value_scale = s->decl->scale,
                                   .correction_capacity = s->correction_capacity};
    rtcosim_predictor_free(s->pred);
    s->pred = NULL;
    return rtcosim_predictor_create(&pc, &s->pred, err);
}

rtcosim_status spec_predict_setup(rtcosim_events *sim, double threshold,
                                  double correction_capacity, rtcosim_error *err)
{
    for (size_t i = 0; i < sim->prediction_count; i++) {
        const spec_prediction_decl *d = &sim->predictions[i];
        spec_lp *l = sim->lps[d->dst]->spec;
        if (l->conservative)
            continue; /* never speculated on: it waits for the real events */
        if (sim->lp_thread[d->src] == sim->lp_thread[d->dst])
            continue; /* one thread processes in time order: its events are
                       * there before the LP reaches their time (a zero-lookahead
                       * one at most rolls back as any event would), so there is
                       * nothing to predict, only book-keeping to pay */
        spec_stream **list = realloc(l->streams, (l->stream_count + 1) * sizeof *list);
        spec_stream *s = calloc(1, sizeof *s);
        if (list)
            l->streams = list;
        if (!list || !s) {
            free(s);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        }
        s->decl = d;
        s->threshold = threshold;
        s->correction_capacity = correction_capacity;
        s->hist_cap = 64;
        s->hist = calloc(s->hist_cap, sizeof *s->hist);
        rtcosim_status st = s->hist ? stream_new_predictor(s, err)
                                    : rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        l->streams[l->stream_count++] = s;
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

struct spec_stream *spec_predict_stream_of(const rtcosim_lp *lp, const rtcosim_event *ev)
{
    const spec_lp *l = lp->spec;
    for (size_t k = 0; k < l->stream_count; k++)
        if (l->streams[k]->decl->src == ev->src && l->streams[k]->decl->type == ev->type)
            return l->streams[k];
    return NULL;
}

static inline rtcosim_event **out_at(spec_stream *s, uint64_t k) { return &s->out[k % AHEAD]; }

/* Make the prediction of event next_index and queue it, when the curve
 * covers it and it is not past the stop time. */
static rtcosim_status predict_next(spec_thread *th, rtcosim_lp *lp, spec_stream *s,
                                   rtcosim_error *err)
{
    uint64_t k = s->next_index;
    if (s->retracted || s->observed == 0 || k - s->observed >= AHEAD)
        return RTCOSIM_OK;
    rtcosim_time_ns t;
    const double *v = rtcosim_predictor_values_at(s->pred, k - s->pred_base);
    if (!v || !rtcosim_predictor_time_at(s->pred, k - s->pred_base, &t) || t > lp->sim->stop ||
        t <= s->floor || (k > s->observed && t <= (*out_at(s, k - 1))->time))
        return RTCOSIM_OK;
    for (size_t i = 0; i < s->decl->width; i++)
        if (!isfinite(v[i]))
            return RTCOSIM_OK; /* no usable prediction: wait for the real event */
    rtcosim_event *ev = event_pool_get(spec_pool(th));
    if (!ev)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for events");
    ev->time = t;
    ev->tie = s->tie;
    ev->seq = s->last_seq + s->seq_step * (k - s->observed + 1);
    ev->src = s->decl->src;
    ev->dst = lp->id;
    ev->type = s->decl->type;
    ev->size = (uint16_t)(s->decl->width * sizeof(double));
    ev->reserved_ = EV_PREDICTED;
    memcpy(ev->payload, v, ev->size);
    *out_at(s, k) = ev;
    s->next_index = k + 1;
    return spec_enqueue(th, ev, err);
}

/* Withdraw the predictions from index `from` on: the first processed one is
 * undone by a rollback of the LP (which frees it), the rest are cancelled. */
static rtcosim_status drop_predictions(spec_thread *th, rtcosim_lp *lp, spec_stream *s,
                                       uint64_t from, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    uint64_t k = from;
    if (k < s->next_index && ((*out_at(s, k))->reserved_ & EV_PROCESSED)) {
        st = spec_rollback(th, lp, *out_at(s, k), true, err);
        k++;
    }
    for (; k < s->next_index; k++) {
        rtcosim_event *e = *out_at(s, k);
        /* undone by the rollback above if they were processed */
        e->reserved_ |= EV_CANCELLED;
    }
    if (from < s->next_index)
        s->next_index = from;
    return st;
}

static bool hist_push(spec_stream *s, const stream_obs *o)
{
    if (s->observed - s->hist_base == s->hist_cap) {
        size_t cap = 2 * s->hist_cap;
        stream_obs *h = malloc(cap * sizeof *h);
        if (!h)
            return false;
        for (uint64_t j = s->hist_base; j < s->observed; j++)
            h[j & (cap - 1)] = s->hist[j & (s->hist_cap - 1)];
        free(s->hist);
        s->hist = h;
        s->hist_cap = cap;
    }
    s->hist[s->observed & (s->hist_cap - 1)] = *o;
    return true;
}

static size_t processed_prefix(spec_stream *s)
{
    size_t n = 0;
    for (uint64_t k = s->observed; k < s->next_index; k++, n++)
        if (!((*out_at(s, k))->reserved_ & EV_PROCESSED))
            break;
    return n;
}

static rtcosim_status cut_stream(spec_thread *th, rtcosim_lp *lp, spec_stream *s, uint64_t j,
                                 rtcosim_error *err);

rtcosim_status spec_predict_arrive(spec_thread *th, rtcosim_lp *lp, spec_stream *s,
                                   rtcosim_event *ev, rtcosim_error *err)
{
    spec_lp *l = lp->spec;
    size_t width = s->decl->width;
    if (s->cancelled) {
        /* the replacement of the first lazily cancelled entry? */
        stream_obs *e = &s->hist[s->first_cancelled & (s->hist_cap - 1)];
        bool same = ev->time == e->t && ev->tie == e->stand_in->tie &&
                    ev->size == width * sizeof(double) &&
                    memcmp(ev->payload, e->v, ev->size) == 0;
        if (same) {
            e->real = ev;
            e->cancelled = false;
            ev->reserved_ |= EV_STREAM | EV_ABSORBED;
            uint64_t k = s->first_cancelled + 1;
            while (k < s->observed && !s->hist[k & (s->hist_cap - 1)].cancelled)
                k++;
            s->first_cancelled = k;
            s->cancelled = k < s->observed;
                    return RTCOSIM_OK;
        }
        rtcosim_status st = cut_stream(th, lp, s, s->first_cancelled, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    uint64_t n = s->observed;
    stream_obs o = {.t = ev->time, .real = ev, .stand_in = ev};
    memset(o.v, 0, sizeof o.v);
    memcpy(o.v, ev->payload, ev->size < width * sizeof(double) ? ev->size : width * sizeof(double));
    /* the key the next predictions get: same tie, sequence numbers spaced
     * as the last two real ones */
    if (n > 0)
        s->seq_step = ev->seq - s->last_seq;
    s->tie = ev->tie;
    s->last_seq = ev->seq;
    rtcosim_event *p = n < s->next_index ? *out_at(s, n) : NULL;
    size_t speculated = processed_prefix(s);
    size_t keep = 0;
    rtcosim_status st;
    /* the scheme judges the prediction by its values and time (the time
     * error weighs |e_t| / 1 s); with Tc = 0 only an exact one is kept */
    if (p && p->tie == ev->tie && ev->size == width * sizeof(double) &&
        (p->time == ev->time || s->threshold > 0)) {
        rtcosim_speculation_result res;
        st = rtcosim_predictor_arrive(s->pred, ev->time, o.v, speculated, s->threshold, &res, err);
        if (st != RTCOSIM_OK)
            return st;
        if (res.predicted && isfinite(res.arrival_error)) {
            l->checked++;
            l->error_sq += res.arrival_error * res.arrival_error;
            if (res.arrival_error > l->error_max)
                l->error_max = res.arrival_error;
        }
        keep = res.keep;
        /* exactness at Tc = 0 is bitwise (0.0 == -0.0 is not enough) */
        if (s->threshold == 0 && (p->time != ev->time ||
                                  memcmp(p->payload, ev->payload, ev->size) != 0))
            keep = 0;
        if (speculated == 0)
            keep = 0; /* the prediction was not processed yet: the real event takes its place */
    } else {
        st = rtcosim_predictor_observe(s->pred, ev->time, o.v, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (keep == 0) {
        st = drop_predictions(th, lp, s, n, err);
        ev->reserved_ |= EV_STREAM;
    } else {
        o.stand_in = p;
        ev->reserved_ |= EV_STREAM | EV_ABSORBED;
    }
    if (!hist_push(s, &o))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    s->observed = n + 1;
    s->retracted = false;
    s->floor = ev->time;
    if (s->next_index < s->observed)
        s->next_index = s->observed;
    if (st == RTCOSIM_OK && keep > 0)
        /* roll back to step n+m, or (nothing to undo) renew the queued ones
         * from the corrected curve */
        st = drop_predictions(th, lp, s, n + (keep < speculated ? keep : speculated), err);
    if (st == RTCOSIM_OK && keep == 0)
        st = spec_enqueue(th, ev, err);
    if (st == RTCOSIM_OK)
        st = predict_next(th, lp, s, err);
    return st;
}

rtcosim_status spec_predict_processed(spec_thread *th, rtcosim_lp *lp, const rtcosim_event *ev,
                                      rtcosim_error *err)
{
    lp->spec->predicted++;
    spec_stream *s = spec_predict_stream_of(lp, ev);
    if (!s || s->next_index == s->observed || *out_at(s, s->next_index - 1) != ev)
        return RTCOSIM_OK; /* not the newest prediction: the next one exists */
    return predict_next(th, lp, s, err);
}

/* Take the stream back to before x[j]: undo what the LP did from x[j]'s
 * stand-in on, withdraw the predictions, cut the history at j and rebuild
 * the predictor from the observations before j. */
static rtcosim_status cut_stream(spec_thread *th, rtcosim_lp *lp, spec_stream *s, uint64_t j,
                                 rtcosim_error *err)
{
    stream_obs o = s->hist[j & (s->hist_cap - 1)];
    rtcosim_status st = drop_predictions(th, lp, s, s->observed, err);
    if (st == RTCOSIM_OK) {
        if (o.stand_in->reserved_ & EV_PROCESSED)
            st = spec_rollback(th, lp, o.stand_in, true, err); /* frees the stand-in */
        else
            o.stand_in->reserved_ |= EV_CANCELLED;
    }
    if (o.real && o.real != o.stand_in)
        event_pool_put(spec_pool(th), o.real); /* absorbed: owned here */
    /* The later entries were undone by that rollback. Confirmed predictions
     * and lazily cancelled entries are withdrawn here; the later real events
     * get their own anti-messages (their sender rolled back past them) and,
     * finding no entry, are freed or cancelled then. */
    for (uint64_t k = j + 1; k < s->observed; k++) {
        stream_obs *later = &s->hist[k & (s->hist_cap - 1)];
        if (later->cancelled || later->stand_in != later->real) {
            later->stand_in->reserved_ |= EV_CANCELLED;
        }
    }
    s->observed = j;
    s->next_index = j;
    if (s->committed > j)
        s->committed = j; /* (x[j] was not below GVT: nothing committed is cut) */
    /* lazily cancelled entries before j stay so (the local cancellations of
     * one rollback are handled earliest first) */
    s->cancelled = s->cancelled && s->first_cancelled < j;
    s->floor = o.t; /* x[j] was not below GVT */
    rtcosim_predictor_reset(s->pred);
    uint64_t from = j > s->hist_base + REPLAY ? j - REPLAY : s->hist_base;
    s->pred_base = from;
    for (uint64_t k = from; k < j && st == RTCOSIM_OK; k++) {
        stream_obs *h = &s->hist[k & (s->hist_cap - 1)];
        /* only the last observation's curve is used: predict once */
        st = k + 1 < j ? rtcosim_predictor_record(s->pred, h->t, h->v, err)
                       : rtcosim_predictor_observe(s->pred, h->t, h->v, err);
    }
    if (j > s->hist_base) {
        const rtcosim_event *prev = s->hist[(j - 1) & (s->hist_cap - 1)].stand_in;
        if (prev)
            s->last_seq = prev->seq;
    }
    s->retracted = false;
    if (st == RTCOSIM_OK)
        st = predict_next(th, lp, s, err);
    return st;
}

rtcosim_status spec_predict_cancel(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                   rtcosim_error *err)
{
    spec_stream *s = spec_predict_stream_of(lp, ev);
    uint64_t j = s ? s->observed : 0;
    while (s && j > s->hist_base && s->hist[(j - 1) & (s->hist_cap - 1)].real != ev)
        j--;
    if (!s || j == s->hist_base) {
        /* no longer in the history: a later event of a stream already cut
         * back by an earlier cancellation */
        if (ev->reserved_ & EV_ABSORBED) {
            event_pool_put(spec_pool(th), ev);
            return RTCOSIM_OK;
        }
        ev->reserved_ &= ~(unsigned)EV_STREAM;
        return ev->reserved_ & EV_PROCESSED ? spec_rollback(th, lp, ev, true, err)
                                            : (ev->reserved_ |= EV_CANCELLED, RTCOSIM_OK);
    }
    j--; /* x[j] */
    stream_obs *e = &s->hist[j & (s->hist_cap - 1)];
    if (!(e->stand_in->reserved_ & EV_PROCESSED) || (s->cancelled && j < s->first_cancelled))
        return cut_stream(th, lp, s, j, err);
    /* lazily: keep what the LP did for x[j] until a replacement shows */
    if (ev != e->stand_in)
        event_pool_put(spec_pool(th), ev); /* absorbed: owned here */
    else
        ev->reserved_ &= ~(unsigned)EV_STREAM; /* no other anti-message can come for it */
    e->real = NULL;
    e->cancelled = true;
    if (!s->cancelled || j < s->first_cancelled)
        s->first_cancelled = j;
    s->cancelled = true;
    return RTCOSIM_OK;
}

rtcosim_time_ns spec_predict_unconfirmed(const rtcosim_lp *lp)
{
    const spec_lp *l = lp->spec;
    rtcosim_time_ns t = RTCOSIM_TIME_MAX;
    for (size_t k = 0; k < l->stream_count; k++) {
        spec_stream *s = l->streams[k];
        if (s->observed < s->next_index && (*out_at(s, s->observed))->time < t)
            t = (*out_at(s, s->observed))->time;
        if (s->cancelled && s->hist[s->first_cancelled & (s->hist_cap - 1)].t < t)
            t = s->hist[s->first_cancelled & (s->hist_cap - 1)].t;
    }
    return t;
}

rtcosim_status spec_predict_gvt(spec_thread *th, rtcosim_lp *lp, rtcosim_time_ns gvt_real,
                                rtcosim_time_ns gvt, rtcosim_error *err)
{
    spec_lp *l = lp->spec;
    rtcosim_status st = RTCOSIM_OK;
    for (size_t k = 0; k < l->stream_count && st == RTCOSIM_OK; k++) {
        spec_stream *s = l->streams[k];
        if (s->cancelled && s->hist[s->first_cancelled & (s->hist_cap - 1)].t < gvt_real)
            st = cut_stream(th, lp, s, s->first_cancelled, err); /* no replacement came */
        if (st != RTCOSIM_OK)
            break;
        if (s->observed < s->next_index && (*out_at(s, s->observed))->time < gvt_real) {
            /* its real event, if any, comes later than predicted */
            st = drop_predictions(th, lp, s, s->observed, err);
            s->retracted = true;
        }
        /* commit the history below GVT, keeping enough to rebuild */
        while (s->observed - s->hist_base > REPLAY &&
               s->hist[s->hist_base & (s->hist_cap - 1)].t < gvt) {
            stream_obs *o = &s->hist[s->hist_base & (s->hist_cap - 1)];
            if (o->real && (o->real->reserved_ & EV_ABSORBED))
                event_pool_put(spec_pool(th), o->real);
            s->hist_base++;
        }
        if (s->committed < s->hist_base)
            s->committed = s->hist_base;
        for (uint64_t j = s->committed; j < s->observed; j++, s->committed = j) {
            stream_obs *o = &s->hist[j & (s->hist_cap - 1)];
            if (o->t >= gvt)
                break;
            if (o->real && (o->real->reserved_ & EV_ABSORBED))
                event_pool_put(spec_pool(th), o->real);
            o->real = NULL; /* committed: neither it nor its stand-in can be cancelled */
            o->stand_in = NULL;
        }
    }
    return st;
}
