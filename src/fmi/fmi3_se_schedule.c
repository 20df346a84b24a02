/* The scheduler of an FMI 3.0 FMU in scheduled execution (FMI 3.0 section 5.1,
 * clock types of section 2.2.8): when each input clock ticks next, which
 * partitions are due at an instant and in which order (priority, section
 * 2.4.7.3), what a clockUpdate means (output clocks read once, countdown
 * intervals). One per SE FMU, so that the FMU's announcements (a qualifier
 * says "changed" once) reach the one place that schedules; driven by the
 * component's do_step (systems) or instant by instant (simulate_se.c). No
 * allocation after setup. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi/fmu_internal.h"
#include "rtcosim/clock.h"
#include "rtcosim/realtime.h"

#define NEVER INT64_MAX

typedef struct se_clock {
    const rtcosim_variable *v;
    const rtcosim_fmu_clock *decl;
    bool input;
    rtcosim_time_ns interval;        /* periodic: the current interval */
    rtcosim_time_ns next;            /* the next tick; NEVER: none due */
    rtcosim_time_ns interval_set;    /* set by the importer (fmi3SetInterval*); 0: none */
    rtcosim_time_ns last_activation; /* one activation per time (section 5.2.2) */
    bool due;
    bool ticked_in_step;             /* output clocks, for get through the component */
    uint64_t ticks;
    rtcosim_se_partition_stats stats;
    rtcosim_time_ns due_time;        /* paced: the tick `due` stands for; NEVER: the step's start */
    rtcosim_histogram lateness;      /* paced: start minus release */
} se_clock;

struct rtcosim_se_schedule {
    rtcosim_fmu *f;
    se_clock *clocks; /* parallel to md->clocks */
    size_t count;
    fmi3ValueReference *out_vrs; /* output clocks, read in one fmi3GetClock */
    size_t *out_index;
    fmi3Clock *out_values;
    size_t out_count;
    /* Paced (a real-time frame): releases, the running partition, errors
     * from a preemption point (a callback cannot return one). */
    const rtcosim_paced_frame *frame;
    rtcosim_time_ns window_end;
    bool ahead;                    /* the window reaches past the frame's end */
    int64_t running_priority;      /* INT64_MAX: none runs */
    rtcosim_time_ns preempted_ns;  /* time spent in preemption points */
    rtcosim_status preempt_status;
    rtcosim_error preempt_error;
};

static bool is_periodic(rtcosim_fmi_clock_kind kind)
{
    return kind == RTCOSIM_FMI_CLOCK_CONSTANT || kind == RTCOSIM_FMI_CLOCK_FIXED ||
           kind == RTCOSIM_FMI_CLOCK_TUNABLE;
}

rtcosim_status rtcosim_fmi3_schedule_new(rtcosim_fmu *f, struct rtcosim_se_schedule **out,
                                         rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    struct rtcosim_se_schedule *s = calloc(1, sizeof *s);
    if (s) {
        s->clocks = calloc(md->clock_count + 1, sizeof *s->clocks);
        s->out_vrs = calloc(md->clock_count + 1, sizeof *s->out_vrs);
        s->out_index = calloc(md->clock_count + 1, sizeof *s->out_index);
        s->out_values = calloc(md->clock_count + 1, sizeof *s->out_values);
    }
    if (!s || !s->clocks || !s->out_vrs || !s->out_index || !s->out_values) {
        rtcosim_fmi3_schedule_free(s);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    }
    s->f = f;
    s->count = md->clock_count;
    s->running_priority = INT64_MAX;
    for (size_t i = 0; i < md->clock_count; i++) {
        se_clock *c = &s->clocks[i];
        c->decl = &md->clocks[i];
        c->v = &md->variables[c->decl->variable];
        c->input = c->v->causality == RTCOSIM_CAUSALITY_INPUT;
        c->next = NEVER;
        c->last_activation = INT64_MIN;
        rtcosim_histogram_reset(&c->lateness);
        if (c->v->causality == RTCOSIM_CAUSALITY_OUTPUT) {
            s->out_vrs[s->out_count] = c->v->value_reference;
            s->out_index[s->out_count++] = i;
        }
    }
    *out = s;
    return RTCOSIM_OK;
}

