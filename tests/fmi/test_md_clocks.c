/* FMI 3.0 clocks in modelDescription.xml against the standard's text (FMI
 * 3.0.2 section 2.4.7.3 ClockAttributes, section 2.2.8's table of clock
 * types, section 2.4.7.4 `clocks`): every attribute read as written (the
 * interval from intervalCounter / resolution = 1/100 s), clocked variables
 * resolved to their clocks, Binary maxSize/mimeType with the schema's default;
 * errors where a run would tick at wrong times, warnings where the rule does
 * not change what rtcosim does (and errors with strict); the
 * ScheduledExecution interface element. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fmi/model_description.h"
#include "rtcosim/log.h"

static char doc[8192];

static const char *fmi3_doc(const char *interface, const char *variables)
{
    snprintf(doc, sizeof doc,
             "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
             "%s<ModelVariables>"
             "<Float64 name=\"time\" valueReference=\"0\" causality=\"independent\"/>%s"
             "</ModelVariables></fmiModelDescription>",
             interface, variables);
    return doc;
}

static rtcosim_status parse(const char *xml, rtcosim_fmi_md_interface interface, bool strict,
                            rtcosim_fmi_md **md, rtcosim_error *err)
{
    rtcosim_fmi_md_options o = {.interface = interface, .strict = strict};
    return rtcosim_fmi_md_parse_with(xml, strlen(xml), "modelDescription.xml", &o, md, err);
}

static const char se[] = "<ScheduledExecution modelIdentifier=\"m\"/>";
static const char cs[] = "<CoSimulation modelIdentifier=\"m\"/>";

static const char every_attribute[] =
    "<Clock name=\"tick\" valueReference=\"5\" causality=\"input\" intervalVariability=\"constant\""
    " intervalDecimal=\"0.01\" shiftDecimal=\"0\" supportsFraction=\"true\" resolution=\"100\""
    " intervalCounter=\"1\" shiftCounter=\"0\" priority=\"7\" canBeDeactivated=\"true\"/>"
    "<Clock name=\"in\" valueReference=\"6\" causality=\"input\" intervalVariability=\"triggered\" priority=\"0\"/>"
    "<Clock name=\"cd\" valueReference=\"7\" causality=\"input\" intervalVariability=\"countdown\" priority=\"2\" clocks=\"5\"/>"
    "<Clock name=\"out\" valueReference=\"8\" causality=\"output\" intervalVariability=\"triggered\"/>"
    "<Clock name=\"fx\" valueReference=\"9\" causality=\"input\" intervalVariability=\"fixed\" priority=\"3\"/>"
    "<Clock name=\"tu\" valueReference=\"10\" causality=\"input\" intervalVariability=\"tunable\" intervalDecimal=\"2.5\" priority=\"4\"/>"
    "<Clock name=\"ch\" valueReference=\"11\" causality=\"input\" intervalVariability=\"changing\" priority=\"5\"/>"
    "<Int32 name=\"n\" valueReference=\"20\" causality=\"output\" clocks=\"5 8\"/>"
    "<Int32 name=\"k\" valueReference=\"21\" causality=\"input\" start=\"0\" clocks=\"6\">"
    "<Alias name=\"k_alias\"/></Int32>"
    "<Binary name=\"frame\" valueReference=\"22\" causality=\"input\" maxSize=\"8\" mimeType=\"application/x-can\"><Start value=\"00\"/></Binary>"
    "<Binary name=\"blob\" valueReference=\"23\" causality=\"output\"/>";

static const rtcosim_fmu_clock *clock_named(const rtcosim_fmi_md *md, const char *name)
{
    for (size_t i = 0; i < md->clock_count; i++)
        if (strcmp(md->variables[md->clocks[i].variable].name, name) == 0)
            return &md->clocks[i];
    fail_msg("no clock %s", name);
    return NULL;
}

static long variable_named(const rtcosim_fmi_md *md, const char *name)
{
    for (size_t i = 0; i < md->variable_count; i++)
        if (strcmp(md->variables[i].name, name) == 0)
            return (long)i;
    fail_msg("no variable %s", name);
    return -1;
}

static void every_clock_attribute_is_read_as_written(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    if (parse(fmi3_doc(se, every_attribute), RTCOSIM_FMI_MD_SCHEDULED_EXECUTION, true, &md, &err))
        fail_msg("%s", err.message);
    assert_true(md->has_scheduled_execution);
    assert_string_equal(md->model_identifier, "m");
    assert_int_equal(md->warning_count, 0);
    assert_int_equal(md->clock_count, 7);
    const rtcosim_fmu_clock *tick = clock_named(md, "tick");
    assert_int_equal(tick->kind, RTCOSIM_FMI_CLOCK_CONSTANT);
    assert_true(tick->has_interval);
    assert_true(tick->interval == 1.0 / 100.0); /* intervalCounter / resolution */
    assert_true(tick->shift == 0.0);             /* shiftCounter / resolution */
    assert_true(tick->has_priority);
    assert_int_equal(tick->priority, 7);
    assert_true(tick->can_be_deactivated && tick->supports_fraction);
    assert_int_equal(tick->resolution, 100);
    assert_int_equal(tick->interval_counter, 1);
    assert_int_equal(clock_named(md, "in")->kind, RTCOSIM_FMI_CLOCK_TRIGGERED);
    assert_int_equal(clock_named(md, "in")->priority, 0);
    assert_int_equal(clock_named(md, "cd")->kind, RTCOSIM_FMI_CLOCK_COUNTDOWN);
    assert_false(clock_named(md, "cd")->has_interval);
    assert_false(clock_named(md, "out")->has_priority);
    assert_false(clock_named(md, "out")->can_be_deactivated); /* schema default false */
    assert_int_equal(clock_named(md, "fx")->kind, RTCOSIM_FMI_CLOCK_FIXED);
    assert_false(clock_named(md, "fx")->has_interval); /* asked of the FMU */
    assert_true(clock_named(md, "tu")->interval == 2.5);
    assert_true(clock_named(md, "tu")->shift == 0.0); /* schema default 0 */
    assert_int_equal(clock_named(md, "ch")->kind, RTCOSIM_FMI_CLOCK_CHANGING);

    /* n belongs to tick and out, k and its alias to in. */
    long n = variable_named(md, "n"), k = variable_named(md, "k"), ka = variable_named(md, "k_alias");
    assert_non_null(md->clocked_start);
    assert_int_equal(md->clocked_start[n + 1] - md->clocked_start[n], 2);
    assert_ptr_equal(&md->clocks[md->clocked[md->clocked_start[n]]], clock_named(md, "tick"));
    assert_ptr_equal(&md->clocks[md->clocked[md->clocked_start[n] + 1]], clock_named(md, "out"));
    for (long v = k; v <= ka; v += ka - k) {
        assert_int_equal(md->clocked_start[v + 1] - md->clocked_start[v], 1);
        assert_ptr_equal(&md->clocks[md->clocked[md->clocked_start[v]]], clock_named(md, "in"));
    }
    long cd = variable_named(md, "cd"); /* an input clock clocked by another */
    assert_int_equal(md->clocked_start[cd + 1] - md->clocked_start[cd], 1);
    long time = variable_named(md, "time");
    assert_int_equal(md->clocked_start[time + 1], md->clocked_start[time]);

    long frame = variable_named(md, "frame"), blob = variable_named(md, "blob");
    assert_int_equal(md->binary_max_size[frame], 8);
    assert_string_equal(md->mime_types[frame], "application/x-can");
    assert_int_equal(md->binary_max_size[blob], SIZE_MAX);
    assert_null(md->mime_types[blob]); /* the default application/octet-stream */
    assert_int_equal(rtcosim_fmi_md_clock_of(md, (size_t)n), -1);
    rtcosim_fmi_md_free(md);
}

