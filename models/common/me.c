/* The model-exchange half of the glue (FMI 2.0 chapter 3, FMI 3.0 chapter 3),
 * version-neutral: time and continuous states set by the importer's solver,
 * derivatives and event indicators read from the model's variables, and the
 * Event Mode / Continuous-Time Mode switches around the model's event_update.
 * fmi2_glue.c and fmi3_glue.c wrap each function in one line. */
#include <math.h>
#include <string.h>

#include "instance.h"

#define MASK_VALUES (MODE_INITIALIZATION | MODE_EVENT | MODE_CONTINUOUS_TIME | MODE_TERMINATED | \
                     MODE_ERROR)

size_t instance_state_count(const model_def *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->variable_count; i++)
        n += m->variables[i].derivative_of != 0;
    return n;
}

/* Where the k-th state (derivative == false) or its derivative lives in the
 * model data: states are ordered as their derivatives are in the table. */
static double *state_slot(model_instance *inst, size_t k, bool derivative)
{
    const model_def *m = inst->model;
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (v->derivative_of == 0)
            continue;
        if (k-- == 0)
            return (double *)(inst->data +
                              (derivative ? v->offset : m->variables[v->derivative_of].offset));
    }
    return NULL; /* not reached: callers check k < instance_state_count */
}

static bool begin(model_instance *inst, unsigned mask, const char *function)
{
    if (!inst->model_exchange) {
        instance_error(inst, "%s: the instance was not instantiated for model exchange", function);
        return false;
    }
    return instance_allowed(inst, mask, function);
}

/* Event Mode: model exchange, or co-simulation with eventModeUsed (FMI 3.0
 * section 4.2.2), which enters it from Step Mode. */
static bool begin_event(model_instance *inst, unsigned mask, const char *function)
{
    if (inst->event_mode_used)
        return instance_allowed(inst, mask | MODE_STEP, function);
    return begin(inst, mask, function);
}

/* An array call: mode, array pointer and length against the expected count. */
static bool begin_array(model_instance *inst, unsigned mask, const char *function,
                        const void *array, size_t n, size_t expected, const char *what)
{
    if (!begin(inst, mask, function))
        return false;
    if (n != expected) {
        instance_error(inst, "%s: %zu %s given, the model has %zu", function, n, what, expected);
        return false;
    }
    if (n > 0 && !array) {
        instance_error(inst, "%s: array is NULL", function);
        return false;
    }
    return true;
}

/* Derivatives and indicators follow time, states and inputs: recompute when
 * any of them changed since the last evaluation. */
static void evaluate_if_dirty(model_instance *inst)
{
    if (!inst->dirty)
        return;
    if (inst->mode == MODE_INITIALIZATION || inst->mode == MODE_INSTANTIATED) {
        if (inst->model->initialize)
            inst->model->initialize(inst, inst->data);
    } else if (inst->model->evaluate) {
        inst->model->evaluate(inst, inst->data);
    }
    inst->dirty = false;
}

model_status instance_set_time(model_instance *inst, const char *function, double time)
{
    if (!begin(inst, MODE_EVENT | MODE_CONTINUOUS_TIME, function))
        return MODEL_ERROR;
    if (!isfinite(time))
        return instance_error(inst, "%s: time %g is not finite", function, time);
    inst->time = time;
    inst->dirty = true;
    return MODEL_OK;
}

model_status instance_set_continuous_states(model_instance *inst, const char *function,
                                            const double x[], size_t nx)
{
    if (!begin_array(inst, MODE_CONTINUOUS_TIME, function, x, nx,
                     instance_state_count(inst->model), "states"))
        return MODEL_ERROR;
    for (size_t k = 0; k < nx; k++)
        *state_slot(inst, k, false) = x[k];
    inst->dirty = true;
    return MODEL_OK;
}

model_status instance_get_continuous_states(model_instance *inst, const char *function,
                                            double x[], size_t nx)
{
    if (!begin_array(inst, MASK_VALUES, function, x, nx, instance_state_count(inst->model),
                     "states"))
        return MODEL_ERROR;
    evaluate_if_dirty(inst); /* in Initialization Mode the states are computed */
    for (size_t k = 0; k < nx; k++)
        x[k] = *state_slot(inst, k, false);
    return MODEL_OK;
}

