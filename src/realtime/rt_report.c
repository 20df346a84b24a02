/* Reports of a real-time run: CSV files (summary, per-frame data drawable by
 * `rtcosim plot`, overruns, estimates, estimator errors) written after the
 * run, and a human summary for the caller to print. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "realtime/rt_internal.h"
#include "rtcosim/plot.h"

static rtcosim_status make_dirs(const char *dir, rtcosim_error *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%.60s...: report directory name too long",
                                 dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create directory: %s", path,
                                     strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create directory: %s", path,
                                 strerror(errno));
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: not a directory", path);
    return RTCOSIM_OK;
}

static FILE *open_report(const char *dir, const char *name, char *path, size_t size,
                         rtcosim_error *err)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static rtcosim_status close_report(FILE *f, const char *path, rtcosim_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: write failed", path);
    return RTCOSIM_OK;
}

static double us(rtcosim_time_ns t)
{
    return (double)t / 1e3;
}

static void write_summary(const rtcosim_rt *rt, FILE *f)
{
    const rtcosim_rt_summary *s = &rt->summary;
    const rtcosim_histogram *l = &rt->lateness, *e = &rt->exec_time;
    fprintf(f, "figure,value,unit\n");
    fprintf(f, "macro_step,%.9g,s\n", rtcosim_time_to_seconds(rt->options.macro_step));
    fprintf(f, "rt_factor,%.9g,\n", rt->options.rt_factor);
    fprintf(f, "overrun_policy,%s,\n", rtcosim_overrun_policy_name(rt->options.overrun));
    fprintf(f, "frames,%llu,\n", (unsigned long long)s->frames);
    fprintf(f, "frames_dropped,%llu,\n", (unsigned long long)s->frames_dropped);
    fprintf(f, "overruns,%llu,\n", (unsigned long long)s->overruns);
    fprintf(f, "overruns_backlog,%llu,\n", (unsigned long long)s->overruns_backlog);
    fprintf(f, "overruns_execution,%llu,\n", (unsigned long long)s->overruns_execution);
    fprintf(f, "overruns_wakeup,%llu,\n", (unsigned long long)s->overruns_wakeup);
    fprintf(f, "lateness_p50,%.3f,us\n", us(rtcosim_histogram_percentile(l, 50)));
    fprintf(f, "lateness_p99,%.3f,us\n", us(rtcosim_histogram_percentile(l, 99)));
    fprintf(f, "lateness_p99.9,%.3f,us\n", us(rtcosim_histogram_percentile(l, 99.9)));
    fprintf(f, "lateness_max,%.3f,us\n", us(l->max));
    fprintf(f, "exec_p50,%.3f,us\n", us(rtcosim_histogram_percentile(e, 50)));
    fprintf(f, "exec_p99,%.3f,us\n", us(rtcosim_histogram_percentile(e, 99)));
    fprintf(f, "exec_max,%.3f,us\n", us(e->max));
    fprintf(f, "drift,%.3f,us\n", us(s->drift));
    fprintf(f, "slip,%.3f,us\n", us(s->slip));
    fprintf(f, "stopped_at,%.9g,s\n", rtcosim_time_to_seconds(s->stopped_at));
    fprintf(f, "failed,%d,\n", s->failed);
    fprintf(f, "sched_fifo,%d,\n", s->fifo_applied);
    fprintf(f, "memory_locked,%d,\n", s->memory_locked);
    fprintf(f, "dma_latency_held,%d,\n", s->dma_latency_held);
    fprintf(f, "cpu_affinity,%d,\n", s->affinity_applied);
    /* Per part: compute time and its share of H (of the wall time a macro step takes). */
    double period = (double)rt->options.macro_step / rt->options.rt_factor;
    fprintf(f, "realtime_compute_mean,%.3f,us\n", rtcosim_histogram_mean(e) / 1e3);
    fprintf(f, "realtime_compute_p99,%.3f,us\n", us(rtcosim_histogram_percentile(e, 99)));
    fprintf(f, "realtime_share_of_H,%.6f,\n", rtcosim_histogram_mean(e) / period);
    if (s->calibration_worst)
        fprintf(f, "calibration_worst,%.3f,us\ncalibration_median,%.3f,us\n"
                   "calibration_p99,%.3f,us\n",
                us(s->calibration_worst), us(s->calibration_median), us(s->calibration_p99));
    if (!rt->mixed)
        return;
    fprintf(f, "exchanges,%llu,\n", (unsigned long long)s->exchanges);
    fprintf(f, "estimated_exchanges,%llu,\n", (unsigned long long)s->estimated_exchanges);
    fprintf(f, "estimated_share,%.6f,\n",
            s->exchanges ? (double)s->estimated_exchanges / (double)s->exchanges : 0.0);
    fprintf(f, "overruns_while_late,%llu,\n", (unsigned long long)s->overruns_while_late);
    fprintf(f, "overruns_partner,%llu,\n", (unsigned long long)s->overruns_partner);
    fprintf(f, "partner_isolated,%d,\n", s->partner_isolated);
    fprintf(f, "max_lag,%.9g,s\n", rtcosim_time_to_seconds(s->max_lag));
    fprintf(f, "late_episodes,%llu,\n", (unsigned long long)s->late_episodes);
    fprintf(f, "resync_frames_median,%llu,\n", (unsigned long long)s->resync_frames_median);
    fprintf(f, "resync_frames_max,%llu,\n", (unsigned long long)s->resync_frames_max);
    fprintf(f, "partner_lost,%d,\n", s->partner_lost);
    if (s->partner_lost)
        fprintf(f, "partner_lost_at,%.9g,s\n", rtcosim_time_to_seconds(s->partner_lost_at));
    fprintf(f, "records_dropped,%llu,\n", (unsigned long long)s->records_dropped);
    fprintf(f, "nonrealtime_compute_mean,%.3f,us\n", us(s->partner_compute_mean));
    fprintf(f, "nonrealtime_compute_p99,%.3f,us\n", us(s->partner_compute_p99));
    fprintf(f, "nonrealtime_share_of_H,%.6f,\n", s->partner_load);
    fprintf(f, "nonrealtime_windows,%llu,\n", (unsigned long long)s->partner_windows);
    fprintf(f, "nonrealtime_slow_windows,%llu,\n", (unsigned long long)s->partner_slow_windows);
    fprintf(f, "nonrealtime_worst_window_share,%.6f,\n", s->partner_worst_load);
    if (s->partner_slow_windows)
        fprintf(f, "nonrealtime_first_slow_at,%.9g,s\n",
                rtcosim_time_to_seconds(s->partner_first_slow_at));
    /* Per part: FIGURE[PART], the part named by its components ('+'-joined). */
    fprintf(f, "partner_window,%.9g,s\n", rtcosim_time_to_seconds(rtcosim_rt_partner_window(rt)));
    fprintf(f, "nonrealtime_parts,%zu,\n", rt->partner_count);
    for (size_t i = 0; i < rt->partner_count; i++) {
        const rtcosim_rt_part_summary *p = &rt->partners[i].summary;
        const char *n = p->name;
        fprintf(f, "signals_to_rt[%s],%llu,\n", n, (unsigned long long)p->signals_to_rt);
        fprintf(f, "signals_to_part[%s],%llu,\n", n, (unsigned long long)p->signals_to_part);
        fprintf(f, "estimated_exchanges[%s],%llu,\n", n,
                (unsigned long long)p->estimated_exchanges);
        fprintf(f, "max_lag[%s],%.9g,s\n", n, rtcosim_time_to_seconds(p->max_lag));
        fprintf(f, "late_episodes[%s],%llu,\n", n, (unsigned long long)p->late_episodes);
        fprintf(f, "resync_frames_median[%s],%llu,\n", n,
                (unsigned long long)p->resync_frames_median);
        fprintf(f, "resync_frames_max[%s],%llu,\n", n, (unsigned long long)p->resync_frames_max);
        fprintf(f, "partner_lost[%s],%d,\n", n, p->lost);
        if (p->lost)
            fprintf(f, "partner_lost_at[%s],%.9g,s\n", n, rtcosim_time_to_seconds(p->lost_at));
        fprintf(f, "nonrealtime_compute_mean[%s],%.3f,us\n", n, us(p->compute_mean));
        fprintf(f, "nonrealtime_compute_p99[%s],%.3f,us\n", n, us(p->compute_p99));
        fprintf(f, "nonrealtime_compute_max[%s],%.3f,us\n", n, us(p->compute_max));
        fprintf(f, "nonrealtime_share_of_H[%s],%.6f,\n", n, p->load);
        fprintf(f, "nonrealtime_windows[%s],%llu,\n", n, (unsigned long long)p->windows);
        fprintf(f, "nonrealtime_slow_windows[%s],%llu,\n", n, (unsigned long long)p->slow_windows);
        fprintf(f, "nonrealtime_worst_window_share[%s],%.6f,\n", n, p->worst_load);
        if (p->slow_windows) {
            char text[512];
            rtcosim_rt_slow_warning(rt, i, text, sizeof text);
            fprintf(f, "nonrealtime_first_slow_at[%s],%.9g,s\n", n,
                    rtcosim_time_to_seconds(p->first_slow_at));
            fprintf(f, "warning[%s],\"%s\",\n", n, text);
        }
    }
}

