/* `rtcosim compare REFERENCE ACTUAL [VARIABLE ...]`: a run's results held
 * against a reference run's, variable by variable, within tolerances of
 * value and time (rtcosim_results_compare); exit status 0 when all match, 1
 * when one differs, 2 when the comparison could not be made (as diff(1)),
 * so that a regression test in CI needs nothing else. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "signals.h"
#include "rtcosim/plot.h"
#include "rtcosim/results.h"

enum { EXIT_DIFFERS = 1, EXIT_TROUBLE = 2, PLOT_MAX = 8 };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim compare REFERENCE ACTUAL [VARIABLE ...] [--rtol R] [--atol A]\n"
            "                       [--range-tol D] [--time-tol T] [--from T] [--to T]\n"
            "                       [--exclude VAR] [--fmi-cross-check] [--report F.csv]\n"
            "                       [--junit F.xml]\n"
            "                       [--plot F.png|F.svg|F.pdf] [-q]\n\n"
            "ACTUAL's results held against REFERENCE's (each a CSV, Dymola .mat or MDF 4/3\n"
            "file), every numeric variable of REFERENCE, or those named (a name with *, ? or\n"
            "[...] a pattern for the columns it matches: 'engine.*'). Each variable is a\n"
            "curve, linear between samples (two at one time: an event's jump); the runs match\n"
            "when every sample of each lies within tolerance of the other curve somewhere\n"
            "within --time-tol of its time, the tolerance at a value r being\n"
            "max(atol, rtol |r|, range-tol * REFERENCE's range over the window). Checked both\n"
            "ways, so a spike either run lacks is found. Over REFERENCE's time span (or --from\n"
            "/ --to within it), which ACTUAL must cover.\n"
            "Prints per variable the largest difference at equal times, where it is, the\n"
            "samples outside the tolerance and the first time one is.\n"
            "Exit status: 0 all match, 1 some differ, 2 trouble (a file that cannot be read,\n"
            "a variable REFERENCE lacks, a bad option).\n\n"
            "options:\n"
            "  --rtol R          relative to the value (default 1e-6)\n"
            "  --atol A          absolute, in the variable's unit (default 0)\n"
            "  --range-tol D     relative to REFERENCE's range in the window (default 1e-6)\n"
            "  --time-tol T      seconds an event may move (default 0)\n"
            "  --from T, --to T  compare only T_from <= time <= T_to (seconds)\n"
            "  --fmi-cross-check the FMI cross-check's validation instead of the tolerances\n"
            "                    (as FMPy applies it to vendors' results): REFERENCE at 1000\n"
            "                    points over the window, a band of the minimum and maximum of\n"
            "                    21 of them widened by 10 %% of its range; a variable differs\n"
            "                    when more than 10 %% of ACTUAL's samples lie outside\n"
            "  --exclude VAR     leave out a variable (or the variables a pattern matches,\n"
            "                    'cpu_*'); repeatable\n"
            "  --report F.csv    a row per variable: name, verdict, samples, differences\n"
            "  --junit F.xml     the verdicts as a JUnit XML report (a testcase per variable\n"
            "                    and one for the time span), as CI servers show test results\n"
            "  --plot F          REFERENCE and ACTUAL drawn together: the variables that\n"
            "                    differ (the first %d), or all compared (first %d) if none\n"
            "  -q, --quiet       only the summary line (and the exit status)\n",
            PLOT_MAX, PLOT_MAX);
}

static int trouble(int rc)
{
    return rc ? EXIT_TROUBLE : 0;
}

static int parse_number(const char *option, const char *text, double *out)
{
    char *end = NULL;
    double v = text ? strtod(text, &end) : NAN;
    if (!text || !*text || *end || !isfinite(v) || v < 0)
        return cli_fail("compare: %s needs a number >= 0, e.g. %s 1e-6 (got '%s')", option,
                        option, text ? text : "");
    *out = v;
    return 0;
}

/* %g with "-" for NaN. */
static const char *num(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.6g", v);
    return buf;
}

