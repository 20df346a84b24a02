/* A part's master of a real-time system run as one group component for
 * the executor (variables "component.variable", Float64), and the results
 * row the real-time group records from the paced thread. */
#include <math.h>

#include "realtime/system_rt_internal.h"

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

/* A String's first bytes (cut at a character boundary is not attempted:
 * the summary shows at most SYSTEM_RT_LAST_TEXT - 4 bytes and "...") or a
 * Binary's size, for the summary; no allocation. */
static void keep_last_text(char *out, rtcosim_type type, const rtcosim_value *v)
{
    if (type == RTCOSIM_TYPE_BINARY) {
        snprintf(out, SYSTEM_RT_LAST_TEXT, "(%zu bytes)", v->bin.data ? v->bin.size : 0);
        return;
    }
    const char *s = v->s ? v->s : "";
    size_t n = strnlen(s, SYSTEM_RT_LAST_TEXT);
    if (n < SYSTEM_RT_LAST_TEXT) {
        memcpy(out, s, n + 1);
    } else {
        memcpy(out, s, SYSTEM_RT_LAST_TEXT - 4);
        memcpy(out + SYSTEM_RT_LAST_TEXT - 4, "...", 4);
    }
}

static void gather_row(rtcosim_system_rt *srt)
{
    rtcosim_master *m = srt->parts[0];
    const double *observed = rtcosim_master_observed_values(m);
    const group *g = &srt->groups[0];
    for (size_t i = 0; i < srt->numeric_column_count; i++) {
        double v = srt->column_rt_index[i] >= 0 ? observed[srt->column_rt_index[i]]
                                                : g->links[srt->column_input[i]].raw;
        srt->last_values[i] = v;
        srt->row[i].f64 = v;
    }
    for (size_t k = 0; k < srt->exact_count; k++) { /* (Int64, UInt64: past 2^53 too) */
        size_t i = srt->exact_columns[k];
        rtcosim_master_observed_exact(m, (size_t)srt->column_rt_index[i], &srt->row[i]);
    }
    if (srt->numeric_column_count == srt->column_count)
        return;
    /* The String and Binary columns, read from their components (valid
     * until the next call into them: the recorder copies them at once). A
     * component that refuses leaves the row's cells empty. */
    rtcosim_error ignored;
    bool ok = rtcosim_master_text_observed_values(m, srt->text_values, &ignored) == RTCOSIM_OK;
    for (size_t i = srt->numeric_column_count; i < srt->column_count; i++) {
        size_t k = (size_t)srt->column_text[i];
        rtcosim_type type = rtcosim_master_text_observed_type(m, k);
        srt->row[i] = ok ? srt->text_values[k] : (rtcosim_value){0};
        srt->last_values[i] = NAN;
        keep_last_text(srt->last_text[i], type, &srt->row[i]);
    }
}

/* Called on the paced thread at the start of each frame: the values at t
 * are those after the previous frame's step and this frame's exchange. The
 * recorder's ring hands them to its writer thread (no I/O here). */
void system_rt_record(rtcosim_system_rt *srt, rtcosim_time_ns t, bool always)
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


/* The outputs at the master's time, shown while it steps past the frames.
 * Only a part that runs ahead needs them before every step: one whose
 * components all step a multiple of the macro step, which its very first
 * tick shows (the fastest component's step, longer than the macro step). */
static void hold_outputs(group *g)
{
    const double *observed = rtcosim_master_observed_values(g->master);
    for (size_t v = 0; v < g->count; v++)
        if (g->vars[v].causality == RTCOSIM_CAUSALITY_OUTPUT)
            g->links[v].held = observed[g->links[v].observed];
}

rtcosim_status system_rt_group_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_step_result *result, rtcosim_error *err)
{
    group *g = self;
    if (g->time != t)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "real-time: part asked to step from %.9g s but it is at %.9g s",
                                 rtcosim_time_to_seconds(t), rtcosim_time_to_seconds(g->time));
    if (g->records) {
        rtcosim_system_rt *srt = g->srt;
        system_rt_record(srt, t, false);
    }
    rtcosim_system_rt *srt = g->srt;
    if (srt && srt->options.frame_hook && (g == &srt->groups[0] || g == &srt->groups[1])) {
        if (g->records)
            gather_row(srt);
        srt->options.frame_hook(srt->options.frame_hook_context, g == &srt->groups[1], t,
                                g->records ? srt->last_values : NULL);
    }
    /* The ticks that start in [t, t + h): a tick whose components all step
     * past t + h leaves the master ahead, and the frames up to its next
     * communication point have nothing to step (their inputs are not read
     * before it, as in the plain master). Meanwhile the part shows the
     * values of its latest communication point not after the frame. */
    while (rtcosim_master_time(g->master) < t + h) {
        rtcosim_time_ns from = rtcosim_master_time(g->master);
        if (g->runs_ahead || rtcosim_master_step_count(g->master) == 0)
            hold_outputs(g);
        rtcosim_status st = rtcosim_master_step(g->master, err);
        if (st != RTCOSIM_OK)
            return st;
        if (rtcosim_master_time(g->master) - from > rtcosim_master_next_step(g->master))
            g->runs_ahead = true;
    }
    g->time = t + h;
    if (result)
        result->last_successful_time = t + h;
    return RTCOSIM_OK;
}

rtcosim_status system_rt_group_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
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
         * latest communication point, as the master's own connections see it;
         * while the master is ahead of the frames, the value held before. */
        if (rtcosim_master_time(g->master) != g->time) {
            out[i] = l->held;
            continue;
        }
        if (!observed)
            observed = rtcosim_master_observed_values(g->master);
        out[i] = observed[l->observed];
    }
    return RTCOSIM_OK;
}

rtcosim_status system_rt_group_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
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

const rtcosim_component_ops system_rt_group_ops = {
    .kind = "group",
    .instantiate = group_instantiate,
    .setup = group_setup,
    .enter_init = group_noop,
    .exit_init = group_noop,
    .do_step = system_rt_group_step,
    .get = system_rt_group_get,
    .set = system_rt_group_set,
    .terminate = group_noop,
    .destroy = group_destroy,
};

/* Add a variable "component.variable" to a group (outputs once each). */
long system_rt_group_add(group *g, size_t capacity, rtcosim_master *m, const char *component,
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

void system_rt_group_free(group *g)
{
    for (size_t i = 0; i < g->count; i++)
        free((char *)g->vars[i].name);
    free(g->vars);
    free(g->links);
}