static void write_frames(const rtcosim_rt *rt, FILE *f)
{
    fprintf(f, "time,frame,deadline,lateness_us,exec_us,exchange_us,lag_us,tv,exchange,estimated,"
               "overrun");
    for (size_t s = 0; s < rt->signal_count; s++)
        fprintf(f, ",%s", rt->signal_names[s]);
    /* Several parts: each one's lag, tv and estimates (the frame's are the
     * largest lag and the smallest tv). */
    size_t parts = rt->partner_count > 1 ? rt->partner_count : 0;
    for (size_t p = 0; p < parts; p++)
        fprintf(f, ",lag_us[%s],tv[%s],estimated[%s]", rt->partners[p].name,
                rt->partners[p].name, rt->partners[p].name);
    fputc('\n', f);
    for (size_t i = 0; i < rt->frame_count; i++) {
        const rtcosim_rt_frame *fr = &rt->frames[i];
        fprintf(f, "%.9g,%llu,%.9g,%.3f,%.3f,%.3f,%.3f,%.9g,%d,%d,%d",
                rtcosim_time_to_seconds(fr->te), (unsigned long long)fr->frame,
                rtcosim_time_to_seconds(fr->deadline), us(fr->lateness), us(fr->exec),
                us(fr->exchange), us(fr->lag), rtcosim_time_to_seconds(fr->tv),
                !!(fr->flags & RTCOSIM_FRAME_EXCHANGE), !!(fr->flags & RTCOSIM_FRAME_ESTIMATED),
                !!(fr->flags & RTCOSIM_FRAME_OVERRUN));
        const double *v = rt->frame_signals + i * rt->signal_count;
        for (size_t s = 0; s < rt->signal_count; s++)
            fprintf(f, ",%.17g", v[s]);
        for (size_t p = 0; p < parts; p++) {
            const rtcosim_rt_frame_part *fp = &rt->frame_parts[i * rt->partner_count + p];
            fprintf(f, ",%.3f,%.9g,%d", us(fp->lag), rtcosim_time_to_seconds(fp->tv),
                    fp->estimated);
        }
        fputc('\n', f);
    }
}

