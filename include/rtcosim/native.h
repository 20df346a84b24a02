/* Native C components: a model is a plain-data struct of parameters, inputs,
 * outputs and states, a static variable table pointing into it, and a few
 * callbacks (equations). One generic wrapper turns any such model into an
 * rtcosim_component (get/set by value reference, built-in fixed-step
 * integrators, input derivatives, state snapshots and serialization), so that
 * the master drives native models and FMUs the same way.
 *
 * A registry maps model type names to factories, so that an SSP file can name
 * a native component by the source URI "rtcosim:<name>". */
#ifndef RTCOSIM_NATIVE_H
#define RTCOSIM_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of a model's variable table. The value lives in the model's data
 * struct at `offset` (use offsetof) with the C type of `type` (double for
 * FLOAT64, int32_t for INT32, bool for BOOLEAN, ...; strings and binaries are
 * not supported in native models). */
typedef struct rtcosim_native_variable {
    const char *name;
    uint32_t value_reference;       /* unique per model, at most 65535 */
    rtcosim_type type;
    rtcosim_causality causality;
    rtcosim_variability variability;
    size_t offset;
    double start;                   /* start value (converted to `type`) */
    const char *unit;               /* may be NULL */
    const char *description;        /* may be NULL */
    /* Outputs only: the names of the inputs this output depends on directly
     * (direct feedthrough), separated by commas, or NULL for none. The master
     * orders Gauss-Seidel steps and detects algebraic loops from it. */
    const char *depends_on;
} rtcosim_native_variable;

/* Shorthand for a FLOAT64 table entry of model struct `M`, field `field`. */
#define RTCOSIM_NATIVE_F64(M, field, vr, causality_, variability_, start_, unit_, desc_, deps_) \
    {#field, (vr), RTCOSIM_TYPE_FLOAT64, (causality_), (variability_), offsetof(M, field),       \
     (start_), (unit_), (desc_), (deps_)}

typedef enum rtcosim_native_integrator {
    RTCOSIM_NATIVE_OWN_STEP = 0, /* the model's `step` callback advances itself */
    RTCOSIM_NATIVE_EULER,        /* explicit Euler on `derivatives` */
    RTCOSIM_NATIVE_HEUN,         /* explicit trapezoid (2nd order) */
    RTCOSIM_NATIVE_RK4           /* classical Runge-Kutta (4th order) */
} rtcosim_native_integrator;

/* Passed to the model's callbacks: lets a model with its own step evaluate its
 * inputs at any time inside the current step (inputs are polynomials in time
 * when the master sets input derivatives). */
typedef struct rtcosim_native_context rtcosim_native_context;

/* Write every FLOAT64 input of the model at time t (seconds) into the data
 * struct: u(t) = u + du*(t - t0) + d2u*(t - t0)^2/2, where t0 is the step
 * start and du, d2u the input derivatives set for this step (zero if none). */
void rtcosim_native_inputs_at(const rtcosim_native_context *ctx, double t);

/* A model type. All callbacks receive the model's data struct. */
typedef struct rtcosim_native_model {
    const char *name;        /* registry name, e.g. "oscillator.mass1" */
    const char *description; /* may be NULL */
    size_t data_size;        /* sizeof the data struct: plain data, no pointers,
                                so that a state snapshot is a byte copy */
    const rtcosim_native_variable *variables;
    size_t variable_count;

    /* Continuous states for the built-in integrators: state_count doubles
     * stored contiguously in the data struct from states_offset on. */
    size_t state_count;
    size_t states_offset;
    rtcosim_native_integrator integrator;
    /* Largest micro step of the built-in integrator; a macro step h is split
     * into ceil(h / max_micro_step) equal micro steps (0: one micro step). */
    rtcosim_time_ns max_micro_step;

    bool can_handle_variable_step;
    int max_input_derivative_order; /* 0, 1 or 2 */

    /* Optional: compute initial states and dependent values from parameters
     * and inputs. Runs in initialization mode before outputs are read after
     * any set (so the master's initial exchange sees consistent values, as
     * with an FMU's calculated initial unknowns), and once more at exit from
     * initialization, where an error is reported: it must be idempotent. */
    rtcosim_status (*init)(void *data, const rtcosim_native_context *ctx, rtcosim_error *err);
    /* For the built-in integrators: dx/dt at time t for states x (the inputs in
     * `data` already hold their values at t). */
    void (*derivatives)(void *data, double t, const double *x, double *dx);
    /* Optional: compute outputs from states and inputs at time t (called after
     * every step, and on get when inputs or parameters changed). */
    void (*outputs)(void *data, double t);
    /* RTCOSIM_NATIVE_OWN_STEP only: advance the model from t to t + h. */
    rtcosim_status (*step)(void *data, const rtcosim_native_context *ctx, double t, double h,
                           rtcosim_error *err);
    /* Optional: event check after each step; return true when the model
     * changed discretely at t (reported as event_handling_needed), and set
     * *terminate to ask the master to stop. */
    bool (*event)(void *data, double t, bool *terminate);
} rtcosim_native_model;

/* Create a component of the model type. The model descriptor must outlive the
 * component (it is normally a static const). Checks the table: unique names
 * and value references, offsets inside data_size, supported types, depends_on
 * naming inputs, callbacks matching the integrator choice. */
rtcosim_status rtcosim_native_create_model(const rtcosim_native_model *model,
                                           rtcosim_component **out, rtcosim_error *err);

/* Direct-feedthrough query used by the master: true when output variable
 * `output_index` of a native component depends directly on input variable
 * `input_index` (indices into the component's variable table). For a
 * component that is not native, returns true (the FMI default when nothing is
 * declared). */
bool rtcosim_native_depends(const rtcosim_component *c, size_t output_index, size_t input_index);
bool rtcosim_native_is_native(const rtcosim_component *c);

/* The model's data struct of a native component (for tests and tools that
 * inspect a model directly), or NULL for other kinds. */
void *rtcosim_native_data(rtcosim_component *c);

/* Registry of native model types. A factory creates a fresh component. */
typedef rtcosim_status (*rtcosim_native_factory)(void *context, rtcosim_component **out,
                                                 rtcosim_error *err);

/* Register a factory under `name` ("oscillator.mass1"; a leading "rtcosim:"
 * is ignored). Fails with RTCOSIM_EINVAL when the name is taken. Thread-safe. */
rtcosim_status rtcosim_native_register(const char *name, rtcosim_native_factory factory,
                                       void *context, rtcosim_error *err);
/* Register a model descriptor under its own name. */
rtcosim_status rtcosim_native_register_model(const rtcosim_native_model *model,
                                             rtcosim_error *err);
/* Create a registered type by name or by source URI ("rtcosim:oscillator.mass1").
 * An unknown name gives RTCOSIM_ENOTFOUND naming it. */
rtcosim_status rtcosim_native_create(const char *name, rtcosim_component **out,
                                     rtcosim_error *err);
/* Number of registered types and the i-th name (in registration order). */
size_t rtcosim_native_registered_count(void);
const char *rtcosim_native_registered_name(size_t index);

/* Built-in models of the library (examples) register themselves when the
 * library loads: put RTCOSIM_NATIVE_BUILTIN(model_descriptor) in their file. */
#define RTCOSIM_NATIVE_BUILTIN(model_)                                                   \
    __attribute__((constructor)) static void rtcosim_native_builtin_##model_(void)      \
    {                                                                                    \
        rtcosim_native_register_model(&(model_), NULL);                                  \
    }

#ifdef __cplusplus
}
#endif
#endif
