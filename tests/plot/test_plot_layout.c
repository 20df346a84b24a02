/* Tests of the plot layout and of what ends up in the picture: label,
 * tick-label and legend boxes never overlap each other or the frames (for
 * many page sizes, panel counts and legends); in the rendered PNG every
 * black pixel lies on a frame, a tick or inside the text box the layout
 * computed (so the measured font widths bound what cairo draws), the panels
 * are where the layout put them, a legend inside a frame covers no data;
 * units come from the CSV units row, MAT descriptions or a model; several
 * files share a plot; the time window and log-axis counts are exact. */
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "plot/plot_internal.h"
#include "rtcosim/results.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

/* ---- helpers ---- */

typedef struct image {
    int w, h;
    unsigned char *rgb;
} image;

static image read_png(const char *path)
{
    image im = {0};
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_non_null(png);
    assert_non_null(info);
    png_init_io(png, f);
    png_read_png(png, info,
                 PNG_TRANSFORM_STRIP_16 | PNG_TRANSFORM_STRIP_ALPHA | PNG_TRANSFORM_EXPAND |
                     PNG_TRANSFORM_GRAY_TO_RGB,
                 NULL);
    im.w = (int)png_get_image_width(png, info);
    im.h = (int)png_get_image_height(png, info);
    assert_int_equal(png_get_channels(png, info), 3);
    png_bytepp rows = png_get_rows(png, info);
    im.rgb = malloc((size_t)im.w * (size_t)im.h * 3);
    assert_non_null(im.rgb);
    for (int y = 0; y < im.h; y++)
        memcpy(im.rgb + (size_t)y * (size_t)im.w * 3, rows[y], (size_t)im.w * 3);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return im;
}

static const unsigned char *pixel(const image *im, int x, int y)
{
    return im->rgb + ((size_t)y * (size_t)im->w + (size_t)x) * 3;
}

/* Black ink: text, frames, ticks (series colours all have a channel above 100). */
static bool dark(const image *im, int x, int y)
{
    const unsigned char *p = pixel(im, x, y);
    return p[0] < 90 && p[1] < 90 && p[2] < 90;
}

/* A series colour: far from grey. */
static bool coloured(const image *im, int x, int y)
{
    const unsigned char *p = pixel(im, x, y);
    int hi = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
    int lo = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
    return hi - lo > 60;
}

static bool in_box(plot_box b, double x, double y, double grow)
{
    return x >= b.x0 - grow && x <= b.x1 + grow && y >= b.y0 - grow && y <= b.y1 + grow;
}

