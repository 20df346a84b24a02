/* An anytime variant set behind the component interface (anytime_component.h):
 * the system sets its inputs and reads the delivered outputs, and each
 * do_step is one period with its deadline taken from the paced frame (or, off
 * the real-time loop, the step's length from now). Nothing is allocated per
 * step: buffers, the value-reference maps and the step log are sized here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anytime/anytime_private.h"
#include "rtcosim/anytime_component.h"
#include "rtcosim/clock.h"

typedef struct anytime_component {
    char name[64];
    rtcosim_anytime *set;
    rtcosim_clock *clock, *own_clock;
    rtcosim_anytime_component_options opts;
    /* instances (from_instances) or none (wrap_set) */
    rtcosim_component *instances[RTCOSIM_ANYTIME_MAX_VARIANTS];
    size_t instance_count;
    /* the set's inputs and outputs: value references and current values */
    uint32_t *input_vrs, *output_vrs;
    size_t input_count, output_count;
    double *inputs, *outputs;
    /* wrap_set: the component's own variable table */
    rtcosim_variable *variables;
    char **variable_names;
    size_t variable_count;
    bool initialized, started;
    int delivered; /* last delivered variant (its instance answers other gets) */
    rtcosim_anytime_step *steps;
    size_t step_count;
} anytime_component;

void rtcosim_anytime_component_options_init(rtcosim_anytime_component_options *opts)
{
    memset(opts, 0, sizeof *opts);
    rtcosim_anytime_config_init(&opts->config);
    opts->config.abandon_on_workers = true;
    opts->budget = 0.8;
    opts->step_log = 1000000;
}

static long index_of(const uint32_t *vrs, size_t n, uint32_t vr)
{
    for (size_t i = 0; i < n; i++)
        if (vrs[i] == vr)
            return (long)i;
    return -1;
}

/* ---- lifecycle: forwarded to every instance until the set runs -------- */

