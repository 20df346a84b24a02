/* Two results files compared variable by variable (rtcosim_results_compare):
 * a regression check of a run against a reference run, in any of the
 * formats the readers take (CSV, Dymola MAT, MDF 4/3).
 *
 * Each variable's samples are a curve, linear between samples (two samples
 * at one time, an event's before and after, a jump). The curves match when
 * every sample of each lies within tolerance of the other curve somewhere
 * within time_tol of its time: for a sample v at t, the other curve's
 * values over [t - time_tol, t + time_tol] (its samples there and its
 * interpolated values at both ends) span [lo, hi], and v passes when
 * lo - tol(lo) <= v <= hi + tol(hi), tol(r) = max(atol, rtol |r|,
 * range_tol * the reference's range over the window compared); when the
 * sample is the reference's, tol is taken at its own value. Checking both
 * ways finds a spike the other run lacks whichever run has it; the time
 * tolerance lets an event move by that much (a tube around the curve, as
 * the FMI cross-check's band and csv-compare's tube are built). A NaN
 * sample passes when the other curve is NaN somewhere in its window.
 * Besides the verdict, each variable's largest difference at equal times
 * (the other curve interpolated there) and where it is, for the report.
 * Sliding-window minima and maxima over monotone queues: linear in the
 * samples. With fmi_cross_check, the FMI cross-check's band instead
 * (cross_check below). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot_internal.h"
#include "rtcosim/results.h"

/* The samples of one curve over a window sliding forward: [lo, hi) are the
 * samples with a <= time <= b; monotone queues of their finite values'
 * indices for the minimum and the maximum; how many are NaN. */
typedef struct window {
    const double *t, *y;
    size_t n, lo, hi, nan;
    size_t *qmin, *qmax; /* ring-free: indices only grow, heads advance */
    size_t min_head, min_tail, max_head, max_tail;
} window;

static void window_advance(window *w, double a, double b)
{
    while (w->hi < w->n && w->t[w->hi] <= b) {
        size_t i = w->hi++;
        double v = w->y[i];
        if (isnan(v)) {
            w->nan++;
            continue;
        }
        while (w->min_tail > w->min_head && w->y[w->qmin[w->min_tail - 1]] >= v)
            w->min_tail--;
        w->qmin[w->min_tail++] = i;
        while (w->max_tail > w->max_head && w->y[w->qmax[w->max_tail - 1]] <= v)
            w->max_tail--;
        w->qmax[w->max_tail++] = i;
    }
    while (w->lo < w->hi && w->t[w->lo] < a) {
        size_t i = w->lo++;
        if (isnan(w->y[i]))
            w->nan--;
        if (w->min_tail > w->min_head && w->qmin[w->min_head] == i)
            w->min_head++;
        if (w->max_tail > w->max_head && w->qmax[w->max_head] == i)
            w->max_head++;
    }
}

/* The curve (t, y) at time x between samples k - 1 and k. */
static double between(const double *t, const double *y, size_t k, double x)
{
    return result_interp(t[k - 1], y[k - 1], t[k], y[k], x);
}

/* Join value v into [*lo, *hi] (or the NaN flag). */
static void join(double v, double *lo, double *hi, bool *any, bool *nan)
{
    if (isnan(v)) {
        *nan = true;
        return;
    }
    if (!*any || v < *lo)
        *lo = v;
    if (!*any || v > *hi)
        *hi = v;
    *any = true;
}

/* The curve's span of values over [a, b] after window_advance(a, b): the
 * samples inside and the interpolated values at a and b where the curve
 * runs across them. */
static void window_span(const window *w, double a, double b, double *lo, double *hi, bool *any,
                        bool *nan)
{
    *any = false;
    *nan = w->nan > 0;
    if (w->min_tail > w->min_head) {
        *lo = w->y[w->qmin[w->min_head]];
        *hi = w->y[w->qmax[w->max_head]];
        *any = true;
    }
    /* the first sample at or after a is lo; the curve crosses a between lo - 1 and lo */
    if (w->lo > 0 && w->lo < w->n && w->t[w->lo - 1] < a)
        join(between(w->t, w->y, w->lo, a), lo, hi, any, nan);
    if (w->hi > 0 && w->hi < w->n && w->t[w->hi] > b)
        join(between(w->t, w->y, w->hi, b), lo, hi, any, nan);
}

