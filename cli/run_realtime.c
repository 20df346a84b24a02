/* `rtcosim run --real-time`: the executor's options from the command line
 * over the system's rc:RealTime annotation, the part split, the results file
 * and the timing and estimation summary (system_rt.h). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "run_can_bus.h"
#include "run_args.h"
#include "signals.h"
#include "rtcosim/fmu.h"
#include "run_distribute.h"
#include "run_estimators.h"
#include "run_isolate.h"
#include "run_speculate.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/dcp.h"
#include "rtcosim/results.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

static void print_columns(const rtcosim_system_rt *srt)
{
    const double *final = rtcosim_system_rt_last_values(srt);
    size_t n = rtcosim_system_rt_column_count(srt);
    for (size_t i = 0; i < n && i < 12; i++) {
        const char *text = rtcosim_system_rt_last_text(srt, i);
        const char *name = rtcosim_system_rt_column_name(srt, i);
        rtcosim_value exact;
        if (text)
            printf("  %-32s %s\n", name, text);
        else
            cli_print_final_value(name, rtcosim_system_rt_column_variable(srt, i), final[i],
                                  rtcosim_system_rt_last_exact(srt, i, &exact) ? &exact : NULL);
    }
    if (n > 12)
        printf("  ... and %zu more\n", n - 12);
}

/* Whether this process may give a thread SCHED_FIFO at `priority`: tried on
 * a short-lived thread of its own (root without CAP_SYS_NICE in a container,
 * or RLIMIT_RTPRIO, decide it, not the user id). */
static void *try_fifo(void *arg)
{
    struct sched_param sp = {.sched_priority = *(int *)arg};
    *(int *)arg = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    return NULL;
}

static bool fifo_permitted(int priority)
{
    pthread_t t;
    int result = priority;
    if (pthread_create(&t, NULL, try_fifo, &result) != 0)
        return false;
    pthread_join(t, NULL);
    return result == 0;
}

/* mlockall of the whole process: root (CAP_IPC_LOCK) or no RLIMIT_MEMLOCK. */
static bool memory_lock_permitted(void)
{
    struct rlimit limit;
    return geteuid() == 0 ||
           (getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur == RLIM_INFINITY);
}

/* As `rtcosim demo`: a wall-clock run takes SCHED_FIFO 80 and locked memory
 * where the system permits, unless the command line chose; says which. */
static void choose_scheduling(const run_args *a, rtcosim_rt_options *rt)
{
    if (a->virtual_clock)
        return;
    if (!a->given_scheduling) {
        if (fifo_permitted(80)) {
            rt->fifo_priority = 80;
            rt->lock_memory = memory_lock_permitted();
        }
        if (rt->fifo_priority > 0)
            printf("scheduling: paced thread at SCHED_FIFO %d, memory %s (--priority 0: normal "
                   "scheduling)\n",
                   rt->fifo_priority,
                   rt->lock_memory ? "locked" : "not locked (not permitted: ulimit -l unlimited)");
        else
            printf("scheduling: normal (SCHED_FIFO not permitted: run as root, or grant "
                   "CAP_SYS_NICE or raise RLIMIT_RTPRIO (ulimit -r 80) and RLIMIT_MEMLOCK "
                   "(ulimit -l unlimited); rtcosim rt-check tells what this machine can hold)\n");
    } else if (rt->fifo_priority == 0) {
        printf("scheduling: normal (--priority 0)\n");
    }
}

/* --real-time: the executor's options from the command line, the system's
 * part split and the results file; prints the timing and estimation summary. */
static rtcosim_time_ns read_rt_progress(void *progress)
{
    return atomic_load_explicit((_Atomic rtcosim_time_ns *)progress, memory_order_relaxed);
}

