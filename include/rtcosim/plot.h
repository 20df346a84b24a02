/* Plots of result time series as SVG or PNG files, drawn with PLplot (cairo
 * drivers): results from CSV (fmusim's format, with or without the units
 * row of `--csv-units`) or MAT files (Modelica/Dymola layout, units in the
 * description's brackets), one panel per unit sharing the time axis, units
 * on the axes, a legend inside a data-free corner of the frame or below it,
 * a time window, several files compared in one plot, log axes that say what
 * they left out, and the real-time timing plot (log axis, frame period,
 * overruns marked).
 *
 * PLplot keeps global state and is not thread-safe: call these functions
 * from one thread at a time. Everything PLplot would otherwise exit on
 * (unwritable file, missing driver) is checked before PLplot is started. */
#ifndef RTCOSIM_PLOT_H
#define RTCOSIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_plot_panels {
    RTCOSIM_PLOT_PANELS_AUTO, /* one panel per unit, stacked, the x axis shared */
    RTCOSIM_PLOT_PANELS_ONE,  /* everything on one axis (units in the legend) */
} rtcosim_plot_panels;

typedef struct rtcosim_plot_options {
    const char *title;   /* NULL: the results file's name (names, for several) */
    const char *x;       /* column on the x axis; NULL or "time": time in seconds */
    const char *x_label; /* NULL: "time [s]" or the x column's name and unit */
    const char *y_label; /* NULL: from each panel's unit (and name, for one variable) */
    bool log_x, log_y;   /* base-10 log axes; non-positive values are left out (counted) */
    int width, height;   /* pixels; 0: 1000 x 600 */
    rtcosim_plot_panels panels;
    bool has_from, has_to; /* window of the x axis (time, or the --x column) */
    double from, to;
    /* Units for the columns the results carry none for: an .fmu, .ssd/.ssp
     * or .dbc file (NULL: none). */
    const char *units_from;
} rtcosim_plot_options;

typedef struct rtcosim_plot_stats {
    size_t panels;
    size_t series;
    size_t points_dropped_log; /* non-positive values a log axis left out */
    bool legend_inside;        /* legend in a corner of a frame, else below */
    size_t text_columns_left_out; /* String/Binary columns (text) of "every column" */
} rtcosim_plot_stats;

/* Plot the named columns (n == 0: every column but time and the x column)
 * of the CSV file into `output`, whose extension picks the format (.svg or
 * .png). Errors name the file or variable: unreadable or malformed CSV,
 * unknown variable (with the nearest name), unknown extension, unwritable
 * output, a log axis with no positive value, an empty window. opts may be NULL. */
rtcosim_status rtcosim_plot_csv(const char *csv_path, const char *const *variables, size_t n,
                                const char *output, const rtcosim_plot_options *opts,
                                rtcosim_error *err);

/* The same for one or more results files (.csv or .mat) drawn together:
 * with several files every variable is drawn from each file that has it
 * (at least one must), and the legend names the file. stats may be NULL. */
rtcosim_status rtcosim_plot_files(const char *const *paths, size_t file_count,
                                  const char *const *variables, size_t n, const char *output,
                                  const rtcosim_plot_options *opts, rtcosim_plot_stats *stats,
                                  rtcosim_error *err);

/* The real-time timing plot from a report's frames.csv: execution time,
 * start lateness (and exchange time when `mixed`) per frame on a log axis
 * in microseconds, the frame period as a line, overrun frames marked.
 * period_us <= 0: taken from the frames' times. */
rtcosim_status rtcosim_plot_rt_timing(const char *frames_csv, const char *output,
                                      double period_us, bool mixed, const char *title,
                                      rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
