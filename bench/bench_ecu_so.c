/* `rtcosim bench ecu-so`: the cost of capturing the state of ECU code built
 * as a shared object (software in the loop, models/ecu_engine) against the
 * built-in engine ECU whose state is a declared block, in the example
 * vehicle (4 ECUs): bytes and time per snapshot of the software alone and
 * of the ECU's whole flat state, then the speculative scheduler on 2 threads
 * with each engine (rollbacks of the engine, sim s/s) and whether the shared
 * object's speculative run equals its sequential one bit for bit. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/ecus/vehicle.h"
#include "bench.h"

#ifndef RTCOSIM_BENCH_ECU_ENGINE_SO
#define RTCOSIM_BENCH_ECU_ENGINE_SO "ecu_engine.so"
#endif

typedef struct built {
    rtcosim_events *sim;
    rtcosim_ecu_vehicle *vehicle;
} built;

static int build(built *b, const char *so, bool paired, rtcosim_error *err)
{
    rtcosim_ecu_vehicle_config vc = {.ecus = 4, .log_frames = true, .pair_plants = paired};
    char spec[1100];
    snprintf(spec, sizeof spec, "engine=%s", so ? so : "");
    if ((so && rtcosim_ecu_vehicle_add_sil(&vc, spec, "bench", err) != RTCOSIM_OK) ||
        rtcosim_events_create(&b->sim, err) != RTCOSIM_OK ||
        rtcosim_ecu_vehicle_build(b->sim, &vc, &b->vehicle, err) != RTCOSIM_OK)
        return 1;
    return 0;
}

static void release(built *b)
{
    rtcosim_ecu_vehicle_free(b->vehicle);
    rtcosim_events_free(b->sim);
    memset(b, 0, sizeof *b);
}

/* Median ns per call of the software copy and of the flat state save. */
static void time_saves(rtcosim_ecu *ecu, double *software_ns, double *state_ns)
{
    enum { CALLS = 200000, REPEATS = 5 };
    size_t size = rtcosim_ecu_state_size(ecu);
    unsigned char *buffer = malloc(size + 1);
    double soft[REPEATS], whole[REPEATS];
    rtcosim_error err;
    for (int r = 0; r < REPEATS; r++) {
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < CALLS; i++) {
            rtcosim_ecu_software_read(ecu, buffer);
            __asm__ volatile("" ::"r"(buffer) : "memory");
        }
        int64_t t1 = bench_now_ns();
        for (int i = 0; i < CALLS; i++) {
            (void)rtcosim_ecu_save_state(ecu, buffer, size, &err);
            __asm__ volatile("" ::"r"(buffer) : "memory");
        }
        int64_t t2 = bench_now_ns();
        soft[r] = (double)(t1 - t0) / CALLS;
        whole[r] = (double)(t2 - t1) / CALLS;
    }
    free(buffer);
    *software_ns = bench_median(soft, REPEATS);
    *state_ns = bench_median(whole, REPEATS);
}

/* The same object as a co-simulation component (rtcosim run): median ns of
 * a snapshot into an existing state and of a restore, against the floor of
 * one memcpy of the snapshot's bytes. */
