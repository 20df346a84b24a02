/* SSP 1.0 mapping transformations on connections, each against values worked
 * out by hand from the map: ssc:IntegerMappingTransformation (1 -> 10,
 * 2 -> 20, others unchanged), ssc:EnumerationMappingTransformation through
 * ssd:Enumerations (Count.one = 1 -> Gear.second = 200, Count.two = 2 ->
 * Gear.first = 100), ssc:BooleanMappingTransformation (negation), and a map
 * composed through a nested system's connector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "rtcosim/system.h"

typedef struct source_data {
    int32_t value, n, m;
    bool odd;
} source_data;

typedef struct sink_data {
    int32_t sel, gear;
    bool flag;
    double seen_sel, seen_gear, seen_flag;
} sink_data;

static void source_outputs(void *data, double t)
{
    (void)t;
    source_data *s = data;
    s->n = s->m = s->value;
    s->odd = (s->value & 1) != 0;
}

static void sink_outputs(void *data, double t)
{
    (void)t;
    sink_data *s = data;
    s->seen_sel = s->sel;
    s->seen_gear = s->gear;
    s->seen_flag = s->flag;
}

static rtcosim_status nothing(void *data, const rtcosim_native_context *ctx, double t, double h,
                              rtcosim_error *err)
{
    (void)data, (void)ctx, (void)t, (void)h, (void)err;
    return RTCOSIM_OK;
}

#define V(S, f, vr, type, caus, var) \
    {#f, vr, type, caus, var, offsetof(S, f), 0, NULL, NULL, NULL}
static const rtcosim_native_variable source_vars[] = {
    V(source_data, value, 0, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED),
    V(source_data, n, 1, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(source_data, m, 2, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(source_data, odd, 3, RTCOSIM_TYPE_BOOLEAN, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE),
};
static const rtcosim_native_variable sink_vars[] = {
    V(sink_data, sel, 0, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(sink_data, gear, 1, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(sink_data, flag, 2, RTCOSIM_TYPE_BOOLEAN, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(sink_data, seen_sel, 3, RTCOSIM_TYPE_FLOAT64, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(sink_data, seen_gear, 4, RTCOSIM_TYPE_FLOAT64, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE),
    V(sink_data, seen_flag, 5, RTCOSIM_TYPE_FLOAT64, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE),
};
static const rtcosim_native_model source_model = {
    .name = "maptest.source", .data_size = sizeof(source_data), .variables = source_vars,
    .variable_count = 4, .outputs = source_outputs, .step = nothing};
static const rtcosim_native_model sink_model = {
    .name = "maptest.sink", .data_size = sizeof(sink_data), .variables = sink_vars,
    .variable_count = 6, .outputs = sink_outputs, .step = nothing};

#define HEAD                                                                       \
    "<?xml version=\"1.0\"?>\n"                                                    \
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"maps\"\n"               \
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"      \
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"          \
    " <ssd:Enumerations>\n"                                                        \
    "  <ssc:Enumeration name=\"Count\"><ssc:Item name=\"one\" value=\"1\"/>"        \
    "<ssc:Item name=\"two\" value=\"2\"/></ssc:Enumeration>\n"                     \
    "  <ssc:Enumeration name=\"Gear\"><ssc:Item name=\"first\" value=\"100\"/>"     \
    "<ssc:Item name=\"second\" value=\"200\"/></ssc:Enumeration>\n"                \
    " </ssd:Enumerations>\n"                                                       \
    " <ssd:System name=\"s\">\n"                                                   \
    "  <ssd:Elements>\n"                                                           \
    "   <ssd:Component name=\"src\" source=\"rtcosim:maptest.source\"><ssd:Connectors>\n" \
    "    <ssd:Connector name=\"n\" kind=\"output\"><ssc:Integer/></ssd:Connector>\n"   \
    "    <ssd:Connector name=\"m\" kind=\"output\"><ssc:Enumeration name=\"Count\"/></ssd:Connector>\n" \
    "    <ssd:Connector name=\"odd\" kind=\"output\"><ssc:Boolean/></ssd:Connector>\n" \
    "   </ssd:Connectors></ssd:Component>\n"

static const char flat_ssd[] =
    HEAD
    "   <ssd:Component name=\"dst\" source=\"rtcosim:maptest.sink\"><ssd:Connectors>\n"
    "    <ssd:Connector name=\"sel\" kind=\"input\"><ssc:Integer/></ssd:Connector>\n"
    "    <ssd:Connector name=\"gear\" kind=\"input\"><ssc:Enumeration name=\"Gear\"/></ssd:Connector>\n"
    "    <ssd:Connector name=\"flag\" kind=\"input\"><ssc:Boolean/></ssd:Connector>\n"
    "   </ssd:Connectors></ssd:Component>\n"
    "  </ssd:Elements>\n"
    "  <ssd:Connections>\n"
    "   <ssd:Connection startElement=\"src\" startConnector=\"n\" endElement=\"dst\" endConnector=\"sel\">\n"
    "    <ssc:IntegerMappingTransformation><ssc:MapEntry source=\"1\" target=\"10\"/>"
    "<ssc:MapEntry source=\"2\" target=\"20\"/></ssc:IntegerMappingTransformation></ssd:Connection>\n"
    "   <ssd:Connection startElement=\"src\" startConnector=\"m\" endElement=\"dst\" endConnector=\"gear\">\n"
    "    <ssc:EnumerationMappingTransformation><ssc:MapEntry source=\"one\" target=\"second\"/>"
    "<ssc:MapEntry source=\"two\" target=\"first\"/></ssc:EnumerationMappingTransformation></ssd:Connection>\n"
    "   <ssd:Connection startElement=\"src\" startConnector=\"odd\" endElement=\"dst\" endConnector=\"flag\">\n"
    "    <ssc:BooleanMappingTransformation><ssc:MapEntry source=\"true\" target=\"false\"/>"
    "<ssc:MapEntry source=\"false\" target=\"true\"/></ssc:BooleanMappingTransformation></ssd:Connection>\n"
    "  </ssd:Connections>\n"
    " </ssd:System>\n"
    "</ssd:SystemStructureDescription>\n";

/* The integer map split over two levels: 1 -> 3 outside, 3 -> 10 and
 * 2 -> 20 inside: composed 1 -> 10, 2 -> 20, 3 -> 10. */
