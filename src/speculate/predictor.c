/* Linear prediction of one event stream (values and inter-arrival times) by
 * least squares over a sliding window, and the partial-rollback scheme run on
 * each real arrival (rollback point n+m, distributed correction). All buffers
 * are sized at create so that an observation never allocates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/speculate.h"

struct rtcosim_predictor {
    size_t width, order, window, horizon;
    size_t streams;  /* width value streams + 1 interval stream (the last) */
    size_t hist_cap; /* window + order samples per stream */
    double *scale;   /* width */
    double time_scale, min_pivot;
    rtcosim_time_ns nominal_interval;
    double capacity; /* correction capacity T per step; 0: mirrored spread */

    double *hist;    /* [streams][hist_cap] rings; sample k of a stream at k % hist_cap */
    uint64_t count;  /* real observations */
    rtcosim_time_ns last_time;

    /* The curve x~[curve_base .. curve_base + curve_len - 1] and a second
     * buffer for the next one; swapped after each arrival. */
    uint64_t curve_base;
    size_t curve_len;
    double *curve_values, *next_values;         /* [horizon][width] */
    rtcosim_time_ns *curve_times, *next_times;  /* [horizon] */

    /* The last least-squares fit per stream, reused for refit_interval
     * observations (fit_q 0: none). */
    size_t refit_interval;
    double *fit_w;    /* [streams][order] */
    size_t *fit_q;    /* [streams] */
    uint64_t *fit_at; /* [streams]: stream_count when fitted */

    rtcosim_prediction_method *method; /* [streams] */
    size_t *method_order;              /* [streams] */

    /* Workspace. */
    double *seq;       /* window + order samples, oldest first */
    double *tail;      /* order + horizon: last samples, then predictions */
    double *pred;      /* horizon predictions of one stream */
    double *normal;    /* order x order */
    double *rhs, *w;   /* order */
    double *err;       /* [horizon][width] e~[n+k] */
    rtcosim_time_ns *time_err; /* [horizon] */
    double *spread;    /* [2][width]: E, then the full-step correction E T/|E| */
};

const char *rtcosim_prediction_method_name(rtcosim_prediction_method m)
{
    switch (m) {
    case RTCOSIM_PREDICT_ZOH: return "zoh";
    case RTCOSIM_PREDICT_FOH: return "foh";
    case RTCOSIM_PREDICT_LS: return "ls";
    default: return "none";
    }
}

void rtcosim_predictor_free(rtcosim_predictor *p)
{
    if (!p)
        return;
    free(p->scale);
    free(p->hist);
    free(p->curve_values);
    free(p->next_values);
    free(p->curve_times);
    free(p->next_times);
    free(p->method);
    free(p->method_order);
    free(p->fit_w);
    free(p->fit_q);
    free(p->fit_at);
    free(p->seq);
    free(p->tail);
    free(p->pred);
    free(p->normal);
    free(p->rhs);
    free(p->w);
    free(p->err);
    free(p->time_err);
    free(p->spread);
    free(p);
}

void rtcosim_predictor_reset(rtcosim_predictor *p)
{
    p->count = 0;
    p->last_time = 0;
    p->curve_base = 0;
    p->curve_len = 0;
    for (size_t s = 0; s < p->streams; s++) {
        p->method[s] = RTCOSIM_PREDICT_NONE;
        p->method_order[s] = 0;
        p->fit_q[s] = 0;
    }
}

