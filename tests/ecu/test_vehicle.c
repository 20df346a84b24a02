/* The example vehicle: results and the CAN log identical bit for bit between
 * the sequential scheduler and the conservative one at 1, 2 and 4 threads (and
 * the global and lockstep ones), with active and passive plants; the system
 * file reader. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../examples/ecus/vehicle.h"
#include "rtcosim/dbc.h"

typedef struct vehicle_run {
    uint64_t checksum, events;
    size_t frames;
    rtcosim_can_log_entry *log;
} vehicle_run;

static vehicle_run run_vehicle(unsigned ecus, rtcosim_plant_mode mode, rtcosim_scheduler s,
                               unsigned threads, bool rounds)
{
    rtcosim_events *sim;
    rtcosim_ecu_vehicle *v;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_vehicle_config c = {.ecus = ecus, .plant_mode = mode, .log_frames = true};
    assert_int_equal(rtcosim_ecu_vehicle_build(sim, &c, &v, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = s, .threads = threads,
                             .stop_time = 300 * RTCOSIM_NS_PER_MS, .conservative_rounds = rounds};
    rtcosim_run_stats stats;
    if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    vehicle_run r = {.checksum = rtcosim_ecu_vehicle_checksum(v), .events = stats.events};
    r.frames = rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(v));
    r.log = malloc(r.frames * sizeof *r.log + 1);
    memcpy(r.log, rtcosim_can_bus_log(rtcosim_ecu_vehicle_bus(v)), r.frames * sizeof *r.log);
    rtcosim_ecu_vehicle_free(v);
    rtcosim_events_free(sim);
    return r;
}

static void same_log(const vehicle_run *a, const vehicle_run *b)
{
    assert_int_equal(a->frames, b->frames);
    for (size_t i = 0; i < a->frames; i++) {
        assert_int_equal(a->log[i].start, b->log[i].start);
        assert_int_equal(a->log[i].end, b->log[i].end);
        assert_int_equal(a->log[i].frame.id, b->log[i].frame.id);
        assert_int_equal(a->log[i].frame.dlc, b->log[i].frame.dlc);
        assert_memory_equal(a->log[i].frame.data, b->log[i].frame.data, a->log[i].frame.dlc);
        assert_int_equal(a->log[i].sender, b->log[i].sender);
    }
}

static void check_identical(rtcosim_plant_mode mode)
{
    vehicle_run ref = run_vehicle(8, mode, RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false);
    /* 300 ms, per group of four ECUs: engine data every 10 ms from 2 ms (30)
     * and status every 100 ms from 5 ms (3), vehicle speed every 20 ms from
     * 3 ms (15), brake every 10 ms from 4 ms (30), body every 100 ms from 7 ms
     * (3): 81 frames, two groups */
    assert_int_equal(ref.frames, 162);
    const struct { rtcosim_scheduler s; unsigned threads; bool rounds; } runs[] = {
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 1, false}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 2, false},
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 4, false}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 2, true},
        {RTCOSIM_SCHEDULER_GLOBAL, 1, false},       {RTCOSIM_SCHEDULER_LOCKSTEP, 1, false},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        vehicle_run r = run_vehicle(8, mode, runs[i].s, runs[i].threads, runs[i].rounds);
        assert_int_equal(r.checksum, ref.checksum);
        assert_int_equal(r.events, ref.events);
        same_log(&ref, &r);
        free(r.log);
    }
    free(ref.log);
}

static void results_and_can_log_identical_across_schedulers_active_plants(void **state)
{
    (void)state;
    check_identical(RTCOSIM_PLANT_ACTIVE);
}

static void results_and_can_log_identical_across_schedulers_passive_plants(void **state)
{
    (void)state;
    check_identical(RTCOSIM_PLANT_PASSIVE);
}

/* Two runs of different lengths: the largest difference is found where it
 * is, with both runs' values, and a run against itself has none. */
