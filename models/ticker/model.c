/* A ramp and a counter of time events, for model exchange: der(x) = rate
 * (x(start) = 0), and `counter` += 1 at t = period, 2 period, ... (0.75 s by
 * default, a binary fraction: event times a test can state exactly),
 * announced through nextEventTime from Event Mode (FMI 2.0 fmi2EventInfo,
 * FMI 3.0 fmi3UpdateDiscreteStates), as the Reference FMUs' Stair; `ticks_x`
 * holds x at the latest tick. The next tick is part of the FMU state, so a
 * state saved between ticks and restored later is a test of how an importer
 * learns the time event the restored state announces. Co-simulation takes
 * the ticks inside the step. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct ticker {
    double x;
    double der_x;
    double rate;
    double period;
    int32_t counter;
    double ticks_x;
    double next_tick; /* not a variable: part of the state the glue snapshots */
} ticker;

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    {"x", 1, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(ticker, x), NULL, NULL, "The ramp, x(start) = 0", 0, {0, 0}},
    {"der(x)", 2, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(ticker, der_x), NULL, NULL, "der(x) = rate", 1, {0, 0}},
    {"rate", 3, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(ticker, rate), "1", NULL, "Slope of the ramp", 0, {0, 0}},
    {"period", 4, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(ticker, period), "0.75", "s", "Time between ticks (> 0)", 0, {0, 0}},
    {"counter", 5, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(ticker, counter), NULL, NULL, "Ticks so far", 0, {0, 0}},
    {"ticks_x", 6, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(ticker, ticks_x), NULL, NULL, "x at the latest tick", 0, {0, 0}},
};

static model_status check(model_instance *inst, void *data)
{
    const ticker *m = data;
    if (!(m->period > 0.0) || !isfinite(m->period) || !isfinite(m->rate)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "period must be finite and > 0, rate finite; are %g, %g",
                  m->period, m->rate);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    ticker *m = data;
    m->der_x = m->rate;
}

static void initialize(model_instance *inst, void *data)
{
    ticker *m = data;
    m->x = 0.0;
    m->counter = 0;
    m->ticks_x = 0.0;
    m->next_tick = model_time(inst) + m->period;
    evaluate(inst, data);
}

/* Whether t reached the next tick (within rounding of the sum of periods). */
static bool due(const ticker *m, double t)
{
    double magnitude = fabs(t) > 1.0 ? fabs(t) : 1.0;
    return t >= m->next_tick - 1e-9 * magnitude;
}

static void tick(model_instance *inst, ticker *m, double t)
{
    m->counter++;
    m->ticks_x = m->x;
    m->next_tick += m->period;
    model_log(inst, MODEL_LOG_EVENTS, "tick %d at t = %.17g", (int)m->counter, t);
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    ticker *m = data;
    double now = t;
    while (due(m, t + h) && m->next_tick > now) {
        double at = m->next_tick;
        m->x += m->rate * (at - now);
        now = at;
        tick(inst, m, at);
    }
    m->x += m->rate * (t + h - now);
    evaluate(inst, data);
    return MODEL_OK;
}

static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    ticker *m = data;
    double now = model_time(inst);
    if (due(m, now))
        tick(inst, m, now);
    result->next_event_time_defined = true;
    result->next_event_time = m->next_tick;
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "Ticker",
    .description = "der(x) = rate and a counter of time events every period",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5c11}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(ticker),
    .check = check,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .model_exchange = true,
    .event_update = event_update,
    .default_start_time = 0.0,
    .default_stop_time = 3.0,
    .default_tolerance = 1e-6,
    .default_step_size = 0.05,
};