static rtcosim_status ac_instantiate(void *self, const char *name, rtcosim_error *err)
{
    anytime_component *a = self;
    for (size_t i = 0; i < a->instance_count; i++) {
        rtcosim_status st = rtcosim_component_instantiate(a->instances[i], name, err);
        if (st)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status ac_setup(void *self, double tolerance, rtcosim_time_ns start,
                               rtcosim_time_ns stop, rtcosim_error *err)
{
    anytime_component *a = self;
    a->set->sim_time = start;
    for (size_t i = 0; i < a->instance_count; i++) {
        rtcosim_status st = rtcosim_component_setup(a->instances[i], tolerance, start, stop, err);
        if (st)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status ac_enter_init(void *self, rtcosim_error *err)
{
    anytime_component *a = self;
    for (size_t i = 0; i < a->instance_count; i++) {
        rtcosim_status st = rtcosim_component_enter_init(a->instances[i], err);
        if (st)
            return st;
    }
    return RTCOSIM_OK;
}

/* Calibrate and start the set for period h, from the current inputs. */
static rtcosim_status ac_start(anytime_component *a, rtcosim_time_ns h, rtcosim_error *err)
{
    rtcosim_anytime *set = a->set;
    set->period_ns = h;
    if (set->cfg.safety_margin_ns == 0 || set->cfg.safety_margin_ns >= h)
        set->cfg.safety_margin_ns = h / 20;
    set->cfg.calibration_limit_ns = 10 * h;
    rtcosim_time_ns start = set->sim_time;
    rtcosim_status st = rtcosim_anytime_start(set, a->inputs, err);
    if (st)
        return rtcosim_error_prefix(err, "variants of '%s': ", a->name);
    set->sim_time = start;
    a->started = true;
    return RTCOSIM_OK;
}

static rtcosim_status ac_exit_init(void *self, rtcosim_error *err)
{
    anytime_component *a = self;
    for (size_t i = 0; i < a->instance_count; i++) {
        rtcosim_status st = rtcosim_component_exit_init(a->instances[i], err);
        if (st)
            return st;
    }
    a->initialized = true;
    /* the outputs after initialization, before the first period */
    if (a->instance_count) {
        rtcosim_status st = rtcosim_component_get(a->instances[0], RTCOSIM_TYPE_FLOAT64,
                                                  a->output_vrs, a->output_count, a->outputs,
                                                  err);
        if (st)
            return st;
    } else {
        memcpy(a->outputs, a->set->outputs, a->output_count * sizeof *a->outputs);
    }
    return a->opts.period_ns > 0 ? ac_start(a, a->opts.period_ns, err) : RTCOSIM_OK;
}

/* The deadline of the step: in a paced frame on a clock of the set's kind
 * its start plus the budget's share of the frame, elsewhere now plus the
 * budget's share of h. */
static rtcosim_time_ns step_deadline(anytime_component *a, rtcosim_time_ns h)
{
    const rtcosim_paced_frame *frame = rtcosim_paced_frame_current();
    if (frame && frame->clock &&
        rtcosim_clock_is_virtual(frame->clock) == rtcosim_clock_is_virtual(a->clock) &&
        frame->end > frame->deadline)
        return frame->deadline +
               (rtcosim_time_ns)llround(a->opts.budget * (double)(frame->end - frame->deadline));
    return rtcosim_clock_now(a->clock) + (rtcosim_time_ns)llround(a->opts.budget * (double)h);
}

static rtcosim_status ac_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    anytime_component *a = self;
    rtcosim_status st;
    if (!a->started && (st = ac_start(a, h, err)))
        return st;
    rtcosim_anytime_period rec;
    st = rtcosim_anytime_run_period_at(a->set, t, h, step_deadline(a, h), a->inputs, a->outputs,
                                       &rec, err);
    if (st)
        return rtcosim_error_prefix(err, "%s: ", a->name);
    a->delivered = rec.delivered;
    if (a->step_count < a->opts.step_log)
        a->steps[a->step_count++] =
            (rtcosim_anytime_step){.t = t, .delivered = (int8_t)rec.delivered, .missed = rec.missed};
    if (result) {
        memset(result, 0, sizeof *result);
        result->last_successful_time = t + h;
    }
    return RTCOSIM_OK;
}

/* ---- values ------------------------------------------------------------ */

static bool all_in(const uint32_t *vrs, size_t n, const uint32_t *table, size_t count)
{
    for (size_t i = 0; i < n; i++)
        if (index_of(table, count, vrs[i]) < 0)
            return false;
    return true;
}

static rtcosim_status ac_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             void *values, rtcosim_error *err)
{
    anytime_component *a = self;
    if (type == RTCOSIM_TYPE_FLOAT64 &&
        (all_in(vrs, n, a->output_vrs, a->output_count) ||
         all_in(vrs, n, a->input_vrs, a->input_count))) {
        for (size_t i = 0; i < n; i++) {
            long k = index_of(a->output_vrs, a->output_count, vrs[i]);
            ((double *)values)[i] = k >= 0 ? a->outputs[k]
                                           : a->inputs[index_of(a->input_vrs, a->input_count,
                                                                vrs[i])];
        }
        return RTCOSIM_OK;
    }
    if (!a->instance_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: no such variable (value reference %u)", a->name,
                                 n ? vrs[0] : 0);
    /* Anything else from the instance that holds the delivered state: it is
     * idle between steps (the one that delivered finished). */
    return rtcosim_component_get(a->instances[a->started ? a->delivered : 0], type, vrs, n,
                                 values, err);
}

static rtcosim_status ac_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             const void *values, rtcosim_error *err)
{
    anytime_component *a = self;
    bool inputs = type == RTCOSIM_TYPE_FLOAT64 && all_in(vrs, n, a->input_vrs, a->input_count);
    if (inputs)
        for (size_t i = 0; i < n; i++)
            a->inputs[index_of(a->input_vrs, a->input_count, vrs[i])] =
                ((const double *)values)[i];
    if (a->started) {
        if (inputs)
            return RTCOSIM_OK;
        /* the instances belong to the set's workers now */
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "%s: only its Float64 inputs can be set once its variants run",
                                 a->name);
    }
    for (size_t i = 0; i < a->instance_count; i++) {
        rtcosim_status st = rtcosim_component_set(a->instances[i], type, vrs, n, values, err);
        if (st)
            return st;
    }
    if (!inputs && !a->instance_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: only its inputs can be set", a->name);
    return RTCOSIM_OK;
}

/* ---- its own state: the set's committed state -------------------------- */

/* A snapshot of what the next period starts from: the committed native
 * state or serialized component state, the delivered outputs and inputs.
 * Sized at the first get_state; overwritten in place afterwards. */
typedef struct ac_snapshot {
    size_t bytes, capacity;
    int delivered;
    double *values; /* outputs then inputs */
    uint8_t *state;
} ac_snapshot;

static void ac_free_state(void *self, rtcosim_state state)
{
    (void)self;
    ac_snapshot *s = state;
    if (s) {
        free(s->values);
        free(s->state);
        free(s);
    }
}

static rtcosim_status ac_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    anytime_component *a = self;
    rtcosim_anytime *set = a->set;
    size_t bytes = a->instance_count ? set->committed_size : set->cfg.state_size;
    size_t capacity = a->instance_count ? set->committed_capacity : set->cfg.state_size;
    if (a->instance_count && !a->started)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "%s: its state can be saved once its variants run", a->name);
    ac_snapshot *s = *state;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (s) {
            s->values = calloc(a->output_count + a->input_count + 1, sizeof *s->values);
            s->state = malloc(capacity ? capacity : 1);
            s->capacity = capacity;
        }
        if (!s || !s->values || !s->state) {
            ac_free_state(a, s);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", a->name);
        }
        *state = s;
    }
    if (bytes > s->capacity)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "%s: state outgrew its snapshot", a->name);
    memcpy(s->state, a->instance_count ? (const void *)set->committed_bytes : set->state, bytes);
    s->bytes = bytes;
    s->delivered = a->delivered;
    memcpy(s->values, a->outputs, a->output_count * sizeof *a->outputs);
    memcpy(s->values + a->output_count, a->inputs, a->input_count * sizeof *a->inputs);
    return RTCOSIM_OK;
}

