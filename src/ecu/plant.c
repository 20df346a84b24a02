/* The plant side of an ECU: a component stepped at a fixed step, either as an
 * LP of its own (active: it sends its outputs to the ECU one step ahead, which
 * is its lookahead) or inside the ECU's LP (passive: stepped up to the instant
 * a job samples it, with actuator values applied when their job ends). */
#include <stdlib.h>
#include <string.h>

#include "ecu_internal.h"

rtcosim_status ecu_plant_prepare(ecu_plant *p, const char *instance, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_component_instantiate(p->component, instance, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_setup(p->component, 0.0, 0, -1, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_enter_init(p->component, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_exit_init(p->component, err);
    if (st != RTCOSIM_OK)
        return st;
    if (rtcosim_component_capabilities(p->component)->can_get_set_state) {
        st = rtcosim_component_get_state(p->component, &p->start_state, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status plant_read(ecu_plant *p, double *sensors, rtcosim_error *err)
{
    return rtcosim_component_get(p->component, RTCOSIM_TYPE_FLOAT64, p->sensor_vrs,
                                 p->sensor_count, sensors, err);
}

static rtcosim_status plant_step(ecu_plant *p, rtcosim_time_ns h, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_component_set(p->component, RTCOSIM_TYPE_FLOAT64, p->actuator_vrs,
                                              p->actuator_count, p->inputs, err);
    rtcosim_step_result result;
    if (st == RTCOSIM_OK)
        st = rtcosim_component_do_step(p->component, p->time, h, &result, err);
    if (st == RTCOSIM_OK)
        p->time += h;
    return st;
}

rtcosim_status ecu_plant_reset(ecu_plant *p, rtcosim_time_ns now, const double *inputs,
                               double *sensors, rtcosim_error *err)
{
    if (p->initialized) {
        /* a later run: back to the state right after initialization */
        if (!p->start_state)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "plant '%s' cannot restore its"
                                     " state, so it cannot be run twice",
                                     rtcosim_component_model_name(p->component));
        rtcosim_status st = rtcosim_component_set_state(p->component, p->start_state, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    p->initialized = true;
    p->time = now;
    memcpy(p->inputs, inputs, sizeof p->inputs);
    p->pending_head = p->pending_count = 0;
    return plant_read(p, sensors, err);
}

static rtcosim_status plant_advance(ecu_plant *p, rtcosim_time_ns target, rtcosim_error *err)
{
    while (p->time < target) {
        rtcosim_time_ns h = target - p->time < p->step ? target - p->time : p->step;
        rtcosim_status st = plant_step(p, h, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status ecu_plant_sample(ecu_plant *p, rtcosim_time_ns t, double *sensors,
                                rtcosim_error *err)
{
    while (p->pending_count && p->pending[p->pending_head].at <= t) {
        rtcosim_status st = plant_advance(p, p->pending[p->pending_head].at, err);
        if (st != RTCOSIM_OK)
            return st;
        memcpy(p->inputs, p->pending[p->pending_head].values, sizeof p->inputs);
        p->pending_head = (p->pending_head + 1) % ECU_PENDING_ACTUATIONS;
        p->pending_count--;
    }
    rtcosim_status st = plant_advance(p, t, err);
    return st == RTCOSIM_OK ? plant_read(p, sensors, err) : st;
}

rtcosim_status ecu_plant_actuate_later(ecu_plant *p, rtcosim_time_ns at, const double *values,
                                       rtcosim_error *err)
{
    if (p->pending_count == ECU_PENDING_ACTUATIONS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "passive plant: more than %d actuations"
                                 " pending", ECU_PENDING_ACTUATIONS);
    unsigned slot = (p->pending_head + p->pending_count) % ECU_PENDING_ACTUATIONS;
    p->pending[slot].at = at;
    memcpy(p->pending[slot].values, values, sizeof p->pending[slot].values);
    p->pending_count++;
    return RTCOSIM_OK;
}

/* ---- state saving for the speculative scheduler ----
 * The plant's own variables (time, inputs, pending actuations) followed by
 * its component's serialized state; the component snapshot handle is kept
 * (allocated on the first save) so that saving does not allocate. */
typedef struct plant_dynamics {
    rtcosim_time_ns time;
    double inputs[RTCOSIM_ECU_IO_MAX];
    unsigned pending_head, pending_count;
} plant_dynamics;

static rtcosim_status plant_component_size(ecu_plant *p, size_t *size, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_component_get_state(p->component, &p->scratch_state, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_serialized_state_size(p->component, p->scratch_state, size, err);
    return st;
}

size_t ecu_plant_snapshot_max(ecu_plant *p)
{
    size_t size = 0;
    if (!rtcosim_component_capabilities(p->component)->can_serialize_state ||
        plant_component_size(p, &size, NULL) != RTCOSIM_OK)
        return 0;
    return sizeof(plant_dynamics) + sizeof p->pending + size;
}

rtcosim_status ecu_plant_save(ecu_plant *p, unsigned char *buffer, size_t capacity, size_t *used,
                              rtcosim_error *err)
{
    size_t size = 0;
    rtcosim_status st = plant_component_size(p, &size, err);
    size_t total = sizeof(plant_dynamics) + sizeof p->pending + size;
    if (st == RTCOSIM_OK && total > capacity)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "plant state of %zu bytes exceeds %zu",
                               total, capacity);
    if (st != RTCOSIM_OK)
        return st;
    plant_dynamics d = {p->time, {0}, p->pending_head, p->pending_count};
    memcpy(d.inputs, p->inputs, sizeof d.inputs);
    memcpy(buffer, &d, sizeof d);
    memcpy(buffer + sizeof d, p->pending, sizeof p->pending);
    *used = total;
    return rtcosim_component_serialize_state(p->component, p->scratch_state,
                                             buffer + sizeof d + sizeof p->pending, size, err);
}

rtcosim_status ecu_plant_restore(ecu_plant *p, const unsigned char *buffer, size_t size,
                                 rtcosim_error *err)
{
    size_t head = sizeof(plant_dynamics) + sizeof p->pending;
    if (size < head)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "plant state of %zu bytes is too short",
                                 size);
    plant_dynamics d;
    memcpy(&d, buffer, sizeof d);
    rtcosim_status st = rtcosim_component_deserialize_state(p->component, buffer + head,
                                                            size - head, &p->scratch_state, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_set_state(p->component, p->scratch_state, err);
    if (st != RTCOSIM_OK)
        return st;
    p->time = d.time;
    memcpy(p->inputs, d.inputs, sizeof p->inputs);
    p->pending_head = d.pending_head;
    p->pending_count = d.pending_count;
    memcpy(p->pending, buffer + sizeof d, sizeof p->pending);
    return RTCOSIM_OK;
}

static size_t active_snapshot_max(const void *state)
{
    return ecu_plant_snapshot_max((ecu_plant *)state);
}

static rtcosim_status active_save(const void *state, void *buffer, size_t capacity, size_t *used,
                                  rtcosim_error *err)
{
    return ecu_plant_save((ecu_plant *)state, buffer, capacity, used, err);
}

static rtcosim_status active_restore(void *state, const void *buffer, size_t size,
                                     rtcosim_error *err)
{
    return ecu_plant_restore(state, buffer, size, err);
}

static rtcosim_status active_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, PLANT_EVENT_STEP, PRIO_STEP, NULL, 0, err);
}

static rtcosim_status active_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    ecu_plant *p = state;
    if (ev->type == PLANT_EVENT_ACTUATE) {
        memcpy(p->inputs, ev->payload, p->actuator_count * sizeof(double));
        return RTCOSIM_OK;
    }
    if (ev->type != PLANT_EVENT_STEP)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "plant: unexpected event type %u", ev->type);
    /* step [t, t + h] and tell the ECU what it will sense at t + h */
    rtcosim_status st = plant_step(p, p->step, err);
    double sensors[RTCOSIM_ECU_IO_MAX];
    if (st == RTCOSIM_OK)
        st = plant_read(p, sensors, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_lp_send(lp, rtcosim_ecu_lp(p->ecu), p->step, ECU_EVENT_SENSOR, PRIO_SENSOR,
                             sensors, p->sensor_count * sizeof(double), err);
    if (st == RTCOSIM_OK)
        st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), p->step, PLANT_EVENT_STEP, PRIO_STEP, NULL,
                             0, err);
    return st;
}

const rtcosim_lp_model ecu_plant_model = {.kind = "plant", .init = active_init,
                                          .event = active_event,
                                          .snapshot_max = active_snapshot_max,
                                          .save = active_save, .restore = active_restore};

void ecu_plant_free(ecu_plant *p)
{
    if (!p)
        return;
    if (p->start_state)
        rtcosim_component_free_state(p->component, p->start_state);
    if (p->scratch_state)
        rtcosim_component_free_state(p->component, p->scratch_state);
    rtcosim_component_free(p->component);
    free(p);
}
