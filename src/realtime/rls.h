/* Recursive least squares with a forgetting factor, sized at compile time so
 * that the paced thread fits it without allocating: the cross-variable
 * (LINEAR) estimator's online fit. */
#ifndef RTCOSIM_REALTIME_RLS_H
#define RTCOSIM_REALTIME_RLS_H

#include <stddef.h>

#include "rtcosim/estimate.h"

#define RTCOSIM_RLS_MAX (RTCOSIM_ESTIMATOR_LINEAR_MAX + 1) /* inputs + intercept */

typedef struct rtcosim_rls {
    size_t n;      /* regressors including the intercept */
    double forget; /* lambda in (0, 1] */
    double theta[RTCOSIM_RLS_MAX];
    double P[RTCOSIM_RLS_MAX * RTCOSIM_RLS_MAX];
    unsigned long long updates;
} rtcosim_rls;

/* inputs: regressors without the intercept (at most RTCOSIM_ESTIMATOR_LINEAR_MAX). */
void rtcosim_rls_init(rtcosim_rls *r, size_t inputs, double forget);
double rtcosim_rls_predict(const rtcosim_rls *r, const double *x);
void rtcosim_rls_update(rtcosim_rls *r, const double *x, double y);

#endif
