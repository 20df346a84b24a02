/* `rtcosim firmware run --board NAME APP.elf`: firmware built for a real board
 * running alone on the emulated core (src/vecu/board.c), its UART0 on stdout,
 * the other UARTs in files, until it exits through semihosting or the stop
 * time. Exit code: the firmware's own semihosting exit code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/vecu_board.h"

typedef struct firmware_output {
    FILE *uart[5];
} firmware_output;

static void on_output(void *user, unsigned uart, unsigned char byte)
{
    firmware_output *o = user;
    FILE *f = uart == RTCOSIM_BOARD_SEMIHOSTING ? stderr : uart < 5 ? o->uart[uart] : NULL;
    if (f)
        fputc(byte, f);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim firmware run [--board NAME] [--stop-time S] [--uart N=FILE]... APP.elf\n"
            "\n"
            "Runs firmware built for a board from its reset vector on the emulated Cortex-M:\n"
            "the ARMv7-M system (NVIC, SCB, SysTick, exceptions) and the board's peripherals.\n"
            "UART0 goes to stdout, semihosting output to stderr. The run ends when the\n"
            "firmware calls semihosting SYS_EXIT (the exit code is its code) or at the\n"
            "stop time (exit code 0). A fault the firmware cannot take, an access to an\n"
            "unmodelled system register or bad input: one line on stderr, exit code 1.\n"
            "\n"
            "  --board NAME     the board (default mps2-an386)\n"
            "  --stop-time S    end after S seconds of simulated time\n"
            "  --uart N=FILE    write UART N (1-4) to FILE\n"
            "\nboards:\n");
    const char *summary;
    for (size_t i = 0; rtcosim_board_name(i, &summary); i++)
        fprintf(out, "  %-12s %s\n", rtcosim_board_name(i, NULL), summary);
}

static int run_firmware(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "run") != 0)
        return cli_fail("firmware: unknown action '%s'%s%s%s (see rtcosim firmware --help)",
                        argv[1], argv[1][0] != '-' ? "; to run it: rtcosim firmware run '" : "",
                        argv[1][0] != '-' ? argv[1] : "", argv[1][0] != '-' ? "'" : "");
    rtcosim_board_config config = {0};
    firmware_output out = {{stdout}};
    int rc = CLI_EXIT_OK;
    for (int i = 2; i < argc && rc == CLI_EXIT_OK; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(a, "--board") == 0 && has_value) {
            config.board = argv[++i];
        } else if (strcmp(a, "--stop-time") == 0 && has_value) {
            char *end;
            double s = strtod(argv[++i], &end);
            if (*end || !(s > 0) || s > 9.2e9)
                rc = cli_fail("--stop-time %s: not a positive number of seconds", argv[i]);
            config.stop_time_ns = (int64_t)(s * 1e9 + 0.5);
        } else if (strcmp(a, "--uart") == 0 && has_value) {
            const char *v = argv[++i];
            if (v[0] < '1' || v[0] > '4' || v[1] != '=' || !v[2]) {
                rc = cli_fail("--uart %s: expected N=FILE with N in 1..4", v);
                break;
            }
            unsigned n = (unsigned)(v[0] - '0');
            if (out.uart[n])
                fclose(out.uart[n]);
            out.uart[n] = fopen(v + 2, "wb");
            if (!out.uart[n])
                rc = cli_fail("--uart %s: cannot open %s: %s", v, v + 2, strerror(errno));
        } else if (a[0] == '-') {
            rc = cli_fail("firmware run: unknown option or missing value '%s'", a);
            rc = CLI_EXIT_USAGE;
        } else {
            rc = cli_positional("firmware run", "firmware", &config.firmware, argv, i);
        }
    }
    if (rc == CLI_EXIT_OK && !config.firmware)
        rc = cli_fail("firmware run: no firmware ELF given (see rtcosim firmware --help)");
    rtcosim_board *b = NULL;
    rtcosim_error err = {0};
    rtcosim_board_result result = {0};
    config.output = on_output;
    config.user = &out;
    if (rc == CLI_EXIT_OK && rtcosim_board_create(&config, &b, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    if (rc == CLI_EXIT_OK && rtcosim_board_run(b, &result, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    else if (rc == CLI_EXIT_OK && result.exited)
        rc = result.exit_code & 0xFF;
    rtcosim_board_free(b);
    fflush(stdout);
    for (unsigned n = 1; n < 5; n++)
        if (out.uart[n] && fclose(out.uart[n]) != 0 && rc == CLI_EXIT_OK)
            rc = cli_fail("--uart: writing UART %u failed", n);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_firmware = {
    "firmware", "run firmware built for a board (mps2-an386) alone on the emulated core",
    run_firmware};