static void expect_error(const char *interface, rtcosim_fmi_md_interface which,
                         const char *variables, const char *message)
{
    rtcosim_fmi_md *md = (rtcosim_fmi_md *)1;
    rtcosim_error err;
    rtcosim_status st = parse(fmi3_doc(interface, variables), which, false, &md, &err);
    if (st == RTCOSIM_OK || !strstr(err.message, message))
        fail_msg("got %d \"%s\"; want \"%s\"", st, st ? err.message : "", message);
    assert_null(md);
}

#define CLOCK(attrs) "<Clock name=\"c\" valueReference=\"1\" causality=\"input\" " attrs "/>"

static void clocks_that_would_tick_wrongly_are_refused_naming_the_rule(void **state)
{
    (void)state;
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
    expect_error(cs, 0, CLOCK("priority=\"1\""),
                 "clock 'c': intervalVariability is required (FMI 3.0 section 2.4.7.3)");
    expect_error(cs, 0, CLOCK("intervalVariability=\"sometimes\""),
                 "clock 'c': unknown intervalVariability 'sometimes'");
    expect_error(cs, 0, CLOCK("intervalVariability=\"constant\" intervalDecimal=\"0\""),
                 "clock 'c': intervalDecimal '0' must be a number greater than 0");
    expect_error(cs, 0, CLOCK("intervalVariability=\"constant\" intervalDecimal=\"-1\""),
                 "clock 'c': intervalDecimal '-1' must be a number greater than 0");
    expect_error(cs, 0, CLOCK("intervalVariability=\"constant\" intervalDecimal=\"1\" shiftDecimal=\"-0.5\""),
                 "clock 'c': shiftDecimal '-0.5' must be a number of at least 0");
    expect_error(cs, 0, CLOCK("intervalVariability=\"constant\" supportsFraction=\"true\" resolution=\"0\" intervalCounter=\"1\""),
                 "clock 'c': resolution must be greater than 0");
    expect_error(cs, 0, CLOCK("intervalVariability=\"constant\" supportsFraction=\"true\" resolution=\"10\" intervalCounter=\"0\""),
                 "clock 'c': intervalCounter must be greater than 0");
    expect_error(cs, 0, CLOCK("intervalVariability=\"triggered\" priority=\"high\""),
                 "clock 'c': priority 'high' is not a 32-bit unsigned number");
    expect_error(cs, 0, CLOCK("intervalVariability=\"triggered\" canBeDeactivated=\"maybe\""),
                 "clock 'c': canBeDeactivated 'maybe' is not a boolean");
    expect_error(cs, 0, "<Clock name=\"c\" valueReference=\"1\" causality=\"output\" "
                        "intervalVariability=\"constant\" intervalDecimal=\"1\"/>",
                 "clock 'c': an output clock must be triggered, not constant");
    expect_error(cs, 0, "<Clock name=\"c\" valueReference=\"1\" causality=\"parameter\" "
                        "variability=\"fixed\" intervalVariability=\"triggered\"/>",
                 "clock 'c': causality must be input, output or local");
    expect_error(cs, 0, CLOCK("intervalVariability=\"triggered\"")
                 "<Int32 name=\"n\" valueReference=\"2\" causality=\"output\" clocks=\"1 2\"/>",
                 "variable 'n': clocks '1 2' names 2, which is not a Clock (FMI 3.0 section 2.4.7.4)");
    expect_error(cs, 0, "<Int32 name=\"n\" valueReference=\"2\" causality=\"output\" clocks=\"99\"/>",
                 "variable 'n': clocks '99' names 99, which is not a Clock");
    expect_error(cs, 0, "<Int32 name=\"n\" valueReference=\"2\" causality=\"output\" clocks=\" \"/>",
                 "variable 'n': clocks is empty");
    expect_error(cs, 0, "<Binary name=\"b\" valueReference=\"2\" causality=\"output\" maxSize=\"-1\"/>",
                 "variable 'b': maxSize '-1' is not a byte count");
    /* The interface element scheduled execution needs, and the hint for it. */
    expect_error(cs, RTCOSIM_FMI_MD_SCHEDULED_EXECUTION, "",
                 "the FMU does not support scheduled execution (no ScheduledExecution element");
    expect_error(se, RTCOSIM_FMI_MD_CO_SIMULATION, "",
                 "the FMU supports only scheduled execution (FMI 3.0 chapter 5): load it with "
                 "--interface-type se");
}