int cli_run_real_time(const run_args *a, const rtcosim_system_desc *desc, rtcosim_time_ns start,
                      rtcosim_time_ns stop)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    so.rt = a->rt;
    /* The system's rc:RealTime settings, then the command line over them. */
    const rtcosim_ssd_realtime_settings *ann = rtcosim_system_desc_realtime(desc);
    if (ann->has_rt_factor && !a->given_factor)
        so.rt.rt_factor = ann->rt_factor;
    if (ann->has_overrun && !a->given_overrun)
        so.rt.overrun = (rtcosim_overrun_policy)ann->overrun;
    if (ann->has_partner_timeout && !a->given_timeout)
        so.rt.partner_timeout = ann->partner_timeout;
    if (ann->has_partner_window && !a->given_window)
        so.rt.partner_window = ann->partner_window;
    so.rt.calibrate = !a->no_calibrate && (!ann->has_calibrate || ann->calibrate);
    choose_scheduling(a, &so.rt);
    so.rt.start_time = start;
    so.rt.stop_time = stop;
    so.rt.non_realtime = a->non_realtime[0] ? a->non_realtime : ann->non_realtime;
    const char *exchange = a->exchange[0] ? a->exchange : ann->exchange;
    const char *estimator = ann->estimator;
    so.build = a->build;
    /* The partner's FMUs run isolated unless --no-isolate: one that crashes,
     * aborts or exits makes the partner lost, not the run. A remote DCP
     * slave (source .dcpx) is another process already; ECU code as a shared
     * object runs in this process, as native components do. */
    run_isolation *iso = a->isolation;
    if (!a->no_isolate && so.rt.non_realtime)
        for (const char *p = so.rt.non_realtime; *p;) {
            size_t n = strcspn(p, ",;");
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)n, p);
            int k = rtcosim_system_desc_find_component(desc, name);
            const rtcosim_ssd_component *c = k >= 0 ? rtcosim_system_desc_component(desc, (size_t)k)
                                                    : NULL;
            const char *path = c && !c->ecu ? c->path : NULL;
            bool remote = rtcosim_dcp_is_dcpx(path);
            if (path && !remote && !run_isolation_selects(iso, name) && run_isolation_add(iso, name))
                return CLI_EXIT_ERROR;
            p += n + (p[n] != '\0');
        }
    if (run_isolation_active(iso) && run_isolation_prepare(iso, desc))
        return CLI_EXIT_ERROR;
    if (run_isolation_active(iso)) {
        so.build.wrap = run_isolation_wrap;
        so.build.wrap_context = iso;
    }
    so.build.observe = a->observe;
    so.build.observe_count = a->observe_count;
    so.start_names = (const char *const *)a->start_names;
    so.start_values = (const char *const *)a->start_values;
    so.start_count = a->start_count;
    so.output_file = a->output_file;
    so.csv_units = a->csv_units;
    so.output_interval = a->has_interval ? a->interval : 0;
    so.delays = a->delays;
    so.delay_count = a->delay_count;
    so.threads_auto = a->threads_auto;
    if (exchange && rtcosim_exchange_pattern_parse(exchange, &so.rt.exchange, &err) != RTCOSIM_OK)
        return cli_fail("--exchange-pattern: %s", err.message);
    rtcosim_rt_signal_estimator *per_signal = NULL;
    size_t per_signal_count = 0;
    if (cli_rt_estimators(a, ann, so.rt.non_realtime, &estimator, &per_signal, &per_signal_count))
        return CLI_EXIT_ERROR;
    so.rt.signal_estimators = per_signal;
    so.rt.signal_estimator_count = per_signal_count;
    rtcosim_clock *pacing = NULL, *partner = NULL;
    int early = 0;
    if (estimator && rtcosim_estimator_spec_parse(estimator, &so.rt.estimator, &err) != RTCOSIM_OK)
        early = cli_fail("--estimator: %s", err.message);
    else if (cli_check_output_dir("--rt-report", so.rt.report_dir))
        early = CLI_EXIT_ERROR;
    else if (a->virtual_clock &&
             (rtcosim_clock_create_virtual(0, &pacing, &err) != RTCOSIM_OK ||
              rtcosim_clock_create_virtual(0, &partner, &err) != RTCOSIM_OK)) {
        rtcosim_clock_free(pacing);
        early = cli_fail_error(&err);
    }
    if (early) {
        free(per_signal);
        return early;
    }
    so.rt.clock = pacing;
    so.rt.partner_clock = partner;
    cli_run_variants_chain(a, &so.build, pacing); /* run_variants.c */
    so.rt.stop_request = &cli_stop_signal;
    static _Atomic rtcosim_time_ns rt_progress;
    atomic_store(&rt_progress, start);
    so.rt.progress = &rt_progress;
    rtcosim_system_rt *srt = NULL;
    cli_serve *serve = (cli_serve *)&a->serve; /* --serve: the live view (run_serve.c) */
    rtcosim_dcp_bindings *own_dcp = NULL;
    int rc = 0;
    /* The non-real-time part's components bound to remote slaves (--dcp) or
     * from a .dcpx: empty bindings still make the latter SRT partners. */
    rtcosim_dcp_bindings *dcp = a->dcp;
    if (!dcp && rtcosim_dcp_bindings_create(&own_dcp, &err) != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    dcp = dcp ? dcp : own_dcp;
    so.partner_wrap = rtcosim_dcp_bindings_wrap;
    so.partner_wrap_context = dcp;
    rtcosim_dcp_bindings_hold_lost_outputs(dcp, true);
    rtcosim_dcp_bindings_soft_real_time(dcp, !a->virtual_clock &&
                                                 (!a->dcp_mode || strcmp(a->dcp_mode, "srt") == 0));
    so.partner_prepare = rtcosim_dcp_bindings_partner_prepare;
    cli_serve_hook_real_time(serve, &so);
    cli_can_buses *can = (cli_can_buses *)&a->can;
    if (can->count && (rc = cli_can_bus_check_real_time(can, so.rt.non_realtime)) != 0)
        goto done;
    if (can->count + can->signal_count) {
        /* The buses step on the paced thread inside the real-time part's
         * master; their logs are allocated once, for the most frames the
         * run can carry (the shortest classic frame, 47 bits with the
         * intermission, at the given rate or 1 Mbit/s), at most 2^20. */
        double bits = (double)(can->bitrate ? can->bitrate : 1000000) *
                      rtcosim_time_to_seconds(stop - start);
        double frames = bits / 47.0 + 16.0;
        can->real_time = true;
        can->log_capacity = frames < (double)(1u << 20) ? (size_t)frames : (size_t)1 << 20;
        /* and the kernel bus's CAN FD/XL frame bytes: what the faster data
         * phase carries in the run, at most 8 MiB (6.7 s of CAN XL at 10
         * Mbit/s without a gap; later ones a MiB at a time) */
        double data_rate = (double)(can->xl_bitrate > can->fd_bitrate ? can->xl_bitrate
                                                                        : can->fd_bitrate);
        double bytes = (data_rate > 0 ? data_rate : 10e6) / 8.0 *
                       rtcosim_time_to_seconds(stop - start);
        can->frame_bytes_reserve = bytes < 8.0 * 1048576 ? (size_t)bytes + 1 : (size_t)8 << 20;
        can->report_dir = so.rt.report_dir;
        so.attach = cli_can_bus_attach_real_time;
        so.attach_context = can;
    }
    double wall_start = cli_wall_seconds();
    if (rtcosim_system_rt_create(desc, &so, &srt, &err) != RTCOSIM_OK) {
        rc = can->failed ? can->failed : cli_fail_error(&err);
        goto done;
    }
    if ((rc = cli_serve_attach_real_time(serve, srt, desc)) != 0)
        goto done;
    const char *unused = rtcosim_dcp_bindings_unused(a->dcp);
    if (unused) {
        rc = rtcosim_system_desc_find_component(desc, unused) < 0
                 ? cli_fail("--dcp: the system has no component '%s'", unused)
                 : cli_fail("--dcp %s: in a real-time run only a non-real-time component "
                            "(--non-realtime %s) may be a remote slave", unused, unused);
        goto done;
    }
    rtcosim_time_ns H = rtcosim_system_rt_macro_step(srt);
    /* Each bus's work per frame on the paced thread, recorded without
     * allocating while it runs: one record per frame of the run, as many
     * as the executor's frame log keeps (frames.csv's rows). */
    size_t work_frames = (size_t)((stop - start) / H) + 2;
    if (work_frames > so.rt.frame_log)
        work_frames = so.rt.frame_log;
    if (can->count &&
        (rc = cli_can_bus_reserve_work(can, (rtcosim_master *)rtcosim_system_rt_part(srt, false),
                                       work_frames)) != 0)
        goto done;
    printf("system '%s': real-time part: %s; non-real-time part%s: %s; H = %.9g s%s\n",
           rtcosim_system_desc_name(desc), rtcosim_system_rt_part_names(srt, false),
           rtcosim_system_rt_nonrealtime_count(srt) > 1 ? "s" : "",
           *rtcosim_system_rt_part_names(srt, true) ? rtcosim_system_rt_part_names(srt, true)
                                                    : "none",
           rtcosim_time_to_seconds(H), a->virtual_clock ? " (virtual clock)" : "");
    cli_print_master_plan(rtcosim_system_rt_part(srt, false), "real-time part: ");
    if (rtcosim_system_rt_part(srt, true))
        cli_print_master_plan(rtcosim_system_rt_part(srt, true), "non-real-time part: ");
    for (size_t i = 0; i < rtcosim_dcp_bindings_count(a->dcp); i++) {
        /* The mode the slave was registered in (a slave that refuses SRT runs NRT). */
        const char *name = rtcosim_dcp_bindings_component(a->dcp, i);
        const rtcosim_component *c = NULL;
        for (size_t p = 0; !c && p < rtcosim_system_rt_nonrealtime_count(srt); p++)
            c = rtcosim_master_component(rtcosim_system_rt_nonrealtime_part(srt, p), name);
        if (c && strcmp(rtcosim_component_kind(c), "dcp") == 0)
            printf("dcp: %s runs %s\n", name,
                   rtcosim_dcp_remote_op_mode(c) == RTCOSIM_DCP_OP_SRT
                       ? "in soft real time (SRT: on the slave's clock, outputs streamed)"
                       : "in NRT lock step (one exchange per partner step)");
    }
    fflush(stdout);
    cli_progress_watch progress = {0};
    cli_progress_watch_start(&progress, a->quiet, start, stop, read_rt_progress, &rt_progress);
    rtcosim_status st = rtcosim_system_rt_run(srt, &err);
    cli_progress_watch_stop(&progress);
    double wall = cli_wall_seconds() - wall_start;
    const rtcosim_rt *rt = rtcosim_system_rt_executor(srt);
    if (rtcosim_rt_get_summary(rt)->frames == 0 && st != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    rtcosim_rt_print_summary(rt, stdout);
    if (can->count + can->signal_count) {
        int can_rc = cli_can_bus_finish(can, (rtcosim_master *)rtcosim_system_rt_part(srt, false));
        if (can_rc)
            rc = can_rc;
        cli_can_bus_print_work(can, (rtcosim_master *)rtcosim_system_rt_part(srt, false));
    }
    run_variants_find(a->variants,
                      (const rtcosim_master *const[]){rtcosim_system_rt_part(srt, false),
                                                      rtcosim_system_rt_part(srt, true)},
                      2);
    run_variants_print(a->variants, stdout);
    int served = cli_serve_finish_real_time(serve, srt, a->output_file, so.rt.report_dir);
    cli_report_partitions(rtcosim_system_rt_part(srt, false), so.rt.report_dir);
    printf("ran %.9g s of simulated time in %.3f s wall\n",
           rtcosim_time_to_seconds(rtcosim_rt_get_summary(rt)->stopped_at - start), wall);
    const rtcosim_master *partner_part = rtcosim_system_rt_part(srt, true);
    rtcosim_master_parallel par;
    if (partner_part && rtcosim_master_get_parallel(partner_part, &par, NULL) == RTCOSIM_OK &&
        (par.threads > 1 || par.automatic)) {
        char line[300];
        rtcosim_master_describe_parallel(partner_part, line, sizeof line);
        printf("non-real-time part %s; the real-time part steps on the paced thread alone\n",
               line);
    }
    /* What failed to be written is not announced as written. */
    bool results_failed = st != RTCOSIM_OK && a->output_file &&
                          strncmp(err.message, a->output_file, strlen(a->output_file)) == 0;
    bool report_failed = st != RTCOSIM_OK && so.rt.report_dir &&
                         strncmp(err.message, so.rt.report_dir, strlen(so.rt.report_dir)) == 0;
    if (a->output_file && !results_failed)
        printf("wrote %llu rows of %zu variables to %s\n",
               (unsigned long long)rtcosim_system_rt_rows_written(srt),
               rtcosim_system_rt_column_count(srt), a->output_file);
    if (so.rt.report_dir && !report_failed &&
        cli_can_bus_report(can, (rtcosim_master *)rtcosim_system_rt_part(srt, false),
                           so.rt.report_dir)) {
        report_failed = true; /* named already */
        rc = CLI_EXIT_ERROR;
    }
    if (so.rt.report_dir && !report_failed && run_variants_report(a->variants, so.rt.report_dir)) {
        report_failed = true; /* named already */
        rc = CLI_EXIT_ERROR;
    }
    if (so.rt.report_dir && !report_failed) {
        char logs[CLI_CAN_BUSES_MAX * 80];
        cli_can_bus_report_names(can, logs, sizeof logs);
        printf("real-time report in %s/ (summary.csv, frames.csv, overruns.csv%s%s, timing.svg)\n",
               so.rt.report_dir,
               *rtcosim_system_rt_part_names(srt, true) ? ", estimates.csv, estimators.csv" : "",
               logs);
    }
    print_columns(srt);
    const rtcosim_rt_summary *sum = rtcosim_rt_get_summary(rt);
    int signo = atomic_load(&cli_stop_signal);
    if (st != RTCOSIM_OK) {
        rc = cli_fail("%s: %s (results so far kept)", a->system, err.message);
        if (st == RTCOSIM_ETIMEOUT && so.rt.overrun == RTCOSIM_OVERRUN_FAIL)
            rc = CLI_EXIT_DEADLINE;
    } else if (sum->interrupted && signo) {
        fprintf(stderr, "rtcosim: %s: interrupted by %s at te = %.6f s (results so far kept)\n",
                a->system, cli_signal_name(signo), rtcosim_time_to_seconds(sum->stopped_at));
        rc = cli_signal_exit_code(signo);
    } else if (sum->partner_lost) {
        fprintf(stderr, "rtcosim: %s: the non-real-time partner was lost at te = %.6f s (%s); "
                        "the real-time part ran on estimates\n",
                a->system, rtcosim_time_to_seconds(sum->partner_lost_at), sum->partner_lost_reason);
        rc = CLI_EXIT_PARTNER_LOST;
    }
    if (served && !rc)
        rc = served;
    if (sum->partner_abandoned) {
        /* Its thread is still inside a component call: no teardown (unloading
         * the library under it, atexit handlers) while it runs. */
        rtcosim_system_rt_free(srt);
        fflush(NULL);
        _exit(rc);
    }
done:
    cli_serve_close(serve);
    rtcosim_system_rt_free(srt);
    rtcosim_clock_free(pacing);
    rtcosim_clock_free(partner);
    rtcosim_dcp_bindings_free(own_dcp);
    free(per_signal);
    return rc;
}
