/* `rtcosim plot RESULTS.csv [VARIABLE ...] -o FILE.svg|.png`: draws result
 * time series (or any column against another, on log axes if asked) so a run
 * can be looked at without leaving the tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/plot.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim plot RESULTS.csv [VARIABLE ...] -o FILE.svg|FILE.png [options]\n\n"
            "Plots the named columns (default: all) of a results CSV (first column time).\n\n"
            "options:\n"
            "  -o, --output FILE   output file; .svg or .png picks the format\n"
            "  --x COLUMN          column for the x axis (default: time)\n"
            "  --log-x, --log-y    base-10 logarithmic axes\n"
            "  --title TEXT        plot title (default: the CSV file name)\n"
            "  --x-label TEXT      x axis label\n"
            "  --y-label TEXT      y axis label\n"
            "  --size WxH          size in pixels (default 1000x600)\n");
}

static int run_plot(int argc, char **argv)
{
    rtcosim_plot_options opts = {0};
    const char *csv = NULL, *output = NULL;
    const char **vars = calloc((size_t)argc, sizeof *vars);
    size_t nvars = 0;
    if (!vars)
        return cli_fail("out of memory");
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
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
        } else if (strcmp(a, "--log-x") == 0) {
            opts.log_x = true;
        } else if (strcmp(a, "--log-y") == 0) {
            opts.log_y = true;
        } else if (strcmp(a, "--size") == 0) {
            char tail = 0;
            if (!has_value || sscanf(argv[++i], "%dx%d%c", &opts.width, &opts.height, &tail) != 2)
                rc = cli_fail("--size needs WIDTHxHEIGHT in pixels, e.g. 1200x700");
        } else if (a[0] == '-' && a[1] == '-') {
            rc = cli_unknown_option("plot", a, usage);
        } else if (!csv) {
            csv = a;
        } else {
            vars[nvars++] = a;
        }
    }
    if (rc == 0 && !csv) {
        usage(stderr);
        rc = cli_fail("plot: no results file given");
    } else if (rc == 0 && !output) {
        rc = cli_fail("plot: no output file given (-o FILE.svg or FILE.png)");
    }
    if (rc == 0) {
        rtcosim_error err;
        rtcosim_error_clear(&err);
        if (rtcosim_plot_csv(csv, vars, nvars, output, &opts, &err) != RTCOSIM_OK)
            rc = cli_fail_error(&err);
    }
    free(vars);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_plot = {"plot", "plot result time series to SVG or PNG",
                                                  run_plot};
