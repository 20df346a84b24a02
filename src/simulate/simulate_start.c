/* Start values of `rtcosim simulate` (--start-value NAME VALUE): which
 * variables a name means (a whole FMI 3.0 array: its elements), whether
 * and when they may be set, parsing, and setting them. */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/log.h"
#include "simulate/simulate_internal.h"

/* A value outside the variable's declared min/max: a warning naming the
 * variable and its range before the FMU sees it (FMUs tend to refuse such a
 * value with a bare error status later), an error with strict. */
static rtcosim_status check_range(const rtcosim_variable *v, const char *label,
                                  const rtcosim_value *value, bool strict, rtcosim_error *err)
{
    char why[160];
    if (rtcosim_variable_in_range(v, value, why, sizeof why))
        return RTCOSIM_OK;
    if (strict)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s '%s': %s", label, v->name, why);
    rtcosim_log(RTCOSIM_LOG_WARNING, "simulate", "%s '%s': %s; the model may refuse it "
                "(--strict makes this an error)", label, v->name, why);
    return RTCOSIM_OK;
}

/* Whether a start value may be set, and in which phase: inputs inside
 * initialization mode, everything else before it. */
static rtcosim_status check_start_value(const rtcosim_variable *v, rtcosim_error *err)
{
    const char *why = NULL;
    switch (v->causality) {
    case RTCOSIM_CAUSALITY_OUTPUT: why = "it is an output (computed by the model)"; break;
    case RTCOSIM_CAUSALITY_CALCULATED_PARAMETER: why = "it is a calculated parameter"; break;
    case RTCOSIM_CAUSALITY_INDEPENDENT: why = "it is the independent variable"; break;
    case RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER:
        why = "structural parameters need configuration mode, which rtcosim simulate does not use";
        break;
    case RTCOSIM_CAUSALITY_LOCAL:
        if (v->initial == RTCOSIM_INITIAL_CALCULATED || v->initial == RTCOSIM_INITIAL_NONE)
            why = "it is a calculated local variable";
        break;
    default: break;
    }
    if (!why && v->variability == RTCOSIM_VARIABILITY_CONSTANT)
        why = "it is a constant";
    if (why)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "start value '%s': cannot be set: %s", v->name, why);
    return RTCOSIM_OK;
}

/* The variables a start value names: the variable itself (*count 1), or the
 * elements name[...] of an FMI 3.0 array, consecutive in the table, which
 * take a white-space separated list in row-major order as the description's
 * own array start values do (FMI 3.0 section 2.4.7.5). NULL: neither. */
const rtcosim_variable *simulate_start_targets(const rtcosim_component *c, const char *name,
                                               size_t *count)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    *count = 1;
    if (v)
        return v;
    size_t len = strlen(name), n = rtcosim_component_variable_count(c), first = n;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = rtcosim_component_variable(c, i)->name;
        bool element = strncmp(e, name, len) == 0 && e[len] == '[';
        if (element && first == n)
            first = i;
        if (element && i == first + *count)
            ++*count;
    }
    return *count ? rtcosim_component_variable(c, first) : NULL;
}

/* Parse (and with `apply`, set) one start value: a scalar, or a list for an
 * array, all of whose elements are then set in one call. */
/* A Binary start value in hex, as fmusim takes it (two digits per byte). */
static rtcosim_status binary_start_value(rtcosim_component *c, const rtcosim_start_value *sv,
                                         const rtcosim_variable *v, bool apply, rtcosim_error *err)
{
    uint8_t *bytes = malloc(strlen(sv->value) / 2 + 1);
    if (!bytes)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "start value '%s': out of memory", sv->name);
    rtcosim_binary value = {.data = bytes};
    size_t bad = 0;
    rtcosim_status st = RTCOSIM_OK;
    if (!rtcosim_binary_from_hex(sv->value, bytes, &value.size, &bad))
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "start value '%s': '%s' is not a Binary value (hex digits, two per byte)",
                               sv->name, sv->value);
    else if (apply && (st = rtcosim_component_set(c, v->type, &v->value_reference, 1, &value,
                                                   err)) != RTCOSIM_OK)
        rtcosim_error_prefix(err, "start value '%s': ", sv->name);
    free(bytes);
    return st;
}

/* ranges: when not NULL (the check before the run), each value is also
 * checked against its variable's declared range. */
