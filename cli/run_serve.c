/* The live view around a run (--serve): its options, its creation with what
 * a run shows and can tune, the hooks a run calls on its own thread (plain
 * run: each step boundary; real time: the frame hooks of system_rt.h and the
 * executor), and its end (final values, tuning log). */
#include "run_serve.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "run_can_bus.h"
#include "signals.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"

int cli_serve_option(cli_serve *sv, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(opt, "--serve-read-only") == 0) {
        sv->read_only = true;
        return 1;
    }
    if (strcmp(opt, "--serve") != 0 && strcmp(opt, "--serve-token") != 0)
        return 0;
    if (!val)
        return cli_fail("%s needs a value (see --help)", opt), -1;
    (*i)++;
    if (strcmp(opt, "--serve") == 0) {
        char host[64];
        int port;
        rtcosim_error err;
        if (rtcosim_serve_parse_listen(val, host, sizeof host, &port, &err) != RTCOSIM_OK)
            return cli_fail_error(&err), -1;
        sv->listen = val;
    } else {
        sv->token = val;
    }
    return 1;
}

void cli_serve_usage(FILE *out)
{
    fprintf(out,
            "  --serve [HOST:]PORT     a live view of the run in the browser: page, JSON API\n"
            "                          (/api/values, /api/set, /api/stop, ...) and WebSocket\n"
            "                          stream; HOST 127.0.0.1 unless given, PORT 0: any free\n"
            "                          one (the URL is printed on stderr)\n"
            "  --serve-token T         required by every request (Authorization: Bearer T or\n"
            "                          ?token=T); needed to serve on a non-loopback address\n"
            "  --serve-read-only       no tuning (/api/set) and no pause/resume/stop\n");
}

