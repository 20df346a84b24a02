/* The CLI's progress line text (cli/progress.c) for hand-picked states:
 * percent, time, speed = simulated / wall seconds, ETA = wall * (1 - f) / f. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "progress.h"

static void formats_percent_speed_and_eta(void **state)
{
    (void)state;
    char line[160];
    /* 25 % of 0..10 s after 2 s wall: speed 2.5 s / 2 s = 1.25x, ETA 2 * 0.75 / 0.25 = 6 s. */
    cli_progress_format(line, sizeof line, 0.25, 2.5, 2.5, 2.0);
    assert_string_equal(line, " 25.0 %  t = 2.5 s  speed 1.25x  ETA 0:06");
    /* 10 % after 30 s wall: ETA 270 s = 4:30. */
    cli_progress_format(line, sizeof line, 0.1, 101, 1, 30);
    assert_string_equal(line, " 10.0 %  t = 101 s  speed 0.0333x  ETA 4:30");
    /* Nothing done yet: no speed or ETA; fractions are clamped. */
    cli_progress_format(line, sizeof line, 0, 0, 0, 0.5);
    assert_string_equal(line, "  0.0 %  t = 0 s");
    cli_progress_format(line, sizeof line, 1.5, 3, 3, 1);
    assert_string_equal(line, "100.0 %  t = 3 s  speed 3x  ETA 0:00");
}

static void disabled_without_a_terminal(void **state)
{
    (void)state;
    cli_progress p;
    cli_progress_init(&p, false, 0, RTCOSIM_NS_PER_S);
    assert_int_equal(p.enabled, isatty(STDERR_FILENO) != 0); /* ctest: a pipe */
    cli_progress_init(&p, true, 0, RTCOSIM_NS_PER_S);
    assert_false(p.enabled);
    cli_progress_update(&p, 1);
    cli_progress_finish(&p);
    assert_false(p.drawn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats_percent_speed_and_eta),
        cmocka_unit_test(disabled_without_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
