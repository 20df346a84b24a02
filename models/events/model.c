/* A bouncing ball and a stair counter in one FMU, for FMI 3.0 co-simulation
 * with Event Mode and early return: state events where the ball hits the
 * ground (h = 0 falling: v <- -e*v, or rest below v_min) and time events
 * every `period` seconds (counter += 1), announced through nextEventTime.
 * The flight is a parabola followed in closed form, so every event time is
 * exact; with the default parameters (g = -10, h0 = 5, e = 0.5, period =
 * 0.75) the impacts are at 1, 2, 2.5, 2.75 and 2.875 s (rest there) and the
 * ticks at 0.75, 1.5, 2.25, 3 s: binary fractions a test can state exactly.
 * `level` = counter + `shift` is a discrete output recomputed in Event Mode
 * from the discrete input `shift`, for importers' event iterations across
 * connected FMUs. never_settle makes every discrete-state update ask for
 * another (an FMU whose event iteration never ends, for importers' bounds). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct events_model {
    double h, v;
    double g, e, h0, v_min, period;
    int32_t counter, shift, level;
    bool never_settle;
    double next_tick; /* not variables: part of the state the glue snapshots */
    bool resting;
} events_model;

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    {"h", 1, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(events_model, h), NULL, "m", "Height of the ball, h(start) = h0", 0, {0, 0}},
    {"v", 2, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(events_model, v), NULL, "m/s", "Velocity of the ball", 0, {0, 0}},
    {"counter", 3, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(events_model, counter), NULL, NULL, "Time events so far", 0, {0, 0}},
    {"level", 4, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(events_model, level), NULL, NULL, "counter + shift, updated at events", 0, {0, 0}},
    {"shift", 5, MODEL_INT32, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(events_model, shift), "0", NULL, "Added to counter in level at events", 0, {0, 0}},
    {"g", 6, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(events_model, g), "-10", "m/s2", "Gravity acceleration (< 0)", 0, {0, 0}},
    {"e", 7, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(events_model, e), "0.5", NULL, "Coefficient of restitution, 0 <= e <= 1", 0, {0, 0}},
    {"h0", 8, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(events_model, h0), "5", "m", "Initial height (>= 0)", 0, {0, 0}},
    {"v_min", 9, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(events_model, v_min), "0.5", "m/s",
     "A rebound slower than this leaves the ball resting on the ground", 0, {0, 0}},
    {"period", 10, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(events_model, period), "0.75", "s", "Time between counter ticks (> 0)", 0, {0, 0}},
    {"never_settle", 11, MODEL_BOOLEAN, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(events_model, never_settle), "false", NULL,
     "A broken FMU: fmi3UpdateDiscreteStates always asks for another call", 0, {0, 0}},
};

static model_status check(model_instance *inst, void *data)
{
    const events_model *m = data;
    if (!(m->g < 0.0) || !(m->e >= 0.0 && m->e <= 1.0) || !(m->h0 >= 0.0) ||
        !isfinite(m->h0) || !(m->v_min > 0.0) || !(m->period > 0.0) || !isfinite(m->period)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR,
                  "need g < 0, 0 <= e <= 1, finite h0 >= 0, v_min > 0, finite period > 0");
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    events_model *m = data;
    m->h = m->h0;
    m->v = 0.0;
    m->resting = m->h0 == 0.0;
    m->counter = 0;
    m->level = m->counter + m->shift;
    m->next_tick = model_time(inst) + m->period;
}

/* Time s >= 0 until h + v*s + g*s^2/2 = 0 (g < 0, h >= 0), the larger root
 * in the form without cancellation for each sign of v. */
static double time_to_ground(double h, double v, double g)
{
    if (h <= 0.0 && v <= 0.0)
        return 0.0;
    const double sqrt_d = sqrt(v * v - 2.0 * g * h);
    return v <= 0.0 ? 2.0 * h / (sqrt_d - v) : (v + sqrt_d) / -g;
}

static void fly(events_model *m, double s)
{
    if (m->resting || s <= 0.0)
        return;
    m->h += m->v * s + 0.5 * m->g * s * s;
    m->v += m->g * s;
    if (m->h < 0.0) /* rounding at an impact */
        m->h = 0.0;
}

static model_status step_to_event(model_instance *inst, void *data, double t, double h,
                                  double *reached, bool *event)
{
    (void)inst;
    events_model *m = data;
    double s = h;
    *event = false;
    if (!m->resting) {
        double ground = time_to_ground(m->h, m->v, m->g);
        if (ground <= s) {
            s = ground;
            *event = true;
        }
    }
    if (m->next_tick - t <= s) {
        s = m->next_tick - t > 0.0 ? m->next_tick - t : 0.0;
        *event = true;
    }
    fly(m, s);
    if (*event && !m->resting && time_to_ground(m->h, m->v, m->g) == 0.0)
        m->h = 0.0; /* exactly on the ground at the impact */
    *reached = t + s;
    return MODEL_OK;
}

/* Without Event Mode every event is handled inside the step by the glue
 * (cs_events.c); this is the plain step for FMI 2.0 too. */
static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)inst, (void)data, (void)t, (void)h;
    return MODEL_OK; /* not used: step_to_event is set */
}

/* Event Mode: the impact (a falling ball on the ground) and the tick due now. */
static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    events_model *m = data;
    double now = model_time(inst);
    if (!m->resting && m->h <= 0.0 && m->v < 0.0) {
        m->h = 0.0;
        m->v = -m->e * m->v;
        if (m->v < m->v_min) {
            m->v = 0.0;
            m->resting = true;
            model_log(inst, MODEL_LOG_EVENTS, "ball comes to rest at t = %.17g", now);
        } else {
            model_log(inst, MODEL_LOG_EVENTS, "bounce at t = %.17g, rebound velocity %g m/s", now,
                      m->v);
        }
        result->values_changed = true;
    }
    double magnitude = fabs(now) > 1.0 ? fabs(now) : 1.0;
    if (now >= m->next_tick - 1e-9 * magnitude) {
        m->counter++;
        m->next_tick += m->period;
        model_log(inst, MODEL_LOG_EVENTS, "tick %d at t = %.17g", (int)m->counter, now);
    }
    m->level = m->counter + m->shift;
    result->discrete_states_need_update = m->never_settle;
    result->next_event_time_defined = true;
    result->next_event_time = m->next_tick;
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "Events",
    .description = "Bouncing ball (state events) and stair counter (time events) for Event Mode",
    .instantiation_token = "{3c5e2a41-8d7b-4f60-9e1a-2b4c6d8e0f17}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(events_model),
    .check = check,
    .initialize = initialize,
    .do_step = do_step,
    .event_update = event_update,
    .step_to_event = step_to_event,
    .default_start_time = 0.0,
    .default_stop_time = 3.0,
    .default_step_size = 0.5,
};