static char *svg_text(const char *path)
{
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    assert_non_null(doc);
    xmlChar *text = xmlNodeGetContent(xmlDocGetRootElement(doc));
    char *copy = strdup((const char *)text);
    xmlFree(text);
    xmlFreeDoc(doc);
    return copy;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A vehicle's signals in five units (rpm, 1, none, km/h, m/s2), with the
 * units row `--csv-units` writes. */
static const char *vehicle_csv(void)
{
    const char *path = tu_scratch("vehicle.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "\"time\",\"engine.rpm\",\"pedal.throttle\",\"gearbox.gear\",\"vehicle.speed\","
               "\"vehicle.accel\"\n\"s\",\"rpm\",\"1\",\"\",\"km/h\",\"m/s2\"\n");
    for (int i = 0; i <= 2000; i++) {
        double t = i * 0.01;
        fprintf(f, "%g,%g,%g,%d,%g,%g\n", t, 900 + 2500 * fabs(sin(t)), 0.5 + 0.5 * sin(0.7 * t),
                i / 400 > 5 ? 5 : i / 400, 5 * t, cos(t));
    }
    fclose(f);
    return path;
}

/* Every text box of a layout (labelled ticks only). */
static size_t text_boxes(const plot_layout *l, plot_box *out)
{
    size_t n = 0;
    if (l->title[0])
        out[n++] = l->title_box;
    if (l->x_label[0])
        out[n++] = l->x_label_box;
    for (size_t k = 0; k < l->x_ticks.count; k++)
        if (l->x_ticks.labelled[k])
            out[n++] = l->x_tick_box[k];
    for (size_t p = 0; p < l->panel_count; p++) {
        const plot_panel_layout *pl = &l->panels[p];
        if (pl->y_label[0])
            out[n++] = pl->y_label_box;
        for (size_t k = 0; k < pl->y_ticks.count; k++)
            if (pl->y_ticks.labelled[k])
                out[n++] = pl->y_tick_box[k];
    }
    for (size_t i = 0; i < l->legend_count; i++)
        out[n++] = l->legend_text_box[i];
    return n;
}

/* The layout's promises: texts apart from each other and from the frames,
 * the legend apart from frames (below) or inside one, everything on the page. */
static void assert_layout_sound(const plot_layout *l)
{
    plot_box boxes[PLOT_MAX_TICKS * (PLOT_MAX_PANELS + 2) + PLOT_MAX_LEGEND + 8];
    size_t n = text_boxes(l, boxes);
    size_t legend_texts = l->legend_count;
    for (size_t i = 0; i < n; i++) {
        assert_true(boxes[i].x0 >= 0 && boxes[i].y0 >= 0);
        assert_true(boxes[i].x1 <= l->width && boxes[i].y1 <= l->height);
        for (size_t j = i + 1; j < n; j++)
            if (plot_box_intersects(boxes[i], boxes[j]))
                fail_msg("text boxes %zu (%.1f,%.1f-%.1f,%.1f) and %zu (%.1f,%.1f-%.1f,%.1f) overlap",
                         i, boxes[i].x0, boxes[i].y0, boxes[i].x1, boxes[i].y1, j, boxes[j].x0,
                         boxes[j].y0, boxes[j].x1, boxes[j].y1);
        bool is_legend_text = i >= n - legend_texts;
        for (size_t p = 0; p < l->panel_count; p++)
            if (!(is_legend_text && l->legend_inside && p == l->legend_panel))
                assert_false(plot_box_intersects(boxes[i], l->panels[p].frame));
    }
    if (l->legend_count) {
        for (size_t i = 0; i < n - legend_texts; i++)
            assert_false(plot_box_intersects(l->legend_box, boxes[i]));
        for (size_t i = n - legend_texts; i < n; i++)
            assert_true(in_box(l->legend_box, boxes[i].x0, boxes[i].y0, 0.5) &&
                        in_box(l->legend_box, boxes[i].x1, boxes[i].y1, 0.5));
        for (size_t p = 0; p < l->panel_count; p++) {
            plot_box f = l->panels[p].frame;
            if (l->legend_inside && p == l->legend_panel)
                assert_true(l->legend_box.x0 > f.x0 && l->legend_box.x1 < f.x1 &&
                            l->legend_box.y0 > f.y0 && l->legend_box.y1 < f.y1);
            else
                assert_false(plot_box_intersects(l->legend_box, f));
        }
    }
    /* panels stacked top to bottom, apart, sharing the x extent */
    for (size_t p = 1; p < l->panel_count; p++) {
        assert_true(l->panels[p].frame.y0 > l->panels[p - 1].frame.y1);
        assert_true(l->panels[p].frame.x0 == l->panels[0].frame.x0);
        assert_true(l->panels[p].frame.x1 == l->panels[0].frame.x1);
    }
}

/* ---- layout arithmetic ---- */

static void layout_boxes_never_overlap(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1000, 600}, {400, 300}, {1600, 900}, {600, 1000}, {250, 180}};
    static const double ranges[][2] = {{0, 3000}, {-1.2e-6, 5e-6}, {-4.5, 3.1}, {1e5, 1e9}};
    const char *names[] = {"engine.rpm [rpm]", "pedal.throttle", "a very long signal name of a bus",
                           "W", "gearbox.gear (run_with_a_long_name.csv)", "x", "y", "z",
                           "vehicle.speed", "vehicle.accel", "WWWWWWWWWWWW", "i"};
    size_t made = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t panels = 1; panels <= 6; panels++)
            for (size_t legend = 0; legend <= 12; legend += 4)
                for (int log = 0; log < 2; log++)
                    for (size_t r = 0; r < 4; r++) {
                        double lo[PLOT_MAX_PANELS], hi[PLOT_MAX_PANELS];
                        const char *labels[PLOT_MAX_PANELS], *shorts[PLOT_MAX_PANELS];
                        for (size_t p = 0; p < panels; p++) {
                            const double *rg = ranges[(r + p) % 4];
                            lo[p] = log ? log10(fabs(rg[1]) / 1000) : rg[0];
                            hi[p] = log ? log10(fabs(rg[1])) : rg[1];
                            labels[p] = names[(p + r) % 12];
                            shorts[p] = "[m/s2]";
                        }
                        plot_layout_input in = {
                            .width = sizes[s][0], .height = sizes[s][1],
                            .title = "Real-time frames: execution time and start lateness",
                            .x_label = "time [s]", .x_lo = r == 3 ? 1234.5 : 0,
                            .x_hi = r == 3 ? 1234.5 + 1e-3 : 20.0 * (double)(r + 1), .log_y = log,
                            .panel_count = panels, .y_lo = lo, .y_hi = hi, .y_labels = labels,
                            .y_labels_short = shorts, .legend = names, .legend_count = legend,
                        };
                        plot_layout l;
                        if (!plot_layout_make(&in, true, &l))
                            continue; /* too small: refused, not squeezed */
                        made++;
                        assert_layout_sound(&l);
                        size_t x_labels = 0;
                        for (size_t k = 0; k < l.x_ticks.count; k++)
                            x_labels += l.x_ticks.labelled[k];
                        assert_true(x_labels >= 2);
                    }
    assert_true(made > 300); /* most combinations fit */
    /* 1000 x 600 holds six panels and a legend */
    plot_layout l;
    double lo[6] = {0}, hi[6] = {1, 1, 1, 1, 1, 1};
    const char *labels[6] = {"a", "b", "c", "d", "e", "f"};
    plot_layout_input in = {.width = 1000, .height = 600, .x_hi = 1, .panel_count = 6, .y_lo = lo,
                            .y_hi = hi, .y_labels = labels, .legend = labels, .legend_count = 6};
    assert_true(plot_layout_make(&in, true, &l));
}