static rtcosim_status ac_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    anytime_component *a = self;
    rtcosim_anytime *set = a->set;
    const ac_snapshot *s = state;
    if (!s)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no state given", a->name);
    if (a->instance_count) {
        memcpy(set->committed_bytes, s->state, s->bytes);
        set->committed_size = s->bytes;
        /* every instance loads it before it runs again (a busy one already
         * must: it moved away from every committed state) */
        for (size_t i = 0; i < set->variant_count; i++)
            set->variants[i].needs_sync = true;
    } else if (s->bytes) {
        memcpy(set->state, s->state, s->bytes);
    }
    set->repair_pending = false;
    a->delivered = s->delivered;
    memcpy(a->outputs, s->values, a->output_count * sizeof *a->outputs);
    memcpy(set->outputs, s->values, a->output_count * sizeof *a->outputs);
    memcpy(a->inputs, s->values + a->output_count, a->input_count * sizeof *a->inputs);
    return RTCOSIM_OK;
}

/* ---- teardown ------------------------------------------------------------ */

static rtcosim_status ac_terminate(void *self, rtcosim_error *err)
{
    anytime_component *a = self;
    /* The workers first (waiting for an abandoned step to return), so that
     * no instance is terminated under a running step. */
    anytime_stop_workers(a->set);
    rtcosim_status first = RTCOSIM_OK;
    for (size_t i = 0; i < a->instance_count; i++) {
        rtcosim_status st = rtcosim_component_terminate(a->instances[i], err);
        if (st && !first)
            first = st;
    }
    return first;
}

static void ac_destroy(void *self)
{
    anytime_component *a = self;
    rtcosim_anytime_free(a->set);
    for (size_t i = 0; i < a->instance_count; i++)
        rtcosim_component_free(a->instances[i]);
    rtcosim_clock_free(a->own_clock);
    free(a->input_vrs);
    free(a->output_vrs);
    free(a->inputs);
    free(a->outputs);
    if (a->variable_names)
        for (size_t i = 0; i < a->variable_count; i++)
            free(a->variable_names[i]);
    free(a->variable_names);
    free(a->variables);
    free(a->steps);
    free(a);
}

static const rtcosim_component_ops anytime_component_ops = {
    .kind = "anytime",
    .instantiate = ac_instantiate,
    .setup = ac_setup,
    .enter_init = ac_enter_init,
    .exit_init = ac_exit_init,
    .do_step = ac_do_step,
    .get = ac_get,
    .set = ac_set,
    .get_state = ac_get_state,
    .set_state = ac_set_state,
    .free_state = ac_free_state,
    .terminate = ac_terminate,
    .destroy = ac_destroy,
};

rtcosim_anytime *rtcosim_anytime_component_set(const rtcosim_component *c)
{
    if (!c || strcmp(rtcosim_component_kind(c), "anytime") != 0)
        return NULL;
    return ((anytime_component *)rtcosim_component_impl(c))->set;
}

size_t rtcosim_anytime_component_step_count(const rtcosim_component *c)
{
    if (!c || strcmp(rtcosim_component_kind(c), "anytime") != 0)
        return 0;
    return ((anytime_component *)rtcosim_component_impl(c))->step_count;
}

const rtcosim_anytime_step *rtcosim_anytime_component_step(const rtcosim_component *c, size_t i)
{
    if (i >= rtcosim_anytime_component_step_count(c))
        return NULL;
    return &((anytime_component *)rtcosim_component_impl(c))->steps[i];
}

