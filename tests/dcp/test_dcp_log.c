/* DCP logging on notification (spec 3.1.23, 5.14; NTF_log 3.3.7.32):
 * - a template's message filled in from NTF_log's arguments (placeholders
 *   "%" and a data type name, "%%" a percent sign; numbers little-endian,
 *   strings and binaries as a uint32 length and the bytes), by hand;
 * - the DCPX's Log templates and canProvideLogOnNotification, read and
 *   written; a malformed template refused naming the file;
 * - a session: the Faulty FMU served by a slave fails its step at 0.05 s;
 *   a master built from the slave's DCPX configures logging and its error
 *   carries the FMU's own words (before, only "went to ERRORHANDLING"),
 *   which a master without the templates still lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim_test_fmus.h"
#include "session.h"
#include "util/test_util.h"

static size_t put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return 4;
}

static void test_templates_filled_in(void **state)
{
    (void)state;
    char out[128];
    uint8_t args[64];
    size_t n = put32(args, 3);                 /* %uint32 3 */
    const double half = 0.5;                   /* %float64 0.5 */
    uint64_t bits;
    memcpy(&bits, &half, 8);
    for (int i = 0; i < 8; i++)
        args[n++] = (uint8_t)(bits >> (8 * i));
    n += put32(args + n, 3);                   /* %string "abc" */
    memcpy(args + n, "abc", 3);
    n += 3;
    assert_true(rtcosim_dcp_log_format("step %uint32 at %float64 s: %string", args, n, out, sizeof out));
    assert_string_equal(out, "step 3 at 0.5 s: abc");
    /* "%%", a name that is no type kept as written, a binary in hex, int8 */
    uint8_t bin[] = {2, 0, 0, 0, 0x0a, 0xff, 0xfe};
    assert_true(rtcosim_dcp_log_format("100%% %binary %foo %int8", bin, sizeof bin, out, sizeof out));
    assert_string_equal(out, "100% 0aff %foo -2");
    /* too few arguments: what fits, then "<?>"; too many: false */
    assert_false(rtcosim_dcp_log_format("%uint32 and %uint32", args, 4, out, sizeof out));
    assert_string_equal(out, "3 and <?>");
    assert_false(rtcosim_dcp_log_format("%uint32", args, 5, out, sizeof out));
    /* a string length past the arguments */
    uint8_t bad[] = {9, 0, 0, 0, 'x'};
    assert_false(rtcosim_dcp_log_format("[%string]", bad, sizeof bad, out, sizeof out));
    assert_string_equal(out, "[<?>");
    /* cut to the buffer, always terminated */
    assert_true(rtcosim_dcp_log_format("abcdefgh", NULL, 0, out, 4));
    assert_string_equal(out, "abc");
}

static const char head[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpMinorVersion=\"0\" dcpSlaveName=\"s\">\n"
    "<OpMode><NonRealTime/></OpMode>\n"
    "<TransportProtocols><UDP_IPv4 maxPduSize=\"65507\"><Control host=\"127.0.0.1\" port=\"9\"/>"
    "</UDP_IPv4></TransportProtocols>\n"
    "<CapabilityFlags canProvideLogOnNotification=\"true\"/>\n"
    "<Variables><Variable name=\"y\" valueReference=\"1\"><Output><Float64/></Output></Variable></Variables>\n";

static void test_dcpx_log_templates(void **state)
{
    (void)state;
    char xml[2048];
    snprintf(xml, sizeof xml,
             "%s<Log><Categories><Category id=\"1\" name=\"model\"/></Categories><Templates>"
             "<Template id=\"1\" category=\"1\" level=\"1\" msg=\"input note was '%%string'\"/>"
             "<Template id=\"2\" category=\"1\" level=\"2\" msg=\"step %%uint32 at %%float64 s\"/>"
             "</Templates></Log></dcpSlaveDescription>\n",
             head);
    rtcosim_dcpx *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcpx_parse(xml, strlen(xml), "s.dcpx", &d, &err), RTCOSIM_OK);
    size_t n = 0;
    const rtcosim_dcp_log_template *t = rtcosim_dcpx_log_templates(d, &n);
    assert_int_equal(n, 2);
    assert_int_equal(t[0].id, 1);
    assert_int_equal(t[0].level, 1);
    assert_string_equal(t[0].msg, "input note was '%string'");
    assert_int_equal(t[1].id, 2);
    assert_int_equal(t[1].level, 2);
    assert_true(rtcosim_dcpx_log_on_notification(d));
    rtcosim_dcpx_free(d);

    snprintf(xml, sizeof xml,
             "%s<Log><Categories><Category id=\"1\" name=\"model\"/></Categories><Templates>"
             "<Template id=\"1\" category=\"1\" level=\"7\" msg=\"x\"/>"
             "</Templates></Log></dcpSlaveDescription>\n",
             head);
    assert_int_equal(rtcosim_dcpx_parse(xml, strlen(xml), "s.dcpx", &d, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "s.dcpx: Log Template 1: needs a unique id"));
}

static rtcosim_status faulty(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_fmu_load(RTCOSIM_FMU_FAULTY_FMI2, NULL, out, err);
}

