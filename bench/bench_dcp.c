/* B11 `rtcosim bench dcp`: NRT lock-step round trip of one step with a DCP
 * slave in another process on loopback, over UDP and over TCP (DAT inputs, STC_do_step, RSP_ack,
 * NTF COMPUTED, STC_send_outputs, RSP_ack, DAT outputs, NTF back: 8 PDUs),
 * against the same step of the same model in process; then a real-time run of
 * examples/oscillator whose non-real-time partner mass1 is that slave behind
 * the test tree's relay (5 ms +- 2 ms each way, 1 % loss): misses caused by
 * the partner, share of exchanges served by estimates, estimation error. The
 * slave serves oscillator.mass1 (input F, outputs x and v). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>

#include "bench.h"
#include "relay.h"
#include "rtcosim/dcp.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "rtcosim/system_rt.h"

#define MODEL "rtcosim:oscillator.mass1"

static rtcosim_status make(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create(MODEL, out, err);
}

/* Both ends spin-then-sleep; on a loaded machine a spinning process loses
 * its CPU for whole time slices. As root, run both SCHED_FIFO (as a rig
 * would) so the figure is the protocol's, not the scheduler's. */
static bool try_fifo(void)
{
    struct sched_param sp = {.sched_priority = 10};
    return geteuid() == 0 && sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
}

/* Median and p99 step time in us over `steps` steps (after a warm-up). */
static int time_steps(rtcosim_component *c, size_t steps, double *median, double *p99)
{
    rtcosim_error err = {0};
    const uint32_t vr_x = 0, vr_f = 2;
    if (rtcosim_component_instantiate(c, "mass1", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK) {
        fprintf(stderr, "bench dcp: %s\n", err.message);
        return 1;
    }
    double *us = malloc(steps * sizeof *us);
    if (!us)
        return 1;
    const rtcosim_time_ns h = RTCOSIM_NS_PER_MS;
    size_t warm = steps / 10;
    for (size_t i = 0; i < warm + steps; i++) {
        double x, f = -0.1 * (double)(i % 7);
        int64_t t0 = bench_now_ns();
        if (rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_f, 1, &f, &err) != RTCOSIM_OK ||
            rtcosim_component_do_step(c, (rtcosim_time_ns)i * h, h, NULL, &err) != RTCOSIM_OK ||
            rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &x, &err) != RTCOSIM_OK) {
            fprintf(stderr, "bench dcp: step %zu: %s\n", i, err.message);
            free(us);
            return 1;
        }
        if (i >= warm)
            us[i - warm] = (double)(bench_now_ns() - t0) / 1e3;
    }
    *median = bench_median(us, steps);
    *p99 = bench_percentile(us, steps, 99);
    free(us);
    return rtcosim_component_terminate(c, &err) == RTCOSIM_OK ? 0 : 1;
}

/* Time `steps` steps of a remote component over `transport`. */
static int remote_steps(uint8_t transport, uint16_t port, size_t steps, double *median, double *p99)
{
    rtcosim_error err;
    rtcosim_component *probe = NULL, *remote = NULL;
    rtcosim_dcp_remote_config rcfg = {.host = "127.0.0.1", .port = port, .transport = transport};
    int rc = make(NULL, &probe, &err) != RTCOSIM_OK ||
             rtcosim_dcp_remote_create(&rcfg, rtcosim_component_description(probe), &remote, &err) !=
                 RTCOSIM_OK;
    rtcosim_component_free(probe);
    if (rc)
        fprintf(stderr, "bench dcp: %s\n", err.message);
    else
        rc = time_steps(remote, steps, median, p99);
    rtcosim_component_free(remote);
    return rc;
}

/* 1 % of the datagrams of either direction, seeded. */
static bool drop_1_percent(void *ctx, bool to_slave, const uint8_t *pdu, size_t size)
{
    (void)to_slave, (void)pdu, (void)size;
    return rand_r(ctx) % 100 == 0;
}

/* The real-time half: the oscillator with mass1 on the slave behind the
 * relay, macro step `step` s, exchanging every frame. A lock-step DCP step
 * costs two round trips (20-28 ms at 5 +- 2 ms each way), so the default step
 * is 50 ms (at the example's 1 ms, or at 25 ms, the partner falls ever
 * further behind until it is declared lost: measured);
 * a lost request costs a 100 ms retransmission, a lost output DAT one retry
 * period with the outputs held, both bridged by the estimators. In SRT (the
 * default) the slave steps on its own clock and streams its outputs: no round
 * trip per step, a lost output is the step before's. */