rtcosim_status rtcosim_predictor_create(const rtcosim_predictor_config *config,
                                        rtcosim_predictor **out, rtcosim_error *err)
{
    *out = NULL;
    if (!config || config->width == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "predictor: width must be at least 1");
    size_t order = config->order ? config->order : 3;
    size_t window = config->window ? config->window : 16;
    size_t horizon = config->horizon ? config->horizon : 64;
    if (order > RTCOSIM_PREDICTOR_MAX_ORDER)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "predictor: order %zu exceeds %d", order,
                                 RTCOSIM_PREDICTOR_MAX_ORDER);
    if (window < order)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "predictor: window %zu is smaller than the order %zu", window,
                                 order);
    if (config->time_scale_ns < 0 || config->min_pivot < 0 || config->nominal_interval_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "predictor: time_scale_ns, min_pivot and nominal_interval_ns "
                                 "must not be negative");
    if (config->value_scale)
        for (size_t j = 0; j < config->width; j++)
            if (!(config->value_scale[j] > 0) || !isfinite(config->value_scale[j]))
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "predictor: value_scale[%zu] must be finite and > 0", j);
    if (!(config->correction_capacity >= 0) || !isfinite(config->correction_capacity))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "predictor: correction_capacity must be finite and >= 0, got %g",
                                 config->correction_capacity);

    rtcosim_predictor *p = calloc(1, sizeof *p);
    if (!p)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "predictor: out of memory");
    p->width = config->width;
    p->order = order;
    p->window = window;
    p->horizon = horizon;
    p->streams = p->width + 1;
    p->hist_cap = window + order;
    p->time_scale = config->time_scale_ns > 0 ? config->time_scale_ns : 1e9;
    p->min_pivot = config->min_pivot > 0 ? config->min_pivot : 1e-13;
    p->nominal_interval = config->nominal_interval_ns;
    p->refit_interval = config->refit_interval ? config->refit_interval : 1;
    p->capacity = config->correction_capacity;

    p->scale = malloc(p->width * sizeof *p->scale);
    p->hist = calloc(p->streams * p->hist_cap, sizeof *p->hist);
    p->curve_values = calloc(horizon * p->width, sizeof(double));
    p->next_values = calloc(horizon * p->width, sizeof(double));
    p->curve_times = calloc(horizon, sizeof(rtcosim_time_ns));
    p->next_times = calloc(horizon, sizeof(rtcosim_time_ns));
    p->method = calloc(p->streams, sizeof *p->method);
    p->method_order = calloc(p->streams, sizeof *p->method_order);
    p->fit_w = calloc(p->streams * order, sizeof *p->fit_w);
    p->fit_q = calloc(p->streams, sizeof *p->fit_q);
    p->fit_at = calloc(p->streams, sizeof *p->fit_at);
    p->seq = calloc(p->hist_cap, sizeof(double));
    p->tail = calloc(order + horizon, sizeof(double));
    p->pred = calloc(horizon, sizeof(double));
    p->normal = calloc(order * order, sizeof(double));
    p->rhs = calloc(order, sizeof(double));
    p->w = calloc(order, sizeof(double));
    p->err = calloc(horizon * p->width, sizeof(double));
    p->time_err = calloc(horizon, sizeof(rtcosim_time_ns));
    p->spread = calloc(2 * p->width, sizeof(double));
    if (!p->scale || !p->hist || !p->curve_values || !p->next_values || !p->curve_times ||
        !p->next_times || !p->method || !p->method_order ||
        !p->fit_w || !p->fit_q || !p->fit_at || !p->seq || !p->tail || !p->pred ||
        !p->normal || !p->rhs || !p->w || !p->err || !p->time_err || !p->spread) {
        rtcosim_predictor_free(p);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "predictor: out of memory");
    }
    for (size_t j = 0; j < p->width; j++)
        p->scale[j] = config->value_scale ? config->value_scale[j] : 1.0;
    rtcosim_predictor_reset(p);
    *out = p;
    return RTCOSIM_OK;
}

size_t rtcosim_predictor_width(const rtcosim_predictor *p) { return p->width; }
size_t rtcosim_predictor_horizon(const rtcosim_predictor *p) { return p->horizon; }
uint64_t rtcosim_predictor_observations(const rtcosim_predictor *p) { return p->count; }

rtcosim_prediction_method rtcosim_predictor_method(const rtcosim_predictor *p, size_t component,
                                                   size_t *order)
{
    if (component >= p->streams) {
        if (order)
            *order = 0;
        return RTCOSIM_PREDICT_NONE;
    }
    if (order)
        *order = p->method_order[component];
    return p->method[component];
}

const double *rtcosim_predictor_values_at(const rtcosim_predictor *p, uint64_t index)
{
    if (index < p->curve_base || index - p->curve_base >= p->curve_len)
        return NULL;
    return p->curve_values + (size_t)(index - p->curve_base) * p->width;
}

bool rtcosim_predictor_time_at(const rtcosim_predictor *p, uint64_t index, rtcosim_time_ns *t)
{
    if (index < p->curve_base || index - p->curve_base >= p->curve_len)
        return false;
    *t = p->curve_times[index - p->curve_base];
    return true;
}

/* Samples a stream holds: every value stream one per observation, the
 * interval stream one per observation after the first. */
static uint64_t stream_count(const rtcosim_predictor *p, size_t s)
{
    if (s < p->width)
        return p->count;
    return p->count ? p->count - 1 : 0;
}

