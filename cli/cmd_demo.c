/* `rtcosim demo`: the first thing to try after installing. Simulates the
 * example FMUs shipped with rtcosim (BouncingBall, FMI 3.0; Dahlquist, FMI
 * 2.0) with their default experiments and reports steps, speed, final values
 * and where the results went; needs no file from the user. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "rtcosim/fmu.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"

enum { MAX_SHOWN = 8 };

static void usage(FILE *out)
{
    fprintf(out, "usage: rtcosim demo [--output-dir DIR]\n\n"
                 "Simulate the example FMUs that come with rtcosim (BouncingBall, FMI 3.0, and\n"
                 "Dahlquist, FMI 2.0) with their default experiments and print a summary.\n\n"
                 "  --output-dir DIR   where the result CSV files go (default: rtcosim-demo)\n"
                 "  --help             show this text\n\n"
                 "The FMUs are looked up in $RTCOSIM_FMU_DIR, <bindir>/../share/rtcosim/fmus, the\n"
                 "install prefix and the build tree.\n");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_value(const rtcosim_variable *v, const rtcosim_value *value)
{
    char text[RTCOSIM_FORMAT_MAX];
    switch (v->type) {
    case RTCOSIM_TYPE_FLOAT64: rtcosim_format_double(value->f64, text); break;
    case RTCOSIM_TYPE_FLOAT32: rtcosim_format_float(value->f32, text); break;
    case RTCOSIM_TYPE_BOOLEAN: snprintf(text, sizeof text, "%s", value->b ? "true" : "false"); break;
    case RTCOSIM_TYPE_STRING: printf("%s = \"%s\"", v->name, value->s ? value->s : ""); return;
    default:
        if (v->type == RTCOSIM_TYPE_UINT8 || v->type == RTCOSIM_TYPE_UINT16 ||
            v->type == RTCOSIM_TYPE_UINT32 || v->type == RTCOSIM_TYPE_UINT64)
            rtcosim_format_uint64(value->u64, text);
        else
            rtcosim_format_int64(value->i64, text);
    }
    printf("%s = %s", v->name, text);
}

/* The Dahlquist equation der(x) = -k*x has x(t) = x0*exp(-k*t): show how close
 * the run came. */
static void print_dahlquist_check(const rtcosim_component *c, const rtcosim_variable *const *outs,
                                  const rtcosim_value *values, size_t n, rtcosim_time_ns end)
{
    const rtcosim_variable *k = rtcosim_component_find_variable(c, "k");
    const rtcosim_variable *x0 = rtcosim_component_find_variable(c, "x0");
    if (!k || !x0 || !k->has_start || !x0->has_start || n < 1 || strcmp(outs[0]->name, "x") != 0)
        return;
    double exact = x0->start.f64 * exp(-k->start.f64 * rtcosim_time_to_seconds(end));
    printf("  exact x0*exp(-k*t) = %.6g; relative error %.2g (explicit Euler)\n", exact,
           fabs(values[0].f64 - exact) / fabs(exact));
}

static int demo_one(const char *file_name, const char *output_dir)
{
    char path[4096], out_path[4096];
    rtcosim_error err;
    if (rtcosim_example_fmu_path(file_name, path, sizeof path, &err) != RTCOSIM_OK)
        return cli_fail("demo: %s", err.message);
    rtcosim_component *c = NULL;
    if (rtcosim_fmu_load(path, NULL, &c, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    snprintf(out_path, sizeof out_path, "%s/%.*s.csv", output_dir,
             (int)(strlen(file_name) - strlen(".fmu")), file_name);
    rtcosim_simulate_options o = {.start_time = RTCOSIM_SIMULATE_UNSET,
                                  .stop_time = RTCOSIM_SIMULATE_UNSET,
                                  .output_interval = RTCOSIM_SIMULATE_UNSET, .tolerance = -1,
                                  .output_file = out_path};
    rtcosim_simulate_defaults(c, &o);
    const rtcosim_variable *outs[MAX_SHOWN];
    size_t n_out = 0;
    rtcosim_simulate_outputs(c, NULL, 0, outs, MAX_SHOWN, &n_out, NULL);
    rtcosim_value final[MAX_SHOWN];
    rtcosim_simulate_result res = {.final_values = final, .final_capacity = MAX_SHOWN};
    double t0 = now_seconds();
    rtcosim_status st = rtcosim_simulate(c, &o, &res, &err);
    double wall = now_seconds() - t0;
    if (st != RTCOSIM_OK) {
        rtcosim_component_free(c);
        return cli_fail("%s: %s", path, err.message);
    }
    char start[RTCOSIM_FORMAT_MAX], stop[RTCOSIM_FORMAT_MAX], step[RTCOSIM_FORMAT_MAX];
    rtcosim_format_time(o.start_time, start);
    rtcosim_format_time(res.end_time, stop);
    rtcosim_format_time(o.output_interval, step);
    printf("%s (FMI %s)  %s\n", rtcosim_component_model_name(c), info ? info->fmi_version_text : "?",
           path);
    printf("  %s s .. %s s, step %s s: %llu steps in %.3g ms (%.0f ns per step)\n", start, stop, step,
           (unsigned long long)res.steps, wall * 1e3, res.steps ? wall * 1e9 / (double)res.steps : 0.0);
    printf("  final: ");
    size_t shown = n_out < MAX_SHOWN ? n_out : MAX_SHOWN;
    for (size_t i = 0; i < shown; i++) {
        printf(i ? ", " : "");
        print_value(outs[i], &final[i]);
    }
    printf("%s\n", n_out > shown ? ", ..." : "");
    print_dahlquist_check(c, outs, final, shown, res.end_time);
    printf("  results: %s (%llu rows)\n\n", out_path, (unsigned long long)res.rows_written);
    rtcosim_component_free(c);
    return 0;
}

static int run_demo(int argc, char **argv)
{
    const char *output_dir = "rtcosim-demo";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--output-dir") == 0) {
            if (i + 1 >= argc)
                return cli_fail("demo: option --output-dir needs a directory");
            output_dir = argv[++i];
        } else {
            return cli_fail("demo: unknown argument '%s' (see rtcosim demo --help)", argv[i]);
        }
    }
    if (mkdir(output_dir, 0777) != 0 && errno != EEXIST)
        return cli_fail("%s: cannot create the results directory: %s", output_dir, strerror(errno));
    printf("rtcosim demo: simulating the example FMUs with their default experiments\n\n");
    static const char *const fmus[] = {"BouncingBall-fmi3.fmu", "Dahlquist-fmi2.fmu"};
    for (size_t i = 0; i < sizeof fmus / sizeof fmus[0]; i++)
        if (demo_one(fmus[i], output_dir) != 0)
            return 1;
    printf("Next: `rtcosim info FMU` lists an FMU's variables; `rtcosim simulate FMU --help`\n"
           "shows how to set start values, inputs and outputs.\n");
    return 0;
}

const rtcosim_cli_command rtcosim_cli_cmd_demo = {
    "demo", "simulate the example FMUs that come with rtcosim and summarize", run_demo};
