/* Runs built from SSP descriptions checked against independent truth: the
 * two-mass oscillator (B2 case 2, parameters from an .ssv) against the exact
 * solution exp(A t) z0 with first-order convergence of ZOH coupling; and the
 * vehicle example's physics against hand-computed road load. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oscillator.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "rtcosim/system.h"
#include "master/test_models.h"
#include "util/test_util.h"

#define assert_near(a, b, tol)                                                         \
    do {                                                                               \
        double a_ = (a), b_ = (b);                                                     \
        if (!(fabs(a_ - b_) <= (tol)))                                                 \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, (double)(tol)); \
    } while (0)

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tu_make_dir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_drop_dir(dir);
    return 0;
}

static const char oscillator_ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"osc\"\n"
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
    " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
    " <ssd:System name=\"two_masses\">\n"
    "  <ssd:ParameterBindings><ssd:ParameterBinding source=\"case2.ssv\"/></ssd:ParameterBindings>\n"
    "  <ssd:Elements>\n"
    "   <ssd:Component name=\"mass1\" source=\"rtcosim:oscillator.mass1\"><ssd:Connectors>\n"
    "    <ssd:Connector name=\"x\" kind=\"output\"><ssc:Real unit=\"m\"/></ssd:Connector>\n"
    "    <ssd:Connector name=\"v\" kind=\"output\"><ssc:Real unit=\"m/s\"/></ssd:Connector>\n"
    "    <ssd:Connector name=\"F\" kind=\"input\"><ssc:Real unit=\"N\"/></ssd:Connector>\n"
    "   </ssd:Connectors></ssd:Component>\n"
    "   <ssd:Component name=\"mass2\" source=\"rtcosim:oscillator.mass2\"><ssd:Connectors>\n"
    "    <ssd:Connector name=\"x1\" kind=\"input\"><ssc:Real unit=\"m\"/></ssd:Connector>\n"
    "    <ssd:Connector name=\"v1\" kind=\"input\"><ssc:Real unit=\"m/s\"/></ssd:Connector>\n"
    "    <ssd:Connector name=\"F\" kind=\"output\"><ssc:Real unit=\"N\"/></ssd:Connector>\n"
    "   </ssd:Connectors></ssd:Component>\n"
    "  </ssd:Elements>\n"
    "  <ssd:Connections>\n"
    "   <ssd:Connection startElement=\"mass1\" startConnector=\"x\" endElement=\"mass2\" endConnector=\"x1\"/>\n"
    "   <ssd:Connection startElement=\"mass1\" startConnector=\"v\" endElement=\"mass2\" endConnector=\"v1\"/>\n"
    "   <ssd:Connection startElement=\"mass2\" startConnector=\"F\" endElement=\"mass1\" endConnector=\"F\"/>\n"
    "  </ssd:Connections>\n"
    "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">\n"
    "   <rc:Master stepSize=\"0.001\" order=\"jacobi\" coupling=\"zoh\">\n"
    "    <rc:PowerBond effort=\"mass1.F\" flow=\"mass2.v1\"/></rc:Master>\n"
    "  </ssc:Annotation></ssd:Annotations>\n"
    " </ssd:System>\n"
    " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>\n"
    "</ssd:SystemStructureDescription>\n";

/* B2 case 2: all dampers 0.01 N s/m (the models' defaults are case 1, so a
 * match with the case-2 solution shows the parameter set was applied). */
static const char case2_ssv[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssv:ParameterSet version=\"1.0\" name=\"case2\"\n"
    " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
    " <ssv:Parameters>\n"
    "  <ssv:Parameter name=\"mass1.m\"><ssv:Real value=\"1\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass1.k\"><ssv:Real value=\"10\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass1.c\"><ssv:Real value=\"0.01\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass1.v0\"><ssv:Real value=\"100\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass2.k\"><ssv:Real value=\"1000\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass2.c\"><ssv:Real value=\"0.01\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass2.kc\"><ssv:Real value=\"100\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass2.cc\"><ssv:Real value=\"0.01\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"mass2.v0\"><ssv:Real value=\"-100\"/></ssv:Parameter>\n"
    " </ssv:Parameters>\n"
    "</ssv:ParameterSet>\n";

typedef struct error_track {
    rtcosim_oscillator_params p;
    double max_error;
    size_t rows;
    /* The exact solution at t_z, and exp(A H): z(t + H) = exp(A H) z(t)
     * takes a 4x4 product per row where exp(A t) z(0) took an exponential
     * (1.5 ms a row in the sanitizer build: 75 s of this test). */
    double eh[4][4], z[4];
    rtcosim_time_ns t_z, h;
} error_track;

static void start_error_track(error_track *e, int case_number, rtcosim_time_ns h)
{
    rtcosim_oscillator_case(case_number, &e->p);
    double a[4][4];
    rtcosim_oscillator_matrix(&e->p, a);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] *= rtcosim_time_to_seconds(h);
    rtcosim_expm4(a, e->eh);
    rtcosim_oscillator_exact(&e->p, 0, e->z);
    e->t_z = 0;
    e->h = h;
}