static double *stream_slot(rtcosim_predictor *p, size_t s, uint64_t k)
{
    return p->hist + s * p->hist_cap + (size_t)(k % p->hist_cap);
}

/* Solve (HᵀH) w = Hᵀx for order q over the window held in seq (window + order
 * samples, oldest first; only the last window + q are used). Normal equations
 * are scaled by their diagonal (Jacobi) so that the pivot bound is relative;
 * false when HᵀH is singular or ill-conditioned. */
static bool least_squares(rtcosim_predictor *p, size_t q)
{
    const size_t M = p->window, K = p->hist_cap;
    double *A = p->normal, *b = p->rhs, *w = p->w;
    for (size_t i = 0; i < q; i++) {
        b[i] = 0;
        for (size_t j = 0; j < q; j++)
            A[i * q + j] = 0;
    }
    /* Equation r: target seq[K-1-r], regressors seq[K-2-r-i], i = 0..q-1. */
    for (size_t r = 0; r < M; r++) {
        const double target = p->seq[K - 1 - r];
        for (size_t i = 0; i < q; i++) {
            const double hi = p->seq[K - 2 - r - i];
            b[i] += hi * target;
            for (size_t j = 0; j <= i; j++)
                A[i * q + j] += hi * p->seq[K - 2 - r - j];
        }
    }
    double d[RTCOSIM_PREDICTOR_MAX_ORDER];
    for (size_t i = 0; i < q; i++) {
        if (!(A[i * q + i] > 0) || !isfinite(A[i * q + i]))
            return false;
        d[i] = sqrt(A[i * q + i]);
    }
    /* Cholesky S = L Lᵀ of the scaled lower triangle, in place. */
    for (size_t i = 0; i < q; i++)
        for (size_t j = 0; j <= i; j++)
            A[i * q + j] /= d[i] * d[j];
    for (size_t j = 0; j < q; j++) {
        double pivot = A[j * q + j];
        for (size_t k = 0; k < j; k++)
            pivot -= A[j * q + k] * A[j * q + k];
        if (!(pivot > p->min_pivot))
            return false;
        const double ljj = sqrt(pivot);
        A[j * q + j] = ljj;
        for (size_t i = j + 1; i < q; i++) {
            double v = A[i * q + j];
            for (size_t k = 0; k < j; k++)
                v -= A[i * q + k] * A[j * q + k];
            A[i * q + j] = v / ljj;
        }
    }
    /* L y = b / d, Lᵀ z = y, w = z / d. */
    for (size_t i = 0; i < q; i++) {
        double v = b[i] / d[i];
        for (size_t k = 0; k < i; k++)
            v -= A[i * q + k] * w[k];
        w[i] = v / A[i * q + i];
    }
    for (size_t i = q; i-- > 0;) {
        double v = w[i];
        for (size_t k = i + 1; k < q; k++)
            v -= A[k * q + i] * w[k];
        w[i] = v / A[i * q + i];
    }
    for (size_t i = 0; i < q; i++) {
        w[i] /= d[i];
        if (!isfinite(w[i]))
            return false;
    }
    return true;
}

/* Predict horizon samples of stream s into p->pred and record the method. */
static void predict_stream(rtcosim_predictor *p, size_t s)
{
    const uint64_t n = stream_count(p, s);
    const size_t H = p->horizon;
    if (n == 0) {
        p->method[s] = RTCOSIM_PREDICT_NONE;
        p->method_order[s] = 0;
        for (size_t k = 0; k < H; k++)
            p->pred[k] = s == p->width ? (double)p->nominal_interval : 0.0;
        return;
    }
    const double last = *stream_slot(p, s, n - 1);
    if (n == 1) {
        p->method[s] = RTCOSIM_PREDICT_ZOH;
        p->method_order[s] = 0;
        for (size_t k = 0; k < H; k++)
            p->pred[k] = last;
        return;
    }
    if (n >= p->hist_cap) {
        bool constant = true;
        for (size_t i = 0; i < p->hist_cap; i++) {
            p->seq[i] = *stream_slot(p, s, n - p->hist_cap + i);
            constant = constant && p->seq[i] == last;
        }
        if (constant) {
            /* the exact least-squares solution (order 1, w = 1) without the
             * rounding of solving for it: a held value stays bit-exact */
            p->method[s] = RTCOSIM_PREDICT_LS;
            p->method_order[s] = 1;
            for (size_t k = 0; k < H; k++)
                p->pred[k] = last;
            return;
        }
        double *fw = p->fit_w + s * p->order;
        if (p->fit_q[s] == 0 || n - p->fit_at[s] >= p->refit_interval) {
            p->fit_q[s] = 0;
            for (size_t q = p->order; q >= 1; q--)
                if (least_squares(p, q)) {
                    memcpy(fw, p->w, q * sizeof *fw);
                    p->fit_q[s] = q;
                    p->fit_at[s] = n;
                    break;
                }
        }
        const size_t q = p->fit_q[s];
        if (q) {
            /* Iterate x~[n+k] = sum_i w_i x[n+k-1-i] on the tail. */
            for (size_t i = 0; i < q; i++)
                p->tail[i] = p->seq[p->hist_cap - q + i];
            for (size_t k = 0; k < H; k++) {
                double v = 0;
                for (size_t i = 0; i < q; i++)
                    v += fw[i] * p->tail[q + k - 1 - i];
                p->tail[q + k] = v;
                p->pred[k] = v;
            }
            p->method[s] = RTCOSIM_PREDICT_LS;
            p->method_order[s] = q;
            return;
        }
    }
    const double slope = last - *stream_slot(p, s, n - 2);
    p->method[s] = RTCOSIM_PREDICT_FOH;
    p->method_order[s] = 0;
    for (size_t k = 0; k < H; k++)
        p->pred[k] = last + (double)(k + 1) * slope;
}

