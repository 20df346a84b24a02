/* `rtcosim run --speculate`: parses the speculation options, says at the
 * start which components speculate and which run conservatively (and why),
 * runs the master speculatively, and reports per component: speculated steps,
 * rollbacks with their depth histogram, re-executed and committed steps,
 * prediction error, and with --reference the error of the committed results
 * against a plain run of the same system. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "run_speculate.h"

int cli_speculate_flag(cli_speculate *s, const char *opt)
{
    if (strcmp(opt, "--speculate") == 0)
        s->enabled = true;
    else if (strcmp(opt, "--reference") == 0)
        s->reference = s->given = true;
    else
        return 0;
    return 1;
}

int cli_speculate_option(cli_speculate *s, const char *opt, const char *val)
{
    char *end = NULL;
    if (strcmp(opt, "--threshold") == 0) {
        s->threshold = strtod(val, &end);
        if (!*val || *end || !(s->threshold >= 0) || !isfinite(s->threshold)) {
            cli_fail("--threshold: '%s' is not a threshold (a number >= 0)", val);
            return -1;
        }
    } else if (strcmp(opt, "--correction-capacity") == 0) {
        s->correction_capacity = strtod(val, &end);
        if (!*val || *end || !(s->correction_capacity > 0) || !isfinite(s->correction_capacity)) {
            cli_fail("--correction-capacity: '%s' is not a capacity (a finite number > 0)", val);
            return -1;
        }
    } else if (strcmp(opt, "--horizon") == 0) {
        long n = strtol(val, &end, 10);
        if (!*val || *end || n < 1 || n > 100000) {
            cli_fail("--horizon: '%s' is not a step count (1..100000)", val);
            return -1;
        }
        s->horizon = (size_t)n;
    } else if (strcmp(opt, "--speculate-stats") == 0) {
        s->stats_file = val;
    } else {
        return 0;
    }
    s->given = true;
    return 1;
}

/* ---- --reference: the plain run's rows, compared row by row ---- */

typedef struct reference_rows {
    double *values; /* rows * width */
    size_t rows, cap, width;
} reference_rows;

static rtcosim_status keep_reference(void *context, rtcosim_time_ns t, const double *values,
                                     size_t n, rtcosim_error *err)
{
    (void)t;
    reference_rows *r = context;
    if (r->rows == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        double *v = realloc(r->values, cap * (n ? n : 1) * sizeof *v);
        if (!v)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "reference run: out of memory");
        r->values = v;
        r->cap = cap;
    }
    r->width = n;
    memcpy(r->values + r->rows * n, values, n * sizeof *values);
    r->rows++;
    return RTCOSIM_OK;
}

typedef struct compare {
    rtcosim_master_observer observer;
    void *context;
    const reference_rows *ref;
    size_t row;
    double *max_abs, *max_rel; /* per observed variable */
} compare;

