/* Scheduled execution (FMI 3.0 chapter 5) end to end with the project's Tasks
 * FMU (models/tasks), against tick times and partition orders worked out by
 * hand from its clocks: fast (priority 1, every 1 s from 0.5 s), trigger
 * (priority 2, the input file's 1s), countdown (priority 3, started by fast's
 * 2nd tick with 1 s and by its 4th with 0 s), output clock alarm (sum first
 * reaches 5). `order` lists the partitions of the latest activation time (1
 * fast, 2 trigger, 3 countdown), so 123 at 2.5 s proves the priority order
 * against the reference order (countdown 100 < trigger 101 < fast 102). Also
 * the Binary maxSize refusal, the interval rules and the input-file rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/simulate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

static rtcosim_component *load(void)
{
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_SCHEDULED_EXECUTION};
    rtcosim_component *c;
    rtcosim_error err;
    if (rtcosim_fmu_load(RTCOSIM_FMU_TASKS_FMI3SE, &fo, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return c;
}

/* Runs Tasks from 0 to 4 s with the given output interval and input table;
 * returns the CSV text (tu_read_file's buffer). */
static char *run(const char *input_text, rtcosim_time_ns interval, rtcosim_se_stats *stats)
{
    rtcosim_component *c = load();
    rtcosim_csv *input = input_text ? tu_csv(input_text) : NULL;
    rtcosim_simulate_options o = {.start_time = 0, .stop_time = 4 * RTCOSIM_NS_PER_S,
                                  .output_interval = interval, .input = input,
                                  .output_file = tu_scratch("out.csv")};
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    if (rtcosim_simulate(c, &o, &res, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(res.end_time, 4 * RTCOSIM_NS_PER_S);
    if (stats)
        assert_int_equal(rtcosim_fmu_se_stats(c, stats, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
    rtcosim_csv_free(input);
    return tu_read_file(tu_scratch("out.csv"), NULL);
}

static const char header[] = "\"time\",\"fast_count\",\"trigger_count\",\"countdown_count\",\"sum\","
                             "\"alarms\",\"frame_length\",\"order\",\"alarm\"\n";

static void partitions_tick_at_hand_computed_times_in_priority_order(void **state)
{
    (void)state;
    /* trigger at 1.5 (u 2: sum 2), 2 (u 4: sum 6, alarm), 2.5 (u 1), 3.25
     * (u 1, between rows: shown at 3.5). At 1.5 fast starts the countdown
     * with 1 s (tick at 2.5), at 3.5 with 0 s (tick at 3.5 after fast). */
    rtcosim_se_stats stats;
    char *csv = run("time,trigger,u\n0,0,0\n1.5,1,2\n2,1,4\n2.5,1,1\n3.25,1,1\n",
                    RTCOSIM_NS_PER_S / 2, &stats);
    char want[1024];
    snprintf(want, sizeof want, "%s%s", header,
             "0,0,0,0,0,0,0,0,0\n"
             "0.5,1,0,0,0,0,0,1,0\n"
             "1,1,0,0,0,0,0,1,0\n"
             "1.5,2,1,0,2,0,1,12,0\n"
             "2,2,2,0,6,1,1,2,1\n"
             "2.5,3,3,1,7,1,1,123,0\n"
             "3,3,3,1,7,1,1,123,0\n"
             "3.5,4,4,2,8,1,1,13,0\n"
             "4,4,4,2,8,1,1,13,0\n");
    assert_string_equal(csv, want);
    /* 4 fast + 4 trigger + 2 countdown + slow at 0.25; clockUpdate at fast's
     * 2nd and 4th tick and at the alarm; trigger locks preemption on each of
     * its ticks. */
    assert_int_equal(stats.activations, 11);
    assert_int_equal(stats.clock_updates, 3);
    assert_int_equal(stats.preemption_locks, 4);
    assert_int_equal(stats.unbalanced_unlocks, 0);
}

static void ticks_between_rows_run_at_their_own_time(void **state)
{
    (void)state;
    /* Rows every second; fast ticks at 0.5, 1.5, 2.5, 3.5 between them. */
    char *csv = run(NULL, RTCOSIM_NS_PER_S, NULL);
    char want[1024];
    snprintf(want, sizeof want, "%s%s", header,
             "0,0,0,0,0,0,0,0,0\n"
             "1,1,0,0,0,0,0,1,0\n"
             "2,2,0,0,0,0,0,1,0\n"
             "3,3,0,1,0,0,0,13,0\n"
             "4,4,0,2,0,0,0,13,0\n");
    assert_string_equal(csv, want);
}

/* slow is fixed: 10 s from 0.25 s as declared (one tick by 4 s), or the
 * interval the importer sets in Initialization Mode (section 2.2.8). */
static void a_fixed_clock_runs_at_the_interval_the_importer_sets(void **state)
{
    (void)state;
    const char *name = "slow_count";
    for (int set = 0; set < 2; set++) {
        rtcosim_component *c = load();
        rtcosim_start_value interval = {"slow", "1"};
        rtcosim_simulate_options o = {.start_time = 0, .stop_time = 4 * RTCOSIM_NS_PER_S,
                                      .output_interval = RTCOSIM_NS_PER_S,
                                      .output_variables = &name, .output_variable_count = 1,
                                      .clock_intervals = &interval,
                                      .clock_interval_count = (size_t)set,
                                      .output_file = tu_scratch("slow.csv")};
        rtcosim_error err;
        if (rtcosim_simulate(c, &o, NULL, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        rtcosim_component_free(c);
        assert_string_equal(tu_read_file(tu_scratch("slow.csv"), NULL),
                            set ? "\"time\",\"slow_count\"\n0,0\n1,1\n2,2\n3,3\n4,4\n"
                                : "\"time\",\"slow_count\"\n0,0\n1,1\n2,1\n3,1\n4,1\n");
    }
    /* Not for a constant clock, nor zero, nor a name that is no clock. */
    static const struct {
        const char *name, *value, *message;
    } bad[] = {
        {"fast", "2", "clock 'fast': fmi3SetIntervalDecimal is allowed only for fixed or tunable"},
        {"slow", "0", "clock 'slow': interval 0 must be greater than 0"},
        {"slow", "1s", "clock interval 'slow': '1s' is not a number of seconds"},
        {"sum", "1", "clock interval 'sum': model 'Tasks' has no such clock"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rtcosim_component *c = load();
        rtcosim_start_value interval = {bad[i].name, bad[i].value};
        rtcosim_simulate_options o = {.start_time = 0, .stop_time = RTCOSIM_NS_PER_S,
                                      .output_interval = RTCOSIM_NS_PER_S,
                                      .clock_intervals = &interval, .clock_interval_count = 1};
        rtcosim_error err;
        assert_int_not_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_OK);
        if (!strstr(err.message, bad[i].message))
            fail_msg("\"%s\" lacks \"%s\"", err.message, bad[i].message);
        rtcosim_component_free(c);
    }
}

static size_t variable_index(const rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    assert_non_null(v);
    return (size_t)(v - rtcosim_component_variable(c, 0));
}

static void binary_over_max_size_and_wrong_interval_calls_are_refused(void **state)
{
    (void)state;
    rtcosim_component *c = load();
    rtcosim_error err;
    assert_int_equal(rtcosim_component_instantiate(c, "tasks", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    const rtcosim_variable *frame = rtcosim_component_find_variable(c, "frame");
    static const uint8_t bytes[5] = {1, 2, 3, 4, 5};
    rtcosim_binary value = {bytes, 5};
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_BINARY, &frame->value_reference, 1,
                                           &value, &err),
                     RTCOSIM_EINVAL);
    assert_string_equal(err.message, "tasks: variable 'frame': a Binary value of 5 bytes is "
                                     "longer than its maxSize 4 (FMI 3.0 section 2.4.7.3)");
    value.size = 4;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_BINARY, &frame->value_reference, 1,
                                           &value, &err),
                     RTCOSIM_OK);

    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(c);
    long fast = rtcosim_fmu_clock_index(k, variable_index(c, "fast"));
    long trigger = rtcosim_fmu_clock_index(k, variable_index(c, "trigger"));
    long countdown = rtcosim_fmu_clock_index(k, variable_index(c, "countdown"));
    assert_true(fast >= 0 && trigger >= 0 && countdown >= 0);
    double x;
    rtcosim_interval_qualifier q;
    assert_int_equal(rtcosim_fmu_get_interval(c, (size_t)countdown, &x, &q, &err), RTCOSIM_OK);
    assert_int_equal(q, RTCOSIM_INTERVAL_NOT_YET_KNOWN);
    assert_int_equal(rtcosim_fmu_get_shift(c, (size_t)fast, &x, &err), RTCOSIM_OK);
    assert_true(x == 0.5);
    assert_int_equal(rtcosim_fmu_set_interval(c, (size_t)fast, 2.0, &err), RTCOSIM_EINVAL);
    assert_string_equal(err.message, "tasks: clock 'fast': fmi3SetIntervalDecimal is allowed only "
                                     "for fixed or tunable input clocks that declare an interval, "
                                     "not a constant input clock (FMI 3.0 section 2.2.8)");
    assert_int_equal(rtcosim_fmu_get_interval_fraction(c, (size_t)fast, &(uint64_t){0},
                                                       &(uint64_t){0}, &q, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "needs supportsFraction=\"true\""));

    /* The 4-byte frame reaches the trigger partition. */
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    bool update = true;
    assert_int_equal(rtcosim_fmu_se_activate(c, (size_t)trigger, 0, &update, &err), RTCOSIM_OK);
    assert_false(update); /* sum 0 + u 0: no alarm */
    const rtcosim_variable *length = rtcosim_component_find_variable(c, "frame_length");
    int32_t n = 0;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &length->value_reference, 1, &n,
                                           &err),
                     RTCOSIM_OK);
    assert_int_equal(n, 4);
    rtcosim_component_free(c);
}

static int32_t get_int(rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    int32_t x = -1;
    rtcosim_error err;
    if (rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &v->value_reference, 1, &x, &err))
        fail_msg("%s", err.message);
    return x;
}

/* As a component of a system: do_step(t, h) runs the partitions of
 * [t, t + h] on the first step and (t, t + h] after; a triggered input clock
 * set true ticks at the next step's start; an output clock read through the
 * component says whether it ticked in the last step. */
static void do_step_runs_the_partitions_of_the_macro_step(void **state)
{
    (void)state;
    rtcosim_component *c = load();
    rtcosim_error err;
    rtcosim_step_result sr;
    assert_int_equal(rtcosim_component_instantiate(c, "tasks", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    const rtcosim_variable *trigger = rtcosim_component_find_variable(c, "trigger");
    const rtcosim_variable *u = rtcosim_component_find_variable(c, "u");
    const rtcosim_variable *alarm = rtcosim_component_find_variable(c, "alarm");
    /* [0, 1]: fast at 0.5. */
    assert_int_equal(rtcosim_component_do_step(c, 0, RTCOSIM_NS_PER_S, &sr, &err), RTCOSIM_OK);
    assert_int_equal(get_int(c, "fast_count"), 1);
    assert_int_equal(get_int(c, "order"), 1);
    /* (1, 2]: trigger at 1 (u = 6, sum reaches 5: alarm), fast at 1.5
     * (starts the countdown with 1 s: it ticks at 2.5, in the next step). */
    bool tick = true;
    int32_t six = 6;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &u->value_reference, 1, &six,
                                           &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_CLOCK, &trigger->value_reference, 1,
                                           &tick, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, RTCOSIM_NS_PER_S, RTCOSIM_NS_PER_S, &sr, &err),
                     RTCOSIM_OK);
    assert_int_equal(get_int(c, "trigger_count"), 1);
    assert_int_equal(get_int(c, "sum"), 6);
    assert_int_equal(get_int(c, "fast_count"), 2);
    assert_int_equal(get_int(c, "order"), 1); /* 1.5: fast alone */
    bool ticked = false;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_CLOCK, &alarm->value_reference, 1,
                                           &ticked, &err), RTCOSIM_OK);
    assert_true(ticked);
    /* (2, 3]: fast and countdown at 2.5, in that order; no alarm. */
    assert_int_equal(rtcosim_component_do_step(c, 2 * RTCOSIM_NS_PER_S, RTCOSIM_NS_PER_S, &sr, &err),
                     RTCOSIM_OK);
    assert_int_equal(get_int(c, "countdown_count"), 1);
    assert_int_equal(get_int(c, "order"), 13);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_CLOCK, &alarm->value_reference, 1,
                                           &ticked, &err), RTCOSIM_OK);
    assert_false(ticked);
    /* Only triggered input clocks are ticked by the importer. */
    const rtcosim_variable *fast = rtcosim_component_find_variable(c, "fast");
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_CLOCK, &fast->value_reference, 1,
                                           &tick, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "is not a triggered input clock"));
    rtcosim_se_partition_stats ps;
    long fi = rtcosim_fmu_clock_index(rtcosim_fmu_clocks_of(c), variable_index(c, "fast"));
    assert_int_equal(rtcosim_fmu_se_partition_stats(c, (size_t)fi, &ps, &err), RTCOSIM_OK);
    assert_int_equal(ps.activations, 3);
    assert_true(ps.exec_max_ns >= 0 && ps.exec_total_ns >= ps.exec_max_ns);
    rtcosim_component_free(c);
}