static int real_time_half(uint16_t slave_port, const char *ssd, double seconds, double step,
                          bool srt)
{
    unsigned seed = 11;
    relay_config rc = {.slave_port = slave_port, .delay_ns = 3 * RTCOSIM_NS_PER_MS,
                       .jitter_to_slave_ns = 4 * RTCOSIM_NS_PER_MS,
                       .jitter_to_master_ns = 4 * RTCOSIM_NS_PER_MS,
                       .drop = drop_1_percent, .drop_context = &seed, .seed = 5};
    uint16_t front;
    relay *r = relay_start(&rc, &front);
    if (!r)
        return fprintf(stderr, "bench dcp: relay failed to start\n"), 1;
    rtcosim_error err = {0};
    rtcosim_system_desc *desc = NULL;
    rtcosim_dcp_bindings *b = NULL;
    rtcosim_system_rt *sys = NULL;
    char spec[64];
    snprintf(spec, sizeof spec, "mass1=127.0.0.1:%u", (unsigned)front);
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    so.rt.start_time = 0;
    so.rt.stop_time = (rtcosim_time_ns)(seconds * 1e9);
    so.rt.non_realtime = "mass1";
    int rc_ = 1;
    if (rtcosim_system_desc_load(ssd, &desc, &err) != RTCOSIM_OK ||
        rtcosim_dcp_bindings_add(&b, spec, &err) != RTCOSIM_OK)
        goto done;
    /* Softer springs in the real-time part (periods of seconds, not 0.2 s):
     * the coupled system must stay stable at the coarse step for the
     * estimation error to mean anything. */
    static const char *const names[] = {"mass2.k", "mass2.kc"}, *const values[] = {"10", "1"};
    so.start_names = names;
    so.start_values = values;
    so.start_count = 2;
    so.build.overrides.has_step_size = true;
    so.build.overrides.step_size_ns = (rtcosim_time_ns)(step * 1e9);
    so.partner_wrap = rtcosim_dcp_bindings_wrap;
    so.partner_wrap_context = b;
    rtcosim_dcp_bindings_hold_lost_outputs(b, true);
    rtcosim_dcp_bindings_soft_real_time(b, srt);
    so.partner_prepare = rtcosim_dcp_bindings_partner_prepare;
    if (rtcosim_system_rt_create(desc, &so, &sys, &err) != RTCOSIM_OK)
        goto done;
    uint8_t mode = rtcosim_dcp_remote_op_mode(
        rtcosim_master_component(rtcosim_system_rt_part(sys, true), "mass1"));
    if (rtcosim_system_rt_run(sys, &err) != RTCOSIM_OK)
        goto done;
    const rtcosim_rt *rt = rtcosim_system_rt_executor(sys);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rt);
    double sum = 0, worst = 0;
    size_t resolved = 0, records = rtcosim_rt_record_count(rt);
    for (size_t i = 0; i < records; i++) {
        double e = rtcosim_rt_record_at(rt, i)->error;
        if (isnan(e))
            continue;
        sum += e * e;
        worst = fmax(worst, fabs(e));
        resolved++;
    }
    uint64_t forwarded, dropped, reordered;
    relay_counts(r, &forwarded, &dropped, &reordered);
    double share = s->exchanges ? (double)s->estimated_exchanges / (double)s->exchanges : 0;
    double rms = resolved ? sqrt(sum / (double)resolved) : 0;
    printf("B11 real-time run, partner mass1 on the DCP slave behind the relay "
           "(5 ms +- 2 ms each way, 1 %% loss), H = %.3g ms, exchange every frame, %.3g s, DCP %s\n",
           rtcosim_time_to_seconds(rtcosim_system_rt_macro_step(sys)) * 1e3, seconds,
           mode == RTCOSIM_DCP_OP_SRT ? "SRT (slave on its own clock)" : "NRT lock step");
    printf("  frames %llu, overruns %llu, caused by the partner %llu (target 0)%s\n",
           (unsigned long long)s->frames, (unsigned long long)s->overruns,
           (unsigned long long)s->overruns_partner, s->partner_lost ? ", PARTNER LOST" : "");
    printf("  exchanges %llu, served by estimates %llu (%.1f %%), max lag %.3g ms\n",
           (unsigned long long)s->exchanges, (unsigned long long)s->estimated_exchanges,
           100 * share, rtcosim_time_to_seconds(s->max_lag) * 1e3);
    printf("  estimation error over %zu resolved estimates: rms %.3g, max %.3g "
           "(signals mass1.x, mass1.v)\n", resolved, rms, worst);
    printf("  relay: %llu datagrams forwarded, %llu dropped, %llu reordered\n",
           (unsigned long long)forwarded, (unsigned long long)dropped,
           (unsigned long long)reordered);
    bench_figure("dcp.rt_misses", (double)s->overruns_partner, "frames");
    bench_figure("dcp.estimated_share", share, "ratio");
    bench_figure("dcp.estimate_error_rms", rms, "signal units");
    bench_figure("dcp.estimate_error_max", worst, "signal units");
    bench_figure("dcp.partner_lost", s->partner_lost ? 1 : 0, "bool");
    rc_ = 0;
