/* The plot engine: series (already named, with units) are windowed, put on
 * log axes if asked (what is left out counted), reduced to the minimum and
 * maximum per pixel column when long, grouped into one panel per unit, laid
 * out by plot_layout.c and drawn with PLplot in pixel coordinates, so that
 * what is drawn is exactly what the layout measured. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <plplot.h>

#include "plot/plplot_dl.h"

#include "plot/plot_internal.h"
#include "plot/plot_out.h"
#include "util/text.h"
#include "rtcosim/log.h"

/* Okabe-Ito colours (distinguishable with the common colour-vision
 * deficiencies; its black replaced by violet, black being the axes' and
 * the text's colour), then a few darker extras; series cycle through them. */
static const unsigned char palette[][3] = {
    {0, 114, 178},  {213, 94, 0},   {0, 158, 115},  {204, 121, 167}, {230, 159, 0},
    {86, 180, 233}, {120, 120, 120}, {117, 62, 140}, {153, 51, 0},    {51, 102, 0},
};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])
_Static_assert(PALETTE_SIZE == PLOT_PALETTE_SIZE, "plot_internal.h states the palette size");
enum { COLOR_BACKGROUND = 0, COLOR_AXES = 1, COLOR_GRID = 2, COLOR_TEXT = 3, COLOR_LEGEND_EDGE = 4,
       FIRST_SERIES_COLOR = 5 };
#define MAGNITUDE_SPAN 20.0 /* unitless series closer than this share a panel */
#define MARKER_LIMIT 50 /* series with at most this many points get markers */
#define MM_PER_PX (25.4 / 72.0) /* the cairo drivers' default 72 dpi */
#define EM_PER_CAP 1.3286       /* PLplot's character height is the cap height */

typedef struct drawn {
    double *x, *y; /* axis coordinates (log10 on log axes); NaN y breaks the line */
    size_t n;
    size_t panel;
    bool markers;
    /* reduced to a minimum and maximum per pixel column (a long series): a
     * dashed style is drawn solid and thin there, since PLplot dashes in
     * software, a path of its own per dash: a two-file plot of 2 million
     * noisy rows wrote 253 173 of them, a 44 MB SVG */
    bool dense;
    double magnitude; /* largest |y| in the window */
} drawn;

static void log_plplot_abort(PLCHAR_VECTOR message)
{
    rtcosim_log(RTCOSIM_LOG_WARNING, "plot", "PLplot: %s", message);
}

static bool driver_available(const char *name)
{
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
    if (strcasecmp(dot, ".pdf") == 0) /* vector, for reports: a point per pixel */
        return "pdfcairo";
    return NULL;
}

/* PLplot treats '#' as its escape character, and aborts the text (saying
 * "*** PLPLOT ERROR, ABORTING OPERATION ***" on stderr) at a byte that
 * starts no UTF-8 character: a Latin-1 column name's gets U+FFFD. */
static void draw_text(double x, double y, double em, double just, bool vertical, const char *text,
                      int height)
{
    size_t size = 3 * strlen(text) + 1; /* (a byte at most U+FFFD's three) */
    char *repaired = malloc(size), *escaped = malloc(2 * size);
    if (!repaired || !escaped) {
        free(repaired);
        free(escaped);
        return;
    }
    util_text_utf8_repair(text, repaired, false);
    char *q = escaped;
    for (const char *p = repaired; *p; p++) {
        if (*p == '#')
            *q++ = '#';
        *q++ = *p;
    }
    *q = '\0';
    free(repaired);
    plschr(em / EM_PER_CAP * MM_PER_PX, 1.0);
    plptex(x, height - y, vertical ? 0 : 1, vertical ? 1 : 0, just, escaped);
    free(escaped);
}

/* Pixel space for decorations: (0, 0) top left. */
static void pixel_space(int width, int height)
{
    plvpor(0, 1, 0, 1);
    plwind(0, width, 0, height);
}

static void line_px(double x0, double y0, double x1, double y1, int height)
{
    pljoin(x0, height - y0, x1, height - y1);
}

static void box_px(plot_box b, int height, bool fill)
{
    PLFLT xs[5] = {b.x0, b.x1, b.x1, b.x0, b.x0};
    PLFLT ys[5] = {height - b.y0, height - b.y0, height - b.y1, height - b.y1, height - b.y0};
    if (fill)
        plfill(4, xs, ys);
    else
        plline(5, xs, ys);
}