static int write_report(const char *path, const rtcosim_compare_result *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_fail("%s: cannot write the report", path);
    fprintf(f, "\"variable\",\"result\",\"checked\",\"outside\",\"first_outside_s\","
               "\"max_abs_diff\",\"max_abs_diff_at_s\",\"max_rel_diff\",\"reference_range\"\n");
    char a[32], b[32], c[32], d[32], e[32];
    for (size_t i = 0; i < r->variable_count; i++) {
        const rtcosim_compare_variable *v = &r->variables[i];
        cli_put_csv_quoted(v->name, f);
        fprintf(f, ",%s,%zu,%zu,%s,%s,%s,%s,%s\n",
                v->missing ? "missing" : v->differs ? "differs" : "matches", v->checked,
                v->outside, num(v->first_outside_time, a, sizeof a),
                num(v->missing ? NAN : v->max_abs_diff, b, sizeof b),
                num(v->max_abs_diff_time, c, sizeof c),
                num(v->missing ? NAN : v->max_rel_diff, d, sizeof d),
                num(v->ref_range, e, sizeof e));
    }
    if (fclose(f) != 0)
        return cli_fail("%s: writing the report failed", path);
    return 0;
}

static int draw(const char *output, const char *reference, const char *actual,
                const rtcosim_compare_result *r, double from, double to)
{
    const char *names[PLOT_MAX];
    size_t n = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++) /* those that differ, else all */
        for (size_t i = 0; i < r->variable_count && n < PLOT_MAX; i++)
            if (!r->variables[i].missing && (pass == 1 || r->variables[i].differs))
                names[n++] = r->variables[i].name;
    if (n == 0)
        return cli_fail("compare: --plot: no variable both files hold");
    const char *paths[2] = {reference, actual};
    char title[512];
    snprintf(title, sizeof title, "%s (reference) vs %s", reference, actual);
    rtcosim_plot_options po = {.title = title, .has_from = !isnan(from), .from = from,
                               .has_to = !isnan(to), .to = to};
    rtcosim_error err;
    /* Ctrl-C: no half image (it is written as OUT.part, renamed whole) */
    cli_signals_install();
    cli_signals_abandon_on_first("compare --plot", output);
    rtcosim_status st = rtcosim_plot_files(paths, 2, names, n, output, &po, NULL, &err);
    cli_signals_restore();
    return st == RTCOSIM_OK ? 0 : cli_fail_error(&err);
}

