/* Declared ranges of variables (FMI min/max): whether a value a user gives
 * (a start value, a parameter set, an input column) lies inside, and the
 * words that say so before the FMU sees it, since FMUs often reject such a
 * value only with a bare status (fmi3ExitInitializationMode: Error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/component.h"

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

/* The shortest %g text that reads back as the same double (at most 17 digits). */
static void format_value(rtcosim_type t, const rtcosim_value *v, char *out, size_t size)
{
    if (is_float(t)) {
        double x = as_double(t, v);
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(out, size, "%.*g", digits, x);
            if (t == RTCOSIM_TYPE_FLOAT32 ? strtof(out, NULL) == v->f32 : strtod(out, NULL) == x)
                return;
        }
    } else if (is_unsigned(t)) {
        snprintf(out, size, "%llu", (unsigned long long)v->u64);
    } else if (t == RTCOSIM_TYPE_BOOLEAN) {
        snprintf(out, size, "%s", v->b ? "true" : "false");
    } else {
        snprintf(out, size, "%lld", (long long)v->i64);
    }
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
        char text[40], lo[40] = "-inf", hi[40] = "inf";
        format_value(v->type, value, text, sizeof text);
        if (v->has_min)
            format_value(v->type, &v->min, lo, sizeof lo);
        if (v->has_max)
            format_value(v->type, &v->max, hi, sizeof hi);
        snprintf(why, size, "%s is outside the declared range [%s, %s]", text, lo, hi);
    }
    return false;
}
