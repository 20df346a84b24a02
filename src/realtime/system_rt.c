/* Real-time runs of an SSP system description: splits the components into
 * a real-time and a non-real-time part, builds one master per part, wraps
 * each master as a group component for the real-time executor, records the
 * results from the paced thread and calibrates the real-time part before the
 * run. See include/rtcosim/system_rt.h for the semantics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/results.h"
#include "rtcosim/system_rt.h"

#define LOG_CATEGORY "realtime"
#define NAME_LEN 512

/* --- A part's master as one component -------------------------------------- */

/* One variable of a group: an inner component's variable. Inputs apply the
 * connection's transformation (end = factor * start + offset, SSP 1.0
 * ssc:LinearTransformation or unit conversion) to the value received. */
typedef struct group_var {
    rtcosim_component *inner;
    uint32_t inner_vr;
    double factor, offset;
    double raw; /* inputs: the last value received, before transformation */
    size_t observed; /* outputs: index among the part master's observed values */
} group_var;

typedef struct group {
    rtcosim_master *master;
    rtcosim_variable *vars; /* vr = index */
    group_var *links;
    size_t count;
    struct rtcosim_system_rt *srt;
    bool records; /* the real-time group records the results */
} group;

struct rtcosim_system_rt {
    const rtcosim_system_desc *desc;
    rtcosim_system_rt_options options;
    rtcosim_time_ns macro_step;
    bool *is_partner; /* per description component */
    rtcosim_master *parts[2];   /* real-time, non-real-time */
    group groups[2];
    rtcosim_component *group_components[2];
    rtcosim_rt *rt;
    rtcosim_clock *owned_pacing, *owned_partner_clock;
    rtcosim_clock *delay_clocks[2];
    char *part_names[2];
    /* Start values of the inputs fed across the parts (from the whole
     * system's initialization), as "component.variable" and %.17g text. */
    char **cross_names, **cross_values;
    size_t cross_count;
    /* Results. */
    char **columns;
    size_t column_count;
    long *column_rt_index;   /* index among the real-time master's observed, or -1 */
    long *column_input;      /* else the real-time group's input carrying it */
    rtcosim_value *row;
    double *last_values;
    rtcosim_recorder *recorder;
    uint64_t rows_written;
    rtcosim_time_ns last_row_time;
    bool any_row;
    rtcosim_status record_status;
    rtcosim_error record_error;
    /* Completing the non-real-time part after the run (see finish_partner):
     * the connections, the time of the last exchange and the real-time
     * outputs sent then. */
    rtcosim_rt_connection *conns;
    size_t conn_count;
    rtcosim_time_ns last_exchange;
    double *last_sent; /* per real-time group variable */
};

static rtcosim_status group_noop(void *self, rtcosim_error *err)
{
    (void)self;
    (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status group_instantiate(void *self, const char *name, rtcosim_error *err)
{
    (void)name;
    return group_noop(self, err);
}

static rtcosim_status group_setup(void *self, double tolerance, rtcosim_time_ns start,
                                  rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)tolerance;
    (void)start;
    (void)stop;
    return group_noop(self, err);
}

static void gather_row(rtcosim_system_rt *srt)
{
    const double *observed = rtcosim_master_observed_values(srt->parts[0]);
    const group *g = &srt->groups[0];
    for (size_t i = 0; i < srt->column_count; i++) {
        double v = srt->column_rt_index[i] >= 0 ? observed[srt->column_rt_index[i]]
                                                : g->links[srt->column_input[i]].raw;
        srt->last_values[i] = v;
        srt->row[i].f64 = v;
    }
}

/* Called on the paced thread at the start of each frame: the values at t
 * are those after the previous frame's step and this frame's exchange. The
 * recorder's ring hands them to its writer thread (no I/O here). */
static void record(rtcosim_system_rt *srt, rtcosim_time_ns t, bool always)
{
    if (!srt->recorder) {
        if (always)
            gather_row(srt); /* the final values, for the caller */
        return;
    }
    rtcosim_error err;
    rtcosim_status st;
    if (always) {
        gather_row(srt);
        st = rtcosim_recorder_push_row_always(srt->recorder, t, srt->row, &err);
    } else {
        bool wanted = rtcosim_recorder_wants_row(srt->recorder);
        if (wanted)
            gather_row(srt);
        st = rtcosim_recorder_push_row(srt->recorder, t, wanted ? srt->row : NULL, &err);
    }
    srt->last_row_time = t;
    srt->any_row = true;
    if (st != RTCOSIM_OK && srt->record_status == RTCOSIM_OK) {
        srt->record_status = st;
        srt->record_error = err;
    }
}

static rtcosim_status group_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err);

