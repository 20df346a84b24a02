/* rtcosim_oscillator: run the two-mass oscillator (B2) once with the chosen
 * coupling and print its error against the exact solution; optionally write
 * the trajectory as CSV (time, mass1.x, mass1.v, mass2.x, mass2.v). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oscillator.h"

static int usage(void)
{
    fprintf(stderr, "usage: rtcosim_oscillator [--case 1|2] [--step SECONDS] [--stop SECONDS]\n"
                    "  [--order jacobi|gauss-seidel] [--extrapolation zoh|foh|soh]\n"
                    "  [--correction none|dead-time|integrator] [--adaptive RTOL] [--threads N]\n"
                    "  [--output FILE.csv]\n");
    return 2;
}

static rtcosim_status write_row(void *context, rtcosim_time_ns t, const double *v, size_t n,
                                rtcosim_error *err)
{
    FILE *f = context;
    fprintf(f, "%.17g", rtcosim_time_to_seconds(t));
    for (size_t i = 0; i < n; i++)
        fprintf(f, ",%.17g", v[i]);
    if (fprintf(f, "\n") < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "cannot write the output file");
    return RTCOSIM_OK;
}

int main(int argc, char **argv)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_setup s;
    rtcosim_error err = {0};
    int case_number = 1;
    const char *output = NULL;
    rtcosim_oscillator_setup_init(&s);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        i++;
        rtcosim_status st = RTCOSIM_OK;
        if (strcmp(a, "--case") == 0)
            case_number = atoi(v);
        else if (strcmp(a, "--step") == 0)
            st = rtcosim_time_parse_seconds(v, &s.macro_step, &err);
        else if (strcmp(a, "--stop") == 0)
            st = rtcosim_time_parse_seconds(v, &s.stop, &err);
        else if (strcmp(a, "--order") == 0)
            s.order = strcmp(v, "jacobi") == 0 ? RTCOSIM_ORDER_JACOBI : RTCOSIM_ORDER_GAUSS_SEIDEL;
        else if (strcmp(a, "--extrapolation") == 0)
            st = rtcosim_extrapolation_parse(v, &s.coupling.extrapolation, &err);
        else if (strcmp(a, "--correction") == 0)
            st = rtcosim_correction_parse(v, &s.coupling.correction, &err);
        else if (strcmp(a, "--adaptive") == 0) {
            s.step_control.enabled = true;
            s.step_control.rtol = atof(v);
        } else if (strcmp(a, "--threads") == 0)
            s.threads = (unsigned)atoi(v);
        else if (strcmp(a, "--output") == 0)
            output = v;
        else
            return usage();
        if (st != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim_oscillator: %s\n", err.message);
            return 1;
        }
    }
    if (case_number != 1 && case_number != 2)
        return usage();
    rtcosim_oscillator_case(case_number, &p);
    rtcosim_oscillator_result r;
    if (rtcosim_oscillator_run(&p, &s, &r, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim_oscillator: %s\n", err.message);
        return 1;
    }
    printf("steps %llu  rms x1 %.6g m  rms x2 %.6g m  max x1 %.6g m  max x2 %.6g m\n"
           "energy drift %.6g  bond energy residual %.6g J  stable %s\n",
           (unsigned long long)r.steps, r.rms_x1, r.rms_x2, r.max_x1, r.max_x2, r.energy_drift,
           r.bond.energy_residual, r.stable ? "yes" : "no");
    if (output) {
        FILE *f = fopen(output, "w");
        rtcosim_master *m = NULL;
        if (!f) {
            fprintf(stderr, "rtcosim_oscillator: %s: cannot open for writing\n", output);
            return 1;
        }
        fprintf(f, "time,mass1.x,mass1.v,mass2.x,mass2.v\n");
        rtcosim_status st = rtcosim_oscillator_build(&p, &s, &m, &err);
        if (st == RTCOSIM_OK)
            st = rtcosim_master_initialize(m, 0, s.stop, &err);
        if (st == RTCOSIM_OK)
            st = rtcosim_master_run(m, s.stop, write_row, f, &err);
        rtcosim_master_free(m);
        if (fclose(f) != 0 && st == RTCOSIM_OK)
            st = rtcosim_error_set(&err, RTCOSIM_EIO, "%s: cannot write", output);
        if (st != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim_oscillator: %s\n", err.message);
            return 1;
        }
    }
    return 0;
}
