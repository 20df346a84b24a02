/* FMI 3.0 Event Mode in a system (master events.c), with two of the
 * project's Events FMUs (models/events: impacts of the ball at 1, 2, 2.5,
 * 2.75, 2.875 s; counter ticks every 0.75 s, announced through
 * nextEventTime; level = counter + shift, recomputed in Event Mode).
 * Chain a.level -> b.shift with H = 0.5: the steps end at the ticks 0.75 and
 * 2.25 as well as on the grid, each event gives a row before and one after
 * it, and b.level = b.counter + a.level = 2 counter after the second round
 * of the iteration. Ring a.level -> b.shift -> b.level -> a.shift: every
 * round changes both, so the iteration must stop with an error naming both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

static void write_ssd(const char *path, bool ring, const char *source_a)
{
    const char *connectors =
        "<ssd:Connectors><ssd:Connector name=\"level\" kind=\"output\"><ssc:Integer/>"
        "</ssd:Connector><ssd:Connector name=\"shift\" kind=\"input\"><ssc:Integer/>"
        "</ssd:Connector></ssd:Connectors>";
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"ev\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
             " <ssd:System name=\"ev\"><ssd:Elements>\n"
             "  <ssd:Component name=\"a\" source=\"%s\">%s</ssd:Component>\n"
             "  <ssd:Component name=\"b\" source=\"%s\">%s</ssd:Component>\n"
             " </ssd:Elements><ssd:Connections>\n"
             "  <ssd:Connection startElement=\"a\" startConnector=\"level\" endElement=\"b\" "
             "endConnector=\"shift\"/>\n%s"
             " </ssd:Connections></ssd:System>\n"
             " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"3\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             source_a, connectors, RTCOSIM_FMU_EVENTS_FMI3, connectors,
             ring ? "  <ssd:Connection startElement=\"b\" startConnector=\"level\" "
                    "endElement=\"a\" endConnector=\"shift\"/>\n"
                  : "");
    tu_write_file(path, text);
}

typedef struct rows {
    char text[4096];
    size_t used;
} rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const double *v, size_t n,
                               rtcosim_error *err)
{
    (void)err;
    rows *r = context;
    r->used += (size_t)snprintf(r->text + r->used, sizeof r->text - r->used, "%g", rtcosim_time_to_seconds(t));
    for (size_t i = 0; i < n; i++)
        r->used += (size_t)snprintf(r->text + r->used, sizeof r->text - r->used, ",%g", v[i]);
    r->used += (size_t)snprintf(r->text + r->used, sizeof r->text - r->used, "\n");
    return RTCOSIM_OK;
}

static rtcosim_status run_system(bool ring, bool gauss_seidel, int threads, const char *source_a,
                                 const char *const *observe, size_t observe_count,
                                 const char *const *starts, rows *r, rtcosim_error *err)
{
    char *dir = tu_make_dir();
    const char *ssd = tu_path(dir, "ev.ssd");
    write_ssd(ssd, ring, source_a);
    rtcosim_system_desc *d = NULL;
    rtcosim_status st = rtcosim_system_desc_load(ssd, &d, err);
    if (st != RTCOSIM_OK)
        fail_msg("%s", err->message);
    rtcosim_fmu_options fo = {.event_mode_where_declared = true};
    rtcosim_system_build_options opts = {.fmu = &fo, .observe = observe,
                                         .observe_count = observe_count};
    opts.overrides.has_step_size = true;
    opts.overrides.step_size_ns = RTCOSIM_NS_PER_S / 2;
    opts.overrides.order = gauss_seidel ? RTCOSIM_SSD_ORDER_GAUSS_SEIDEL : RTCOSIM_SSD_ORDER_JACOBI;
    opts.overrides.threads = threads;
    rtcosim_master *m = NULL;
    st = rtcosim_system_build_master(d, &opts, &m, err);
    if (st != RTCOSIM_OK)
        fail_msg("%s", err->message);
    for (size_t i = 0; starts && starts[i]; i += 2)
        if ((st = rtcosim_master_set_start_value(m, starts[i], starts[i + 1], err)) != RTCOSIM_OK)
            fail_msg("%s", err->message);
    st = rtcosim_master_initialize(m, 0, 3 * RTCOSIM_NS_PER_S, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_master_run(m, 3 * RTCOSIM_NS_PER_S, keep_row, r, err);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    tu_drop_dir(dir);
    return st;
}

static const char *const observed[] = {"a.h", "a.v", "a.counter", "a.level", "b.level"};

static rtcosim_status run_ordered(bool ring, bool gauss_seidel, int threads, rows *r,
                                  rtcosim_error *err)
{
    return run_system(ring, gauss_seidel, threads, RTCOSIM_FMU_EVENTS_FMI3, observed, 5, NULL, r,
                      err);
}

static rtcosim_status run(bool ring, rows *r, rtcosim_error *err)
{
    return run_ordered(ring, false, 1, r, err);
}

static void steps_end_at_events_and_the_iteration_passes_values_on(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    if (run(false, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(r.text, "0,5,0,0,0,0\n"
                                "0.5,3.75,-5,0,0,0\n"
                                "0.75,2.1875,-7.5,0,0,0\n0.75,2.1875,-7.5,1,1,2\n"
                                "1,0,-10,1,1,2\n1,0,5,1,1,2\n"
                                "1.5,1.25,0,1,1,2\n1.5,1.25,0,2,2,4\n"
                                "2,0,-5,2,2,4\n2,0,2.5,2,2,4\n"
                                "2.25,0.3125,0,2,2,4\n2.25,0.3125,0,3,3,6\n"
                                "2.5,0,-2.5,3,3,6\n2.5,0,1.25,3,3,6\n"
                                "3,0,0,3,3,6\n3,0,0,4,4,8\n");
    /* Discrete values change only in Event Mode, so Gauss-Seidel order
     * and two threads give the same rows. */
    for (int k = 0; k < 2; k++) {
        rows other = {.used = 0};
        if (run_ordered(false, k == 0, k == 0 ? 1 : 2, &other, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_string_equal(other.text, r.text);
    }
}

static void an_iteration_that_never_settles_is_an_error_naming_the_components(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    assert_int_equal(run(true, &r, &err), RTCOSIM_ECOMPONENT);
    assert_string_equal(err.message, "master: event iteration did not settle after 100 rounds: "
                                     "'a', 'b' kept changing discrete states or connected inputs");
    /* It stopped at the first tick, 0.75 s, after the row before it. */
    assert_string_equal(r.text, "0,5,0,0,0,0\n0.5,3.75,-5,0,0,0\n0.75,2.1875,-7.5,0,0,0\n");
}

/* An input event: a (FMI 2.0, no Event Mode) handles its ticks inside its
 * steps, so its level changes at the step ends 1, 1.5, 2.5 and 3 s; b (FMI
 * 3.0, Event Mode) has no events of its own (h0 = 0: resting, period 10 s),
 * and sees each change as an input event: a row with the old shift, then
 * b.level = shift after the iteration. */
static void a_changed_discrete_input_is_an_event(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    const char *observe[] = {"a.level", "b.level"};
    const char *starts[] = {"b.h0", "0", "b.period", "10", NULL};
    if (run_system(false, false, 1, RTCOSIM_FMU_EVENTS_FMI2, observe, 2, starts, &r, &err) !=
        RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(r.text, "0,0,0\n0.5,0,0\n1,1,0\n1,1,1\n1.5,2,1\n1.5,2,2\n2,2,2\n"
                                "2.5,3,2\n2.5,3,3\n3,4,3\n3,4,4\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_end_at_events_and_the_iteration_passes_values_on),
        cmocka_unit_test(an_iteration_that_never_settles_is_an_error_naming_the_components),
        cmocka_unit_test(a_changed_discrete_input_is_an_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
