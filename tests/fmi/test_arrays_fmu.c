/* FMI 3.0 arrays end to end with the project's StateSpace FMU (models/
 * statespace: der(x) = A x + B u, y = C x + D u, m = 3, n = 2, r = 3, explicit
 * Euler with dt = 1e-3): results against the closed form of its Euler
 * recursion for diagonal A, x_i(N dt) = q^N x0_i + u_i (q^N - 1) / a_ii with
 * q = 1 + dt a_ii, y = C x + D u with the asymmetric C and D of its start
 * values (a transposed or misordered element changes y); CSV columns
 * y[1]..y[3]; start values as lists; inputs from CSV columns u[1], u[2]; a
 * get or set of several elements is one FMI call with whole arrays; a set of
 * one element keeps the others, also after an FMU state restore. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/csv.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/simulate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

static const double a[2] = {-1.0, -2.0}, x0[2] = {1.0, 1.0};

/* y at time t for constant u, B = [[1,0,0],[0,1,0]], C = [[c00,0],[0,1],[1,1]],
 * D = [[0,0,0],[0,0,0],[1,2,0]] (row-major "0 0 0 0 0 0 1 2 0"): u[3] must
 * not matter. */
static void expected_y(double t, const double u[3], double c00, double y[3])
{
    long n = lround(t / 1e-3);
    double x[2];
    for (int i = 0; i < 2; i++) {
        double qn = pow(1.0 + 1e-3 * a[i], (double)n);
        x[i] = qn * x0[i] + u[i] * (qn - 1.0) / a[i];
    }
    y[0] = c00 * x[0];
    y[1] = x[1];
    y[2] = x[0] + x[1] + 1.0 * u[0] + 2.0 * u[1];
}

static void check_results(const char *path, const double u[3], double c00)
{
    char *text = tu_read_file(path, NULL);
    char *line = strtok(text, "\n");
    assert_string_equal(line, "\"time\",\"y[1]\",\"y[2]\",\"y[3]\"");
    size_t rows = 0;
    while ((line = strtok(NULL, "\n"))) {
        double t, y[3], want[3];
        assert_int_equal(sscanf(line, "%lf,%lf,%lf,%lf", &t, &y[0], &y[1], &y[2]), 4);
        expected_y(t, u, c00, want);
        for (int k = 0; k < 3; k++)
            if (fabs(y[k] - want[k]) > 1e-12 * (1.0 + fabs(want[k])))
                fail_msg("t=%g y[%d]=%.17g, closed form %.17g", t, k + 1, y[k], want[k]);
        rows++;
    }
    assert_int_equal(rows, 11);
}

