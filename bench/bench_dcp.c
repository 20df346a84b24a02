/* B11 `rtcosim bench dcp`: NRT lock-step round trip of one step with a DCP
 * slave in another process on loopback UDP (DAT inputs, STC_do_step, RSP_ack,
 * NTF COMPUTED, STC_send_outputs, RSP_ack, DAT outputs, NTF back: 8 PDUs),
 * against the same step of the same model in process. The slave serves
 * oscillator.mass1 (input F, outputs x and v). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "rtcosim/dcp.h"
#include "rtcosim/native.h"

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

static int run(int argc, char **argv)
{
    size_t steps = 5000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = (size_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: rtcosim bench dcp [--steps N]\n");
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

    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .factory = make};
    rtcosim_dcp_slave *slave;
    if (rtcosim_dcp_slave_create(&cfg, &slave, &err) != RTCOSIM_OK)
        return fprintf(stderr, "bench dcp: %s\n", err.message), 1;
    uint16_t port = rtcosim_dcp_slave_port(slave);
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
    rtcosim_component *probe = NULL, *remote = NULL;
    double median = 0, p99 = 0;
    rtcosim_dcp_remote_config rcfg = {.host = "127.0.0.1", .port = port};
    rc = make(NULL, &probe, &err) != RTCOSIM_OK ||
         rtcosim_dcp_remote_create(&rcfg, rtcosim_component_description(probe), &remote, &err) != RTCOSIM_OK;
    rtcosim_component_free(probe);
    if (rc)
        fprintf(stderr, "bench dcp: %s\n", err.message);
    else
        rc = time_steps(remote, steps, &median, &p99);
    rtcosim_component_free(remote);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (fifo) {
        struct sched_param sp = {.sched_priority = 0};
        sched_setscheduler(0, SCHED_OTHER, &sp);
    }
    if (rc)
        return rc;
    printf("B11 DCP NRT lock step, slave in another process, loopback UDP, %zu steps, %s\n", steps,
           fifo ? "both SCHED_FIFO" : "SCHED_OTHER (not root)");
    printf("  %-34s %10s %10s\n", "", "median us", "p99 us");
    printf("  %-34s %10.2f %10.2f\n", "in process (same model)", local_median, local_p99);
    printf("  %-34s %10.2f %10.2f\n", "DCP round trip (8 PDUs per step)", median, p99);
    printf("  target: median < 50 us\n");
    bench_figure("dcp.nrt_roundtrip_us", median, "us");
    bench_figure("dcp.nrt_roundtrip_p99_us", p99, "us");
    bench_figure("dcp.local_step_us", local_median, "us");
    return 0;
}

const rtcosim_bench rtcosim_bench_dcp = {"dcp", "B11: DCP NRT round trip per step on loopback", run};