void rtcosim_fmi3_schedule_free(struct rtcosim_se_schedule *s)
{
    if (!s)
        return;
    free(s->clocks);
    free(s->out_vrs);
    free(s->out_index);
    free(s->out_values);
    free(s);
}

static rtcosim_status to_ns(const struct rtcosim_se_schedule *s, const se_clock *c,
                            const char *what, double seconds, bool zero_ok, rtcosim_time_ns *out,
                            rtcosim_error *err)
{
    if (!(seconds > 0 || (zero_ok && seconds == 0)) ||
        rtcosim_time_from_seconds(seconds, out, NULL) != RTCOSIM_OK)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "%s: clock '%s': %s %g s must be %s (FMI 3.0 section 2.2.8)",
                                 s->f->instance_name, c->v->name, what, seconds,
                                 zero_ok ? "at least 0" : "greater than 0");
    return RTCOSIM_OK;
}

/* In Initialization Mode (section 2.2.8's table): periodic intervals and
 * shifts from the description, else from the FMU; countdown and changing
 * intervals the FMU knows at the start. */
rtcosim_status rtcosim_fmi3_schedule_init(struct rtcosim_se_schedule *s, rtcosim_time_ns start,
                                          rtcosim_error *err)
{
    for (size_t i = 0; i < s->count; i++) {
        se_clock *c = &s->clocks[i];
        rtcosim_fmi_clock_kind kind = c->decl->kind;
        c->next = NEVER;
        c->last_activation = INT64_MIN;
        c->due = false;
        if (!c->input || kind == RTCOSIM_FMI_CLOCK_TRIGGERED)
            continue;
        double interval = c->decl->interval, shift = c->decl->shift;
        rtcosim_interval_qualifier q = RTCOSIM_INTERVAL_CHANGED;
        rtcosim_status st;
        if (!c->decl->has_interval) {
            st = rtcosim_fmi3_get_interval(s->f, i, &interval, &q, err);
            if (st == RTCOSIM_OK && is_periodic(kind) && q != RTCOSIM_INTERVAL_NOT_YET_KNOWN)
                st = rtcosim_fmi3_get_shift(s->f, i, &shift, err);
            if (st != RTCOSIM_OK)
                return st;
        }
        if (q == RTCOSIM_INTERVAL_NOT_YET_KNOWN) {
            if (is_periodic(kind))
                return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                         "%s: clock '%s': a %s clock's interval is neither declared "
                                         "nor known to the FMU in Initialization Mode (FMI 3.0 "
                                         "section 2.2.8)",
                                         s->f->instance_name, c->v->name,
                                         rtcosim_fmi_clock_kind_name(kind));
            continue; /* changing/countdown: not yet */
        }
        rtcosim_time_ns shift_ns = 0;
        if ((st = to_ns(s, c, "interval", interval, kind == RTCOSIM_FMI_CLOCK_COUNTDOWN,
                        &c->interval, err)) != RTCOSIM_OK ||
            (st = to_ns(s, c, "shift", shift, true, &shift_ns, err)) != RTCOSIM_OK)
            return st;
        if (c->interval_set > 0 && is_periodic(kind))
            c->interval = c->interval_set;
        c->next = start + (is_periodic(kind) ? shift_ns : c->interval);
    }
    return RTCOSIM_OK;
}

/* After a clockUpdate (section 5.2.3): every output clock once (a read
 * resets it), every countdown clock's interval; a zero interval ticks at
 * this instant, after the partitions of higher priority. */
