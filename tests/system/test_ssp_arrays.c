/* An SSP connection between two FMI 3.0 arrays connects them element by
 * element: two instances of the project's StateSpace FMU chained a.y -> b.u
 * (both 3 elements) under Gauss-Seidel with ZOH; at every macro step each
 * b.u[k] equals a.y[k] of the same instant (a steps first), pairing the
 * elements by their indices, and a.y follows StateSpace's closed form (also
 * with a.u given as a list start value). An array connected to a scalar is
 * refused naming both. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"

static char ssd[4096];

static const char *system_with(const char *to_connector)
{
    snprintf(ssd, sizeof ssd,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"chain\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
             " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
             " <ssd:System name=\"chain\">\n"
             "  <ssd:Elements>\n"
             "   <ssd:Component name=\"a\" source=\"%s\"><ssd:Connectors>\n"
             "    <ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "   </ssd:Connectors></ssd:Component>\n"
             "   <ssd:Component name=\"b\" source=\"%s\"><ssd:Connectors>\n"
             "    <ssd:Connector name=\"%s\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
             "   </ssd:Connectors></ssd:Component>\n"
             "  </ssd:Elements>\n"
             "  <ssd:Connections>\n"
             "   <ssd:Connection startElement=\"a\" startConnector=\"y\" endElement=\"b\" endConnector=\"%s\"/>\n"
             "  </ssd:Connections>\n"
             "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">\n"
             "   <rc:Master stepSize=\"0.1\" order=\"gauss-seidel\" coupling=\"zoh\"/></ssc:Annotation></ssd:Annotations>\n"
             " </ssd:System>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_STATESPACE_FMI3, RTCOSIM_FMU_STATESPACE_FMI3, to_connector, to_connector);
    return ssd;
}

typedef struct seen {
    size_t rows;
    double worst;
    double u[3]; /* a's input */
} seen;

/* values: a.y[1..3], b.u[1..3] */
static rtcosim_status compare(void *context, rtcosim_time_ns t, const double *v, size_t count,
                              rtcosim_error *err)
{
    (void)err;
    seen *s = context;
    assert_int_equal(count, 6);
    /* x_i = q^N x0_i + u_i (q^N - 1) / a_ii, y = (x1, x2, x1 + x2 + u1 + 2 u2). */
    long n = lround(rtcosim_time_to_seconds(t) / 1e-3);
    double q1 = pow(0.999, (double)n), q2 = pow(0.998, (double)n);
    double x1 = q1 + s->u[0] * (q1 - 1.0) / -1.0, x2 = q2 + s->u[1] * (q2 - 1.0) / -2.0;
    const double y[3] = {x1, x2, x1 + x2 + s->u[0] + 2.0 * s->u[1]};
    for (int k = 0; k < 3; k++) {
        double d = fabs(v[k] - y[k]) + fabs(v[3 + k] - v[k]);
        if (d > s->worst)
            s->worst = d;
    }
    s->rows++;
    return RTCOSIM_OK;
}

static void run_chain(const char *u_list, const double u[3])
{
    const char *xml = system_with("u");
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(xml, strlen(xml), ".", "chain.ssd", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"a.y", "b.u"}; /* whole arrays: their elements */
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 2};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_connection_count(m), 3);
    assert_int_equal(rtcosim_master_observed_count(m), 6);
    assert_string_equal(rtcosim_master_observed_name(m, 5), "b.u[3]");
    seen s = {0, 0, {u[0], u[1], u[2]}};
    if (u_list && rtcosim_master_set_start_value(m, "a.u", u_list, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    if (rtcosim_master_initialize(m, 0, RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, RTCOSIM_NS_PER_S, compare, &s, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(s.rows, 11);
    if (s.worst > 1e-12)
        fail_msg("largest deviation %g", s.worst);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

static void array_connection_pairs_elements_by_index(void **state)
{
    (void)state;
    run_chain(NULL, (const double[]){0, 0, 0});
}

/* A start value for a whole array is a row-major list (here a.u). */
static void array_start_value_is_a_list(void **state)
{
    (void)state;
    run_chain("0.5 -1 4", (const double[]){0.5, -1, 4});
    const char *xml = system_with("u");
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_system_desc_parse(xml, strlen(xml), ".", "chain.ssd", &d, &err), RTCOSIM_OK);
    rtcosim_master *m = NULL;
    assert_int_equal(rtcosim_system_build_master(d, NULL, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "a.u", "1 2", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "start value for 'a.u': the array has 3 elements, 2 values given"));
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

static void array_connected_to_a_scalar_is_refused(void **state)
{
    (void)state;
    const char *xml = system_with("u[1]"); /* one element: a scalar */
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(xml, strlen(xml), ".", "chain.ssd", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master *m = NULL;
    assert_int_not_equal(rtcosim_system_build_master(d, NULL, &m, &err), RTCOSIM_OK);
    if (!strstr(err.message, "chain.ssd:16: connection a.y -> b.u[1]: 'y' is an array of 3 "
                             "elements, 'u[1]' is no array"))
        fail_msg("%s", err.message);
    rtcosim_system_desc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_connection_pairs_elements_by_index),
        cmocka_unit_test(array_start_value_is_a_list),
        cmocka_unit_test(array_connected_to_a_scalar_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