/* The curve's value at t nearest to v (several samples at t: the closest),
 * NaN outside its times. k: a cursor moved forward over calls. */
static double value_at(const double *t, const double *y, size_t n, double x, double v, size_t *k)
{
    while (*k < n && t[*k] < x)
        ++*k;
    if (*k < n && t[*k] == x) {
        double best = y[*k];
        for (size_t j = *k + 1; j < n && t[j] == x; j++)
            if (fabs(y[j] - v) < fabs(best - v))
                best = y[j];
        return best;
    }
    if (*k == 0 || *k >= n)
        return NAN;
    return between(t, y, *k, x);
}

typedef struct curve {
    const double *t, *y;
    size_t n;
} curve;

typedef struct tolerance {
    double rtol, atol, floor; /* floor: range_tol times the reference's range */
} tolerance;

static double tol_at(const tolerance *tol, double r)
{
    return fmax(tol->floor, fmax(tol->atol, tol->rtol * fabs(r)));
}

/* The samples of `checked` with lo <= t <= hi against the span of `band`
 * within time_tol; checked_is_ref: the tolerance at the sample's own value. */
static rtcosim_status check(const curve *checked, const curve *band, double lo, double hi,
                            double time_tol, const tolerance *tol, bool checked_is_ref,
                            rtcosim_compare_variable *out, rtcosim_error *err)
{
    window w = {.t = band->t, .y = band->y, .n = band->n};
    w.qmin = malloc((band->n + 1) * sizeof *w.qmin);
    w.qmax = malloc((band->n + 1) * sizeof *w.qmax);
    if (!w.qmin || !w.qmax) {
        free(w.qmin);
        free(w.qmax);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "compare: out of memory (%zu samples)",
                                 band->n);
    }
    size_t cursor = 0;
    for (size_t k = 0; k < checked->n; k++) {
        double t = checked->t[k], v = checked->y[k];
        if (!(t >= lo && t <= hi))
            continue;
        double a = t - time_tol, b = t + time_tol;
        window_advance(&w, a, b);
        double blo = 0, bhi = 0;
        bool any, nan;
        window_span(&w, a, b, &blo, &bhi, &any, &nan);
        bool pass;
        if (isnan(v))
            pass = nan;
        else if (!any)
            pass = false;
        else if (isinf(v)) /* only the same infinity matches it (inf - inf is NaN) */
            pass = blo == v || bhi == v;
        else if (checked_is_ref)
            pass = blo - tol_at(tol, v) <= v && v <= bhi + tol_at(tol, v);
        else
            pass = blo - tol_at(tol, blo) <= v && v <= bhi + tol_at(tol, bhi);
        out->checked++;
        if (!pass) {
            if (out->outside++ == 0 || t < out->first_outside_time)
                out->first_outside_time = t;
        }
        /* the difference at equal times, reference minus actual's sign aside */
        double other = value_at(band->t, band->y, band->n, t, v, &cursor);
        double d = fabs(v - other);
        if (!isnan(d) && d > out->max_abs_diff) {
            out->max_abs_diff = d;
            out->max_abs_diff_time = t;
        }
        double ref = checked_is_ref ? v : other;
        if (!isnan(d) && fabs(ref) > 0 && d / fabs(ref) > out->max_rel_diff)
            out->max_rel_diff = d / fabs(ref);
    }
    free(w.qmin);
    free(w.qmax);
    return RTCOSIM_OK;
}

/* np.interp's value of the samples (xp, fp; xp increasing) at x: the
 * first or last value outside them. */
