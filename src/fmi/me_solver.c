/* The integrator behind a model-exchange FMU: the component's do_step(t, h)
 * solves the FMU's continuous states over [t, t+h] with SUNDIALS CVODE (BDF,
 * dense Newton, root finding on the event indicators) or fixed-step explicit
 * Euler, and handles state, time and step events in the FMU's Event Mode
 * (FMI 2.0 section 3.1, FMI 3.0 section 3.1). Every vector, matrix and scratch
 * array is made when the FMU is loaded; a step allocates nothing. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "fmi/me_internal.h"

/* ---- Solver callbacks: tell the FMU (t, x), ask for derivatives or
 * indicators. A Discard is recoverable (CVODE retries a smaller step). ---- */

static int callback_result(struct rtcosim_me *me, rtcosim_status st)
{
    if (st == RTCOSIM_OK)
        return 0;
    if (st == RTCOSIM_EDISCARD)
        return 1;
    if (me->callback_status == RTCOSIM_OK)
        me->callback_status = st;
    return -1;
}

static rtcosim_status tell_fmu(struct rtcosim_me *me, double t, const double *x, rtcosim_error *err)
{
    rtcosim_status st = me->calls->set_time(me->f, t, err);
    if (st == RTCOSIM_OK && me->input_source) {
        /* The continuous inputs at t (rtcosim_fmu_me_input_source); their
         * sets are part of the solution, no restart. */
        me->in_input_source = true;
        st = me->input_source(me->input_context, t, err);
        me->in_input_source = false;
    }
    if (st == RTCOSIM_OK && me->nx > 0)
        st = me->calls->set_states(me->f, x, me->nx, err);
    return st;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    struct rtcosim_me *me = user;
    me->stats.rhs_evaluations++;
    double *out = N_VGetArrayPointer(ydot);
    if (me->nx == 0) {
        out[0] = 0.0;
        return 0;
    }
    rtcosim_status st = tell_fmu(me, t, N_VGetArrayPointer(y), &me->callback_err);
    if (st == RTCOSIM_OK)
        st = me->calls->get_derivatives(me->f, out, me->nx, &me->callback_err);
    return callback_result(me, st);
}

static int indicators(sunrealtype t, N_Vector y, sunrealtype *gout, void *user)
{
    struct rtcosim_me *me = user;
    me->stats.root_evaluations++;
    rtcosim_status st = tell_fmu(me, t, N_VGetArrayPointer(y), &me->callback_err);
    if (st == RTCOSIM_OK)
        st = me->calls->get_event_indicators(me->f, gout, me->nz, &me->callback_err);
    return callback_result(me, st) == 0 ? 0 : -1; /* root functions know no retry */
}

/* CVODE reports through this instead of printing (the library never prints). */
static void solver_message(int code, const char *module, const char *function, char *msg,
                           void *user)
{
    struct rtcosim_me *me = user;
    snprintf(me->solver_message, sizeof me->solver_message, "%s", msg ? msg : "");
    rtcosim_log(code < 0 ? RTCOSIM_LOG_DEBUG : RTCOSIM_LOG_WARNING, "cvode", "%s: %s %s: %s",
                me_who(me), module ? module : "", function ? function : "", msg ? msg : "");
}

/* ---- Tolerances, restarts, events ---- */

/* Absolute tolerance per state: rtol * |nominal| (FMI 2.0 section 3.2.2:
 * nominals are for scaling the error control). */
static rtcosim_status set_tolerances(struct rtcosim_me *me, rtcosim_error *err)
{
    double *abstol = N_VGetArrayPointer(me->abstol);
    abstol[0] = me->tolerance;
    if (me->nx > 0) {
        rtcosim_status st = me->calls->get_nominals(me->f, me->nominal, me->nx, err);
        if (st != RTCOSIM_OK)
            return st;
        for (size_t i = 0; i < me->nx; i++) {
            double n = fabs(me->nominal[i]);
            abstol[i] = me->tolerance * (n > 0 && isfinite(n) ? n : 1.0);
        }
    }
    if (me->solver == RTCOSIM_ME_SOLVER_CVODE &&
        CVodeSVtolerances(me->cvode, me->tolerance, me->abstol) != CV_SUCCESS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: CVODE rejects tolerance %g: %s", me_who(me),
                                 me->tolerance, me->solver_message);
    return RTCOSIM_OK;
}

rtcosim_status me_read_indicators(struct rtcosim_me *me, double *z, rtcosim_error *err)
{
    return me->nz ? me->calls->get_event_indicators(me->f, z, me->nz, err) : RTCOSIM_OK;
}

