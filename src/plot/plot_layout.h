/* Geometry of a plot in pixels (origin top left, y down), computed before
 * anything is drawn so that no two texts overlap and the legend covers
 * neither data nor labels: every text gets a box from the font's measured
 * advance widths (DejaVu Sans, the cairo drivers' default sans font), tick
 * labels that would collide are left out, the legend goes into a corner of
 * a frame that no data point or line crosses, or below the x axis. */
#ifndef RTCOSIM_PLOT_LAYOUT_H
#define RTCOSIM_PLOT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct plot_box {
    double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 */
} plot_box;

bool plot_box_intersects(plot_box a, plot_box b);
/* Whether the segment (ax,ay)-(bx,by) crosses or touches the box. */
bool plot_box_hits_segment(plot_box b, double ax, double ay, double bx, double by);

/* Width in pixels of a text at font size em (pixels per em), an upper
 * bound of what cairo draws (measured advances plus a margin). */
double plot_text_width(const char *text, double em);
/* Box of a horizontal text whose reference point (x, y) PLplot places at
 * the middle of the cap height; just 0 left, 0.5 centre, 1 right. */
plot_box plot_text_box(const char *text, double em, double x, double y, double just);
/* Box of a text rotated a quarter turn counter-clockwise, centred at (x, y). */
plot_box plot_text_box_vertical(const char *text, double em, double x, double y);

enum { PLOT_MAX_TICKS = 40, PLOT_TICK_TEXT = 24 };

typedef struct plot_ticks {
    size_t count;
    double value[PLOT_MAX_TICKS];            /* axis coordinates (log10 on a log axis) */
    char label[PLOT_MAX_TICKS][PLOT_TICK_TEXT];
    bool labelled[PLOT_MAX_TICKS];           /* false: left out (collision) */
} plot_ticks;

/* Ticks in [lo, hi] at about one per `spacing` of `length` pixels: steps of
 * 1, 2 or 5 times a power of ten; on a log axis (lo, hi are log10) decades,
 * or 1..9 within decades when fewer than three fit. */
void plot_ticks_make(double lo, double hi, bool log_axis, double length, double spacing,
                     plot_ticks *t);

enum { PLOT_MAX_PANELS = 12, PLOT_MAX_LEGEND = 64 };

typedef struct plot_panel_layout {
    plot_box frame;
    double y_lo, y_hi;   /* axis range (log10 on a log axis) */
    plot_ticks y_ticks;
    plot_box y_tick_box[PLOT_MAX_TICKS];
    plot_box y_label_box;
    char y_label[160];
} plot_panel_layout;

typedef struct plot_layout {
    int width, height;
    double em;            /* tick labels, axis labels and legend */
    double title_em;
    plot_box title_box;
    char title[200];
    size_t panel_count;
    plot_panel_layout panels[PLOT_MAX_PANELS];
    double x_lo, x_hi;
    plot_ticks x_ticks;
    plot_box x_tick_box[PLOT_MAX_TICKS];
    plot_box x_label_box;
    char x_label[160];
    bool y_labels_shortened;  /* a panel got its short label (or none) */
    /* legend */
    size_t legend_count;
    bool legend_inside;
    size_t legend_panel;  /* inside: which panel's corner */
    plot_box legend_box;
    plot_box legend_text_box[PLOT_MAX_LEGEND];
    double legend_text_w[PLOT_MAX_LEGEND];
    char legend_text[PLOT_MAX_LEGEND][160]; /* cut to the page width if need be */
    double legend_sample_x0[PLOT_MAX_LEGEND], legend_sample_x1[PLOT_MAX_LEGEND];
    double legend_sample_y[PLOT_MAX_LEGEND];
} plot_layout;

/* What the layout needs to know. */
typedef struct plot_layout_input {
    int width, height;
    const char *title;
    const char *x_label;
    double x_lo, x_hi;
    bool log_x, log_y;
    size_t panel_count;
    const double *y_lo, *y_hi;     /* per panel */
    const char *const *y_labels;   /* per panel */
    const char *const *y_labels_short; /* per panel, for labels longer than the panel (may be NULL) */
    const char *const *legend;     /* legend_count texts */
    size_t legend_count;
} plot_layout_input;

/* Frames, ticks and labels; the legend below the x axis when legend_below
 * (its rows wrapped to the page width), else room for none outside the
 * frames. Fails (false) when the page is too small for the panels. */
bool plot_layout_make(const plot_layout_input *in, bool legend_below, plot_layout *out);

/* Puts a one-column legend into the first corner of a frame where it fits
 * and no data lie: top right, top left, bottom right, bottom left of each
 * panel, top to bottom; hits(context, panel, box) says whether data lie in
 * the box. false (layout unchanged) when there is no such corner. */
bool plot_layout_place_legend_inside(plot_layout *l,
                                     bool (*hits)(void *context, size_t panel, plot_box box),
                                     void *context);

/* Pixel position of a value inside a panel's frame. */
double plot_layout_px(const plot_layout *l, double x);
double plot_layout_py(const plot_layout *l, size_t panel, double y);

#endif
