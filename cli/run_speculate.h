/* `rtcosim run --speculate`: options, the speculative run of an initialized
 * master with its report (per-component statistics on stdout and as CSV) and
 * the optional comparison of the committed results with a plain run. */
#ifndef RTCOSIM_CLI_RUN_SPECULATE_H
#define RTCOSIM_CLI_RUN_SPECULATE_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/master_speculate.h"

typedef struct cli_speculate {
    bool enabled;        /* --speculate */
    bool reference;      /* --reference: also run plain and compare */
    bool given;          /* any speculation option seen */
    double threshold;    /* --threshold */
    double correction_capacity; /* --correction-capacity (0: mirrored spread) */
    size_t horizon;      /* --horizon (0: default) */
    const char *stats_file; /* --speculate-stats */
    unsigned threads;    /* from --threads, 0: one per component */
} cli_speculate;

/* Options that take no value: returns 1 when `opt` is one of them. */
int cli_speculate_flag(cli_speculate *s, const char *opt);
/* Options with a value: 1 consumed, 0 not a speculation option, -1 bad value
 * (message printed). */
int cli_speculate_option(cli_speculate *s, const char *opt, const char *val);

/* Run `m` (initialized) speculatively to `stop`, feeding `observer`; with
 * s->reference, `reference` (initialized the same way) is run plain first and
 * the committed results are compared with it. Prints the report; returns the
 * run's status with err filled. *wall receives the speculative run's wall time. */
rtcosim_status cli_run_speculative(rtcosim_master *m, rtcosim_master *reference,
                                   const cli_speculate *s, rtcosim_time_ns stop,
                                   rtcosim_master_observer observer, void *context, double *wall,
                                   rtcosim_error *err);

#endif