static rtcosim_status compare_row(void *context, rtcosim_time_ns t, const double *values,
                                  size_t n, rtcosim_error *err)
{
    compare *c = context;
    if (c->ref && c->row < c->ref->rows && n == c->ref->width) {
        const double *r = c->ref->values + c->row * n;
        for (size_t i = 0; i < n; i++) {
            const double e = fabs(values[i] - r[i]);
            if (e > c->max_abs[i])
                c->max_abs[i] = e;
            const double rel = r[i] != 0 ? e / fabs(r[i]) : (e != 0 ? INFINITY : 0);
            if (rel > c->max_rel[i])
                c->max_rel[i] = rel;
        }
    }
    c->row++;
    return c->observer ? c->observer(c->context, t, values, n, err) : RTCOSIM_OK;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The largest error of the observed variables "component.*". */
static double component_error(const rtcosim_master *m, const char *component, const double *errors)
{
    const size_t len = strlen(component);
    double worst = 0;
    for (size_t i = 0; i < rtcosim_master_observed_count(m); i++) {
        const char *name = rtcosim_master_observed_name(m, i);
        if (strncmp(name, component, len) == 0 && name[len] == '.' && errors[i] > worst)
            worst = errors[i];
    }
    return worst;
}

static void print_plan(const rtcosim_speculation_stats *plan, size_t n, const cli_speculate *s)
{
    printf("speculation: threshold %g, horizon %zu steps", s->threshold,
           s->horizon ? s->horizon : 16);
    if (s->correction_capacity > 0)
        printf(", correction capacity %g per step", s->correction_capacity);
    printf("; speculating:");
    size_t count = 0;
    for (size_t c = 0; c < n; c++)
        if (plan[c].speculated)
            printf("%s %s", count++ ? "," : "", plan[c].component);
    printf("%s\n", count ? "" : " none");
    for (size_t c = 0; c < n; c++)
        if (!plan[c].speculated)
            printf("  %s runs conservatively: %s\n", plan[c].component, plan[c].reason);
    fflush(stdout);
}

static void print_stats(const rtcosim_speculation_stats *st, size_t n)
{
    printf("  %-16s %10s %9s %10s %10s %12s %12s\n", "component", "speculated", "rollbacks",
           "reexecuted", "committed", "pred_rms", "pred_max");
    for (size_t c = 0; c < n; c++) {
        if (!st[c].speculated) {
            printf("  %-16s %10s %9s %10s %10llu\n", st[c].component, "-", "-", "-",
                   (unsigned long long)st[c].committed_steps);
            continue;
        }
        printf("  %-16s %10llu %9llu %10llu %10llu %12.4g %12.4g\n", st[c].component,
               (unsigned long long)st[c].speculated_steps, (unsigned long long)st[c].rollbacks,
               (unsigned long long)st[c].reexecuted_steps,
               (unsigned long long)st[c].committed_steps, st[c].prediction_error_rms,
               st[c].prediction_error_max);
        if (st[c].errors_retried)
            printf("  %-16s %llu steps failed on inputs not yet final and ran again with the"
                   " real ones\n", "", (unsigned long long)st[c].errors_retried);
        if (st[c].rollbacks) {
            printf("  %-16s rollback depth:", "");
            for (size_t b = 0; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++) {
                const uint64_t hi = rtcosim_speculation_depth_bucket_max(b);
                const uint64_t lo = b == 0 ? 1 : rtcosim_speculation_depth_bucket_max(b - 1) + 1;
                if (!st[c].rollback_depth[b])
                    continue;
                if (hi == UINT64_MAX)
                    printf(" %llu+: %llu", (unsigned long long)lo,
                           (unsigned long long)st[c].rollback_depth[b]);
                else if (hi == lo)
                    printf(" %llu: %llu", (unsigned long long)lo,
                           (unsigned long long)st[c].rollback_depth[b]);
                else
                    printf(" %llu-%llu: %llu", (unsigned long long)lo, (unsigned long long)hi,
                           (unsigned long long)st[c].rollback_depth[b]);
            }
            printf("\n");
        }
    }
}

/* Writes and closes f. */
static rtcosim_status write_csv(FILE *f, const char *path, const rtcosim_master *m,
                                const rtcosim_speculation_stats *st, size_t n,
                                const compare *cmp, rtcosim_error *err)
{
    fprintf(f, "component,speculated,reason,speculated_steps,rollbacks,reexecuted_steps,"
               "committed_steps,predicted_values,prediction_error_rms,prediction_error_max,"
               "errors_retried");
    for (size_t b = 0; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++) {
        const uint64_t hi = rtcosim_speculation_depth_bucket_max(b);
        const uint64_t lo = b == 0 ? 1 : rtcosim_speculation_depth_bucket_max(b - 1) + 1;
        if (hi == UINT64_MAX)
            fprintf(f, ",depth_%llu_plus", (unsigned long long)lo);
        else if (hi == lo)
            fprintf(f, ",depth_%llu", (unsigned long long)lo);
        else
            fprintf(f, ",depth_%llu_%llu", (unsigned long long)lo, (unsigned long long)hi);
    }
    fprintf(f, "%s\n", cmp->ref ? ",reference_max_abs_error,reference_max_rel_error" : "");
    for (size_t c = 0; c < n; c++) {
        fprintf(f, "%s,%d,\"%s\",%llu,%llu,%llu,%llu,%llu,%.9g,%.9g,%llu", st[c].component,
                st[c].speculated, st[c].reason ? st[c].reason : "",
                (unsigned long long)st[c].speculated_steps, (unsigned long long)st[c].rollbacks,
                (unsigned long long)st[c].reexecuted_steps,
                (unsigned long long)st[c].committed_steps,
                (unsigned long long)st[c].predicted_values, st[c].prediction_error_rms,
                st[c].prediction_error_max, (unsigned long long)st[c].errors_retried);
        for (size_t b = 0; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++)
            fprintf(f, ",%llu", (unsigned long long)st[c].rollback_depth[b]);
        if (cmp->ref)
            fprintf(f, ",%.9g,%.9g", component_error(m, st[c].component, cmp->max_abs),
                    component_error(m, st[c].component, cmp->max_rel));
        fprintf(f, "\n");
    }
    if (fclose(f) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the statistics file", path);
    return RTCOSIM_OK;
}

rtcosim_status cli_run_speculative(rtcosim_master *m, rtcosim_master *reference,
                                   const cli_speculate *s, rtcosim_time_ns stop,
                                   rtcosim_master_observer observer, void *context, double *wall,
                                   rtcosim_error *err)
{
    const size_t n = rtcosim_master_component_count(m);
    const size_t width = rtcosim_master_observed_count(m);
    rtcosim_speculation_stats *stats = calloc(n ? n : 1, sizeof *stats);
    reference_rows ref = {0};
    compare cmp = {.observer = observer, .context = context};
    cmp.max_abs = calloc(width + 1, sizeof *cmp.max_abs);
    cmp.max_rel = calloc(width + 1, sizeof *cmp.max_rel);
    rtcosim_status st = RTCOSIM_OK;
    *wall = 0;
    /* Opened before the run, so that a bad path fails before any work. */
    FILE *csv = s->stats_file ? fopen(s->stats_file, "w") : NULL;
    if (s->stats_file && !csv) {
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the statistics file",
                               s->stats_file);
        goto done;
    }
    if (!stats || !cmp.max_abs || !cmp.max_rel) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        goto done;
    }
    if ((st = rtcosim_master_speculation_plan(m, stats, err)) != RTCOSIM_OK)
        goto done;
    print_plan(stats, n, s);
    double plain_wall = 0;
    if (reference) {
        const double t0 = wall_now();
        if ((st = rtcosim_master_run(reference, stop, keep_reference, &ref, err)) != RTCOSIM_OK) {
            rtcosim_error_prefix(err, "reference run: ");
            goto done;
        }
        plain_wall = wall_now() - t0;
        cmp.ref = &ref;
    }
    rtcosim_speculation_options o = {.threshold = s->threshold, .horizon = s->horizon,
                                     .threads = s->threads,
                                     .correction_capacity = s->correction_capacity};
    const double t0 = wall_now();
    st = rtcosim_master_run_speculative(m, stop, &o, compare_row, &cmp, stats, err);
    *wall = wall_now() - t0;
    if (st != RTCOSIM_OK)
        goto done;
    print_stats(stats, n);
    if (reference) {
        double worst = 0, worst_rel = 0;
        size_t at = 0;
        for (size_t i = 0; i < width; i++) {
            if (cmp.max_abs[i] > worst) {
                worst = cmp.max_abs[i];
                at = i;
            }
            if (cmp.max_rel[i] > worst_rel)
                worst_rel = cmp.max_rel[i];
        }
        printf("reference: committed results vs the plain run (%.3f s wall): max abs error %.6g"
               "%s%s, max rel error %.6g%s\n",
               plain_wall, worst, width ? " at " : "",
               width ? rtcosim_master_observed_name(m, at) : "", worst_rel,
               worst == 0 ? " (bit-identical)" : "");
    }
    if (csv) {
        st = write_csv(csv, s->stats_file, m, stats, n, &cmp, err);
        csv = NULL;
        if (st == RTCOSIM_OK)
            printf("wrote speculation statistics to %s\n", s->stats_file);
    }
done:
    if (csv)
        fclose(csv);
    free(stats);
    free(ref.values);
    free(cmp.max_abs);
    free(cmp.max_rel);
    return st;
}