static rtcosim_status clock_update(struct rtcosim_se_schedule *s, rtcosim_time_ns t,
                                   rtcosim_error *err)
{
    rtcosim_fmu *f = s->f;
    if (s->out_count) {
        fmi3Status fs = f->fmi3.fmi3GetClock(f->instance, s->out_vrs, s->out_count, s->out_values);
        RTCOSIM_FMU_TRACE(f, "fmi3GetClock", fs, "%zu output clocks", s->out_count);
        rtcosim_status st = rtcosim_fmu_status(f, fs, "fmi3GetClock", rtcosim_time_to_seconds(t), err);
        if (st != RTCOSIM_OK)
            return st;
        for (size_t j = 0; j < s->out_count; j++)
            if (s->out_values[j]) {
                se_clock *c = &s->clocks[s->out_index[j]];
                c->ticks++;
                c->ticked_in_step = true;
            }
    }
    for (size_t i = 0; i < s->count; i++) {
        se_clock *c = &s->clocks[i];
        if (!c->input || c->decl->kind != RTCOSIM_FMI_CLOCK_COUNTDOWN)
            continue;
        double interval;
        rtcosim_interval_qualifier q;
        rtcosim_status st = rtcosim_fmi3_get_interval(f, i, &interval, &q, err);
        if (st != RTCOSIM_OK)
            return st;
        if (q != RTCOSIM_INTERVAL_CHANGED)
            continue;
        if ((st = to_ns(s, c, "countdown interval", interval, true, &c->interval, err)))
            return st;
        c->next = t + c->interval;
        if (c->next == t && c->last_activation == t)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                     "%s: clock '%s': countdown interval 0 at a time it already "
                                     "ticked (FMI 3.0 section 5.2.2)",
                                     f->instance_name, c->v->name);
        if (c->next == t) {
            c->due = true;
            c->due_time = t;
        }
    }
    return RTCOSIM_OK;
}

/* The clock to activate next at this instant: highest priority (smallest
 * value), then the declaration order; -1 when none is due. */
static long next_due(const struct rtcosim_se_schedule *s)
{
    long best = -1;
    for (size_t i = 0; i < s->count; i++)
        if (s->clocks[i].due &&
            (best < 0 || s->clocks[i].decl->priority < s->clocks[best].decl->priority))
            best = (long)i;
    return best;
}

static rtcosim_time_ns now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (rtcosim_time_ns)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
}

static rtcosim_status activate(struct rtcosim_se_schedule *s, size_t i, rtcosim_time_ns t,
                               rtcosim_error *err)
{
    se_clock *c = &s->clocks[i];
    c->due = false;
    bool update = false;
    rtcosim_time_ns began = now_ns(), preempted = s->preempted_ns;
    rtcosim_status st = rtcosim_fmi3_se_activate(s->f, i, t, &update, err);
    rtcosim_time_ns took = now_ns() - began - (s->preempted_ns - preempted);
    if (st == RTCOSIM_OK && s->preempt_status != RTCOSIM_OK) {
        st = s->preempt_status; /* a partition that preempted this one failed */
        if (err)
            *err = s->preempt_error;
        s->preempt_status = RTCOSIM_OK;
    }
    if (st != RTCOSIM_OK)
        return st;
    c->stats.activations++;
    c->stats.exec_total_ns += took;
    if (took > c->stats.exec_max_ns)
        c->stats.exec_max_ns = took;
    c->last_activation = t;
    c->ticks++;
    rtcosim_fmi_clock_kind kind = c->decl->kind;
    if (kind == RTCOSIM_FMI_CLOCK_TUNABLE || kind == RTCOSIM_FMI_CLOCK_CHANGING) {
        /* Their interval may change at each tick (table of section 2.2.8). */
        double interval;
        rtcosim_interval_qualifier q;
        if ((st = rtcosim_fmi3_get_interval(s->f, i, &interval, &q, err)) != RTCOSIM_OK)
            return st;
        if (q == RTCOSIM_INTERVAL_CHANGED &&
            (st = to_ns(s, c, "interval", interval, false, &c->interval, err)) != RTCOSIM_OK)
            return st;
        c->next = q == RTCOSIM_INTERVAL_NOT_YET_KNOWN && kind == RTCOSIM_FMI_CLOCK_CHANGING
                      ? NEVER
                      : t + c->interval;
    } else if (is_periodic(kind)) {
        c->next = t + c->interval;
    } else if (kind == RTCOSIM_FMI_CLOCK_COUNTDOWN) {
        c->next = NEVER; /* until the FMU announces the next one */
    }
    return update ? clock_update(s, t, err) : RTCOSIM_OK;
}

