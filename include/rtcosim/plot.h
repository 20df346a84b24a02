/* Plots of result time series (fmusim-style CSV, first column `time`) as SVG
 * or PNG files, drawn with PLplot: axis labels, a legend with the variable
 * names, a title, a colour-blind-safe palette, optional log axes and any
 * column on the x axis (e.g. an error-vs-step-size table, log-log).
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

typedef struct rtcosim_plot_options {
    const char *title;   /* NULL: the CSV file's name */
    const char *x;       /* column on the x axis; NULL or "time": time in seconds */
    const char *x_label; /* NULL: "time [s]" or the x column's name */
    const char *y_label; /* NULL: the variable's name when there is one, else "value" */
    bool log_x, log_y;   /* base-10 log axes; non-positive values are left out */
    int width, height;   /* pixels; 0: 1000 x 600 */
} rtcosim_plot_options;

/* Plot the named columns (n == 0: every column but time and the x column)
 * of the CSV file into `output`, whose extension picks the format (.svg or
 * .png). Errors name the file or variable: unreadable or malformed CSV,
 * unknown variable, unknown extension, unwritable output, a log axis with no
 * positive value. opts may be NULL. */
rtcosim_status rtcosim_plot_csv(const char *csv_path, const char *const *variables, size_t n,
                                const char *output, const rtcosim_plot_options *opts,
                                rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
