/* Calibration and the run of a real-time system run: a probe of the
 * real-time part timed unpaced before the run, the executor's run, and the
 * non-real-time part completed to the stop time afterwards; accessors. */
#include "realtime/rt_internal.h"
#include "realtime/system_rt_internal.h"

static int compare_ns(const void *a, const void *b)
{
    rtcosim_time_ns x = *(const rtcosim_time_ns *)a, y = *(const rtcosim_time_ns *)b;
    return (x > y) - (x < y);
}

/* Time calibration_frames steps of a fresh instance of the real-time part,
 * unpaced, on the pacing clock less the run-queue wait (rt_frame_timer); refuse when the median or the 99th
 * percentile exceeds the budget (rtcosim_rt_calibration_fits). */
static rtcosim_status calibrate(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &srt->options.rt;
    rtcosim_master *probe = NULL;
    rtcosim_status st = system_rt_build_part(srt, 0, &probe, err);
    if (st != RTCOSIM_OK)
        return st;
    size_t frames = o->calibration_frames;
    rtcosim_time_ns *took = calloc(frames + 1, sizeof *took);
    if (!took) {
        rtcosim_master_free(probe);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    rt_frame_timer timer;
    rtcosim_rt_frame_timer_open(&timer, o->clock);
    for (size_t f = 0; f < frames && st == RTCOSIM_OK; f++) {
        rtcosim_rt_frame_timer_begin(&timer);
        st = rtcosim_master_step(probe, err);
        rtcosim_master_observed_values(probe);
        took[f] = rtcosim_rt_frame_timer_end(&timer);
    }
    rtcosim_rt_frame_timer_close(&timer);
    rtcosim_master_free(probe);
    if (st != RTCOSIM_OK) {
        free(took);
        return rtcosim_error_prefix(err, "calibration: ");
    }
    rtcosim_rt_frame_timer_log(&timer, frames);
    qsort(took, frames, sizeof *took, compare_ns);
    char budget_text[32];
    double period = (double)srt->macro_step / o->rt_factor;
    double budget = period * o->calibration_budget;
    rtcosim_time_ns worst = took[frames - 1], median, p99;
    bool fits = rtcosim_rt_calibration_fits(took, frames, budget, &median, &p99);
    free(took);
    /* Sub-microsecond budgets (huge rt-factors) are shown in ns. */
    if (budget >= 100)
        snprintf(budget_text, sizeof budget_text, "%.1f us", budget / 1e3);
    else
        snprintf(budget_text, sizeof budget_text, "%.3g ns", budget);
    rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                "calibration: real-time part median %.1f us, 99th percentile %.1f us, worst "
                "%.1f us per frame of %.1f us%s",
                (double)median / 1e3, (double)p99 / 1e3, (double)worst / 1e3, period / 1e3,
                fits && (double)worst > budget ? " (the worst an isolated stall, ignored)" : "");
    if (!fits)
        return rtcosim_error_set(err, RTCOSIM_ETIMEOUT,
                                 "%s: the real-time part (%s) cannot keep its frame on this "
                                 "machine: calibration over %zu frames took %.1f us per frame "
                                 "(median), %.1f us (99th percentile), over the budget of %s "
                                 "(%.0f %% of H / rt-factor = %.9g s / %g); mark slow "
                                 "components non-real-time, lower the rt-factor or enlarge the "
                                 "step, or run anyway with --no-calibrate",
                                 rtcosim_system_desc_file(srt->desc), srt->part_names[0], frames,
                                 (double)median / 1e3, (double)p99 / 1e3, budget_text,
                                 o->calibration_budget * 100,
                                 rtcosim_time_to_seconds(srt->macro_step), o->rt_factor);
    return RTCOSIM_OK;
}

/* The real-time part's last frame ends at the stop; a non-real-time
 * part's data for the stop come from its step after the last exchange,
 * which no frame waits for. When a part is on time (it has consumed the last
 * exchange's inputs or stands right before them), finish that step now, off
 * the clock, with the inputs it was sent then, so that the final results row
 * holds its values at the stop as a plain run would; a late or lost part's
 * values stay as last used. */
