/* FMI 3.0 clock calls of a loaded FMU (section 2.3.7: fmi3Get/SetInterval*,
 * fmi3GetShift*) with the rules of the clock-type table of section 2.2.8
 * checked before the FMU is called, and the Binary maxSize check of every
 * fmi3SetBinary (section 2.4.7.3): a value the FMU declared it cannot take is
 * refused naming the variable instead of overrunning its buffer. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/fmu_internal.h"

#define NO_TIME NAN

struct rtcosim_fmi3_binary_limit {
    uint32_t vr;
    size_t max_size;
    const char *name;
};

static int by_vr(const void *a, const void *b)
{
    uint32_t x = ((const struct rtcosim_fmi3_binary_limit *)a)->vr;
    uint32_t y = ((const struct rtcosim_fmi3_binary_limit *)b)->vr;
    return x < y ? -1 : x > y;
}

static rtcosim_status build_limits(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    size_t n = 0;
    for (size_t i = 0; md->binary_max_size && i < md->variable_count; i++)
        n += md->binary_max_size[i] != SIZE_MAX;
    f->binary_limits = calloc(n ? n : 1, sizeof *f->binary_limits);
    if (!f->binary_limits)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    n = 0;
    for (size_t i = 0; md->binary_max_size && i < md->variable_count; i++)
        if (md->binary_max_size[i] != SIZE_MAX)
            f->binary_limits[n++] = (struct rtcosim_fmi3_binary_limit){
                md->variables[i].value_reference, md->binary_max_size[i], md->variables[i].name};
    qsort(f->binary_limits, n, sizeof *f->binary_limits, by_vr);
    f->binary_limit_count = n;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmi3_check_binary(rtcosim_fmu *f, const uint32_t *vrs, size_t n,
                                         const rtcosim_binary *values, rtcosim_error *err)
{
    if (f->binary_limit_count == SIZE_MAX) {
        rtcosim_status st = build_limits(f, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (f->binary_limit_count == 0)
        return RTCOSIM_OK;
    for (size_t i = 0; i < n; i++) {
        struct rtcosim_fmi3_binary_limit key = {.vr = vrs[i]};
        const struct rtcosim_fmi3_binary_limit *l =
            bsearch(&key, f->binary_limits, f->binary_limit_count, sizeof key, by_vr);
        if (l && values[i].size > l->max_size)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s: variable '%s': a Binary value of %zu bytes is longer "
                                     "than its maxSize %zu (FMI 3.0 section 2.4.7.3)",
                                     f->instance_name ? f->instance_name : f->archive_path, l->name,
                                     values[i].size, l->max_size);
    }
    return RTCOSIM_OK;
}

static rtcosim_fmu *fmi3_fmu(const rtcosim_component *c)
{
    if (!c || rtcosim_component_kind(c) != rtcosim_fmi3_kind)
        return NULL;
    return rtcosim_component_impl(c);
}

const rtcosim_fmu_clocks *rtcosim_fmu_clocks_of(const rtcosim_component *c)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    if (!f)
        return NULL;
    return &f->md->clock_view;
}

long rtcosim_fmu_clock_index(const rtcosim_fmu_clocks *k, size_t variable)
{
    size_t lo = 0, hi = k ? k->clock_count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->clocks[mid].variable == variable)
            return (long)mid;
        if (k->clocks[mid].variable < variable)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The clock's value reference, or an error naming the FMU and the call. */
static rtcosim_status clock_call(rtcosim_fmu *f, size_t clock, const char *function, void *fn,
                                 fmi3ValueReference *vr, rtcosim_error *err)
{
    if (clock >= f->md->clock_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: %s: no clock #%zu", f->instance_name,
                                 function, clock);
    if (!fn)
        return rtcosim_fmu_lacks(f, function, err);
    *vr = f->md->variables[f->md->clocks[clock].variable].value_reference;
    return RTCOSIM_OK;
}

