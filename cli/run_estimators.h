/* `--estimator SPEC` (the default) and `--estimator SIGNAL=SPEC` (per
 * signal, repeatable) of `rtcosim run --real-time` over the annotation's
 * rc:Estimator elements, checked before anything is run. */
#ifndef RTCOSIM_CLI_RUN_ESTIMATORS_H
#define RTCOSIM_CLI_RUN_ESTIMATORS_H

#include "run_args.h"
#include "rtcosim/realtime.h"
#include "rtcosim/system.h"

/* Splits a->estimators: *default_spec becomes the default's text when one is
 * given (else left as is: the annotation's); *out (malloc'd, the caller frees)
 * the per-signal ones: the annotation's rc:Estimator elements (ann, may be
 * NULL), each replaced by the command line's of the same signal, then the
 * command line's others. non_realtime: the parts' names (per-signal
 * estimators need one). Returns 0, or the exit code after a one-line error. */
int cli_rt_estimators(const run_args *a, const rtcosim_ssd_realtime_settings *ann,
                      const char *non_realtime, const char **default_spec,
                      rtcosim_rt_signal_estimator **out, size_t *count);

#endif