static rtcosim_status group_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    group *g = self;
    if (rtcosim_master_time(g->master) != t)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "real-time: part asked to step from %.9g s but it is at %.9g s",
                                 rtcosim_time_to_seconds(t),
                                 rtcosim_time_to_seconds(rtcosim_master_time(g->master)));
    if (g->records) {
        rtcosim_system_rt *srt = g->srt;
        record(srt, t, false);
        if (t == srt->last_exchange)
            for (size_t v = 0; v < g->count; v++)
                if (g->vars[v].causality == RTCOSIM_CAUSALITY_OUTPUT) {
                    uint32_t vr = (uint32_t)v;
                    rtcosim_status st = group_get(g, RTCOSIM_TYPE_FLOAT64, &vr, 1,
                                                  &srt->last_sent[v], err);
                    if (st != RTCOSIM_OK)
                        return st;
                }
    }
    while (rtcosim_master_time(g->master) < t + h) {
        rtcosim_status st = rtcosim_master_step(g->master, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (result)
        result->last_successful_time = t + h;
    return RTCOSIM_OK;
}

static rtcosim_status group_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err)
{
    group *g = self;
    double *out = values;
    const double *observed = NULL;
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "real-time part: only Float64 signals");
    for (size_t i = 0; i < n; i++) {
        if (vrs[i] >= g->count)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "real-time part: no variable %u",
                                     vrs[i]);
        const group_var *l = &g->links[vrs[i]];
        if (g->vars[vrs[i]].causality == RTCOSIM_CAUSALITY_INPUT) {
            out[i] = l->raw;
            continue;
        }
        /* The master's view of an output: a slower component's value of its
         * latest communication point, as the master's own connections see it. */
        if (!observed)
            observed = rtcosim_master_observed_values(g->master);
        out[i] = observed[l->observed];
    }
    return RTCOSIM_OK;
}

static rtcosim_status group_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, rtcosim_error *err)
{
    group *g = self;
    const double *in = values;
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "real-time part: only Float64 signals");
    for (size_t i = 0; i < n; i++) {
        if (vrs[i] >= g->count || g->vars[vrs[i]].causality != RTCOSIM_CAUSALITY_INPUT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "real-time part: %u is not an input",
                                     vrs[i]);
        group_var *l = &g->links[vrs[i]];
        l->raw = in[i];
        double v = l->factor * in[i] + l->offset;
        rtcosim_status st = rtcosim_component_set(l->inner, RTCOSIM_TYPE_FLOAT64, &l->inner_vr, 1,
                                                  &v, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static void group_destroy(void *self)
{
    (void)self; /* the group lives in rtcosim_system_rt */
}

static const rtcosim_component_ops group_ops = {
    .kind = "group",
    .instantiate = group_instantiate,
    .setup = group_setup,
    .enter_init = group_noop,
    .exit_init = group_noop,
    .do_step = group_step,
    .get = group_get,
    .set = group_set,
    .terminate = group_noop,
    .destroy = group_destroy,
};

/* Add a variable "component.variable" to a group (outputs once each). */
static long group_add(group *g, size_t capacity, rtcosim_master *m, const char *component,
                      const char *variable, rtcosim_causality causality, double factor,
                      double offset, const char *file, int line, rtcosim_error *err)
{
    char name[NAME_LEN];
    snprintf(name, sizeof name, "%s.%s", component, variable);
    if (causality == RTCOSIM_CAUSALITY_OUTPUT)
        for (size_t i = 0; i < g->count; i++)
            if (g->vars[i].causality == causality && strcmp(g->vars[i].name, name) == 0)
                return (long)i;
    if (g->count >= capacity) {
        rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: too many signals", file);
        return -1;
    }
    rtcosim_component *c = rtcosim_master_component(m, component);
    const rtcosim_variable *v = c ? rtcosim_component_find_variable(c, variable) : NULL;
    if (!v) {
        rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s:%d: no variable '%s'", file, line, name);
        return -1;
    }
    if (v->type != RTCOSIM_TYPE_FLOAT64) {
        rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                          "%s:%d: '%s' is %s: only Real (Float64) signals can cross between the "
                          "real-time and the non-real-time part",
                          file, line, name, rtcosim_type_name(v->type));
        return -1;
    }
    char *copy = strdup(name);
    if (!copy) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        return -1;
    }
    size_t i = g->count++;
    g->vars[i] = (rtcosim_variable){.name = copy, .value_reference = (uint32_t)i,
                                    .type = RTCOSIM_TYPE_FLOAT64, .causality = causality,
                                    .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
                                    .derivative_of = -1};
    g->links[i] = (group_var){.inner = c, .inner_vr = v->value_reference, .factor = factor,
                              .offset = offset};
    for (size_t k = 0; causality == RTCOSIM_CAUSALITY_OUTPUT && k < rtcosim_master_observed_count(m);
         k++)
        if (strcmp(rtcosim_master_observed_name(m, k), name) == 0)
            g->links[i].observed = k;
    return (long)i;
}

static void group_free(group *g)
{
    for (size_t i = 0; i < g->count; i++)
        free((char *)g->vars[i].name);
    free(g->vars);
    free(g->links);
}

/* --- Delay injection -------------------------------------------------------- */

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

typedef struct wrap_context {
    rtcosim_system_rt *srt;
    int part;
} wrap_context;

static rtcosim_status wrap_delayed(void *context, const char *name, rtcosim_component *component,
                                   rtcosim_component **out, rtcosim_error *err)
{
    wrap_context *w = context;
    const rtcosim_system_rt_options *o = &w->srt->options;
    for (size_t i = 0; i < o->delay_count; i++)
        if (strcmp(o->delays[i].component, name) == 0) {
            rtcosim_delay_options d = o->delays[i].delay;
            d.clock = w->srt->delay_clocks[w->part];
            return rtcosim_delay_wrap(component, &d, out, err);
        }
    *out = component;
    return RTCOSIM_OK;
}

