/* SSP 1.0 signal dictionaries (sections 5.3.3, 5.5, 8), against the
 * standard's text. End to end: the example vehicle with its speed, set
 * speed, grade and throttle signals passed through a dictionary (from an .ssb
 * file, km/h for the set speed as the scenario writes it) instead of direct
 * connections: writers through one reference, readers through another and
 * through a reference inside a nested system (the dictionary found in the
 * enclosing system, its signal leaving through the nested system's
 * connector); every row of the run must equal the directly wired example's
 * bit for bit. Then the refusals, each naming file and line. */
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
#include "util/test_util.h"

enum { MAX_ROWS = 5002, MAX_VALUES = 8 };

typedef struct rows {
    size_t n, count;
    double v[MAX_ROWS][MAX_VALUES];
} rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const double *values,
                               size_t count, rtcosim_error *err)
{
    (void)t, (void)err;
    rows *r = context;
    assert_true(count <= MAX_VALUES && r->n < MAX_ROWS);
    r->count = count;
    memcpy(r->v[r->n++], values, count * sizeof *values);
    return RTCOSIM_OK;
}

static void run(const char *path, rows *r)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"body.speed", "ecu.throttle", "engine.omega",
                             "transmission.traction_force", "scenario.v_set"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 5};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    memset(r, 0, sizeof *r);
    const rtcosim_time_ns stop = 5 * RTCOSIM_NS_PER_S;
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, stop, keep_row, r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

#define NS_HEAD                                                                               \
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"               \
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"                    \
    " xmlns:ssb=\"http://ssp-standard.org/SSP1/SystemStructureSignalDictionary\"\n"          \
    " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"

