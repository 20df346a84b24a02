/* Several ssd:ParameterBindings on one component apply in document order,
 * later values winning, inline and source= files alike, each with its own
 * prefix (prepended to the names of its set, SSP 1.0), and a value in another
 * unit converted to the connector's: 50 cm on a connector in m is 0.5 m
 * (factor 0.01 from ssd:Units), 2 km/h on one in m/s is 2 / 3.6. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/system.h"
#include "util/test_util.h"

#define SSV(body) "<?xml version=\"1.0\"?>\n" SET(body)
#define SET(body)                                                                       \
    "<ssv:ParameterSet version=\"1.0\" name=\"p\" "            \
    "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"      \
    "<ssv:Parameters>\n" body "</ssv:Parameters></ssv:ParameterSet>\n"
#define REAL(n, v, u) \
    "<ssv:Parameter name=\"" n "\"><ssv:Real value=\"" v "\"" u "/></ssv:Parameter>\n"

static const char ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"b\"\n"
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
    " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
    " <ssd:Units>\n"
    "  <ssc:Unit name=\"m\"><ssc:BaseUnit m=\"1\"/></ssc:Unit>\n"
    "  <ssc:Unit name=\"cm\"><ssc:BaseUnit m=\"1\" factor=\"0.01\"/></ssc:Unit>\n"
    "  <ssc:Unit name=\"m/s\"><ssc:BaseUnit m=\"1\" s=\"-1\"/></ssc:Unit>\n"
    "  <ssc:Unit name=\"km/h\"><ssc:BaseUnit m=\"1\" s=\"-1\" factor=\"0.277777777777777778\"/></ssc:Unit>\n"
    " </ssd:Units>\n"
    " <ssd:System name=\"s\"><ssd:Elements>\n"
    "  <ssd:Component name=\"mass1\" source=\"rtcosim:oscillator.mass1\">\n"
    "   <ssd:Connectors>\n"
    "    <ssd:Connector name=\"x0\" kind=\"parameter\"><ssc:Real unit=\"m\"/></ssd:Connector>\n"
    "    <ssd:Connector name=\"v0\" kind=\"parameter\"><ssc:Real unit=\"m/s\"/></ssd:Connector>\n"
    "   </ssd:Connectors>\n"
    "   <ssd:ParameterBindings>\n"
    "    <ssd:ParameterBinding source=\"first.ssv\"/>\n"
    "    <ssd:ParameterBinding prefix=\"x\"><ssd:ParameterValues>"
    SET(REAL("0", "50", " unit=\"cm\"") REAL("_unused_k", "1", ""))
    "</ssd:ParameterValues></ssd:ParameterBinding>\n"
    "    <ssd:ParameterBinding source=\"second.ssv\" prefix=\"\"/>\n"
    "   </ssd:ParameterBindings>\n"
    "  </ssd:Component>\n"
    " </ssd:Elements></ssd:System>\n"
    "</ssd:SystemStructureDescription>\n";

static const rtcosim_ssd_parameter *find(const rtcosim_ssd_component *c, const char *name)
{
    for (size_t i = 0; i < c->parameter_count; i++)
        if (strcmp(c->parameters[i].name, name) == 0)
            return &c->parameters[i];
    fail_msg("no parameter '%s'", name);
    return NULL;
}

static void test_bindings_apply_in_document_order(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    tu_write_file(tu_path(dir, "first.ssv"),
                  SSV(REAL("k", "5", "") REAL("c", "0.2", "") REAL("x0", "1", " unit=\"m\"")));
    tu_write_file(tu_path(dir, "second.ssv"),
                  SSV(REAL("k", "7", "") REAL("v0", "2", " unit=\"km/h\"")));
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(ssd, strlen(ssd), dir, "b.ssd", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_ssd_component *c = rtcosim_system_desc_component(d, 0);
    assert_true(find(c, "k")->value.r == 7.0);   /* second.ssv after first.ssv */
    assert_true(find(c, "c")->value.r == 0.2);   /* only in first.ssv */
    assert_true(find(c, "x0")->value.r == 0.5);  /* inline 50 cm after first.ssv's 1 m */
    assert_true(find(c, "x_unused_k")->value.r == 1.0); /* the prefix made the name */
    double v0 = find(c, "v0")->value.r;
    if (!(v0 > 2 / 3.6 - 1e-15 && v0 < 2 / 3.6 + 1e-15))
        fail_msg("v0 = %.17g, expected 2 km/h = %.17g m/s", v0, 2 / 3.6);
    assert_string_equal(find(c, "x0")->unit, "m");
    rtcosim_system_desc_free(d);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bindings_apply_in_document_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