/* --- Setup ------------------------------------------------------------------- */

void rtcosim_system_rt_options_init(rtcosim_system_rt_options *o)
{
    memset(o, 0, sizeof *o);
    rtcosim_rt_options_init(&o->rt);
    o->rt.calibrate = true;
}

static const char *component_of(const char *name, char *buf, size_t size)
{
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), name);
    return buf;
}

static char *join_list(const rtcosim_system_desc *d, const bool *is_partner, bool partner)
{
    size_t len = 1;
    for (size_t i = 0; i < rtcosim_system_desc_component_count(d); i++)
        len += strlen(rtcosim_system_desc_component(d, i)->name) + 2;
    char *s = calloc(len, 1);
    for (size_t i = 0; s && i < rtcosim_system_desc_component_count(d); i++)
        if (is_partner[i] == partner) {
            if (*s)
                strcat(s, ", ");
            strcat(s, rtcosim_system_desc_component(d, i)->name);
        }
    return s;
}

static rtcosim_status split(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_system_desc *d = srt->desc;
    const char *file = rtcosim_system_desc_file(d);
    size_t n = rtcosim_system_desc_component_count(d);
    const char *list = srt->options.rt.non_realtime;
    char name[NAME_LEN];
    while (list && *list) {
        const char *comma = strchr(list, ',');
        size_t len = comma ? (size_t)(comma - list) : strlen(list);
        snprintf(name, sizeof name, "%.*s", (int)len, list);
        if (len) {
            int idx = rtcosim_system_desc_find_component(d, name);
            if (idx < 0) {
                char *all = join_list(d, srt->is_partner, false);
                char *more = join_list(d, srt->is_partner, true);
                rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                  "%s: non-real-time component '%s' is not in the system "
                                  "(components: %s%s%s)",
                                  file, name, all ? all : "", more && *more ? ", " : "",
                                  more ? more : "");
                free(all);
                free(more);
                return RTCOSIM_ENOTFOUND;
            }
            srt->is_partner[idx] = true;
        }
        list = comma ? comma + 1 : NULL;
    }
    size_t partners = 0;
    for (size_t i = 0; i < n; i++)
        partners += srt->is_partner[i];
    if (partners == n)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: every component is non-real-time; nothing to pace", file);
    for (size_t i = 0; i < srt->options.delay_count; i++)
        if (rtcosim_system_desc_find_component(d, srt->options.delays[i].component) < 0)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "%s: delay injection for '%s': no such component", file,
                                     srt->options.delays[i].component);
    srt->part_names[0] = join_list(d, srt->is_partner, false);
    srt->part_names[1] = join_list(d, srt->is_partner, true);
    if (!srt->part_names[0] || !srt->part_names[1])
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    return RTCOSIM_OK;
}

static bool crosses(const rtcosim_system_rt *srt, const rtcosim_ssd_connection *cn)
{
    return cn->start.component_index >= 0 && cn->end.component_index >= 0 &&
           srt->is_partner[cn->start.component_index] != srt->is_partner[cn->end.component_index];
}

