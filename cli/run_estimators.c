/* The estimators of a real-time run: one default spec and any number of
 * per-signal ones, from the system's rc:RealTime annotation and the command
 * line (which replaces the annotation's default and its spec of the same
 * signal), parsed and checked for repeats up front so that a bad spec is a
 * one-line error before the system is run. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_estimators.h"

/* Index of signal in list[0..n), or n. */
static size_t find_signal(const rtcosim_rt_signal_estimator *list, size_t n, const char *signal)
{
    size_t k = 0;
    while (k < n && strcmp(list[k].signal, signal) != 0)
        k++;
    return k;
}

int cli_rt_estimators(const run_args *a, const rtcosim_ssd_realtime_settings *ann,
                      const char *non_realtime, const char **default_spec,
                      rtcosim_rt_signal_estimator **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    size_t from_ann = ann ? ann->signal_estimator_count : 0;
    if (a->estimator_count + from_ann == 0)
        return 0;
    rtcosim_rt_signal_estimator *list = calloc(a->estimator_count + from_ann, sizeof *list);
    if (!list)
        return cli_fail("--estimator: out of memory");
    size_t n = 0;
    int rc = 0;
    rtcosim_error err;
    /* The annotation's, checked by the parser already (a failure here is
     * still reported, naming the system). */
    for (size_t i = 0; i < from_ann && !rc; i++) {
        bool per_signal = false;
        if (rtcosim_rt_signal_estimator_parse(ann->signal_estimators[i], &list[n], &per_signal,
                                              &err) != RTCOSIM_OK || !per_signal)
            rc = cli_fail("%s: rc:Estimator '%s': %s", a->system, ann->signal_estimators[i],
                          per_signal ? err.message : "not SIGNAL=SPEC");
        else
            n++;
    }
    size_t annotated = n;
    const char *given_default = NULL;
    for (size_t i = 0; i < a->estimator_count && !rc; i++) {
        rtcosim_rt_signal_estimator se;
        bool per_signal = false;
        if (rtcosim_rt_signal_estimator_parse(a->estimators[i], &se, &per_signal, &err) !=
            RTCOSIM_OK) {
            rc = cli_fail("--estimator: %s", err.message);
        } else if (!per_signal) {
            if (given_default)
                rc = cli_fail("--estimator: the default estimator is given twice ('%s' and '%s')",
                              given_default, a->estimators[i]);
            given_default = a->estimators[i];
        } else {
            size_t k = find_signal(list, n, se.signal);
            if (k < annotated) {
                list[k] = se; /* the command line over the annotation */
            } else if (k < n) {
                rc = cli_fail("--estimator: signal '%s' is given twice", se.signal);
            } else {
                list[n++] = se;
            }
        }
    }
    if (!rc && n && !(non_realtime && *non_realtime))
        rc = cli_fail("--estimator %s=...: per-signal estimators need a non-real-time part "
                      "(--non-realtime)",
                      list[0].signal);
    if (rc) {
        free(list);
        return rc;
    }
    if (given_default)
        *default_spec = given_default;
    *out = list;
    *count = n;
    return 0;
}