static void worst_error_names_the_ecu_and_both_values(void **state)
{
    (void)state;
    rtcosim_events *sim[2];
    rtcosim_ecu_vehicle *v[2];
    rtcosim_error err;
    for (int k = 0; k < 2; k++) {
        assert_int_equal(rtcosim_events_create(&sim[k], &err), RTCOSIM_OK);
        rtcosim_ecu_vehicle_config c = {.ecus = 4, .plant_mode = RTCOSIM_PLANT_ACTIVE};
        assert_int_equal(rtcosim_ecu_vehicle_build(sim[k], &c, &v[k], &err), RTCOSIM_OK);
        rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .threads = 1,
                                 .stop_time = (k ? 200 : 300) * RTCOSIM_NS_PER_MS};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim[k], &o, &stats, &err), RTCOSIM_OK);
    }
    rtcosim_ecu_vehicle_error_at at = {.ecu = 7, .actuator = true, .value = 1.0};
    assert_true(rtcosim_ecu_vehicle_worst_error(v[0], v[0], &at) == 0.0);
    assert_int_equal(at.ecu, 0);
    assert_false(at.actuator);
    assert_true(at.value == 0.0 && at.reference == 0.0);

    double e = rtcosim_ecu_vehicle_worst_error(v[0], v[1], &at);
    assert_true(e > 0.0);
    assert_true(e == rtcosim_ecu_vehicle_max_rel_error(v[0], v[1], NULL));
    assert_true(at.ecu < 4);
    rtcosim_ecu *a = rtcosim_ecu_vehicle_ecu(v[0], at.ecu), *b = rtcosim_ecu_vehicle_ecu(v[1], at.ecu);
    assert_true(at.value == (at.actuator ? rtcosim_ecu_actuator(a, 0) : rtcosim_ecu_sensor(a, 0)));
    assert_true(at.reference ==
                (at.actuator ? rtcosim_ecu_actuator(b, 0) : rtcosim_ecu_sensor(b, 0)));
    double scale = fabs(at.reference) > 1.0 ? fabs(at.reference) : 1.0;
    assert_true(fabs(fabs(at.value - at.reference) / scale - e) <= 1e-15 * e);
    for (size_t i = 0; i < 4; i++) { /* no other value differs more */
        rtcosim_ecu *x = rtcosim_ecu_vehicle_ecu(v[0], i), *y = rtcosim_ecu_vehicle_ecu(v[1], i);
        double pairs[2][2] = {{rtcosim_ecu_sensor(x, 0), rtcosim_ecu_sensor(y, 0)},
                              {rtcosim_ecu_actuator(x, 0), rtcosim_ecu_actuator(y, 0)}};
        for (int k = 0; k < 2; k++) {
            double sc = fabs(pairs[k][1]) > 1.0 ? fabs(pairs[k][1]) : 1.0;
            assert_true(fabs(pairs[k][0] - pairs[k][1]) / sc <= e);
        }
    }
    for (int k = 0; k < 2; k++) {
        rtcosim_ecu_vehicle_free(v[k]);
        rtcosim_events_free(sim[k]);
    }
}

static void system_file_sets_vehicle_and_run(void **state)
{
    (void)state;
    const char text[] = "; a comment\n[vehicle]\n ecus = 8 \nstuffing=worst-case # why not\n"
                        "plants = passive\nplant_step = 0.0005\nclock_hz = 80000000\n"
                        "bitrate = 250000\n\n[run]\nscheduler = lockstep\nthreads = 3\n"
                        "stop_time = 2.5\nseed = 99\n";
    rtcosim_ecu_vehicle_config c = {.ecus = 4};
    rtcosim_run_options o = {0};
    rtcosim_error err;
    assert_int_equal(rtcosim_ecu_vehicle_parse(text, sizeof text - 1, "car.ini", &c, &o, &err),
                     RTCOSIM_OK);
    assert_int_equal(c.ecus, 8);
    assert_int_equal(c.stuffing, RTCOSIM_CAN_STUFFING_WORST_CASE);
    assert_int_equal(c.plant_mode, RTCOSIM_PLANT_PASSIVE);
    assert_int_equal(c.plant_step, 500000);
    assert_int_equal(c.clock_hz, 80000000);
    assert_int_equal(c.bitrate, 250000);
    assert_int_equal(o.scheduler, RTCOSIM_SCHEDULER_LOCKSTEP);
    assert_int_equal(o.threads, 3);
    assert_int_equal(o.stop_time, 2500000000);
    assert_int_equal(o.seed, 99);
}

