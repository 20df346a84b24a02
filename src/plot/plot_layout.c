/* Plot geometry in pixels, decided before drawing (plot_layout.h): text
 * boxes from measured font widths, nice ticks, stacked panels sharing the x
 * axis, tick labels thinned where they would collide, and the legend placed
 * where it covers nothing. Pure arithmetic, so tests can check the boxes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot_layout.h"

/* Advance widths of ASCII 32..126 in thousandths of an em, measured from
 * PLplot's pngcairo output (DejaVu Sans, strings of 10 and 20 repeats). */
static const unsigned short advance[95] = {
    323, 376, 484, 860, 645, 968, 806, 269, 376, 376, 484, 860,  /*  !"#$%&'()*+ */
    323, 376, 323, 323, 645, 645, 645, 645, 645, 645, 645, 645,  /* ,-./01234567 */
    645, 645, 323, 323, 860, 860, 860, 538, 1022, 699, 699, 699, /* 89:;<=>?@ABC */
    753, 645, 591, 753, 753, 323, 323, 645, 538, 860, 753, 806,  /* DEFGHIJKLMNO */
    591, 806, 699, 645, 591, 753, 699, 968, 699, 591, 699, 376,  /* PQRSTUVWXYZ[ */
    323, 376, 860, 484, 484, 591, 645, 538, 645, 591, 349, 645,  /* \]^_`abcdefg */
    645, 269, 269, 591, 269, 968, 645, 591, 645, 645, 376, 538,  /* hijklmnopqrs */
    376, 645, 591, 806, 591, 591, 538, 645, 323, 645, 860,       /* tuvwxyz{|}~ */
};

/* PLplot's reference point of a text is the middle of the cap height; the
 * cap height is 0.73 em, descenders reach 0.24 em below the baseline. */
#define TEXT_ABOVE 0.45
#define TEXT_BELOW 0.64

bool plot_box_intersects(plot_box a, plot_box b)
{
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

static bool inside(plot_box b, double x, double y)
{
    return x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1;
}

bool plot_box_hits_segment(plot_box b, double ax, double ay, double bx, double by)
{
    if (inside(b, ax, ay) || inside(b, bx, by))
        return true;
    /* Liang-Barsky clipping: the segment meets the box iff a parameter
     * interval survives all four edges. */
    double t0 = 0, t1 = 1, dx = bx - ax, dy = by - ay;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {ax - b.x0, b.x1 - ax, ay - b.y0, b.y1 - ay};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return false;
            continue;
        }
        double r = q[k] / p[k];
        if (p[k] < 0)
            t0 = fmax(t0, r);
        else
            t1 = fmin(t1, r);
        if (t0 > t1)
            return false;
    }
    return true;
}

double plot_text_width(const char *text, double em)
{
    double sum = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p >= 32 && *p <= 126)
            sum += advance[*p - 32];
        else if ((*p & 0xC0) != 0x80) /* one per UTF-8 character, as wide as any */
            sum += 1000;
    }
    /* hinting rounds each advance to whole pixels: a margin for small sizes */
    return sum / 1000.0 * em * 1.06 + 0.15 * em;
}

plot_box plot_text_box(const char *text, double em, double x, double y, double just)
{
    double w = plot_text_width(text, em);
    return (plot_box){x - just * w, y - TEXT_ABOVE * em, x + (1 - just) * w, y + TEXT_BELOW * em};
}

plot_box plot_text_box_vertical(const char *text, double em, double x, double y)
{
    double w = plot_text_width(text, em);
    /* the tops of the letters face left */
    return (plot_box){x - TEXT_ABOVE * em, y - w / 2, x + TEXT_BELOW * em, y + w / 2};
}

/* Cut a text to fit max_w pixels, ending it with "..." (never mid UTF-8). */
static void fit_text(char *text, double em, double max_w)
{
    size_t n = strlen(text);
    if (plot_text_width(text, em) <= max_w)
        return;
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
        text[n] = '\0';
        char probe[512];
        snprintf(probe, sizeof probe, "%s...", text);
        if (plot_text_width(probe, em) <= max_w || n == 0) {
            snprintf(text + n, 4, "...");
            if (n == 0 || plot_text_width(text, em) > max_w)
                text[0] = '\0';
            return;
        }
    }
}

/* Tick text: as few decimals as the step needs, or (exp_form, for axes
 * reaching 1e6 or with steps below 1e-4) "2e6", "1.5e-5". */