static rtcosim_status not_fmi3(const rtcosim_component *c, const char *function,
                               rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: %s needs an FMI 3.0 FMU",
                             c ? rtcosim_component_instance_name(c) : "?", function);
}

static const char *clock_name(const rtcosim_fmu *f, size_t clock)
{
    return f->md->variables[f->md->clocks[clock].variable].name;
}

rtcosim_status rtcosim_fmi3_get_interval(rtcosim_fmu *f, size_t clock, double *interval,
                                        rtcosim_interval_qualifier *qualifier, rtcosim_error *err)
{
    fmi3ValueReference vr;
    rtcosim_status st =
        clock_call(f, clock, "fmi3GetIntervalDecimal", (void *)f->fmi3.fmi3GetIntervalDecimal, &vr, err);
    if (st != RTCOSIM_OK)
        return st;
    fmi3Float64 value = 0;
    fmi3IntervalQualifier q = fmi3IntervalNotYetKnown;
    fmi3Status s = f->fmi3.fmi3GetIntervalDecimal(f->instance, &vr, 1, &value, &q);
    RTCOSIM_FMU_TRACE(f, "fmi3GetIntervalDecimal", s, "%s -> %.17g, qualifier %d",
                      clock_name(f, clock), value, (int)q);
    *interval = value;
    *qualifier = (unsigned)q <= fmi3IntervalChanged ? (rtcosim_interval_qualifier)q
                                                   : RTCOSIM_INTERVAL_NOT_YET_KNOWN;
    return rtcosim_fmu_status(f, s, "fmi3GetIntervalDecimal", NO_TIME, err);
}

rtcosim_status rtcosim_fmu_get_interval(rtcosim_component *c, size_t clock, double *interval,
                                        rtcosim_interval_qualifier *qualifier, rtcosim_error *err)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    return f ? rtcosim_fmi3_get_interval(f, clock, interval, qualifier, err) : not_fmi3(c, "fmi3GetIntervalDecimal", err);
}

static rtcosim_status need_fraction(rtcosim_fmu *f, size_t clock, const char *function,
                                    rtcosim_error *err)
{
    if (f->md->clocks[clock].supports_fraction)
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "%s: clock '%s': %s needs supportsFraction=\"true\" (FMI 3.0 section "
                             "2.4.7.3)", f->instance_name, clock_name(f, clock), function);
}

rtcosim_status rtcosim_fmi3_get_interval_fraction(rtcosim_fmu *f, size_t clock,
                                                 uint64_t *counter, uint64_t *resolution,
                                                 rtcosim_interval_qualifier *qualifier,
                                                 rtcosim_error *err)
{
    fmi3ValueReference vr;
    rtcosim_status st =
        clock_call(f, clock, "fmi3GetIntervalFraction", (void *)f->fmi3.fmi3GetIntervalFraction, &vr, err);
    if (st != RTCOSIM_OK || (st = need_fraction(f, clock, "fmi3GetIntervalFraction", err)))
        return st;
    fmi3UInt64 n = 0, r = 0;
    fmi3IntervalQualifier q = fmi3IntervalNotYetKnown;
    fmi3Status s = f->fmi3.fmi3GetIntervalFraction(f->instance, &vr, 1, &n, &r, &q);
    RTCOSIM_FMU_TRACE(f, "fmi3GetIntervalFraction", s, "%s -> %" PRIu64 "/%" PRIu64 ", qualifier %d",
                      clock_name(f, clock), n, r, (int)q);
    *counter = n, *resolution = r;
    *qualifier = (unsigned)q <= fmi3IntervalChanged ? (rtcosim_interval_qualifier)q
                                                   : RTCOSIM_INTERVAL_NOT_YET_KNOWN;
    return rtcosim_fmu_status(f, s, "fmi3GetIntervalFraction", NO_TIME, err);
}