static rtcosim_status run_instant(struct rtcosim_se_schedule *s, rtcosim_time_ns t,
                                  rtcosim_se_before_partition before, void *context,
                                  size_t *activated, rtcosim_error *err)
{
    bool any = false;
    for (size_t i = 0; i < s->count; i++) {
        se_clock *c = &s->clocks[i];
        if (c->input && c->next == t)
            c->due = true;
        any |= c->due;
    }
    size_t n = 0;
    rtcosim_status st = RTCOSIM_OK;
    if (any && before)
        st = before(context, SIZE_MAX, err);
    for (long i; st == RTCOSIM_OK && (i = next_due(s)) >= 0;) {
        if (s->clocks[i].last_activation == t) {
            s->clocks[i].due = false; /* triggered twice at one time: one tick */
            continue;
        }
        if (before && (st = before(context, (size_t)i, err)) != RTCOSIM_OK)
            break;
        st = activate(s, (size_t)i, t, err);
        n += st == RTCOSIM_OK;
    }
    if (activated)
        *activated = n;
    return st;
}

/* ---- Paced: partitions as tasks of the paced thread (chapter 5) ----
 * Inside a real-time frame the step covers the ticks of [t, t + h): a tick
 * is released at its own wall time (rtcosim/clock.h's mapping, the frame's
 * start for t), the highest-priority released partition runs, the thread
 * sleeps until the next release when none is, and a partition released
 * while a lower-priority one runs preempts it at that one's next
 * preemption point (its lockPreemption from depth 0, its outermost
 * unlockPreemption): nested on this thread, never inside a critical
 * section. A tick at t + h is the next frame's, released at its start. A
 * step longer than the frame (a multi-rate part's master) runs its ticks
 * past the frame's end at once, ahead of time, without a lateness. */

bool rtcosim_fmi3_schedule_paced(const struct rtcosim_se_schedule *s)
{
    return s->frame != NULL;
}

/* Every input clock whose tick in the window has been released by now
 * (every one once the step runs ahead of the frame). */
static void release_due(struct rtcosim_se_schedule *s, rtcosim_time_ns now)
{
    for (size_t i = 0; i < s->count; i++) {
        se_clock *c = &s->clocks[i];
        if (c->input && !c->due && c->next < s->window_end &&
            (s->ahead || rtcosim_paced_frame_release(s->frame, c->next) <= now)) {
            c->due = true;
            c->due_time = c->next;
        }
    }
}

/* The released partition of highest priority above `above`; -1: none. */
static long best_due(const struct rtcosim_se_schedule *s, int64_t above)
{
    long best = -1;
    for (size_t i = 0; i < s->count; i++) {
        const se_clock *c = &s->clocks[i];
        if (c->due && (int64_t)c->decl->priority < above &&
            (best < 0 || c->decl->priority < s->clocks[best].decl->priority))
            best = (long)i;
    }
    return best;
}

static rtcosim_status run_released(struct rtcosim_se_schedule *s, size_t i, rtcosim_time_ns now,
                                   rtcosim_error *err)
{
    se_clock *c = &s->clocks[i];
    rtcosim_time_ns tau = c->due_time;
    if (c->last_activation == tau) {
        c->due = false; /* one activation per time (section 5.2.2) */
        return RTCOSIM_OK;
    }
    rtcosim_time_ns release = rtcosim_paced_frame_release(s->frame, tau);
    if (release <= now)
        rtcosim_histogram_add(&c->lateness, now - release); /* not a tick run ahead */
    int64_t outer = s->running_priority;
    s->running_priority = (int64_t)c->decl->priority;
    rtcosim_status st = activate(s, i, tau, err);
    s->running_priority = outer;
    return st;
}