/* Event Mode until the discrete states settle (FMI 2.0 section 3.2.2
 * fmi2NewDiscreteStates, FMI 3.0 section 3.2.3 fmi3UpdateDiscreteStates),
 * then back to Continuous-Time Mode with the (possibly changed) states. The
 * FMU is in Event Mode when this is called. */
static rtcosim_status event_iteration(struct rtcosim_me *me, rtcosim_error *err)
{
    rtcosim_me_event_info info = {0};
    bool nominals_changed = false;
    for (int i = 0;; i++) {
        if (i == MAX_EVENT_ITERATIONS)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                     "%s: event iteration at t=%.9g did not settle after %d rounds",
                                     me_who(me), me->time, MAX_EVENT_ITERATIONS);
        rtcosim_status st = me->calls->update_discrete_states(me->f, &info, err);
        if (st != RTCOSIM_OK)
            return st;
        nominals_changed |= info.nominals_changed;
        if (info.terminate_simulation) {
            me->terminate_pending = true;
            me->in_continuous_time = false;
            return RTCOSIM_OK; /* stays in Event Mode, from where it may terminate */
        }
        if (!info.discrete_states_need_update)
            break;
    }
    me->next_event_defined = info.next_event_time_defined;
    me->next_event_time = info.next_event_time;
    rtcosim_status st = me->calls->enter_continuous_time_mode(me->f, err);
    if (st == RTCOSIM_OK && me->nx > 0)
        st = me->calls->get_states(me->f, me_states(me), me->nx, err);
    if (st == RTCOSIM_OK && nominals_changed)
        st = set_tolerances(me, err);
    if (st == RTCOSIM_OK && me->solver == RTCOSIM_ME_SOLVER_EULER)
        st = me_read_indicators(me, me->z_before, err);
    me->needs_reinit = true;
    return st;
}

rtcosim_status me_learn_events_after_restore(struct rtcosim_me *me, rtcosim_error *err)
{
    rtcosim_status st = me->calls->set_time(me->f, me->time, err);
    if (st == RTCOSIM_OK)
        st = me->calls->enter_event_mode(me->f, err);
    return st == RTCOSIM_OK ? event_iteration(me, err) : st;
}

/* The observer, if any, at the event at me->time (after: its iteration done). */
static rtcosim_status observe(struct rtcosim_me *me, bool after, rtcosim_error *err)
{
    if (!me->observer)
        return RTCOSIM_OK;
    return me->observer(me->observer_context, me->time, after, err);
}

rtcosim_status me_begin_event(struct rtcosim_me *me, uint64_t *counter, rtcosim_error *err)
{
    (*counter)++;
    me->stats.last_event_time = me->time;
    rtcosim_status st = observe(me, false, err);
    return st == RTCOSIM_OK ? me->calls->enter_event_mode(me->f, err) : st;
}

rtcosim_status me_end_event(struct rtcosim_me *me, rtcosim_error *err)
{
    rtcosim_status st = event_iteration(me, err);
    return st == RTCOSIM_OK && !me->terminate_pending ? observe(me, true, err) : st;
}

static void count_cvode_steps(struct rtcosim_me *me)
{
    long n = 0;
    if (me->cvode && CVodeGetNumSteps(me->cvode, &n) == CV_SUCCESS)
        me->cvode_steps_before += n;
}

static rtcosim_status restart(struct rtcosim_me *me, rtcosim_error *err)
{
    me->needs_reinit = false;
    if (me->solver != RTCOSIM_ME_SOLVER_CVODE)
        return RTCOSIM_OK;
    me->stats.reinits++;
    count_cvode_steps(me);
    if (CVodeReInit(me->cvode, me->time, me->x) != CV_SUCCESS)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "%s: CVODE cannot restart at t=%.9g: %s",
                                 me_who(me), me->time, me->solver_message);
    return RTCOSIM_OK;
}

/* ---- Integration to tout; stops early at a state event ---- */

static rtcosim_status integrate_cvode(struct rtcosim_me *me, double tout, bool *root,
                                      rtcosim_error *err)
{
    me->callback_status = RTCOSIM_OK;
    me->solver_message[0] = '\0';
    /* A remainder within rounding of the current time (after a root just
     * before tout) is no interval CVODE can start on: the states stand. */
    if (tout - me->time <= 64 * DBL_EPSILON * fmax(fabs(tout), 1.0)) {
        me->time = tout;
        *root = false;
        return tell_fmu(me, me->time, me_states(me), err);
    }
    CVodeSetStopTime(me->cvode, tout);
    sunrealtype reached = me->time;
    int flag = CVode(me->cvode, tout, me->x, &reached, CV_NORMAL);
    if (flag < 0) {
        if (me->callback_status != RTCOSIM_OK) {
            if (err)
                *err = me->callback_err;
            return me->callback_status;
        }
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "%s: CVODE failed at t=%.9g (%s): %s",
                                 me_who(me), (double)reached, CVodeGetReturnFlagName(flag),
                                 me->solver_message);
    }
    *root = flag == CV_ROOT_RETURN;
    me->time = *root ? reached : tout;
    /* The callbacks left the FMU at CVODE's last trial point: tell it where
     * the integration really stands. */
    return tell_fmu(me, me->time, me_states(me), err);
}

