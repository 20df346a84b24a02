/* Delay injection for real-time system runs: "COMPONENT:key=value,..."
 * parsed into the options of rtcosim_delay_wrap (realtime.h), so that a
 * test or a demo makes a chosen component slow, crash or hang. */
#include "realtime/system_rt_internal.h"

static rtcosim_status parse_number(const char *key, const char *text, double *out,
                                   rtcosim_error *err)
{
    char *end = NULL;
    *out = strtod(text, &end);
    if (end == text || *end || !(*out >= 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "delay: %s=%s is not a non-negative number",
                                 key, text);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_rt_delay_parse(const char *text, rtcosim_system_rt_delay *out,
                                             rtcosim_time_ns **schedule_out, rtcosim_error *err)
{
    *schedule_out = NULL;
    memset(out, 0, sizeof *out);
    const char *colon = text ? strchr(text, ':') : NULL;
    if (!colon || colon == text)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "delay '%s': expected COMPONENT:key=value,... (keys mean, late, "
                                 "min, max, seed, schedule, fail, hang, hang-time)",
                                 text ? text : "");
    if ((size_t)(colon - text) >= sizeof out->component)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "delay '%s': component name too long", text);
    snprintf(out->component, sizeof out->component, "%.*s", (int)(colon - text), text);
    rtcosim_delay_options *d = &out->delay;
    d->mean_fraction = 0;
    d->late_min = d->late_max = 1;
    d->hang_time = 1000000000;
    char spec[1024];
    snprintf(spec, sizeof spec, "%s", colon + 1);
    rtcosim_status st = RTCOSIM_OK;
    for (char *save = NULL, *kv = strtok_r(spec, ",", &save); kv && st == RTCOSIM_OK;
         kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "delay '%s': '%s' is not key=value",
                                     text, kv);
        *eq = '\0';
        const char *v = eq + 1;
        double x = 0;
        if (strcmp(kv, "schedule") == 0) {
            size_t n = 1;
            for (const char *p = v; *p; p++)
                n += *p == '/';
            rtcosim_time_ns *s = calloc(n, sizeof *s);
            if (!s)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
            char buf[1024];
            snprintf(buf, sizeof buf, "%s", v);
            size_t k = 0;
            for (char *s2 = NULL, *item = strtok_r(buf, "/", &s2); item && st == RTCOSIM_OK;
                 item = strtok_r(NULL, "/", &s2))
                st = rtcosim_time_parse_seconds(item, &s[k++], err);
            if (st != RTCOSIM_OK || k == 0) {
                free(s);
                return st != RTCOSIM_OK ? rtcosim_error_prefix(err, "delay '%s': schedule: ", text)
                                        : rtcosim_error_set(err, RTCOSIM_EINVAL,
                                                            "delay '%s': empty schedule", text);
            }
            free(*schedule_out);
            *schedule_out = s;
            d->schedule = s;
            d->schedule_length = k;
            continue;
        }
        if (strcmp(kv, "hang-time") == 0) {
            st = rtcosim_time_parse_seconds(v, &d->hang_time, err);
            continue;
        }
        st = parse_number(kv, v, &x, err);
        if (st != RTCOSIM_OK)
            break;
        if (strcmp(kv, "mean") == 0)
            d->mean_fraction = x;
        else if (strcmp(kv, "late") == 0 && x > 1)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "delay '%s': late=%s is not a share in "
                                   "[0, 1]", text, v);
        else if (strcmp(kv, "late") == 0)
            d->late_share = x;
        else if (strcmp(kv, "min") == 0)
            d->late_min = x;
        else if (strcmp(kv, "max") == 0)
            d->late_max = x;
        else if (strcmp(kv, "seed") == 0)
            d->seed = (uint64_t)x;
        else if (strcmp(kv, "fail") == 0)
            d->fail_at_step = (uint64_t)x;
        else if (strcmp(kv, "hang") == 0)
            d->hang_at_step = (uint64_t)x;
        else
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "delay '%s': unknown key '%s' (mean, late (0..1), min, max, "
                                   "seed, schedule, fail, hang, hang-time)",
                                   text, kv);
    }
    if (st == RTCOSIM_OK && d->late_max < d->late_min)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "delay '%s': max is below min", text);
    if (st != RTCOSIM_OK) {
        free(*schedule_out);
        *schedule_out = NULL;
    }
    return st;
}
