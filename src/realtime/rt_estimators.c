/* Which estimator serves which signal from the non-real-time part, and where
 * its inputs come from: the default spec, or a per-signal one (`--estimator
 * SIGNAL=SPEC`) with its own map, bounds and rate limit; map and linear
 * inputs are real-time outputs or other signals from the non-real-time parts.
 * Everything is resolved and sized at setup; the paced thread only gathers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realtime/rt_internal.h"

rtcosim_status rtcosim_rt_signal_estimator_parse(const char *text,
                                                 rtcosim_rt_signal_estimator *out,
                                                 bool *per_signal, rtcosim_error *err)
{
    if (!text || !out || !per_signal)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator: NULL argument");
    memset(out->signal, 0, sizeof out->signal);
    size_t name = strcspn(text, "=,:");
    *per_signal = text[name] == '=';
    if (!*per_signal)
        return rtcosim_estimator_spec_parse(text, &out->spec, err);
    if (name == 0 || name >= sizeof out->signal)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "estimator '%s': expected SIGNAL=SPEC with a signal name of 1 to "
                                 "%zu bytes",
                                 text, sizeof out->signal - 1);
    memcpy(out->signal, text, name);
    return rtcosim_estimator_spec_parse(text + name + 1, &out->spec, err);
}

/* The k-th name of "a+b+c" into buf. */
static void linear_name(const rtcosim_estimator_spec *s, size_t k, char *buf, size_t size)
{
    const char *p = s->linear_inputs;
    for (; k > 0 && *p; k--)
        p += strcspn(p, "+") + (p[strcspn(p, "+")] == '+');
    size_t n = strcspn(p, "+");
    snprintf(buf, size, "%.*s", (int)n, p);
}

static size_t input_count(const rtcosim_estimator_spec *s)
{
    return (s->map ? rtcosim_map_input_count(s->map) : 0) + s->linear_count;
}

/* Name of input i of a spec: map inputs first, then the linear ones. */
static void input_name(const rtcosim_estimator_spec *s, size_t i, char *buf, size_t size)
{
    size_t m = s->map ? rtcosim_map_input_count(s->map) : 0;
    if (i < m)
        snprintf(buf, size, "%s", rtcosim_map_input_name(s->map, i));
    else
        linear_name(s, i - m, buf, size);
}

static const rtcosim_estimator_spec *default_spec(const rtcosim_rt *rt)
{
    return &rt->options.estimator; /* its map is rt->active_map (rt.c) */
}

static int add_names(rtcosim_rt *rt, const rtcosim_estimator_spec *s)
{
    for (size_t i = 0; i < input_count(s); i++) {
        char name[RTCOSIM_ESTIMATOR_PATH_MAX];
        input_name(s, i, name, sizeof name);
        char **grown = realloc(rt->est_names, (rt->est_name_count + 1) * sizeof *grown);
        if (!grown)
            return -1;
        rt->est_names = grown;
        if (!(rt->est_names[rt->est_name_count] = strdup(name)))
            return -1;
        rt->est_name_count++;
    }
    return 0;
}

rtcosim_status rtcosim_rt_estimators_prepare(rtcosim_rt *rt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &rt->options;
    size_t n = o->signal_estimator_count;
    if (n && !o->signal_estimators)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time: NULL signal estimators");
    rt->est_specs = calloc(n + 1, sizeof *rt->est_specs);
    rt->est_maps = calloc(n + 1, sizeof *rt->est_maps);
    if (!rt->est_specs || !rt->est_maps)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    rt->est_spec_count = n;
    for (size_t i = 0; i < n; i++) {
        rtcosim_rt_signal_estimator *e = &rt->est_specs[i];
        *e = o->signal_estimators[i];
        e->signal[sizeof e->signal - 1] = '\0';
        if (!e->signal[0])
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "real-time: a per-signal estimator names no signal");
        for (size_t k = 0; k < i; k++)
            if (strcmp(rt->est_specs[k].signal, e->signal) == 0)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "real-time: estimator of '%s' is given twice",
                                         e->signal);
        if (e->spec.kind == RTCOSIM_ESTIMATOR_MAP && !e->spec.map) {
            if (!e->spec.map_path[0])
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "real-time: estimator of '%s': map without a file",
                                         e->signal);
            if (rtcosim_map_load_csv(e->spec.map_path, &rt->est_maps[i], err) != RTCOSIM_OK)
                return rtcosim_error_prefix(err, "estimator of '%s': ", e->signal);
            e->spec.map = rt->est_maps[i];
        }
        e->spec.map_path[0] = '\0';
    }
    if (add_names(rt, default_spec(rt)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    for (size_t i = 0; i < n; i++)
        if (add_names(rt, &rt->est_specs[i].spec))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    rt->est_name_slot = calloc(rt->est_name_count + 1, sizeof *rt->est_name_slot);
    if (!rt->est_name_slot)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    for (size_t i = 0; i < rt->est_name_count; i++)
        rt->est_name_slot[i] = SIZE_MAX;
    return RTCOSIM_OK;
}

static size_t rt_slot_of(const rtcosim_rt *rt, const char *name)
{
    for (size_t i = 0; i < rt->est_name_count; i++)
        if (strcmp(rt->est_names[i], name) == 0)
            return rt->est_name_slot[i];
    return SIZE_MAX;
}

/* Resolve input i of signal j's spec into est_in[at]. */
static rtcosim_status resolve_input(rtcosim_rt *rt, size_t j, const rtcosim_estimator_spec *s,
                                    size_t i, size_t at, rtcosim_error *err)
{
    char name[RTCOSIM_ESTIMATOR_PATH_MAX];
    input_name(s, i, name, sizeof name);
    size_t slot = rt_slot_of(rt, name);
    if (slot != SIZE_MAX) {
        rt->est_in[at] = slot;
        return RTCOSIM_OK;
    }
    size_t m = s->map ? rtcosim_map_input_count(s->map) : 0;
    for (size_t k = 0; k < rt->to_rt_count; k++)
        if (strcmp(rt->signal_names[k], name) == 0) {
            if (k == j)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "real-time: estimator of '%s': a signal cannot be its "
                                         "own %s input",
                                         name, i < m ? "map" : "linear");
            rt->est_in[at] = SOURCE_REMOTE | k;
            rt->est_second[j] = true;
            return RTCOSIM_OK;
        }
    if (i < m)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                 "%s: map input '%s' is not a Float64 variable of a real-time "
                                 "component nor a signal from a non-real-time part (expected "
                                 "instance.variable)",
                                 rtcosim_map_name(s->map), name);
    return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                             "real-time: estimator of '%s': input '%s' is neither a real-time "
                             "output nor a signal from a non-real-time part",
                             rt->signal_names[j], name);
}