/* Window, log transform and per-pixel reduction of one series. */
static bool prepare(const plot_request *req, const plot_series *s, double x_lo, double x_hi,
                    int pixels, drawn *d, size_t *dropped)
{
    d->x = malloc((2 * s->n + 2) * sizeof *d->x);
    d->y = malloc((2 * s->n + 2) * sizeof *d->y);
    d->n = 0;
    if (!d->x || !d->y)
        return false;
    size_t first = 0, last = s->n; /* [first, last) plus one neighbour each side */
    if (req->x_is_time) {
        while (first < s->n && s->x[first] < x_lo)
            first++;
        while (last > first && s->x[last - 1] > x_hi)
            last--;
        first = first > 0 ? first - 1 : 0;
        last = last < s->n ? last + 1 : last;
    }
    size_t kept = 0;
    for (size_t i = first; i < last; i++)
        kept += !isnan(s->y[i]);
    bool reduce = req->x_is_time && kept > (size_t)pixels * 4;
    d->dense = reduce;
    double span = x_hi - x_lo;
    size_t buckets = (size_t)pixels * 2, bucket = SIZE_MAX;
    double min_x = 0, min_y = 0, max_x = 0, max_y = 0;
    bool have = false;
    d->markers = !s->markers_only && kept <= MARKER_LIMIT;
    for (size_t i = first; i <= last; i++) {
        double x = 0, y = 0;
        if (i < last) {
            x = s->x[i];
            y = s->y[i];
            bool in_window = (!req->has_from || x >= req->from) && (!req->has_to || x <= req->to);
            if (req->log_x) {
                if (!(x > 0) && !isnan(x) && in_window && !isnan(y))
                    ++*dropped;
                x = x > 0 ? log10(x) : NAN;
            }
            if (req->log_y) {
                if (!(y > 0) && !isnan(y) && in_window && !isnan(x))
                    ++*dropped;
                y = y > 0 ? log10(y) : NAN;
            }
            if (isnan(x) || isinf(y))
                y = NAN;
        }
        if (!reduce) {
            if (i < last) {
                d->x[d->n] = x;
                d->y[d->n++] = y;
            }
            continue;
        }
        size_t b = i < last ? (size_t)fmax(0, fmin((double)buckets,
                                                   (s->x[i] - x_lo) / span * (double)(buckets - 1)))
                            : SIZE_MAX - 1;
        if (b != bucket || i == last || isnan(y)) {
            if (have) { /* flush in time order */
                bool min_first = min_x <= max_x;
                d->x[d->n] = min_first ? min_x : max_x;
                d->y[d->n++] = min_first ? min_y : max_y;
                if (min_x != max_x || min_y != max_y) {
                    d->x[d->n] = min_first ? max_x : min_x;
                    d->y[d->n++] = min_first ? max_y : min_y;
                }
            }
            bucket = b;
            have = false;
        }
        if (i == last)
            break;
        if (isnan(y)) { /* keep the gap */
            d->x[d->n] = x;
            d->y[d->n++] = NAN;
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
    if (*hi - *lo <= fmax(fabs(*hi), fabs(*lo)) * 1e-12) {
        double pad = log_axis ? 0.5 : (*hi != 0 ? fabs(*hi) * 0.1 : 1.0);
        *lo -= pad;
        *hi += pad;
    } else {
        double pad = (*hi - *lo) * 0.05;
        *lo -= pad;
        *hi += pad;
    }
}

static const char *unit_key(const char *unit)
{
    return unit && *unit ? unit : "";
}

typedef struct hit_context {
    const plot_layout *layout;
    const drawn *series;
    size_t count;
    const plot_request *req;
    const size_t *hline_panel;
    double marker_px;
    size_t allowed_panel; /* the legend's panel; other values: none */
} hit_context;

static bool data_hits(void *context, size_t panel, plot_box box)
{
    const hit_context *h = context;
    const plot_layout *l = h->layout;
    if (panel != h->allowed_panel)
        return true;
    for (size_t i = 0; i < h->count; i++) {
        const drawn *d = &h->series[i];
        if (d->panel != panel)
            continue;
        bool points = d->markers || h->req->series[i].markers_only;
        plot_box grown = {box.x0 - h->marker_px, box.y0 - h->marker_px, box.x1 + h->marker_px,
                          box.y1 + h->marker_px};
        double px = NAN, py = NAN;
        for (size_t k = 0; k < d->n; k++) {
            if (isnan(d->y[k]) || isnan(d->x[k])) {
                px = NAN;
                continue;
            }
            double x = plot_layout_px(l, d->x[k]), y = plot_layout_py(l, panel, d->y[k]);
            if (points && x >= grown.x0 && x <= grown.x1 && y >= grown.y0 && y <= grown.y1)
                return true;
            if (!h->req->series[i].markers_only &&
                (isnan(px) ? plot_box_hits_segment(box, x, y, x, y)
                           : plot_box_hits_segment(box, px, py, x, y)))
                return true;
            px = x;
            py = y;
        }
    }
    for (size_t i = 0; i < h->req->hline_count; i++) {
        if (h->hline_panel[i] != panel)
            continue;
        double v = h->req->log_y ? log10(h->req->hlines[i].y) : h->req->hlines[i].y;
        double y = plot_layout_py(l, panel, v);
        if (y >= box.y0 && y <= box.y1)
            return true;
    }
    return false;
}

static void set_style(int style)
{
    pllsty(style >= 1 && style <= 8 ? style : 1);
}

/* A series' look: its colour, width and line style; a dashed style on a
 * dense series (drawn.dense) is a thin solid line in a dark shade of the
 * colour instead (another file's series over the first one's band). The
 * legend shows the same. */
static int series_look(const plot_series *s, const drawn *d, int *color, double *width)
{
    bool shade = d->dense && s->line_style > 1;
    *color = FIRST_SERIES_COLOR + (int)((size_t)s->color % PALETTE_SIZE) +
             (shade ? (int)PALETTE_SIZE : 0);
    *width = s->markers_only ? 1.5 : shade ? 1.0 : 2.0;
    return shade ? 1 : s->line_style;
}

static void draw_legend_sample(const plot_layout *l, size_t i, int color, int style, double width,
                               bool line, bool markers, bool cross)
{
    int H = l->height;
    double y = H - l->legend_sample_y[i];
    plcol0(color);
    if (line) {
        plwidth(width);
        set_style(style);
        pljoin(l->legend_sample_x0[i], y, l->legend_sample_x1[i], y);
        pllsty(1);
    }
    if (markers || cross) {
        PLFLT mx = (l->legend_sample_x0[i] + l->legend_sample_x1[i]) / 2, my = y;
        plwidth(1.5);
        plpoin(1, &mx, &my, cross ? 5 : 4);
    }
}

rtcosim_status plot_render(const plot_request *req, const char *output, plot_layout *layout_out,
                           rtcosim_plot_stats *stats, rtcosim_error *err)
{
    rtcosim_status loaded = rtcosim_plplot_load(err);
    if (loaded != RTCOSIM_OK)
        return loaded;
    const char *device = extension_device(output);
    if (!device)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: unknown plot format (use a .svg, .png or .pdf file name)", output);
    int width = req->width > 0 ? req->width : 1000;
    int height = req->height > 0 ? req->height : 600;
    if (width < 200 || height < 150 || width > 20000 || height > 20000)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: plot size %dx%d out of range (200x150 to 20000x20000)", output,
                                 width, height);
    if (req->series_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variables to plot", output);
    if (req->has_from && req->has_to && !(req->to > req->from))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: --from %g is not before --to %g", output,
                                 req->from, req->to);
    if (req->series_count > PLOT_MAX_LEGEND)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: %zu series; at most %d fit in one plot",
                                 output, req->series_count, PLOT_MAX_LEGEND);

    rtcosim_status st = RTCOSIM_OK;
    size_t count = req->series_count;
    drawn *d = calloc(count, sizeof *d);
    size_t *hline_panel = calloc(req->hline_count + 1, sizeof *hline_panel);
    plot_layout *l = calloc(1, sizeof *l);
    const char **legend = calloc(count + req->hline_count + 1, sizeof *legend);
    char **legend_owned = calloc(count + req->hline_count + 1, sizeof *legend_owned);
    if (!d || !hline_panel || !l || !legend || !legend_owned) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
        goto done;
    }

    /* the x range: the window, else the data */
    double x_lo = DBL_MAX, x_hi = -DBL_MAX;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < req->series[i].n; k++) {
            double x = req->series[i].x[k];
            if (isnan(req->series[i].y[k]) || !isfinite(x) || (req->log_x && !(x > 0)))
                continue;
            if ((req->has_from && x < req->from) || (req->has_to && x > req->to))
                continue;
            x_lo = fmin(x_lo, x);
            x_hi = fmax(x_hi, x);
        }
    if (req->has_from)
        x_lo = req->from;
    if (req->has_to)
        x_hi = req->to;
    if (!(x_lo <= x_hi) || (req->log_x && !(x_lo > 0))) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: nothing to plot%s", output,
                               req->has_from || req->has_to ? " in the time window"
                               : req->log_x || req->log_y   ? " (a log axis needs positive values)"
                                                            : " (no finite values)");
        goto done;
    }

    /* points, and each series' largest magnitude in the window */
    size_t dropped = 0;
    double ax_lo = req->log_x ? log10(x_lo) : x_lo, ax_hi = req->log_x ? log10(x_hi) : x_hi;
    for (size_t i = 0; i < count; i++) {
        if (!prepare(req, &req->series[i], x_lo, x_hi, width, &d[i], &dropped)) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
            goto done;
        }
        d[i].magnitude = 0;
        for (size_t k = 0; k < d[i].n; k++)
            if (!isnan(d[i].y[k]) && d[i].x[k] >= ax_lo && d[i].x[k] <= ax_hi)
                d[i].magnitude = fmax(d[i].magnitude, fabs(d[i].y[k]));
    }

    /* panels: one per unit in order of first appearance, or one. Series
     * without a unit share a panel only when their magnitudes are within a
     * factor of MAGNITUDE_SPAN (a 0-1 throttle and a 0-5 gear, not 3000 rpm). */
    const char *units[PLOT_MAX_PANELS];
    double mag_lo[PLOT_MAX_PANELS], mag_hi[PLOT_MAX_PANELS];
    size_t panel_count = 0;
    for (size_t i = 0; i < count + req->hline_count; i++) {
        const char *u = unit_key(i < count ? req->series[i].unit : req->hlines[i - count].unit);
        /* NaN: fits any panel (log axes, lines, a series that stays at 0) */
        double m = i < count && !req->log_y && d[i].magnitude > 0 ? d[i].magnitude : NAN;
        size_t p = 0;
        if (req->panels == RTCOSIM_PLOT_PANELS_AUTO)
            while (p < panel_count &&
                   (strcmp(units[p], u) != 0 ||
                    (!*u && !isnan(m) && !isnan(mag_lo[p]) &&
                     fmax(mag_hi[p], m) > MAGNITUDE_SPAN * fmin(mag_lo[p], m))))
                p++;
        if (p == panel_count) {
            if (panel_count == PLOT_MAX_PANELS) {
                st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                       "%s: more than %d units to plot in separate panels "
                                       "(use --panels one or fewer variables)",
                                       output, PLOT_MAX_PANELS);
                goto done;
            }
            units[panel_count] = u;
            mag_lo[panel_count] = mag_hi[panel_count] = m;
            panel_count++;
        } else if (!isnan(m)) {
            mag_lo[p] = isnan(mag_lo[p]) ? m : fmin(mag_lo[p], m);
            mag_hi[p] = isnan(mag_hi[p]) ? m : fmax(mag_hi[p], m);
        }
        if (i < count)
            d[i].panel = p;
        else
            hline_panel[i - count] = p;
    }

    /* ranges */
    double y_lo[PLOT_MAX_PANELS], y_hi[PLOT_MAX_PANELS];
    for (size_t p = 0; p < panel_count; p++) {
        y_lo[p] = DBL_MAX;
        y_hi[p] = -DBL_MAX;
    }
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < d[i].n; k++) {
            if (isnan(d[i].y[k]) || d[i].x[k] < ax_lo || d[i].x[k] > ax_hi)
                continue;
            y_lo[d[i].panel] = fmin(y_lo[d[i].panel], d[i].y[k]);
            y_hi[d[i].panel] = fmax(y_hi[d[i].panel], d[i].y[k]);
        }
    for (size_t i = 0; i < req->hline_count; i++) {
        double v = req->hlines[i].y;
        if (req->log_y && !(v > 0))
            continue;
        v = req->log_y ? log10(v) : v;
        y_lo[hline_panel[i]] = fmin(y_lo[hline_panel[i]], v);
        y_hi[hline_panel[i]] = fmax(y_hi[hline_panel[i]], v);
    }
    for (size_t p = 0; p < panel_count; p++) {
        if (y_lo[p] > y_hi[p]) {
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: nothing to plot%s", output,
                                   req->has_from || req->has_to ? " in the time window"
                                   : req->log_y ? " (a log axis needs positive values)"
                                                : " (no finite values)");
            goto done;
        }
        widen(&y_lo[p], &y_hi[p], req->log_y);
    }
    if (ax_hi - ax_lo <= 0) {
        double pad = req->log_x ? 0.5 : (ax_hi != 0 ? fabs(ax_hi) * 0.1 : 1.0);
        ax_lo -= pad;
        ax_hi += pad;
    } else if (!req->x_is_time && !req->has_from && !req->has_to) {
        widen(&ax_lo, &ax_hi, req->log_x);
    }

    /* labels: "h [m]" for one variable, "[m]" for several, the names when
     * unitless; with everything on one axis the legend carries the units */
    char y_labels[PLOT_MAX_PANELS][160], y_short[PLOT_MAX_PANELS][160];
    const char *y_label_ptrs[PLOT_MAX_PANELS], *y_short_ptrs[PLOT_MAX_PANELS];
    bool mixed_units = false;
    for (size_t i = 1; i < count; i++)
        mixed_units |= strcmp(unit_key(req->series[i].unit), unit_key(req->series[0].unit)) != 0;
    for (size_t p = 0; p < panel_count && p < PLOT_MAX_PANELS; p++) {
        const char *only = NULL;
        size_t names = 0;
        for (size_t i = 0; i < count; i++) {
            const char *name = req->series[i].name ? req->series[i].name : req->series[i].label;
            if (d[i].panel == p && (!only || strcmp(only, name) != 0)) {
                only = name;
                names++;
            }
        }
        const char *u = units[p];
        if (req->y_label && panel_count == 1)
            snprintf(y_labels[p], sizeof y_labels[p], "%s", req->y_label);
        else if (req->panels == RTCOSIM_PLOT_PANELS_ONE && mixed_units)
            y_labels[p][0] = '\0';
        else if (*u && names == 1 && req->hline_count == 0)
            snprintf(y_labels[p], sizeof y_labels[p], "%s [%s]", only, u);
        else if (*u)
            snprintf(y_labels[p], sizeof y_labels[p], "[%s]", u);
        else if (names == 1 && req->hline_count == 0)
            snprintf(y_labels[p], sizeof y_labels[p], "%s", only);
        else
            y_labels[p][0] = '\0';
        y_label_ptrs[p] = y_labels[p];
        snprintf(y_short[p], sizeof y_short[p], *u && !(req->panels == RTCOSIM_PLOT_PANELS_ONE && mixed_units)
                                                    ? "[%s]" : "%s", u);
        y_short_ptrs[p] = y_short[p];
    }
    size_t legend_count = 0;
    for (size_t i = 0; i < count + req->hline_count; i++) {
        const char *text = i < count ? req->series[i].label : req->hlines[i - count].label;
        const char *u = unit_key(i < count ? req->series[i].unit : req->hlines[i - count].unit);
        if (req->panels == RTCOSIM_PLOT_PANELS_ONE && mixed_units && *u) {
            size_t n = strlen(text) + strlen(u) + 4;
            legend_owned[i] = malloc(n);
            if (!legend_owned[i]) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
                goto done;
            }
            snprintf(legend_owned[i], n, "%s [%s]", text, u);
            text = legend_owned[i];
        }
        legend[legend_count++] = text;
    }

    /* No legend when each panel's axis label already names its one line
     * (unless a label had to be shortened to fit its panel). A legend for
     * one panel goes into a free corner of it, one for several below. */
    bool want_legend = req->always_legend || req->hline_count > 0 || panel_count < count;
    size_t legend_panel = SIZE_MAX;
    for (size_t i = 0; i < count + req->hline_count; i++) {
        size_t p = i < count ? d[i].panel : hline_panel[i - count];
        legend_panel = legend_panel == SIZE_MAX || legend_panel == p ? p : SIZE_MAX - 1;
    }
    plot_layout_input in = {
        .width = width, .height = height, .title = req->title, .x_label = req->x_label,
        .x_lo = ax_lo, .x_hi = ax_hi, .log_x = req->log_x, .log_y = req->log_y,
        .panel_count = panel_count, .y_lo = y_lo, .y_hi = y_hi, .y_labels = y_label_ptrs,
        .y_labels_short = y_short_ptrs, .legend = legend, .legend_count = want_legend ? legend_count : 0,
    };
    /* The default page grows taller (100 px at a time) until the panels
     * fit; a size the caller asked for is kept or refused. */
    bool fits = false;
    for (;;) {
        in.height = height;
        in.legend_count = want_legend ? legend_count : 0;
        bool placed = false;
        if (plot_layout_make(&in, false, l)) {
            if (!want_legend && l->y_labels_shortened) {
                in.legend_count = legend_count;
                plot_layout_make(&in, false, l);
            }
            hit_context hc = {l, d, count, req, hline_panel, 0.3 * l->em, legend_panel};
            placed = plot_layout_place_legend_inside(l, data_hits, &hc);
        }
        fits = placed || plot_layout_make(&in, true, l);
        if (fits || req->height > 0 || height + 100 > 20000)
            break;
        height += 100;
    }
    if (!fits) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: %dx%d pixels are too small for %zu panel%s and the legend "
                               "(use a larger --size or --panels one)",
                               output, width, height, panel_count, panel_count == 1 ? "" : "s");
        goto done;
    }

    /* Everything PLplot would exit() on is checked here, before plinit. */
    if (!driver_available(device)) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                               "%s: the PLplot '%s' driver is not installed (Debian: plplot-driver-cairo)",
                               output, device);
        goto done;
    }
    plot_out out;
    if ((st = plot_out_open(&out, output, err)) != RTCOSIM_OK)
        goto done;

    plsabort(log_plplot_abort);
    plsdev(device);
    plsfile(out.stream); /* (its writes' errors: plot_out) */
    plspage(0, 0, width, height, 0, 0);
    plscolbg(255, 255, 255);
    plscmap0n(FIRST_SERIES_COLOR + 2 * (PLINT)PALETTE_SIZE); /* the colours, then dark shades */
    plscol0(COLOR_AXES, 0, 0, 0);
    plscol0(COLOR_GRID, 225, 225, 225);
    plscol0(COLOR_TEXT, 0, 0, 0);
    plscol0(COLOR_LEGEND_EDGE, 150, 150, 150);
    for (size_t i = 0; i < PALETTE_SIZE; i++)
        plscol0(FIRST_SERIES_COLOR + (PLINT)i, palette[i][0], palette[i][1], palette[i][2]);
    for (size_t i = 0; i < PALETTE_SIZE; i++)
        plscol0(FIRST_SERIES_COLOR + (PLINT)(PALETTE_SIZE + i), palette[i][0] * 11 / 20,
                palette[i][1] * 11 / 20, palette[i][2] * 11 / 20);
    plinit();
    pladv(0);
    plssym(0, 0.6 * l->em / EM_PER_CAP * MM_PER_PX / 2.0);
    pixel_space(width, height);
    int H = height;
    double em = l->em;

    /* grid, frames, ticks and their labels */
    for (size_t p = 0; p < l->panel_count; p++) {
        const plot_panel_layout *pl = &l->panels[p];
        plot_box f = pl->frame;
        plwidth(1.0);
        plcol0(COLOR_GRID);
        for (size_t k = 0; k < l->x_ticks.count; k++) {
            double x = plot_layout_px(l, l->x_ticks.value[k]);
            line_px(x, f.y0, x, f.y1, H);
        }
        for (size_t k = 0; k < pl->y_ticks.count; k++) {
            double y = plot_layout_py(l, p, pl->y_ticks.value[k]);
            line_px(f.x0, y, f.x1, y, H);
        }
        plcol0(COLOR_AXES);
        box_px(f, H, false);
        double tick = 0.35 * em;
        for (size_t k = 0; k < l->x_ticks.count; k++) {
            double x = plot_layout_px(l, l->x_ticks.value[k]);
            line_px(x, f.y1, x, f.y1 - tick, H);
            line_px(x, f.y0, x, f.y0 + tick, H);
        }
        for (size_t k = 0; k < pl->y_ticks.count; k++) {
            double y = plot_layout_py(l, p, pl->y_ticks.value[k]);
            line_px(f.x0, y, f.x0 + tick, y, H);
            line_px(f.x1, y, f.x1 - tick, y, H);
            if (pl->y_ticks.labelled[k]) {
                plcol0(COLOR_TEXT);
                draw_text(pl->y_tick_box[k].x1, y, em, 1.0, false, pl->y_ticks.label[k], H);
                plcol0(COLOR_AXES);
            }
        }
        plcol0(COLOR_TEXT);
        if (pl->y_label[0])
            draw_text((pl->y_label_box.x0 + 0.45 * em), (f.y0 + f.y1) / 2, em, 0.5, true,
                      pl->y_label, H);
    }
    plcol0(COLOR_TEXT);
    for (size_t k = 0; k < l->x_ticks.count; k++)
        if (l->x_ticks.labelled[k])
            draw_text(plot_layout_px(l, l->x_ticks.value[k]), l->x_tick_box[k].y0 + 0.45 * em, em,
                      0.5, false, l->x_ticks.label[k], H);
    if (l->x_label[0])
        draw_text((l->x_label_box.x0 + l->x_label_box.x1) / 2, l->x_label_box.y0 + 0.45 * em, em,
                  0.5, false, l->x_label, H);
    if (l->title[0])
        draw_text(width / 2.0, l->title_box.y0 + 0.45 * l->title_em, l->title_em, 0.5, false,
                  l->title, H);

    /* data, clipped to each frame */
    for (size_t p = 0; p < l->panel_count; p++) {
        plot_box f = l->panels[p].frame;
        plvpor(f.x0 / width, f.x1 / width, 1 - f.y1 / height, 1 - f.y0 / height);
        plwind(l->x_lo, l->x_hi, l->panels[p].y_lo, l->panels[p].y_hi);
        for (size_t i = 0; i < req->hline_count; i++) {
            if (hline_panel[i] != p || (req->log_y && !(req->hlines[i].y > 0)))
                continue;
            double v = req->log_y ? log10(req->hlines[i].y) : req->hlines[i].y;
            plcol0(COLOR_AXES);
            plwidth(1.5);
            pllsty(2);
            pljoin(l->x_lo, v, l->x_hi, v);
            pllsty(1);
        }
        for (size_t i = 0; i < count; i++) {
            if (d[i].panel != p)
                continue;
            const plot_series *s = &req->series[i];
            int color;
            double line_width;
            int style = series_look(s, &d[i], &color, &line_width);
            plcol0(color);
            plwidth(line_width);
            set_style(style);
            size_t start = 0;
            for (size_t k = 0; k <= d[i].n; k++) {
                if (k < d[i].n && !isnan(d[i].y[k]) && !isnan(d[i].x[k]))
                    continue;
                if (!s->markers_only && k > start + 1)
                    plline((PLINT)(k - start), d[i].x + start, d[i].y + start);
                if ((s->markers_only || d[i].markers) && k > start) {
                    pllsty(1);
                    plpoin((PLINT)(k - start), d[i].x + start, d[i].y + start,
                           s->markers_only ? 5 : 4);
                    set_style(style);
                }
                start = k + 1;
            }
            pllsty(1);
        }
    }

    /* the legend */
    pixel_space(width, height);
    if (l->legend_count) {
        if (l->legend_inside) {
            plcol0(COLOR_BACKGROUND);
            box_px(l->legend_box, H, true);
            plcol0(COLOR_LEGEND_EDGE);
            plwidth(1.0);
            box_px(l->legend_box, H, false);
        }
        for (size_t i = 0; i < l->legend_count; i++) {
            if (i < count) {
                const plot_series *s = &req->series[i];
                int color;
                double line_width;
                int style = series_look(s, &d[i], &color, &line_width);
                draw_legend_sample(l, i, color, style, line_width, !s->markers_only, d[i].markers,
                                   s->markers_only);
            } else {
                draw_legend_sample(l, i, COLOR_AXES, 2, 2.0, true, false, false);
            }
            plcol0(COLOR_TEXT);
            draw_text(l->legend_text_box[i].x0, l->legend_sample_y[i], em, 0.0, false,
                      l->legend_text[i], H);
        }
    }
    plend();
    if ((st = plot_out_finish(&out, output, err)) != RTCOSIM_OK)
        goto done;
    if (layout_out)
        *layout_out = *l;
    if (stats) {
        stats->panels = l->panel_count;
        stats->series = count;
        stats->points_dropped_log = dropped;
        stats->legend_inside = l->legend_inside;
    }

done:
    for (size_t i = 0; d && i < count; i++) {
        free(d[i].x);
        free(d[i].y);
    }
    for (size_t i = 0; legend_owned && i < count + req->hline_count; i++)
        free(legend_owned[i]);
    free(legend_owned);
    free(legend);
    free(d);
    free(hline_panel);
    free(l);
    return st;
}