void rtcosim_fmi3_schedule_preemption_point(struct rtcosim_se_schedule *s)
{
    if (!s->frame || s->preempt_status != RTCOSIM_OK)
        return;
    rtcosim_time_ns now = rtcosim_clock_now(s->frame->clock);
    release_due(s, now);
    long i = best_due(s, s->running_priority);
    if (i < 0)
        return;
    rtcosim_time_ns began = now_ns(), before = s->preempted_ns;
    do {
        if (s->clocks[i].last_activation != s->clocks[i].due_time)
            s->clocks[i].stats.preemptions++;
        rtcosim_status st = run_released(s, (size_t)i, now, &s->preempt_error);
        if (st != RTCOSIM_OK) {
            s->preempt_status = st;
            break;
        }
        now = rtcosim_clock_now(s->frame->clock);
        release_due(s, now);
    } while ((i = best_due(s, s->running_priority)) >= 0);
    /* The nested partitions' own points are inside this span: count it once. */
    s->preempted_ns = before + (now_ns() - began);
}

static rtcosim_status paced_step(struct rtcosim_se_schedule *s, const rtcosim_paced_frame *frame,
                                 rtcosim_time_ns t, rtcosim_time_ns h, rtcosim_error *err)
{
    s->frame = frame;
    s->window_end = t + h;
    s->ahead = false;
    for (size_t i = 0; i < s->count; i++)
        if (s->clocks[i].due && s->clocks[i].due_time == NEVER)
            s->clocks[i].due_time = t; /* triggered since the last step */
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        rtcosim_time_ns now = rtcosim_clock_now(frame->clock);
        release_due(s, now);
        long i = best_due(s, INT64_MAX);
        if (i >= 0) {
            if ((st = run_released(s, (size_t)i, now, err)) != RTCOSIM_OK)
                break;
            continue;
        }
        rtcosim_time_ns next = NEVER;
        for (size_t k = 0; k < s->count; k++)
            if (s->clocks[k].input && s->clocks[k].next < next)
                next = s->clocks[k].next;
        if (next >= s->window_end)
            break;
        rtcosim_time_ns release = rtcosim_paced_frame_release(frame, next);
        if (release >= frame->end)
            s->ahead = true; /* a step longer than the frame (a multi-rate part):
                                its later ticks run now, not frames later */
        else
            rtcosim_clock_sleep_until(frame->clock, release);
    }
    s->frame = NULL;
    return st;
}

/* do_step(t, h) of an SE FMU: the instants in (t, t + h], and those at t on
 * the first step or for triggers set since; paced above in a real-time frame. */
rtcosim_status rtcosim_fmi3_schedule_step(struct rtcosim_se_schedule *s, rtcosim_time_ns t,
                                          rtcosim_time_ns h, bool first, rtcosim_error *err)
{
    for (size_t j = 0; j < s->out_count; j++)
        s->clocks[s->out_index[j]].ticked_in_step = false;
    const rtcosim_paced_frame *frame = rtcosim_paced_frame_current();
    if (frame)
        return paced_step(s, frame, t, h, err);
    bool pending = false;
    for (size_t i = 0; i < s->count; i++)
        pending |= s->clocks[i].due;
    rtcosim_status st = RTCOSIM_OK;
    if (first || pending)
        st = run_instant(s, t, NULL, NULL, NULL, err);
    for (rtcosim_time_ns now = t, end = t + h;;) {
        rtcosim_time_ns next = NEVER;
        for (size_t i = 0; i < s->count; i++)
            if (s->clocks[i].input && s->clocks[i].next > now && s->clocks[i].next < next)
                next = s->clocks[i].next;
        if (st != RTCOSIM_OK || next > end)
            return st;
        st = run_instant(s, next, NULL, NULL, NULL, err);
        now = next;
    }
}