/* Observed: mass1.x, mass1.v, mass2.F (connected outputs, connection order). */
static rtcosim_status track_error(void *context, rtcosim_time_ns t, const double *values,
                                  size_t count, rtcosim_error *err)
{
    (void)err;
    error_track *e = context;
    assert_int_equal(count, 3);
    if (t == e->t_z + e->h) { /* the next macro step */
        double next[4];
        for (int i = 0; i < 4; i++)
            next[i] = e->eh[i][0] * e->z[0] + e->eh[i][1] * e->z[1] + e->eh[i][2] * e->z[2] +
                      e->eh[i][3] * e->z[3];
        memcpy(e->z, next, sizeof next);
        e->t_z = t;
    } else if (t != e->t_z) {
        rtcosim_oscillator_exact(&e->p, rtcosim_time_to_seconds(t), e->z);
        e->t_z = t;
    }
    const double *z = e->z;
    double dx = fabs(values[0] - z[0]);
    if (dx > e->max_error)
        e->max_error = dx;
    e->rows++;
    return RTCOSIM_OK;
}

/* Runs an oscillator system to 1 s with ZOH, Jacobi, no correction at the
 * given step; returns the largest error of mass1.x against B2 case `case_number`. */
static double run_oscillator_file(const char *path, int case_number, rtcosim_time_ns step,
                                  size_t *rows)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"mass1.x", "mass1.v", "mass2.F"};
    rtcosim_system_build_options opts = {
        .overrides = {.has_step_size = true, .step_size_ns = step,
                      .order = RTCOSIM_SSD_ORDER_JACOBI, .coupling = RTCOSIM_SSD_COUPLING_ZOH,
                      .correction = RTCOSIM_SSD_CORRECTION_NONE},
        .observe = observe, .observe_count = 3};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    error_track e = {0};
    start_error_track(&e, case_number, step);
    rtcosim_time_ns stop = RTCOSIM_NS_PER_S;
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, stop, track_error, &e, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_time(m), RTCOSIM_NS_PER_S);
    assert_int_equal(rtcosim_master_bond_count(m), 1); /* from the annotation */
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    *rows = e.rows;
    return e.max_error;
}

static double run_oscillator(rtcosim_time_ns step, size_t *rows)
{
    char path[400];
    snprintf(path, sizeof path, "%s/osc.ssd", dir);
    return run_oscillator_file(path, 2, step, rows);
}

static void test_oscillator_from_ssd_converges_to_exact_solution(void **state)
{
    (void)state;
    tu_write_file(tu_path(dir, "osc.ssd"), oscillator_ssd);
    tu_write_file(tu_path(dir, "case2.ssv"), case2_ssv);
    size_t rows_coarse = 0, rows_fine = 0;
    double coarse = run_oscillator(100 * RTCOSIM_NS_PER_US, &rows_coarse);
    double fine = run_oscillator(50 * RTCOSIM_NS_PER_US, &rows_fine);
    assert_int_equal(rows_coarse, 10001); /* t = 0 and every macro step to 1 s */
    assert_int_equal(rows_fine, 20001);
    /* Amplitude of x1 is about 100 / 33 = 3 m; at H = 50 us the coupling
     * error stays below 1 % of it, and ZOH coupling is first order in H:
     * halving H halves the error (ratio 2 within 15 %). */
    assert_true(fine < 0.03);
    double ratio = coarse / fine;
    if (ratio < 1.7 || ratio > 2.3)
        fail_msg("error ratio %.3f for H and H/2 (errors %.3g, %.3g), expected ~2", ratio, coarse,
                 fine);
}

#ifdef OSCILLATOR_SSD
/* The oscillator example's own system file with its case-1 parameter set. */
static void test_oscillator_example_ssd_matches_exact_solution(void **state)
{
    (void)state;
    size_t rows = 0;
    double error = run_oscillator_file(OSCILLATOR_SSD, 1, 50 * RTCOSIM_NS_PER_US, &rows);
    assert_int_equal(rows, 20001);
    assert_true(error < 0.03); /* under 1 % of the ~3 m amplitude at H = 50 us */
}
#endif

/* ---- vehicle physics ----------------------------------------------------- */