static double interp(const double *xp, const double *fp, size_t n, double x, size_t *k)
{
    if (x <= xp[0])
        return fp[0];
    if (x >= xp[n - 1])
        return fp[n - 1];
    while (*k + 1 < n && xp[*k + 1] <= x)
        ++*k;
    if (xp[*k] == x)
        return fp[*k];
    return between(xp, fp, *k + 1, x);
}

enum { BAND_POINTS = 1000, BAND_HALF = 10 }; /* the cross-check's num, (dx - 1) / 2 */

/* The FMI cross-check's validation of `act` against `ref` over [t0, t1]
 * (FMPy's validate_signal with its defaults num 1000, dx 21, dy 0.1, and
 * validate_result's limit of 10 % outliers): `checked` counts all the
 * actual's samples, `outside` those in the window outside the band. */
static void cross_check(const curve *act, const curve *ref, double t0, double t1,
                        rtcosim_compare_variable *v)
{
    static const double dy = 0.1;
    double tb[BAND_POINTS], yb[BAND_POINTS], lo[BAND_POINTS], hi[BAND_POINTS];
    /* the reference without its repeated times (the first sample of each
     * time kept) resampled on a uniform grid, linspace's: start + i step,
     * the last point the stop */
    double *xs = malloc((ref->n + 1) * sizeof *xs), *ys = malloc((ref->n + 1) * sizeof *ys);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        v->outside = act->n; /* (out of memory: said as a difference, not a match) */
        v->checked = act->n;
        return;
    }
    size_t m = 0;
    for (size_t k = 0; k < ref->n; k++)
        if (k == 0 || ref->t[k] > ref->t[k - 1]) {
            xs[m] = ref->t[k];
            ys[m++] = ref->y[k];
        }
    double step = (t1 - t0) / (BAND_POINTS - 1);
    size_t cursor = 0;
    double bmin = INFINITY, bmax = -INFINITY;
    for (size_t i = 0; i < BAND_POINTS; i++) {
        tb[i] = i + 1 == BAND_POINTS ? t1 : (double)i * step + t0;
        yb[i] = interp(xs, ys, m, tb[i], &cursor);
        bmin = fmin(bmin, yb[i]);
        bmax = fmax(bmax, yb[i]);
    }
    free(xs);
    free(ys);
    double w = bmin == bmax ? (bmin == 0 ? 0.5 : fabs(bmin) * dy) : (bmax - bmin) * dy;
    for (size_t i = 0; i < BAND_POINTS; i++) { /* (an edge's window: the points there are) */
        size_t a = i > BAND_HALF ? i - BAND_HALF : 0;
        size_t b = i + BAND_HALF < BAND_POINTS ? i + BAND_HALF : BAND_POINTS - 1;
        double mn = yb[a], mx = yb[a];
        for (size_t j = a + 1; j <= b; j++) {
            mn = fmin(mn, yb[j]);
            mx = fmax(mx, yb[j]);
        }
        lo[i] = mn - w;
        hi[i] = mx + w;
    }
    size_t klo = 0, khi = 0, kref = 0;
    for (size_t k = 0; k < act->n; k++) {
        double t = act->t[k], y = act->y[k];
        v->checked++;
        if (!(t >= t0 && t <= t1))
            continue;
        double l = interp(tb, lo, BAND_POINTS, t, &klo), h = interp(tb, hi, BAND_POINTS, t, &khi);
        if (y < l || y > h) {
            if (v->outside++ == 0)
                v->first_outside_time = t;
        }
        double r = interp(tb, yb, BAND_POINTS, t, &kref), d = fabs(y - r);
        if (!isnan(d) && d > v->max_abs_diff) {
            v->max_abs_diff = d;
            v->max_abs_diff_time = t;
        }
        if (!isnan(d) && fabs(r) > 0 && d / fabs(r) > v->max_rel_diff)
            v->max_rel_diff = d / fabs(r);
    }
    v->ref_range = bmax >= bmin ? bmax - bmin : 0;
}

/* A column's own samples (a multi-rate measurement's channel), else the rows. */
static curve curve_of(const result_table *t, const result_column *c)
{
    if (c->own_time)
        return (curve){c->own_time, c->own_values, c->own_rows};
    return (curve){t->time, c->values, t->rows};
}

