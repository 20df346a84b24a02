/* Snapshots of a model-exchange FMU: the FMU's own state plus where the
 * integrator stood, and their serialized form; and the FMU's own serialized
 * state alone, as fmusim's state files hold it. */
#include <stdlib.h>
#include <string.h>

#include "core/component_call.h"
#include "fmi/me_internal.h"

rtcosim_status me_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    rtcosim_status st = me_close_input_event(me, err);
    if (st != RTCOSIM_OK)
        return st;
    me_snapshot *s = *state;
    bool fresh = s == NULL;
    if (fresh && !(s = calloc(1, sizeof *s)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me_who(me));
    st = me->base.get_state(self, &s->fmu_state, err);
    if (st != RTCOSIM_OK) {
        if (fresh)
            free(s);
        return st;
    }
    s->time_ns = me->time_ns;
    s->time = me->time;
    s->next_event_defined = me->next_event_defined;
    s->next_event_time = me->next_event_time;
    s->terminate_pending = me->terminate_pending;
    *state = s;
    return RTCOSIM_OK;
}

/* After the FMU took a state: the solver restarts from the continuous
 * states it holds (and, for Euler, from its event indicators). */
static rtcosim_status restart_from_fmu(struct rtcosim_me *me, rtcosim_error *err)
{
    me->needs_reinit = true;
    rtcosim_status st = RTCOSIM_OK;
    if (me->nx > 0 && (st = me->calls->get_states(me->f, me_states(me), me->nx, err)) != RTCOSIM_OK)
        return st;
    if (me->solver == RTCOSIM_ME_SOLVER_EULER)
        st = me_read_indicators(me, me->z_before, err);
    return st;
}

/* The FMU's state holds its continuous states; the solver restarts from them. */
rtcosim_status me_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    const me_snapshot *s = state;
    rtcosim_status st = me_close_input_event(me, err);
    if (st == RTCOSIM_OK)
        st = me->base.set_state(self, s->fmu_state, err);
    if (st != RTCOSIM_OK)
        return st;
    me->time_ns = s->time_ns;
    me->time = s->time;
    me->next_event_defined = s->next_event_defined;
    me->next_event_time = s->next_event_time;
    me->terminate_pending = s->terminate_pending;
    me->in_continuous_time = !s->terminate_pending;
    /* The FMU holds the inputs of that time again: read back as the last
     * set, so that setting them again is no input event (a rollback that
     * re-sets every input would otherwise make one at each restore). */
    me_inputs_reload(me);
    return restart_from_fmu(me, err);
}

void me_free_state(void *self, rtcosim_state state)
{
    rtcosim_fmu *f = self;
    me_snapshot *s = state;
    if (!s)
        return;
    f->me->base.free_state(self, s->fmu_state);
    free(s);
}

/* Serialized ME state: "RTME", a format version, the integrator's own
 * fields (time, pending time event, terminate request), then the FMU's
 * serialized state. Host byte order: a state belongs to this binary. */
static const char me_magic[4] = {'R', 'T', 'M', 'E'};
enum { ME_SERIAL_FORMAT = 1 };
typedef struct me_serial_header {
    char magic[4];
    uint32_t format;
    int64_t time_ns;
    double time;
    double next_event_time;
    uint8_t next_event_defined, terminate_pending, pad[6];
} me_serial_header;

rtcosim_status me_serialized_size(void *self, rtcosim_state state, size_t *size,
                                         rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    const me_snapshot *s = state;
    size_t inner = 0;
    rtcosim_status st = f->me->base.serialized_state_size(self, s->fmu_state, &inner, err);
    if (st == RTCOSIM_OK)
        *size = sizeof(me_serial_header) + inner;
    return st;
}

rtcosim_status me_serialize(void *self, rtcosim_state state, uint8_t *buffer, size_t size,
                                   rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    const me_snapshot *s = state;
    if (size < sizeof(me_serial_header))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: buffer of %zu bytes too small for state",
                                 me_who(f->me), size);
    me_serial_header h = {.format = ME_SERIAL_FORMAT,
                          .time_ns = s->time_ns,
                          .time = s->time,
                          .next_event_time = s->next_event_time,
                          .next_event_defined = s->next_event_defined,
                          .terminate_pending = s->terminate_pending};
    memcpy(h.magic, me_magic, sizeof me_magic);
    memcpy(buffer, &h, sizeof h);
    return f->me->base.serialize_state(self, s->fmu_state, buffer + sizeof h, size - sizeof h,
                                       err);
}

/* Into the given snapshot when there is one (its FMU state overwritten in
 * place where the FMU can), else a new one. */
