/* Per-connection coupling arithmetic: the extrapolation polynomials
 * (ZOH/FOH/SOH), the correction systems that release the integrated
 * extrapolation error into the next steps, and the PI step-size controller.
 * Pure functions on small structs, so that the master's hot path stays plain
 * arithmetic and every formula is testable by hand. */
#include <math.h>
#include <string.h>

#include "rtcosim/coupling.h"

void rtcosim_coupling_options_init(rtcosim_coupling_options *o)
{
    memset(o, 0, sizeof *o);
    o->extrapolation = RTCOSIM_EXTRAPOLATION_ZOH;
    o->correction = RTCOSIM_CORRECTION_NONE;
    o->stability_factor = 1.0;
    o->multirate = RTCOSIM_MULTIRATE_INTERPOLATE;
    o->factor = 1.0;
}

static const char *const extrapolation_names[] = {"zoh", "foh", "soh"};
static const char *const step_input_names[] = {"mean", "start"};
static const char *const correction_names[] = {"none", "dead-time", "integrator"};

const char *rtcosim_extrapolation_name(rtcosim_extrapolation e)
{
    return (unsigned)e < 3 ? extrapolation_names[e] : "?";
}

const char *rtcosim_correction_name(rtcosim_correction c)
{
    return (unsigned)c < 3 ? correction_names[c] : "?";
}

rtcosim_status rtcosim_extrapolation_parse(const char *text, rtcosim_extrapolation *out,
                                           rtcosim_error *err)
{
    for (int i = 0; i < 3; i++)
        if (text && strcmp(text, extrapolation_names[i]) == 0) {
            *out = (rtcosim_extrapolation)i;
            return RTCOSIM_OK;
        }
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "unknown extrapolation '%s' (expected zoh, foh or soh)",
                             text ? text : "");
}

const char *rtcosim_step_input_name(rtcosim_step_input s)
{
    return (unsigned)s < 2 ? step_input_names[s] : "?";
}

rtcosim_status rtcosim_step_input_parse(const char *text, rtcosim_step_input *out,
                                        rtcosim_error *err)
{
    for (int i = 0; i < 2; i++)
        if (text && strcmp(text, step_input_names[i]) == 0) {
            *out = (rtcosim_step_input)i;
            return RTCOSIM_OK;
        }
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "unknown step input '%s' (expected mean or start)",
                             text ? text : "");
}

rtcosim_status rtcosim_correction_parse(const char *text, rtcosim_correction *out,
                                        rtcosim_error *err)
{
    for (int i = 0; i < 3; i++)
        if (text && strcmp(text, correction_names[i]) == 0) {
            *out = (rtcosim_correction)i;
            return RTCOSIM_OK;
        }
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "unknown correction '%s' (expected none, dead-time or integrator)",
                             text ? text : "");
}

/* Newton's divided differences through the last samples, expanded into the
 * monomial basis in s = t - t0 (seconds). Times are taken relative to t0
 * before converting to seconds so that large absolute times lose nothing. */
void rtcosim_poly_fit(rtcosim_extrapolation order, const rtcosim_time_ns *times,
                      const double *values, size_t n, rtcosim_time_ns t0, rtcosim_poly *out)
{
    size_t used = (size_t)order + 1 < n ? (size_t)order + 1 : n;
    const rtcosim_time_ns *t = times + (n - used);
    const double *y = values + (n - used);
    out->c[0] = y[used - 1];
    out->c[1] = out->c[2] = 0;
    if (used == 1)
        return;
    double s[3];
    for (size_t i = 0; i < used; i++)
        s[i] = (double)(t[i] - t0) * 1e-9;
    if (used == 2) {
        if (s[1] == s[0])
            return;
        double slope = (y[1] - y[0]) / (s[1] - s[0]);
        out->c[0] = y[1] - slope * s[1];
        out->c[1] = slope;
        return;
    }
    if (s[1] == s[0] || s[2] == s[1] || s[2] == s[0]) {
        rtcosim_poly_fit(RTCOSIM_EXTRAPOLATION_FOH, t + 1, y + 1, 2, t0, out);
        return;
    }
    double d01 = (y[1] - y[0]) / (s[1] - s[0]);
    double d12 = (y[2] - y[1]) / (s[2] - s[1]);
    double d012 = (d12 - d01) / (s[2] - s[0]);
    out->c[2] = d012;
    out->c[1] = d01 - d012 * (s[0] + s[1]);
    out->c[0] = y[0] - d01 * s[0] + d012 * s[0] * s[1];
}