static rtcosim_component *make_body(double v0, double crr, double grade)
{
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_native_create("rtcosim:vehicle.body", &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_component_instantiate(c, "body", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    const char *names[] = {"v_initial", "crr", "grade", "traction_force"};
    double values[] = {v0, crr, grade, 0.0};
    for (int i = 0; i < 4; i++) {
        const rtcosim_variable *v = rtcosim_component_find_variable(c, names[i]);
        assert_non_null(v);
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1,
                                               &values[i], &err),
                         RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    return c;
}

static double get(rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    assert_non_null(v);
    double value = 0;
    rtcosim_error err;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1, &value, &err),
                     RTCOSIM_OK);
    return value;
}

static void test_vehicle_coast_down_deceleration_at_start(void **state)
{
    (void)state;
    /* 100 km/h, no traction, flat: a = -(F_aero + F_roll) / m_eff with
     * F_aero = 0.5 * 1.2 * 0.7 * (100/3.6)^2 = 324.0741 N,
     * F_roll = 0.012 * 1500 * 9.81 = 176.58 N,
     * m_eff = 1500 + 4 / 0.31^2 = 1541.6233 kg  ->  a = -500.6541 / 1541.6233
     * = -0.324758 m/s^2. */
    double v0 = 100.0 / 3.6;
    rtcosim_component *c = make_body(v0, 0.012, 0.0);
    double f_aero = 0.5 * 1.2 * 0.7 * v0 * v0;
    double f_roll = 0.012 * 1500.0 * 9.81;
    double m_eff = 1500.0 + 4.0 / (0.31 * 0.31);
    assert_near(get(c, "aero_force"), 324.07407407407, 1e-9);
    assert_near(get(c, "rolling_force"), 176.58, 1e-9);
    assert_near(get(c, "acceleration"), -(f_aero + f_roll) / m_eff, 1e-12);
    assert_near(get(c, "acceleration"), -0.324758, 1e-6);
    rtcosim_component_free(c);
}

static void test_vehicle_aero_coast_down_follows_closed_form(void **state)
{
    (void)state;
    /* Without rolling resistance: m_eff dv/dt = -k v^2, k = 0.5 rho CdA,
     * so v(t) = v0 / (1 + k v0 t / m_eff). 20 s in 10 ms RK4 steps. */
    double v0 = 100.0 / 3.6;
    rtcosim_component *c = make_body(v0, 0.0, 0.0);
    rtcosim_error err;
    rtcosim_step_result r;
    for (int i = 0; i < 2000; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 10 * RTCOSIM_NS_PER_MS,
                                                    10 * RTCOSIM_NS_PER_MS, &r, &err),
                         RTCOSIM_OK);
    double k = 0.5 * 1.2 * 0.7, m_eff = 1500.0 + 4.0 / (0.31 * 0.31);
    double exact = v0 / (1.0 + k * v0 * 20.0 / m_eff);
    assert_near(get(c, "speed"), exact, 1e-9);
    /* distance: (m_eff / k) ln(1 + k v0 t / m_eff) */
    assert_near(get(c, "distance"), m_eff / k * log(1.0 + k * v0 * 20.0 / m_eff), 1e-6);
    rtcosim_component_free(c);
}

typedef struct last_row {
    double values[8];
} last_row;

static rtcosim_status keep_last(void *context, rtcosim_time_ns t, const double *values,
                                size_t count, rtcosim_error *err)
{
    (void)t, (void)err;
    last_row *l = context;
    memcpy(l->values, values, count * sizeof *values);
    return RTCOSIM_OK;
}

/* The vehicle example at constant set speed, on the flat or on a grade: in
 * steady state the traction force the drivetrain delivers equals the road
 * load computed by hand at the reached speed, and the cruise controller's
 * integrator has removed the speed error. */
