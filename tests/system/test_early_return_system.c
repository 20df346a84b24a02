/* FMI 3.0 early return in a system (master step.c): the project's Events
 * FMU (models/events, FMI 3.0, canReturnEarlyAfterIntermediateUpdate and
 * canGetAndSetFMUState) twice with early return allowed, and its FMI 2.0
 * build, which handles its events inside its steps and cannot return early.
 * Macro step H = 0.4 s, stop 3 s, no Event Mode (events are handled inside
 * the FMUs' steps; an early-returning one stops its step at the event).
 *
 * Worked out by hand (g = -10, e = 0.5, closed-form flight):
 * - a (defaults: h0 = 5, period 0.75): impacts at 1, 2, 2.5, 2.75, 2.875 s
 *   (rest), ticks at 0.75, 1.5, 2.25, 3 s;
 * - b (h0 = 1.25, period 0.5): impacts at 0.5, 1, 1.25, 1.375 s (rebounds
 *   2.5, 1.25, 0.625 m/s, then 0.3125 < v_min: rest), ticks every 0.5 s;
 * - c (FMI 2.0, defaults): a's ball and counter, never returns early.
 * A returner stepping [t, next grid point] returns early at its first event
 * strictly inside; the step ends there for all. So the rows are the grid
 * 0.4 k and every event time of a or b, each once. Rollbacks happen: in
 * [0.4, 0.8] a stops at 0.75, then b at 0.5, so a is set back to 0.4 and
 * stepped again to 0.5 (likewise at 1.25 and 1.375, where a had reached
 * 1.5). c's values equal a's at every row: it was stepped to the same
 * instants. */
#include <math.h>
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

static void write_ssd(const char *path)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"er\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
             " <ssd:System name=\"er\"><ssd:Elements>\n"
             "  <ssd:Component name=\"a\" source=\"%s\"/>\n"
             "  <ssd:Component name=\"b\" source=\"%s\"/>\n"
             "  <ssd:Component name=\"c\" source=\"%s\"/>\n"
             " </ssd:Elements></ssd:System>\n"
             " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"3\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_EVENTS_FMI3, RTCOSIM_FMU_EVENTS_FMI3, RTCOSIM_FMU_EVENTS_FMI2);
    tu_write_file(path, text);
}

typedef struct rows {
    char text[8192];
    size_t used;
} rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const double *v, size_t n,
                               rtcosim_error *err)
{
    (void)err;
    rows *r = context;
    r->used += (size_t)snprintf(r->text + r->used, sizeof r->text - r->used, "%g",
                                rtcosim_time_to_seconds(t));
    /* heights the FMUs' double arithmetic leaves within 1e-12 m of the
     * ground (the flight ends a few ulps from the impact) print as 0 */
    for (size_t i = 0; i < n; i++)
        r->used += (size_t)snprintf(r->text + r->used, sizeof r->text - r->used, ",%g",
                                    fabs(v[i]) < 1e-12 ? 0.0 : v[i]);
    r->used += (size_t)snprintf(r->text + r->used, sizeof r->text - r->used, "\n");
    return RTCOSIM_OK;
}

static const char *const observed[] = {"a.h", "a.counter", "b.h", "b.counter", "c.h", "c.counter"};

typedef struct setup {
    bool early_return, gauss_seidel, step_control, event_mode;
} setup;

static rtcosim_status run(setup s, rows *r, uint64_t *early_returns, rtcosim_error *err)
{
    char *dir = tu_make_dir();
    const char *ssd = tu_path(dir, "er.ssd");
    write_ssd(ssd);
    rtcosim_system_desc *d = NULL;
    if (rtcosim_system_desc_load(ssd, &d, err) != RTCOSIM_OK)
        fail_msg("%s", err->message);
    rtcosim_fmu_options fo = {.early_return_where_declared = s.early_return,
                              .event_mode_where_declared = s.event_mode};
    rtcosim_system_build_options opts = {.fmu = &fo, .observe = observed, .observe_count = 6};
    opts.overrides.has_step_size = true;
    opts.overrides.step_size_ns = 400 * RTCOSIM_NS_PER_MS;
    opts.overrides.order = s.gauss_seidel ? RTCOSIM_SSD_ORDER_GAUSS_SEIDEL : RTCOSIM_SSD_ORDER_JACOBI;
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, err) != RTCOSIM_OK)
        fail_msg("%s", err->message);
    rtcosim_status st = RTCOSIM_OK;
    if (s.step_control) {
        rtcosim_step_control sc;
        rtcosim_step_control_init(&sc);
        sc.enabled = true;
        st = rtcosim_master_set_step_control(m, &sc, err);
    }
    if (st == RTCOSIM_OK &&
        (st = rtcosim_master_set_start_value(m, "b.h0", "1.25", err)) == RTCOSIM_OK)
        st = rtcosim_master_set_start_value(m, "b.period", "0.5", err);
    if (st == RTCOSIM_OK)
        st = rtcosim_master_initialize(m, 0, 3 * RTCOSIM_NS_PER_S, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_master_run(m, 3 * RTCOSIM_NS_PER_S, keep_row, r, err);
    if (early_returns)
        *early_returns = rtcosim_master_early_return_count(m);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    tu_drop_dir(dir);
    return st;
}

