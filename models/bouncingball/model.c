/* A ball falling under gravity and bouncing on the ground: der(h) = v,
 * der(v) = g, and when h reaches 0 going down, v <- -e*v. Between impacts the
 * motion is a parabola, so each step follows it in closed form and finds every
 * impact inside the step exactly (root of h + v*s + g*s^2/2 = 0); the result
 * does not depend on the communication step. Once a rebound is slower than
 * v_min the ball rests at h = 0 instead of bouncing infinitely often.
 * As a model-exchange FMU the importer integrates (h, v); the event
 * indicator is h itself, and the bounce happens in Event Mode. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"

typedef struct bouncing_ball {
    double h;
    double v;
    double der_h;
    double der_v;
    double g;
    double e;
    double h0;
    double v0;
    double v_min;
    bool resting; /* not a variable: part of the state the glue snapshots */
} bouncing_ball;

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    {"h", 1, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(bouncing_ball, h), NULL, "m", "Height of the ball, h(start) = h0", 0, {0, 0}},
    {"der(h)", 2, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(bouncing_ball, der_h), NULL, "m/s", "der(h) = v", 1, {0, 0}},
    {"v", 3, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(bouncing_ball, v), NULL, "m/s", "Velocity of the ball, v(start) = v0", 0, {0, 0}},
    {"der(v)", 4, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(bouncing_ball, der_v), NULL, "m/s2", "der(v) = g in flight, 0 at rest", 3, {0, 0}},
    {"g", 5, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(bouncing_ball, g), "-9.81", "m/s2", "Gravity acceleration (< 0)", 0, {0, 0}},
    {"e", 6, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,
     offsetof(bouncing_ball, e), "0.7", NULL, "Coefficient of restitution, 0 <= e <= 1", 0, {0, 0}},
    {"h0", 7, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(bouncing_ball, h0), "1", "m", "Initial height (>= 0)", 0, {0, 0}},
    {"v0", 8, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(bouncing_ball, v0), "0", "m/s", "Initial velocity", 0, {0, 0}},
    {"v_min", 9, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(bouncing_ball, v_min), "0.1", "m/s",
     "A rebound slower than this leaves the ball resting on the ground", 0, {0, 0}},
};

static model_status check(model_instance *inst, void *data)
{
    const bouncing_ball *m = data;
    if (!(m->g < 0.0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "g must be < 0, is %g", m->g);
        return MODEL_ERROR;
    }
    if (!(m->e >= 0.0 && m->e <= 1.0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "e must be in [0, 1], is %g", m->e);
        return MODEL_ERROR;
    }
    if (!(m->h0 >= 0.0) || !isfinite(m->h0) || !isfinite(m->v0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "h0 must be finite and >= 0 and v0 finite, are %g, %g",
                  m->h0, m->v0);
        return MODEL_ERROR;
    }
    if (!(m->v_min > 0.0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "v_min must be > 0, is %g", m->v_min);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void derivatives(bouncing_ball *m)
{
    m->der_h = m->v;
    m->der_v = m->resting ? 0.0 : m->g;
}

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    derivatives(data);
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst;
    bouncing_ball *m = data;
    m->h = m->h0;
    m->v = m->v0;
    m->resting = false;
    derivatives(m);
}

/* Time s >= 0 until h + v*s + g*s^2/2 = 0 (g < 0, h >= 0): the larger root of
 * the quadratic, written in the form without cancellation for each sign of v
 * (s = 2h / (sqrt(D) - v) for v <= 0, s = (v + sqrt(D)) / -g for v > 0, with
 * D = v^2 - 2*g*h >= v^2). */
static double time_to_ground(double h, double v, double g)
{
    if (h <= 0.0 && v <= 0.0)
        return 0.0;
    const double sqrt_d = sqrt(v * v - 2.0 * g * h);
    return v <= 0.0 ? 2.0 * h / (sqrt_d - v) : (v + sqrt_d) / -g;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    bouncing_ball *m = data;
    double left = h; /* of this communication step */
    while (left > 0.0 && !m->resting) {
        const double s = time_to_ground(m->h, m->v, m->g);
        if (s > left) {
            m->h += m->v * left + 0.5 * m->g * left * left;
            m->v += m->g * left;
            if (m->h < 0.0) /* rounding when the impact is just after t + h */
                m->h = 0.0;
            break;
        }
        const double v_impact = m->v + m->g * s;
        left -= s;
        m->h = 0.0;
        m->v = -m->e * v_impact;
        if (m->v < m->v_min) {
            m->v = 0.0;
            m->resting = true;
            model_log(inst, MODEL_LOG_EVENTS, "ball comes to rest at t = %.17g", t + (h - left));
        } else {
            model_log(inst, MODEL_LOG_EVENTS, "bounce at t = %.17g, rebound velocity %g m/s",
                      t + (h - left), m->v);
        }
    }
    derivatives(m);
    return MODEL_OK;
}

/* Model exchange, Event Mode: the importer stopped where h crossed zero
 * (z = h <= 0); a falling ball rebounds, v <- -e*v (or comes to rest). */
static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    bouncing_ball *m = data;
    if (!m->resting && m->h <= 0.0 && m->v < 0.0) {
        m->h = 0.0;
        m->v = -m->e * m->v;
        if (m->v < m->v_min) {
            m->v = 0.0;
            m->resting = true;
            model_log(inst, MODEL_LOG_EVENTS, "ball comes to rest at t = %.17g", model_time(inst));
        } else {
            model_log(inst, MODEL_LOG_EVENTS, "bounce at t = %.17g, rebound velocity %g m/s",
                      model_time(inst), m->v);
        }
        result->values_changed = true;
    }
    derivatives(m);
    return MODEL_OK;
}

static const uint32_t event_indicators[] = {1}; /* h */

static const model_range ranges[] = {{6, "0", "1"}}; /* e */

const model_def model_definition = {
    .model_name = "BouncingBall",
    .description = "Bouncing ball with exact event location inside the step",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a03}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(bouncing_ball),
    .check = check,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .model_exchange = true,
    .event_indicators = event_indicators,
    .event_indicator_count = sizeof event_indicators / sizeof event_indicators[0],
    .event_update = event_update,
    .default_start_time = 0.0,
    .default_stop_time = 3.0,
    .default_tolerance = 1e-6,
    .default_step_size = 0.01,
    .ranges = ranges,
    .range_count = sizeof ranges / sizeof ranges[0],
#ifdef RTCOSIM_FMU_ALIAS_OUTPUT
    /* BouncingBallAlias: h has an FMI 3.0 <Alias> h_ft, not an output of its
     * own in ModelStructure, as the Reference FMUs' BouncingBall 3.0 has */
    .aliases = (const model_alias[]){{1, "h_ft"}},
    .alias_count = 1,
#endif
};
