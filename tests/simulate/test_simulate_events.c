/* rtcosim_simulate with FMI 3.0 Event Mode and early return, on the
 * project's Events FMU (bouncing ball + stair counter, models/events). With
 * g = -10, h0 = 5, e = 0.5, v_min = 0.5 the ball falls h = 5 - 5 t^2 and hits
 * the ground at t = 1 (v = -10), rebounds with 5, 2.5, 1.25, 0.625 m/s and
 * lands after 2v/10 s each: impacts at 1, 2, 2.5, 2.75, 2.875 s, resting at
 * 2.875 (0.3125 < v_min). The counter ticks every 0.75 s: 0.75, 1.5, 2.25, 3.
 * Every value is a binary fraction, so rows are compared as text.
 * Rows with Event Mode follow fmusim's FMI3CSSimulation: the values before
 * and after each event at the same time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/simulate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

static rtcosim_status run_with(const char *fmu, bool event_mode, bool early_return,
                               const rtcosim_start_value *sv, size_t svn,
                               const rtcosim_csv *input, char **rows,
                               rtcosim_simulate_result *res, rtcosim_error *err)
{
    rtcosim_fmu_options fo = {.event_mode_used = event_mode, .early_return_allowed = early_return};
    rtcosim_component *c;
    rtcosim_status st = rtcosim_fmu_load(fmu, &fo, &c, err);
    if (st != RTCOSIM_OK)
        return st;
    char *dir = tu_make_dir();
    char out[4096];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    rtcosim_simulate_options o = {.start_time = 0, .stop_time = 3 * RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S / 2, .output_file = out,
                                  .start_values = sv, .start_value_count = svn,
                                  .input = input};
    st = rtcosim_simulate(c, &o, res, err);
    *rows = st == RTCOSIM_OK ? tu_read_file(out, NULL) : NULL;
    rtcosim_component_free(c);
    tu_drop_dir(dir);
    return st;
}

static rtcosim_status run(const char *fmu, bool event_mode, bool early_return, char **rows,
                          rtcosim_simulate_result *res, rtcosim_error *err)
{
    return run_with(fmu, event_mode, early_return, NULL, 0, NULL, rows, res, err);
}

#define HEADER "\"time\",\"h\",\"v\",\"counter\",\"level\"\n"

/* Without Event Mode the FMU handles its events inside the steps; the rows
 * are on the 0.5 s grid (FMI 2.0 and 3.0 alike). */
static void without_event_mode_events_stay_inside_the_steps(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_EVENTS_FMI2, RTCOSIM_FMU_EVENTS_FMI3};
    for (int i = 0; i < 2; i++) {
        rtcosim_simulate_result res = {0};
        rtcosim_error err;
        char *rows;
        assert_int_equal(run(fmus[i], false, false, &rows, &res, &err), RTCOSIM_OK);
        assert_string_equal(rows, HEADER "0,5,0,0,0\n0.5,3.75,-5,0,0\n1,0,5,1,1\n"
                                         "1.5,1.25,0,2,2\n2,0,2.5,2,2\n2.5,0,1.25,3,3\n"
                                         "3,0,0,4,4\n");
        assert_int_equal(res.steps, 6);
        assert_int_equal(res.events, 0);
    }
}

/* Event Mode: the tick times come from nextEventTime (the step is shortened
 * to 0.75 and 2.25), impacts on the grid from eventHandlingNeeded; those
 * inside a step (2.75, 2.875) the FMU handles itself without early return. */
static void event_mode_writes_rows_before_and_after_each_event(void **state)
{
    (void)state;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    char *rows;
    assert_int_equal(run(RTCOSIM_FMU_EVENTS_FMI3, true, false, &rows, &res, &err), RTCOSIM_OK);
    assert_string_equal(rows, HEADER "0,5,0,0,0\n0.5,3.75,-5,0,0\n"
                                     "0.75,2.1875,-7.5,0,0\n0.75,2.1875,-7.5,1,1\n"
                                     "1,0,-10,1,1\n1,0,5,1,1\n"
                                     "1.5,1.25,0,1,1\n1.5,1.25,0,2,2\n"
                                     "2,0,-5,2,2\n2,0,2.5,2,2\n"
                                     "2.25,0.3125,0,2,2\n2.25,0.3125,0,3,3\n"
                                     "2.5,0,-2.5,3,3\n2.5,0,1.25,3,3\n"
                                     "3,0,0,3,3\n3,0,0,4,4\n");
    assert_int_equal(res.events, 7);
    assert_int_equal(res.steps, 8);
}

/* Early return with Event Mode: the steps end at the impacts inside them
 * too (lastSuccessfulTime), and the next step starts there. */
