/* Setup of the master's speculative run: the scope check (single rate,
 * zero-order-hold coupling), which components speculate and which run
 * conservatively (and why), each LP's input streams per producer with their
 * index shifts, predictors, rollback tables and output rings, all sized here
 * so that the run itself never allocates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "master/speculate_internal.h"

uint64_t rtcosim_speculation_depth_bucket_max(size_t bucket)
{
    return bucket + 1 >= RTCOSIM_SPECULATION_DEPTH_BUCKETS ? UINT64_MAX : UINT64_C(1) << bucket;
}

rtcosim_status spec_check_scope(rtcosim_master *m, rtcosim_error *err)
{
    if (!m->initialized)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: speculative run before initialize");
    if (m->failed)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: an earlier step or run failed");
    if (m->step_control.enabled)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "master: speculation needs fixed macro steps (step control is on)");
    if (m->events)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "master: speculation does not run components in Event Mode "
                                 "(FMI 3.0 eventModeUsed)");
    if (m->returner_count)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "master: speculation does not run components that may return "
                                 "early (FMI 3.0 earlyReturnAllowed)");
    for (size_t c = 0; c < m->comp_count; c++)
        if (m->comps[c].next_time != m->time)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "master: speculation must start at a communication point of "
                                     "every component ('%s' is inside its step)", m->comps[c].name);
    for (size_t i = 0; i < m->conn_count; i++) {
        const master_connection *k = &m->conns[i];
        if (k->continuous && k->corr.kind != RTCOSIM_CORRECTION_NONE)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "master: speculation needs coupling without correction, but "
                                     "connection %s uses correction %s",
                                     k->name, rtcosim_correction_name(k->corr.kind));
        /* The history of a polynomial connection before the run is not in
         * the LPs' rings. */
        if (k->continuous && !k->zoh && m->steps > 0)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "master: speculation with %s coupling (connection %s) must "
                                     "start at the start time",
                                     rtcosim_extrapolation_name(k->opts.extrapolation), k->name);
        if (k->type == RTCOSIM_TYPE_STRING || k->type == RTCOSIM_TYPE_BINARY)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "master: speculation cannot hold %s values of connection %s",
                                     rtcosim_type_name(k->type), k->name);
    }
    for (size_t i = 0; i < m->observed_count; i++)
        if (m->observed[i].conn >= 0)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "master: a speculative run does not compute coupling error "
                                     "signals (%s)", m->observed[i].name);
    for (size_t c = 0; c < m->comp_count; c++)
        for (unsigned t = 0; t < RTCOSIM_TYPE_COUNT_; t++)
            if (m->comps[c].out[t].n && (t == RTCOSIM_TYPE_STRING || t == RTCOSIM_TYPE_BINARY))
                return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                         "master: speculation cannot hold the %s outputs of '%s'",
                                         rtcosim_type_name((rtcosim_type)t), m->comps[c].name);
    return RTCOSIM_OK;
}

void spec_classify(rtcosim_master *m, size_t comp, bool *speculate, const char **reason)
{
    const master_component *mc = &m->comps[comp];
    *speculate = false;
    if (mc->conns_in_count == 0)
        *reason = "no inputs (nothing to predict)";
    else if (!rtcosim_component_capabilities(mc->c)->can_get_set_state)
        *reason = "cannot get and set its state";
    else if (mc->feedthrough)
        *reason = "direct feedthrough from its inputs to its outputs";
    else {
        for (size_t i = 0; i < mc->conns_in_count; i++)
            if (!m->conns[mc->conns_in[i]].continuous) {
                *reason = "takes non-Float64 inputs";
                return;
            }
        *speculate = true;
        *reason = NULL;
    }
}

static size_t position_of(const rtcosim_master *m, size_t comp)
{
    for (size_t i = 0; i < m->comp_count; i++)
        if (m->order_list[i] == comp)
            return i;
    return m->comp_count;
}

void spec_run_cleanup(spec_run *run)
{
    for (size_t l = 0; run->lps && l < run->lp_count; l++) {
        spec_lp *lp = &run->lps[l];
        for (size_t s = 0; lp->streams && s < lp->stream_count; s++) {
            rtcosim_predictor_free(lp->streams[s].predictor);
            free(lp->streams[s].conns);
            free(lp->streams[s].values);
        }
        free(lp->streams);
        free(lp->consumers);
        rtcosim_rollback_free(lp->table);
        free(lp->ring);
        free(lp->pending);
        free(lp->pending_terminate);
    }
    free(run->lps);
    free(run->observed);
    pthread_mutex_destroy(&run->lock);
}