/* Explicit Euler x += dt * f(t, x) in equal micro steps of at most max_step
 * (so that rounding never adds a sliver of a step at the end). An
 * indicator that left its domain (z > 0 against z <= 0, FMI 2.0 section 3.1)
 * over a micro step ends the integration there; one that starts at exactly 0
 * (just re-initialized by an event) counts once it has left 0, as with
 * CVODE's root finding. */
static rtcosim_status integrate_euler(struct rtcosim_me *me, double tout, bool *root,
                                      rtcosim_error *err)
{
    double *x = me_states(me);
    const double t0 = me->time, span = tout - t0;
    double count = me->max_step > 0 ? ceil(span / me->max_step - 1e-9) : 1.0;
    if (!(count >= 1.0))
        count = 1.0;
    for (double i = 1; i <= count; i++) {
        const bool last = i == count;
        const double dt = (last ? tout : t0 + span * (i / count)) - me->time;
        rtcosim_status st = RTCOSIM_OK;
        if (me->nx > 0)
            st = me->calls->get_derivatives(me->f, me->dx, me->nx, err);
        if (st != RTCOSIM_OK)
            return st;
        me->stats.rhs_evaluations++;
        me->stats.solver_steps++;
        for (size_t i = 0; i < me->nx; i++)
            x[i] += dt * me->dx[i];
        me->time = last ? tout : t0 + span * (i / count);
        if ((st = tell_fmu(me, me->time, x, err)) != RTCOSIM_OK ||
            (st = me_read_indicators(me, me->z, err)) != RTCOSIM_OK)
            return st;
        bool crossed = false;
        for (size_t i = 0; i < me->nz; i++) {
            crossed |= (me->z_before[i] > 0 && me->z[i] <= 0) ||
                       (me->z_before[i] < 0 && me->z[i] > 0);
            me->z_before[i] = me->z[i];
        }
        if (crossed) {
            *root = true;
            return RTCOSIM_OK;
        }
    }
    *root = false;
    return RTCOSIM_OK;
}

/* ---- Component operations wrapping the version's ---- */

static rtcosim_status me_setup(void *self, double tolerance, rtcosim_time_ns start,
                               rtcosim_time_ns stop, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    me->tolerance = tolerance > 0                ? tolerance
                    : f->md->has_tolerance && f->md->tolerance > 0 ? f->md->tolerance
                                                                   : DEFAULT_TOLERANCE;
    me->time_ns = start;
    me->time = rtcosim_time_to_seconds(start);
    return me->base.setup(self, tolerance, start, stop, err);
}

/* After initialization the FMU is in Event Mode (FMI 2.0 section 3.2.4, FMI
 * 3.0 section 3.2.2): settle the discrete states, then start the solver. */
static rtcosim_status me_exit_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    rtcosim_status st = me->base.exit_init(self, err);
    if (st == RTCOSIM_OK)
        st = event_iteration(me, err);
    if (st == RTCOSIM_OK && !me->terminate_pending)
        st = set_tolerances(me, err);
    if (st == RTCOSIM_OK && me->solver == RTCOSIM_ME_SOLVER_CVODE && me->max_step > 0)
        CVodeSetMaxStep(me->cvode, me->max_step);
    me->in_continuous_time = st == RTCOSIM_OK && !me->terminate_pending;
    return st;
}

