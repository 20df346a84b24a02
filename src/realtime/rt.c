/* Setup of the real-time executor: validates the options (step and stop
 * times, estimator and map), has the parts built (rt_build.c), and
 * allocates every buffer the run needs, so that the paced loop never
 * allocates; options from their command-line spelling; accessors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "realtime/rt_internal.h"

void rtcosim_rt_options_init(rtcosim_rt_options *o)
{
    memset(o, 0, sizeof *o);
    o->stop_time = RTCOSIM_NS_PER_S;
    o->macro_step = RTCOSIM_NS_PER_MS;
    o->rt_factor = 1.0;
    o->overrun = RTCOSIM_OVERRUN_SOFT;
    o->cpu = -1;
    o->partner_cpu = -1;
    o->calibration_frames = 100;
    o->calibration_budget = 0.9;
    o->overrun_log = 16;
    o->frame_log = 1000000;
    o->exchange.length = 1;
    o->exchange.frames[0] = 1;
    rtcosim_estimator_spec_init(&o->estimator);
    o->partner_timeout = RTCOSIM_NS_PER_S;
    o->queue_capacity = 1024;
    o->record_capacity = 1000000;
    o->cpu_dma_latency_us = -1;
}

rtcosim_time_ns rtcosim_rt_frame_offset(const rtcosim_rt *rt, uint64_t k)
{
    /* Computed from k each time, never by adding periods: no rounding error
     * accumulates, whatever the factor. */
    if (rt->options.rt_factor == 1.0)
        return (rtcosim_time_ns)k * rt->options.macro_step;
    return (rtcosim_time_ns)llround((double)k * (double)rt->options.macro_step /
                                    rt->options.rt_factor);
}