static void record(rtcosim_predictor *p, rtcosim_time_ns t, const double *values)
{
    for (size_t j = 0; j < p->width; j++)
        *stream_slot(p, j, p->count) = values[j];
    if (p->count > 0)
        *stream_slot(p, p->width, p->count - 1) = (double)(t - p->last_time);
    p->count++;
    p->last_time = t;
}

/* x~'[n+1 .. n+H] into next_values / next_times. */
static void predict_all(rtcosim_predictor *p)
{
    const size_t H = p->horizon, W = p->width;
    for (size_t j = 0; j < W; j++) {
        predict_stream(p, j);
        for (size_t k = 0; k < H; k++)
            p->next_values[k * W + j] = p->pred[k];
    }
    predict_stream(p, W);
    rtcosim_time_ns t = p->last_time;
    for (size_t k = 0; k < H; k++) {
        /* Whole ns; an interval never runs time backwards. */
        double interval = p->pred[k];
        rtcosim_time_ns step = interval > 0 && isfinite(interval) ? (rtcosim_time_ns)llround(interval) : 0;
        t = step > RTCOSIM_TIME_MAX - t ? RTCOSIM_TIME_MAX : t + step;
        p->next_times[k] = t;
    }
}

static void swap_curve(rtcosim_predictor *p)
{
    double *v = p->curve_values;
    p->curve_values = p->next_values;
    p->next_values = v;
    rtcosim_time_ns *t = p->curve_times;
    p->curve_times = p->next_times;
    p->next_times = t;
    p->curve_base = p->count;
    p->curve_len = p->horizon;
}