static const char *const expected =
    "0,5,0,1.25,0,5,0\n"
    "0.4,4.2,0,0.45,0,4.2,0\n"
    "0.5,3.75,0,0,1,3.75,0\n"           /* b: impact and tick */
    "0.75,2.1875,1,0.3125,1,2.1875,1\n" /* a: tick */
    "0.8,1.8,1,0.3,1,1.8,1\n"
    "1,0,1,0,2,0,1\n"                   /* a and b: impacts; b: tick */
    "1.2,0.8,1,0.05,2,0.8,1\n"
    "1.25,0.9375,1,0,2,0.9375,1\n"      /* b: impact */
    "1.375,1.17188,1,0,2,1.17188,1\n"   /* b: comes to rest */
    "1.5,1.25,2,0,3,1.25,2\n"           /* a and b: ticks */
    "1.6,1.2,2,0,3,1.2,2\n"
    "2,0,2,0,4,0,2\n"                   /* on the grid: a impact, b tick */
    "2.25,0.3125,3,0,4,0.3125,3\n"
    "2.4,0.2,3,0,4,0.2,3\n"
    "2.5,0,3,0,5,0,3\n"
    "2.75,0,3,0,5,0,3\n"
    "2.8,0.01875,3,0,5,0.01875,3\n"
    "2.875,0,3,0,5,0,3\n"               /* a comes to rest */
    "3,0,4,0,6,0,4\n";

static void steps_end_where_an_fmu_returns_early_and_the_others_follow(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    uint64_t early = 0;
    if (run((setup){.early_return = true}, &r, &early, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(r.text, expected);
    /* the events strictly inside a grid interval: 0.5, 0.75, 1, 1.25,
     * 1.375, 1.5, 2.25, 2.5, 2.75, 2.875; plus the early returns of a that
     * a rollback undid: at 0.75 once (b's 0.5 came first) and at 1.5 twice
     * (b's 1.25 and 1.375) */
    assert_int_equal(early, 13);
}

static void gauss_seidel_order_gives_the_same_rows(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    if (run((setup){.early_return = true, .gauss_seidel = true}, &r, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(r.text, expected);
}

/* With Event Mode too, the FMUs that returned early hand their events to the
 * master (eventHandlingNeeded): a row before and one after each event, the
 * counters stepping at the ticks worked out above. An event a hair after an
 * instant (the FMU's double time) returns at that instant itself: the
 * others stay there and it is handled there (more rows at that instant). */
static void with_event_mode_the_events_are_handled_where_the_steps_ended(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    if (run((setup){.early_return = true, .event_mode = true}, &r, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* a's tick at 0.75: before and after (b's tick at 0.5 came first) */
    assert_non_null(strstr(r.text, "\n0.75,2.1875,0,0.3125,1,2.1875,1\n"
                                   "0.75,2.1875,1,0.3125,1,2.1875,1\n0.8,"));
    /* a's tick at 1.5 with b's, at 2.25 a's alone */
    assert_non_null(strstr(r.text, "\n1.5,1.25,1,0,2,1.25,2\n1.5,1.25,2,0,3,1.25,2\n1.6,"));
    assert_non_null(strstr(r.text, "\n2.25,0.3125,2,0,4,0.3125,3\n2.25,0.3125,3,0,4,0.3125,3\n"));
    /* the last row: every tick counted, the balls at rest */
    size_t n = strlen(r.text);
    assert_true(n > 20);
    assert_string_equal(r.text + n - strlen("\n3,0,4,0,6,0,4\n"), "\n3,0,4,0,6,0,4\n");
}

/* Without early return the steps stay on the grid and the FMUs handle their
 * events inside them: rows at 0.4 k only. */
static void without_the_option_the_steps_stay_on_the_grid(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    uint64_t early = 1;
    if (run((setup){0}, &r, &early, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(early, 0);
    assert_non_null(strstr(r.text, "\n0.4,4.2,0,0.45,0,4.2,0\n0.8,1.8,1,0.3,1,1.8,1\n1.2,"));
    assert_null(strstr(r.text, "\n0.5,"));
}

static void step_control_with_early_return_is_refused_naming_the_fmu(void **state)
{
    (void)state;
    rows r = {.used = 0};
    rtcosim_error err;
    assert_int_equal(run((setup){.early_return = true, .step_control = true}, &r, NULL, &err),
                     RTCOSIM_EUNSUPPORTED);
    assert_string_equal(err.message,
                        "master: component 'a' may return early (earlyReturnAllowed), which "
                        "needs every component on the base macro step, without step control "
                        "and in one process");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_end_where_an_fmu_returns_early_and_the_others_follow),
        cmocka_unit_test(gauss_seidel_order_gives_the_same_rows),
        cmocka_unit_test(with_event_mode_the_events_are_handled_where_the_steps_ended),
        cmocka_unit_test(without_the_option_the_steps_stay_on_the_grid),
        cmocka_unit_test(step_control_with_early_return_is_refused_naming_the_fmu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
