/* The command line's estimators of a real-time run: one default spec and any
 * number of per-signal ones, parsed and checked for repeats up front so that
 * a bad spec is a one-line error before the system is loaded. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_estimators.h"

int cli_rt_estimators(const run_args *a, const char *non_realtime, const char **default_spec,
                      rtcosim_rt_signal_estimator **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    if (a->estimator_count == 0)
        return 0;
    rtcosim_rt_signal_estimator *list = calloc(a->estimator_count, sizeof *list);
    if (!list)
        return cli_fail("--estimator: out of memory");
    const char *given_default = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < a->estimator_count && !rc; i++) {
        rtcosim_rt_signal_estimator *se = &list[n];
        bool per_signal = false;
        rtcosim_error err;
        if (rtcosim_rt_signal_estimator_parse(a->estimators[i], se, &per_signal, &err) !=
            RTCOSIM_OK) {
            rc = cli_fail("--estimator: %s", err.message);
        } else if (!per_signal) {
            if (given_default)
                rc = cli_fail("--estimator: the default estimator is given twice ('%s' and '%s')",
                              given_default, a->estimators[i]);
            given_default = a->estimators[i];
        } else {
            for (size_t k = 0; k < n && !rc; k++)
                if (strcmp(list[k].signal, se->signal) == 0)
                    rc = cli_fail("--estimator: signal '%s' is given twice", se->signal);
            n++;
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
