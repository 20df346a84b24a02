/* ECU code as a shared object as a co-simulation component
 * (rtcosim_ecu_so_component_create): the engine ECU of models/ecu_engine
 * against its control law worked out here, its state saved and restored on
 * one instance (a rollback replays the same outputs), and moved to another
 * instance, a load of its own, also when the code reaches its state through
 * a pointer into its own data (the ECU_POINTER variant): the moved state must
 * continue exactly as the instance it came from, and leave that one alone. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/ecu.h"

#ifndef ECU_ENGINE_DIR
#error "ECU_ENGINE_DIR: the folder of the built models/ecu_engine objects"
#endif

#define MS RTCOSIM_NS_PER_MS
enum { VR_SPEED = 0, VR_THROTTLE = RTCOSIM_ECU_IO_MAX };

static rtcosim_component *engine_ecu(const char *variant)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ecu_engine%s.so", ECU_ENGINE_DIR, variant);
    static const char *const sensors[] = {"speed"}, *const actuators[] = {"throttle"};
    const rtcosim_ecu_so_task tasks[] = {{.entry = "control_1ms", .period = MS}};
    rtcosim_ecu_so_component_config config = {
        .name = "engine", .shared_object = path, .sensors = sensors, .sensor_count = 1,
        .actuators = actuators, .actuator_count = 1, .tasks = tasks, .task_count = 1};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_ecu_so_component_create(&config, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "engine", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    return c;
}

/* The speed (rad/s) the test feeds at step k. */
static double speed_at(int k) { return 84.0 - 0.5 * k + 0.01 * k * k; }

/* One 1 ms step from k ms with speed_at(k): the throttle after it. */
static double step(rtcosim_component *c, int k)
{
    rtcosim_error err;
    uint32_t vr = VR_SPEED;
    double w = speed_at(k), u;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &w, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, k * MS, MS, NULL, &err), RTCOSIM_OK);
    vr = VR_THROTTLE;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &u, &err), RTCOSIM_OK);
    return u;
}

/* engine.c's control_1ms by hand: a PI governor on rpm towards 800 before
 * 1 s, integrator clamped at +-300, throttle clamped to [0, 1]. */
static void throttle_by_hand(int steps, double *out)
{
    double integral = 0;
    for (int k = 0; k < steps; k++) {
        double rpm = speed_at(k) * 60.0 / (2.0 * M_PI), e = 800.0 - rpm;
        integral = fmin(300.0, fmax(-300.0, integral + e * 1e-3));
        double u = 0.0015 * e + 0.002 * integral + 0.04;
        out[k] = u < 0 ? 0 : u > 1 ? 1 : u;
    }
}

static void follows_its_control_law(void **unused)
{
    (void)unused;
    double want[50];
    throttle_by_hand(50, want);
    rtcosim_component *c = engine_ecu("");
    for (int k = 0; k < 50; k++)
        assert_true(step(c, k) == want[k]);
    rtcosim_component_free(c);
}

static void rollback_replays_the_same_outputs(void **unused)
{
    (void)unused;
    rtcosim_component *c = engine_ecu("");
    rtcosim_error err;
    rtcosim_state saved = NULL;
    for (int k = 0; k < 10; k++)
        step(c, k);
    assert_int_equal(rtcosim_component_get_state(c, &saved, &err), RTCOSIM_OK);
    double first[10], again[10];
    for (int k = 10; k < 20; k++)
        first[k - 10] = step(c, k);
    assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
    for (int k = 10; k < 20; k++)
        again[k - 10] = step(c, k);
    assert_memory_equal(first, again, sizeof first);
    double want[20];
    throttle_by_hand(20, want);
    assert_memory_equal(again, want + 10, sizeof again);
    rtcosim_component_free_state(c, saved);
    rtcosim_component_free(c);
}

/* A's state after 10 steps, serialized and deserialized into B (another
 * load): B continues as A would, and A, stepped on, is not disturbed by B. */
static void moved_state_continues_in_another_load(const char *variant)
{
    rtcosim_component *a = engine_ecu(variant), *b = engine_ecu(variant);
    rtcosim_error err;
    for (int k = 0; k < 10; k++)
        step(a, k);
    for (int k = 0; k < 3; k++)
        step(b, 40 + k); /* B somewhere else */
    rtcosim_state sa = NULL, sb = NULL;
    size_t size = 0;
    assert_int_equal(rtcosim_component_get_state(a, &sa, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_serialized_state_size(a, sa, &size, &err), RTCOSIM_OK);
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    assert_int_equal(rtcosim_component_serialize_state(a, sa, bytes, size, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_deserialize_state(b, bytes, size, &sb, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_state(b, sb, &err), RTCOSIM_OK);
    double want[30];
    throttle_by_hand(30, want);
    for (int k = 10; k < 30; k++) {
        double ub = step(b, k), ua = step(a, k);
        assert_true(ub == want[k]);
        assert_true(ua == want[k]);
    }
    /* a state of the wrong size is refused */
    rtcosim_state none = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(b, bytes, size - 1, &none, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "does not fit"));
    free(bytes);
    rtcosim_component_free_state(a, sa);
    rtcosim_component_free_state(b, sb);
    rtcosim_component_free(a);
    rtcosim_component_free(b);
}

static void moved_state_continues(void **unused)
{
    (void)unused;
    moved_state_continues_in_another_load("");
}

static void moved_state_follows_pointers_into_its_own_data(void **unused)
{
    (void)unused;
    moved_state_continues_in_another_load("_pointer");
}

static void bad_configurations_are_refused(void **unused)
{
    (void)unused;
    char path[1024];
    snprintf(path, sizeof path, "%s/ecu_engine.so", ECU_ENGINE_DIR);
    static const char *const names[] = {"speed", "speed"};
    const rtcosim_ecu_so_task task = {.entry = "control_1ms", .period = MS};
    rtcosim_ecu_so_component_config config = {.name = "e", .shared_object = path,
                                              .sensors = names, .sensor_count = 1,
                                              .actuators = names + 1, .actuator_count = 1,
                                              .tasks = &task, .task_count = 1};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_ecu_so_component_create(&config, &c, &err), RTCOSIM_EINVAL);
    assert_string_equal(err.message, "ecu 'e': 'speed' is named twice among its sensors and"
                                     " actuators");
    config.actuators = NULL, config.actuator_count = 0;
    config.task_count = 0;
    assert_int_equal(rtcosim_ecu_so_component_create(&config, &c, &err), RTCOSIM_EINVAL);
    assert_string_equal(err.message, "ecu 'e': 1..16 tasks are required");
    const rtcosim_ecu_so_task zero = {.entry = "control_1ms"};
    config.tasks = &zero, config.task_count = 1;
    assert_int_equal(rtcosim_ecu_so_component_create(&config, &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "task 1 needs an entry point, a period > 0"));
    const rtcosim_ecu_so_task absent = {.entry = "no_such_task", .period = MS};
    config.tasks = &absent;
    assert_int_equal(rtcosim_ecu_so_component_create(&config, &c, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "ecu_engine.so: no entry point 'no_such_task'"));
    assert_null(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(follows_its_control_law),
        cmocka_unit_test(rollback_replays_the_same_outputs),
        cmocka_unit_test(moved_state_continues),
        cmocka_unit_test(moved_state_follows_pointers_into_its_own_data),
        cmocka_unit_test(bad_configurations_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
