/* `rtcosim_plot_csv`: draws result time series from a CSV table with PLplot
 * (svg driver for .svg, pngcairo for .png). Long series are reduced to the
 * minimum and maximum per pixel column so that a million-row run still gives
 * a small file that looks the same as the full line. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <plplot.h>

#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "rtcosim/plot.h"
#include "rtcosim/time.h"

/* Okabe-Ito colours (distinguishable with the common colour-vision
 * deficiencies), then a few darker extras; series cycle through them. */
static const unsigned char palette[][3] = {
    {0, 114, 178},  {213, 94, 0},   {0, 158, 115}, {204, 121, 167}, {230, 159, 0},
    {86, 180, 233}, {120, 120, 120}, {0, 0, 0},    {153, 51, 0},    {51, 102, 0},
};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])
#define FIRST_SERIES_COLOR 4 /* cmap0 slots 0..3: background, axes, grid, text */

#define MARKER "o" /* drawn on short series (<= 50 points) and in their legend */

typedef struct series {
    double *x, *y;
    size_t n;
} series;

static void log_plplot_abort(PLCHAR_VECTOR message)
{
    rtcosim_log(RTCOSIM_LOG_WARNING, "plot", "PLplot: %s", message);
}

static bool driver_available(const char *name)
{
    /* plgDevs fills caller-provided arrays of *count entries. */
    enum { MAX_DEVICES = 128 };
    const char *menu_array[MAX_DEVICES], *device_array[MAX_DEVICES];
    const char **menus = menu_array, **devices = device_array;
    int count = MAX_DEVICES;
    plgDevs(&menus, &devices, &count);
    bool found = false;
    for (int i = 0; i < count && i < MAX_DEVICES && !found; i++)
        found = devices[i] && strcmp(devices[i], name) == 0;
    return found;
}

/* PLplot treats '#' as its escape character. */
static char *escape_text(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '#' ? 2 : 1;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    char *q = out;
    for (const char *p = text; *p; p++) {
        if (*p == '#')
            *q++ = '#';
        *q++ = *p;
    }
    *q = '\0';
    return out;
}

/* Points of one series after log transforms and per-pixel min/max reduction
 * (only when x increases, i.e. plotted against time). NaN y (or a
 * non-positive value on a log axis) breaks the line: it is kept as NaN and
 * split when drawing. */
static bool build_series(const rtcosim_csv *t, ptrdiff_t x_col, size_t y_col, bool log_x,
                         bool log_y, int pixels, series *s)
{
    size_t rows = rtcosim_csv_row_count(t);
    s->x = malloc(2 * rows * sizeof *s->x);
    s->y = malloc(2 * rows * sizeof *s->y);
    s->n = 0;
    if (!s->x || !s->y)
        return false;
    bool reduce = x_col < 0 && rows > (size_t)pixels * 4;
    size_t buckets = (size_t)pixels * 2;
    double t0 = rtcosim_time_to_seconds(rtcosim_csv_time(t, 0));
    double t1 = rtcosim_time_to_seconds(rtcosim_csv_time(t, rows - 1));
    size_t bucket = SIZE_MAX;
    double min_x = 0, min_y = 0, max_x = 0, max_y = 0;
    bool have = false;
    for (size_t r = 0; r <= rows; r++) {
        double x = 0, y = 0;
        if (r < rows) {
            x = x_col < 0 ? rtcosim_time_to_seconds(rtcosim_csv_time(t, r))
                          : rtcosim_csv_value(t, r, (size_t)x_col);
            y = rtcosim_csv_value(t, r, y_col);
            if (log_x)
                x = x > 0 ? log10(x) : NAN;
            if (log_y)
                y = y > 0 ? log10(y) : NAN;
            if (isnan(x))
                y = NAN;
        }
        if (!reduce) {
            if (r < rows) {
                s->x[s->n] = x;
                s->y[s->n++] = y;
            }
            continue;
        }
        size_t b = r < rows && t1 > t0 ? (size_t)((rtcosim_time_to_seconds(rtcosim_csv_time(t, r)) - t0) /
                                                  (t1 - t0) * (double)(buckets - 1))
                                       : SIZE_MAX - 1;
        if (b != bucket || r == rows) {
            if (have) { /* flush in time order */
                bool min_first = min_x <= max_x;
                s->x[s->n] = min_first ? min_x : max_x;
                s->y[s->n++] = min_first ? min_y : max_y;
                if (min_x != max_x || min_y != max_y) {
                    s->x[s->n] = min_first ? max_x : min_x;
                    s->y[s->n++] = min_first ? max_y : min_y;
                }
            }
            bucket = b;
            have = false;
        }
        if (r == rows)
            break;
        if (isnan(y)) { /* keep the gap */
            if (have) {
                bool min_first = min_x <= max_x;
                s->x[s->n] = min_first ? min_x : max_x;
                s->y[s->n++] = min_first ? min_y : max_y;
                have = false;
            }
            s->x[s->n] = x;
            s->y[s->n++] = NAN;
            continue;
        }
        if (!have || y < min_y) {
            min_x = x;
            min_y = y;
        }
        if (!have || y > max_y) {
            max_x = x;
            max_y = y;
        }
        have = true;
    }
    return true;
}