static rtcosim_status set_start_values(rtcosim_system_rt *srt, rtcosim_master *m, int part,
                                       rtcosim_error *err)
{
    const rtcosim_system_rt_options *o = &srt->options;
    char comp[NAME_LEN];
    for (size_t i = 0; i < o->start_count; i++) {
        int idx = rtcosim_system_desc_find_component(srt->desc,
                                                     component_of(o->start_names[i], comp,
                                                                  sizeof comp));
        if (part >= 0 && idx >= 0 && (int)srt->is_partner[idx] != part)
            continue;
        rtcosim_status st = rtcosim_master_set_start_value(m, o->start_names[i],
                                                           o->start_values[i], err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "start value: ");
    }
    for (size_t i = 0; part >= 0 && i < srt->cross_count; i++) {
        int idx = rtcosim_system_desc_find_component(srt->desc,
                                                     component_of(srt->cross_names[i], comp,
                                                                  sizeof comp));
        if ((int)srt->is_partner[idx] != part)
            continue;
        rtcosim_status st = rtcosim_master_set_start_value(m, srt->cross_names[i],
                                                           srt->cross_values[i], err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static char *dup_checked(const char *s, rtcosim_status *st, rtcosim_error *err)
{
    char *c = strdup(s);
    if (!c && *st == RTCOSIM_OK)
        *st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    return c;
}

/* Initialize the whole system once: the values that cross between the parts
 * at the start time, and the default result columns. */
static rtcosim_status initialize_whole(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_system_desc *d = srt->desc;
    rtcosim_system_build_options b = srt->options.build;
    b.members = NULL;
    b.wrap = NULL;
    rtcosim_master *m = NULL;
    rtcosim_status st = rtcosim_system_build_master(d, &b, &m, err);
    if (st == RTCOSIM_OK)
        st = set_start_values(srt, m, -1, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_master_initialize(m, srt->options.rt.start_time, srt->options.rt.stop_time,
                                       err);
    if (st == RTCOSIM_OK && rtcosim_master_time(m) != srt->options.rt.start_time)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: unexpected start time",
                               rtcosim_system_desc_file(d));
    if (st == RTCOSIM_OK)
        srt->macro_step = rtcosim_master_next_step(m);
    size_t nconn = rtcosim_system_desc_connection_count(d);
    srt->cross_names = calloc(nconn + 1, sizeof *srt->cross_names);
    srt->cross_values = calloc(nconn + 1, sizeof *srt->cross_values);
    if (st == RTCOSIM_OK && (!srt->cross_names || !srt->cross_values))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    char name[NAME_LEN], value[64];
    for (size_t i = 0; st == RTCOSIM_OK && i < nconn; i++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(d, i);
        if (!crosses(srt, cn))
            continue;
        rtcosim_component *c = rtcosim_master_component(m, cn->end.component);
        const rtcosim_variable *v = rtcosim_component_find_variable(c, cn->end.connector);
        double x = 0;
        if (!v || v->type != RTCOSIM_TYPE_FLOAT64) {
            st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                   "%s:%d: '%s.%s' is not Real: only Real (Float64) signals can "
                                   "cross between the real-time and the non-real-time part",
                                   rtcosim_system_desc_file(d), cn->line, cn->end.component,
                                   cn->end.connector);
            break;
        }
        st = rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1, &x, err);
        snprintf(name, sizeof name, "%s.%s", cn->end.component, cn->end.connector);
        snprintf(value, sizeof value, "%.17g", x);
        size_t k = srt->cross_count++;
        srt->cross_names[k] = dup_checked(name, &st, err);
        srt->cross_values[k] = dup_checked(value, &st, err);
    }
    /* Result columns: the caller's, else the whole system's default. */
    size_t count = b.observe_count ? b.observe_count : (m ? rtcosim_master_observed_count(m) : 0);
    srt->columns = calloc(count + 1, sizeof *srt->columns);
    if (st == RTCOSIM_OK && !srt->columns)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    for (size_t i = 0; st == RTCOSIM_OK && i < count; i++)
        srt->columns[srt->column_count++] =
            dup_checked(b.observe_count ? b.observe[i] : rtcosim_master_observed_name(m, i), &st,
                        err);
    rtcosim_master_free(m);
    return st;
}

static rtcosim_status build_part(rtcosim_system_rt *srt, int part, rtcosim_master **out,
                                 rtcosim_error *err)
{
    size_t n = rtcosim_system_desc_component_count(srt->desc);
    bool *members = calloc(n + 1, sizeof *members);
    size_t nconn = rtcosim_system_desc_connection_count(srt->desc);
    const char **observe = calloc(srt->column_count + nconn + 1, sizeof *observe);
    char (*outputs)[NAME_LEN] = calloc(nconn + 1, NAME_LEN);
    if (!members || !observe || !outputs) {
        free(members);
        free(observe);
        free(outputs);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        members[i] = (int)srt->is_partner[i] == part;
    size_t observe_count = 0;
    char comp[NAME_LEN];
    for (size_t i = 0; part == 0 && i < srt->column_count; i++) {
        int idx = rtcosim_system_desc_find_component(srt->desc, component_of(srt->columns[i], comp,
                                                                             sizeof comp));
        if (idx >= 0 && !srt->is_partner[idx])
            observe[observe_count++] = srt->columns[i];
    }
    /* The outputs sent to the other part are observed too: their values are
     * read from the master's view (see group_get). */
    for (size_t c = 0; c < nconn; c++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(srt->desc, c);
        if (!crosses(srt, cn) || (int)srt->is_partner[cn->start.component_index] != part)
            continue;
        snprintf(outputs[c], NAME_LEN, "%s.%s", cn->start.component, cn->start.connector);
        bool seen = false;
        for (size_t k = 0; k < observe_count && !seen; k++)
            seen = strcmp(observe[k], outputs[c]) == 0;
        if (!seen)
            observe[observe_count++] = outputs[c];
    }
    wrap_context w = {srt, part};
    rtcosim_system_build_options b = srt->options.build;
    b.members = members;
    b.wrap = wrap_delayed;
    b.wrap_context = &w;
    b.observe = observe;
    b.observe_count = observe_count;
    rtcosim_master *m = NULL;
    rtcosim_status st = rtcosim_system_build_master(srt->desc, &b, &m, err);
    free(members);
    free(observe);
    free(outputs);
    if (st == RTCOSIM_OK)
        st = set_start_values(srt, m, part, err);
    /* The probe of the calibration has no stop time: it may step past it. */
    if (st == RTCOSIM_OK)
        st = rtcosim_master_initialize(m, srt->options.rt.start_time,
                                       out == &srt->parts[part] ? srt->options.rt.stop_time : -1,
                                       err);
    if (st != RTCOSIM_OK) {
        rtcosim_master_free(m);
        return rtcosim_error_prefix(err, "%s part: ", part ? "non-real-time" : "real-time");
    }
    *out = m;
    return RTCOSIM_OK;
}

/* Group variables and executor connections for every connection that
 * crosses between the parts. */
static rtcosim_status connect_parts(rtcosim_system_rt *srt, int part_count,
                                    rtcosim_rt_connection *conns, size_t *conn_count,
                                    rtcosim_error *err)
{
    const rtcosim_system_desc *d = srt->desc;
    const char *file = rtcosim_system_desc_file(d);
    size_t n = rtcosim_system_desc_connection_count(d);
    for (int p = 0; p < part_count; p++) {
        srt->groups[p].vars = calloc(2 * n + 1, sizeof(rtcosim_variable));
        srt->groups[p].links = calloc(2 * n + 1, sizeof(group_var));
        srt->groups[p].master = srt->parts[p];
        if (!srt->groups[p].vars || !srt->groups[p].links)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    *conn_count = 0;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(d, i);
        if (!crosses(srt, cn))
            continue;
        int from = srt->is_partner[cn->start.component_index];
        int to = srt->is_partner[cn->end.component_index];
        bool transformed = cn->has_linear_transformation || cn->has_unit_conversion;
        long out = group_add(&srt->groups[from], 2 * n, srt->parts[from], cn->start.component,
                             cn->start.connector, RTCOSIM_CAUSALITY_OUTPUT, 1, 0, file, cn->line,
                             err);
        if (out < 0)
            return err ? err->status : RTCOSIM_EINVAL;
        long in = group_add(&srt->groups[to], 2 * n, srt->parts[to], cn->end.component,
                            cn->end.connector, RTCOSIM_CAUSALITY_INPUT,
                            transformed ? cn->factor : 1, transformed ? cn->offset : 0, file,
                            cn->line, err);
        if (in < 0)
            return err ? err->status : RTCOSIM_EINVAL;
        conns[(*conn_count)++] = (rtcosim_rt_connection){(size_t)from, (uint32_t)out, (size_t)to,
                                                         (uint32_t)in};
    }
    static const char *const labels[2] = {"realtime", "non-realtime"};
    for (int p = 0; p < part_count; p++) {
        group *g = &srt->groups[p];
        rtcosim_component_desc cd = {.model_name = labels[p], .variables = g->vars,
                                     .variable_count = g->count,
                                     .capabilities = {.can_handle_variable_step = true}};
        rtcosim_status st = rtcosim_component_create(&group_ops, g, &cd, &srt->group_components[p],
                                                     err);
        rtcosim_component *c = srt->group_components[p];
        if (st == RTCOSIM_OK)
            st = rtcosim_component_instantiate(c, labels[p], err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_setup(c, 0, srt->options.rt.start_time,
                                         srt->options.rt.stop_time, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_enter_init(c, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_exit_init(c, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* Each results column: a real-time part's observed variable, or a
 * non-real-time output that feeds the real-time part. */
static rtcosim_status map_columns(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const char *file = rtcosim_system_desc_file(srt->desc);
    size_t n = srt->column_count;
    srt->column_rt_index = calloc(n + 1, sizeof *srt->column_rt_index);
    srt->column_input = calloc(n + 1, sizeof *srt->column_input);
    srt->row = calloc(n + 1, sizeof *srt->row);
    srt->last_values = calloc(n + 1, sizeof *srt->last_values);
    if (!srt->column_rt_index || !srt->column_input || !srt->row || !srt->last_values)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    rtcosim_master *m = srt->parts[0];
    const group *g = &srt->groups[0];
    size_t kept = 0;
    char comp[NAME_LEN];
    for (size_t i = 0; i < n; i++) {
        const char *name = srt->columns[i];
        long rt_index = -1, input = -1;
        for (size_t k = 0; k < rtcosim_master_observed_count(m) && rt_index < 0; k++)
            if (strcmp(rtcosim_master_observed_name(m, k), name) == 0)
                rt_index = (long)k;
        /* A non-real-time output reaches the real-time group's inputs as
         * their source: find one input it feeds. */
        for (size_t c = 0; rt_index < 0 && input < 0 &&
                           c < rtcosim_system_desc_connection_count(srt->desc);
             c++) {
            const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(srt->desc, c);
            char start[NAME_LEN], end[NAME_LEN];
            if (!crosses(srt, cn) || !srt->is_partner[cn->start.component_index])
                continue;
            snprintf(start, sizeof start, "%s.%s", cn->start.component, cn->start.connector);
            if (strcmp(start, name) != 0)
                continue;
            snprintf(end, sizeof end, "%s.%s", cn->end.component, cn->end.connector);
            for (size_t v = 0; v < g->count; v++)
                if (g->vars[v].causality == RTCOSIM_CAUSALITY_INPUT &&
                    strcmp(g->vars[v].name, end) == 0)
                    input = (long)v;
        }
        if (rt_index < 0 && input < 0) {
            if (srt->options.build.observe_count)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s: output variable '%s' cannot be recorded in a "
                                         "real-time run: '%s' is non-real-time and the variable "
                                         "does not feed the real-time part",
                                         file, name, component_of(name, comp, sizeof comp));
            rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                        "%s: '%s' is not recorded (non-real-time, does not feed the real-time "
                        "part)", file, name);
            free(srt->columns[i]);
            continue;
        }
        srt->columns[kept] = srt->columns[i];
        srt->column_rt_index[kept] = rt_index;
        srt->column_input[kept] = input;
        kept++;
    }
    srt->column_count = kept;
    return RTCOSIM_OK;
}

/* An input's raw value at the start: its source's output at the start. */
static rtcosim_status initial_raw_values(rtcosim_system_rt *srt, const rtcosim_rt_connection *conns,
                                         size_t n, rtcosim_error *err)
{
    for (size_t i = 0; i < n; i++) {
        group *from = &srt->groups[conns[i].from_component];
        group *to = &srt->groups[conns[i].to_component];
        double x = 0;
        rtcosim_status st = group_get(from, RTCOSIM_TYPE_FLOAT64, &conns[i].from_vr, 1, &x, err);
        if (st != RTCOSIM_OK)
            return st;
        to->links[conns[i].to_vr].raw = x;
    }
    return RTCOSIM_OK;
}

static rtcosim_status open_results(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_system_rt_options *o = &srt->options;
    if (!o->output_file)
        return RTCOSIM_OK;
    uint32_t every = 1;
    if (o->output_interval > 0) {
        if (o->output_interval % srt->macro_step != 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "--output-interval %.9g s is not a multiple of the macro "
                                     "step %.9g s",
                                     rtcosim_time_to_seconds(o->output_interval),
                                     rtcosim_time_to_seconds(srt->macro_step));
        every = (uint32_t)(o->output_interval / srt->macro_step);
    }
    rtcosim_column *cols = calloc(srt->column_count + 1, sizeof *cols);
    if (!cols)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    for (size_t i = 0; i < srt->column_count; i++)
        cols[i] = (rtcosim_column){srt->columns[i], RTCOSIM_TYPE_FLOAT64};
    /* A writer thread formats and writes; the paced thread only fills the
     * ring and never waits for it on a real clock: a row that finds the ring
     * full is counted as dropped (reported after the run). A virtual run
     * has no deadline to protect and waits instead. */
    rtcosim_recorder_options ro = {.path = o->output_file, .columns = cols,
                                   .column_count = srt->column_count, .record_every = every,
                                   .writer_thread = true,
                                   .drop_when_full = !rtcosim_clock_is_virtual(o->rt.clock),
                                   .ring_rows = 65536};
    rtcosim_status st = rtcosim_recorder_open(&ro, &srt->recorder, err);
    free(cols);
    return st;
}

/* The time of the last exchange point before the stop (frame 0 is one; the
 * pattern repeats from there). */
static rtcosim_status plan_last_exchange(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &srt->options.rt;
    uint64_t frames = (uint64_t)((o->stop_time - o->start_time) / srt->macro_step);
    uint64_t frame = 0, last = 0;
    for (size_t i = 0; frame < frames && o->exchange.length; i = (i + 1) % o->exchange.length) {
        last = frame;
        frame += o->exchange.frames[i] ? o->exchange.frames[i] : 1;
    }
    srt->last_exchange = o->start_time + (rtcosim_time_ns)last * srt->macro_step;
    srt->last_sent = calloc(srt->groups[0].count + 1, sizeof *srt->last_sent);
    return srt->last_sent ? RTCOSIM_OK : rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
}

rtcosim_status rtcosim_system_rt_create(const rtcosim_system_desc *desc,
                                        const rtcosim_system_rt_options *options,
                                        rtcosim_system_rt **out, rtcosim_error *err)
{
    if (!desc || !options || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_rt_create: NULL argument");
    *out = NULL;
    rtcosim_system_rt *srt = calloc(1, sizeof *srt);
    if (!srt)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    srt->desc = desc;
    srt->options = *options;
    size_t n = rtcosim_system_desc_component_count(desc);
    srt->is_partner = calloc(n + 1, sizeof *srt->is_partner);
    rtcosim_status st = srt->is_partner ? RTCOSIM_OK
                                        : rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    if (st == RTCOSIM_OK && n == 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: the system has no components",
                               rtcosim_system_desc_file(desc));
    if (st == RTCOSIM_OK)
        st = split(srt, err);
    /* Frames are fixed: the executor's frame is the macro step. */
    const rtcosim_ssd_master_settings *ann = rtcosim_system_desc_master(desc);
    const rtcosim_ssd_master_settings *over = &options->build.overrides;
    bool adaptive = over->has_step_control ? over->step_control
                                           : ann->has_step_control && ann->step_control;
    if (st == RTCOSIM_OK && adaptive)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: a real-time run needs a fixed macro step (step control is on)",
                               rtcosim_system_desc_file(desc));
    rtcosim_rt_options *ro = &srt->options.rt;
    /* Clocks: the pacing clock paces the real-time part and times delays
     * injected into it; the partner's clock times delays of the other part. */
    if (st == RTCOSIM_OK && !ro->clock) {
        st = rtcosim_clock_create_monotonic(ro->busy_wait, &srt->owned_pacing, err);
        ro->clock = srt->owned_pacing;
    }
    if (st == RTCOSIM_OK && !ro->partner_clock)
        st = rtcosim_clock_create_monotonic(ro->busy_wait, &srt->owned_partner_clock, err);
    srt->delay_clocks[0] = ro->clock;
    srt->delay_clocks[1] = ro->partner_clock ? ro->partner_clock : srt->owned_partner_clock;
    if (st == RTCOSIM_OK)
        st = initialize_whole(srt, err);
    int part_count = srt->part_names[1] && srt->part_names[1][0] ? 2 : 1;
    for (int p = 0; p < part_count && st == RTCOSIM_OK; p++)
        st = build_part(srt, p, &srt->parts[p], err);
    size_t nconn = rtcosim_system_desc_connection_count(desc);
    rtcosim_rt_connection *conns = calloc(nconn + 1, sizeof *conns);
    size_t conn_count = 0;
    if (st == RTCOSIM_OK && !conns)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    if (st == RTCOSIM_OK)
        st = connect_parts(srt, part_count, conns, &conn_count, err);
    if (st == RTCOSIM_OK)
        st = initial_raw_values(srt, conns, conn_count, err);
    if (st == RTCOSIM_OK)
        st = map_columns(srt, err);
    if (st == RTCOSIM_OK) {
        srt->groups[0].srt = srt;
        srt->groups[0].records = true;
    }
    if (st == RTCOSIM_OK) {
        rtcosim_rt_options eo = *ro;
        eo.macro_step = srt->macro_step;
        eo.calibrate = false; /* done here, on a probe of the real-time part */
        eo.group_names = true;
        eo.non_realtime = "non-realtime";
        size_t parts = (size_t)part_count;
        if (parts == 1)
            eo.non_realtime = NULL;
        if (eo.clock && rtcosim_clock_is_virtual(eo.clock) && parts == 1)
            eo.partner_clock = NULL;
        st = rtcosim_rt_create(srt->group_components, parts, conns, conn_count, &eo, &srt->rt, err);
        if (st != RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s: ", rtcosim_system_desc_file(desc));
    }
    srt->conns = conns;
    srt->conn_count = conn_count;
    if (st == RTCOSIM_OK)
        st = plan_last_exchange(srt, err);
    if (st == RTCOSIM_OK)
        st = open_results(srt, err);
    if (st != RTCOSIM_OK) {
        rtcosim_system_rt_free(srt);
        return st;
    }
    *out = srt;
    return RTCOSIM_OK;
}

void rtcosim_system_rt_free(rtcosim_system_rt *srt)
{
    if (!srt)
        return;
    if (srt->recorder)
        rtcosim_recorder_close(srt->recorder, NULL, NULL);
    /* A lost partner's thread still inside a component call: its components,
     * their libraries and the executor stay until the process exits. */
    if (srt->rt && rtcosim_rt_get_summary(srt->rt)->partner_abandoned)
        return;
    rtcosim_rt_free(srt->rt);
    for (int p = 0; p < 2; p++) {
        rtcosim_component_free(srt->group_components[p]);
        group_free(&srt->groups[p]);
        rtcosim_master_free(srt->parts[p]);
        free(srt->part_names[p]);
    }
    for (size_t i = 0; i < srt->cross_count; i++) {
        free(srt->cross_names[i]);
        free(srt->cross_values[i]);
    }
    free(srt->cross_names);
    free(srt->cross_values);
    for (size_t i = 0; i < srt->column_count; i++)
        free(srt->columns[i]);
    free(srt->columns);
    free(srt->column_rt_index);
    free(srt->column_input);
    free(srt->row);
    free(srt->last_values);
    free(srt->conns);
    free(srt->last_sent);
    free(srt->is_partner);
    rtcosim_clock_free(srt->owned_pacing);
    rtcosim_clock_free(srt->owned_partner_clock);
    free(srt);
}

/* --- Calibration and run ------------------------------------------------------ */

static int compare_ns(const void *a, const void *b)
{
    rtcosim_time_ns x = *(const rtcosim_time_ns *)a, y = *(const rtcosim_time_ns *)b;
    return (x > y) - (x < y);
}

/* Time calibration_frames steps of a fresh instance of the real-time part,
 * unpaced, on the pacing clock; refuse when the worst exceeds the budget. */
static rtcosim_status calibrate(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &srt->options.rt;
    rtcosim_master *probe = NULL;
    rtcosim_status st = build_part(srt, 0, &probe, err);
    if (st != RTCOSIM_OK)
        return st;
    size_t frames = o->calibration_frames;
    rtcosim_time_ns *took = calloc(frames + 1, sizeof *took);
    if (!took) {
        rtcosim_master_free(probe);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    for (size_t f = 0; f < frames && st == RTCOSIM_OK; f++) {
        rtcosim_time_ns t0 = rtcosim_clock_now(o->clock);
        st = rtcosim_master_step(probe, err);
        rtcosim_master_observed_values(probe);
        took[f] = rtcosim_clock_now(o->clock) - t0;
    }
    rtcosim_master_free(probe);
    if (st != RTCOSIM_OK) {
        free(took);
        return rtcosim_error_prefix(err, "calibration: ");
    }
    qsort(took, frames, sizeof *took, compare_ns);
    char budget_text[32];
    rtcosim_time_ns worst = took[frames - 1], median = took[frames / 2];
    free(took);
    double period = (double)srt->macro_step / o->rt_factor;
    double budget = period * o->calibration_budget;
    /* Sub-microsecond budgets (huge rt-factors) are shown in ns. */
    if (budget >= 100)
        snprintf(budget_text, sizeof budget_text, "%.1f us", budget / 1e3);
    else
        snprintf(budget_text, sizeof budget_text, "%.3g ns", budget);
    rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                "calibration: real-time part median %.1f us, worst %.1f us per frame of %.1f us",
                (double)median / 1e3, (double)worst / 1e3, period / 1e3);
    if ((double)worst > budget)
        return rtcosim_error_set(err, RTCOSIM_ETIMEOUT,
                                 "%s: the real-time part (%s) cannot keep its frame on this "
                                 "machine: calibration over %zu frames took up to %.1f us per "
                                 "frame (median %.1f us), over the budget of %s (%.0f %% of "
                                 "H / rt-factor = %.9g s / %g); mark slow components "
                                 "non-real-time, lower the rt-factor or enlarge the step",
                                 rtcosim_system_desc_file(srt->desc), srt->part_names[0], frames,
                                 (double)worst / 1e3, (double)median / 1e3, budget_text,
                                 o->calibration_budget * 100,
                                 rtcosim_time_to_seconds(srt->macro_step), o->rt_factor);
    return RTCOSIM_OK;
}

/* The real-time part's last frame ends at the stop; the non-real-time
 * part's data for the stop come from its step after the last exchange,
 * which no frame waits for. When the partner is on time (it has consumed the
 * last exchange's inputs or stands right before them), finish that step now,
 * off the clock, so that the final results row holds its values at the stop
 * as a plain run would; a late or lost partner's values stay as last used. */
static rtcosim_status finish_partner(rtcosim_system_rt *srt, rtcosim_time_ns end,
                                     rtcosim_error *err)
{
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(srt->rt);
    rtcosim_master *pm = srt->parts[1];
    if (!pm || !srt->part_names[1][0] || s->partner_lost || s->failed)
        return RTCOSIM_OK;
    group *rtg = &srt->groups[0], *pg = &srt->groups[1];
    rtcosim_time_ns tv = rtcosim_master_time(pm);
    if (tv == srt->last_exchange && end > tv) {
        for (size_t i = 0; i < srt->conn_count; i++) {
            const rtcosim_rt_connection *c = &srt->conns[i];
            if (c->from_component != 0)
                continue;
            rtcosim_status st = group_set(pg, RTCOSIM_TYPE_FLOAT64, &c->to_vr, 1,
                                          &srt->last_sent[c->from_vr], err);
            if (st != RTCOSIM_OK)
                return st;
        }
        rtcosim_status st = group_step(pg, tv, end - tv, NULL, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "non-real-time part, last step: ");
        tv = end;
    }
    if (tv != end) {
        rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                    "non-real-time part at %.9g s at the stop: its last values are held",
                    rtcosim_time_to_seconds(tv));
        return RTCOSIM_OK;
    }
    for (size_t i = 0; i < srt->conn_count; i++) {
        const rtcosim_rt_connection *c = &srt->conns[i];
        if (c->from_component != 1)
            continue;
        rtcosim_status st = group_get(pg, RTCOSIM_TYPE_FLOAT64, &c->from_vr, 1,
                                      &rtg->links[c->to_vr].raw, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_rt_run(rtcosim_system_rt *srt, rtcosim_error *err)
{
    if (!srt)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_rt_run: NULL argument");
    rtcosim_status st = RTCOSIM_OK;
    if (srt->options.rt.calibrate)
        st = calibrate(srt, err);
    if (st != RTCOSIM_OK) {
        /* Nothing ran: leave no empty results file behind. */
        if (srt->recorder) {
            rtcosim_recorder_close(srt->recorder, NULL, NULL);
            srt->recorder = NULL;
            remove(srt->options.output_file);
        }
        return st;
    }
    st = rtcosim_rt_run(srt->rt, err);
    /* The final point (the results so far, also after a failure). */
    rtcosim_time_ns end = rtcosim_master_time(srt->parts[0]);
    if (st == RTCOSIM_OK)
        st = finish_partner(srt, end, err);
    if (!srt->any_row || srt->last_row_time != end)
        record(srt, end, true);
    if (srt->recorder) {
        rtcosim_recorder_stats stats = {0};
        rtcosim_error cerr;
        rtcosim_status cs = rtcosim_recorder_close(srt->recorder, &stats, &cerr);
        srt->recorder = NULL;
        srt->rows_written = stats.rows_written;
        if (stats.rows_dropped)
            rtcosim_log(RTCOSIM_LOG_WARNING, LOG_CATEGORY,
                        "%s: %llu result rows dropped (the writer could not keep up)",
                        srt->options.output_file, (unsigned long long)stats.rows_dropped);
        if (cs != RTCOSIM_OK && st == RTCOSIM_OK) {
            st = cs;
            if (err)
                *err = cerr;
        }
    }
    if (st == RTCOSIM_OK && srt->record_status != RTCOSIM_OK) {
        st = srt->record_status;
        if (err)
            *err = srt->record_error;
    }
    return st;
}

const rtcosim_rt *rtcosim_system_rt_executor(const rtcosim_system_rt *srt) { return srt->rt; }
rtcosim_time_ns rtcosim_system_rt_macro_step(const rtcosim_system_rt *srt)
{
    return srt->macro_step;
}
size_t rtcosim_system_rt_column_count(const rtcosim_system_rt *srt) { return srt->column_count; }
const char *rtcosim_system_rt_column_name(const rtcosim_system_rt *srt, size_t index)
{
    return index < srt->column_count ? srt->columns[index] : NULL;
}
uint64_t rtcosim_system_rt_rows_written(const rtcosim_system_rt *srt)
{
    return srt->rows_written;
}
const double *rtcosim_system_rt_last_values(const rtcosim_system_rt *srt)
{
    return srt->last_values;
}
const char *rtcosim_system_rt_part_names(const rtcosim_system_rt *srt, bool non_realtime)
{
    return srt->part_names[non_realtime ? 1 : 0];
}