static const char bus_ssb[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssb:SignalDictionary version=\"1.0\"\n" NS_HEAD
    " <ssb:DictionaryEntry name=\"v_set\"><ssc:Real unit=\"km/h\"/></ssb:DictionaryEntry>\n"
    " <ssb:DictionaryEntry name=\"grade\"><ssc:Real unit=\"%\"/></ssb:DictionaryEntry>\n"
    " <ssb:DictionaryEntry name=\"speed\"><ssc:Real unit=\"m/s\"/></ssb:DictionaryEntry>\n"
    " <ssb:DictionaryEntry name=\"throttle\"><ssc:Real unit=\"1\"/></ssb:DictionaryEntry>\n"
    "</ssb:SignalDictionary>\n";

#define COMPONENT(name, connectors)                                                           \
    "   <ssd:Component name=\"" name "\" source=\"rtcosim:vehicle." name "\"><ssd:Connectors>" \
    connectors "</ssd:Connectors></ssd:Component>\n"
#define IN(name, unit)                                                                        \
    "<ssd:Connector name=\"" name "\" kind=\"input\"><ssc:Real unit=\"" unit "\"/></ssd:Connector>"
#define OUT(name, unit)                                                                       \
    "<ssd:Connector name=\"" name "\" kind=\"output\"><ssc:Real unit=\"" unit "\"/></ssd:Connector>"
#define LINK(a, ac, b, bc)                                                                    \
    "   <ssd:Connection startElement=\"" a "\" startConnector=\"" ac "\" endElement=\"" b     \
    "\" endConnector=\"" bc "\"/>\n"

/* @SSV@: the example's vehicle.ssv */
static const char bus_ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"vehicle\"\n" NS_HEAD
    " <ssd:System name=\"vehicle\">\n"
    "  <ssd:ParameterBindings><ssd:ParameterBinding source=\"@SSV@\"/></ssd:ParameterBindings>\n"
    "  <ssd:Elements>\n"
    COMPONENT("scenario", OUT("v_set", "km/h") OUT("grade", "%"))
    COMPONENT("ecu", IN("v_set", "m/s") IN("v", "m/s") OUT("throttle", "1"))
    COMPONENT("engine", IN("throttle", "1") IN("load_torque", "N.m") OUT("omega", "rad/s"))
    COMPONENT("transmission", IN("engine_speed", "rad/s") IN("vehicle_speed", "m/s")
              IN("throttle", "1") OUT("pump_torque", "N.m") OUT("traction_force", "N"))
    COMPONENT("body", IN("traction_force", "N") IN("grade", "%") OUT("speed", "m/s"))
    "   <ssd:SignalDictionaryReference name=\"writers\" dictionary=\"bus\"/>\n"
    "   <ssd:SignalDictionaryReference name=\"readers\" dictionary=\"bus\"/>\n"
    "   <ssd:System name=\"gateway\"><ssd:Connectors>"
    "<ssd:Connector name=\"v_out\" kind=\"output\"><ssc:Real unit=\"m/s\"/></ssd:Connector>"
    "</ssd:Connectors>\n"
    "    <ssd:Elements><ssd:SignalDictionaryReference name=\"inner\" dictionary=\"bus\">"
    "<ssd:Connectors><ssd:Connector name=\"speed\" kind=\"output\"><ssc:Real/></ssd:Connector>"
    "</ssd:Connectors></ssd:SignalDictionaryReference></ssd:Elements>\n"
    "    <ssd:Connections><ssd:Connection startElement=\"inner\" startConnector=\"speed\" "
    "endConnector=\"v_out\"/></ssd:Connections>\n"
    "   </ssd:System>\n"
    "  </ssd:Elements>\n"
    "  <ssd:Connections>\n"
    LINK("scenario", "v_set", "writers", "v_set")
    LINK("scenario", "grade", "writers", "grade")
    LINK("body", "speed", "writers", "speed")
    LINK("ecu", "throttle", "writers", "throttle")
    LINK("readers", "v_set", "ecu", "v_set") /* km/h -> m/s, converted on the way */
    LINK("readers", "grade", "body", "grade")
    LINK("gateway", "v_out", "ecu", "v")
    LINK("readers", "throttle", "engine", "throttle")
    LINK("readers", "throttle", "transmission", "throttle")
    LINK("engine", "omega", "transmission", "engine_speed")
    LINK("readers", "speed", "transmission", "vehicle_speed")
    LINK("transmission", "pump_torque", "engine", "load_torque")
    LINK("transmission", "traction_force", "body", "traction_force")
    "  </ssd:Connections>\n"
    "  <ssd:SignalDictionaries>"
    "<ssd:SignalDictionary name=\"bus\" source=\"bus.ssb\"/></ssd:SignalDictionaries>\n"
    "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">"
    "<rc:Master stepSize=\"0.001\" order=\"gauss-seidel\" coupling=\"zoh\" correction=\"none\">"
    "<rc:Component name=\"ecu\" stepSize=\"0.01\"/>"
    "<rc:Component name=\"scenario\" stepMultiple=\"10\"/></rc:Master>"
    "</ssc:Annotation></ssd:Annotations>\n"
    " </ssd:System>\n"
    " <ssd:Units>"
    "<ssc:Unit name=\"m/s\"><ssc:BaseUnit m=\"1\" s=\"-1\"/></ssc:Unit>"
    "<ssc:Unit name=\"km/h\"><ssc:BaseUnit m=\"1\" s=\"-1\" factor=\"0.2777777777777778\"/>"
    "</ssc:Unit></ssd:Units>\n"
    "</ssd:SystemStructureDescription>\n";

static void vehicle_through_a_dictionary_equals_direct_wiring(void **state)
{
    (void)state;
    char ssv[4096];
    snprintf(ssv, sizeof ssv, "%s", VEHICLE_SSD);
    memcpy(strstr(ssv, "vehicle.ssd"), "vehicle.ssv", 11);
    static char text[sizeof bus_ssd + 4096];
    const char *at = strstr(bus_ssd, "@SSV@");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - bus_ssd), bus_ssd, ssv, at + 5);
    tu_write_file(tu_scratch("bus.ssb"), bus_ssb);
    const char *path = tu_scratch("vehicle_bus.ssd");
    tu_write_file(path, text);
    static rows direct, through;
    run(VEHICLE_SSD, &direct);
    run(path, &through);
    assert_int_equal(direct.n, 5001);
    assert_int_equal(through.n, direct.n);
    assert_int_equal(through.count, direct.count);
    for (size_t i = 0; i < direct.n; i++)
        for (size_t k = 0; k < direct.count; k++)
            if (memcmp(&direct.v[i][k], &through.v[i][k], sizeof(double)) != 0)
                fail_msg("row %zu, value %zu: %.17g through the dictionary, %.17g wired directly",
                         i, k, through.v[i][k], direct.v[i][k]);
    /* and the car moved: not two runs of nothing */
    assert_true(direct.v[direct.n - 1][0] > 1.0);
}

#define SMALL(elements, connections, dictionaries)                                            \
    "<?xml version=\"1.0\"?>\n"                                                               \
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"d\"\n" NS_HEAD                    \
    " <ssd:System name=\"d\">\n"                                                              \
    "  <ssd:Elements>\n" COMPONENT("body", IN("grade", "%") OUT("speed", "m/s"))             \
    COMPONENT("ecu", IN("v", "m/s") OUT("throttle", "1")) elements "  </ssd:Elements>\n"     \
    "  <ssd:Connections>\n" connections "  </ssd:Connections>\n"                            \
    "  <ssd:SignalDictionaries>" dictionaries "</ssd:SignalDictionaries>\n"                   \
    " </ssd:System>\n</ssd:SystemStructureDescription>\n"