static void early_return_stops_at_every_event(void **state)
{
    (void)state;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    char *rows;
    assert_int_equal(run(RTCOSIM_FMU_EVENTS_FMI3, true, true, &rows, &res, &err), RTCOSIM_OK);
    assert_string_equal(rows, HEADER "0,5,0,0,0\n0.5,3.75,-5,0,0\n"
                                     "0.75,2.1875,-7.5,0,0\n0.75,2.1875,-7.5,1,1\n"
                                     "1,0,-10,1,1\n1,0,5,1,1\n"
                                     "1.5,1.25,0,1,1\n1.5,1.25,0,2,2\n"
                                     "2,0,-5,2,2\n2,0,2.5,2,2\n"
                                     "2.25,0.3125,0,2,2\n2.25,0.3125,0,3,3\n"
                                     "2.5,0,-2.5,3,3\n2.5,0,1.25,3,3\n"
                                     "2.75,0,-1.25,3,3\n2.75,0,0.625,3,3\n"
                                     "2.875,0,-0.625,3,3\n2.875,0,0,3,3\n"
                                     "3,0,0,3,3\n3,0,0,4,4\n");
    assert_int_equal(res.events, 9);

    /* Early return alone: one row per early return, the event already
     * handled by the FMU (no Event Mode). */
    assert_int_equal(run(RTCOSIM_FMU_EVENTS_FMI3, false, true, &rows, &res, &err), RTCOSIM_OK);
    assert_string_equal(rows, HEADER "0,5,0,0,0\n0.5,3.75,-5,0,0\n0.75,2.1875,-7.5,1,1\n"
                                     "1,0,5,1,1\n1.5,1.25,0,2,2\n2,0,2.5,2,2\n"
                                     "2.25,0.3125,0,3,3\n2.5,0,1.25,3,3\n2.75,0,0.625,3,3\n"
                                     "2.875,0,0,3,3\n3,0,0,4,4\n");
    assert_int_equal(res.events, 0);
}

/* FMI 3.0 section 4.2.2: eventModeUsed needs hasEventMode; the options are
 * FMI 3.0 co-simulation only. */
static void event_mode_of_an_fmu_without_it_is_refused_naming_the_fmu(void **state)
{
    (void)state;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    char *rows;
    assert_int_equal(run(RTCOSIM_FMU_DAHLQUIST_FMI3, true, false, &rows, &res, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, RTCOSIM_FMU_DAHLQUIST_FMI3));
    assert_non_null(strstr(err.message, "does not declare CoSimulation hasEventMode=\"true\""));
    assert_null(strchr(err.message, '\n'));
    assert_int_equal(run(RTCOSIM_FMU_EVENTS_FMI2, true, false, &rows, &res, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "event mode needs FMI 3.0 co-simulation; this is an "
                                        "FMI 2.0 FMU"));
    /* Early return on an FMU that cannot: a warning, and plain steps. */
    assert_int_equal(run(RTCOSIM_FMU_DAHLQUIST_FMI3, false, true, &rows, &res, &err),
                     RTCOSIM_OK);
    assert_int_equal(res.steps, 6);
}

/* An FMU whose fmi3UpdateDiscreteStates always answers
 * discreteStatesNeedUpdate = true: the iteration after initialization stops
 * after RTCOSIM_EVENT_ITERATION_LIMIT calls with one line naming it. */
static void an_event_iteration_that_never_settles_is_an_error_naming_the_fmu(void **state)
{
    (void)state;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    char *rows;
    rtcosim_start_value sv = {"never_settle", "true"};
    assert_int_equal(run_with(RTCOSIM_FMU_EVENTS_FMI3, true, false, &sv, 1, NULL, &rows, &res,
                              &err),
                     RTCOSIM_ECOMPONENT);
    assert_string_equal(err.message, "Events: simulation stopped at t = 0 s: Events: event "
                                     "iteration did not settle: discrete states still need an "
                                     "update after 100 fmi3UpdateDiscreteStates calls");
}

/* An input event: the discrete input shift goes from 0 to 5 at 1.25 s, off
 * the grid. With Event Mode the step ends there, the row before it has
 * level = counter + 0 = 1, the input is set in Event Mode and the row after
 * it has level = 1 + 5 = 6 (h = 5 (0.25) - 5 (0.25)^2 = 0.9375, v = 5 - 10
 * (0.25) = 2.5 after the bounce at 1); every later tick adds 1 to 6. */
static void an_input_event_is_handled_in_event_mode(void **state)
{
    (void)state;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    char *rows;
    rtcosim_csv *input = tu_csv("time,shift\n0,0\n1.25,5\n");
    assert_int_equal(run_with(RTCOSIM_FMU_EVENTS_FMI3, true, true, NULL, 0, input, &rows, &res,
                              &err),
                     RTCOSIM_OK);
    assert_string_equal(rows, HEADER "0,5,0,0,0\n0.5,3.75,-5,0,0\n"
                                     "0.75,2.1875,-7.5,0,0\n0.75,2.1875,-7.5,1,1\n"
                                     "1,0,-10,1,1\n1,0,5,1,1\n"
                                     "1.25,0.9375,2.5,1,1\n1.25,0.9375,2.5,1,6\n"
                                     "1.5,1.25,0,1,6\n1.5,1.25,0,2,7\n"
                                     "2,0,-5,2,7\n2,0,2.5,2,7\n"
                                     "2.25,0.3125,0,2,7\n2.25,0.3125,0,3,8\n"
                                     "2.5,0,-2.5,3,8\n2.5,0,1.25,3,8\n"
                                     "2.75,0,-1.25,3,8\n2.75,0,0.625,3,8\n"
                                     "2.875,0,-0.625,3,8\n2.875,0,0,3,8\n"
                                     "3,0,0,3,8\n3,0,0,4,9\n");
    assert_int_equal(res.events, 10);
    rtcosim_csv_free(input);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_event_mode_events_stay_inside_the_steps),
        cmocka_unit_test(event_mode_writes_rows_before_and_after_each_event),
        cmocka_unit_test(early_return_stops_at_every_event),
        cmocka_unit_test(event_mode_of_an_fmu_without_it_is_refused_naming_the_fmu),
        cmocka_unit_test(an_event_iteration_that_never_settles_is_an_error_naming_the_fmu),
        cmocka_unit_test(an_input_event_is_handled_in_event_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
