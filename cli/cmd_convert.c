/* `rtcosim convert IN OUT [VARIABLE ...] [--from T] [--to T]`: a results file
 * or measurement into another results format (rtcosim_results_convert): a
 * logger's MDF to CSV for a spreadsheet, a CSV to MAT for Dymola or to MF4
 * for CANape, the variables and the time window wanted. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/results.h"
#include "signals.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim convert IN OUT [VARIABLE ...] [--from T] [--to T] [--csv-units]\n"
            "                       [--raster STEP [--hold]]\n\n"
            "A results file or measurement in another results format: IN a CSV (rtcosim's or\n"
            "fmusim's, with or without a units row), a Modelica/Dymola .mat, an ASAM MDF 4 or 3\n"
            "measurement (.mf4, .mdf: CANape, INCA, CANoe, asammdf; its channel groups put on\n"
            "the union of their times, each channel holding its last sample); OUT by its name:\n"
            ".csv (as fmusim writes it), .mat (Dymola layout), .mf4 (ASAM MDF 4.10). Units kept,\n"
            "times to the nanosecond; columns of text (String, Binary hex) kept from a CSV in\n"
            "a CSV (quoted; on a raster each point holds the text of the row at or before\n"
            "it), left out otherwise (said on stderr).\n"
            "Only the named VARIABLEs, in that order, when some are named; a VARIABLE with *,\n"
            "? or [...] is a pattern for the columns it matches, in the file's order\n"
            "('engine.*', '*_rpm'; quoted, so the shell leaves it). Ctrl-C (or SIGTERM)\n"
            "stops with OUT holding the rows converted so far (exit status 130).\n\n"
            "options:\n"
            "  --from T, --to T      keep the rows with T_from <= time <= T_to (seconds)\n"
            "  --csv-units           a CSV OUT gets a second row with the units\n"
            "  --raster STEP         the rows resampled every STEP seconds from --from (else\n"
            "                        the first row) to --to (else the last): each point\n"
            "                        interpolated linearly between the rows around it (a\n"
            "                        jump's later row after it); none before the first row\n"
            "  --hold                with --raster: the last row at or before each point\n"
            "                        (for integer, Boolean and state signals)\n");
}

static bool stop_requested(void *context)
{
    (void)context;
    return atomic_load_explicit(&cli_stop_signal, memory_order_relaxed) != 0;
}

static int run_convert(int argc, char **argv)
{
    rtcosim_results_convert_options o = {.from = NAN, .to = NAN, .stop = stop_requested};
    const char *files[2] = {NULL, NULL};
    const char **vars = calloc((size_t)argc, sizeof *vars);
    size_t nfiles = 0, nvars = 0;
    if (!vars)
        return cli_fail("out of memory");
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(vars);
            return 0;
        } else if (strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) {
            rc = cli_parse_window_time("convert: ", a, v,
                                       strcmp(a, "--from") == 0 ? &o.from : &o.to);
            i++;
        } else if (strcmp(a, "--csv-units") == 0) {
            o.csv_units = true;
        } else if (strcmp(a, "--raster") == 0) {
            char *end = NULL;
            o.raster = v ? strtod(v, &end) : NAN;
            if (!v || !*v || *end || !(o.raster > 0) || isinf(o.raster))
                rc = cli_fail("convert: --raster needs a step in seconds > 0, e.g. --raster "
                              "0.01 (got '%s')", v ? v : "");
            i++;
        } else if (strcmp(a, "--hold") == 0) {
            o.hold = true;
        } else if (a[0] == '-' && a[1] == '-') {
            rc = cli_unknown_option("convert", a, usage);
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            vars[nvars++] = a;
        }
    }
    if (rc == 0 && nfiles < 2) {
        usage(stderr);
        rc = cli_fail("convert: %s", nfiles ? "no output file given (OUT.csv, OUT.mat or OUT.mf4)"
                                            : "no input file given");
    }
    if (rc == 0 && o.hold && !(o.raster > 0))
        rc = cli_fail("convert: --hold goes with --raster (the value held at each raster point)");
    if (rc == 0)
        rc = cli_check_output_not_input("OUT", files[1], files, 1);
    if (rc == 0) {
        o.variables = vars;
        o.variable_count = nvars;
        rtcosim_error err;
        rtcosim_error_clear(&err);
        rtcosim_results_convert_stats stats;
        cli_signals_install();
        rtcosim_status st = rtcosim_results_convert(files[0], files[1], &o, &stats, &err);
        cli_signals_restore();
        int late = st == RTCOSIM_OK ? atomic_load(&cli_stop_signal) : 0;
        if (late) {
            /* a signal while the last rows were finished (an .mf4 file's
             * blocks compressed): the file is whole, the stop still said */
            fprintf(stderr, "rtcosim: convert: %s came as the file was finished: %s holds all "
                    "%zu rows\n", cli_signal_name(late), files[1], stats.rows);
            rc = cli_signal_exit_code(late);
        } else if (st == RTCOSIM_ECANCELED && stats.stopped) {
            int signo = atomic_load(&cli_stop_signal);
            if (stats.rows == 0) /* (in the input's first reading: OUT not touched) */
                fprintf(stderr, "rtcosim: convert: ended by %s while reading %s: nothing "
                        "written\n", cli_signal_name(signo), files[0]);
            else
                fprintf(stderr, "rtcosim: convert: ended by %s after %zu rows: %s holds them\n",
                        cli_signal_name(signo), stats.rows, files[1]);
            rc = cli_signal_exit_code(signo);
        } else if (st != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
        } else {
            if (stats.text_columns_left_out)
                fprintf(stderr, "rtcosim: convert: left out %zu column%s of text (String or "
                        "Binary values)\n", stats.text_columns_left_out,
                        stats.text_columns_left_out == 1 ? "" : "s");
            if (stats.empty_columns_left_out)
                fprintf(stderr, "rtcosim: convert: left out %zu column%s without a value in any "
                        "row\n", stats.empty_columns_left_out,
                        stats.empty_columns_left_out == 1 ? "" : "s");
            printf("%s: %zu row%s of %zu variable%s\n", files[1], stats.rows,
                   stats.rows == 1 ? "" : "s", stats.columns, stats.columns == 1 ? "" : "s");
        }
    }
    free(vars);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_convert = {
    "convert", "convert a results file or measurement between CSV, MAT and MDF 4 (variables, "
    "time window)", run_convert};