/* The streams of one LP: one per distinct producer, Float64 connections first. */
static rtcosim_status build_streams(spec_run *run, spec_lp *lp, rtcosim_error *err)
{
    rtcosim_master *m = run->m;
    const master_component *mc = &m->comps[lp->comp];
    lp->streams = calloc(mc->conns_in_count + 1, sizeof *lp->streams);
    if (!lp->streams)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    const size_t my_pos = position_of(m, lp->comp);
    for (size_t i = 0; i < mc->conns_in_count; i++) {
        const size_t p = m->conns[mc->conns_in[i]].from;
        size_t s = 0;
        while (s < lp->stream_count && lp->streams[s].producer != p)
            s++;
        if (s == lp->stream_count) {
            spec_stream *st = &lp->streams[lp->stream_count++];
            st->producer = p;
            st->earlier = position_of(m, p) < my_pos;
            st->gauss_seidel = m->order == RTCOSIM_ORDER_GAUSS_SEIDEL;
            st->consumer_multiple = m->comps[lp->comp].multiple;
            st->producer_multiple = m->comps[p].multiple;
            st->conns = calloc(mc->conns_in_count, sizeof *st->conns);
            st->values = calloc(mc->conns_in_count, sizeof *st->values);
            if (!st->conns || !st->values)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
        }
    }
    for (size_t s = 0; s < lp->stream_count; s++) {
        spec_stream *st = &lp->streams[s];
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < mc->conns_in_count; i++) {
                const master_connection *k = &m->conns[mc->conns_in[i]];
                if (k->from == st->producer && k->continuous == (pass == 0))
                    st->conns[st->count++] = mc->conns_in[i];
            }
        for (size_t i = 0; i < st->count; i++)
            st->width += m->conns[st->conns[i]].continuous;
        if (!lp->speculate || st->width == 0)
            continue;
        /* The producer's outputs a horizon of consumer steps reads. */
        const size_t reach = (size_t)spec_input_index(st, run->horizon) + 2;
        rtcosim_predictor_config pc = {.width = st->width, .order = run->order,
                                       .window = run->window, .horizon = reach,
                                       .correction_capacity = run->correction_capacity,
                                       .nominal_interval_ns =
                                           (rtcosim_time_ns)st->producer_multiple * run->h};
        rtcosim_status status = rtcosim_predictor_create(&pc, &st->predictor, err);
        if (status != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "master: speculation of '%s': ", mc->name);
    }
    return RTCOSIM_OK;
}

static rtcosim_status build_outputs(spec_run *run, spec_lp *lp, rtcosim_error *err)
{
    const master_component *mc = &run->m->comps[lp->comp];
    /* A component's get writes its values of a type straight into a slot
     * (an FMU through a typed array: fmi2Real *, ...), so each type's run
     * starts aligned for it and every slot on 8 bytes: packed, a Float64
     * output after an Int32 one in the slot before was stored misaligned
     * (UBSan, tests/master: Picky's Int32 `refused` beside its Float64 y). */
    for (unsigned t = 0; t < RTCOSIM_TYPE_COUNT_; t++) {
        size_t size = rtcosim_type_size((rtcosim_type)t), align = size >= 8 ? 8 : size ? size : 1;
        lp->out_bytes = (lp->out_bytes + align - 1) / align * align;
        lp->out_offset[t] = lp->out_bytes;
        lp->out_bytes += mc->out[t].n * size;
    }
    lp->out_bytes = (lp->out_bytes + 7) / 8 * 8;
    /* The ring keeps what any consumer may still read (the input of its
     * first uncommitted step on, and the extrapolation history before it)
     * and what the observer has not yet shown; the observer waits for the
     * slowest component's steps, over which a faster one publishes up to
     * (slowest multiple / own multiple) outputs per step. */
    uint64_t slowest = 1;
    for (size_t c = 0; c < run->m->comp_count; c++)
        if (run->m->comps[c].multiple > slowest)
            slowest = run->m->comps[c].multiple;
    const uint64_t ratio = (slowest + mc->multiple - 1) / mc->multiple;
    lp->ring_cap = (size_t)((run->horizon + 2) * ratio) + HISTORY_LEN + 4;
    lp->pending_cap = run->horizon;
    lp->ahead_limit = lp->pending_cap;
    lp->probe_backoff = 1;
    lp->ring = calloc(lp->ring_cap, lp->out_bytes + 1);
    lp->pending = calloc(lp->pending_cap, lp->out_bytes + 1);
    lp->pending_terminate = calloc(lp->pending_cap, sizeof *lp->pending_terminate);
    if (!lp->ring || !lp->pending || !lp->pending_terminate)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    /* Output 0: what the component published at the current time. */
    for (unsigned t = 0; t < RTCOSIM_TYPE_COUNT_; t++)
        if (mc->out[t].n)
            memcpy(lp->ring + lp->out_offset[t], mc->out[t].values,
                   mc->out[t].n * rtcosim_type_size((rtcosim_type)t));
    atomic_init(&lp->published, 1);
    atomic_init(&lp->committed_shared, 0);
    atomic_init(&lp->record_need, 0);
    atomic_init(&lp->decided, 0);
    lp->final_only_step = UINT64_MAX;
    lp->restore_to = UINT64_MAX;
    lp->in_flight = UINT64_MAX;
    atomic_flag_clear(&lp->busy);
    lp->multiple = mc->multiple;
    lp->step = (rtcosim_time_ns)mc->multiple * run->h;
    return RTCOSIM_OK;
}