static int run_compare(int argc, char **argv)
{
    rtcosim_compare_options o = {.rtol = 1e-6, .range_tol = 1e-6, .from = NAN, .to = NAN};
    const char *files[2] = {NULL, NULL}, *report = NULL, *plot = NULL, *junit = NULL;
    const char **vars = calloc((size_t)argc, sizeof *vars);
    const char **excluded = calloc((size_t)argc, sizeof *excluded);
    size_t nfiles = 0, nvars = 0, nexcluded = 0;
    bool quiet = false;
    const char *tolerance_given = NULL; /* (not with --fmi-cross-check) */
    if (!vars || !excluded) {
        free(vars);
        free(excluded);
        return trouble(cli_fail("out of memory"));
    }
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(vars);
            free(excluded);
            return 0;
        } else if (strcmp(a, "--rtol") == 0) {
            rc = parse_number(a, v, &o.rtol), i++;
            tolerance_given = a;
        } else if (strcmp(a, "--atol") == 0) {
            rc = parse_number(a, v, &o.atol), i++;
            tolerance_given = a;
        } else if (strcmp(a, "--range-tol") == 0) {
            rc = parse_number(a, v, &o.range_tol), i++;
            tolerance_given = a;
        } else if (strcmp(a, "--time-tol") == 0) {
            rc = parse_number(a, v, &o.time_tol), i++;
            tolerance_given = a;
        } else if (strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) {
            rc = cli_parse_window_time("compare: ", a, v,
                                       strcmp(a, "--from") == 0 ? &o.from : &o.to),
            i++;
        } else if (strcmp(a, "--report") == 0 || strcmp(a, "--plot") == 0 ||
                   strcmp(a, "--junit") == 0) {
            if (!v || !*v)
                rc = cli_fail("compare: %s needs a file name", a);
            else if (strcmp(a, "--report") == 0)
                report = v;
            else if (strcmp(a, "--junit") == 0)
                junit = v;
            else
                plot = v;
            i++;
        } else if (strcmp(a, "--exclude") == 0) {
            if (!v || !*v)
                rc = cli_fail("compare: --exclude needs a variable name or pattern, e.g. "
                              "--exclude 'cpu_*'");
            else
                excluded[nexcluded++] = v;
            i++;
        } else if (strcmp(a, "--fmi-cross-check") == 0) {
            o.fmi_cross_check = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (a[0] == '-' && a[1] == '-') {
            rc = cli_unknown_option("compare", a, usage);
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            vars[nvars++] = a;
        }
    }
    if (rc == 0 && nfiles < 2) {
        usage(stderr);
        rc = cli_fail("compare: %s", nfiles ? "no ACTUAL file given" : "no REFERENCE file given");
    }
    if (rc == 0 && o.fmi_cross_check && tolerance_given)
        rc = cli_fail("compare: %s does not apply with --fmi-cross-check (its band is the "
                      "cross-check's own)", tolerance_given);
    if (rc == 0) {
        const cli_output outs[] = {{"--report", report}, {"--plot", plot}, {"--junit", junit}};
        rc = cli_check_outputs(outs, 3, files, 2);
    }
    rtcosim_compare_result *r = NULL;
    if (rc == 0) {
        o.variables = vars;
        o.variable_count = nvars;
        o.exclude = excluded;
        o.exclude_count = nexcluded;
        rtcosim_error err;
        rtcosim_error_clear(&err);
        if (rtcosim_results_compare(files[0], files[1], &o, &r, &err) != RTCOSIM_OK)
            rc = cli_fail_error(&err);
    }
    if (rc == 0 && !quiet) {
        printf("reference %s: %zu row%s, %.9g .. %.9g s\n", files[0], r->ref_rows,
               r->ref_rows == 1 ? "" : "s", r->ref_start, r->ref_stop);
        printf("actual    %s: %zu row%s, %.9g .. %.9g s\n", files[1], r->act_rows,
               r->act_rows == 1 ? "" : "s", r->act_start, r->act_stop);
        if (o.fmi_cross_check)
            printf("compared over %.9g .. %.9g s as the FMI cross-check validates: a band of "
                   "10 %% of the range, 21 of 1000 points wide; over 10 %% outside differs\n",
                   r->from, r->to);
        else
            printf("compared over %.9g .. %.9g s; tolerance max(atol %g, rtol %g |value|, "
                   "range-tol %g range), time %g s\n", r->from, r->to, o.atol, o.rtol,
                   o.range_tol, o.time_tol);
        printf("%-28s %-8s %13s %13s %11s %9s %13s\n", "variable", "result", "max |diff|",
               "at t (s)", "max rel", "outside", "first out (s)");
        char a[32], b[32], c[32], d[32];
        for (size_t i = 0; i < r->variable_count; i++) {
            const rtcosim_compare_variable *v = &r->variables[i];
            if (v->missing) {
                printf("%-28s %-8s (not in %s)\n", v->name, "MISSING", files[1]);
                continue;
            }
            printf("%-28s %-8s %13s %13s %11s %9zu %13s\n", v->name,
                   v->differs ? "DIFFERS" : "ok", num(v->max_abs_diff, a, sizeof a),
                   num(v->max_abs_diff_time, b, sizeof b), num(v->max_rel_diff, c, sizeof c),
                   v->outside, num(v->first_outside_time, d, sizeof d));
        }
        if (r->empty_in_reference)
            printf("(%zu column%s of %s without a number, not in %s: not compared)\n",
                   r->empty_in_reference, r->empty_in_reference == 1 ? "" : "s", files[0],
                   files[1]);
        if (r->extra_in_actual)
            printf("(%zu variable%s of %s not in the reference: not compared)\n",
                   r->extra_in_actual, r->extra_in_actual == 1 ? "" : "s", files[1]);
        if (r->excluded)
            printf("(%zu variable%s left out by --exclude)\n", r->excluded,
                   r->excluded == 1 ? "" : "s");
    }
    if (rc == 0 && report)
        rc = write_report(report, r);
    if (rc == 0 && junit) {
        rtcosim_error err;
        if (rtcosim_compare_write_junit(r, files[0], files[1], junit, &err) != RTCOSIM_OK)
            rc = cli_fail_error(&err);
    }
    if (rc == 0 && plot)
        rc = draw(plot, files[0], files[1], r, o.from, o.to);
    int status = trouble(rc);
    if (rc == 0) {
        bool differs = r->differing > 0 || r->span_short;
        if (r->span_short)
            printf("%s covers %.9g .. %.9g s, not the compared %.9g .. %.9g s\n", files[1],
                   r->act_start, r->act_stop, r->from, r->to);
        printf("%s: %zu of %zu variable%s within tolerance%s\n", differs ? "DIFFERS" : "MATCHES",
               r->variable_count - r->differing, r->variable_count,
               r->variable_count == 1 ? "" : "s",
               r->span_short ? "; the time span falls short" : "");
        status = differs ? EXIT_DIFFERS : 0;
    }
    rtcosim_compare_result_free(r);
    free(vars);
    free(excluded);
    return status;
}

const rtcosim_cli_command rtcosim_cli_cmd_compare = {
    "compare", "hold a run's results against a reference run's within tolerances of value and "
    "time (exit 0 match, 1 differ)", run_compare};
