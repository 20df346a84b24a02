/* Automatic unit conversion on connections (SSP 1.0: both units in
 * ssd:Units with equal base-unit exponents; SI = factor * x + offset) against
 * hand-computed values, with an offset: degF -> degC maps 212 to 100 and 32
 * to 0; through a nested system's connector in degC on to an input in K the
 * composed conversion maps 212 degF to 373.15 K. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/system.h"

static const char ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"u\"\n"
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
    " <ssd:Units>\n"
    "  <ssc:Unit name=\"K\"><ssc:BaseUnit K=\"1\"/></ssc:Unit>\n"
    "  <ssc:Unit name=\"degC\"><ssc:BaseUnit K=\"1\" offset=\"273.15\"/></ssc:Unit>\n"
    "  <ssc:Unit name=\"degF\"><ssc:BaseUnit K=\"1\" factor=\"0.55555555555555556\" "
    "offset=\"255.37222222222222\"/></ssc:Unit>\n"
    " </ssd:Units>\n"
    " <ssd:System name=\"s\"><ssd:Elements>\n"
    "  <ssd:Component name=\"src\" source=\"rtcosim:any\"><ssd:Connectors>\n"
    "   <ssd:Connector name=\"T\" kind=\"output\"><ssc:Real unit=\"degF\"/></ssd:Connector>\n"
    "  </ssd:Connectors></ssd:Component>\n"
    "  <ssd:Component name=\"gauge\" source=\"rtcosim:any\"><ssd:Connectors>\n"
    "   <ssd:Connector name=\"T\" kind=\"input\"><ssc:Real unit=\"degC\"/></ssd:Connector>\n"
    "  </ssd:Connectors></ssd:Component>\n"
    "  <ssd:System name=\"tank\"><ssd:Connectors>\n"
    "   <ssd:Connector name=\"T\" kind=\"input\"><ssc:Real unit=\"degC\"/></ssd:Connector>\n"
    "  </ssd:Connectors><ssd:Elements>\n"
    "   <ssd:Component name=\"wall\" source=\"rtcosim:any\"><ssd:Connectors>\n"
    "    <ssd:Connector name=\"T\" kind=\"input\"><ssc:Real unit=\"K\"/></ssd:Connector>\n"
    "   </ssd:Connectors></ssd:Component>\n"
    "  </ssd:Elements><ssd:Connections>\n"
    "   <ssd:Connection startConnector=\"T\" endElement=\"wall\" endConnector=\"T\"/>\n"
    "  </ssd:Connections></ssd:System>\n"
    " </ssd:Elements><ssd:Connections>\n"
    "  <ssd:Connection startElement=\"src\" startConnector=\"T\" endElement=\"gauge\" endConnector=\"T\"/>\n"
    "  <ssd:Connection startElement=\"src\" startConnector=\"T\" endElement=\"tank\" endConnector=\"T\"/>\n"
    " </ssd:Connections></ssd:System>\n"
    "</ssd:SystemStructureDescription>\n";

static void expect(const rtcosim_ssd_connection *c, double x, double want)
{
    double got = c->factor * x + c->offset;
    if (!(fabs(got - want) < 1e-11))
        fail_msg("%s.%s -> %s.%s: %g arrives as %.17g, expected %.17g", c->start.component,
                 c->start.connector, c->end.component, c->end.connector, x, got, want);
}

static void test_conversion_with_offset_and_through_nested_system(void **state)
{
    (void)state;
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(ssd, strlen(ssd), NULL, "u.ssd", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_system_desc_connection_count(d), 2);
    const rtcosim_ssd_connection *gauge = NULL, *wall = NULL;
    for (size_t i = 0; i < 2; i++) {
        const rtcosim_ssd_connection *c = rtcosim_system_desc_connection(d, i);
        if (strcmp(c->end.component, "gauge") == 0)
            gauge = c;
        else if (strcmp(c->end.component, "tank.wall") == 0)
            wall = c;
    }
    assert_non_null(gauge);
    assert_non_null(wall);
    assert_true(gauge->has_unit_conversion && wall->has_unit_conversion);
    assert_string_equal(wall->start.component, "src");
    expect(gauge, 212, 100);
    expect(gauge, 32, 0);
    expect(wall, 212, 373.15);
    expect(wall, -459.67, 0); /* absolute zero */
    rtcosim_system_desc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversion_with_offset_and_through_nested_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