void rtcosim_poly_shift(const rtcosim_poly *p, double ds, rtcosim_poly *out)
{
    /* p(s + ds) = c0 + c1 (s + ds) + c2 (s + ds)^2 */
    double c0 = p->c[0] + ds * (p->c[1] + ds * p->c[2]);
    double c1 = p->c[1] + 2.0 * ds * p->c[2];
    out->c[0] = c0;
    out->c[1] = c1;
    out->c[2] = p->c[2];
}

void rtcosim_correction_init(rtcosim_correction_state *s, rtcosim_correction kind, double tau)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->tau = tau > 0 ? tau : 1e-3;
}

void rtcosim_correction_feed(rtcosim_correction_state *s, double error_integral)
{
    s->last_error = error_integral;
    if (s->kind != RTCOSIM_CORRECTION_NONE)
        s->pending += error_integral;
}

/* Stability of the correction loop. Let S_k be the error impulse not yet
 * released after interval k and e_k the new error fed in. The dead-time
 * element releases all of it: S_k = e_k, so the cumulative impulse the
 * consumer missed is only the last interval's error and never accumulates.
 * The integrator releases the fraction a_k = 1 - exp(-h_k / tau):
 *     S_k = (1 - a_k) S_{k-1} + e_k = exp(-h_k / tau) S_{k-1} + e_k,
 * a first-order recursion whose pole exp(-h_k / tau) lies in (0, 1) for every
 * step h_k > 0: the loop is stable for any step the controller picks (a
 * constant gain K h_k would need h_k < 2 / K). a_k is the exact release of a
 * continuous first-order element dc/dt = -c / tau over h_k (the shaping
 * block), so releasing over two half steps equals releasing over one whole
 * step: (1 - q) + q (1 - q) = 1 - q^2 with q = exp(-h / (2 tau)). */
double rtcosim_correction_release(rtcosim_correction_state *s, double h)
{
    if (s->kind == RTCOSIM_CORRECTION_NONE || h <= 0)
        return 0;
    double released = s->pending;
    if (s->kind == RTCOSIM_CORRECTION_INTEGRATOR)
        released = s->pending * -expm1(-h / s->tau);
    s->pending -= released;
    return released / h;
}

void rtcosim_step_control_init(rtcosim_step_control *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->rtol = 1e-4;
    sc->atol = 1e-6;
    sc->resolution = RTCOSIM_NS_PER_US;
    sc->target = 0.5;
    sc->max_increase = 2.0;
    sc->max_decrease = 0.2;
}

void rtcosim_step_controller_init(rtcosim_step_controller *ctl, const rtcosim_step_control *opts)
{
    memset(ctl, 0, sizeof *ctl);
    ctl->opts = *opts;
    if (!(ctl->opts.order > 0))
        ctl->opts.order = 2.0;
    if (!(ctl->opts.target > 0))
        ctl->opts.target = 0.5;
    if (ctl->opts.beta_i == 0 && ctl->opts.beta_p == 0) {
        ctl->opts.beta_i = 0.3 / ctl->opts.order;
        ctl->opts.beta_p = 0.2 / ctl->opts.order;
    }
    ctl->last_norm = ctl->opts.target;
}

rtcosim_time_ns rtcosim_step_controller_next(rtcosim_step_controller *ctl, double err_norm,
                                             rtcosim_time_ns h)
{
    const rtcosim_step_control *o = &ctl->opts;
    /* A zero error would ask for an infinite step; the floor keeps the power
     * finite and lets max_increase bound the growth. */
    double e = err_norm > 1e-10 ? err_norm : 1e-10;
    /* The first step's error is no guide: it extrapolated from one sample
     * (a hold, whatever the order asked) across the start's transient. */
    if (e >= o->target && ctl->steps > 0)
        ctl->settled = true;
    ctl->steps++;
    /* Below half the target the step is plainly too small: the elementary
     * law grows it as fast as it says (at most max_increase); the gentle PI
     * acts near the target only. */
    double factor = ctl->settled && e >= 0.5 * o->target
                        ? pow(o->target / e, o->beta_i) * pow(ctl->last_norm / o->target, o->beta_p)
                        : pow(o->target / e, 1.0 / o->order);
    if (factor > o->max_increase)
        factor = o->max_increase;
    if (factor < o->max_decrease)
        factor = o->max_decrease;
    ctl->last_norm = e > 1e-4 ? e : 1e-4; /* Hairer & Wanner's floor for err_{n-1} */
    double next = (double)h * factor;
    if (o->max_step > 0 && next > (double)o->max_step)
        next = (double)o->max_step;
    if (next < (double)o->min_step)
        next = (double)o->min_step;
    rtcosim_time_ns res = o->resolution > 0 ? o->resolution : 1;
    rtcosim_time_ns out = (rtcosim_time_ns)next / res * res;
    if (out < res)
        out = res;
    if (out < o->min_step)
        out = (o->min_step + res - 1) / res * res;
    return out;
}
