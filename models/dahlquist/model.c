/* Dahlquist's test equation der(x) = -k*x as a co-simulation model, stepped by
 * fixed-step explicit Euler. It is the project's per-step overhead benchmark
 * (B1: one million steps), so its step does nothing but the arithmetic. As a
 * model-exchange FMU the importer integrates x itself (evaluate gives der(x)). */
#include "dahlquist_model.h"

static const model_variable variables[] = {DAHLQUIST_VARIABLES};

const model_def model_definition = {
    .model_name = "Dahlquist",
    .description = "Dahlquist test equation der(x) = -k*x, explicit Euler",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a01}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(dahlquist_state),
    .check = dahlquist_check,
    .initialize = dahlquist_initialize,
    .evaluate = dahlquist_evaluate,
    .do_step = dahlquist_do_step,
    .model_exchange = true,
    .default_start_time = 0.0,
    .default_stop_time = 10.0,
    .default_tolerance = 1e-6,
    .default_step_size = 1e-4,
};