/* ---- construction ---------------------------------------------------------- */

static anytime_component *ac_new(const char *name, const rtcosim_anytime_component_options *opts,
                                 size_t inputs, size_t outputs)
{
    anytime_component *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    snprintf(a->name, sizeof a->name, "%s", name && *name ? name : "anytime");
    if (opts)
        a->opts = *opts;
    else
        rtcosim_anytime_component_options_init(&a->opts);
    if (!(a->opts.budget > 0 && a->opts.budget <= 1))
        a->opts.budget = 0.8;
    a->input_count = inputs;
    a->output_count = outputs;
    a->input_vrs = calloc(inputs ? inputs : 1, sizeof *a->input_vrs);
    a->output_vrs = calloc(outputs ? outputs : 1, sizeof *a->output_vrs);
    a->inputs = calloc(inputs ? inputs : 1, sizeof *a->inputs);
    a->outputs = calloc(outputs ? outputs : 1, sizeof *a->outputs);
    a->steps = a->opts.step_log ? malloc(a->opts.step_log * sizeof *a->steps) : NULL;
    if (!a->input_vrs || !a->output_vrs || !a->inputs || !a->outputs ||
        (a->opts.step_log && !a->steps)) {
        ac_destroy(a);
        return NULL;
    }
    return a;
}

static bool saves_state(const rtcosim_component *c)
{
    const rtcosim_capabilities *caps = rtcosim_component_capabilities(c);
    return caps->can_get_set_state && caps->can_serialize_state;
}

rtcosim_status rtcosim_anytime_component_from_instances(
    const char *name, rtcosim_component *const *instances,
    const rtcosim_anytime_variant_info *infos, size_t n,
    const rtcosim_anytime_component_options *opts, rtcosim_component **out, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    const char *label = name && *name ? name : "anytime";
    if (!out || !instances || !infos || n == 0 || n > RTCOSIM_ANYTIME_MAX_VARIANTS)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "variants of '%s': need 1 to %d instances and an output", label,
                               RTCOSIM_ANYTIME_MAX_VARIANTS);
    for (size_t i = 0; !st && i < n; i++) {
        const char *model = rtcosim_component_model_name(instances[i]);
        if (!saves_state(instances[i]))
            st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                   "variants of '%s': model '%s' cannot save and restore its "
                                   "state (FMI canGetAndSetFMUState and canSerializeFMUState), "
                                   "which a variant abandoned at the deadline needs",
                                   label, model);
        else if (rtcosim_component_instance_name(instances[i]))
            st = rtcosim_error_set(err, RTCOSIM_ESTATE,
                                   "variants of '%s': wrap the instances before instantiating "
                                   "them",
                                   label);
        else if (strcmp(model, rtcosim_component_model_name(instances[0])) != 0)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "variants of '%s': instances of models '%s' and '%s'; "
                                   "variants must be one model",
                                   label, rtcosim_component_model_name(instances[0]), model);
    }
    size_t inputs = 0, outputs = 0;
    const rtcosim_component *first = st ? NULL : instances[0];
    for (size_t i = 0; first && i < rtcosim_component_variable_count(first); i++) {
        const rtcosim_variable *v = rtcosim_component_variable(first, i);
        if (v->type != RTCOSIM_TYPE_FLOAT64)
            continue;
        inputs += v->causality == RTCOSIM_CAUSALITY_INPUT;
        outputs += v->causality == RTCOSIM_CAUSALITY_OUTPUT;
    }
    if (!st && outputs == 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "variants of '%s': model '%s' has no Float64 output to deliver",
                               label, rtcosim_component_model_name(first));
    anytime_component *a = st ? NULL : ac_new(label, opts, inputs, outputs);
    if (!st && !a)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "variants of '%s': out of memory", label);
    if (st) {
        for (size_t i = 0; instances && i < n; i++)
            rtcosim_component_free(instances[i]);
        return st;
    }
    a->instance_count = n;
    memcpy(a->instances, instances, n * sizeof *instances);
    inputs = outputs = 0;
    for (size_t i = 0; i < rtcosim_component_variable_count(first); i++) {
        const rtcosim_variable *v = rtcosim_component_variable(first, i);
        if (v->type != RTCOSIM_TYPE_FLOAT64)
            continue;
        if (v->causality == RTCOSIM_CAUSALITY_INPUT) {
            a->inputs[inputs] = v->has_start ? v->start.f64 : 0.0;
            a->input_vrs[inputs++] = v->value_reference;
        } else if (v->causality == RTCOSIM_CAUSALITY_OUTPUT) {
            a->output_vrs[outputs++] = v->value_reference;
        }
    }
    if (!a->opts.clock && rtcosim_clock_create_monotonic(0, &a->own_clock, err)) {
        ac_destroy(a);
        return RTCOSIM_EIO;
    }
    a->clock = a->opts.clock ? a->opts.clock : a->own_clock;
    rtcosim_anytime_config cfg = a->opts.config;
    cfg.name = a->name;
    cfg.input_count = a->input_count;
    cfg.output_count = a->output_count;
    cfg.output_names = NULL;
    cfg.state_size = 0;
    cfg.initial_state = NULL;
    /* provisional until the step is known (ac_start) */
    cfg.period_ns = a->opts.period_ns > 0 ? a->opts.period_ns : RTCOSIM_NS_PER_S;
    if (cfg.safety_margin_ns >= cfg.period_ns)
        cfg.safety_margin_ns = 0;
    st = rtcosim_anytime_create(&cfg, a->clock, &a->set, err);
    for (size_t i = 0; !st && i < n; i++)
        st = rtcosim_anytime_add_component(a->set, &infos[i], instances[i], a->input_vrs,
                                           a->output_vrs, err);
    rtcosim_component_desc desc = *rtcosim_component_description(first);
    /* its own state is its set's committed one (get/set, not serialized) */
    desc.capabilities.can_get_set_state = true;
    desc.capabilities.can_serialize_state = false;
    desc.capabilities.provides_directional_derivatives = false;
    desc.capabilities.max_input_derivative_order = 0;
    desc.capabilities.can_return_early = false;
    desc.capabilities.early_return_allowed = false;
    if (!st)
        st = rtcosim_component_create(&anytime_component_ops, a, &desc, out, err);
    else
        ac_destroy(a);
    return st;
}