done:
    if (rc_)
        fprintf(stderr, "bench dcp: real-time half: %s\n", err.message);
    rtcosim_system_rt_free(sys);
    rtcosim_dcp_bindings_free(b);
    rtcosim_system_desc_free(desc);
    relay_stop(r);
    return rc_;
}

static int run(int argc, char **argv)
{
    size_t steps = 5000;
    double rt_seconds = 10;
    double step = 0.05;
    bool srt = true;
    const char *ssd = RTCOSIM_BENCH_SOURCE_DIR "/examples/oscillator/oscillator.ssd";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--rt-seconds") == 0 && i + 1 < argc)
            rt_seconds = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--rt-step") == 0 && i + 1 < argc)
            step = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--dcp-mode") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "srt") == 0 || strcmp(argv[i + 1], "nrt") == 0))
            srt = strcmp(argv[++i], "srt") == 0;
        else if (strcmp(argv[i], "--ssd") == 0 && i + 1 < argc)
            ssd = argv[++i];
        else {
            fprintf(stderr, "usage: rtcosim bench dcp [--steps N] [--rt-seconds S (0: skip the "
                            "real-time half)] [--rt-step S (0.05)] [--dcp-mode srt|nrt (srt)]\n"
                            "                       [--ssd oscillator.ssd]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (steps < 10)
        steps = 10;
    rtcosim_error err;
    rtcosim_component *local = NULL;
    double local_median, local_p99;
    if (make(NULL, &local, &err) != RTCOSIM_OK)
        return fprintf(stderr, "bench dcp: %s\n", err.message), 1;
    int rc = time_steps(local, steps, &local_median, &local_p99);
    rtcosim_component_free(local);
    if (rc)
        return rc;

    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .tcp_host = "127.0.0.1", .factory = make};
    rtcosim_dcp_slave *slave;
    if (rtcosim_dcp_slave_create(&cfg, &slave, &err) != RTCOSIM_OK)
        return fprintf(stderr, "bench dcp: %s\n", err.message), 1;
    uint16_t port = rtcosim_dcp_slave_port(slave), tcp_port = rtcosim_dcp_slave_tcp_port(slave);
    fflush(NULL);
    bool fifo = try_fifo(); /* inherited by the child */
    pid_t child = fork();
    if (child == 0) {
        rtcosim_dcp_slave_run(slave, NULL);
        _exit(0);
    }
    rtcosim_dcp_slave_free(slave); /* the parent's copy; the child serves */
    if (child < 0)
        return fprintf(stderr, "bench dcp: fork failed\n"), 1;
    double median = 0, p99 = 0, tcp_median = 0, tcp_p99 = 0;
    rc = remote_steps(RTCOSIM_DCP_UDP_IPV4, port, steps, &median, &p99);
    if (rc == 0)
        rc = remote_steps(RTCOSIM_DCP_TCP_IPV4, tcp_port, steps, &tcp_median, &tcp_p99);
    /* The real-time half: the executor's own scheduling, the slave keeps FIFO. */
    if (fifo) {
        struct sched_param sp = {.sched_priority = 0};
        sched_setscheduler(0, SCHED_OTHER, &sp);
    }
    if (rc == 0) {
        printf("B11 DCP NRT lock step, slave in another process, loopback, %zu steps, %s\n",
               steps, fifo ? "both SCHED_FIFO" : "SCHED_OTHER (not root)");
        printf("  %-34s %10s %10s\n", "", "median us", "p99 us");
        printf("  %-34s %10.2f %10.2f\n", "in process (same model)", local_median, local_p99);
        printf("  %-34s %10.2f %10.2f\n", "DCP UDP round trip (8 PDUs/step)", median, p99);
        printf("  %-34s %10.2f %10.2f\n", "DCP TCP round trip (8 PDUs/step)", tcp_median, tcp_p99);
        printf("  target: median < 50 us\n");
        bench_figure("dcp.nrt_roundtrip_us", median, "us");
        bench_figure("dcp.nrt_roundtrip_p99_us", p99, "us");
        bench_figure("dcp.tcp_nrt_roundtrip_us", tcp_median, "us");
        bench_figure("dcp.tcp_nrt_roundtrip_p99_us", tcp_p99, "us");
        bench_figure("dcp.local_step_us", local_median, "us");
        fflush(stdout);
        if (rt_seconds > 0)
            rc = real_time_half(port, ssd, rt_seconds, step, srt);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return rc;
}

const rtcosim_bench rtcosim_bench_dcp = {"dcp", "B11: DCP NRT round trip on loopback; real-time run with a DCP partner over an impaired link", run};