static rtcosim_status validate_options(const rtcosim_rt_options *o, rtcosim_error *err)
{
    if (o->macro_step <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: macro step must be positive");
    if (o->stop_time <= o->start_time)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: stop time %.9g s is not after start time %.9g s",
                                 rtcosim_time_to_seconds(o->stop_time),
                                 rtcosim_time_to_seconds(o->start_time));
    if ((o->stop_time - o->start_time) % o->macro_step != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: run length %.9g s is not a whole number of macro "
                                 "steps of %.9g s",
                                 rtcosim_time_to_seconds(o->stop_time - o->start_time),
                                 rtcosim_time_to_seconds(o->macro_step));
    if (!(o->rt_factor > 0) || !isfinite(o->rt_factor) || o->rt_factor > 1e6)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: factor %g must be positive and at most 1e6",
                                 o->rt_factor);
    if ((unsigned)o->overrun > RTCOSIM_OVERRUN_FAIL)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: invalid overrun policy %d",
                                 (int)o->overrun);
    if (o->fifo_priority < 0 || o->fifo_priority > 99)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: SCHED_FIFO priority %d outside 1..99",
                                 o->fifo_priority);
    if (o->calibrate && (o->calibration_frames == 0 || !(o->calibration_budget > 0) ||
                         o->calibration_budget > 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: calibration needs frames > 0 and a budget in (0, 1]");
    if (o->exchange.length == 0 || o->exchange.length > RTCOSIM_EXCHANGE_PATTERN_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: empty exchange pattern");
    for (size_t i = 0; i < o->exchange.length; i++)
        if (o->exchange.frames[i] == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "real-time: exchange pattern entry %zu is 0", i + 1);
    if (o->partner_window < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: partner window must be >= 0");
    if (o->partner_timeout < 0 || o->queue_capacity < 2 || o->queue_capacity > (1u << 24))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: partner timeout must be >= 0 and queue capacity "
                                 "2..16777216");
    return RTCOSIM_OK;
}


static rtcosim_status allocate_partner(rtcosim_rt *rt, rt_partner *p, rtcosim_error *err)
{
    size_t to_rt = p->sig_count, to_partner = p->part.remote_count;
    p->to_size = sizeof(to_partner_sample) + to_partner * sizeof(double);
    p->from_size = sizeof(from_partner_sample) + to_rt * sizeof(double);
    p->inflight = calloc(1, p->from_size);
    p->last_sent = calloc(1, p->to_size);
    p->newest_values = calloc(to_rt + 1, sizeof(double));
    if (!p->inflight || !p->last_sent || !p->newest_values)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory for the logs");
    rtcosim_status st = rtcosim_spsc_init(&p->to_partner, rt->options.queue_capacity, p->to_size,
                                          err);
    if (st == RTCOSIM_OK)
        st = rtcosim_spsc_init(&p->from_partner, rt->options.queue_capacity, p->from_size, err);
    return st;
}

static rtcosim_status allocate_run_buffers(rtcosim_rt *rt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &rt->options;
    size_t to_rt = rt->to_rt_count, to_partner = rt->rt_part.send_count;
    rt->summary.signals_to_rt = to_rt;
    rt->summary.signals_to_partner = to_partner;
    rt->summary.nonrealtime_parts = rt->partner_count;
    rt->frame_capacity = o->frame_log < rt->total_frames ? o->frame_log : rt->total_frames;
    rt->frames = calloc(rt->frame_capacity + 1, sizeof *rt->frames);
    rt->frame_parts = calloc(rt->frame_capacity * rt->partner_count + 1, sizeof *rt->frame_parts);
    rt->frame_signals = calloc(rt->frame_capacity * rt->signal_count + 1, sizeof(double));
    rt->overrun_first = calloc(o->overrun_log + 1, sizeof *rt->overrun_first);
    rt->overrun_last = calloc(o->overrun_log + 1, sizeof *rt->overrun_last);
    if (!rt->frames || !rt->frame_parts || !rt->frame_signals || !rt->overrun_first ||
        !rt->overrun_last)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory for the logs");
    if (!rt->mixed)
        return RTCOSIM_OK;
    /* At most one record per signal and exchange point. */
    uint64_t most = rt->total_frames * (uint64_t)to_rt;
    if (rt->options.record_capacity > most)
        rt->options.record_capacity = (size_t)most;
    rt->records = calloc(rt->options.record_capacity + 1, sizeof *rt->records);
    rt->estimators = calloc(to_rt + 1, sizeof *rt->estimators);
    rt->est_now = calloc(to_rt + 1, sizeof *rt->est_now);
    if (!rt->records || !rt->estimators || !rt->est_now)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory for the logs");
    for (size_t i = 0; i < rt->partner_count; i++) {
        rtcosim_status st = allocate_partner(rt, &rt->partners[i], err);
        if (st != RTCOSIM_OK)
            return st;
    }
    /* Each estimate waits for its data at most as long as the queues can hold. */
    size_t pending = rtcosim_spsc_capacity(&rt->partners[0].to_partner) + 2;
    return rtcosim_rt_estimators_create(rt, pending, err);
}

/* Each part's processor clock in a virtual run. */
static rtcosim_status assign_partner_clocks(rtcosim_rt *rt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &rt->options;
    bool is_virtual = o->clock && rtcosim_clock_is_virtual(o->clock);
    for (size_t i = 0; i < rt->partner_count; i++) {
        rtcosim_clock *c = o->partner_clocks && i < o->partner_clock_count ? o->partner_clocks[i]
                           : i == 0 && !o->partner_clocks                ? o->partner_clock
                                                                         : NULL;
        if (is_virtual && (!c || !rtcosim_clock_is_virtual(c)))
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     rt->partner_count == 1
                                         ? "real-time: a virtual run with a non-real-time part "
                                           "needs a virtual partner clock"
                                         : "real-time: a virtual run with %zu non-real-time parts "
                                           "needs a virtual partner clock for each",
                                     rt->partner_count);
        for (size_t k = 0; is_virtual && k < i; k++)
            if (rt->partners[k].clock == c)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "real-time: non-real-time parts %zu and %zu share a "
                                         "partner clock: each is a processor of its own",
                                         k + 1, i + 1);
        rt->partners[i].clock = c;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rt_create(rtcosim_component *const *components, size_t count,
                                 const rtcosim_rt_connection *connections,
                                 size_t connection_count, const rtcosim_rt_options *options,
                                 rtcosim_rt **out, rtcosim_error *err)
{
    if (!out || !options || (count && !components) || (connection_count && !connections))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: NULL argument");
    *out = NULL;
    if (count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: no components");
    for (size_t i = 0; i < count; i++)
        if (!components[i])
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: component %zu is NULL", i);
    rtcosim_status st = validate_options(options, err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_rt *rt = calloc(1, sizeof *rt);
    if (!rt)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    rt->options = *options;
    rt->options.non_realtime = NULL; /* not kept: the caller's string */
    rt->options.partner_clocks = NULL;
    rt->options.partner_clock_count = 0;
    /* signal_estimators: copied by rtcosim_rt_estimators_prepare, then dropped. */
    rt->options.report_dir = NULL;
    if (options->report_dir && *options->report_dir &&
        !(rt->report_dir = strdup(options->report_dir))) {
        free(rt);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    }
    rt->component_count = count;
    rt->components = calloc(count, sizeof *rt->components);
    rt->part_of = calloc(count, sizeof *rt->part_of);
    if (!rt->components || !rt->part_of) {
        rtcosim_rt_free(rt);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    }
    memcpy(rt->components, components, count * sizeof *components);
    rt->total_frames = (uint64_t)((options->stop_time - options->start_time) / options->macro_step);
    st = rtcosim_rt_split_parts(rt, options->non_realtime, err);
    size_t partners = 0;
    for (size_t c = 0; c < count; c++)
        partners += rt->part_of[c] != 0;
    rt->mixed = partners > 0;
    if (st == RTCOSIM_OK && partners == count)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "real-time: every component is non-real-time; nothing to pace");
    if (st == RTCOSIM_OK && rt->mixed &&
        !(rt->partners = calloc(rt->partner_count, sizeof *rt->partners)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    for (size_t i = 0; st == RTCOSIM_OK && i < rt->partner_count; i++) {
        rt->partners[i].rt = rt;
        rt->partners[i].index = i;
    }
    if (st == RTCOSIM_OK && rt->mixed) {
        /* Partners held by an options copy that was given clocks. */
        rt->options.partner_clocks = options->partner_clocks;
        rt->options.partner_clock_count = options->partner_clock_count;
        st = assign_partner_clocks(rt, err);
        rt->options.partner_clocks = NULL;
        rt->options.partner_clock_count = 0;
    }
    if (st == RTCOSIM_OK && rt->mixed && options->estimator.kind == RTCOSIM_ESTIMATOR_MAP &&
        !options->estimator.map) {
        if (!options->estimator.map_path[0])
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: map estimator without a map");
        else
            st = rtcosim_map_load_csv(options->estimator.map_path, &rt->map, err);
    }
    rt->active_map = options->estimator.map ? options->estimator.map : rt->map;
    rt->options.estimator.map = rt->active_map;
    if (st == RTCOSIM_OK && rt->mixed)
        st = rtcosim_rt_estimators_prepare(rt, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_rt_build(rt, connections, connection_count, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < rt->partner_count; i++)
        if (rt->partners[i].sig_count == 0 && rt->partners[i].part.remote_count == 0)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   rt->partner_count == 1
                                       ? "real-time: the non-real-time part is not connected to "
                                         "the real-time part%.0s"
                                       : "real-time: the non-real-time part %s is not connected "
                                         "to the others",
                                   rt->partners[i].name);
    if (st == RTCOSIM_OK) {
        if (options->clock) {
            rt->clock = options->clock;
        } else {
            st = rtcosim_clock_create_monotonic(options->busy_wait, &rt->owned_clock, err);
            rt->clock = rt->owned_clock;
        }
    }
    if (st == RTCOSIM_OK)
        st = allocate_run_buffers(rt, err);
    if (st != RTCOSIM_OK) {
        rtcosim_rt_free(rt);
        return st;
    }
    rt->options.signal_estimators = NULL;
    rt->options.signal_estimator_count = 0;
    rtcosim_histogram_reset(&rt->lateness);
    rtcosim_histogram_reset(&rt->exec_time);
    *out = rt;
    return RTCOSIM_OK;
}

void rtcosim_rt_free(rtcosim_rt *rt)
{
    /* An abandoned partner thread may still read any of it (rt_partner.c). */
    if (!rt || rt->summary.partner_abandoned)
        return;
    if (rt->estimators)
        for (size_t s = 0; s < rt->to_rt_count; s++)
            rtcosim_estimator_free(rt->estimators[s]);
    free(rt->estimators);
    free(rt->est_now);
    rtcosim_map_free(rt->map);
    rtcosim_rt_estimators_free(rt);
    if (rt->signal_names)
        for (size_t s = 0; s < rt->signal_count; s++)
            free(rt->signal_names[s]);
    free(rt->signal_names);
    rtcosim_rt_part_free(&rt->rt_part);
    for (size_t i = 0; rt->partners && i < rt->partner_count; i++) {
        rt_partner *p = &rt->partners[i];
        rtcosim_rt_part_free(&p->part);
        free(p->in_hub);
        rtcosim_spsc_destroy(&p->to_partner);
        rtcosim_spsc_destroy(&p->from_partner);
        free(p->inflight);
        free(p->last_sent);
        free(p->newest_values);
    }
    free(rt->partners);
    free(rt->records);
    free(rt->frames);
    free(rt->frame_parts);
    free(rt->frame_signals);
    free(rt->overrun_first);
    free(rt->overrun_last);
    rtcosim_clock_free(rt->owned_clock);
    free(rt->components);
    free(rt->part_of);
    free(rt->report_dir);
    free(rt);
}

/* --- Options from their command-line spelling ------------------------------ */

static rtcosim_status parse_flag(const char *name, const char *value, bool *out,
                                 rtcosim_error *err)
{
    if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
        *out = true;
    else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
        *out = false;
    else
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "--%s '%s': expected yes or no", name,
                                 value);
    return RTCOSIM_OK;
}

static rtcosim_status parse_int(const char *name, const char *value, long lo, long hi, int *out,
                                rtcosim_error *err)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (end == value || *end || v < lo || v > hi)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "--%s '%s': expected an integer %ld..%ld",
                                 name, value, lo, hi);
    *out = (int)v;
    return RTCOSIM_OK;
}

static rtcosim_status parse_time(const char *name, const char *value, rtcosim_time_ns *out,
                                 rtcosim_error *err)
{
    if (rtcosim_time_parse_seconds(value, out, err) != RTCOSIM_OK || *out < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "--%s '%s': expected a non-negative time in seconds", name,
                                 value);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rt_option_set(rtcosim_rt_options *o, const char *name, const char *value,
                                     rtcosim_error *err)
{
    if (!o || !name || !value)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time option: NULL argument");
    rtcosim_status st;
    if (strcmp(name, "real-time-factor") == 0 || strcmp(name, "rt-factor") == 0) {
        char *end;
        double f = strtod(value, &end);
        if (end == value || *end || !(f > 0) || f > 1e6)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "--%s '%s': expected a factor > 0 and <= 1e6", name, value);
        o->rt_factor = f;
        return RTCOSIM_OK;
    }
    if (strcmp(name, "step") == 0)
        return parse_time(name, value, &o->macro_step, err);
    if (strcmp(name, "stop-time") == 0)
        return parse_time(name, value, &o->stop_time, err);
    if (strcmp(name, "start-time") == 0)
        return parse_time(name, value, &o->start_time, err);
    if (strcmp(name, "busy-wait") == 0)
        return parse_time(name, value, &o->busy_wait, err);
    if (strcmp(name, "partner-timeout") == 0)
        return parse_time(name, value, &o->partner_timeout, err);
    if (strcmp(name, "partner-window") == 0)
        return parse_time(name, value, &o->partner_window, err);
    if (strcmp(name, "non-real-time") == 0) {
        o->non_realtime = value;
        return RTCOSIM_OK;
    }
    if (strcmp(name, "report") == 0) {
        o->report_dir = value;
        return RTCOSIM_OK;
    }
    if (strcmp(name, "overrun") == 0)
        st = rtcosim_overrun_policy_parse(value, &o->overrun, err);
    else if (strcmp(name, "exchange") == 0)
        st = rtcosim_exchange_pattern_parse(value, &o->exchange, err);
    else if (strcmp(name, "estimator") == 0)
        st = rtcosim_estimator_spec_parse(value, &o->estimator, err);
    else if (strcmp(name, "priority") == 0)
        return parse_int(name, value, 1, 99, &o->fifo_priority, err);
    else if (strcmp(name, "cpu") == 0)
        return parse_int(name, value, 0, 1023, &o->cpu, err);
    else if (strcmp(name, "partner-cpu") == 0)
        return parse_int(name, value, 0, 1023, &o->partner_cpu, err);
    else if (strcmp(name, "lock-memory") == 0)
        return parse_flag(name, value, &o->lock_memory, err);
    else if (strcmp(name, "cpu-dma-latency") == 0)
        return parse_int(name, value, -1, 1000000, &o->cpu_dma_latency_us, err);
    else if (strcmp(name, "calibrate") == 0)
        return parse_flag(name, value, &o->calibrate, err);
    else if (strcmp(name, "tv-includes-step") == 0)
        return parse_flag(name, value, &o->tv_includes_step, err);
    else
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "unknown real-time option --%s (expected real-time-factor, "
                                 "overrun, step, stop-time, start-time, non-real-time, exchange, "
                                 "estimator, report, priority, cpu, partner-cpu, lock-memory, "
                                 "cpu-dma-latency, busy-wait, calibrate, partner-timeout, "
                                 "partner-window, tv-includes-step)",
                                 name);
    if (st != RTCOSIM_OK)
        rtcosim_error_prefix(err, "--%s: ", name);
    return st;
}


/* --- Accessors ------------------------------------------------------------- */

const rtcosim_rt_summary *rtcosim_rt_get_summary(const rtcosim_rt *rt)
{
    return &rt->summary;
}

const rtcosim_histogram *rtcosim_rt_lateness(const rtcosim_rt *rt)
{
    return &rt->lateness;
}

const rtcosim_histogram *rtcosim_rt_exec_time(const rtcosim_rt *rt)
{
    return &rt->exec_time;
}

size_t rtcosim_rt_overruns(const rtcosim_rt *rt, rtcosim_rt_overrun *out, size_t capacity)
{
    size_t n = 0;
    for (size_t i = 0; i < rt->overrun_first_n && n < capacity; i++)
        out[n++] = rt->overrun_first[i];
    size_t cap = rt->options.overrun_log;
    for (size_t i = 0; i < rt->overrun_last_n && n < capacity; i++) {
        size_t idx = (rt->overrun_last_head + cap - rt->overrun_last_n + i) % cap;
        out[n++] = rt->overrun_last[idx];
    }
    return n;
}

size_t rtcosim_rt_frame_count(const rtcosim_rt *rt)
{
    return rt->frame_count;
}

const rtcosim_rt_frame *rtcosim_rt_frame_at(const rtcosim_rt *rt, size_t index)
{
    return index < rt->frame_count ? &rt->frames[index] : NULL;
}

size_t rtcosim_rt_signal_count(const rtcosim_rt *rt)
{
    return rt->signal_count;
}

const char *rtcosim_rt_signal_name(const rtcosim_rt *rt, size_t signal)
{
    return signal < rt->signal_count ? rt->signal_names[signal] : NULL;
}

const double *rtcosim_rt_frame_signals(const rtcosim_rt *rt, size_t index)
{
    return index < rt->frame_count ? rt->frame_signals + index * rt->signal_count : NULL;
}

const rtcosim_estimator *rtcosim_rt_estimator(const rtcosim_rt *rt, size_t signal)
{
    return rt->estimators && signal < rt->to_rt_count ? rt->estimators[signal] : NULL;
}

size_t rtcosim_rt_record_count(const rtcosim_rt *rt)
{
    return rt->record_count;
}

const rtcosim_estimate_record *rtcosim_rt_record_at(const rtcosim_rt *rt, size_t index)
{
    return index < rt->record_count ? &rt->records[index] : NULL;
}

size_t rtcosim_rt_part_count(const rtcosim_rt *rt)
{
    return rt->partner_count;
}

const rtcosim_rt_part_summary *rtcosim_rt_part_summary_at(const rtcosim_rt *rt, size_t part)
{
    return part < rt->partner_count ? &rt->partners[part].summary : NULL;
}

const rtcosim_rt_frame_part *rtcosim_rt_frame_part_at(const rtcosim_rt *rt, size_t index,
                                                      size_t part)
{
    return index < rt->frame_count && part < rt->partner_count
               ? &rt->frame_parts[index * rt->partner_count + part]
               : NULL;
}

rtcosim_time_ns rtcosim_rt_partner_window(const rtcosim_rt *rt)
{
    return rt->options.partner_window > 0 ? rt->options.partner_window : 100 * RTCOSIM_NS_PER_MS;
}