static int time_component(const char *so)
{
    enum { CALLS = 200000, REPEATS = 5 };
    static const char *const sensors[] = {"speed"}, *const actuators[] = {"throttle"};
    const rtcosim_ecu_so_task task = {.entry = "control_1ms", .period = RTCOSIM_NS_PER_MS};
    rtcosim_ecu_so_component_config config = {
        .name = "engine", .shared_object = so, .sensors = sensors, .sensor_count = 1,
        .actuators = actuators, .actuator_count = 1, .tasks = &task, .task_count = 1};
    rtcosim_component *c = NULL;
    rtcosim_state state = NULL;
    rtcosim_error err;
    size_t size = 0;
    if (rtcosim_ecu_so_component_create(&config, &c, &err) != RTCOSIM_OK ||
        rtcosim_component_instantiate(c, "engine", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_do_step(c, 0, RTCOSIM_NS_PER_MS, NULL, &err) != RTCOSIM_OK ||
        rtcosim_component_get_state(c, &state, &err) != RTCOSIM_OK ||
        rtcosim_component_serialized_state_size(c, state, &size, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        rtcosim_component_free(c);
        return 1;
    }
    unsigned char *a = malloc(size), *b = calloc(1, size);
    double save[REPEATS], restore[REPEATS], copy[REPEATS];
    for (int r = 0; r < REPEATS && a && b; r++) {
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < CALLS; i++) {
            (void)rtcosim_component_get_state(c, &state, &err);
            __asm__ volatile("" ::"r"(state) : "memory");
        }
        int64_t t1 = bench_now_ns();
        for (int i = 0; i < CALLS; i++)
            (void)rtcosim_component_set_state(c, state, &err);
        int64_t t2 = bench_now_ns();
        for (int i = 0; i < CALLS; i++) {
            memcpy(a, b, size);
            __asm__ volatile("" ::"r"(a) : "memory");
        }
        int64_t t3 = bench_now_ns();
        save[r] = (double)(t1 - t0) / CALLS;
        restore[r] = (double)(t2 - t1) / CALLS;
        copy[r] = (double)(t3 - t2) / CALLS;
    }
    printf("as a component (run --speculate): state %zu B, save %.1f ns, restore %.1f ns,"
           " floor memcpy %.1f ns\n", size, bench_median(save, REPEATS),
           bench_median(restore, REPEATS), bench_median(copy, REPEATS));
    bench_figure("ecu_so.component.state_bytes", (double)size, "B");
    bench_figure("ecu_so.component.save_ns", bench_median(save, REPEATS), "ns");
    bench_figure("ecu_so.component.restore_ns", bench_median(restore, REPEATS), "ns");
    bench_figure("ecu_so.component.memcpy_floor_ns", bench_median(copy, REPEATS), "ns");
    free(a);
    free(b);
    rtcosim_component_free_state(c, state);
    rtcosim_component_free(c);
    return 0;
}

static int run_ecu_so_bench(int argc, char **argv)
{
    const char *so = RTCOSIM_BENCH_ECU_ENGINE_SO;
    rtcosim_time_ns stop = 10 * RTCOSIM_NS_PER_S;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            stop = RTCOSIM_NS_PER_S;
        } else if (strcmp(argv[i], "--so") == 0 && i + 1 < argc) {
            so = argv[++i];
        } else {
            fprintf(stderr, "usage: rtcosim bench ecu-so [--quick] [--so PATH]\n");
            return 2;
        }
    }
    bench_print_load();
    rtcosim_error err = {0};
    int rc = 0;
    const char *names[2] = {"built-in engine", "shared-object engine"};
    double sim_s = rtcosim_time_to_seconds(stop);
    uint64_t sums[2][2] = {{0}};
    printf("engine state capture, example vehicle of 4 ECUs, %.3g s simulated\n", sim_s);
    printf("%-22s %9s %9s %11s %11s %10s %9s %9s\n", "engine", "soft B", "state B",
           "soft ns", "state ns", "spec s/s", "rollbacks", "spec=seq");
    for (int k = 0; k < 2; k++) {
        built seq = {0}, spec = {0};
        if (build(&seq, k ? so : NULL, false, &err) || build(&spec, k ? so : NULL, true, &err)) {
            fprintf(stderr, "rtcosim: %s\n", err.message);
            release(&seq);
            release(&spec);
            return 1;
        }
        rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .stop_time = stop};
        rtcosim_run_options os = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                                  .stop_time = stop};
        rtcosim_run_stats st, ss;
        if (rtcosim_events_run(seq.sim, &o, &st, &err) != RTCOSIM_OK ||
            rtcosim_events_run(spec.sim, &os, &ss, &err) != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim: %s\n", err.message);
            release(&seq);
            release(&spec);
            return 1;
        }
        rtcosim_ecu *engine = rtcosim_ecu_vehicle_ecu(seq.vehicle, 0);
        rtcosim_lp_speculation ls = {0};
        (void)rtcosim_events_lp_speculation(spec.sim,
                                            rtcosim_ecu_lp(rtcosim_ecu_vehicle_ecu(spec.vehicle, 0)),
                                            &ls, &err);
        double soft_ns, state_ns;
        time_saves(engine, &soft_ns, &state_ns);
        sums[k][0] = rtcosim_ecu_vehicle_checksum(seq.vehicle);
        sums[k][1] = rtcosim_ecu_vehicle_checksum(spec.vehicle);
        bool same = sums[k][0] == sums[k][1];
        if (!same)
            rc = 1;
        printf("%-22s %9zu %9zu %11.1f %11.1f %10.1f %9" PRIu64 " %9s\n", names[k],
               rtcosim_ecu_software_size(engine), rtcosim_ecu_state_size(engine), soft_ns,
               state_ns, sim_s / ss.wall_s, ls.rollbacks, same ? "yes" : "NO");
        const char *key = k ? "ecu_so.so" : "ecu_so.builtin";
        char name[96];
        snprintf(name, sizeof name, "%s.software_bytes", key);
        bench_figure(name, (double)rtcosim_ecu_software_size(engine), "B");
        snprintf(name, sizeof name, "%s.state_bytes", key);
        bench_figure(name, (double)rtcosim_ecu_state_size(engine), "B");
        snprintf(name, sizeof name, "%s.software_save_ns", key);
        bench_figure(name, soft_ns, "ns");
        snprintf(name, sizeof name, "%s.state_save_ns", key);
        bench_figure(name, state_ns, "ns");
        snprintf(name, sizeof name, "%s.speculative_sim_s_per_wall_s", key);
        bench_figure(name, sim_s / ss.wall_s, "s/s");
        snprintf(name, sizeof name, "%s.engine_rollbacks", key);
        bench_figure(name, (double)ls.rollbacks, "count");
        snprintf(name, sizeof name, "%s.speculative_equals_sequential", key);
        bench_figure(name, same ? 1 : 0, "bool");
        release(&seq);
        release(&spec);
    }
    return time_component(so) ? 1 : rc;
}

const rtcosim_bench rtcosim_bench_ecu_so = {
    "ecu-so", "state capture of ECU code built as a shared object (software in the loop)",
    run_ecu_so_bench};