static const char nested_ssd[] =
    HEAD
    "   <ssd:System name=\"box\"><ssd:Connectors><ssd:Connector name=\"u\" kind=\"input\"/></ssd:Connectors>\n"
    "    <ssd:Elements><ssd:Component name=\"dst\" source=\"rtcosim:maptest.sink\"><ssd:Connectors>\n"
    "     <ssd:Connector name=\"sel\" kind=\"input\"><ssc:Integer/></ssd:Connector>\n"
    "    </ssd:Connectors></ssd:Component></ssd:Elements>\n"
    "    <ssd:Connections><ssd:Connection startConnector=\"u\" endElement=\"dst\" endConnector=\"sel\">\n"
    "     <ssc:IntegerMappingTransformation><ssc:MapEntry source=\"3\" target=\"10\"/>"
    "<ssc:MapEntry source=\"2\" target=\"20\"/></ssc:IntegerMappingTransformation></ssd:Connection>\n"
    "    </ssd:Connections></ssd:System>\n"
    "  </ssd:Elements>\n"
    "  <ssd:Connections>\n"
    "   <ssd:Connection startElement=\"src\" startConnector=\"n\" endElement=\"box\" endConnector=\"u\">\n"
    "    <ssc:IntegerMappingTransformation><ssc:MapEntry source=\"1\" target=\"3\"/>"
    "</ssc:IntegerMappingTransformation></ssd:Connection>\n"
    "  </ssd:Connections>\n"
    " </ssd:System>\n"
    "</ssd:SystemStructureDescription>\n";

/* Runs the system two macro steps with src.value = value; returns the
 * sink's outputs (sel, gear, flag as seen). */
static void run(const char *ssd, const char *prefix, int value, double seen[3])
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(ssd, strlen(ssd), NULL, "maps.ssd", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char names[3][64];
    const char *observe[3];
    const char *const vars[] = {"seen_sel", "seen_gear", "seen_flag"};
    for (int i = 0; i < 3; i++) {
        snprintf(names[i], sizeof names[i], "%s.%s", prefix, vars[i]);
        observe[i] = names[i];
    }
    rtcosim_system_build_options opts = {
        .overrides = {.has_step_size = true, .step_size_ns = RTCOSIM_NS_PER_MS},
        .observe = observe, .observe_count = 3};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char text[16];
    snprintf(text, sizeof text, "%d", value);
    if (rtcosim_master_set_start_value(m, "src.value", text, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, 2 * RTCOSIM_NS_PER_MS, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, 2 * RTCOSIM_NS_PER_MS, NULL, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    for (size_t i = 0; i < 3; i++)
        seen[i] = rtcosim_master_observed_values(m)[i];
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

static void test_integer_enumeration_and_boolean_maps(void **state)
{
    (void)state;
    double seen[3];
    run(flat_ssd, "dst", 1, seen);
    assert_true(seen[0] == 10 && seen[1] == 200 && seen[2] == 0); /* odd 1 -> flag false */
    run(flat_ssd, "dst", 2, seen);
    assert_true(seen[0] == 20 && seen[1] == 100 && seen[2] == 1);
    run(flat_ssd, "dst", 7, seen); /* in no map: passes unchanged */
    assert_true(seen[0] == 7 && seen[1] == 7 && seen[2] == 0);
}

static void test_maps_compose_through_nested_system(void **state)
{
    (void)state;
    double seen[3];
    const int in[] = {1, 2, 3, 4}, out[] = {10, 20, 10, 4};
    for (int i = 0; i < 4; i++) {
        run(nested_ssd, "box.dst", in[i], seen);
        if (seen[0] != out[i])
            fail_msg("src.n = %d arrives as %g, expected %d", in[i], seen[0], out[i]);
    }
}

static void test_enumeration_item_must_exist(void **state)
{
    (void)state;
    char text[sizeof flat_ssd + 16];
    snprintf(text, sizeof text, "%s", flat_ssd);
    char *p = strstr(text, "target=\"second\"");
    memcpy(p, "target=\"secnd\" ", 15);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_system_desc_parse(text, strlen(text), NULL, "maps.ssd", &d, &err),
                     RTCOSIM_ENOTFOUND);
    assert_string_equal(err.message, "maps.ssd:26: enumeration mapping: 'secnd' is no item of "
                                     "enumeration 'Gear' in ssd:Enumerations");
}

static int setup(void **state)
{
    (void)state;
    rtcosim_error err;
    assert_int_equal(rtcosim_native_register_model(&source_model, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_native_register_model(&sink_model, &err), RTCOSIM_OK);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_enumeration_and_boolean_maps),
        cmocka_unit_test(test_maps_compose_through_nested_system),
        cmocka_unit_test(test_enumeration_item_must_exist),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