static rtcosim_status start_value(rtcosim_component *c, const rtcosim_start_value *sv, const rtcosim_variable *v,
                                  size_t count, bool apply, const rtcosim_simulate_options *ranges,
                                  rtcosim_error *err)
{
    if (v->type == RTCOSIM_TYPE_BINARY && rtcosim_component_find_variable(c, sv->name))
        return binary_start_value(c, sv, v, apply, err);
    if (rtcosim_component_find_variable(c, sv->name)) {
        rtcosim_value value;
        rtcosim_status st = rtcosim_value_parse(v->type, sv->value, &value, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "start value '%s': ", sv->name);
        if (ranges)
            return check_range(v, "start value", &value, ranges->strict_ranges, err);
        if (!apply)
            return RTCOSIM_OK;
        _Alignas(16) unsigned char slot[sizeof(rtcosim_value)];
        rtcosim_value_store(v->type, &value, slot);
        if ((st = rtcosim_component_set(c, v->type, &v->value_reference, 1, slot, err)) != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "start value '%s': ", sv->name);
        return RTCOSIM_OK;
    }
    size_t size = rtcosim_type_size(v->type);
    uint32_t *vrs = malloc(count * sizeof *vrs);
    unsigned char *slots = malloc(count * (size > sizeof(rtcosim_value) ? size : sizeof(rtcosim_value)));
    if (!vrs || !slots) {
        free(vrs);
        free(slots);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "start value '%s': out of memory", sv->name);
    }
    rtcosim_status st = RTCOSIM_OK;
    const char *text = sv->value;
    size_t k = 0;
    for (; st == RTCOSIM_OK; k++) {
        text += strspn(text, " \t");
        size_t len = strcspn(text, " \t");
        if (len == 0)
            break;
        char token[128];
        if (k >= count || len >= sizeof token) {
            k++;
            break;
        }
        memcpy(token, text, len);
        token[len] = '\0';
        text += len;
        rtcosim_value value;
        if ((st = rtcosim_value_parse(v->type, token, &value, err)) == RTCOSIM_OK) {
            rtcosim_value_store(v->type, &value, slots + k * size);
            vrs[k] = v[k].value_reference;
            if (ranges && k < count)
                st = check_range(&v[k], "start value", &value, ranges->strict_ranges, err);
        }
    }
    if (st != RTCOSIM_OK)
        rtcosim_error_prefix(err, "start value '%s': ", sv->name);
    else if (k != count)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "start value '%s': the array has %zu elements; give as many "
                               "values, separated by spaces, in row-major order",
                               sv->name, count);
    else if (apply && (st = rtcosim_component_set(c, v->type, vrs, count, slots, err)) != RTCOSIM_OK)
        rtcosim_error_prefix(err, "start value '%s': ", sv->name);
    free(vrs);
    free(slots);
    return st;
}

rtcosim_status simulate_apply_start_values(rtcosim_component *c, const rtcosim_simulate_options *o,
                                           bool inputs, rtcosim_error *err)
{
    for (size_t i = 0; i < o->start_value_count; i++) {
        const rtcosim_start_value *sv = &o->start_values[i];
        size_t count;
        const rtcosim_variable *v = simulate_start_targets(c, sv->name, &count);
        if ((v->causality == RTCOSIM_CAUSALITY_INPUT) != inputs)
            continue;
        rtcosim_status st = start_value(c, sv, v, count, true, NULL, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status simulate_check_start_values(const rtcosim_component *c,
                                           const rtcosim_simulate_options *o, rtcosim_error *err)
{
    for (size_t i = 0; i < o->start_value_count; i++) {
        const rtcosim_start_value *sv = &o->start_values[i];
        size_t count = 0;
        const rtcosim_variable *v = sv->name ? simulate_start_targets(c, sv->name, &count) : NULL;
        if (!v)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "start value '%s': model '%s' has no such variable%s%s%s",
                                     sv->name ? sv->name : "", rtcosim_component_model_name(c),
                                     SUGGEST(rtcosim_component_nearest_variable(c, sv->name)));
        rtcosim_status st = check_start_value(v, err);
        if (st != RTCOSIM_OK ||
            (st = start_value((rtcosim_component *)c, sv, v, count, false, o, err)) != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status simulate_check_input_range(const rtcosim_csv *table, size_t column,
                                          const uint64_t *exact, const rtcosim_variable *v,
                                          bool strict, rtcosim_error *err)
{
    if (!rtcosim_type_is_numeric(v->type) || v->type == RTCOSIM_TYPE_BOOLEAN ||
        (!v->has_min && !v->has_max))
        return RTCOSIM_OK;
    size_t outside = 0, first = 0;
    char why[160];
    for (size_t r = 0; r < rtcosim_csv_row_count(table); r++) {
        double x = exact ? 0.0 : rtcosim_csv_value(table, r, column);
        rtcosim_value value;
        if (exact)
            value.u64 = exact[r]; /* (an Int64's bits: the same union member's storage) */
        else if (v->type == RTCOSIM_TYPE_FLOAT64)
            value.f64 = x;
        else if (v->type == RTCOSIM_TYPE_FLOAT32)
            value.f32 = (float)x;
        else if (v->type == RTCOSIM_TYPE_UINT8 || v->type == RTCOSIM_TYPE_UINT16 ||
                 v->type == RTCOSIM_TYPE_UINT32 || v->type == RTCOSIM_TYPE_UINT64)
            value.u64 = (uint64_t)x; /* integral and in the type: check_input_column */
        else
            value.i64 = (int64_t)x;
        /* Rows in range bound the linear interpolation between them too. */
        if (!rtcosim_variable_in_range(v, &value, outside ? NULL : why, sizeof why) &&
            outside++ == 0)
            first = r;
    }
    if (!outside)
        return RTCOSIM_OK;
    if (strict)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s:%zu: column '%s': %s",
                                 rtcosim_csv_name(table), rtcosim_csv_line(table, first), v->name,
                                 why);
    rtcosim_log(RTCOSIM_LOG_WARNING, "simulate",
                "%s:%zu: input '%s': %s (%zu of %zu rows outside); the model may refuse it "
                "(--strict makes this an error)",
                rtcosim_csv_name(table), rtcosim_csv_line(table, first), v->name, why, outside,
                rtcosim_csv_row_count(table));
    return RTCOSIM_OK;
}
