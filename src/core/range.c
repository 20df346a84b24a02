/* Declared ranges of variables (FMI min/max): whether a value a user gives
 * (a start value, a parameter set, an input column) lies inside, and the
 * words that say so before the FMU sees it, since FMUs often reject such a
 * value only with a bare status (fmi3ExitInitializationMode: Error). */
#include <stdio.h>

#include "rtcosim/component.h"
#include "rtcosim/results.h"

static bool is_float(rtcosim_type t)
{
    return t == RTCOSIM_TYPE_FLOAT64 || t == RTCOSIM_TYPE_FLOAT32;
}

static bool is_unsigned(rtcosim_type t)
{
    return t == RTCOSIM_TYPE_UINT8 || t == RTCOSIM_TYPE_UINT16 || t == RTCOSIM_TYPE_UINT32 ||
           t == RTCOSIM_TYPE_UINT64;
}

static double as_double(rtcosim_type t, const rtcosim_value *v)
{
    return t == RTCOSIM_TYPE_FLOAT32 ? (double)v->f32 : v->f64;
}

/* a < b in the type's own arithmetic (no int64 -> double rounding). */
static bool less(rtcosim_type t, const rtcosim_value *a, const rtcosim_value *b)
{
    if (is_float(t))
        return as_double(t, a) < as_double(t, b);
    if (is_unsigned(t))
        return a->u64 < b->u64;
    if (t == RTCOSIM_TYPE_BOOLEAN)
        return !a->b && b->b;
    return a->i64 < b->i64;
}

/* The value as the results files write it: the shortest text that reads
 * back to it (src/results/format.c), integers in full. */
static void format_value(rtcosim_type t, const rtcosim_value *v, char *out)
{
    if (t == RTCOSIM_TYPE_FLOAT32)
        rtcosim_format_float(v->f32, out);
    else if (t == RTCOSIM_TYPE_FLOAT64)
        rtcosim_format_double(v->f64, out);
    else if (is_unsigned(t))
        rtcosim_format_uint64(v->u64, out);
    else
        rtcosim_format_int64(v->i64, out);
}

bool rtcosim_variable_in_range(const rtcosim_variable *v, const rtcosim_value *value, char *why,
                               size_t size)
{
    if (!v || !value || !rtcosim_type_is_numeric(v->type) || v->type == RTCOSIM_TYPE_BOOLEAN)
        return true;
    bool below = v->has_min && less(v->type, value, &v->min);
    bool above = v->has_max && less(v->type, &v->max, value);
    if (!below && !above)
        return true;
    if (why && size) {
        char text[RTCOSIM_FORMAT_MAX], lo[RTCOSIM_FORMAT_MAX] = "-inf", hi[RTCOSIM_FORMAT_MAX] = "inf";
        format_value(v->type, value, text);
        if (v->has_min)
            format_value(v->type, &v->min, lo);
        if (v->has_max)
            format_value(v->type, &v->max, hi);
        snprintf(why, size, "%s is outside the declared range [%s, %s]", text, lo, hi);
    }
    return false;
}
