/* The text form of a variant set (steps:H1,H2,.. or solvers:euler:H,cvode,..)
 * shared by the command line and the org.rtcosim.variants annotation, so
 * that both accept and refuse the same specs with the same words. */
#include <stdio.h>
#include <string.h>

#include "rtcosim/anytime_component.h"

static rtcosim_status parse_step(const char *spec, const char *text, rtcosim_time_ns *out,
                                 rtcosim_error *err)
{
    rtcosim_error ignored;
    if (!*text || rtcosim_time_parse_seconds(text, out, &ignored) || *out <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "'%s': '%s' is not a positive time in seconds", spec, text);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_spec_parse(const char *text, rtcosim_anytime_spec *out,
                                          rtcosim_error *err)
{
    if (!text || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "variant spec: none given");
    memset(out, 0, sizeof *out);
    char buffer[512];
    if (strlen(text) >= sizeof buffer)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "variant spec: longer than %zu characters",
                                 sizeof buffer - 1);
    strcpy(buffer, text);
    bool steps = strncmp(buffer, "steps:", 6) == 0;
    if (!steps && strncmp(buffer, "solvers:", 8) != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "'%s': wants steps:H1,H2,.. or solvers:euler:H,cvode[:HMAX],..",
                                 text);
    out->model_exchange = !steps;
    char *item = buffer + (steps ? 6 : 8);
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (out->count == RTCOSIM_ANYTIME_MAX_VARIANTS)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s': more than %d variants", text,
                                     RTCOSIM_ANYTIME_MAX_VARIANTS);
        size_t k = out->count;
        rtcosim_status st;
        if (steps) {
            out->solver[k] = RTCOSIM_ANYTIME_SOLVER_OTHER;
            if ((st = parse_step(text, item, &out->step_ns[k], err)))
                return st;
            if (k && out->step_ns[k] >= out->step_ns[k - 1])
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "'%s': steps must be listed coarsest first, each finer "
                                         "than the one before ('%s')",
                                         text, item);
        } else {
            char *colon = strchr(item, ':');
            if (colon)
                *colon = '\0';
            if (strcmp(item, "euler") == 0)
                out->solver[k] = RTCOSIM_ANYTIME_SOLVER_EULER;
            else if (strcmp(item, "cvode") == 0)
                out->solver[k] = RTCOSIM_ANYTIME_SOLVER_VARIABLE;
            else
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "'%s': unknown solver '%s' (euler:H, cvode[:HMAX])",
                                         text, item);
            if (out->solver[k] == RTCOSIM_ANYTIME_SOLVER_EULER && !colon)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s': euler needs its step (euler:H)",
                                         text);
            if (colon && (st = parse_step(text, colon + 1, &out->step_ns[k], err)))
                return st;
        }
        out->count++;
        if (!comma)
            break;
        item = comma + 1;
    }
    return RTCOSIM_OK;
}
