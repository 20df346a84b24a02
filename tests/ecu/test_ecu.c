/* The ECU emulator: task release and start times and response delays under
 * fixed-priority non-preemptive scheduling, worked out by hand; plant inputs
 * taking effect one execution time after the job starts (active and passive
 * plants against the exact solution of an integrator); CAN interrupts at the
 * end of the frame; bad configuration; state snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/ecu.h"
#include "rtcosim/native.h"

#define US RTCOSIM_NS_PER_US
#define MS RTCOSIM_NS_PER_MS

/* ---- software that records its jobs ---- */

typedef struct job_record {
    int task;
    rtcosim_time_ns release, start;
    double sensor;
} job_record;

typedef struct recorder_sw {
    uint32_t count;
    job_record jobs[128];
} recorder_sw;

static rtcosim_status record(rtcosim_ecu_io *io, void *software, int task)
{
    recorder_sw *s = software;
    if (s->count < 128)
        s->jobs[s->count++] = (job_record){task, rtcosim_ecu_io_release(io),
                                           rtcosim_ecu_io_now(io), rtcosim_ecu_io_sensor(io, 0)};
    return RTCOSIM_OK;
}

static rtcosim_status task1(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)err;
    rtcosim_ecu_io_actuate(io, 0, 1.0);
    return record(io, sw, 1);
}
static rtcosim_status task10(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)err;
    return record(io, sw, 10);
}
static rtcosim_status task100(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)err;
    return record(io, sw, 100);
}

static rtcosim_ecu *make_ecu(rtcosim_events *sim, const char *name, rtcosim_can_bus *bus,
                             size_t actuators)
{
    rtcosim_ecu_config c = {.name = name, .clock_hz = 100000000, /* 10 ns per cycle */
                            .software_size = sizeof(recorder_sw), .bus = bus,
                            .sensor_count = 1, .actuator_count = actuators};
    rtcosim_ecu *ecu;
    rtcosim_error err;
    assert_int_equal(rtcosim_ecu_create(sim, &c, &ecu, &err), RTCOSIM_OK);
    return ecu;
}

