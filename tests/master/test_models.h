/* Small native models for the master tests: a gain (direct feedthrough), a
 * clock (y = t), a square (y = t^2), a recorder that logs the input value it
 * is given for each step, an Int32 source and a fixed-step-only model. */
#ifndef RTCOSIM_TEST_MASTER_MODELS_H
#define RTCOSIM_TEST_MASTER_MODELS_H

#include <stddef.h>

#include "rtcosim/native.h"

#define IN_ RTCOSIM_CAUSALITY_INPUT
#define OUT_ RTCOSIM_CAUSALITY_OUTPUT
#define PAR_ RTCOSIM_CAUSALITY_PARAMETER
#define CONT_ RTCOSIM_VARIABILITY_CONTINUOUS
#define FIX_ RTCOSIM_VARIABILITY_FIXED

typedef struct gain_data {
    double u, y, g;
} gain_data;

static const rtcosim_native_variable gain_vars[] = {
    RTCOSIM_NATIVE_F64(gain_data, u, 0, IN_, CONT_, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(gain_data, y, 1, OUT_, CONT_, 0, NULL, NULL, "u"),
    RTCOSIM_NATIVE_F64(gain_data, g, 2, PAR_, FIX_, 1, NULL, NULL, NULL),
};

static void gain_outputs(void *data, double t)
{
    (void)t;
    gain_data *d = data;
    d->y = d->g * d->u;
}

static rtcosim_status nothing_step(void *data, const rtcosim_native_context *ctx, double t,
                                   double h, rtcosim_error *err)
{
    (void)data, (void)ctx, (void)t, (void)h, (void)err;
    return RTCOSIM_OK;
}

static const rtcosim_native_model gain_model = {
    .name = "test.gain", .data_size = sizeof(gain_data), .variables = gain_vars,
    .variable_count = 3, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .outputs = gain_outputs, .step = nothing_step,
};

/* y = t (clock) or y = t^2 (square) at the end of every step. */
typedef struct clock_data {
    double y;
    double u; /* unused input so that it can sit in loops */
} clock_data;

static const rtcosim_native_variable clock_vars[] = {
    RTCOSIM_NATIVE_F64(clock_data, y, 0, OUT_, CONT_, 0, "s", NULL, NULL),
    RTCOSIM_NATIVE_F64(clock_data, u, 1, IN_, CONT_, 0, NULL, NULL, NULL),
};

static rtcosim_status clock_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                 rtcosim_error *err)
{
    (void)ctx, (void)err;
    ((clock_data *)data)->y = t + h;
    return RTCOSIM_OK;
}

static rtcosim_status square_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                  rtcosim_error *err)
{
    (void)ctx, (void)err;
    ((clock_data *)data)->y = (t + h) * (t + h);
    return RTCOSIM_OK;
}

static const rtcosim_native_model clock_model = {
    .name = "test.clock", .data_size = sizeof(clock_data), .variables = clock_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .step = clock_step,
};

static const rtcosim_native_model square_model = {
    .name = "test.square", .data_size = sizeof(clock_data), .variables = clock_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .step = square_step,
};

/* Logs the value of input u it is given for each step (a black box: no
 * input derivatives), and outputs its step count. */
#define RECORDER_LOG 64
typedef struct recorder_data {
    double u, steps;
    double log[RECORDER_LOG];
} recorder_data;

static const rtcosim_native_variable recorder_vars[] = {
    RTCOSIM_NATIVE_F64(recorder_data, u, 0, IN_, CONT_, 0, "s", NULL, NULL),
    RTCOSIM_NATIVE_F64(recorder_data, steps, 1, OUT_, CONT_, 0, NULL, NULL, NULL),
};

static rtcosim_status recorder_step(void *data, const rtcosim_native_context *ctx, double t,
                                    double h, rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    recorder_data *d = data;
    if (d->steps < RECORDER_LOG)
        d->log[(int)d->steps] = d->u;
    d->steps += 1;
    return RTCOSIM_OK;
}

static const rtcosim_native_model recorder_model = {
    .name = "test.recorder", .data_size = sizeof(recorder_data), .variables = recorder_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .step = recorder_step,
};

static const rtcosim_native_model rigid_model = {
    .name = "test.rigid", .data_size = sizeof(clock_data), .variables = clock_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = false,
    .step = clock_step,
};

typedef struct counter_data {
    int32_t n;
    double u;
} counter_data;

static const rtcosim_native_variable counter_vars[] = {
    {"n", 0, RTCOSIM_TYPE_INT32, OUT_, RTCOSIM_VARIABILITY_DISCRETE, offsetof(counter_data, n), 0,
     NULL, NULL, NULL},
    RTCOSIM_NATIVE_F64(counter_data, u, 1, IN_, CONT_, 0, NULL, NULL, NULL),
};

static const rtcosim_native_model counter_model = {
    .name = "test.counter", .data_size = sizeof(counter_data), .variables = counter_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .step = nothing_step,
};

#endif