void rtcosim_compare_result_free(rtcosim_compare_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->variable_count; i++)
        free((char *)r->variables[i].name);
    free(r->variables);
    free(r);
}

rtcosim_status rtcosim_results_compare(const char *reference, const char *actual,
                                       const rtcosim_compare_options *o,
                                       rtcosim_compare_result **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_compare_options defaults = {.rtol = 1e-6, .range_tol = 1e-6, .from = NAN, .to = NAN};
    if (!o)
        o = &defaults;
    if ((o->variable_count && !o->variables) || (o->exclude_count && !o->exclude))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "compare: no names given");
    if (!(o->rtol >= 0) || !(o->atol >= 0) || !(o->range_tol >= 0) || !(o->time_tol >= 0) ||
        isinf(o->rtol) || isinf(o->atol) || isinf(o->range_tol) || isinf(o->time_tol))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "compare: tolerances must be finite and "
                                 "not negative (rtol %g, atol %g, range_tol %g, time_tol %g)",
                                 o->rtol, o->atol, o->range_tol, o->time_tol);
    if (!isnan(o->from) && !isnan(o->to) && o->to < o->from)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "compare: the window ends (%g s) before "
                                 "it starts (%g s)", o->to, o->from);
    result_select sel = {.names = o->variables, .count = o->variable_count};
    result_table *ref = NULL, *act = NULL;
    const result_select *selected = o->variable_count ? &sel : NULL;
    rtcosim_status st = plot_table_read_select(reference, selected, &ref, err);
    if (st == RTCOSIM_OK)
        st = plot_table_read_select(actual, selected, &act, err);
    /* the variables: those named (each must be a numeric column of the
     * reference; a pattern, the columns it matches, its text ones left
     * out), else every numeric column of the reference */
    const char **names = NULL;
    size_t name_count = 0, text_columns = 0;
    if (st == RTCOSIM_OK)
        st = result_select_expand((const result_table *const *)&ref, 1, o->variables,
                                  o->variable_count, &names, &name_count, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < name_count; i++) {
        ptrdiff_t c = result_table_find(ref, names[i]);
        if (c < 0 && result_name_is_pattern(names[i]))
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no variable matches '%s'",
                                   reference, names[i]);
        else if (c < 0)
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no variable '%s'", reference,
                                   names[i]);
        else if (ref->columns[c].text &&
                 result_names_have(o->variables, o->variable_count, names[i]))
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' holds text, not numbers: not "
                                   "compared", reference, names[i]);
    }
    /* (after the names: a measurement read for names it lacks has no rows) */
    if (st == RTCOSIM_OK && (ref->rows == 0 || act->rows == 0))
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no rows to compare",
                               ref->rows == 0 ? reference : actual);
    rtcosim_compare_result *r = st == RTCOSIM_OK ? calloc(1, sizeof *r) : NULL;
    size_t count = st != RTCOSIM_OK     ? 0
                   : o->variable_count ? name_count
                                       : ref->column_count;
    if (st == RTCOSIM_OK && (!r || !(r->variables = calloc(count + 1, sizeof *r->variables))))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "compare: out of memory");
    if (st == RTCOSIM_OK) {
        r->ref_rows = ref->rows;
        r->act_rows = act->rows;
        r->ref_start = ref->time[0];
        r->ref_stop = ref->time[ref->rows - 1];
        r->act_start = act->time[0];
        r->act_stop = act->time[act->rows - 1];
        r->from = isnan(o->from) ? r->ref_start : fmax(o->from, r->ref_start);
        r->to = isnan(o->to) ? r->ref_stop : fmin(o->to, r->ref_stop);
        if (r->from > r->to)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "compare: the window %g .. %g s holds "
                                   "no time of %s (%g .. %g s)",
                                   isnan(o->from) ? r->ref_start : o->from,
                                   isnan(o->to) ? r->ref_stop : o->to, reference, r->ref_start,
                                   r->ref_stop);
        /* the actual run must cover the window (within the time tolerance
         * and a rounding's slack) */
        double slack = (o->fmi_cross_check ? 0 : o->time_tol) +
                       1e-12 * fmax(1.0, fmax(fabs(r->from), fabs(r->to)));
        r->span_short = r->act_start > r->from + slack || r->act_stop < r->to - slack;
        for (size_t i = 0; i < act->column_count; i++)
            r->extra_in_actual += !act->columns[i].text &&
                                  result_table_find(ref, act->columns[i].name) < 0;
    }
    const result_select excluded = {o->exclude, o->exclude_count};
    for (size_t i = 0; st == RTCOSIM_OK && i < count; i++) {
        ptrdiff_t rc = o->variable_count ? result_table_find(ref, names[i]) : (ptrdiff_t)i;
        const result_column *rcol = &ref->columns[rc];
        if (o->exclude_count && result_select_has(&excluded, rcol->name)) {
            r->excluded++;
            continue;
        }
        if (rcol->text) {
            text_columns++;
            continue; /* (every column: those of text are not compared) */
        }
        ptrdiff_t ac = result_table_find(act, rcol->name);
        if (!o->variable_count && (ac < 0 || act->columns[ac].text)) {
            /* a column of the reference without a number (a CSV's column
             * of empty strings reads so) that the actual lacks: nothing to
             * compare, not a difference */
            bool any = false;
            for (size_t k = 0; k < ref->rows && !any; k++)
                any = !isnan(rcol->values[k]);
            if (!any) {
                r->empty_in_reference++;
                continue;
            }
        }
        rtcosim_compare_variable *v = &r->variables[r->variable_count];
        if (!(v->name = strdup(rcol->name))) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "compare: out of memory");
            break;
        }
        r->variable_count++;
        v->first_outside_time = NAN;
        v->max_abs_diff_time = NAN;
        if (ac < 0 || act->columns[ac].text) {
            v->missing = true;
            v->differs = true;
            r->differing++;
            continue;
        }
        curve rcur = curve_of(ref, rcol), acur = curve_of(act, &act->columns[ac]);
        /* the reference's range over the window, for range_tol */
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < rcur.n; k++)
            if (rcur.t[k] >= r->from && rcur.t[k] <= r->to && !isnan(rcur.y[k])) {
                lo = fmin(lo, rcur.y[k]);
                hi = fmax(hi, rcur.y[k]);
            }
        v->ref_range = hi >= lo ? hi - lo : 0;
        tolerance tol = {.rtol = o->rtol, .atol = o->atol, .floor = o->range_tol * v->ref_range};
        /* over the part of the window both runs cover (an actual that
         * stops early is span_short, said once, not each sample after) */
        double lo_both = fmax(r->from, r->act_start), hi_both = fmin(r->to, r->act_stop);
        if (o->fmi_cross_check) {
            cross_check(&acur, &rcur, r->from, r->to, v);
            v->differs = (double)v->outside / (double)(v->checked ? v->checked : 1) > 0.1;
            r->differing += v->differs;
            continue;
        }
        st = check(&acur, &rcur, lo_both, hi_both, o->time_tol, &tol, false, v, err);
        if (st == RTCOSIM_OK)
            st = check(&rcur, &acur, lo_both, hi_both, o->time_tol, &tol, true, v, err);
        v->differs = v->outside > 0;
        r->differing += v->differs;
    }
    /* a check of nothing is no match (fmusim writes an FMI 3.0 array as one
     * column of text: against rtcosim's y[1], y[2], ... nothing compares) */
    if (st == RTCOSIM_OK && r->variable_count == 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no numeric variable to compare (%zu "
                               "column%s of text, %zu without a number, %zu excluded)",
                               reference, text_columns, text_columns == 1 ? "" : "s",
                               r->empty_in_reference, r->excluded);
    free(names);
    result_table_free(ref);
    result_table_free(act);
    if (st != RTCOSIM_OK) {
        rtcosim_compare_result_free(r);
        return st;
    }
    *out = r;
    return RTCOSIM_OK;
}