static rtcosim_status me_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    if (t != me->time_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: step from t=%.9g s, but the model is at t=%.9g s", me_who(me),
                                 rtcosim_time_to_seconds(t), rtcosim_time_to_seconds(me->time_ns));
    if (me->terminate_pending)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "%s: the model asked to terminate at t=%.9g s and cannot step on",
                                 me_who(me), me->time);
    const double t_end = rtcosim_time_to_seconds(t + h);
    int events_here = 0;
    double events_at = NAN;
    rtcosim_status st = me_close_input_event(me, err);
    if (st != RTCOSIM_OK)
        return st;
    while (!me->terminate_pending) {
        uint64_t *kind;
        if (me->next_event_defined && me->next_event_time <= me->time) {
            kind = &me->stats.time_events; /* due (FMI 2.0 section 3.1: nextEventTime) */
        } else {
            if (me->time >= t_end)
                break;
            double tout = t_end;
            if (me->next_event_defined && me->next_event_time < tout)
                tout = me->next_event_time;
            if (me->needs_reinit && (st = restart(me, err)) != RTCOSIM_OK)
                return st;
            bool root = false;
            st = me->solver == RTCOSIM_ME_SOLVER_CVODE ? integrate_cvode(me, tout, &root, err)
                                                       : integrate_euler(me, tout, &root, err);
            if (st != RTCOSIM_OK)
                return st;
            /* FMI 2.0 section 3.2.2: after each completed step; once per
             * call here, as the solver is driven to tout (or the root) in
             * one call. */
            bool step_event = false, terminate = false;
            if ((st = me->calls->completed_integrator_step(f, true, &step_event, &terminate,
                                                           err)) != RTCOSIM_OK)
                return st;
            if (terminate) {
                me->terminate_pending = true;
                break;
            }
            if (root)
                kind = &me->stats.state_events;
            else if (step_event)
                kind = &me->stats.step_events;
            else
                continue;
        }
        /* Events that keep coming at one instant: the model chatters. */
        if (me->time != events_at)
            events_at = me->time, events_here = 0;
        if (++events_here > MAX_EVENTS_AT_ONE_TIME)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "%s: more than %d events at t=%.9g",
                                     me_who(me), MAX_EVENTS_AT_ONE_TIME, me->time);
        if ((st = me_begin_event(me, kind, err)) != RTCOSIM_OK ||
            (st = me_end_event(me, err)) != RTCOSIM_OK)
            return st;
    }
    if (me->terminate_pending) {
        result->terminate_requested = true;
        rtcosim_time_ns reached;
        if (me->time < t_end &&
            rtcosim_time_from_seconds(me->time, &reached, NULL) == RTCOSIM_OK && reached > t &&
            reached < t + h) {
            result->early_return = true;
            result->last_successful_time = reached;
            me->time_ns = reached;
            return RTCOSIM_OK;
        }
    }
    me->time_ns = t + h;
    me->time = t_end;
    return RTCOSIM_OK;
}

/* ---- Setup and teardown ---- */

void rtcosim_me_free(struct rtcosim_me *me)
{
    if (!me)
        return;
    CVodeFree(&me->cvode);
    if (me->linear_solver)
        SUNLinSolFree(me->linear_solver);
    if (me->jacobian)
        SUNMatDestroy(me->jacobian);
    if (me->x)
        N_VDestroy(me->x);
    if (me->abstol)
        N_VDestroy(me->abstol);
    if (me->context)
        SUNContext_Free(&me->context);
    free(me->dx);
    free(me->nominal);
    free(me->z);
    free(me->z_before);
    me_inputs_free(me);
    free(me);
}