static void task_releases_and_response_delays_match_hand_computation(void **state)
{
    (void)state;
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu *ecu = make_ecu(sim, "ecu", NULL, 1);
    /* 1 ms: 20000 cycles = 200 us; 10 ms: 300 us; 100 ms: 1 ms */
    assert_int_equal(rtcosim_ecu_add_task(ecu, "t1", MS, 0, 20000, 1, task1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "t10", 10 * MS, 0, 30000, 2, task10, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "t100", 100 * MS, 0, 100000, 3, task100, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(ecu, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_response_delay(ecu), 200 * US);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 2,
                             .stop_time = 20 * MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    recorder_sw *s = rtcosim_ecu_software(ecu);
    /* t=0: all released; t1 0-200 us, t10 200-500 us, t100 500-1500 us.
     * t1 of 1 ms waits for t100: 1500-1700 us (response 700 us). At 10 ms
     * t1 goes before t10 (10.0-10.2, 10.2-10.5). At 20 ms t1 starts at the
     * stop time; t10 of 20 ms would start at 20.2 ms, after it. */
    const job_record want[] = {
        {1, 0, 0, 0}, {10, 0, 200 * US, 0}, {100, 0, 500 * US, 0}, {1, MS, 1500 * US, 0},
    };
    assert_int_equal(s->count, 21 + 2 + 1);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(s->jobs[i].task, want[i].task);
        assert_int_equal(s->jobs[i].release, want[i].release);
        assert_int_equal(s->jobs[i].start, want[i].start);
    }
    for (uint32_t i = 4; i < s->count; i++) {
        const job_record *j = &s->jobs[i];
        /* from 2 ms on every job starts at its release, except t10 at 10 ms
         * which waits for t1 */
        if (j->task == 10) {
            assert_int_equal(j->release, 10 * MS);
            assert_int_equal(j->start, 10 * MS + 200 * US);
        } else {
            assert_int_equal(j->task, 1);
            assert_int_equal(j->start, j->release);
            assert_int_equal(j->release % MS, 0);
        }
    }
    rtcosim_ecu_task_stats ts;
    rtcosim_ecu_task_stats_get(ecu, 0, &ts);
    assert_int_equal(ts.releases, 21);
    assert_int_equal(ts.runs, 21);
    assert_int_equal(ts.max_response, 700 * US);
    rtcosim_ecu_task_stats_get(ecu, 1, &ts);
    assert_int_equal(ts.releases, 3);
    assert_int_equal(ts.runs, 2);
    assert_int_equal(ts.max_response, 500 * US);
    rtcosim_ecu_task_stats_get(ecu, 2, &ts);
    assert_int_equal(ts.runs, 1);
    assert_int_equal(ts.max_response, 1500 * US);
    rtcosim_ecu_stats es;
    rtcosim_ecu_stats_get(ecu, &es);
    assert_int_equal(es.busy_ns, 21 * 200 * US + 2 * 300 * US + 1000 * US);
    rtcosim_ecu_free(ecu);
    rtcosim_events_free(sim);
}

/* ---- plant: an integrator dx/dt = u ---- */

typedef struct integrator_data {
    double x, u;
} integrator_data;

static const rtcosim_native_variable integrator_vars[] = {
    RTCOSIM_NATIVE_F64(integrator_data, x, 0, RTCOSIM_CAUSALITY_OUTPUT,
                       RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(integrator_data, u, 1, RTCOSIM_CAUSALITY_INPUT,
                       RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
};

static void integrator_der(void *data, double t, const double *x, double *dx)
{
    (void)t, (void)x;
    dx[0] = ((const integrator_data *)data)->u;
}

static const rtcosim_native_model integrator_model = {
    .name = "test.integrator", .data_size = sizeof(integrator_data),
    .variables = integrator_vars, .variable_count = 2, .state_count = 1,
    .states_offset = offsetof(integrator_data, x), .integrator = RTCOSIM_NATIVE_RK4,
    .derivatives = integrator_der,
};

static void run_plant_case(rtcosim_plant_mode mode, rtcosim_scheduler scheduler)
{
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu *ecu = make_ecu(sim, "ecu", NULL, 1);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "t1", MS, 0, 20000, 1, task1, &err), RTCOSIM_OK);
    rtcosim_component *plant;
    assert_int_equal(rtcosim_native_create_model(&integrator_model, &plant, &err), RTCOSIM_OK);
    const uint32_t sensor = 0, actuator = 1;
    assert_int_equal(rtcosim_ecu_attach_plant(ecu, plant, mode, 100 * US, &sensor, &actuator,
                                              &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(ecu, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = scheduler, .threads = 2, .stop_time = 5 * MS};
    /* twice: the second run starts again from the plant's initial state */
    for (int run = 0; run < 2; run++) {
        if (rtcosim_events_run(sim, &o, NULL, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        recorder_sw *s = rtcosim_ecu_software(ecu);
        assert_int_equal(s->count, 6);
        /* u = 1 from the end of the first job (200 us): x(k ms) = k ms - 0.2 ms */
        assert_float_equal(s->jobs[0].sensor, 0.0, 1e-15);
        for (uint32_t k = 1; k < 6; k++)
            assert_float_equal(s->jobs[k].sensor, (double)k * 1e-3 - 0.2e-3, 1e-12);
    }
    rtcosim_ecu_free(ecu);
    rtcosim_events_free(sim);
}

static void active_plant_sees_outputs_after_the_response_delay(void **state)
{
    (void)state;
    run_plant_case(RTCOSIM_PLANT_ACTIVE, RTCOSIM_SCHEDULER_SEQUENTIAL);
    run_plant_case(RTCOSIM_PLANT_ACTIVE, RTCOSIM_SCHEDULER_CONSERVATIVE);
}

static void passive_plant_is_stepped_to_the_sampling_instant(void **state)
{
    (void)state;
    run_plant_case(RTCOSIM_PLANT_PASSIVE, RTCOSIM_SCHEDULER_SEQUENTIAL);
    run_plant_case(RTCOSIM_PLANT_PASSIVE, RTCOSIM_SCHEDULER_GLOBAL);
}

/* ---- CAN: a frame sent at a job's end, received by an interrupt ---- */

static rtcosim_status sender_task(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)sw;
    const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    return rtcosim_ecu_io_can_send(io, 0x100, false, data, 8, err);
}

static rtcosim_status receiver_isr(rtcosim_ecu_io *io, void *sw, const rtcosim_can_frame *f,
                                   rtcosim_error *err)
{
    (void)err;
    record(io, sw, (int)f->data[7]);
    return RTCOSIM_OK;
}

static rtcosim_status receiver_task(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)err;
    rtcosim_can_frame f;
    return record(io, sw, rtcosim_ecu_io_can_read(io, 0x100, false, &f) ? 1000 + f.data[0] : 0);
}

static void can_interrupt_runs_at_the_end_of_the_frame(void **state)
{
    (void)state;
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.bitrate = 500000, .stuffing = RTCOSIM_CAN_STUFFING_WORST_CASE};
    rtcosim_can_bus *bus;
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    rtcosim_ecu *tx = make_ecu(sim, "tx", bus, 0), *rx = make_ecu(sim, "rx", bus, 0);
    assert_int_equal(rtcosim_ecu_add_task(tx, "send", 10 * MS, 0, 20000, 1, sender_task, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_can_tx(tx, 0x100, false, 8, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_can_rx(rx, 0x100, false, 1000, receiver_isr, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_task(rx, "poll", 10 * MS, MS, 500, 1, receiver_task, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(tx, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(rx, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    /* the bus -> node lookahead: an 8-byte frame without stuffing, 111 bits */
    assert_int_equal(rtcosim_can_bus_min_frame_time(bus), 222 * US);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 3,
                             .stop_time = 5 * MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    /* sent at 200 us (end of the 200 us job), 135 bits = 270 us on the bus:
     * received at 470 us, ISR released and started then; the 1 ms task reads
     * the mailbox */
    recorder_sw *s = rtcosim_ecu_software(rx);
    assert_int_equal(s->count, 2);
    assert_int_equal(s->jobs[0].task, 8);
    assert_int_equal(s->jobs[0].release, 470 * US);
    assert_int_equal(s->jobs[0].start, 470 * US);
    assert_int_equal(s->jobs[1].task, 1001);
    assert_int_equal(s->jobs[1].start, MS);
    rtcosim_ecu_stats es;
    rtcosim_ecu_stats_get(rx, &es);
    assert_int_equal(es.isr_runs, 1);
    assert_int_equal(es.frames_received, 1);
    rtcosim_ecu_free(tx);
    rtcosim_ecu_free(rx);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

/* ---- bad configuration and runtime errors ---- */

static rtcosim_status bad_actuator_task(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)sw, (void)err;
    rtcosim_ecu_io_actuate(io, 3, 1.0);
    return RTCOSIM_OK;
}

static rtcosim_status undeclared_frame_task(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)sw;
    const uint8_t d[2] = {0};
    return rtcosim_ecu_io_can_send(io, 0x222, false, d, 2, err);
}

static rtcosim_status undeclared_read_task(rtcosim_ecu_io *io, void *sw, rtcosim_error *err)
{
    (void)sw, (void)err;
    rtcosim_can_frame f;
    rtcosim_ecu_io_can_read(io, 0x333, false, &f);
    return RTCOSIM_OK;
}

static void bad_configuration_and_outputs_are_errors(void **state)
{
    (void)state;
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {0};
    rtcosim_can_bus *bus;
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    rtcosim_ecu *ecu = make_ecu(sim, "gateway", bus, 1);
    /* 200 000 cycles = 2 ms in a 1 ms period */
    assert_int_equal(rtcosim_ecu_add_task(ecu, "slow", MS, 0, 200000, 1, task1, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "task 'slow' runs 200000 cycles = 2000000 ns, longer"
                                        " than its period 1000000 ns"));
    assert_int_equal(rtcosim_ecu_add_can_tx(ecu, 0x100, false, 9, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "payload of 9 bytes"));
    assert_int_equal(rtcosim_ecu_add_task(ecu, "act", MS, 0, 1000, 1, bad_actuator_task, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(ecu, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "late", MS, 0, 1000, 1, task1, &err),
                     RTCOSIM_ESTATE);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "ecu 'gateway': actuator 3 of 1"));
    rtcosim_ecu_free(ecu);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);

    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    ecu = make_ecu(sim, "gateway", bus, 0);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "tx", MS, 0, 1000, 1, undeclared_frame_task, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_can_tx(ecu, 0x221, false, 2, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(ecu, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "node 'gateway' sends id 0x222 that is not in its TX"
                                        " database"));
    rtcosim_ecu_free(ecu);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);

    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    ecu = make_ecu(sim, "gateway", bus, 0);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "rx", MS, 0, 1000, 1, undeclared_read_task, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_can_rx(ecu, 0x332, false, 0, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(ecu, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "ecu 'gateway': reads CAN id 0x333 that is not in its RX"
                                        " database"));
    rtcosim_ecu_free(ecu);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

static void state_snapshot_restores_the_software(void **state)
{
    (void)state;
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu *ecu = make_ecu(sim, "ecu", NULL, 0);
    assert_int_equal(rtcosim_ecu_add_task(ecu, "t1", MS, 0, 1000, 1, task10, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_connect(ecu, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = 3 * MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    size_t n = rtcosim_ecu_state_size(ecu);
    unsigned char *snap = malloc(n);
    assert_int_equal(rtcosim_ecu_save_state(ecu, snap, n, &err), RTCOSIM_OK);
    assert_int_equal(((recorder_sw *)rtcosim_ecu_software(ecu))->count, 4);
    o.stop_time = 7 * MS;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    assert_int_equal(((recorder_sw *)rtcosim_ecu_software(ecu))->count, 8);
    assert_int_equal(rtcosim_ecu_restore_state(ecu, snap, n, &err), RTCOSIM_OK);
    assert_int_equal(((recorder_sw *)rtcosim_ecu_software(ecu))->count, 4);
    rtcosim_ecu_task_stats ts;
    rtcosim_ecu_task_stats_get(ecu, 0, &ts);
    assert_int_equal(ts.runs, 4);
    assert_string_equal(ts.name, "t1");
    assert_int_equal(rtcosim_ecu_restore_state(ecu, snap, n - 1, &err), RTCOSIM_EINVAL);
    free(snap);
    rtcosim_ecu_free(ecu);
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(task_releases_and_response_delays_match_hand_computation),
        cmocka_unit_test(active_plant_sees_outputs_after_the_response_delay),
        cmocka_unit_test(passive_plant_is_stepped_to_the_sampling_instant),
        cmocka_unit_test(can_interrupt_runs_at_the_end_of_the_frame),
        cmocka_unit_test(bad_configuration_and_outputs_are_errors),
        cmocka_unit_test(state_snapshot_restores_the_software),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