/* Steps of 10 ms until one fails; its error in *err. */
static rtcosim_status run_until_failure(rtcosim_component *c, rtcosim_error *err)
{
    const uint32_t vr_fail_time = 6, vr_fail_mode = 7;
    const double fail_time = 0.05;
    const int32_t fail_mode = 1; /* Error */
    rtcosim_status st;
    if ((st = rtcosim_component_instantiate(c, "faulty", err)) != RTCOSIM_OK ||
        (st = rtcosim_component_setup(c, 0, 0, -1, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_fail_time, 1, &fail_time, err)) !=
            RTCOSIM_OK ||
        (st = rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &vr_fail_mode, 1, &fail_mode, err)) !=
            RTCOSIM_OK ||
        (st = rtcosim_component_enter_init(c, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_exit_init(c, err)) != RTCOSIM_OK)
        return st;
    const rtcosim_time_ns h = 10 * RTCOSIM_NS_PER_MS;
    for (int k = 0; k < 20; k++)
        if ((st = rtcosim_component_do_step(c, k * h, h, NULL, err)) != RTCOSIM_OK)
            return st;
    return RTCOSIM_OK;
}

static void test_slave_failure_reaches_the_master(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    served s;
    rtcosim_dcpx *d = NULL;
    start_described_slave(&s, faulty, tu_path(dir, "faulty.dcpx"), &d);
    rtcosim_error err;
    /* what the slave declares: template 1, level error, one string */
    size_t n = 0;
    const rtcosim_dcp_log_template *t = rtcosim_dcpx_log_templates(d, &n);
    assert_int_equal(n, 1);
    assert_int_equal(t[0].id, RTCOSIM_DCP_SLAVE_LOG_FAILURE);
    assert_int_equal(t[0].level, 1);
    assert_string_equal(t[0].msg, "%string");
    assert_true(rtcosim_dcpx_log_on_notification(d));

    for (int with_log = 1; with_log >= 0; with_log--) {
        rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = rtcosim_dcp_slave_port(s.slave)};
        (void)rtcosim_dcpx_uuid(d, cfg.uuid);
        if (with_log) {
            cfg.log_templates = rtcosim_dcpx_log_templates(d, &cfg.log_template_count);
            cfg.log_on_notification = rtcosim_dcpx_log_on_notification(d);
        }
        rtcosim_component *c = NULL;
        if (rtcosim_dcp_remote_create(&cfg, rtcosim_dcpx_component_desc(d), &c, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        tu_log_capture(RTCOSIM_LOG_DEBUG);
        assert_int_equal(run_until_failure(c, &err), RTCOSIM_ECOMPONENT);
        const char *reason = "Faulty: fmi2DoStep returned fmi2Error at t=0.05; the FMU said: "
                             "logStatusError: failing on purpose at t = 0.050000000000000003 "
                             "(fail_mode 1)";
        assert_non_null(strstr(err.message, "went to ERRORHANDLING"));
        if (with_log) {
            if (!strstr(err.message, reason))
                fail_msg("the master's error: %s", err.message);
            /* and the entry logged as it came (at debug level: the error says it) */
            assert_non_null(strstr(tu_log_text(), reason));
        } else {
            assert_null(strstr(err.message, "failing on purpose"));
        }
        tu_log_reset();
        rtcosim_component_free(c);
    }
    rtcosim_dcpx_free(d);
    stop_slave(&s);
    tu_drop_dir(dir);
}

static rtcosim_status short_strings(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_fmu_load(RTCOSIM_FMU_FEEDTHROUGHSHORTSTRINGS_FMI3, NULL, out, err);
}

/* An input the FMU refuses (a String over its 16 bytes; an input PDU has no
 * answer) makes the slave's next step fail: the reason the master hears is
 * the refused set, not the step refused after it ("do_step is not allowed
 * in state 'failed'", which it heard before). */
static void test_refused_input_is_the_reason(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    served s;
    rtcosim_dcpx *d = NULL;
    start_described_slave(&s, short_strings, tu_path(dir, "short.dcpx"), &d);
    rtcosim_error err;
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = rtcosim_dcp_slave_port(s.slave),
                                     .log_on_notification = true};
    (void)rtcosim_dcpx_uuid(d, cfg.uuid);
    cfg.log_templates = rtcosim_dcpx_log_templates(d, &cfg.log_template_count);
    rtcosim_component *c = NULL;
    if (rtcosim_dcp_remote_create(&cfg, rtcosim_dcpx_component_desc(d), &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const uint32_t vr_in = 9; /* String_input */
    const char *fits = "sixteen bytes ok", *too_long = "seventeen bytes!!";
    const rtcosim_time_ns h = 10 * RTCOSIM_NS_PER_MS;
    if (rtcosim_component_instantiate(c, "short", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &vr_in, 1, &fits, &err) != RTCOSIM_OK ||
        rtcosim_component_do_step(c, 0, h, NULL, &err) != RTCOSIM_OK ||
        rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &vr_in, 1, &too_long, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_component_do_step(c, h, h, NULL, &err), RTCOSIM_ECOMPONENT);
    if (!strstr(err.message, "went to ERRORHANDLING: Feedthrough: fmi3SetString "
                             "returned fmi3Error; the FMU said: logStatusError: Max. string "
                             "length is 16 bytes."))
        fail_msg("the master's error: %s", err.message);
    rtcosim_component_free(c);
    rtcosim_dcpx_free(d);
    stop_slave(&s);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_templates_filled_in),
        cmocka_unit_test(test_dcpx_log_templates),
        cmocka_unit_test(test_slave_failure_reaches_the_master),
        cmocka_unit_test(test_refused_input_is_the_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