rtcosim_status rtcosim_fmu_get_interval_fraction(rtcosim_component *c, size_t clock,
                                                 uint64_t *counter, uint64_t *resolution,
                                                 rtcosim_interval_qualifier *qualifier,
                                                 rtcosim_error *err)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    return f ? rtcosim_fmi3_get_interval_fraction(f, clock, counter, resolution, qualifier, err) : not_fmi3(c, "fmi3GetIntervalFraction", err);
}

rtcosim_status rtcosim_fmi3_get_shift(rtcosim_fmu *f, size_t clock, double *shift,
                                     rtcosim_error *err)
{
    fmi3ValueReference vr;
    rtcosim_status st =
        clock_call(f, clock, "fmi3GetShiftDecimal", (void *)f->fmi3.fmi3GetShiftDecimal, &vr, err);
    if (st != RTCOSIM_OK)
        return st;
    fmi3Float64 value = 0;
    fmi3Status s = f->fmi3.fmi3GetShiftDecimal(f->instance, &vr, 1, &value);
    RTCOSIM_FMU_TRACE(f, "fmi3GetShiftDecimal", s, "%s -> %.17g", clock_name(f, clock), value);
    *shift = value;
    return rtcosim_fmu_status(f, s, "fmi3GetShiftDecimal", NO_TIME, err);
}

rtcosim_status rtcosim_fmu_get_shift(rtcosim_component *c, size_t clock, double *shift,
                                     rtcosim_error *err)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    return f ? rtcosim_fmi3_get_shift(f, clock, shift, err) : not_fmi3(c, "fmi3GetShiftDecimal", err);
}

rtcosim_status rtcosim_fmi3_get_shift_fraction(rtcosim_fmu *f, size_t clock,
                                              uint64_t *counter, uint64_t *resolution,
                                              rtcosim_error *err)
{
    fmi3ValueReference vr;
    rtcosim_status st =
        clock_call(f, clock, "fmi3GetShiftFraction", (void *)f->fmi3.fmi3GetShiftFraction, &vr, err);
    if (st != RTCOSIM_OK || (st = need_fraction(f, clock, "fmi3GetShiftFraction", err)))
        return st;
    fmi3UInt64 n = 0, r = 0;
    fmi3Status s = f->fmi3.fmi3GetShiftFraction(f->instance, &vr, 1, &n, &r);
    RTCOSIM_FMU_TRACE(f, "fmi3GetShiftFraction", s, "%s -> %" PRIu64 "/%" PRIu64,
                      clock_name(f, clock), n, r);
    *counter = n, *resolution = r;
    return rtcosim_fmu_status(f, s, "fmi3GetShiftFraction", NO_TIME, err);
}

rtcosim_status rtcosim_fmu_get_shift_fraction(rtcosim_component *c, size_t clock,
                                              uint64_t *counter, uint64_t *resolution,
                                              rtcosim_error *err)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    return f ? rtcosim_fmi3_get_shift_fraction(f, clock, counter, resolution, err) : not_fmi3(c, "fmi3GetShiftFraction", err);
}

/* Section 2.2.8's table: the importer sets intervals of fixed and tunable
 * periodic input clocks that declare one; every other kind's interval is the
 * FMU's (constant, changing, countdown) or has none (triggered). */
static rtcosim_status settable(rtcosim_fmu *f, size_t clock, const char *function,
                               rtcosim_error *err)
{
    const rtcosim_fmu_clock *k = &f->md->clocks[clock];
    const rtcosim_variable *v = &f->md->variables[k->variable];
    if (v->causality == RTCOSIM_CAUSALITY_INPUT && k->has_interval &&
        (k->kind == RTCOSIM_FMI_CLOCK_FIXED || k->kind == RTCOSIM_FMI_CLOCK_TUNABLE))
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "%s: clock '%s': %s is allowed only for fixed or tunable input clocks "
                             "that declare an interval, not a %s %s clock (FMI 3.0 section 2.2.8)",
                             f->instance_name, v->name, function,
                             rtcosim_fmi_clock_kind_name(k->kind), rtcosim_causality_name(v->causality));
}