static rtcosim_status finish_partner(rtcosim_system_rt *srt, int p, rtcosim_time_ns end,
                                     rtcosim_error *err)
{
    const rtcosim_rt_part_summary *ps = rtcosim_rt_part_summary_at(srt->rt, (size_t)p - 1);
    if (!srt->parts[p] || !ps || ps->lost)
        return RTCOSIM_OK;
    group *rtg = &srt->groups[0], *pg = &srt->groups[p];
    rtcosim_time_ns tv = pg->time;
    if (tv == srt->last_exchange && end > tv) {
        for (size_t i = 0; i < srt->conn_count; i++) {
            const rtcosim_rt_connection *c = &srt->conns[i];
            double x;
            if (c->to_component != (size_t)p ||
                !rtcosim_rt_sent_value(srt->rt, c->to_component, c->to_vr, &x))
                continue;
            rtcosim_status st = system_rt_group_set(pg, RTCOSIM_TYPE_FLOAT64, &c->to_vr, 1, &x,
                                                    err);
            if (st != RTCOSIM_OK)
                return st;
        }
        rtcosim_status st = system_rt_group_step(pg, tv, end - tv, NULL, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "non-real-time part %s, last step: ",
                                        srt->part_names[p]);
        tv = end;
    }
    if (tv != end) {
        rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                    "non-real-time part %s at %.9g s at the stop: its last values are held",
                    srt->part_names[p], rtcosim_time_to_seconds(tv));
        return RTCOSIM_OK;
    }
    for (size_t i = 0; i < srt->conn_count; i++) {
        const rtcosim_rt_connection *c = &srt->conns[i];
        if (c->from_component != (size_t)p || c->to_component != 0)
            continue;
        rtcosim_status st = system_rt_group_get(pg, RTCOSIM_TYPE_FLOAT64, &c->from_vr, 1,
                                                &rtg->links[c->to_vr].raw, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_rt_run(rtcosim_system_rt *srt, rtcosim_error *err)
{
    if (!srt)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_rt_run: NULL argument");
    rtcosim_status st = RTCOSIM_OK;
    if (srt->options.rt.calibrate)
        st = calibrate(srt, err);
    if (st != RTCOSIM_OK) {
        /* Nothing ran: leave no empty results file behind. */
        if (srt->recorder) {
            rtcosim_recorder_close(srt->recorder, NULL, NULL);
            srt->recorder = NULL;
            rtcosim_results_discard(srt->options.output_file); /* (not /dev/null) */
        }
        return st;
    }
    st = rtcosim_rt_run(srt->rt, err);
    /* The final point (the results so far, also after a failure). */
    rtcosim_time_ns end = srt->groups[0].time;
    for (int p = 1; st == RTCOSIM_OK && !rtcosim_rt_get_summary(srt->rt)->failed &&
                    p < srt->part_count;
         p++)
        st = finish_partner(srt, p, end, err);
    if (!srt->any_row || srt->last_row_time != end)
        system_rt_record(srt, end, true);
    if (srt->recorder) {
        rtcosim_recorder_stats stats = {0};
        rtcosim_error cerr;
        rtcosim_status cs = rtcosim_recorder_close(srt->recorder, &stats, &cerr);
        srt->recorder = NULL;
        srt->rows_written = stats.rows_written;
        if (stats.rows_dropped)
            rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                        "%s: %llu result rows dropped (the writer could not keep up)",
                        srt->options.output_file, (unsigned long long)stats.rows_dropped);
        if (stats.strings_cut)
            rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                        "%s: %llu String or Binary values cut to the first 256 bytes (the paced "
                        "thread copies each into a fixed slot of the writer's ring)",
                        srt->options.output_file, (unsigned long long)stats.strings_cut);
        if (cs != RTCOSIM_OK && st == RTCOSIM_OK) {
            st = cs;
            if (err)
                *err = cerr;
        }
    }
    if (st == RTCOSIM_OK && srt->record_status != RTCOSIM_OK) {
        st = srt->record_status;
        if (err)
            *err = srt->record_error;
    }
    return st;
}

const rtcosim_rt *rtcosim_system_rt_executor(const rtcosim_system_rt *srt) { return srt->rt; }
rtcosim_time_ns rtcosim_system_rt_macro_step(const rtcosim_system_rt *srt)
{
    return srt->macro_step;
}
size_t rtcosim_system_rt_column_count(const rtcosim_system_rt *srt) { return srt->column_count; }
const char *rtcosim_system_rt_column_name(const rtcosim_system_rt *srt, size_t index)
{
    return index < srt->column_count ? srt->columns[index] : NULL;
}
uint64_t rtcosim_system_rt_rows_written(const rtcosim_system_rt *srt)
{
    return srt->rows_written;
}
const double *rtcosim_system_rt_last_values(const rtcosim_system_rt *srt)
{
    return srt->last_values;
}
bool rtcosim_system_rt_last_exact(const rtcosim_system_rt *srt, size_t index,
                                  rtcosim_value *value)
{
    if (index >= srt->numeric_column_count || !srt->column_exact[index])
        return false;
    *value = srt->row[index];
    return true;
}
size_t rtcosim_system_rt_numeric_column_count(const rtcosim_system_rt *srt)
{
    return srt->numeric_column_count;
}
const char *rtcosim_system_rt_last_text(const rtcosim_system_rt *srt, size_t index)
{
    return index >= srt->numeric_column_count && index < srt->column_count ? srt->last_text[index]
                                                                           : NULL;
}
const char *rtcosim_system_rt_part_names(const rtcosim_system_rt *srt, bool non_realtime)
{
    return non_realtime ? srt->nonrt_names : srt->part_names[0];
}
const rtcosim_master *rtcosim_system_rt_part(const rtcosim_system_rt *srt, bool non_realtime)
{
    return srt->parts[non_realtime ? 1 : 0];
}
size_t rtcosim_system_rt_nonrealtime_count(const rtcosim_system_rt *srt)
{
    return (size_t)srt->part_count - 1;
}
const rtcosim_master *rtcosim_system_rt_nonrealtime_part(const rtcosim_system_rt *srt, size_t i)
{
    return i + 1 < (size_t)srt->part_count ? srt->parts[i + 1] : NULL;
}