rtcosim_status rtcosim_rt_estimators_create(rtcosim_rt *rt, size_t pending, rtcosim_error *err)
{
    size_t to_rt = rt->to_rt_count;
    long *which = calloc(to_rt + 1, sizeof *which);
    rt->est_in_first = calloc(to_rt + 2, sizeof *rt->est_in_first);
    rt->est_second = calloc(to_rt + 1, sizeof *rt->est_second);
    if (!which || !rt->est_in_first || !rt->est_second) {
        free(which);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    }
    rtcosim_status st = RTCOSIM_OK;
    for (size_t j = 0; j < to_rt; j++)
        which[j] = -1;
    for (size_t i = 0; i < rt->est_spec_count && st == RTCOSIM_OK; i++) {
        size_t j = 0;
        while (j < to_rt && strcmp(rt->signal_names[j], rt->est_specs[i].signal) != 0)
            j++;
        if (j == to_rt)
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                   "real-time: estimator of '%s': no such signal from the "
                                   "non-real-time parts to the real-time part (%zu signal%s, "
                                   "e.g. '%s')",
                                   rt->est_specs[i].signal, to_rt, to_rt == 1 ? "" : "s",
                                   to_rt ? rt->signal_names[0] : "");
        else
            which[j] = (long)i;
    }
    rtcosim_estimator_spec def = *default_spec(rt);
    def.map = rt->active_map;
    def.map_path[0] = '\0';
    size_t total = 0, most = 0;
    for (size_t j = 0; j < to_rt; j++) {
        const rtcosim_estimator_spec *s = which[j] >= 0 ? &rt->est_specs[which[j]].spec : &def;
        rt->est_in_first[j] = total;
        total += input_count(s);
        if (input_count(s) > most)
            most = input_count(s);
    }
    rt->est_in_first[to_rt] = total;
    rt->est_in = calloc(total + 1, sizeof *rt->est_in);
    rt->est_values = calloc(most + 1, sizeof *rt->est_values);
    if (st == RTCOSIM_OK && (!rt->est_in || !rt->est_values))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
    for (size_t j = 0; j < to_rt && st == RTCOSIM_OK; j++) {
        const rtcosim_estimator_spec *s = which[j] >= 0 ? &rt->est_specs[which[j]].spec : &def;
        for (size_t i = 0; i < input_count(s) && st == RTCOSIM_OK; i++)
            st = resolve_input(rt, j, s, i, rt->est_in_first[j] + i, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_estimator_create(rt->signal_names[j], s, pending, &rt->estimators[j],
                                          err);
    }
    /* A second-pass signal reads first-pass values only: estimates of this
     * exchange are then all made from values known at it. */
    for (size_t j = 0; j < to_rt && st == RTCOSIM_OK; j++)
        for (size_t i = rt->est_in_first[j]; i < rt->est_in_first[j + 1]; i++)
            if ((rt->est_in[i] & SOURCE_REMOTE) &&
                rt->est_second[rt->est_in[i] & ~SOURCE_REMOTE]) {
                st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                       "real-time: estimator of '%s': its input '%s' is itself "
                                       "estimated from signals of the non-real-time parts",
                                       rt->signal_names[j],
                                       rt->signal_names[rt->est_in[i] & ~SOURCE_REMOTE]);
                break;
            }
    free(which);
    return st;
}

const double *rtcosim_rt_estimator_inputs(rtcosim_rt *rt, size_t j)
{
    size_t a = rt->est_in_first[j], b = rt->est_in_first[j + 1];
    if (a == b)
        return NULL;
    for (size_t i = a; i < b; i++) {
        size_t src = rt->est_in[i];
        rt->est_values[i - a] = (src & SOURCE_REMOTE)
                                    ? rt->rt_part.remote_values[src & ~SOURCE_REMOTE]
                                    : rt->rt_part.slot_values[src];
    }
    return rt->est_values;
}

void rtcosim_rt_estimators_free(rtcosim_rt *rt)
{
    for (size_t i = 0; rt->est_maps && i < rt->est_spec_count; i++)
        rtcosim_map_free(rt->est_maps[i]);
    free(rt->est_maps);
    free(rt->est_specs);
    for (size_t i = 0; i < rt->est_name_count; i++)
        free(rt->est_names[i]);
    free(rt->est_names);
    free(rt->est_name_slot);
    free(rt->est_in_first);
    free(rt->est_in);
    free(rt->est_values);
    free(rt->est_second);
}