int cli_serve_check(const cli_serve *sv)
{
    if (!sv->listen && (sv->token || sv->read_only))
        return cli_fail("%s needs --serve [HOST:]PORT",
                        sv->token ? "--serve-token" : "--serve-read-only");
    if (!sv->listen)
        return 0;
    /* The library's checks (address, token) before anything is loaded;
     * creating opens nothing. */
    rtcosim_serve_options o = {.listen = sv->listen, .token = sv->token};
    rtcosim_serve *probe = NULL;
    rtcosim_error err;
    if (rtcosim_serve_create(&o, &probe, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    rtcosim_serve_free(probe);
    return 0;
}

int cli_serve_create(cli_serve *sv, rtcosim_serve_mode mode, const char *title)
{
    if (!sv->listen)
        return 0;
    rtcosim_error err;
    rtcosim_serve_options o = {.listen = sv->listen, .token = sv->token,
                               .read_only = sv->read_only, .title = title, .mode = mode,
                               .stop_flag = &cli_stop_signal,
                               .stop_value = CLI_STOP_LIVE_VIEW};
    if (rtcosim_serve_create(&o, &sv->server, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    return 0;
}

int cli_serve_start(cli_serve *sv)
{
    if (!sv->server)
        return 0;
    rtcosim_error err;
    if (rtcosim_serve_start(sv->server, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    fprintf(stderr, "live view: %s\n", rtcosim_serve_url(sv->server));
    fflush(stderr);
    return 0;
}

int cli_serve_add_can_buses(cli_serve *sv, const struct cli_can_buses *buses,
                            const rtcosim_master *m)
{
    if (!sv->server)
        return 0;
    rtcosim_error err;
    for (unsigned i = 0; i < buses->count && sv->bridge_count < 8; i++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(buses->specs[i], '=') - buses->specs[i]),
                 buses->specs[i]);
        rtcosim_lsbus_can_bridge *bridge =
            rtcosim_lsbus_can_bus_component_bridge(rtcosim_master_component(m, name));
        if (!bridge)
            continue;
        if (rtcosim_serve_add_can_bus(sv->server, name, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
        sv->bridges[sv->bridge_count++] = bridge;
    }
    return 0;
}

void cli_serve_step(cli_serve *sv, rtcosim_time_ns t, const double *values)
{
    if (!sv || !sv->server)
        return;
    for (size_t b = 0; b < sv->bridge_count; b++) {
        rtcosim_lsbus_can_bridge_stats stats;
        rtcosim_lsbus_can_bridge_stats_get(sv->bridges[b], &stats);
        rtcosim_serve_publish_can(sv->server, b, stats.frames);
    }
    rtcosim_serve_publish(sv->server, t, values);
    rtcosim_serve_apply(sv->server, 0, t);
    if (rtcosim_serve_paused(sv->server))
        rtcosim_serve_wait_while_paused(sv->server, 0, t, values, cli_watchdog_beat);
}

static void on_part_frame(void *context, int part, rtcosim_time_ns t, const double *row)
{
    cli_serve *sv = context;
    if (row)
        rtcosim_serve_publish(sv->server, t, row);
    rtcosim_serve_apply(sv->server, part, t);
}

static void on_executor_frame(void *context, const rtcosim_rt_frame *frame)
{
    cli_serve *sv = context;
    rtcosim_serve_publish_frame(sv->server, frame, 0);
}

void cli_serve_hook_real_time(cli_serve *sv, rtcosim_system_rt_options *so)
{
    if (!sv->listen)
        return; /* the server itself comes after the system (its columns) */
    sv->paced_cpu = so->rt.cpu;
    so->frame_hook = on_part_frame;
    so->frame_hook_context = sv;
    so->rt.frame_observer = on_executor_frame;
    so->rt.frame_observer_context = sv;
}

int cli_serve_finish(cli_serve *sv, rtcosim_time_ns t, const double *values,
                     const char *tuning_path)
{
    if (!sv->server)
        return 0;
    rtcosim_serve_finish(sv->server, t, values);
    size_t n = rtcosim_serve_applied_count(sv->server);
    for (size_t i = 0; i < n; i++) {
        rtcosim_time_ns at;
        const char *name;
        double value;
        rtcosim_serve_applied_at(sv->server, i, &at, &name, &value);
        printf("tuned: %s = %.17g at t = %.9g s\n", name, value, rtcosim_time_to_seconds(at));
    }
    uint64_t dropped = rtcosim_serve_applied_dropped(sv->server);
    if (dropped)
        printf("tuning: %llu requests not applied (refused by the component or log full)\n",
               (unsigned long long)dropped);
    uint64_t late = rtcosim_serve_ended_first(sv->server);
    if (late)
        printf("tuning: %llu request%s not applied: the run ended before its next step\n",
               (unsigned long long)late, late == 1 ? "" : "s");
    if (tuning_path && n) {
        rtcosim_error err;
        if (rtcosim_serve_write_tuning(sv->server, tuning_path, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
        printf("wrote %zu tuning requests to %s\n", n, tuning_path);
    }
    return 0;
}

void cli_serve_close(cli_serve *sv)
{
    rtcosim_serve_free(sv->server);
    sv->server = NULL;
}

const char *cli_serve_tuning_path(const char *results, char *buf, size_t size)
{
    if (!results)
        return NULL;
    size_t len = strlen(results);
    if (len > 4 && (strcmp(results + len - 4, ".csv") == 0 || strcmp(results + len - 4, ".mat") == 0 ||
                    strcmp(results + len - 4, ".mf4") == 0))
        len -= 4;
    if (len + sizeof ".tuning.csv" > size)
        return NULL;
    snprintf(buf, size, "%.*s.tuning.csv", (int)len, results);
    return buf;
}

int cli_serve_attach_real_time(cli_serve *sv, rtcosim_system_rt *srt,
                               const rtcosim_system_desc *desc)
{
    const char *title = rtcosim_system_desc_name(desc);
    if (!sv->listen)
        return 0;
    int rc = cli_serve_create(sv, RTCOSIM_SERVE_REAL_TIME, title);
    if (rc)
        return rc;
    rtcosim_error err;
    const rtcosim_master *parts[2] = {rtcosim_system_rt_part(srt, false),
                                      rtcosim_system_rt_part(srt, true)};
    /* the view streams numbers, the first numeric_column_count of a row;
     * String and Binary columns go to the results file only, which is said */
    for (size_t i = 0; i < rtcosim_system_rt_column_count(srt); i++) {
        const char *name = rtcosim_system_rt_column_name(srt, i);
        if (i >= rtcosim_system_rt_numeric_column_count(srt)) {
            rtcosim_log(RTCOSIM_LOG_WARNING, "serve",
                        "--serve: '%s' is not shown in the live view, which shows numbers; the "
                        "results file has it", name);
            continue;
        }
        const char *unit = rtcosim_serve_unit_of(parts[0], name);
        if (!unit && parts[1])
            unit = rtcosim_serve_unit_of(parts[1], name);
        if (rtcosim_serve_add_variable(sv->server, name, unit, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
    }
    for (int p = 0; p < 2; p++)
        if (parts[p] && rtcosim_serve_add_master(sv->server, parts[p], p, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
    /* An input fed across the parts is set by the executor every frame. */
    for (size_t i = 0; i < rtcosim_system_desc_connection_count(desc); i++) {
        const rtcosim_ssd_connection *c = rtcosim_system_desc_connection(desc, i);
        char name[512];
        if (c->end.component && c->end.connector &&
            (size_t)snprintf(name, sizeof name, "%s.%s", c->end.component, c->end.connector) <
                sizeof name)
            rtcosim_serve_refuse(sv->server, name, "an input fed by a connection");
    }
    const char *partner = rtcosim_system_rt_part_names(srt, true);
    if (partner && *partner && rtcosim_serve_add_partner(sv->server, partner, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    rtcosim_serve_avoid_cpu(sv->server, sv->paced_cpu);
    return cli_serve_start(sv);
}

int cli_serve_finish_real_time(cli_serve *sv, const rtcosim_system_rt *srt,
                               const char *results, const char *report_dir)
{
    if (!sv->server)
        return 0;
    const rtcosim_rt_summary *sum = rtcosim_rt_get_summary(rtcosim_system_rt_executor(srt));
    char path[1024];
    int rc = cli_serve_finish(sv, sum->stopped_at, rtcosim_system_rt_last_values(srt),
                              cli_serve_tuning_path(results, path, sizeof path));
    if (rc == 0 && report_dir && rtcosim_serve_applied_count(sv->server)) {
        /* The report has it too, next to its summary. */
        rtcosim_error err;
        snprintf(path, sizeof path, "%s/tuning.csv", report_dir);
        if (rtcosim_serve_write_tuning(sv->server, path, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
        printf("wrote the tuning to %s\n", path);
    }
    return rc;
}

/* rtcosim events: every 10 ms, the time the kernel reached (its progress
 * counter) and the frames of the bus (an atomic counter of the bus). */
static void *events_monitor(void *arg)
{
    cli_serve *sv = arg;
    while (atomic_load(&sv->monitor_run)) {
        double row[2] = {rtcosim_time_to_seconds(rtcosim_events_progress(sv->sim)),
                         sv->bus ? (double)rtcosim_can_bus_frames_live(sv->bus) : 0};
        rtcosim_serve_publish(sv->server, rtcosim_events_progress(sv->sim), row);
        if (sv->bus)
            rtcosim_serve_publish_can(sv->server, 0, rtcosim_can_bus_frames_live(sv->bus));
        if (rtcosim_serve_stop_requested(sv->server))
            rtcosim_events_request_stop(sv->sim, true);
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    return NULL;
}

int cli_serve_events_start(cli_serve *sv, rtcosim_events *sim, rtcosim_can_bus *bus)
{
    if (!sv->listen)
        return 0;
    int rc = cli_serve_create(sv, RTCOSIM_SERVE_EVENTS, "events");
    if (rc)
        return rc;
    rtcosim_error err;
    const char *bus_name = bus ? rtcosim_can_bus_name(bus) : "bus";
    char frames[160];
    snprintf(frames, sizeof frames, "%s.frames", bus_name);
    if (rtcosim_serve_add_variable(sv->server, "simulated_time", "s", &err) != RTCOSIM_OK ||
        rtcosim_serve_add_variable(sv->server, frames, "", &err) != RTCOSIM_OK ||
        (bus && rtcosim_serve_add_can_bus(sv->server, bus_name, &err) != RTCOSIM_OK))
        return cli_fail_error(&err);
    if ((rc = cli_serve_start(sv)) != 0)
        return rc;
    sv->sim = sim;
    sv->bus = bus;
    atomic_store(&sv->monitor_run, 1);
    if (pthread_create(&sv->monitor, NULL, events_monitor, sv) != 0)
        return cli_fail("--serve: cannot start the live view's thread");
    sv->monitor_started = true;
    return 0;
}

void cli_serve_events_finish(cli_serve *sv, rtcosim_time_ns reached)
{
    if (!sv->server)
        return;
    if (sv->monitor_started) {
        atomic_store(&sv->monitor_run, 0);
        pthread_join(sv->monitor, NULL);
        sv->monitor_started = false;
    }
    double row[2] = {rtcosim_time_to_seconds(reached),
                     sv->bus ? (double)rtcosim_can_bus_frames_live(sv->bus) : 0};
    if (sv->bus)
        rtcosim_serve_publish_can(sv->server, 0, rtcosim_can_bus_frames_live(sv->bus));
    rtcosim_serve_finish(sv->server, reached, row);
}
