/* `rtcosim plot RESULTS... [VARIABLE ...] -o FILE.svg|.png|.pdf`: draws result
 * time series from CSV or MAT files (one panel per unit, units on the axes;
 * several files compared in one plot), or any column against another, so a
 * run can be looked at without leaving the tool. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "signals.h"
#include "rtcosim/plot.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim plot RESULTS.csv|.mat|.mf4|.mdf [MORE ...] [VARIABLE ...] -o FILE.svg|FILE.png\n"
            "                    [options]\n\n"
            "Plots the named variables (default: all of the first file) of results files (first\n"
            "column time). CSV may carry a units row (simulate --csv-units); MAT files (Dymola\n"
            "layout) carry units in their descriptions. Variables with different units go to\n"
            "separate panels sharing the time axis (variables without units: by magnitude).\n"
            "With several files, each variable is drawn from every file that has it, one line\n"
            "style per file, to compare runs. A VARIABLE with *, ? or [...] is a pattern for\n"
            "every column it matches ('engine.*', '*_rpm'; quoted, so the shell leaves it).\n\n"
            "options:\n"
            "  -o, --output FILE     output file; .svg, .png or .pdf (vector, for reports)\n"
            "                        picks the format\n"
            "  --panels auto|one     auto: one panel per unit (default); one: a single axis\n"
            "  --from T, --to T      time window in seconds (with --x: window of that column)\n"
            "  --units-from FILE     units for variables the results carry none for, from an\n"
            "                        .fmu, .ssd/.ssp or .dbc/.arxml (Message.Signal) file\n"
            "  --x COLUMN            column for the x axis (default: time)\n"
            "  --log-x, --log-y      base-10 logarithmic axes; says how many values at or below\n"
            "                        zero it left out\n"
            "  --title TEXT          plot title (default: the file names)\n"
            "  --x-label TEXT        x axis label\n"
            "  --y-label TEXT        y axis label (one panel only; default: name and unit)\n"
            "  --size WxH            size in pixels (default 1000x600)\n");
}

static bool is_results_file(const char *arg)
{
    const char *dot = strrchr(arg, '.'), *slash = strrchr(arg, '/');
    if (dot && (!slash || dot > slash) && (strcasecmp(dot, ".csv") == 0 || strcasecmp(dot, ".mat") == 0 ||
                                          strcasecmp(dot, ".mf4") == 0 || strcasecmp(dot, ".mdf") == 0))
        return true;
    /* another results file without those extensions: a path to an existing file */
    struct stat st;
    return strchr(arg, '/') && stat(arg, &st) == 0 && S_ISREG(st.st_mode);
}

static int run_plot(int argc, char **argv)
{
    rtcosim_plot_options opts = {0};
    const char *output = NULL;
    const char **files = calloc((size_t)argc, sizeof *files);
    const char **vars = calloc((size_t)argc, sizeof *vars);
    size_t nfiles = 0, nvars = 0;
    if (!vars || !files) {
        free(files);
        free(vars);
        return cli_fail("out of memory");
    }
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(files);
            free(vars);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            rc = has_value ? (output = argv[++i], 0) : cli_fail("%s needs a file name", a);
        } else if (strcmp(a, "--x") == 0) {
            rc = has_value ? (opts.x = argv[++i], 0) : cli_fail("--x needs a column name");
        } else if (strcmp(a, "--title") == 0) {
            rc = has_value ? (opts.title = argv[++i], 0) : cli_fail("--title needs a text");
        } else if (strcmp(a, "--x-label") == 0) {
            rc = has_value ? (opts.x_label = argv[++i], 0) : cli_fail("--x-label needs a text");
        } else if (strcmp(a, "--y-label") == 0) {
            rc = has_value ? (opts.y_label = argv[++i], 0) : cli_fail("--y-label needs a text");
        } else if (strcmp(a, "--units-from") == 0) {
            rc = has_value ? (opts.units_from = argv[++i], 0)
                           : cli_fail("--units-from needs an .fmu, .ssd, .ssp, .dbc or .arxml file");
        } else if (strcmp(a, "--panels") == 0) {
            const char *v = has_value ? argv[++i] : "";
            if (strcmp(v, "auto") == 0)
                opts.panels = RTCOSIM_PLOT_PANELS_AUTO;
            else if (strcmp(v, "one") == 0)
                opts.panels = RTCOSIM_PLOT_PANELS_ONE;
            else
                rc = cli_fail("--panels takes auto or one (got '%s')", v);
        } else if (strcmp(a, "--from") == 0) {
            rc = cli_parse_window_time("", "--from", has_value ? argv[++i] : NULL,
                                       &opts.from);
            opts.has_from = true;
        } else if (strcmp(a, "--to") == 0) {
            rc = cli_parse_window_time("", "--to", has_value ? argv[++i] : NULL, &opts.to);
            opts.has_to = true;
        } else if (strcmp(a, "--log-x") == 0) {
            opts.log_x = true;
        } else if (strcmp(a, "--log-y") == 0) {
            opts.log_y = true;
        } else if (strcmp(a, "--size") == 0) {
            char tail = 0;
            if (!has_value || sscanf(argv[++i], "%dx%d%c", &opts.width, &opts.height, &tail) != 2 ||
                opts.width <= 0 || opts.height <= 0)
                rc = cli_fail("--size needs WIDTHxHEIGHT in pixels, e.g. 1200x700 (200x150 to "
                              "20000x20000)");
        } else if (a[0] == '-' && a[1] == '-') {
            rc = cli_unknown_option("plot", a, usage);
        } else if (nvars == 0 && (nfiles == 0 || is_results_file(a))) {
            files[nfiles++] = a; /* results files come first, then variables */
        } else {
            vars[nvars++] = a;
        }
    }
    if (rc == 0 && nfiles == 0) {
        usage(stderr);
        rc = cli_fail("plot: no results file given");
    } else if (rc == 0 && !output) {
        rc = cli_fail("plot: no output file given (-o FILE.svg or FILE.png)");
    }
    if (rc == 0)
        rc = cli_check_output_not_input("-o", output, files, nfiles);
    if (rc == 0) {
        rtcosim_error err;
        rtcosim_error_clear(&err);
        rtcosim_plot_stats stats = {0};
        /* Ctrl-C: no half image (it is written as OUT.part, renamed whole) */
        cli_signals_install();
        cli_signals_abandon_on_first("plot", output);
        rtcosim_status st = rtcosim_plot_files(files, nfiles, vars, nvars, output, &opts, &stats,
                                               &err);
        cli_signals_restore();
        if (st != RTCOSIM_OK)
            rc = cli_fail_error(&err);
        else {
            if (stats.points_dropped_log)
                fprintf(stderr, "rtcosim: plot: the log axis left out %zu value%s at or below zero\n",
                        stats.points_dropped_log, stats.points_dropped_log == 1 ? "" : "s");
            if (stats.text_columns_left_out)
                fprintf(stderr, "rtcosim: plot: left out %zu column%s of text (String or Binary "
                        "values)\n",
                        stats.text_columns_left_out, stats.text_columns_left_out == 1 ? "" : "s");
        }
    }
    free(files);
    free(vars);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_plot = {"plot", "plot result time series to SVG, PNG or PDF",
                                                  run_plot};
