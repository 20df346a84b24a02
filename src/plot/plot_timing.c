/* The real-time timing plot of a report's frames.csv: per frame the
 * execution time, start lateness (and exchange time in a mixed run) on a
 * log axis in microseconds, so that a single spike does not flatten the
 * rest; the frame period as a dashed line, the budget every frame must
 * meet; overrun frames marked with crosses. Values at or below zero cannot
 * sit on a log axis: the legend says how many frames that left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot_internal.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The typical frame period: the median time between frames, in us. */
static double median_period_us(const plot_table *t)
{
    if (t->rows < 2)
        return NAN;
    double *gaps = malloc((t->rows - 1) * sizeof *gaps);
    if (!gaps)
        return NAN;
    for (size_t r = 1; r < t->rows; r++)
        gaps[r - 1] = t->time[r] - t->time[r - 1];
    qsort(gaps, t->rows - 1, sizeof *gaps, compare_double);
    double median = gaps[(t->rows - 1) / 2] * 1e6;
    free(gaps);
    return median;
}

rtcosim_status rtcosim_plot_rt_timing(const char *frames_csv, const char *output, double period_us,
                                      bool mixed, const char *title, rtcosim_error *err)
{
    return plot_rt_timing_layout(frames_csv, output, period_us, mixed, title, NULL, err);
}

rtcosim_status plot_rt_timing_layout(const char *frames_csv, const char *output, double period_us,
                                     bool mixed, const char *title, plot_layout *layout,
                                     rtcosim_error *err)
{
    if (!frames_csv || !output)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_plot_rt_timing: NULL argument");
    plot_table *t = NULL;
    rtcosim_status st = plot_table_read(frames_csv, &t, err);
    if (st != RTCOSIM_OK)
        return st;
    static const struct {
        const char *column, *label;
        int color;
    } kinds[] = {
        {"exec_us", "execution time", 0},
        {"lateness_us", "start lateness", 2},
        {"exchange_us", "exchange time", 3},
    };
    plot_series series[4] = {{0}};
    char labels[4][120];
    size_t count = 0;
    ptrdiff_t overrun = plot_table_find(t, "overrun"), exec = plot_table_find(t, "exec_us");
    ptrdiff_t late = plot_table_find(t, "lateness_us");
    for (size_t k = 0; k < (mixed ? 3u : 2u); k++) {
        ptrdiff_t c = plot_table_find(t, kinds[k].column);
        if (c < 0) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no column '%s' (not a frames.csv "
                                   "of a real-time report)", frames_csv, kinds[k].column);
            goto done;
        }
        size_t non_positive = 0;
        for (size_t r = 0; r < t->rows; r++)
            non_positive += t->columns[c].values[r] <= 0;
        if (non_positive)
            snprintf(labels[count], sizeof labels[count], "%s (%zu frame%s at 0 us not shown)",
                     kinds[k].label, non_positive, non_positive == 1 ? "" : "s");
        else
            snprintf(labels[count], sizeof labels[count], "%s", kinds[k].label);
        series[count] = (plot_series){.label = labels[count], .unit = "us", .x = t->time,
                                      .y = t->columns[c].values, .n = t->rows,
                                      .color = kinds[k].color, .line_style = 1};
        count++;
    }
    if (!(period_us > 0))
        period_us = median_period_us(t);
    /* overrun frames: a cross where they ended, start lateness plus
     * execution time after their scheduled start (above the period line) */
    double *ox = NULL, *oy = NULL;
    size_t overruns = 0;
    if (overrun >= 0 && exec >= 0 && late >= 0) {
        ox = malloc((t->rows + 1) * sizeof *ox);
        oy = malloc((t->rows + 1) * sizeof *oy);
        if (!ox || !oy) {
            free(ox);
            free(oy);
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
            goto done;
        }
        for (size_t r = 0; r < t->rows; r++)
            if (t->columns[overrun].values[r] > 0) {
                ox[overruns] = t->time[r];
                double end = fmax(t->columns[late].values[r], 0) + t->columns[exec].values[r];
                oy[overruns++] = end > 0 ? end : period_us;
            }
        if (overruns) {
            snprintf(labels[count], sizeof labels[count], "overrun: frame end (%zu frame%s)", overruns,
                     overruns == 1 ? "" : "s");
            series[count] = (plot_series){.label = labels[count], .unit = "us", .x = ox, .y = oy,
                                          .n = overruns, .markers_only = true, .color = 1,
                                          .line_style = 1};
            count++;
        }
    }
    char period_label[80];
    snprintf(period_label, sizeof period_label, "frame period (%g us)", period_us);
    plot_hline period = {.y = period_us, .unit = "us", .label = period_label};
    plot_request req = {
        .title = title ? title : "Real-time frames", .x_label = "time [s]", .y_label = "time [us]",
        .log_y = true, .x_is_time = true, .panels = RTCOSIM_PLOT_PANELS_ONE,
        .series = series, .series_count = count,
        .hlines = &period, .hline_count = period_us > 0 ? 1 : 0,
    };
    st = plot_render(&req, output, layout, NULL, err);
    free(ox);
    free(oy);
done:
    plot_table_free(t);
    return st;
}