static void widen(double *lo, double *hi, bool log_axis)
{
    if (*hi - *lo <= fabs(*hi) * 1e-12) {
        double pad = log_axis ? 0.5 : (*hi != 0 ? fabs(*hi) * 0.1 : 1.0);
        *lo -= pad;
        *hi += pad;
    } else {
        double pad = (*hi - *lo) * 0.05;
        *lo -= pad;
        *hi += pad;
    }
}

static void draw_series(const series *s, bool markers)
{
    size_t start = 0;
    for (size_t i = 0; i <= s->n; i++) {
        if (i == s->n || isnan(s->y[i])) {
            if (i > start + 1)
                plline((PLINT)(i - start), s->x + start, s->y + start);
            if (markers && i > start)
                plstring((PLINT)(i - start), s->x + start, s->y + start, MARKER);
            start = i + 1;
        }
    }
}

static const char *extension_device(const char *output)
{
    const char *dot = strrchr(output, '.');
    const char *slash = strrchr(output, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    if (strcasecmp(dot, ".svg") == 0)
        return "svg";
    if (strcasecmp(dot, ".png") == 0)
        return "pngcairo";
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

rtcosim_status rtcosim_plot_csv(const char *csv_path, const char *const *variables, size_t n,
                                const char *output, const rtcosim_plot_options *opts,
                                rtcosim_error *err)
{
    static const rtcosim_plot_options defaults = {0};
    if (!csv_path || !output || (n && !variables))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_plot_csv: NULL argument");
    if (!opts)
        opts = &defaults;
    const char *device = extension_device(output);
    if (!device)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: unknown plot format (use a .svg or .png file name)", output);
    int width = opts->width > 0 ? opts->width : 1000;
    int height = opts->height > 0 ? opts->height : 600;
    if (width < 200 || height < 150 || width > 20000 || height > 20000)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: plot size %dx%d out of range (200x150 to 20000x20000)",
                                 output, width, height);

    rtcosim_csv *t = NULL;
    rtcosim_status st = rtcosim_csv_read_table_file(csv_path, &t, err);
    if (st != RTCOSIM_OK)
        return st;
    const char *first = rtcosim_csv_first_column_name(t);
    ptrdiff_t x_col = -1;
    if (opts->x && strcmp(opts->x, "time") != 0 && strcmp(opts->x, first) != 0) {
        x_col = rtcosim_csv_find_column(t, opts->x);
        if (x_col < 0) {
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no column '%s' for the x axis",
                                   csv_path, opts->x);
            rtcosim_csv_free(t);
            return st;
        }
    }
    size_t columns = rtcosim_csv_column_count(t);
    size_t count = n ? n : columns - (x_col >= 0);
    size_t *cols = calloc(count ? count : 1, sizeof *cols);
    series *all = calloc(count ? count : 1, sizeof *all);
    char **names = calloc(count ? count : 1, sizeof *names);
    if (!cols || !all || !names) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", csv_path);
        goto done;
    }
    if (count == 0) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variables to plot", csv_path);
        goto done;
    }
    for (size_t i = 0, k = 0; i < count; i++) {
        if (n) {
            ptrdiff_t c = rtcosim_csv_find_column(t, variables[i]);
            if (c < 0) {
                st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no variable '%s' in the results",
                                       csv_path, variables[i]);
                goto done;
            }
            cols[i] = (size_t)c;
        } else {
            if ((ptrdiff_t)k == x_col)
                k++;
            cols[i] = k++;
        }
        names[i] = escape_text(rtcosim_csv_column_name(t, cols[i]));
        if (!names[i] || !build_series(t, x_col, cols[i], opts->log_x, opts->log_y, width, &all[i])) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", csv_path);
            goto done;
        }
    }

    double x_lo = DBL_MAX, x_hi = -DBL_MAX, y_lo = DBL_MAX, y_hi = -DBL_MAX;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < all[i].n; k++) {
            if (isnan(all[i].y[k]) || isinf(all[i].y[k]) || isinf(all[i].x[k]))
                continue;
            x_lo = fmin(x_lo, all[i].x[k]);
            x_hi = fmax(x_hi, all[i].x[k]);
            y_lo = fmin(y_lo, all[i].y[k]);
            y_hi = fmax(y_hi, all[i].y[k]);
        }
    if (x_lo > x_hi) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: nothing to plot%s", csv_path,
                               opts->log_x || opts->log_y
                                   ? " (a log axis needs positive values)" : " (no finite values)");
        goto done;
    }
    widen(&x_lo, &x_hi, opts->log_x);
    widen(&y_lo, &y_hi, opts->log_y);
    if (x_col < 0 && !opts->log_x) { /* time axis: no padding left of the start */
        double pad = (x_hi - x_lo) / 1.1 * 0.05;
        x_lo += pad;
        x_hi -= pad;
    }

    /* Everything PLplot would exit() on is checked here, before plinit. */
    FILE *probe = fopen(output, "wb");
    if (!probe) {
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", output, strerror(errno));
        goto done;
    }
    fclose(probe);
    if (!driver_available(device)) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                               "%s: the PLplot '%s' driver is not installed (Debian: plplot-driver-cairo)",
                               output, device);
        goto done;
    }

    char *title = escape_text(opts->title ? opts->title : base_name(csv_path));
    char *x_label = escape_text(opts->x_label ? opts->x_label
                                : x_col >= 0 ? rtcosim_csv_column_name(t, (size_t)x_col)
                                : strcmp(first, "time") == 0 ? "time [s]" : first);
    char *y_label = escape_text(opts->y_label ? opts->y_label : count == 1 ? names[0] : "value");
    if (!title || !x_label || !y_label) {
        free(title);
        free(x_label);
        free(y_label);
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", csv_path);
        goto done;
    }

    plsabort(log_plplot_abort);
    plsdev(device);
    plsfnam(output);
    plspage(0, 0, width, height, 0, 0);
    plscolbg(255, 255, 255);
    plscmap0n(FIRST_SERIES_COLOR + (PLINT)PALETTE_SIZE);
    plscol0(1, 0, 0, 0);       /* axes */
    plscol0(2, 220, 220, 220); /* grid */
    plscol0(3, 0, 0, 0);       /* text */
    for (size_t i = 0; i < PALETTE_SIZE; i++)
        plscol0(FIRST_SERIES_COLOR + (PLINT)i, palette[i][0], palette[i][1], palette[i][2]);
    plinit();
    pladv(0);
    plschr(0, 0.9);
    /* Leave room on the right for the legend: its sample line and padding
     * plus the longest name (about 0.0105 of a 1000-pixel-wide page per
     * character at the legend's text scale). */
    size_t longest = 0;
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) > longest)
            longest = strlen(names[i]);
    double right = 0.98 - (0.10 + 0.0105 * (double)longest) * 1000.0 / width * height / 600.0;
    /* Up to 7 digits per tick label before PLplot moves a common factor
     * "(x10^n)" above the axis, which the top margin must then hold. */
    plsxax(7, 0);
    plsyax(7, 0);
    plvpor(0.09, right < 0.5 ? 0.5 : right > 0.85 ? 0.85 : right, 0.11, 0.89);
    plwind(x_lo, x_hi, y_lo, y_hi);
    char x_opts[16] = "bcnst", y_opts[16] = "bcnstv";
    if (opts->log_x)
        strcat(x_opts, "l");
    if (opts->log_y)
        strcat(y_opts, "l");
    plcol0(2);
    plwidth(1.0);
    plbox("g", 0, 0, "g", 0, 0);
    plcol0(1);
    plbox(x_opts, 0, 0, y_opts, 0, 0);
    plcol0(3);
    pllab(x_label, y_label, title);

    PLINT *opt_array = calloc(count, sizeof *opt_array);
    PLINT *colors = calloc(count, sizeof *colors);
    PLINT *text_colors = calloc(count, sizeof *text_colors);
    PLINT *styles = calloc(count, sizeof *styles);
    PLFLT *widths = calloc(count, sizeof *widths);
    PLFLT *scales = calloc(count, sizeof *scales);
    PLINT *numbers = calloc(count, sizeof *numbers);
    const char **symbols = calloc(count, sizeof *symbols);
    bool markers = rtcosim_csv_row_count(t) <= 50;
    plwidth(2.0);
    for (size_t i = 0; i < count; i++) {
        PLINT color = FIRST_SERIES_COLOR + (PLINT)(i % PALETTE_SIZE);
        plcol0(color);
        draw_series(&all[i], markers);
        if (opt_array && colors && text_colors && styles && widths && scales && numbers && symbols) {
            opt_array[i] = PL_LEGEND_LINE | (markers ? PL_LEGEND_SYMBOL : 0);
            colors[i] = color;
            text_colors[i] = 3;
            styles[i] = 1;
            widths[i] = 2.0;
            scales[i] = 1.0;
            numbers[i] = 1;
            symbols[i] = MARKER;
        }
    }
    if (opt_array && colors && text_colors && styles && widths && scales && numbers && symbols) {
        PLFLT legend_w, legend_h;
        plwidth(1.0);
        pllegend(&legend_w, &legend_h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
                 PL_POSITION_SUBPAGE | PL_POSITION_INSIDE | PL_POSITION_RIGHT | PL_POSITION_TOP,
                 0.02, 0.08, 0.05, 0, 1, 1, 0, 0, (PLINT)count, opt_array, 0.8, 0.8, 2.0, 0.0,
                 text_colors,
                 (const char *const *)names, NULL, NULL, NULL, NULL, colors, styles, widths,
                 colors, scales, numbers, symbols);
    } else {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
    }
    plend();
    free(opt_array);
    free(colors);
    free(text_colors);
    free(styles);
    free(widths);
    free(scales);
    free(numbers);
    free(symbols);
    free(title);
    free(x_label);
    free(y_label);

done:
    for (size_t i = 0; all && i < count; i++) {
        free(all[i].x);
        free(all[i].y);
    }
    for (size_t i = 0; names && i < count; i++)
        free(names[i]);
    free(all);
    free(names);
    free(cols);
    rtcosim_csv_free(t);
    return st;
}