rtcosim_status rtcosim_fmi3_set_interval(rtcosim_fmu *f, size_t clock, double interval,
                                        rtcosim_error *err)
{
    fmi3ValueReference vr;
    rtcosim_status st =
        clock_call(f, clock, "fmi3SetIntervalDecimal", (void *)f->fmi3.fmi3SetIntervalDecimal, &vr, err);
    if (st != RTCOSIM_OK || (st = settable(f, clock, "fmi3SetIntervalDecimal", err)))
        return st;
    if (!(interval > 0) || !isfinite(interval))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: clock '%s': interval %g must be greater than 0 (FMI 3.0 "
                                 "section 2.3.7)", f->instance_name, clock_name(f, clock), interval);
    fmi3Status s = f->fmi3.fmi3SetIntervalDecimal(f->instance, &vr, 1, &interval);
    RTCOSIM_FMU_TRACE(f, "fmi3SetIntervalDecimal", s, "%s = %.17g", clock_name(f, clock), interval);
    st = rtcosim_fmu_status(f, s, "fmi3SetIntervalDecimal", NO_TIME, err);
    rtcosim_time_ns ns;
    if (st == RTCOSIM_OK && f->schedule &&
        rtcosim_time_from_seconds(interval, &ns, NULL) == RTCOSIM_OK && ns > 0)
        rtcosim_fmi3_schedule_set_interval(f->schedule, clock, ns);
    return st;
}

rtcosim_status rtcosim_fmu_set_interval(rtcosim_component *c, size_t clock, double interval,
                                        rtcosim_error *err)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    return f ? rtcosim_fmi3_set_interval(f, clock, interval, err) : not_fmi3(c, "fmi3SetIntervalDecimal", err);
}

rtcosim_status rtcosim_fmi3_set_interval_fraction(rtcosim_fmu *f, size_t clock,
                                                 uint64_t counter, uint64_t resolution,
                                                 rtcosim_error *err)
{
    fmi3ValueReference vr;
    rtcosim_status st =
        clock_call(f, clock, "fmi3SetIntervalFraction", (void *)f->fmi3.fmi3SetIntervalFraction, &vr, err);
    if (st != RTCOSIM_OK || (st = settable(f, clock, "fmi3SetIntervalFraction", err)) ||
        (st = need_fraction(f, clock, "fmi3SetIntervalFraction", err)))
        return st;
    if (counter == 0 || resolution == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: clock '%s': interval %" PRIu64 "/%" PRIu64
                                 " must be greater than 0 (FMI 3.0 section 2.3.7)",
                                 f->instance_name, clock_name(f, clock), counter, resolution);
    fmi3Status s = f->fmi3.fmi3SetIntervalFraction(f->instance, &vr, 1, &counter, &resolution);
    RTCOSIM_FMU_TRACE(f, "fmi3SetIntervalFraction", s, "%s = %" PRIu64 "/%" PRIu64,
                      clock_name(f, clock), counter, resolution);
    st = rtcosim_fmu_status(f, s, "fmi3SetIntervalFraction", NO_TIME, err);
    rtcosim_time_ns ns;
    if (st == RTCOSIM_OK && f->schedule &&
        rtcosim_time_from_seconds((double)counter / (double)resolution, &ns, NULL) == RTCOSIM_OK &&
        ns > 0)
        rtcosim_fmi3_schedule_set_interval(f->schedule, clock, ns);
    return st;
}

rtcosim_status rtcosim_fmu_set_interval_fraction(rtcosim_component *c, size_t clock,
                                                 uint64_t counter, uint64_t resolution,
                                                 rtcosim_error *err)
{
    rtcosim_fmu *f = fmi3_fmu(c);
    return f ? rtcosim_fmi3_set_interval_fraction(f, clock, counter, resolution, err) : not_fmi3(c, "fmi3SetIntervalFraction", err);
}