bool rtcosim_fmi3_schedule_output_ticked(const struct rtcosim_se_schedule *s, uint32_t vr,
                                         bool *ticked)
{
    for (size_t j = 0; j < s->out_count; j++)
        if (s->out_vrs[j] == vr) {
            *ticked = s->clocks[s->out_index[j]].ticked_in_step;
            return true;
        }
    return false;
}

/* ---- rtcosim/fmu_clocks.h ---- */

static struct rtcosim_se_schedule *schedule_of(const rtcosim_component *c)
{
    if (!c || rtcosim_component_kind(c) != rtcosim_fmi3_kind)
        return NULL;
    rtcosim_fmu *f = rtcosim_component_impl(c);
    return f->schedule;
}

static rtcosim_status not_se(const rtcosim_component *c, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: not an FMU in scheduled execution",
                             c ? rtcosim_component_instance_name(c) : "?");
}

rtcosim_time_ns rtcosim_fmu_se_next_tick(const rtcosim_component *c)
{
    const struct rtcosim_se_schedule *s = schedule_of(c);
    rtcosim_time_ns next = NEVER;
    for (size_t i = 0; s && i < s->count; i++)
        if (s->clocks[i].input && s->clocks[i].next < next)
            next = s->clocks[i].next;
    return next;
}

void rtcosim_fmi3_schedule_set_interval(struct rtcosim_se_schedule *s, size_t clock,
                                        rtcosim_time_ns interval)
{
    s->clocks[clock].interval_set = interval;
    s->clocks[clock].interval = interval; /* a tunable clock: from its next tick on */
}

void rtcosim_fmi3_schedule_trigger(struct rtcosim_se_schedule *s, size_t clock)
{
    s->clocks[clock].due = true;
    s->clocks[clock].due_time = NEVER; /* paced: at the next step's start */
}

rtcosim_status rtcosim_fmu_se_trigger(rtcosim_component *c, size_t clock, rtcosim_error *err)
{
    struct rtcosim_se_schedule *s = schedule_of(c);
    if (!s)
        return not_se(c, err);
    if (clock >= s->count || !s->clocks[clock].input ||
        s->clocks[clock].decl->kind != RTCOSIM_FMI_CLOCK_TRIGGERED)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: only triggered input clocks are ticked by the importer "
                                 "(FMI 3.0 section 2.2.8)", s->f->instance_name);
    rtcosim_fmi3_schedule_trigger(s, clock);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmu_se_run_instant(rtcosim_component *c, rtcosim_time_ns t,
                                          rtcosim_se_before_partition before, void *context,
                                          size_t *activated, rtcosim_error *err)
{
    struct rtcosim_se_schedule *s = schedule_of(c);
    if (!s)
        return not_se(c, err);
    return run_instant(s, t, before, context, activated, err);
}

uint64_t rtcosim_fmu_se_ticks(const rtcosim_component *c, size_t clock)
{
    const struct rtcosim_se_schedule *s = schedule_of(c);
    return s && clock < s->count ? s->clocks[clock].ticks : 0;
}

rtcosim_status rtcosim_fmu_se_partition_stats(const rtcosim_component *c, size_t clock,
                                              rtcosim_se_partition_stats *out, rtcosim_error *err)
{
    const struct rtcosim_se_schedule *s = schedule_of(c);
    if (!s)
        return not_se(c, err);
    if (clock >= s->count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no clock #%zu", s->f->instance_name,
                                 clock);
    const se_clock *k = &s->clocks[clock];
    *out = k->stats;
    out->released = k->lateness.count;
    out->lateness_p50_ns = rtcosim_histogram_percentile(&k->lateness, 50);
    out->lateness_p99_ns = rtcosim_histogram_percentile(&k->lateness, 99);
    out->lateness_max_ns = k->lateness.count ? k->lateness.max : 0;
    return RTCOSIM_OK;
}