static void format_tick(double v, double step, bool exp_form, char *out, size_t size)
{
    if (fabs(v) < step * 1e-9)
        v = 0;
    if (exp_form && v != 0) {
        int digits = (int)ceil(log10(fabs(v) / step) - 1e-9);
        char mant[PLOT_TICK_TEXT];
        snprintf(mant, sizeof mant, "%.*e", digits < 0 ? 0 : digits > 6 ? 6 : digits, v);
        char *e = strchr(mant, 'e');
        int exponent = e ? atoi(e + 1) : 0;
        if (e)
            *e = '\0';
        if (strchr(mant, '.')) { /* "2.50" -> "2.5", "2.0" -> "2" */
            char *end = mant + strlen(mant) - 1;
            while (*end == '0')
                *end-- = '\0';
            if (*end == '.')
                *end = '\0';
        }
        snprintf(out, size, "%se%d", mant, exponent);
        return;
    }
    int decimals = (int)ceil(-log10(step) - 1e-9);
    snprintf(out, size, "%.*f", decimals < 0 ? 0 : decimals > 9 ? 9 : decimals, v);
}

static bool needs_exp_form(double lo, double hi, double step)
{
    double mag = fmax(fabs(lo), fabs(hi));
    return mag >= 1e6 || step < 1e-4;
}

