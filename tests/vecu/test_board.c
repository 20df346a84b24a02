/* Boards through the C API (include/rtcosim/vecu_board.h): each UART's bytes
 * and semihosting output reach the callback as the firmware source spells
 * them, SYS_EXIT's status (0 for ADP_Stopped_ApplicationExit, semihosting
 * spec 2.0), a stop time ending the run at that simulated time, identical
 * runs, a run in slices equal to one run, and the errors for an unknown
 * board and a missing firmware. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/vecu_board.h"

typedef struct captured {
    char text[6][4096];
    size_t len[6];
} captured;

static void capture(void *user, unsigned uart, unsigned char byte)
{
    captured *c = user;
    unsigned i = uart == RTCOSIM_BOARD_SEMIHOSTING ? 5 : uart;
    if (i < 6 && c->len[i] + 1 < sizeof c->text[i])
        c->text[i][c->len[i]++] = (char)byte;
}

static rtcosim_board_result run(const char *elf, int64_t stop_ns, captured *c)
{
    memset(c, 0, sizeof *c);
    rtcosim_board_config config = {.board = "mps2-an386", .firmware = elf,
                                   .stop_time_ns = stop_ns, .output = capture, .user = c};
    rtcosim_board *b = NULL;
    rtcosim_error err = {0};
    rtcosim_board_result result = {0};
    if (rtcosim_board_create(&config, &b, &err) != RTCOSIM_OK ||
        rtcosim_board_run(b, &result, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_board_free(b);
    return result;
}

static void test_uarts_and_semihosting_reach_the_callback(void **state)
{
    (void)state;
    static captured c;
    rtcosim_board_result r = run(PERIPH_ELF, 0, &c);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(c.text[1], "uart1 says hi\n");
    assert_string_equal(c.text[5], "semihosting write0\n!\n");
    assert_int_equal(strncmp(c.text[0], "peripherals of mps2-an386\n", 26), 0);
    assert_int_equal(c.len[2] + c.len[3] + c.len[4], 0);
}

static void test_stop_time_ends_the_run_at_that_time(void **state)
{
    (void)state;
    static captured c;
    /* at 2 ms the timing firmware sleeps in wfi between 1 ms SysTicks: the
     * run ends at 2 ms (or within one translated block after it), 40 ns per
     * instruction at 25 MHz */
    rtcosim_board_result r = run(TIMING_ELF, 2000000, &c);
    assert_false(r.exited);
    assert_true(r.time_ns >= 2000000 && r.time_ns < 2000000 + 64 * 40);
    assert_int_equal(r.instructions, (uint64_t)r.time_ns / 40);
}

static void test_runs_are_identical(void **state)
{
    (void)state;
    static captured a, b;
    rtcosim_board_result ra = run(BOARD_TEST_ELF, 0, &a);
    rtcosim_board_result rb = run(BOARD_TEST_ELF, 0, &b);
    assert_int_equal(ra.exit_code, 3);
    assert_int_equal(ra.instructions, rb.instructions);
    assert_memory_equal(a.text[0], b.text[0], sizeof a.text[0]);
}

/* Stepping a board in slices (as the SSP component does) must not change
 * what it does: a wfi spanning a slice boundary keeps sleeping. */
static void test_slices_run_as_one_run(void **state)
{
    (void)state;
    static captured whole, sliced;
    rtcosim_board_result one = run(BOARD_TEST_ELF, 0, &whole);
    memset(&sliced, 0, sizeof sliced);
    rtcosim_board_config config = {.firmware = BOARD_TEST_ELF, .output = capture, .user = &sliced};
    rtcosim_board *b = NULL;
    rtcosim_error err = {0};
    rtcosim_board_result r = {0};
    assert_int_equal(rtcosim_board_create(&config, &b, &err), RTCOSIM_OK);
    int64_t t = 0;
    while (!r.exited && t < 1000000000) {
        t += 137000; /* 137 us: no multiple of the 1 ms SysTick */
        assert_int_equal(rtcosim_board_run_until(b, t, &r, &err), RTCOSIM_OK);
    }
    rtcosim_board_free(b);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, one.exit_code);
    assert_int_equal(r.instructions, one.instructions);
    assert_memory_equal(sliced.text[0], whole.text[0], sizeof whole.text[0]);
}

static void test_bad_configuration_is_refused(void **state)
{
    (void)state;
    rtcosim_board *b = NULL;
    rtcosim_error err = {0};
    rtcosim_board_config unknown = {.board = "an999", .firmware = PERIPH_ELF};
    assert_int_equal(rtcosim_board_create(&unknown, &b, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unknown board 'an999'"));
    assert_null(b);
    rtcosim_board_config none = {.board = NULL, .firmware = NULL};
    assert_int_equal(rtcosim_board_create(&none, &b, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "no firmware"));
    const char *summary = NULL;
    assert_string_equal(rtcosim_board_name(0, &summary), "mps2-an386");
    assert_non_null(summary);
    assert_null(rtcosim_board_name(1, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uarts_and_semihosting_reach_the_callback),
        cmocka_unit_test(test_stop_time_ends_the_run_at_that_time),
        cmocka_unit_test(test_runs_are_identical),
        cmocka_unit_test(test_slices_run_as_one_run),
        cmocka_unit_test(test_bad_configuration_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