static void check_steady_cruise(double grade_percent)
{
    char params[1024];
    snprintf(params, sizeof params,
             "<?xml version=\"1.0\"?>\n"
             "<ssv:ParameterSet version=\"1.0\" name=\"steady\" "
             "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\"><ssv:Parameters>\n"
             "<ssv:Parameter name=\"scenario.v_set_initial\"><ssv:Real value=\"90\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"scenario.v_set_final\"><ssv:Real value=\"90\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"scenario.grade_percent\"><ssv:Real value=\"%g\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"scenario.t_grade_start\"><ssv:Real value=\"0\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"scenario.t_grade_end\"><ssv:Real value=\"1000\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"body.v_initial\"><ssv:Real value=\"25\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"ecu.throttle_initial\"><ssv:Real value=\"%g\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"engine.rpm_initial\"><ssv:Real value=\"2100\"/></ssv:Parameter>\n"
             "</ssv:Parameters></ssv:ParameterSet>\n",
             grade_percent, grade_percent > 0 ? 0.6 : 0.35);
    tu_write_file(tu_path(dir, "steady.ssv"), params);
    char ssv[400];
    snprintf(ssv, sizeof ssv, "%s/steady.ssv", dir);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(VEHICLE_SSD, &d, &err) != RTCOSIM_OK ||
        rtcosim_system_desc_apply_parameter_set(d, ssv, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"body.speed", "transmission.traction_force", "body.acceleration"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 3};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    last_row last = {{0}};
    /* Started near the operating point (only to keep the test short; the
     * balance checked holds whatever the start). */
    rtcosim_time_ns stop = 40 * RTCOSIM_NS_PER_S;
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, stop, keep_last, &last, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    double v = last.values[0], traction = last.values[1], accel = last.values[2];
    double theta = atan(grade_percent / 100.0);
    double road_load = 0.5 * 1.2 * 0.7 * v * v + 0.012 * 1500.0 * 9.81 * cos(theta) +
                       1500.0 * 9.81 * sin(theta);
    assert_near(v, 90.0 / 3.6, 0.05);
    assert_near(accel, 0.0, 2e-3);
    /* Residual: m_eff * a, at most 1541.6 * 2e-3 = 3 N, plus 1 % margin. */
    assert_near(traction, road_load, 0.01 * road_load + 3.1);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

static void test_vehicle_steady_cruise_traction_equals_road_load(void **state)
{
    (void)state;
    check_steady_cruise(0.0);
}

static void test_vehicle_steady_climb_traction_equals_road_load(void **state)
{
    (void)state;
    check_steady_cruise(4.0);
}

/* The stepInput setting travels from the annotation, and from the command
 * line's override over it, to the connection: y = t^2 sampled every second
 * into a black box that logs its input per step, FOH, Jacobi. Over step k
 * the line through (k-1, (k-1)^2) and (k, k^2) is k^2 + (2k - 1) s: "start"
 * gives k^2, "mean" k^2 + k - 1/2 (step 0 holds the one sample, 0). */
static const char step_input_ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"si\"\n"
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
    " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
    " <ssd:System name=\"si\">\n"
    "  <ssd:Elements>\n"
    "   <ssd:Component name=\"sq\" source=\"rtcosim:test.square\"><ssd:Connectors>\n"
    "    <ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
    "   </ssd:Connectors></ssd:Component>\n"
    "   <ssd:Component name=\"rec\" source=\"rtcosim:test.recorder\"><ssd:Connectors>\n"
    "    <ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
    "   </ssd:Connectors></ssd:Component>\n"
    "  </ssd:Elements>\n"
    "  <ssd:Connections>\n"
    "   <ssd:Connection startElement=\"sq\" startConnector=\"y\" endElement=\"rec\" endConnector=\"u\"/>\n"
    "  </ssd:Connections>\n"
    "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">\n"
    "   <rc:Master stepSize=\"1\" order=\"jacobi\" coupling=\"foh\" stepInput=\"start\"/>\n"
    "  </ssc:Annotation></ssd:Annotations>\n"
    " </ssd:System>\n"
    "</ssd:SystemStructureDescription>\n";

static void run_step_input_system(rtcosim_ssd_step_input override, double log[4])
{
    rtcosim_error err = {0};
    rtcosim_native_register_model(&square_model, NULL);
    rtcosim_native_register_model(&recorder_model, NULL);
    rtcosim_system_desc *d = NULL;
    if (rtcosim_system_desc_parse(step_input_ssd, sizeof step_input_ssd - 1, dir, "si.ssd", &d,
                                  &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_system_build_options opts = {.overrides = {.step_input = override}};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, 4 * RTCOSIM_NS_PER_S, NULL, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const recorder_data *r = rtcosim_native_data(rtcosim_master_component(m, "rec"));
    assert_true(r->steps == 4);
    memcpy(log, r->log, 4 * sizeof(double));
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

static void test_step_input_from_annotation_and_override(void **state)
{
    (void)state;
    double log[4];
    run_step_input_system(RTCOSIM_SSD_STEP_INPUT_DEFAULT, log); /* the annotation: start */
    for (int k = 0; k < 4; k++)
        assert_near(log[k], k * k, 1e-12);
    run_step_input_system(RTCOSIM_SSD_STEP_INPUT_MEAN, log);
    assert_near(log[0], 0, 1e-12);
    for (int k = 1; k < 4; k++)
        assert_near(log[k], k * k + k - 0.5, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oscillator_from_ssd_converges_to_exact_solution),
#ifdef OSCILLATOR_SSD
        cmocka_unit_test(test_oscillator_example_ssd_matches_exact_solution),
#endif
        cmocka_unit_test(test_vehicle_coast_down_deceleration_at_start),
        cmocka_unit_test(test_vehicle_aero_coast_down_follows_closed_form),
        cmocka_unit_test(test_vehicle_steady_cruise_traction_equals_road_load),
        cmocka_unit_test(test_vehicle_steady_climb_traction_equals_road_load),
        cmocka_unit_test(test_step_input_from_annotation_and_override),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