/* Lenient rules: a warning each, the FMU loads; strict refuses it. */
static void harmless_clock_rule_breaks_are_warnings_and_strict_errors(void **state)
{
    (void)state;
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
    static const struct {
        const char *variables, *strict_message;
    } cases[] = {
        {"<Clock name=\"c\" valueReference=\"1\" causality=\"output\" intervalVariability=\"triggered\" priority=\"1\"/>",
         "clock 'c': an output clock must not have a priority"},
        {CLOCK("intervalVariability=\"changeable\" priority=\"1\""),
         "clock 'c': intervalVariability 'changeable' is spelled 'changing'"},
        {CLOCK("intervalVariability=\"countdown\" intervalDecimal=\"1\" priority=\"1\""),
         "clock 'c': a countdown clock must not declare an interval"},
        {CLOCK("intervalVariability=\"constant\" priority=\"1\""),
         "clock 'c': a constant clock needs intervalDecimal"},
        {CLOCK("intervalVariability=\"constant\" intervalDecimal=\"1\" shiftDecimal=\"2\" priority=\"1\""),
         "clock 'c': shift 2 is not below the interval 1"},
        {CLOCK("intervalVariability=\"constant\" resolution=\"10\" intervalCounter=\"5\" priority=\"1\""),
         "clock 'c': intervalCounter needs supportsFraction=\"true\""},
        {CLOCK("intervalVariability=\"triggered\" priority=\"1\"")
         "<Float64 name=\"x\" valueReference=\"2\" causality=\"output\" clocks=\"1\"/>",
         "variable 'x': only discrete or tunable variables can be clocked"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtcosim_fmi_md *md;
        rtcosim_error err;
        if (parse(fmi3_doc(cs, cases[i].variables), 0, false, &md, &err) != RTCOSIM_OK)
            fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(md->warning_count, 1);
        rtcosim_fmi_md_free(md);
        assert_int_not_equal(parse(fmi3_doc(cs, cases[i].variables), 0, true, &md, &err),
                             RTCOSIM_OK);
        if (!strstr(err.message, cases[i].strict_message))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.message, cases[i].strict_message);
    }
    /* 'changeable' is taken as 'changing'. */
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi3_doc(cs, cases[1].variables), 0, false, &md, &err), RTCOSIM_OK);
    assert_int_equal(md->clocks[0].kind, RTCOSIM_FMI_CLOCK_CHANGING);
    rtcosim_fmi_md_free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_clock_attribute_is_read_as_written),
        cmocka_unit_test(clocks_that_would_tick_wrongly_are_refused_naming_the_rule),
        cmocka_unit_test(harmless_clock_rule_breaks_are_warnings_and_strict_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
