/* String and Binary result columns of a real-time run (they used to be
 * refused: "a real-time run records numbers only"). On a virtual clock, 3 s
 * in frames of 10 ms: Strings (FMI 2.0) grows Steps_output by "ab" a step up
 * to 200 bytes into Feedthrough's String_input, Notes (FMI 3.0) grows its
 * Binary trail by the byte k mod 256 at step k up to 300 bytes into
 * Feedthrough's Binary_input. The rows, derived by hand (Jacobi: an input of
 * step k is the output after step k - 1), have the numeric column first and
 * the String and Binary ones after it, as an offline run; a value longer
 * than the writer ring's 256 bytes is cut there and counted in one warning
 * (43 + 44 values). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/clock.h"
#include "rtcosim/log.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define MS 1000000LL

static const char *const columns[] = {"f.String_output", "f.Int32_output", "f.Binary_output",
                                      "n.trail"};

/* Hex of the bytes j mod 256 for j = 1..n (n <= 256 here). */
static void trail_hex(int n, char *out)
{
    for (int j = 1; j <= n; j++)
        sprintf(out + 2 * (j - 1), "%02x", j % 256);
    out[2 * (n > 0 ? n : 0)] = '\0';
}

static void test_string_and_binary_columns_in_real_time(void **state)
{
    (void)state;
    tu_write_text_chain_ssd(tu_scratch("s.ssd"), RTCOSIM_FMU_STRINGS_FMI2, RTCOSIM_FMU_NOTES_FMI3,
                            RTCOSIM_FMU_FEEDTHROUGH_FMI3, 3);
    rtcosim_error err;
    rtcosim_system_desc *desc = NULL;
    rtcosim_clock *pacing = NULL;
    assert_int_equal(rtcosim_system_desc_load(tu_scratch("s.ssd"), &desc, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &pacing, &err), RTCOSIM_OK);
    rtcosim_system_rt_options o;
    rtcosim_system_rt_options_init(&o);
    o.rt.clock = pacing;
    o.rt.start_time = 0;
    o.rt.stop_time = 3000 * MS;
    o.rt.calibrate = false;
    o.build.overrides.has_step_size = true;
    o.build.overrides.step_size_ns = 10 * MS;
    o.build.observe = columns;
    o.build.observe_count = 4;
    o.output_file = tu_scratch("rt.csv");
    tu_log_capture(RTCOSIM_LOG_WARNING);
    rtcosim_system_rt *srt = NULL;
    if (rtcosim_system_rt_create(desc, &o, &srt, &err) != RTCOSIM_OK ||
        rtcosim_system_rt_run(srt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);

    /* numbers first, then String and Binary in the order asked */
    assert_int_equal(rtcosim_system_rt_column_count(srt), 4);
    assert_int_equal(rtcosim_system_rt_numeric_column_count(srt), 1);
    assert_string_equal(rtcosim_system_rt_column_name(srt, 0), "f.Int32_output");
    assert_string_equal(rtcosim_system_rt_column_name(srt, 1), "f.String_output");
    assert_null(rtcosim_system_rt_last_text(srt, 0));
    char sixty[64];
    for (int i = 0; i < 30; i++)
        memcpy(sixty + 2 * i, "ab", 2);
    memcpy(sixty + 60, "...", 4);
    assert_string_equal(rtcosim_system_rt_last_text(srt, 1), sixty);
    assert_string_equal(rtcosim_system_rt_last_text(srt, 2), "(299 bytes)");
    assert_string_equal(rtcosim_system_rt_last_text(srt, 3), "(300 bytes)");

    assert_int_equal(tu_count_lines(tu_scratch("rt.csv")), 302);
    size_t size = 0;
    const char *csv = tu_read_file(tu_scratch("rt.csv"), &size); /* (the helper's buffer) */
    assert_non_null(strstr(csv, "\"time\",\"f.Int32_output\",\"f.String_output\",\"f.Binary_output\",\"n.trail\"\n"
                                "0,0,\"\",,\n0.01,0,\"\",,01\n0.02,0,\"ab\",01,0102\n"
                                "0.03,0,\"abab\",0102,010203\n"));
    /* t = 3 (k = 300): Strings' 200 bytes, and 299 and 300 bytes of the
     * trail cut to 256: 01 .. ff 00 */
    char last[2048], hex[600];
    trail_hex(256, hex);
    size_t at = (size_t)snprintf(last, sizeof last, "\n3,0,\"");
    for (int i = 0; i < 100; i++)
        at += (size_t)snprintf(last + at, sizeof last - at, "ab");
    snprintf(last + at, sizeof last - at, "\",%s,%s\n", hex, hex);
    size_t n_last = strlen(last);
    assert_true(size > n_last);
    assert_string_equal(csv + size - n_last, last);
    /* cut: f.Binary_output at k = 258 .. 300 (k - 1 > 256 bytes), the trail
     * at k = 257 .. 300 */
    if (!strstr(tu_log_text(), "87 String or Binary values cut to the first 256 bytes"))
        fail_msg("log: %s", tu_log_text());

    rtcosim_system_rt_free(srt);
    rtcosim_clock_free(pacing);
    rtcosim_system_desc_free(desc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_and_binary_columns_in_real_time),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
