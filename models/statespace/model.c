/* A linear state-space model with FMI 3.0 array variables, shaped like the
 * Modelica Reference FMUs' StateSpace: der(x) = A x + B u, y = C x + D u,
 * with m inputs, n states and r outputs given by structural parameters and
 * the matrices as row-major arrays with start-value lists. Stepped by
 * fixed-step explicit Euler (micro steps of at most solver_step), so that a
 * diagonal A has the closed form x_i(N dt) = q^N x0_i + (B u)_i (q^N - 1)/a_ii,
 * q = 1 + dt a_ii. The defaults (m = 3, n = 2, r = 3) make B, C and D
 * non-square and asymmetric, so that an importer that transposes or
 * misorders elements gets another y; y and u have the same size, so that two
 * instances can be chained y -> u. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum { MAX_SIZE = 4 }; /* largest m, n, r the data holds */

typedef struct statespace {
    uint64_t m, n, r;
    double A[MAX_SIZE * MAX_SIZE], B[MAX_SIZE * MAX_SIZE];
    double C[MAX_SIZE * MAX_SIZE], D[MAX_SIZE * MAX_SIZE];
    double x0[MAX_SIZE], u[MAX_SIZE], y[MAX_SIZE], x[MAX_SIZE], der_x[MAX_SIZE];
    double solver_step;
} statespace;

#define VAR(vr, name, causality, variability, initial, field, start, description, d1, d2) \
    {name, vr, MODEL_FLOAT64, causality, variability, initial, offsetof(statespace, field), \
     start, NULL, description, 0, {d1, d2}}
#define SIZE(vr, name, field, start, description)                                             \
    {name, vr, MODEL_UINT64, MODEL_STRUCTURAL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,    \
     offsetof(statespace, field), start, NULL, description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    SIZE(1, "m", m, "3", "Number of inputs"),
    SIZE(2, "n", n, "2", "Number of states"),
    SIZE(3, "r", r, "3", "Number of outputs"),
    VAR(4, "A", MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT, A, "-1 0 0 -2",
        "System matrix (n x n)", 2, 2),
    VAR(5, "B", MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT, B, "1 0 0 0 1 0",
        "Input matrix (n x m)", 2, 1),
    VAR(6, "C", MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT, C, "1 0 0 1 1 1",
        "Output matrix (r x n)", 3, 2),
    VAR(7, "D", MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT, D, "0 0 0 0 0 0 1 2 0",
        "Feedthrough matrix (r x m)", 3, 1),
    VAR(8, "x0", MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, x0, "1 1",
        "Initial state vector", 2, 0),
    VAR(9, "u", MODEL_INPUT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, u, "0 0 0", "Input vector", 1, 0),
    VAR(10, "y", MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, y, NULL,
        "Output vector y = C x + D u", 3, 0),
    VAR(11, "x", MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, x, NULL,
        "State vector", 2, 0),
    {"der(x)", 12, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(statespace, der_x), NULL, NULL, "der(x) = A x + B u", 11, {2, 0}},
    {"solver_step", 13, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(statespace, solver_step), "1e-3", "s", "Largest Euler micro step", 0, {0, 0}},
};

/* out (rows x 1) = M (rows x cols, row-major) v + out */
static void add_product(double *out, const double *M, const double *v, uint64_t rows, uint64_t cols)
{
    for (uint64_t i = 0; i < rows; i++)
        for (uint64_t j = 0; j < cols; j++)
            out[i] += M[i * cols + j] * v[j];
}

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    statespace *s = data;
    for (uint64_t i = 0; i < s->n; i++)
        s->der_x[i] = 0.0;
    add_product(s->der_x, s->A, s->x, s->n, s->n);
    add_product(s->der_x, s->B, s->u, s->n, s->m);
    for (uint64_t i = 0; i < s->r; i++)
        s->y[i] = 0.0;
    add_product(s->y, s->C, s->x, s->r, s->n);
    add_product(s->y, s->D, s->u, s->r, s->m);
}

static void initialize(model_instance *inst, void *data)
{
    statespace *s = data;
    for (uint64_t i = 0; i < s->n; i++)
        s->x[i] = s->x0[i];
    evaluate(inst, data);
}

static model_status check(model_instance *inst, void *data)
{
    const statespace *s = data;
    if (s->m > MAX_SIZE || s->n > MAX_SIZE || s->r > MAX_SIZE) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "m, n and r must be at most %d", MAX_SIZE);
        return MODEL_ERROR;
    }
    if (!(s->solver_step > 0.0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "solver_step must be > 0, is %g", s->solver_step);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

/* Equal micro steps dt = h / ceil(h / solver_step), each x += dt der(x). */
static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)t;
    statespace *s = data;
    double steps = ceil(h / s->solver_step - 1e-9);
    if (steps < 1.0)
        steps = 1.0;
    const double dt = h / steps;
    for (long k = 0; k < (long)steps; k++) {
        evaluate(inst, data);
        for (uint64_t i = 0; i < s->n; i++)
            s->x[i] += dt * s->der_x[i];
    }
    evaluate(inst, data);
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "StateSpace",
    .description = "Linear state-space model der(x) = A x + B u, y = C x + D u (FMI 3.0 arrays)",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a07}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(statespace),
    .check = check,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 1.0,
    .default_tolerance = 1e-6,
    .default_step_size = 0.1,
};
