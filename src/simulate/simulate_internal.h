/* Shared by the files of rtcosim_simulate: start values (simulate_start.c)
 * for the run (simulate.c). */
#ifndef RTCOSIM_SIMULATE_INTERNAL_H
#define RTCOSIM_SIMULATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/simulate.h"

/* Internal to the library. */
#pragma GCC visibility push(hidden)

/* The variables a start value names: the variable itself (*count 1), or the
 * elements name[...] of an FMI 3.0 array; NULL: neither. */
const rtcosim_variable *simulate_start_targets(const rtcosim_component *c, const char *name,
                                               size_t *count);
/* Every start value: a variable that exists and may be set, a value that
 * parses; nothing is set. */
rtcosim_status simulate_check_start_values(const rtcosim_component *c,
                                           const rtcosim_simulate_options *o, rtcosim_error *err);
/* Set the start values of inputs (inputs true, in initialization mode) or
 * of all other variables (before it). */
rtcosim_status simulate_apply_start_values(rtcosim_component *c, const rtcosim_simulate_options *o,
                                           bool inputs, rtcosim_error *err);

#pragma GCC visibility pop

#endif