void plot_ticks_make(double lo, double hi, bool log_axis, double length, double spacing,
                     plot_ticks *t)
{
    memset(t, 0, sizeof *t);
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
        return;
    double want = fmax(3, fmin(length / fmax(spacing, 1), PLOT_MAX_TICKS - 2));
    if (log_axis && hi - lo >= 2.0) {
        double step = ceil((hi - lo) / want);
        for (double d = ceil(lo / step - 1e-9) * step; d <= hi + 1e-9 && t->count < PLOT_MAX_TICKS;
             d += step) {
            t->value[t->count] = d;
            double v = pow(10, d);
            if (d >= -4 && d <= 5)
                snprintf(t->label[t->count], PLOT_TICK_TEXT, "%.*f", d < 0 ? (int)-d : 0, v);
            else
                snprintf(t->label[t->count], PLOT_TICK_TEXT, "1e%d", (int)lround(d));
            t->labelled[t->count++] = true;
        }
        return;
    }
    if (log_axis) { /* within a decade or two: 1, 2, 5 (or all of 1..9) of each */
        static const int sets[2][9] = {{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
        static const int set_size[2] = {3, 9};
        for (int s = 1; s >= 0; s--) {
            t->count = 0;
            for (double d = floor(lo); d <= ceil(hi); d++)
                for (int k = 0; k < set_size[s] && t->count < PLOT_MAX_TICKS; k++) {
                    double v = pow(10, d) * sets[s][k], lv = log10(v);
                    if (lv < lo - 1e-12 || lv > hi + 1e-12)
                        continue;
                    t->value[t->count] = lv;
                    format_tick(v, pow(10, d), needs_exp_form(pow(10, lo), pow(10, hi), pow(10, floor(lo))),
                                t->label[t->count], PLOT_TICK_TEXT);
                    t->labelled[t->count++] = true;
                }
            if (t->count <= want + 1 || s == 0)
                break;
        }
        if (t->count >= 2)
            return;
        /* narrower than one tick interval: fall through to linear ticks of
         * the logarithm's range, labelled with the values */
    }
    /* the step of 1, 2, 5 x 10^k whose tick count comes nearest to want */
    double raw = (hi - lo) / want;
    double p10 = pow(10, floor(log10(raw)));
    static const double nice[4] = {1, 2, 5, 10};
    double step = p10;
    for (int k = 1; k < 4; k++)
        if (fabs((hi - lo) / (nice[k] * p10) - want) < fabs((hi - lo) / step - want))
            step = nice[k] * p10;
    double first = ceil(lo / step - 1e-9) * step;
    t->count = 0;
    for (int k = 0; t->count < PLOT_MAX_TICKS; k++) {
        double v = first + k * step;
        if (v > hi + step * 1e-9)
            break;
        t->value[t->count] = v;
        if (log_axis) {
            /* ln(10) * value * step: the value difference to the next tick */
            double real = pow(10, v), real_step = real * step * 2.3;
            format_tick(real, real_step, needs_exp_form(pow(10, lo), pow(10, hi), real_step),
                        t->label[t->count], PLOT_TICK_TEXT);
        } else {
            format_tick(v, step, needs_exp_form(lo, hi, step), t->label[t->count], PLOT_TICK_TEXT);
        }
        t->labelled[t->count++] = true;
    }
}

double plot_layout_px(const plot_layout *l, double x)
{
    const plot_box *f = &l->panels[0].frame;
    return f->x0 + (x - l->x_lo) / (l->x_hi - l->x_lo) * (f->x1 - f->x0);
}

double plot_layout_py(const plot_layout *l, size_t panel, double y)
{
    const plot_panel_layout *p = &l->panels[panel];
    return p->frame.y1 - (y - p->y_lo) / (p->y_hi - p->y_lo) * (p->frame.y1 - p->frame.y0);
}

/* Legend entry: sample line, gap, text. */
#define SAMPLE_EM 2.2
#define SAMPLE_GAP_EM 0.5
#define ENTRY_GAP_EM 1.4
#define ROW_EM 1.35
#define LEGEND_PAD_EM 0.5

static double entry_width(const char *text, double em)
{
    return (SAMPLE_EM + SAMPLE_GAP_EM) * em + plot_text_width(text, em);
}

/* Rows of the legend below the plot when entries flow left to right. */
static size_t legend_rows(const plot_layout *l, double em, double avail)
{
    size_t rows = l->legend_count ? 1 : 0;
    double used = 0;
    for (size_t i = 0; i < l->legend_count; i++) {
        double w = entry_width(l->legend_text[i], em) + ENTRY_GAP_EM * em;
        if (used > 0 && used + w > avail) {
            rows++;
            used = 0;
        }
        used += w;
    }
    return rows;
}

/* Drop tick labels whose boxes meet a box kept before (in order: x ticks,
 * then each panel's y ticks) or leave the page. */
static void thin_labels(plot_layout *l)
{
    plot_box kept[PLOT_MAX_TICKS * (PLOT_MAX_PANELS + 1)];
    size_t n = 0;
    plot_box page = {0, 0, l->width, l->height};
    for (size_t k = 0; k < l->x_ticks.count; k++) {
        plot_box b = l->x_tick_box[k];
        bool ok = b.x0 >= page.x0 && b.x1 <= page.x1;
        for (size_t j = 0; ok && j < n; j++)
            ok = !plot_box_intersects(b, kept[j]);
        l->x_ticks.labelled[k] = ok;
        if (ok)
            kept[n++] = b;
    }
    for (size_t p = 0; p < l->panel_count; p++) {
        plot_panel_layout *pl = &l->panels[p];
        /* neighbouring panels' labels may not reach into each other's half
         * of the gap between frames */
        double top = p == 0 ? l->title_box.y1 : (l->panels[p - 1].frame.y1 + pl->frame.y0) / 2;
        double bottom = p + 1 < l->panel_count ? (pl->frame.y1 + l->panels[p + 1].frame.y0) / 2
                                               : l->height;
        for (size_t k = 0; k < pl->y_ticks.count; k++) {
            plot_box b = pl->y_tick_box[k];
            bool ok = b.y0 >= top && b.y1 <= bottom && b.x0 >= 0;
            for (size_t j = 0; ok && j < n; j++)
                ok = !plot_box_intersects(b, kept[j]);
            pl->y_ticks.labelled[k] = ok;
            if (ok)
                kept[n++] = b;
        }
    }
}

bool plot_layout_make(const plot_layout_input *in, bool legend_below, plot_layout *l)
{
    memset(l, 0, sizeof *l);
    if (in->panel_count == 0 || in->panel_count > PLOT_MAX_PANELS || in->legend_count > PLOT_MAX_LEGEND)
        return false;
    l->width = in->width;
    l->height = in->height;
    double scale = fmin((double)in->width / 1000.0, (double)in->height / 600.0);
    scale = fmax(0.8, fmin(scale, 3.0));
    double em = l->em = 15.0 * scale;
    l->title_em = 18.0 * scale;
    l->panel_count = in->panel_count;
    l->legend_count = in->legend_count;
    l->x_lo = in->x_lo;
    l->x_hi = in->x_hi;
    snprintf(l->title, sizeof l->title, "%s", in->title ? in->title : "");
    snprintf(l->x_label, sizeof l->x_label, "%s", in->x_label ? in->x_label : "");
    double margin = 0.6 * em;
    /* a long title: a smaller font down to the labels' size, then cut */
    double page_text_w = in->width - 2 * margin;
    if (plot_text_width(l->title, l->title_em) > page_text_w)
        l->title_em = fmax(em, l->title_em * page_text_w / plot_text_width(l->title, l->title_em));
    fit_text(l->title, l->title_em, page_text_w);
    fit_text(l->x_label, em, page_text_w);
    for (size_t i = 0; i < in->legend_count; i++) {
        snprintf(l->legend_text[i], sizeof l->legend_text[i], "%s", in->legend[i]);
        fit_text(l->legend_text[i], em, page_text_w - (SAMPLE_EM + SAMPLE_GAP_EM + 0.6) * em);
        l->legend_text_w[i] = plot_text_width(l->legend_text[i], em);
    }

    /* top: the title */
    double top = margin;
    if (l->title[0]) {
        l->title_box = plot_text_box(l->title, l->title_em, in->width / 2.0,
                                     top + TEXT_ABOVE * l->title_em, 0.5);
        top = l->title_box.y1 + 0.4 * em;
    } else {
        l->title_box = (plot_box){in->width / 2.0, top, in->width / 2.0, top};
    }
    top += 0.5 * em; /* the top tick label reaches above the frame */

    /* left: y label column, then the y tick labels (their width known only
     * after the ticks, which depend on the panel height: estimated first
     * with a generous width, then fixed) */
    double label_col = 0;
    for (size_t p = 0; p < in->panel_count; p++)
        if (in->y_labels[p] && in->y_labels[p][0])
            label_col = (TEXT_ABOVE + TEXT_BELOW) * em + 0.4 * em;

    /* bottom: x tick labels, x label, legend */
    double bottom = in->height - margin;
    double legend_h = 0;
    double right = in->width - margin - 1.2 * em; /* room for half the last x tick label */
    if (legend_below && in->legend_count) {
        size_t rows = legend_rows(l, em, in->width - 2 * margin);
        legend_h = (double)rows * ROW_EM * em + 0.6 * em;
        bottom -= legend_h;
    }
    double x_label_y = 0;
    if (l->x_label[0]) {
        x_label_y = bottom - TEXT_BELOW * em;
        bottom = x_label_y - TEXT_ABOVE * em - 0.3 * em;
    }
    double x_tick_y = bottom - TEXT_BELOW * em;
    bottom = x_tick_y - TEXT_ABOVE * em - 0.35 * em; /* frame bottom */

    double gap = 1.4 * em; /* between stacked panels */
    double total = bottom - top - gap * (double)(in->panel_count - 1);
    double panel_h = total / (double)in->panel_count;
    if (panel_h < 3.0 * em || right - margin < 12 * em)
        return false;

    /* y ticks per panel (one label per ~2.6 em), their widest label */
    double tick_w = 0;
    for (size_t p = 0; p < in->panel_count; p++) {
        plot_panel_layout *pl = &l->panels[p];
        pl->y_lo = in->y_lo[p];
        pl->y_hi = in->y_hi[p];
        snprintf(pl->y_label, sizeof pl->y_label, "%s", in->y_labels[p] ? in->y_labels[p] : "");
        plot_ticks_make(pl->y_lo, pl->y_hi, in->log_y, panel_h, 2.6 * em, &pl->y_ticks);
        for (size_t k = 0; k < pl->y_ticks.count; k++)
            tick_w = fmax(tick_w, plot_text_width(pl->y_ticks.label[k], em));
    }
    double frame_x0 = margin + label_col + tick_w + 0.5 * em;
    if (right - frame_x0 < 8 * em)
        return false;
    for (size_t p = 0; p < in->panel_count; p++) {
        plot_panel_layout *pl = &l->panels[p];
        /* edges on pixel centres: one-pixel lines drawn crisp, not smeared */
        double y0 = floor(top + (double)p * (panel_h + gap)) + 0.5;
        pl->frame = (plot_box){floor(frame_x0) + 0.5, y0, floor(right) + 0.5, floor(y0 + panel_h) + 0.5};
        for (size_t k = 0; k < pl->y_ticks.count; k++)
            pl->y_tick_box[k] = plot_text_box(pl->y_ticks.label[k], em, frame_x0 - 0.4 * em,
                                              plot_layout_py(l, p, pl->y_ticks.value[k]), 1.0);
        /* a label longer than its panel is tall: the short one (the unit),
         * else none; the engine then lets the legend name the lines */
        if (plot_text_width(pl->y_label, em) > pl->frame.y1 - pl->frame.y0) {
            snprintf(pl->y_label, sizeof pl->y_label, "%s",
                     in->y_labels_short && in->y_labels_short[p] ? in->y_labels_short[p] : "");
            fit_text(pl->y_label, em, pl->frame.y1 - pl->frame.y0);
            l->y_labels_shortened = true;
        }
        if (pl->y_label[0])
            pl->y_label_box = plot_text_box_vertical(pl->y_label, em, margin + TEXT_ABOVE * em,
                                                     (pl->frame.y0 + pl->frame.y1) / 2);
    }
    /* x ticks: spacing from the widest label the range can produce */
    plot_ticks probe;
    plot_ticks_make(in->x_lo, in->x_hi, in->log_x, right - frame_x0, 6 * em, &probe);
    double widest = 4 * em;
    for (size_t k = 0; k < probe.count; k++)
        widest = fmax(widest, plot_text_width(probe.label[k], em));
    plot_ticks_make(in->x_lo, in->x_hi, in->log_x, right - frame_x0, widest + 1.5 * em, &l->x_ticks);
    for (size_t k = 0; k < l->x_ticks.count; k++)
        l->x_tick_box[k] = plot_text_box(l->x_ticks.label[k], em, plot_layout_px(l, l->x_ticks.value[k]),
                                         x_tick_y, 0.5);
    if (l->x_label[0])
        l->x_label_box = plot_text_box(l->x_label, em, (frame_x0 + right) / 2, x_label_y, 0.5);

    /* the legend below: rows of entries, left-aligned under the frame */
    if (legend_below && in->legend_count) {
        double y = in->height - margin - legend_h + 0.3 * em;
        l->legend_box = (plot_box){margin, y, in->width - margin, y + legend_h - 0.6 * em};
        double x = margin + 0.3 * em, row_y = y + ROW_EM * em / 2;
        for (size_t i = 0; i < in->legend_count; i++) {
            double w = entry_width(l->legend_text[i], em);
            if (x > margin + 0.3 * em && x + w > in->width - margin) {
                x = margin + 0.3 * em;
                row_y += ROW_EM * em;
            }
            l->legend_sample_x0[i] = x;
            l->legend_sample_x1[i] = x + SAMPLE_EM * em;
            l->legend_sample_y[i] = row_y;
            l->legend_text_box[i] = plot_text_box(l->legend_text[i], em,
                                                  x + (SAMPLE_EM + SAMPLE_GAP_EM) * em, row_y, 0);
            x += w + ENTRY_GAP_EM * em;
        }
    }
    thin_labels(l);
    return true;
}

bool plot_layout_place_legend_inside(plot_layout *l,
                                     bool (*hits)(void *context, size_t panel, plot_box box),
                                     void *context)
{
    if (l->legend_count == 0)
        return true;
    double em = l->em, text_w = 0;
    for (size_t i = 0; i < l->legend_count; i++)
        text_w = fmax(text_w, l->legend_text_w[i]);
    double w = 2 * LEGEND_PAD_EM * em + (SAMPLE_EM + SAMPLE_GAP_EM) * em + text_w;
    double h = 2 * LEGEND_PAD_EM * em + (double)l->legend_count * ROW_EM * em;
    double inset = 0.5 * em; /* off the frame and its ticks */
    for (size_t p = 0; p < l->panel_count; p++) {
        plot_box f = l->panels[p].frame;
        /* a legend may not hide more than part of a frame */
        if (w > 0.45 * (f.x1 - f.x0) || h > 0.7 * (f.y1 - f.y0))
            continue;
        const plot_box corners[4] = {
            {f.x1 - inset - w, f.y0 + inset, f.x1 - inset, f.y0 + inset + h},
            {f.x0 + inset, f.y0 + inset, f.x0 + inset + w, f.y0 + inset + h},
            {f.x1 - inset - w, f.y1 - inset - h, f.x1 - inset, f.y1 - inset},
            {f.x0 + inset, f.y1 - inset - h, f.x0 + inset + w, f.y1 - inset},
        };
        for (size_t c = 0; c < 4; c++) {
            /* data must keep a little distance from the legend's border */
            plot_box guard = {corners[c].x0 - 0.25 * em, corners[c].y0 - 0.25 * em,
                              corners[c].x1 + 0.25 * em, corners[c].y1 + 0.25 * em};
            if (hits(context, p, guard))
                continue;
            l->legend_inside = true;
            l->legend_panel = p;
            l->legend_box = corners[c];
            for (size_t i = 0; i < l->legend_count; i++) {
                double x = corners[c].x0 + LEGEND_PAD_EM * em;
                double y = corners[c].y0 + LEGEND_PAD_EM * em + ((double)i + 0.5) * ROW_EM * em;
                l->legend_sample_x0[i] = x;
                l->legend_sample_x1[i] = x + SAMPLE_EM * em;
                l->legend_sample_y[i] = y;
                double tx = x + (SAMPLE_EM + SAMPLE_GAP_EM) * em;
                l->legend_text_box[i] = (plot_box){tx, y - TEXT_ABOVE * em, tx + l->legend_text_w[i],
                                                   y + TEXT_BELOW * em};
            }
            return true;
        }
    }
    return false;
}