static void write_overruns(const rtcosim_rt *rt, FILE *f)
{
    fprintf(f, "frame,te,lateness_us,exec_us,exchange_us,overshoot_us,cause,partner\n");
    rtcosim_rt_overrun o;
    size_t n = rt->overrun_first_n + rt->overrun_last_n;
    for (size_t i = 0; i < n; i++) {
        if (i < rt->overrun_first_n)
            o = rt->overrun_first[i];
        else {
            size_t cap = rt->options.overrun_log;
            size_t j = i - rt->overrun_first_n;
            o = rt->overrun_last[(rt->overrun_last_head + cap - rt->overrun_last_n + j) % cap];
        }
        fprintf(f, "%llu,%.9g,%.3f,%.3f,%.3f,%.3f,%s,%d\n", (unsigned long long)o.frame,
                rtcosim_time_to_seconds(o.te), us(o.lateness), us(o.exec), us(o.exchange),
                us(o.overshoot), rtcosim_rt_overrun_cause_name(o.cause), o.partner);
    }
}

static void write_estimates(const rtcosim_rt *rt, FILE *f)
{
    fprintf(f, "te,tv,lag_us,signal,estimator,estimate,late_value,error\n");
    for (size_t i = 0; i < rt->record_count; i++) {
        const rtcosim_estimate_record *r = &rt->records[i];
        fprintf(f, "%.9g,%.9g,%.3f,%s,%s,%.17g,%.17g,%.17g\n", rtcosim_time_to_seconds(r->te),
                rtcosim_time_to_seconds(r->tv), us(r->lag), rt->signal_names[r->signal],
                rtcosim_estimator_kind_name(r->kind), r->estimate, r->late_value, r->error);
    }
}