model_status instance_get_derivatives(model_instance *inst, const char *function, double dx[],
                                      size_t nx)
{
    if (!begin_array(inst, MASK_VALUES, function, dx, nx, instance_state_count(inst->model),
                     "derivatives"))
        return MODEL_ERROR;
    evaluate_if_dirty(inst);
    for (size_t k = 0; k < nx; k++)
        dx[k] = *state_slot(inst, k, true);
    return MODEL_OK;
}

/* The models' states are of order one: nominal 1 (FMI 2.0 section 3.2.2). */
model_status instance_get_nominals(model_instance *inst, const char *function, double x[],
                                   size_t nx)
{
    if (!begin_array(inst, MODE_INSTANTIATED | MASK_VALUES, function, x, nx,
                     instance_state_count(inst->model), "nominals"))
        return MODEL_ERROR;
    for (size_t k = 0; k < nx; k++)
        x[k] = 1.0;
    return MODEL_OK;
}

model_status instance_get_event_indicators(model_instance *inst, const char *function,
                                           double z[], size_t nz)
{
    const model_def *m = inst->model;
    if (!begin_array(inst, MASK_VALUES, function, z, nz, m->event_indicator_count,
                     "event indicators"))
        return MODEL_ERROR;
    evaluate_if_dirty(inst);
    for (size_t k = 0; k < nz; k++)
        z[k] = *(const double *)(inst->data + m->variables[m->event_indicators[k]].offset);
    return MODEL_OK;
}

model_status instance_enter_event_mode(model_instance *inst, const char *function)
{
    if (!begin_event(inst, MODE_EVENT | MODE_CONTINUOUS_TIME, function))
        return MODEL_ERROR;
    inst->mode = MODE_EVENT;
    return MODEL_OK;
}

model_status instance_evaluate_discrete_states(model_instance *inst, const char *function)
{
    if (!(inst->event_mode_used ? instance_allowed(inst, MODE_EVENT, function)
                                : begin(inst, MODE_EVENT, function)))
        return MODEL_ERROR;
    model_status s = inst->model->evaluate_discrete_states(inst, inst->data);
    if (s == MODEL_ERROR)
        inst->mode = MODE_ERROR;
    else if (s == MODEL_FATAL)
        inst->mode = MODE_FATAL;
    return s;
}

model_status instance_update_discrete_states(model_instance *inst, const char *function,
                                             model_event_result *result)
{
    memset(result, 0, sizeof *result);
    if (!(inst->event_mode_used ? instance_allowed(inst, MODE_EVENT, function)
                                : begin(inst, MODE_EVENT, function)))
        return MODEL_ERROR;
    evaluate_if_dirty(inst);
    if (!inst->model->event_update)
        return MODEL_OK;
    model_status s = inst->model->event_update(inst, inst->data, result);
    if (s == MODEL_ERROR)
        inst->mode = MODE_ERROR;
    else if (s == MODEL_FATAL)
        inst->mode = MODE_FATAL;
    if (result->values_changed)
        inst->dirty = true;
    return s;
}

model_status instance_enter_continuous_time_mode(model_instance *inst, const char *function)
{
    if (!begin(inst, MODE_EVENT, function))
        return MODEL_ERROR;
    inst->mode = MODE_CONTINUOUS_TIME;
    return MODEL_OK;
}

/* The models have no step events and keep no history to discard. */
model_status instance_completed_integrator_step(model_instance *inst, const char *function,
                                                bool *enter_event_mode, bool *terminate)
{
    if (!begin(inst, MODE_CONTINUOUS_TIME, function))
        return MODEL_ERROR;
    if (!enter_event_mode || !terminate)
        return instance_error(inst, "%s: NULL out-argument", function);
    evaluate_if_dirty(inst);
    *enter_event_mode = false;
    *terminate = false;
    return MODEL_OK;
}
