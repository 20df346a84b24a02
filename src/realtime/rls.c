/* Recursive least squares (exponentially weighted): the standard update
 *   k = P phi / (lambda + phi' P phi),  theta += k (y - theta' phi),
 *   P = (P - k phi' P) / lambda,
 * with phi = [x, 1] so that the fit has an intercept. P starts at delta*I
 * with a large delta: the first n samples then determine theta almost
 * exactly, as an ordinary least squares fit would. */
#include "realtime/rls.h"

#include <math.h>
#include <string.h>

#define RLS_DELTA 1e6

void rtcosim_rls_init(rtcosim_rls *r, size_t inputs, double forget)
{
    memset(r, 0, sizeof *r);
    if (inputs > RTCOSIM_ESTIMATOR_LINEAR_MAX)
        inputs = RTCOSIM_ESTIMATOR_LINEAR_MAX;
    r->n = inputs + 1;
    r->forget = forget > 0 && forget <= 1 ? forget : 1.0;
    for (size_t i = 0; i < r->n; i++)
        r->P[i * RTCOSIM_RLS_MAX + i] = RLS_DELTA;
}

static void regressors(const rtcosim_rls *r, const double *x, double *phi)
{
    for (size_t i = 0; i + 1 < r->n; i++)
        phi[i] = x[i];
    phi[r->n - 1] = 1.0;
}

double rtcosim_rls_predict(const rtcosim_rls *r, const double *x)
{
    double phi[RTCOSIM_RLS_MAX];
    regressors(r, x, phi);
    double y = 0;
    for (size_t i = 0; i < r->n; i++)
        y += r->theta[i] * phi[i];
    return y;
}

void rtcosim_rls_update(rtcosim_rls *r, const double *x, double y)
{
    if (!isfinite(y))
        return;
    double phi[RTCOSIM_RLS_MAX], Pphi[RTCOSIM_RLS_MAX], k[RTCOSIM_RLS_MAX];
    regressors(r, x, phi);
    for (size_t i = 0; i < r->n; i++)
        if (!isfinite(phi[i]))
            return;
    size_t n = r->n, S = RTCOSIM_RLS_MAX;
    double denom = r->forget;
    for (size_t i = 0; i < n; i++) {
        Pphi[i] = 0;
        for (size_t j = 0; j < n; j++)
            Pphi[i] += r->P[i * S + j] * phi[j];
        denom += phi[i] * Pphi[i];
    }
    double e = y - rtcosim_rls_predict(r, x);
    for (size_t i = 0; i < n; i++) {
        k[i] = Pphi[i] / denom;
        r->theta[i] += k[i] * e;
    }
    /* P symmetric: phi' P = Pphi'. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            r->P[i * S + j] = (r->P[i * S + j] - k[i] * Pphi[j]) / r->forget;
    r->updates++;
}