static void write_estimators(const rtcosim_rt *rt, FILE *f)
{
    fprintf(f, "signal,estimator,used,graded,rms_error,max_abs_error,map_clamped,history_resets\n");
    for (size_t j = 0; j < rt->to_rt_count; j++) {
        rtcosim_estimator_stats st;
        rtcosim_estimator_get_stats(rt->estimators[j], &st);
        fprintf(f, "%s,handed-out,%llu,%llu,%.9g,%.9g,%llu,%llu\n", rt->signal_names[j],
                (unsigned long long)st.estimates, (unsigned long long)st.resolved, st.rms_error,
                st.max_abs_error, (unsigned long long)st.map_clamped,
                (unsigned long long)st.history_resets);
        for (int k = 0; k < RTCOSIM_ESTIMATOR_COUNT_; k++)
            if (st.kind_count[k])
                fprintf(f, "%s,%s,%llu,%llu,%.9g,%.9g,,\n", rt->signal_names[j],
                        rtcosim_estimator_kind_name((rtcosim_estimator_kind)k),
                        (unsigned long long)st.used[k], (unsigned long long)st.kind_count[k],
                        st.kind_rms_error[k], st.kind_max_abs_error[k]);
    }
}

rtcosim_status rtcosim_rt_write_report(const rtcosim_rt *rt, const char *dir, rtcosim_error *err)
{
    if (!rt || !dir || !*dir)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time report: no directory given");
    rtcosim_status st = make_dirs(dir, err);
    if (st != RTCOSIM_OK)
        return st;
    static const struct {
        const char *name;
        void (*write)(const rtcosim_rt *, FILE *);
        bool mixed_only;
    } files[] = {
        {"summary.csv", write_summary, false},     {"frames.csv", write_frames, false},
        {"overruns.csv", write_overruns, false},   {"estimates.csv", write_estimates, true},
        {"estimators.csv", write_estimators, true},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (files[i].mixed_only && !rt->mixed)
            continue;
        char path[4200];
        FILE *f = open_report(dir, files[i].name, path, sizeof path, err);
        if (!f)
            return RTCOSIM_EIO;
        files[i].write(rt, f);
        st = close_report(f, path, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    /* The timing at a glance: execution time and start lateness of every
     * frame (and in a mixed run the exchange time) against the frame period,
     * overruns marked (src/plot/plot_timing.c). */
    char frames[4200], timing[4200];
    snprintf(frames, sizeof frames, "%s/frames.csv", dir);
    snprintf(timing, sizeof timing, "%s/timing.svg", dir);
    if (rt->frame_count == 0) {
        /* stopped before its first frame (an early Ctrl-C): nothing to
         * draw; an old run's drawing is no account of this one */
        (void)unlink(timing);
        return RTCOSIM_OK;
    }
    double period_us = (double)rt->period_num / rt->options.rt_factor / 1e3;
    return rtcosim_plot_rt_timing(frames, timing, period_us, rt->mixed,
                                  rt->mixed ? "Real-time frames: execution, start lateness and "
                                              "exchange time"
                                            : "Real-time frames: execution time and start lateness",
                                  err);
}

const char *rtcosim_rt_summary_legend(void)
{
    return "  lateness   how long after its deadline (start + k*H/rt-factor) a frame started\n"
           "  execution  a frame's compute time (exchange and the real-time part's steps)\n"
           "  overrun    a frame that ended after the next frame's deadline, by cause: late\n"
           "             wake-up (the thread was not running at its deadline: scheduler,\n"
           "             interrupts; SCHED_FIFO helps), execution (longer than a frame), or\n"
           "             backlog (started late after an overrun)\n"
           "  slip       how far the soft policy shifted the schedule to absorb overruns\n"
           "  drift      wall-clock duration minus simulated duration / rt-factor at the end\n";
}

void rtcosim_rt_slow_warning(const rtcosim_rt *rt, size_t part, char *text, size_t size)
{
    const rtcosim_rt_part_summary *p = &rt->partners[part].summary;
    snprintf(text, size,
             "the non-real-time part %s was slower than real time in %llu of %llu windows of "
             "%.3f s (worst %.2fx, first from %.6f s): it must be fast enough on average",
             p->name, (unsigned long long)p->slow_windows, (unsigned long long)p->windows,
             rtcosim_time_to_seconds(rtcosim_rt_partner_window(rt)), p->worst_load,
             rtcosim_time_to_seconds(p->first_slow_at));
}

void rtcosim_rt_print_summary(const rtcosim_rt *rt, FILE *out)
{
    const rtcosim_rt_summary *s = &rt->summary;
    const rtcosim_histogram *l = &rt->lateness, *e = &rt->exec_time;
    fprintf(out, "real-time run: %llu frames of %.3f ms at %gx real time, overrun policy %s%s\n",
            (unsigned long long)s->frames, (double)rt->options.macro_step / 1e6,
            rt->options.rt_factor, rtcosim_overrun_policy_name(rt->options.overrun),
            s->failed ? " (stopped early)" : "");
    if (!rtcosim_clock_is_virtual(rt->clock)) {
        char prio[48] = "normal scheduling";
        if (s->fifo_applied)
            snprintf(prio, sizeof prio, "SCHED_FIFO %d", rt->options.fifo_priority);
        fprintf(out, "  paced thread: %s, memory %s\n", prio,
                s->memory_locked ? "locked" : "not locked");
    }
    fputs(rtcosim_rt_summary_legend(), out);
    if (rt->mixed)
        fputs("  estimated  exchanges served by an estimate because the non-real-time part was late\n"
              "  lag        te minus the time of the newest data from the non-real-time part\n"
              "  resync     frames from the first estimate of a late episode until tv == te\n",
              out);
    fprintf(out, "  lateness  p50 %9.1f us  p99 %9.1f us  p99.9 %9.1f us  max %9.1f us\n",
            us(rtcosim_histogram_percentile(l, 50)), us(rtcosim_histogram_percentile(l, 99)),
            us(rtcosim_histogram_percentile(l, 99.9)), us(l->max));
    fprintf(out, "  execution p50 %9.1f us  p99 %9.1f us  p99.9 %9.1f us  max %9.1f us\n",
            us(rtcosim_histogram_percentile(e, 50)), us(rtcosim_histogram_percentile(e, 99)),
            us(rtcosim_histogram_percentile(e, 99.9)), us(e->max));
    fprintf(out,
            "  overruns %llu (late wake-up %llu, execution %llu, backlog %llu), dropped frames "
            "%llu, drift at end %.1f us (slip %.1f us)\n",
            (unsigned long long)s->overruns, (unsigned long long)s->overruns_wakeup,
            (unsigned long long)s->overruns_execution, (unsigned long long)s->overruns_backlog,
            (unsigned long long)s->frames_dropped, us(s->drift), us(s->slip));
    if (!rt->mixed)
        return;
    fprintf(out,
            "  overruns caused by the partner %llu (overruns while it was late %llu; paced "
            "thread %s)\n",
            (unsigned long long)s->overruns_partner, (unsigned long long)s->overruns_while_late,
            s->partner_isolated ? "isolated from it: SCHED_FIFO or its own CPU"
                                : "NOT isolated from it: late wake-ups while it was late count");
    fprintf(out,
            "  partner%s: %llu of %llu exchanges estimated (%.2f %%), longest lag %.3f ms, "
            "%llu late episodes, resync median %llu / max %llu frames\n",
            rt->partner_count > 1 ? "s (any late)" : "",
            (unsigned long long)s->estimated_exchanges, (unsigned long long)s->exchanges,
            s->exchanges ? 100.0 * (double)s->estimated_exchanges / (double)s->exchanges : 0.0,
            (double)s->max_lag / 1e6, (unsigned long long)s->late_episodes,
            (unsigned long long)s->resync_frames_median, (unsigned long long)s->resync_frames_max);
    fprintf(out, "  compute: real-time part mean %.1f us (%.1f%% of H), non-real-time part%s "
                 "mean %.1f us p99 %.1f us per step (%.1f%% of real time)\n",
            rtcosim_histogram_mean(e) / 1e3,
            100.0 * rtcosim_histogram_mean(e) * rt->options.rt_factor /
                (double)rt->options.macro_step,
            rt->partner_count > 1 ? "s (the highest of the parts)" : "",
            us(s->partner_compute_mean), us(s->partner_compute_p99), 100.0 * s->partner_load);
    for (size_t i = 0; rt->partner_count > 1 && i < rt->partner_count; i++) {
        const rtcosim_rt_part_summary *p = &rt->partners[i].summary;
        fprintf(out,
                "  part %s: %llu of %llu exchanges estimated, longest lag %.3f ms, %llu late "
                "episodes, resync median %llu / max %llu frames; compute mean %.1f us p99 %.1f "
                "us per step (%.1f%% of real time)%s\n",
                p->name, (unsigned long long)p->estimated_exchanges,
                (unsigned long long)s->exchanges, (double)p->max_lag / 1e6,
                (unsigned long long)p->late_episodes,
                (unsigned long long)p->resync_frames_median,
                (unsigned long long)p->resync_frames_max, us(p->compute_mean),
                us(p->compute_p99), 100.0 * p->load, p->lost ? ", LOST" : "");
    }
    for (size_t i = 0; i < rt->partner_count; i++)
        if (rt->partners[i].summary.slow_windows) {
            char text[512];
            rtcosim_rt_slow_warning(rt, i, text, sizeof text);
            fprintf(out, "  WARNING: %s\n", text);
        }
    if (s->partner_lost)
        fprintf(out, "  partner LOST at te = %.6f s: %s\n",
                rtcosim_time_to_seconds(s->partner_lost_at), s->partner_lost_reason);
    for (size_t j = 0; j < rt->to_rt_count; j++) {
        rtcosim_estimator_stats st;
        rtcosim_estimator_get_stats(rt->estimators[j], &st);
        fprintf(out, "  %s: %llu estimates, error rms %.4g max %.4g (now %s)", rt->signal_names[j],
                (unsigned long long)st.estimates, st.rms_error, st.max_abs_error,
                rtcosim_estimator_kind_name(st.current_kind));
        for (int k = 0; k < RTCOSIM_ESTIMATOR_COUNT_; k++)
            if (st.kind_count[k])
                fprintf(out, "; %s rms %.4g", rtcosim_estimator_kind_name((rtcosim_estimator_kind)k),
                        st.kind_rms_error[k]);
        fputc('\n', out);
    }
}
