/* The model-exchange integrator's state, shared by me_solver.c (stepping,
 * events, inputs) and me_state.c (snapshots and their serialized form). */
#ifndef RTCOSIM_FMI_ME_INTERNAL_H
#define RTCOSIM_FMI_ME_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "fmi/me.h"

/* Event iterations (section 3.2.2 / 3.2.3) longer than this mean the model
 * chatters between discrete states; events of any kind at one instant likewise. */
#define MAX_EVENT_ITERATIONS 1000
#define MAX_EVENTS_AT_ONE_TIME 1000
/* Relative tolerance when neither the caller nor the FMU gives one. */
#define DEFAULT_TOLERANCE 1e-6

struct rtcosim_me {
    rtcosim_fmu *f;
    const rtcosim_me_calls *calls;
    rtcosim_component_ops base; /* the version's ops this integrator wraps */
    rtcosim_me_solver solver;
    double max_step;            /* seconds; 0: none */
    size_t nx;                  /* the FMU's continuous states */
    size_t nz;                  /* its event indicators */
    double tolerance;           /* relative */

    rtcosim_time_ns time_ns;    /* where the component is, as the master counts */
    double time;                /* the same in seconds, as the FMU was last told */
    bool next_event_defined;
    double next_event_time;
    bool needs_reinit;          /* the solver must restart from (time, x) */
    bool terminate_pending;     /* the FMU asked to end the simulation */

    /* CVODE (also holds x for Euler). A model without states integrates one
     * dummy state with derivative 0, so the solver and its root finding still
     * run (time and state events of purely discrete models). */
    SUNContext context;
    void *cvode;
    N_Vector x, abstol;
    SUNMatrix jacobian;
    SUNLinearSolver linear_solver;
    long cvode_steps_before; /* CVODE counts from the last (re)init */

    double *dx, *nominal, *z, *z_before; /* scratch, sized at load */

    /* The first failure inside a solver callback, reported after CVode returns. */
    rtcosim_status callback_status;
    rtcosim_error callback_err;
    char solver_message[256];

    rtcosim_me_stats stats;

    /* Variables that may be set in Continuous-Time Mode only within an
     * event (discrete inputs, tunable parameters: FMI 2.0 section 3.2.3,
     * FMI 3.0 section 3.2.3), sorted by key, with the value last set
     * (me_inputs.c). */
    struct me_discrete *discrete;
    size_t discrete_count;
    bool in_continuous_time; /* initialization left, not terminating */
    bool input_event_open;   /* Event Mode for changed discrete inputs */
    /* Scratch for splitting a set into its continuous and changed discrete
     * variables; grows to the largest set seen. */
    uint32_t *split_vrs;
    struct me_discrete **split_entries;
    unsigned char *split_values;
    size_t split_capacity;
    /* Sets the continuous inputs at each time the FMU is told
     * (rtcosim_fmu_me_input_source); in_input_source while it runs. */
    rtcosim_me_input_source input_source;
    void *input_context;
    bool in_input_source;
    /* Told before and after every event (rtcosim_fmu_me_observe_events). */
    rtcosim_me_event_observer observer;
    void *observer_context;
};

/* A snapshot: the FMU's own state plus where the integrator stood. */
typedef struct me_snapshot {
    rtcosim_state fmu_state;
    rtcosim_time_ns time_ns;
    double time;
    bool next_event_defined;
    double next_event_time;
    bool terminate_pending;
} me_snapshot;

static inline double *me_states(struct rtcosim_me *me) { return N_VGetArrayPointer(me->x); }

static inline const char *me_who(const struct rtcosim_me *me)
{
    return me->f->instance_name ? me->f->instance_name : me->f->md->model_name;
}

struct rtcosim_me *me_of(const rtcosim_component *c, rtcosim_error *err);
rtcosim_status me_read_indicators(struct rtcosim_me *me, double *z, rtcosim_error *err);
/* An event at me->time, in two halves (an input event lets the inputs be
 * set between them): counted, the observer's row before, Event Mode; then
 * the iteration back to Continuous-Time Mode and the row after. */
rtcosim_status me_begin_event(struct rtcosim_me *me, uint64_t *counter, rtcosim_error *err);
rtcosim_status me_end_event(struct rtcosim_me *me, rtcosim_error *err);
/* After the FMU took a state that came without the importer's event
 * information (fmusim's state files hold the FMU's bytes only): an event
 * iteration at me->time, without an observer row, tells the next time
 * event (and applies one that is due). Event Mode may be entered from
 * Continuous-Time Mode at any time (FMI 2.0 3.2.2, FMI 3.0 3.2.3). */
rtcosim_status me_learn_events_after_restore(struct rtcosim_me *me, rtcosim_error *err);

/* me_inputs.c: the variables set only in Event Mode, found at load; the
 * component's set (a changed discrete value makes an event); the values
 * forgotten (at free). */
rtcosim_status me_inputs_init(struct rtcosim_me *me, rtcosim_error *err);
rtcosim_status me_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                      const void *values, rtcosim_error *err);
void me_inputs_forget(struct rtcosim_me *me);
/* After a state restore (a snapshot, a state file): the values the state
 * holds, read back from the FMU as the last set, so that setting them again
 * is no input event (one the FMU refuses to give stays unknown). */
void me_inputs_reload(struct rtcosim_me *me);
/* Close an open input event: its iteration, the observer's row after. */
rtcosim_status me_close_input_event(struct rtcosim_me *me, rtcosim_error *err);
rtcosim_status me_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n, void *values,
                      rtcosim_error *err);
rtcosim_status me_terminate(void *self, rtcosim_error *err);
void me_inputs_free(struct rtcosim_me *me);

/* me_state.c: the FMU state operations wrapping the version's. */
rtcosim_status me_get_state(void *self, rtcosim_state *state, rtcosim_error *err);
rtcosim_status me_set_state(void *self, rtcosim_state state, rtcosim_error *err);
void me_free_state(void *self, rtcosim_state state);
rtcosim_status me_serialized_size(void *self, rtcosim_state state, size_t *size,
                                  rtcosim_error *err);
rtcosim_status me_serialize(void *self, rtcosim_state state, uint8_t *buffer, size_t size,
                            rtcosim_error *err);
rtcosim_status me_deserialize(void *self, const uint8_t *buffer, size_t size,
                              rtcosim_state *state, rtcosim_error *err);
#endif