static void ticks_are_round_numbers(void **state)
{
    (void)state;
    plot_ticks t;
    plot_ticks_make(-0.05, 1.05, false, 500, 100, &t); /* about 5 */
    assert_int_equal(t.count, 6);
    assert_string_equal(t.label[0], "0.0");
    assert_string_equal(t.label[5], "1.0");
    plot_ticks_make(-2, 4, true, 600, 60, &t); /* decades 0.01 .. 10000 */
    assert_int_equal(t.count, 7);
    assert_string_equal(t.label[0], "0.01");
    assert_string_equal(t.label[6], "10000");
    plot_ticks_make(log10(2e-6), log10(3e-3), true, 400, 40, &t);
    assert_string_equal(t.label[0], "1e-5");
    plot_ticks_make(0, 2e6, false, 400, 100, &t);
    assert_string_equal(t.label[1], "5e5");
    assert_string_equal(t.label[4], "2e6");
}

static void segments_and_boxes(void **state)
{
    (void)state;
    plot_box b = {10, 10, 20, 20};
    assert_true(plot_box_hits_segment(b, 0, 15, 30, 15));  /* straight through */
    assert_true(plot_box_hits_segment(b, 0, 0, 30, 30));   /* diagonal */
    assert_false(plot_box_hits_segment(b, 0, 25, 30, 25)); /* below */
    assert_false(plot_box_hits_segment(b, 0, 0, 30, 5));   /* passes the corner */
    assert_true(plot_box_hits_segment(b, 15, 15, 15, 15)); /* a point inside */
    assert_false(plot_box_intersects(b, (plot_box){20, 0, 30, 30})); /* touching edges */
}

/* ---- the rendered picture ---- */

/* Every black pixel is on a frame (or its ticks), inside a text box, or on
 * the row of a reference line (row_y; NaN: none). */
static void assert_ink_on(const image *im, const plot_layout *l, double row_y)
{
    plot_box boxes[PLOT_MAX_TICKS * (PLOT_MAX_PANELS + 2) + PLOT_MAX_LEGEND + 8];
    size_t n = text_boxes(l, boxes);
    double tick = 0.35 * l->em + 2;
    size_t stray = 0;
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            if (!dark(im, x, y))
                continue;
            bool ok = false;
            for (size_t p = 0; p < l->panel_count && !ok; p++) {
                plot_box f = l->panels[p].frame;
                ok = in_box(f, x, y, 2) && !in_box(f, x, y, -tick);
            }
            for (size_t i = 0; i < n && !ok; i++)
                ok = in_box(boxes[i], x, y, 1);
            if (!ok && fabs(y - row_y) <= 1.5 && x >= l->panels[0].frame.x0 &&
                x <= l->panels[0].frame.x1)
                ok = true;
            if (l->legend_count && !ok) /* the period line's legend sample */
                for (size_t i = 0; i < l->legend_count && !ok; i++)
                    ok = fabs(y - l->legend_sample_y[i]) <= 2 && x >= l->legend_sample_x0[i] - 2 &&
                         x <= l->legend_sample_x1[i] + 2;
            if (!ok && stray++ < 5)
                print_message("stray ink at %d,%d\n", x, y);
        }
    assert_int_equal(stray, 0);
}

static void assert_ink_accounted_for(const image *im, const plot_layout *l)
{
    assert_ink_on(im, l, NAN);
}