static rtcosim_component *load(bool trace)
{
    rtcosim_fmu_options opts = {.log_fmi_calls = trace};
    rtcosim_component *c;
    rtcosim_error err;
    if (rtcosim_fmu_load(RTCOSIM_FMU_STATESPACE_FMI3, &opts, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return c;
}

/* Simulates the StateSpace FMU 1 s in 0.1 s steps with these start values
 * or inputs, and checks the closed form for constant u and C scaled by scale. */
static void simulate_and_check(const rtcosim_start_value *sv, size_t sv_count, const char *input,
                               const double u[3], double scale)
{
    char *dir = tu_make_dir();
    char out[4096];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    rtcosim_csv *in = input ? tu_csv(input) : NULL;
    rtcosim_component *c = load(false);
    rtcosim_simulate_options o = {.stop_time = RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S / 10,
                                  .start_values = sv, .start_value_count = sv_count,
                                  .input = in, .output_file = out};
    rtcosim_error err;
    if (rtcosim_simulate(c, &o, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_component_free(c);
    rtcosim_csv_free(in);
    check_results(out, u, scale);
    tu_drop_dir(dir);
}

static void start_value_lists_give_the_closed_form(void **state)
{
    (void)state;
    const rtcosim_start_value sv[] = {{"u", "0.5 -1 4"}};
    simulate_and_check(sv, 1, NULL, (const double[]){0.5, -1.0, 4.0}, 1.0);
}

static void inputs_from_element_columns_give_the_closed_form(void **state)
{
    (void)state;
    simulate_and_check(NULL, 0, "time,u[1],u[2],u[3]\n0,2,0.25,-3\n1,2,0.25,-3\n",
                       (const double[]){2.0, 0.25, -3.0}, 1.0);
}

/* fmusim's layout: the column named by the array, its elements in one cell
 * separated by spaces, read with rtcosim_simulate_text_column (it keeps the
 * cell as text); the same closed form as from element columns. */
static void inputs_from_fmusim_array_cells_give_the_closed_form(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char out[4096];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    rtcosim_component *c = load(false);
    static const char text[] = "time,u\n0,2 0.25 -3\n1,\"2  0.25\t-3\"\n";
    rtcosim_csv *in = NULL;
    rtcosim_error err;
    if (rtcosim_csv_read_memory_text("in.csv", text, sizeof text - 1, rtcosim_simulate_text_column,
                                     c, &in, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_simulate_options o = {.stop_time = RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S / 10, .input = in,
                                  .output_file = out};
    if (rtcosim_simulate(c, &o, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_csv_column_count(in), 1); /* (the caller's table as it was) */
    rtcosim_csv_free(in);
    check_results(out, (const double[]){2.0, 0.25, -3.0}, 1.0);

    /* a cell of two values for an array of three: file, line and column */
    static const char short_cell[] = "time,u\n0,2 0.25 -3\n1,2 0.25\n";
    assert_int_equal(rtcosim_csv_read_memory_text("short.csv", short_cell, sizeof short_cell - 1,
                                                  rtcosim_simulate_text_column, c, &in, &err),
                     RTCOSIM_OK);
    o.input = in;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_EFORMAT);
    assert_string_equal(err.message, "short.csv:3: column 2 ('u'): 2 values, but the array has 3 "
                                     "elements (separated by spaces, in row-major order)");
    rtcosim_csv_free(in);
    rtcosim_component_free(c);
    tu_drop_dir(dir);
}

/* One element of C set alone (C[1,1] = 3): the FMU gets the whole C with
 * the other elements as they were, so only y[1] scales. */
static void one_element_set_keeps_the_other_elements(void **state)
{
    (void)state;
    const rtcosim_start_value sv[] = {{"C[1,1]", "3"}};
    simulate_and_check(sv, 1, NULL, (const double[]){0.0, 0.0, 0.0}, 3.0);
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* Elements of two arrays and a scalar in one get: one fmi3GetFloat64 with
 * the two array references and the scalar, nValues = 3 + 2 + 1. */
static void a_batch_of_elements_is_one_fmi_call_with_whole_arrays(void **state)
{
    (void)state;
    rtcosim_component *c = load(true);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_instantiate(c, "ss", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    const char *names[] = {"y[3]", "x[2]", "solver_step", "y[1]"};
    uint32_t vrs[4];
    for (int i = 0; i < 4; i++)
        vrs[i] = rtcosim_component_find_variable(c, names[i])->value_reference;
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    double v[4];
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, vrs, 4, v, &err), RTCOSIM_OK);
    assert_int_equal(count(tu_log_text(), "fmi3GetFloat64("), 1);
    assert_non_null(strstr(tu_log_text(), "fmi3GetFloat64(nValueReferences=3, nValues=6"));
    rtcosim_log_set_handler(NULL, NULL);
    /* At t = 0 with u = 0: x = x0 = (1, 1), y = (1, 1, 2). */
    assert_true(v[0] == 2.0 && v[1] == 1.0 && v[2] == 1e-3 && v[3] == 1.0);
    rtcosim_component_free(c);
}

static double y3_after_setting_u1(rtcosim_component *c, double u1)
{
    rtcosim_error err;
    uint32_t vr = rtcosim_component_find_variable(c, "u[1]")->value_reference;
    uint32_t y3 = rtcosim_component_find_variable(c, "y[3]")->value_reference;
    double y;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &u1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &y3, 1, &y, &err), RTCOSIM_OK);
    return y;
}

/* After an FMU state restore the FMU's u is the restored one: a set of u[1]
 * alone must keep the restored u[2], not the one set after the snapshot.
 * At t = 0, x = (1, 1): y[3] = 2 + u1 + 2 u2. */
static void partial_set_after_a_state_restore_keeps_the_restored_elements(void **state)
{
    (void)state;
    rtcosim_component *c = load(false);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_instantiate(c, "ss", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    uint32_t u[3];
    for (int i = 0; i < 3; i++)
        u[i] = rtcosim_component_find_variable(c, i == 0 ? "u[1]" : i == 1 ? "u[2]" : "u[3]")->value_reference;
    const double first[3] = {1, 2, 3}, later[3] = {4, 5, 6};
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, u, 3, first, &err), RTCOSIM_OK);
    rtcosim_state snapshot = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &snapshot, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, u, 3, later, &err), RTCOSIM_OK);
    assert_true(y3_after_setting_u1(c, 9) == 2 + 9 + 2 * 5.0); /* shadow: u2 = 5 */
    assert_int_equal(rtcosim_component_set_state(c, snapshot, &err), RTCOSIM_OK);
    assert_true(y3_after_setting_u1(c, 9) == 2 + 9 + 2 * 2.0); /* restored: u2 = 2 */
    rtcosim_component_free_state(c, snapshot);
    rtcosim_component_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_value_lists_give_the_closed_form),
        cmocka_unit_test(inputs_from_element_columns_give_the_closed_form),
        cmocka_unit_test(inputs_from_fmusim_array_cells_give_the_closed_form),
        cmocka_unit_test(one_element_set_keeps_the_other_elements),
        cmocka_unit_test(a_batch_of_elements_is_one_fmi_call_with_whole_arrays),
        cmocka_unit_test(partial_set_after_a_state_restore_keeps_the_restored_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