static void system_file_errors_name_file_and_line(void **state)
{
    (void)state;
    const struct { const char *text, *want; } cases[] = {
        {"[vehicle]\necus = 65\n", "car.ini:2: ecus: a number of ECUs in 1..64, got '65'"},
        {"[vehicle]\necus = -1\n", "car.ini:2: ecus: a number of ECUs in 1..64, got '-1'"},
        {"ecus = 4\n", "car.ini:1: key 'ecus' outside a [vehicle] or [run] section"},
        {"[engine]\n", "car.ini:1: unknown section [engine] (vehicle, run)"},
        {"[run\n", "car.ini:1: malformed section header"},
        {"[run]\nthreads\n", "car.ini:2: expected key = value"},
        {"[run]\nstop_time = soon\n", "car.ini:2: stop_time: a positive number of seconds"},
        {"[run]\nscheduler = optimistic\n", "car.ini:2: scheduler: sequential, conservative"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtcosim_ecu_vehicle_config c = {.ecus = 4};
        rtcosim_run_options o = {0};
        rtcosim_error err;
        assert_int_equal(rtcosim_ecu_vehicle_parse(cases[i].text, strlen(cases[i].text), "car.ini",
                                               &c, &o, &err), RTCOSIM_EFORMAT);
        if (!strstr(err.message, cases[i].want))
            fail_msg("'%s' lacks '%s'", err.message, cases[i].want);
    }
    char long_line[600];
    memset(long_line, 'x', sizeof long_line);
    rtcosim_ecu_vehicle_config c = {.ecus = 4};
    rtcosim_run_options o = {0};
    rtcosim_error err;
    assert_int_equal(rtcosim_ecu_vehicle_parse(long_line, sizeof long_line, "car.ini", &c, &o, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "longer than 511 characters"));
    assert_int_equal(rtcosim_ecu_vehicle_parse("[run]\n\0x", 8, "car.ini", &c, &o, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "car.ini:2: NUL byte"));
}

/* rtcosim events --dbc-out: the database generated for N ECUs names every
 * frame a vehicle of N ECUs sends (message of group g at its group-0 id + g,
 * named with g), and holds no message nobody sends; it is the shipped
 * vehicle.dbc for N = 4. */
static void generated_database_names_every_frame_the_vehicle_sends(void **state)
{
    (void)state;
    static const unsigned sizes[] = {1, 2, 4, 5, 6, 8, 15, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned ecus = sizes[i];
        char *text;
        rtcosim_error err;
        assert_int_equal(rtcosim_ecu_vehicle_dbc(ecus, &text, &err), RTCOSIM_OK);
        if (ecus == 4) {
            size_t size;
            const char *shipped = rtcosim_ecu_vehicle_dbc_text(&size);
            assert_int_equal(strlen(text), size);
            assert_memory_equal(text, shipped, size);
        }
        rtcosim_dbc *db;
        if (rtcosim_dbc_parse(text, strlen(text), "generated.dbc", &db, &err) != RTCOSIM_OK)
            fail_msg("%u ECUs: %s", ecus, err.message);
        rtcosim_events *sim;
        rtcosim_ecu_vehicle *v;
        assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
        rtcosim_ecu_vehicle_config c = {.ecus = ecus, .log_frames = true};
        assert_int_equal(rtcosim_ecu_vehicle_build(sim, &c, &v, &err), RTCOSIM_OK);
        rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                                 .stop_time = 150 * RTCOSIM_NS_PER_MS};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        const rtcosim_can_log_entry *log = rtcosim_can_bus_log(rtcosim_ecu_vehicle_bus(v));
        size_t frames = rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(v));
        size_t count = rtcosim_dbc_message_count(db);
        bool *seen = calloc(count + 1, sizeof *seen);
        assert_true(frames > 0);
        for (size_t k = 0; k < frames; k++) {
            const rtcosim_dbc_message *m = rtcosim_dbc_find_id(db, log[k].frame.id, false);
            if (!m)
                fail_msg("%u ECUs: frame 0x%X not in the database", ecus, log[k].frame.id);
            /* the group (the group-0 ids are multiples of 32): its number after the name */
            unsigned g = log[k].frame.id % 32;
            size_t len = strlen(m->name);
            if (g) {
                char suffix[8];
                snprintf(suffix, sizeof suffix, "%u", g);
                assert_true(len > strlen(suffix));
                assert_string_equal(m->name + len - strlen(suffix), suffix);
            } else {
                assert_false(m->name[len - 1] >= '0' && m->name[len - 1] <= '9');
            }
            for (size_t j = 0; j < count; j++)
                if (rtcosim_dbc_message_at(db, j) == m)
                    seen[j] = true;
        }
        /* each kind's messages: Engine 2, Transmission, Brake and Body 1 */
        static const size_t per_kind[4] = {2, 1, 1, 1};
        size_t expected = 0;
        for (unsigned e = 0; e < ecus; e++)
            expected += per_kind[e % 4];
        assert_int_equal(count, expected);
        for (size_t j = 0; j < count; j++)
            if (!seen[j])
                fail_msg("%u ECUs: %s sent by nobody", ecus, rtcosim_dbc_message_at(db, j)->name);
        free(seen);
        rtcosim_ecu_vehicle_free(v);
        rtcosim_events_free(sim);
        rtcosim_dbc_free(db);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_and_can_log_identical_across_schedulers_active_plants),
        cmocka_unit_test(results_and_can_log_identical_across_schedulers_passive_plants),
        cmocka_unit_test(worst_error_names_the_ecu_and_both_values),
        cmocka_unit_test(system_file_sets_vehicle_and_run),
        cmocka_unit_test(system_file_errors_name_file_and_line),
        cmocka_unit_test(generated_database_names_every_frame_the_vehicle_sends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