static void png_panels_and_text_stay_in_their_boxes(void **state)
{
    (void)state;
    const char *csv = vehicle_csv();
    const char *png = tu_scratch("vehicle.png");
    plot_layout l;
    rtcosim_plot_stats stats;
    rtcosim_error err;
    if (plot_files_layout(&csv, 1, NULL, 0, png, NULL, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.panels, 5); /* rpm, 1, (none), km/h, m/s2 */
    assert_int_equal(stats.series, 5);
    assert_layout_sound(&l);
    /* the units are on the axes (shortened to the unit where the name does not fit) */
    assert_non_null(strstr(l.panels[0].y_label, "[rpm]"));
    assert_non_null(strstr(l.panels[3].y_label, "[km/h]"));
    assert_non_null(strstr(l.panels[4].y_label, "[m/s2]"));

    image im = read_png(png);
    assert_int_equal(im.w, 1000);
    assert_int_equal(im.h, 600);
    /* a column between two x ticks crosses exactly the top and bottom edge
     * of each of the five frames: ten black runs */
    double tx = (plot_layout_px(&l, l.x_ticks.value[0]) + plot_layout_px(&l, l.x_ticks.value[1])) / 2;
    int runs = 0;
    bool in_run = false;
    for (int y = (int)l.panels[0].frame.y0 - 3; y <= (int)l.panels[4].frame.y1 + 3; y++) {
        bool d = dark(&im, (int)tx, y);
        runs += d && !in_run;
        in_run = d;
    }
    assert_int_equal(runs, 10);
    /* each frame's top edge is a black line where the layout put it */
    for (size_t p = 0; p < 5; p++) {
        plot_box f = l.panels[p].frame;
        int y = (int)lround(f.y0), black = 0, span = 0;
        for (int x = (int)f.x0 + 5; x < (int)f.x1 - 5; x++, span++)
            black += dark(&im, x, y) || dark(&im, x, y - 1) || dark(&im, x, y + 1);
        assert_true(black >= span * 95 / 100);
    }
    assert_ink_accounted_for(&im, &l);
    free(im.rgb);
}

static void default_page_grows_for_many_panels(void **state)
{
    (void)state;
    const char *csv = tu_scratch("nine.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "time,a,b,c,d,e,f,g,h,i\ns,m,s,kg,A,V,K,N,Pa,W\n");
    for (int i = 0; i <= 50; i++)
        fprintf(f, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", i, i, -i, i * i, i % 5, i % 7, 3 * i, i / 3,
                i % 2, 50 - i);
    fclose(f);
    const char *png = tu_scratch("nine.png");
    plot_layout l;
    rtcosim_plot_stats stats;
    rtcosim_error err;
    if (plot_files_layout(&csv, 1, NULL, 0, png, NULL, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.panels, 9);
    assert_int_equal(l.width, 1000);
    assert_true(l.height > 600); /* grown from the default */
    assert_layout_sound(&l);
    image im = read_png(png);
    assert_int_equal(im.h, l.height);
    assert_ink_accounted_for(&im, &l);
    free(im.rgb);
    /* a size asked for is kept: too small is an error naming the way out */
    rtcosim_plot_options fixed = {.width = 1000, .height = 600};
    assert_int_equal(plot_files_layout(&csv, 1, NULL, 0, png, &fixed, NULL, NULL, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "too small for 9 panels"));
    /* on one axis it fits */
    fixed.panels = RTCOSIM_PLOT_PANELS_ONE;
    if (plot_files_layout(&csv, 1, NULL, 0, png, &fixed, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.panels, 1);
}

static void legend_inside_covers_no_data(void **state)
{
    (void)state;
    /* three decaying curves: the top right corner is free */
    const char *csv = tu_scratch("decay.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "time,first.x,second.x,third.x\n\"s\",\"m\",\"m\",\"m\"\n");
    for (int i = 0; i <= 500; i++)
        fprintf(f, "%g,%g,%g,%g\n", i * 0.01, exp(-i * 0.01), 0.8 * exp(-i * 0.02),
                0.6 * exp(-i * 0.03));
    fclose(f);
    const char *png = tu_scratch("decay.png");
    plot_layout l;
    rtcosim_plot_stats stats;
    rtcosim_error err;
    if (plot_files_layout(&csv, 1, NULL, 0, png, NULL, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_true(stats.legend_inside);
    assert_int_equal(stats.panels, 1);
    assert_string_equal(l.panels[0].y_label, "[m]");
    assert_layout_sound(&l);
    assert_true(l.legend_box.x0 > (l.panels[0].frame.x0 + l.panels[0].frame.x1) / 2); /* right */
    assert_true(l.legend_box.y1 < (l.panels[0].frame.y0 + l.panels[0].frame.y1) / 2); /* top */
    image im = read_png(png);
    /* inside the legend: colour only on the sample lines */
    for (int y = (int)l.legend_box.y0 + 1; y < (int)l.legend_box.y1; y++)
        for (int x = (int)l.legend_box.x0 + 1; x < (int)l.legend_box.x1; x++) {
            if (!coloured(&im, x, y))
                continue;
            bool on_sample = false;
            for (size_t i = 0; i < l.legend_count; i++)
                on_sample |= fabs(y - l.legend_sample_y[i]) <= 2.5 && x >= l.legend_sample_x0[i] - 2 &&
                             x <= l.legend_sample_x1[i] + 2;
            if (!on_sample)
                fail_msg("data colour inside the legend at %d,%d", x, y);
        }
    assert_ink_accounted_for(&im, &l);
    free(im.rgb);

    /* noise over the whole frame: no free corner, the legend goes below */
    const char *noisy = tu_scratch("noise.csv");
    f = fopen(noisy, "w");
    assert_non_null(f);
    fprintf(f, "time,a,b\n");
    for (int i = 0; i <= 400; i++)
        fprintf(f, "%g,%g,%g\n", i * 0.01, (i * 7919 % 101) / 100.0, (i * 104729 % 97) / 96.0);
    fclose(f);
    const char *png2 = tu_scratch("noise.png");
    if (plot_files_layout(&noisy, 1, NULL, 0, png2, NULL, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_false(stats.legend_inside);
    assert_layout_sound(&l);
    assert_true(l.legend_box.y0 >= l.x_label_box.y1); /* below the x axis label */
    im = read_png(png2);
    assert_ink_accounted_for(&im, &l);
    free(im.rgb);
}

/* ---- data: units, files, window, log axes ---- */

static void units_come_from_csv_row_and_mat_description(void **state)
{
    (void)state;
    const rtcosim_column cols[] = {
        {.name = "x", .type = RTCOSIM_TYPE_FLOAT64, .unit = "m", .description = "Position"},
        {.name = "p", .type = RTCOSIM_TYPE_FLOAT64, .unit = "kg", .parameter = true},
        {.name = "n", .type = RTCOSIM_TYPE_INT32},
    };
    const char *paths[2] = {tu_scratch("r.csv"), tu_scratch("r.mat")};
    for (int k = 0; k < 2; k++) {
        rtcosim_recorder_options o = {.path = paths[k], .columns = cols, .column_count = 3,
                                      .csv_units = true};
        rtcosim_recorder *r;
        rtcosim_error err;
        assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
        for (int i = 0; i < 4; i++) {
            rtcosim_value v[3] = {{.f64 = i == 2 ? NAN : 0.25 * i}, {.f64 = 2.0}, {.i64 = -i}};
            assert_int_equal(rtcosim_recorder_push_row(r, i * 500000000LL, v, &err), RTCOSIM_OK);
        }
        assert_int_equal(rtcosim_recorder_close(r, NULL, &err), RTCOSIM_OK);
    }
    for (int k = 0; k < 2; k++) {
        plot_table *t;
        rtcosim_error err;
        if (plot_table_read(paths[k], &t, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(t->rows, 4);
        assert_int_equal(t->column_count, 3);
        ptrdiff_t x = plot_table_find(t, "x"), p = plot_table_find(t, "p"), n = plot_table_find(t, "n");
        assert_true(x >= 0 && p >= 0 && n >= 0);
        assert_string_equal(t->columns[x].unit, "m");
        assert_string_equal(t->columns[p].unit, "kg");
        assert_null(t->columns[n].unit);
        for (int i = 0; i < 4; i++) {
            assert_true(t->time[i] == 0.5 * i);
            if (i == 2)
                assert_true(isnan(t->columns[x].values[i]));
            else
                assert_true(t->columns[x].values[i] == 0.25 * i);
            assert_true(t->columns[p].values[i] == 2.0);
            assert_true(t->columns[n].values[i] == -i);
        }
        plot_table_free(t);
    }
}

static void several_files_compare_runs(void **state)
{
    (void)state;
    write_file(tu_scratch("a.csv"), "time,h,v\n\"s\",\"m\",\"m/s\"\n0,1,0\n1,0.5,-1\n2,0,-2\n");
    write_file(tu_scratch("b.csv"), "time,h,w\n0,1.1,3\n1,0.6,3\n2,0.1,3\n");
    const char *files[2] = {tu_scratch("a.csv"), tu_scratch("b.csv")};
    const char *vars[] = {"h"};
    const char *svg = tu_scratch("cmp.svg");
    rtcosim_plot_stats stats;
    rtcosim_error err;
    plot_layout l;
    if (plot_files_layout(files, 2, vars, 1, svg, NULL, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* b.csv has no units row: its h takes a.csv's unit and shares its panel
     * (the runs of one variable side by side; it had a panel of its own) */
    assert_int_equal(stats.series, 2);
    assert_int_equal(stats.panels, 1);
    assert_string_equal(l.panels[0].y_label, "h [m]");
    char *text = svg_text(svg);
    assert_non_null(strstr(text, "h (a.csv)"));
    assert_non_null(strstr(text, "h (b.csv)"));
    assert_non_null(strstr(text, "a.csv vs b.csv"));
    free(text);
    /* the same units for both from a model: one panel */
    write_file(tu_scratch("m.dbc"), "VERSION \"\"\n\nBU_: A\n\nBO_ 256 Ball: 8 A\n"
                                    " SG_ h : 0|16@1+ (0.01,0) [0|655.35] \"m\" A\n");
    rtcosim_plot_options o = {.units_from = tu_scratch("m.dbc")};
    write_file(tu_scratch("c.csv"), "time,bus0.Ball.h\n0,1\n1,2\n");
    const char *files2[2] = {tu_scratch("a.csv"), tu_scratch("c.csv")};
    const char *vars2[] = {"h", "bus0.Ball.h"};
    if (plot_files_layout(files2, 2, vars2, 2, svg, &o, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.panels, 1);
    assert_string_equal(l.panels[0].y_label, "[m]");
    /* a variable no file has: the nearest name of any file */
    const char *typo[] = {"hh"};
    assert_int_equal(plot_files_layout(files, 2, typo, 1, svg, NULL, NULL, NULL, &err),
                     RTCOSIM_ENOTFOUND);
    assert_string_equal(err.message, "plot: no variable 'hh' in the results; did you mean 'h'?");
    /* an ARXML matrix gives units the same way (its UNIT's DISPLAY-NAME) */
    write_file(tu_scratch("m.arxml"),
               "<?xml version=\"1.0\"?><AUTOSAR xmlns=\"http://autosar.org/schema/r4.0\">"
               "<AR-PACKAGES><AR-PACKAGE><SHORT-NAME>P</SHORT-NAME><ELEMENTS>"
               "<CAN-CLUSTER><SHORT-NAME>C</SHORT-NAME><CAN-CLUSTER-VARIANTS><CAN-CLUSTER-CONDITIONAL>"
               "<PHYSICAL-CHANNELS><CAN-PHYSICAL-CHANNEL><SHORT-NAME>CH</SHORT-NAME>"
               "<FRAME-TRIGGERINGS><CAN-FRAME-TRIGGERING><SHORT-NAME>T</SHORT-NAME>"
               "<FRAME-REF DEST=\"CAN-FRAME\">/P/Ball</FRAME-REF><IDENTIFIER>256</IDENTIFIER>"
               "</CAN-FRAME-TRIGGERING></FRAME-TRIGGERINGS></CAN-PHYSICAL-CHANNEL>"
               "</PHYSICAL-CHANNELS></CAN-CLUSTER-CONDITIONAL></CAN-CLUSTER-VARIANTS></CAN-CLUSTER>"
               "<CAN-FRAME><SHORT-NAME>Ball</SHORT-NAME><FRAME-LENGTH>8</FRAME-LENGTH>"
               "<PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>"
               "<PDU-REF DEST=\"I-SIGNAL-I-PDU\">/P/Pdu</PDU-REF></PDU-TO-FRAME-MAPPING>"
               "</PDU-TO-FRAME-MAPPINGS></CAN-FRAME>"
               "<I-SIGNAL-I-PDU><SHORT-NAME>Pdu</SHORT-NAME><I-SIGNAL-TO-PDU-MAPPINGS>"
               "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>m</SHORT-NAME>"
               "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/P/h</I-SIGNAL-REF><START-POSITION>0</START-POSITION>"
               "</I-SIGNAL-TO-I-PDU-MAPPING></I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
               "<I-SIGNAL><SHORT-NAME>h</SHORT-NAME><LENGTH>16</LENGTH>"
               "<NETWORK-REPRESENTATION-PROPS><SW-DATA-DEF-PROPS-VARIANTS>"
               "<SW-DATA-DEF-PROPS-CONDITIONAL><UNIT-REF DEST=\"UNIT\">/P/metre</UNIT-REF>"
               "</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS>"
               "</NETWORK-REPRESENTATION-PROPS></I-SIGNAL>"
               "<UNIT><SHORT-NAME>metre</SHORT-NAME><DISPLAY-NAME>m</DISPLAY-NAME></UNIT>"
               "</ELEMENTS></AR-PACKAGE></AR-PACKAGES></AUTOSAR>\n");
    /* (fresh paths: tu_scratch's buffers rotate) */
    rtcosim_plot_options ox = {.units_from = tu_scratch("m.arxml")};
    const char *files3[2] = {tu_scratch("a.csv"), tu_scratch("c.csv")};
    if (plot_files_layout(files3, 2, vars2, 2, tu_scratch("cmp.svg"), &ox, &l, &stats, &err) !=
        RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.panels, 1);
    assert_string_equal(l.panels[0].y_label, "[m]");
}

static void unitless_series_of_other_magnitudes_get_their_own_panel(void **state)
{
    (void)state;
    write_file(tu_scratch("nounits.csv"), "time,throttle,gear,rpm,grade\n0,0,1,900,0\n"
                                          "1,0.5,3,2500,0\n2,1,5,3000,0\n");
    const char *csv = tu_scratch("nounits.csv");
    const char *png = tu_scratch("nounits.png");
    plot_layout l;
    rtcosim_plot_stats stats;
    rtcosim_error err;
    if (plot_files_layout(&csv, 1, NULL, 0, png, NULL, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* throttle (at most 1) and gear (5) within a factor 20 share a panel, rpm
     * does not, grade (always 0) joins the first */
    assert_int_equal(stats.panels, 2);
    assert_string_equal(l.panels[1].y_label, "rpm");
    assert_true(l.panels[0].y_hi < 6 && l.panels[1].y_hi > 3000);
    rtcosim_plot_options one = {.panels = RTCOSIM_PLOT_PANELS_ONE};
    if (plot_files_layout(&csv, 1, NULL, 0, png, &one, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.panels, 1);
}

static void units_from_an_fmu(void **state)
{
    (void)state;
    plot_unit_map *m;
    rtcosim_error err;
    if (plot_unit_map_load(RTCOSIM_FMU_BOUNCINGBALL_FMI3, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* BouncingBall's modelDescription: h is a Position (m), v a Velocity (m/s) */
    assert_string_equal(plot_unit_map_find(m, "h"), "m");
    assert_string_equal(plot_unit_map_find(m, "v"), "m/s");
    assert_null(plot_unit_map_find(m, "nothing"));
    plot_unit_map_free(m);
    /* the vehicle example's SSD: connectors as "component.connector" */
    if (plot_unit_map_load(VEHICLE_SSD, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(plot_unit_map_find(m, "scenario.v_set"), "km/h");
    assert_string_equal(plot_unit_map_find(m, "ecu.v_set"), "m/s");
    assert_string_equal(plot_unit_map_find(m, "ecu.throttle"), "1");
    plot_unit_map_free(m);
    assert_int_equal(plot_unit_map_load(tu_scratch("a.txt"), &m, &err), RTCOSIM_EINVAL);
}

static void window_and_log_axis_counts(void **state)
{
    (void)state;
    const char *csv = tu_scratch("ramp.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "time,a\n");
    for (int i = 0; i <= 100; i++)
        fprintf(f, "%g,%d\n", i * 0.01, i - 50); /* i <= 50: zero or negative */
    fclose(f);
    const char *svg = tu_scratch("ramp.svg");
    rtcosim_plot_stats stats;
    rtcosim_error err;
    plot_layout l;
    rtcosim_plot_options log_y = {.log_y = true};
    if (plot_files_layout(&csv, 1, NULL, 0, svg, &log_y, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.points_dropped_log, 51);
    /* in the window 0.4 .. 1.0 s: rows 40 .. 100, of which 40 .. 50 left out */
    rtcosim_plot_options window = {.log_y = true, .has_from = true, .from = 0.4, .has_to = true,
                                   .to = 1.0};
    if (plot_files_layout(&csv, 1, NULL, 0, svg, &window, &l, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(stats.points_dropped_log, 11);
    assert_true(l.x_lo == 0.4 && l.x_hi == 1.0);
    for (size_t k = 0; k < l.x_ticks.count; k++)
        assert_true(l.x_ticks.value[k] >= 0.4 - 1e-12 && l.x_ticks.value[k] <= 1.0 + 1e-12);
    /* y range: values 1 .. 50 in the window on the log axis, padded 5 % */
    assert_true(l.panels[0].y_lo < 0 && l.panels[0].y_lo > -0.1);
    assert_true(l.panels[0].y_hi > log10(50) && l.panels[0].y_hi < log10(50) + 0.1);

    rtcosim_plot_options backwards = {.has_from = true, .from = 2, .has_to = true, .to = 1};
    assert_int_equal(plot_files_layout(&csv, 1, NULL, 0, svg, &backwards, NULL, NULL, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "--from 2 is not before --to 1"));
    rtcosim_plot_options empty = {.has_from = true, .from = 5, .has_to = true, .to = 6};
    assert_int_equal(plot_files_layout(&csv, 1, NULL, 0, svg, &empty, NULL, NULL, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "nothing to plot in the time window"));
}

static void timing_plot_marks_period_and_overruns(void **state)
{
    (void)state;
    const char *frames = tu_scratch("frames.csv");
    FILE *f = fopen(frames, "w");
    assert_non_null(f);
    fprintf(f, "time,frame,deadline,lateness_us,exec_us,exchange_us,lag_us,tv,exchange,estimated,"
               "overrun\n");
    for (int i = 0; i < 1000; i++) {
        bool over = i == 100 || i == 500 || i == 900;
        double late = i % 10 == 0 ? 0 : 5 + i % 7; /* 100 frames at 0 */
        fprintf(f, "%g,%d,%g,%g,%g,0,0,%g,0,0,%d\n", i * 1e-3, i, (i + 1) * 1e-3, late,
                over ? 1500.0 : 100.0 + i % 13, i * 1e-3, over);
    }
    fclose(f);
    const char *svg = tu_scratch("timing.svg");
    rtcosim_error err;
    if (rtcosim_plot_rt_timing(frames, svg, 1000, false, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char *text = svg_text(svg);
    assert_non_null(strstr(text, "frame period (1000 us)"));
    assert_non_null(strstr(text, "overrun: frame end (3 frames)"));
    assert_non_null(strstr(text, "start lateness (100 frames at 0 us not shown)"));
    assert_non_null(strstr(text, "1000")); /* a decade tick of the log axis */
    free(text);
    /* the picture: a dashed black line at 1000 us across the frame, a
     * vermilion cross at each overrun's end (1500 + lateness us) */
    const char *png = tu_scratch("timing.png");
    plot_layout l;
    if (plot_rt_timing_layout(frames, png, 1000, false, NULL, &l, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(l.panel_count, 1);
    assert_layout_sound(&l);
    image im = read_png(png);
    plot_box fr = l.panels[0].frame;
    int period_y = (int)lround(plot_layout_py(&l, 0, 3.0)); /* log10(1000) */
    int black = 0, span = 0;
    for (int x = (int)fr.x0 + 5; x < (int)fr.x1 - 5; x++, span++)
        black += dark(&im, x, period_y) || dark(&im, x, period_y - 1) || dark(&im, x, period_y + 1);
    assert_true(black > span / 3 && black < span * 95 / 100); /* dashed */
    static const int overrun_frames[3] = {100, 500, 900};
    for (int k = 0; k < 3; k++) {
        int i = overrun_frames[k];
        double late = i % 10 == 0 ? 0 : 5 + i % 7;
        double cx = plot_layout_px(&l, i * 1e-3), cy = plot_layout_py(&l, 0, log10(1500 + late));
        int vermilion = 0;
        for (int y = (int)cy - 6; y <= (int)cy + 6; y++)
            for (int x = (int)cx - 6; x <= (int)cx + 6; x++) {
                const unsigned char *p = pixel(&im, x, y);
                vermilion += p[0] > 170 && p[1] < 130 && p[2] < 60;
            }
        assert_true(vermilion >= 10);
    }
    assert_ink_on(&im, &l, plot_layout_py(&l, 0, 3.0));
    free(im.rgb);
    /* the period from the frames' times when not given: 1 ms */
    if (rtcosim_plot_rt_timing(frames, svg, 0, false, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    text = svg_text(svg);
    assert_non_null(strstr(text, "frame period (1000 us)"));
    free(text);
    write_file(tu_scratch("notframes.csv"), "time,a\n0,1\n");
    assert_int_equal(rtcosim_plot_rt_timing(tu_scratch("notframes.csv"), svg, 0, false, NULL, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "no column 'exec_us'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_boxes_never_overlap),
        cmocka_unit_test(ticks_are_round_numbers),
        cmocka_unit_test(segments_and_boxes),
        cmocka_unit_test(png_panels_and_text_stay_in_their_boxes),
        cmocka_unit_test(legend_inside_covers_no_data),
        cmocka_unit_test(default_page_grows_for_many_panels),
        cmocka_unit_test(units_come_from_csv_row_and_mat_description),
        cmocka_unit_test(several_files_compare_runs),
        cmocka_unit_test(units_from_an_fmu),
        cmocka_unit_test(unitless_series_of_other_magnitudes_get_their_own_panel),
        cmocka_unit_test(window_and_log_axis_counts),
        cmocka_unit_test(timing_plot_marks_period_and_overruns),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