#define INLINE_BUS                                                                            \
    "<ssd:SignalDictionary name=\"bus\"><ssb:SignalDictionary version=\"1.0\">"               \
    "<ssb:DictionaryEntry name=\"speed\"><ssc:Real unit=\"m/s\"/></ssb:DictionaryEntry>"      \
    "</ssb:SignalDictionary></ssd:SignalDictionary>"
#define REF(name, dict)                                                                       \
    "   <ssd:SignalDictionaryReference name=\"" name "\" dictionary=\"" dict "\"/>\n"

static void expect_error(const char *xml, const char *want)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(xml, strlen(xml), "/nonexistent-rtcosim-test", "d.ssd", &d,
                                  &err) == RTCOSIM_OK) {
        rtcosim_system_desc_free(d);
        fail_msg("accepted; expected \"%s\"", want);
    }
    if (!strstr(err.message, want))
        fail_msg("error \"%s\" lacks \"%s\"", err.message, want);
}

static void inline_dictionary_joins_writer_and_reader(void **state)
{
    (void)state;
    static const char xml[] = SMALL(REF("r", "bus"),
                                    LINK("body", "speed", "r", "speed") LINK("r", "speed", "ecu", "v"),
                                    INLINE_BUS);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(xml, strlen(xml), "/nonexistent-rtcosim-test", "d.ssd", &d,
                                  &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_system_desc_connection_count(d), 1);
    const rtcosim_ssd_connection *c = rtcosim_system_desc_connection(d, 0);
    assert_string_equal(c->start.component, "body");
    assert_string_equal(c->start.connector, "speed");
    assert_string_equal(c->end.component, "ecu");
    assert_string_equal(c->end.connector, "v");
    assert_true(c->factor == 1.0 && c->offset == 0.0);
    rtcosim_system_desc_free(d);
}

static void bad_dictionaries_are_refused_naming_file_and_line(void **state)
{
    (void)state;
    expect_error(SMALL(REF("r", "nobus"), "", INLINE_BUS),
                 "d.ssd:11: signal dictionary reference 'r': no system from here outwards defines "
                 "a signal dictionary 'nobus'");
    expect_error(SMALL(REF("r", "bus"), LINK("r", "torque", "ecu", "v"), INLINE_BUS),
                 "connection: signal dictionary reference 'r' has no entry 'torque'");
    /* two writers of one entry, through two references */
    expect_error(SMALL(REF("r1", "bus") REF("r2", "bus"),
                       LINK("body", "speed", "r1", "speed") LINK("ecu", "throttle", "r2", "speed"),
                       INLINE_BUS),
                 "d.ssd:16: r2.speed: entry 'speed' of signal dictionary 'bus' is already written by the connection on line 15 (one writer per entry)");
    expect_error(SMALL("", "",
                       "<ssd:SignalDictionary name=\"bus\"><ssb:SignalDictionary version=\"1.0\">"
                       "<ssb:DictionaryEntry name=\"x\"/></ssb:SignalDictionary>"
                       "</ssd:SignalDictionary>"),
                 "dictionary entry 'x' has no type");
    expect_error(SMALL("   <ssd:SignalDictionaryReference name=\"r\" dictionary=\"bus\">"
                       "<ssd:Connectors><ssd:Connector name=\"speed\" kind=\"output\">"
                       "<ssc:Integer/></ssd:Connector></ssd:Connectors>"
                       "</ssd:SignalDictionaryReference>\n",
                       "", INLINE_BUS),
                 "connector 'speed' is Integer but the entry is Real");
    expect_error(SMALL("", "", "<ssd:SignalDictionary name=\"bus\" source=\"bus.ssb\"/>"),
                 "signal dictionary 'bus.ssb' not found");
    expect_error(SMALL("", "", "<ssd:SignalDictionary name=\"bus\" type=\"text/x-dbc\" "
                               "source=\"bus.dbc\"/>"),
                 "signal dictionary of type 'text/x-dbc' is not supported");
    expect_error(SMALL("", "", "<ssd:SignalDictionary name=\"bus\"/>"),
                 "signal dictionary 'bus' has neither a source nor an ssb:SignalDictionary");
    expect_error(SMALL(REF("body", "bus"), "", INLINE_BUS), "duplicate element name 'body'");
    expect_error(SMALL("", "", INLINE_BUS INLINE_BUS),
                 "two signal dictionaries named 'bus' in one system");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vehicle_through_a_dictionary_equals_direct_wiring),
        cmocka_unit_test(inline_dictionary_joins_writer_and_reader),
        cmocka_unit_test(bad_dictionaries_are_refused_naming_file_and_line),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
