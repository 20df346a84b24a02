/* rtcosim run --isolate: which of a system's FMU components run in a child
 * process (rtcosim host-fmu), as a build wrap callback that chains to the
 * next wrap (DCP bindings, delay injection) after isolating. */
#ifndef RTCOSIM_CLI_RUN_ISOLATE_H
#define RTCOSIM_CLI_RUN_ISOLATE_H

#include <stdbool.h>

#include "rtcosim/fmu.h"
#include "rtcosim/system.h"

typedef struct run_isolation {
    const rtcosim_system_desc *desc; /* for each component's FMU path */
    char host_exe[4096];             /* this executable */
    bool all;                        /* every FMU component */
    char names[4096];                /* else these (comma-separated) */
    /* the run's loading options (strict, FMU logging, ...), which the
     * hosts honour too; NULL: the defaults */
    const rtcosim_fmu_options *fmu;
    rtcosim_status (*next)(void *context, const char *name, rtcosim_component *component,
                           rtcosim_component **out, rtcosim_error *err);
    void *next_context;
} run_isolation;

/* Add comma-separated names to the selection (--isolate C[,C..]). 0 or 1 (printed). */
int run_isolation_add(run_isolation *iso, const char *names);

/* --isolate-timeout S (simulate and run): how long one call of an isolated
 * FMU may go unanswered (default RTCOSIM_ISOLATE_DEFAULT_TIMEOUT_S; 0: no
 * limit). Sets it process-wide; 0, or 1 after a one-line error. */
int run_isolation_parse_timeout(const char *text);

/* Whether any component is selected. */
bool run_isolation_active(const run_isolation *iso);

/* Check the selection against the system (every name an FMU component) and
 * find the host executable. 0, or 1 after a one-line error. */
int run_isolation_prepare(run_isolation *iso, const rtcosim_system_desc *desc);

/* Whether component `name` is selected. */
bool run_isolation_selects(const run_isolation *iso, const char *name);

/* rtcosim_system_build_options.wrap; context is the run_isolation. */
rtcosim_status run_isolation_wrap(void *context, const char *name, rtcosim_component *component,
                                  rtcosim_component **out, rtcosim_error *err);

#endif