static rtcosim_status create_cvode(struct rtcosim_me *me, size_t n, rtcosim_error *err)
{
    me->cvode = CVodeCreate(CV_BDF, me->context);
    if (!me->cvode)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory (CVODE)",
                                 me->f->archive_path);
    CVodeSetErrHandlerFn(me->cvode, solver_message, me);
    me->jacobian = SUNDenseMatrix((sunindextype)n, (sunindextype)n, me->context);
    me->linear_solver = me->jacobian ? SUNLinSol_Dense(me->x, me->jacobian, me->context) : NULL;
    bool ok = me->linear_solver && CVodeInit(me->cvode, rhs, 0.0, me->x) == CV_SUCCESS &&
              CVodeSetUserData(me->cvode, me) == CV_SUCCESS &&
              CVodeSStolerances(me->cvode, DEFAULT_TOLERANCE, DEFAULT_TOLERANCE) == CV_SUCCESS &&
              CVodeSetLinearSolver(me->cvode, me->linear_solver, me->jacobian) == CV_SUCCESS &&
              CVodeSetMaxNumSteps(me->cvode, 1000000) == CV_SUCCESS &&
              (me->nz == 0 || (CVodeRootInit(me->cvode, (int)me->nz, indicators) == CV_SUCCESS &&
                               CVodeSetNoInactiveRootWarn(me->cvode) == CV_SUCCESS));
    if (!ok)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: cannot set up CVODE: %s",
                                 me->f->archive_path,
                                 me->solver_message[0] ? me->solver_message : "out of memory");
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_me_attach(rtcosim_fmu *f, const rtcosim_me_calls *calls,
                                 const rtcosim_fmu_options *opts, rtcosim_error *err)
{
    if (opts->solver != RTCOSIM_ME_SOLVER_CVODE && opts->solver != RTCOSIM_ME_SOLVER_EULER)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: unknown model-exchange solver %d",
                                 f->archive_path, (int)opts->solver);
    if (opts->max_solver_step < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: negative maximum solver step",
                                 f->archive_path);
    struct rtcosim_me *me = calloc(1, sizeof *me);
    if (!me)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    f->me = me; /* freed with f from here on */
    me->f = f;
    me->calls = calls;
    me->base = f->ops;
    me->solver = opts->solver;
    me->max_step = rtcosim_time_to_seconds(opts->max_solver_step);
    me->nx = f->md->state_count;
    me->nz = f->md->event_indicator_count;
    me->tolerance = DEFAULT_TOLERANCE;
    me->stats.last_event_time = NAN;
    size_t n = me->nx ? me->nx : 1;
    rtcosim_status st;
    me->dx = calloc(n, sizeof *me->dx);
    me->nominal = calloc(n, sizeof *me->nominal);
    me->z = calloc(me->nz ? me->nz : 1, sizeof *me->z);
    me->z_before = calloc(me->nz ? me->nz : 1, sizeof *me->z_before);
    if (!me->dx || !me->nominal || !me->z || !me->z_before ||
        SUNContext_Create(NULL, &me->context) != 0 ||
        !(me->x = N_VNew_Serial((sunindextype)n, me->context)) ||
        !(me->abstol = N_VNew_Serial((sunindextype)n, me->context)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    N_VConst(0.0, me->x);
    if (me->solver == RTCOSIM_ME_SOLVER_CVODE) {
        st = create_cvode(me, n, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if ((st = me_inputs_init(me, err)) != RTCOSIM_OK)
        return st;
    f->ops.setup = me_setup;
    f->ops.exit_init = me_exit_init;
    f->ops.do_step = me_do_step;
    f->ops.set = me_set;
    f->ops.get = me_get;
    if (me->base.terminate)
        f->ops.terminate = me_terminate;
    /* Continuous inputs are held over a step: no input derivatives. */
    f->ops.set_input_derivatives = NULL;
    if (me->base.get_state) {
        f->ops.get_state = me_get_state;
        f->ops.set_state = me_set_state;
        f->ops.free_state = me_free_state;
    }
    /* The integrator's fields travel with the FMU's own serialized state. */
    bool serial = me->base.get_state && me->base.serialized_state_size &&
                  me->base.serialize_state && me->base.deserialize_state;
    f->ops.serialized_state_size = serial ? me_serialized_size : NULL;
    f->ops.serialize_state = serial ? me_serialize : NULL;
    f->ops.deserialize_state = serial ? me_deserialize : NULL;
    return RTCOSIM_OK;
}

/* The integrator of a model-exchange FMU; NULL (err naming the component)
 * for any other component. */
struct rtcosim_me *me_of(const rtcosim_component *c, rtcosim_error *err)
{
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    if (!info || info->interface_type != RTCOSIM_FMI_MODEL_EXCHANGE) {
        rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: not a model-exchange FMU",
                          c ? rtcosim_component_model_name(c) : "(null)");
        return NULL;
    }
    return ((const rtcosim_fmu *)rtcosim_component_impl(c))->me;
}

rtcosim_status rtcosim_fmu_me_stats(const rtcosim_component *c, rtcosim_me_stats *out,
                                    rtcosim_error *err)
{
    const struct rtcosim_me *me = me_of(c, err);
    if (!me)
        return RTCOSIM_EINVAL;
    if (!out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no place for the statistics",
                                 rtcosim_component_model_name(c));
    *out = me->stats;
    long n = 0;
    if (me->solver == RTCOSIM_ME_SOLVER_CVODE && CVodeGetNumSteps(me->cvode, &n) == CV_SUCCESS)
        out->solver_steps = (uint64_t)(me->cvode_steps_before + n);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmu_me_observe_events(rtcosim_component *c,
                                             rtcosim_me_event_observer observer, void *context,
                                             rtcosim_error *err)
{
    struct rtcosim_me *me = me_of(c, err);
    if (!me)
        return RTCOSIM_EINVAL;
    me->observer = observer;
    me->observer_context = context;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmu_me_input_source(rtcosim_component *c, rtcosim_me_input_source source,
                                           void *context, rtcosim_error *err)
{
    struct rtcosim_me *me = me_of(c, err);
    if (!me)
        return RTCOSIM_EINVAL;
    me->input_source = source;
    me->input_context = context;
    return RTCOSIM_OK;
}