static void expect_input_error(const char *table, const char *message)
{
    rtcosim_component *c = load();
    rtcosim_csv *input = tu_csv(table);
    rtcosim_simulate_options o = {.start_time = 0, .stop_time = RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S, .input = input};
    rtcosim_error err;
    assert_int_not_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_OK);
    if (!strstr(err.message, message))
        fail_msg("\"%s\" lacks \"%s\"", err.message, message);
    rtcosim_component_free(c);
    rtcosim_csv_free(input);
}

static void clock_columns_hold_ticks_of_triggered_clocks_only(void **state)
{
    (void)state;
    expect_input_error("time,trigger\n0,0\n1,0.5\n",
                       ":3: column 'trigger': 0.5 is not a clock tick (a Clock column holds 0 or 1)");
    expect_input_error("time,trigger\n0,2\n", ":2: column 'trigger': 2 is not a clock tick");
    expect_input_error("time,fast\n0,1\n",
                       "column 'fast': only triggered input clocks tick from the input file; this "
                       "one is constant");
}

static void a_co_simulation_load_of_the_se_fmu_points_to_se(void **state)
{
    (void)state;
    rtcosim_component *c;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(RTCOSIM_FMU_TASKS_FMI3SE, NULL, &c, &err),
                     RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "Tasks-fmi3se.fmu: modelDescription.xml: the FMU supports "
                                        "only scheduled execution (FMI 3.0 chapter 5): load it "
                                        "with --interface-type se"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(partitions_tick_at_hand_computed_times_in_priority_order),
        cmocka_unit_test(ticks_between_rows_run_at_their_own_time),
        cmocka_unit_test(binary_over_max_size_and_wrong_interval_calls_are_refused),
        cmocka_unit_test(a_fixed_clock_runs_at_the_interval_the_importer_sets),
        cmocka_unit_test(do_step_runs_the_partitions_of_the_macro_step),
        cmocka_unit_test(clock_columns_hold_ticks_of_triggered_clocks_only),
        cmocka_unit_test(a_co_simulation_load_of_the_se_fmu_points_to_se),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