rtcosim_status rtcosim_anytime_component_wrap_set(rtcosim_anytime *set, const char *model_name,
                                                  const char *const *input_names,
                                                  const char *const *output_names,
                                                  const rtcosim_anytime_component_options *opts,
                                                  rtcosim_component **out, rtcosim_error *err)
{
    if (!set || !out || (set->cfg.input_count && !input_names) || !output_names) {
        rtcosim_anytime_free(set);
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime component: need a set, its input and output names");
    }
    if (set->started || set->variant_count == 0 || set->variants[0].component) {
        const char *why = set->started ? "already started" : "has no native variants";
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                              "anytime component: set '%s' %s", set->name, why);
        rtcosim_anytime_free(set);
        return st;
    }
    anytime_component *a = ac_new(set->name, opts, set->cfg.input_count, set->cfg.output_count);
    size_t count = set->cfg.input_count + set->cfg.output_count;
    if (a) {
        a->variables = calloc(count, sizeof *a->variables);
        a->variable_names = calloc(count, sizeof *a->variable_names);
    }
    if (!a || !a->variables || !a->variable_names) {
        if (a)
            ac_destroy(a);
        rtcosim_anytime_free(set);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime component: out of memory");
    }
    a->set = set;
    a->clock = set->clock;
    a->variable_count = count;
    for (size_t i = 0; i < count; i++) {
        bool input = i < set->cfg.input_count;
        const char *vn = input ? input_names[i] : output_names[i - set->cfg.input_count];
        a->variable_names[i] = strdup(vn ? vn : "");
        if (!a->variable_names[i]) {
            ac_destroy(a);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime component: out of memory");
        }
        a->variables[i] = (rtcosim_variable){
            .name = a->variable_names[i],
            .value_reference = (uint32_t)i,
            .type = RTCOSIM_TYPE_FLOAT64,
            .causality = input ? RTCOSIM_CAUSALITY_INPUT : RTCOSIM_CAUSALITY_OUTPUT,
            .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
            .initial = input ? RTCOSIM_INITIAL_EXACT : RTCOSIM_INITIAL_CALCULATED,
            .has_start = input,
            .derivative_of = -1};
        if (input)
            a->input_vrs[i] = (uint32_t)i;
        else
            a->output_vrs[i - set->cfg.input_count] = (uint32_t)i;
    }
    if (a->opts.period_ns <= 0)
        a->opts.period_ns = 0;
    rtcosim_component_desc desc = {.model_name = model_name && *model_name ? model_name
                                                                           : set->name,
                                   .variables = a->variables,
                                   .variable_count = count};
    desc.capabilities.can_handle_variable_step = true;
    desc.capabilities.can_get_set_state = true;
    return rtcosim_component_create(&anytime_component_ops, a, &desc, out, err);
}