rtcosim_status me_deserialize(void *self, const uint8_t *buffer, size_t size,
                                     rtcosim_state *state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    me_serial_header h;
    if (size < sizeof h)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: serialized state of %zu bytes is too short", me_who(me), size);
    memcpy(&h, buffer, sizeof h);
    if (memcmp(h.magic, me_magic, sizeof me_magic) != 0 || h.format != ME_SERIAL_FORMAT)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: not a serialized model-exchange state of rtcosim", me_who(me));
    me_snapshot *s = *state;
    bool fresh = s == NULL;
    if (fresh && !(s = calloc(1, sizeof *s)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me_who(me));
    rtcosim_state inner = s->fmu_state;
    rtcosim_status st =
        me->base.deserialize_state(self, buffer + sizeof h, size - sizeof h, &inner, err);
    if (st != RTCOSIM_OK) {
        if (fresh)
            free(s);
        return st;
    }
    if (s->fmu_state && inner != s->fmu_state)
        me->base.free_state(self, s->fmu_state); /* the FMU made a new one */
    s->fmu_state = inner;
    s->time_ns = h.time_ns;
    s->time = h.time;
    s->next_event_defined = h.next_event_defined != 0;
    s->next_event_time = h.next_event_time;
    s->terminate_pending = h.terminate_pending != 0;
    *state = s;
    return RTCOSIM_OK;
}

/* ---- fmusim's state files: the FMU's own bytes, no integrator fields ---- */

/* Restore the FMU's serialized state and restart the integrator from the
 * continuous states it holds, at the integrator's present time. The file
 * holds no event information: an event iteration there learns the next
 * time event (fmusim runs none, so after its restore a time event is not
 * known until some other event: the Reference Stair stops counting). */
rtcosim_status rtcosim_fmu_me_set_fmu_state(rtcosim_component *c, const uint8_t *bytes,
                                            size_t size, rtcosim_error *err)
{
    struct rtcosim_me *me = me_of(c, err);
    if (!me)
        return RTCOSIM_EINVAL;
    if (!bytes || size == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no FMU state", me_who(me));
    rtcosim_fmu *f = me->f;
    rtcosim_status st = me_close_input_event(me, err);
    rtcosim_state inner = NULL;
    if (st == RTCOSIM_OK) {
        component_call_mark m = component_call_enter(c, RTCOSIM_CALL_DESERIALIZE_STATE);
        st = me->base.deserialize_state(f, bytes, size, &inner, err);
        component_call_leave(m);
    }
    if (st == RTCOSIM_OK) {
        component_call_mark m = component_call_enter(c, RTCOSIM_CALL_SET_STATE);
        st = me->base.set_state(f, inner, err);
        component_call_leave(m);
    }
    if (inner)
        me->base.free_state(f, inner);
    if (st != RTCOSIM_OK)
        return st;
    me->next_event_defined = false;
    me->terminate_pending = false;
    me->in_continuous_time = true;
    me_inputs_reload(me); /* the FMU holds the inputs of that state */
    st = me_learn_events_after_restore(me, err);
    return st == RTCOSIM_OK ? restart_from_fmu(me, err) : st;
}

rtcosim_status rtcosim_fmu_me_get_fmu_state(rtcosim_component *c, uint8_t **bytes, size_t *size,
                                            rtcosim_error *err)
{
    struct rtcosim_me *me = me_of(c, err);
    if (!me)
        return RTCOSIM_EINVAL;
    rtcosim_fmu *f = me->f;
    *bytes = NULL;
    *size = 0;
    rtcosim_state inner = NULL;
    size_t n = 0;
    rtcosim_status st = me_close_input_event(me, err);
    component_call_mark m = component_call_enter(c, RTCOSIM_CALL_GET_STATE);
    if (st == RTCOSIM_OK)
        st = me->base.get_state(f, &inner, err);
    component_call_leave(m);
    m = component_call_enter(c, RTCOSIM_CALL_SERIALIZE_STATE);
    if (st == RTCOSIM_OK)
        st = me->base.serialized_state_size(f, inner, &n, err);
    uint8_t *out = NULL;
    if (st == RTCOSIM_OK && !(out = malloc(n ? n : 1)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me_who(me));
    if (st == RTCOSIM_OK)
        st = me->base.serialize_state(f, inner, out, n, err);
    component_call_leave(m);
    if (inner)
        me->base.free_state(f, inner);
    if (st != RTCOSIM_OK) {
        free(out);
        return st;
    }
    *bytes = out;
    *size = n;
    return RTCOSIM_OK;
}