static rtcosim_status check_time(const rtcosim_predictor *p, rtcosim_time_ns t, rtcosim_error *err)
{
    if (p->count > 0 && t < p->last_time)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "predictor: event time %lld ns is before the previous %lld ns",
                                 (long long)t, (long long)p->last_time);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_predictor_observe(rtcosim_predictor *p, rtcosim_time_ns t,
                                         const double *values, rtcosim_error *err)
{
    rtcosim_status st = check_time(p, t, err);
    if (st != RTCOSIM_OK)
        return st;
    record(p, t, values);
    predict_all(p);
    swap_curve(p);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_predictor_record(rtcosim_predictor *p, rtcosim_time_ns t,
                                        const double *values, rtcosim_error *err)
{
    rtcosim_status st = check_time(p, t, err);
    if (st != RTCOSIM_OK)
        return st;
    record(p, t, values);
    p->curve_len = 0; /* no curve until the next observe */
    return RTCOSIM_OK;
}

/* Magnitude of one error vector (see the header); *exact when all zero. */
static double error_magnitude(const rtcosim_predictor *p, const double *e, rtcosim_time_ns te,
                              bool *exact)
{
    double sum = fabs((double)te) / p->time_scale;
    bool all_zero = te == 0;
    for (size_t j = 0; j < p->width; j++) {
        sum += fabs(e[j]) / p->scale[j];
        all_zero = all_zero && e[j] == 0;
    }
    *exact = all_zero;
    return sum;
}

/* The capacity spread of the accepted error E = sum_{k<m} e~[n+k] over the
 * new curve (next_values, slot k-1 = event n+k) from n+m on: E T/|E| per
 * step, K = floor(|E| / T) times, then the rest E - K E T/|E| (see the header). */
static void correct_by_capacity(rtcosim_predictor *p, size_t m)
{
    const size_t W = p->width, H = p->horizon;
    double *total = p->spread, *full = p->spread + W;
    for (size_t j = 0; j < W; j++) {
        total[j] = 0;
        for (size_t k = 0; k < m; k++)
            total[j] += p->err[k * W + j];
    }
    bool exact;
    const double magnitude = error_magnitude(p, total, 0, &exact);
    if (exact || !isfinite(magnitude))
        return; /* nothing accepted (m = 0 or exact steps), or nothing sane to spread */
    const double share = p->capacity / magnitude;
    const double full_steps = floor(magnitude / p->capacity);
    for (size_t j = 0; j < W; j++)
        full[j] = total[j] * share;
    for (size_t k = m; k - 1 < H; k++) {
        const double q = (double)(k - m);
        if (q > full_steps)
            break;
        for (size_t j = 0; j < W; j++)
            p->next_values[(k - 1) * W + j] -=
                q < full_steps ? full[j] : total[j] - full_steps * full[j];
    }
}

rtcosim_status rtcosim_predictor_arrive(rtcosim_predictor *p, rtcosim_time_ns t,
                                        const double *values, size_t speculated,
                                        double threshold, rtcosim_speculation_result *result,
                                        rtcosim_error *err)
{
    if (!(threshold >= 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "predictor: threshold must be >= 0, got %g", threshold);
    rtcosim_status st = check_time(p, t, err);
    if (st != RTCOSIM_OK)
        return st;
    const size_t W = p->width, H = p->horizon;
    const uint64_t n = p->count;
    const bool predicted = p->curve_len > 0 && p->curve_base == n;
    const size_t s = predicted ? (speculated < p->curve_len ? speculated : p->curve_len) : 0;

    memset(result, 0, sizeof *result);
    result->index = n;
    result->predicted = predicted;
    result->speculated = s;
    result->value_error = p->err; /* row 0 = e[n] */
    /* e[n] = x~[n] - x[n] (row 0 of err). */
    for (size_t j = 0; j < W; j++)
        p->err[j] = predicted ? p->curve_values[j] - values[j] : 0.0;
    p->time_err[0] = predicted ? p->curve_times[0] - t : 0;
    result->time_error_ns = p->time_err[0];
    if (predicted)
        result->arrival_error = error_magnitude(p, p->err, p->time_err[0], &result->arrival_exact);
    else
        result->arrival_error = NAN;

    record(p, t, values);
    predict_all(p); /* x~'[n+1+i] in next_*[i] */

    /* m: the longest prefix of steps n.. whose cumulative error stays within Tc. */
    size_t m = 0;
    double cumulative = 0;
    for (size_t k = 0; k < s; k++) {
        double *e = p->err + k * W;
        if (k > 0) {
            for (size_t j = 0; j < W; j++)
                e[j] = p->curve_values[k * W + j] - p->next_values[(k - 1) * W + j];
            p->time_err[k] = p->curve_times[k] - p->next_times[k - 1];
        }
        bool exact;
        const double mag = error_magnitude(p, e, p->time_err[k], &exact);
        if (!exact && !(threshold > 0 && cumulative + mag <= threshold))
            break;
        if (!exact)
            cumulative += mag;
        m++;
    }
    result->keep = m;
    result->rollback = m < s;
    result->cumulative_error = cumulative;

    /* The next curve covers n+1+i: old x~ for n+1 .. n+m-1, then x~' with
     * the distributed correction from n+m on. */
    for (size_t i = 0; i + 1 < m && i < H; i++) {
        memcpy(p->next_values + i * W, p->curve_values + (i + 1) * W, W * sizeof(double));
        p->next_times[i] = p->curve_times[i + 1];
    }
    if (p->capacity > 0)
        correct_by_capacity(p, m);
    else /* mirrored: x~''[n+m+j] = x~'[n+m+j] - e~[n+m-1-j], j < m */
        for (size_t k = m; k < 2 * m && k - 1 < H; k++) {
            const double *e = p->err + (m - 1 - (k - m)) * W;
            for (size_t j = 0; j < W; j++)
                p->next_values[(k - 1) * W + j] -= e[j];
        }
    swap_curve(p);
    return RTCOSIM_OK;
}