rtcosim_status spec_run_setup(spec_run *run, rtcosim_master *m,
                              const rtcosim_speculation_options *o, rtcosim_error *err)
{
    memset(run, 0, sizeof *run);
    pthread_mutex_init(&run->lock, NULL);
    atomic_init(&run->generation, 0);
    atomic_init(&run->sleepers, 0);
    atomic_init(&run->changed_at, 0);
    atomic_init(&run->failed, false);
    atomic_init(&run->rows, 1);
    atomic_init(&run->end_start, RTCOSIM_TIME_MAX);
    atomic_init(&run->end_at, RTCOSIM_TIME_MAX);
    atomic_flag_clear(&run->recording);
    run->m = m;
    run->threshold = o && o->threshold > 0 ? o->threshold : 0;
    run->correction_capacity = o ? o->correction_capacity : 0;
    run->horizon = o && o->horizon ? o->horizon : 16;
    run->order = o && o->order ? o->order : 3;
    run->window = o && o->window ? o->window : 16;
    run->h = m->macro_step;
    run->t0 = m->time;
    run->lp_count = m->comp_count;
    /* Default: one thread per component, but no more than the online
     * processors (waiting LPs poll, and polling threads beyond the cores
     * would take them from the ones that make progress). */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    run->threads = o && o->threads ? o->threads : (unsigned)m->comp_count;
    if ((!o || !o->threads) && cpus > 0 && run->threads > (unsigned)cpus)
        run->threads = (unsigned)cpus;
    if (run->threads > m->comp_count)
        run->threads = (unsigned)m->comp_count;
    if (o && !(o->threshold >= 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: speculation threshold must be >= 0");
    if (!(run->correction_capacity >= 0) || !isfinite(run->correction_capacity))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: speculation correction capacity "
                                 "must be a finite number >= 0 (0: mirrored spread), got %g",
                                 run->correction_capacity);
    if (run->order > RTCOSIM_PREDICTOR_MAX_ORDER || run->window < run->order)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: speculation order %zu and window %zu: need 1 <= order <= "
                                 "%d and window >= order", run->order, run->window,
                                 RTCOSIM_PREDICTOR_MAX_ORDER);
    run->lps = calloc(run->lp_count, sizeof *run->lps);
    run->observed = calloc(m->observed_count + 1, sizeof *run->observed);
    if (!run->lps || !run->observed)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    rtcosim_status st;
    for (size_t c = 0; c < m->comp_count; c++) {
        spec_lp *lp = &run->lps[c];
        lp->comp = c;
        lp->thread = (unsigned)(c % run->threads);
        spec_classify(m, c, &lp->speculate, &lp->reason);
        lp->stats.component = m->comps[c].name;
        lp->stats.speculated = lp->speculate;
        lp->stats.reason = lp->reason;
        lp->consumers = calloc(m->conn_count + 1, sizeof *lp->consumers);
        if (!lp->consumers)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
        if ((st = build_outputs(run, lp, err)) != RTCOSIM_OK)
            return st;
    }
    for (size_t c = 0; c < m->comp_count; c++) {
        spec_lp *lp = &run->lps[c];
        if ((st = build_streams(run, lp, err)) != RTCOSIM_OK)
            return st;
        for (size_t s = 0; s < lp->stream_count; s++) {
            spec_lp *p = &run->lps[lp->streams[s].producer];
            p->consumers[p->consumer_count++] = (spec_consumer){c, s};
        }
        if (!lp->speculate)
            continue;
        /* Each record keeps the step's Float64 inputs as they were set. */
        rtcosim_rollback_config rc = {.capacity = lp->pending_cap,
                                      .input_count = m->comps[c].in[RTCOSIM_TYPE_FLOAT64].n,
                                      .component = m->comps[c].c};
        if ((st = rtcosim_rollback_create(&rc, &lp->table, err)) != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "master: speculation of '%s': ", m->comps[c].name);
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_speculation_plan(rtcosim_master *m, rtcosim_speculation_stats *stats,
                                               rtcosim_error *err)
{
    rtcosim_status st = spec_check_scope(m, err);
    if (st != RTCOSIM_OK)
        return st;
    for (size_t c = 0; stats && c < m->comp_count; c++) {
        memset(&stats[c], 0, sizeof stats[c]);
        stats[c].component = m->comps[c].name;
        spec_classify(m, c, &stats[c].speculated, &stats[c].reason);
    }
    return RTCOSIM_OK;
}
