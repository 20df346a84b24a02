/* The ECU emulator LP (see ecu.h for the execution model): task releases and
 * received frames make jobs ready; when the core is free the most urgent job
 * starts, its code runs at once against the inputs of that instant, and its
 * outputs are sent to arrive when it ends, start + cycles / clock. */
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecu_internal.h"

static void *grow(void *array, size_t *capacity, size_t element)
{
    size_t cap = *capacity ? 2 * *capacity : 4;
    void *p = realloc(array, cap * element);
    if (p)
        *capacity = cap;
    return p;
}

/* ---- job execution ---- */

/* Prefix the error with the ECU's name unless the message (an emulated
 * core's: src/vecu) already starts with it. */
static rtcosim_status name_ecu(const rtcosim_ecu *ecu, rtcosim_error *err)
{
    char head[96];
    snprintf(head, sizeof head, "ecu '%s': ", ecu->name);
    if (err && strncmp(err->message, head, strlen(head)) == 0)
        return err->status;
    return rtcosim_error_prefix(err, "%s", head);
}

static rtcosim_status flush_outputs(rtcosim_lp *lp, rtcosim_ecu *ecu, rtcosim_ecu_io *io,
                                    rtcosim_time_ns exec, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    for (unsigned i = 0; i < io->tx_count && st == RTCOSIM_OK; i++) {
        st = rtcosim_can_transmit(lp, ecu->config.bus, ecu->node, &io->tx[i], exec, err);
        ecu->core.stats.frames_sent++;
    }
    if (st != RTCOSIM_OK || !io->actuated || !ecu->plant || ecu->config.actuator_count == 0)
        return st;
    if (ecu->plant->mode == RTCOSIM_PLANT_ACTIVE)
        return rtcosim_lp_send(lp, ecu->plant->lp, exec, PLANT_EVENT_ACTUATE, PRIO_ACTUATE,
                               ecu->core.actuators, ecu->config.actuator_count * sizeof(double),
                               err);
    return ecu_plant_actuate_later(ecu->plant, io->now + exec, ecu->core.actuators, err);
}

static rtcosim_status dispatch(rtcosim_lp *lp, rtcosim_ecu *ecu, rtcosim_error *err)
{
    ecu_core *core = &ecu->core;
    core->dispatch_pending = false;
    if (core->busy)
        return RTCOSIM_OK;
    rtcosim_time_ns now = rtcosim_lp_now(lp);
    rtcosim_ecu_io io = {.ecu = ecu, .now = now, .err = err};
    rtcosim_time_ns exec;
    rtcosim_status st = RTCOSIM_OK;
    /* interrupts first, in arrival order; then the most urgent pending task */
    if (core->isr_count) {
        isr_job job = core->isr_queue[core->isr_head];
        core->isr_head = (core->isr_head + 1) % ECU_ISR_QUEUE;
        core->isr_count--;
        const ecu_rx *rx = &ecu->rx[job.rx];
        io.release = job.release;
        exec = rx->exec_ns;
        io.code = rx->code;
        if (ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_PASSIVE)
            st = ecu_plant_sample(ecu->plant, now, core->sensors, err);
        if (st == RTCOSIM_OK)
            st = rx->fn(&io, ecu->software, &job.frame, err);
        if (cycles_to_ns(ecu, io.cycles) > exec)
            exec = cycles_to_ns(ecu, io.cycles);
        core->stats.isr_runs++;
    } else {
        long best = -1;
        for (size_t i = 0; i < ecu->task_count; i++)
            if (ecu->task_states[i].pending &&
                (best < 0 || ecu->tasks[i].priority < ecu->tasks[best].priority))
                best = (long)i;
        if (best < 0)
            return RTCOSIM_OK;
        ecu_task *task = &ecu->tasks[best];
        task_state *ts = &ecu->task_states[best];
        ts->pending = false;
        io.release = ts->pending_release;
        exec = task->exec_ns;
        io.code = task->code;
        if (ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_PASSIVE)
            st = ecu_plant_sample(ecu->plant, now, core->sensors, err);
        if (st == RTCOSIM_OK)
            st = task->fn(&io, ecu->software, err);
        if (cycles_to_ns(ecu, io.cycles) > exec)
            exec = cycles_to_ns(ecu, io.cycles);
        ts->stats.runs++;
        ts->stats.last_start = now;
        ts->stats.last_end = now + exec;
        if (now + exec - io.release > ts->stats.max_response)
            ts->stats.max_response = now + exec - io.release;
    }
    if (st == RTCOSIM_OK)
        st = io.status;
    if (st != RTCOSIM_OK)
        return name_ecu(ecu, err);
    core->stats.jobs++;
    core->stats.busy_ns += exec;
    core->busy = true;
    st = flush_outputs(lp, ecu, &io, exec, err);
    if (st != RTCOSIM_OK)
        return st;
    return rtcosim_lp_send(lp, ecu->lp, exec, ECU_EVENT_DONE, PRIO_DONE, NULL, 0, err);
}

static rtcosim_status request_dispatch(rtcosim_lp *lp, rtcosim_ecu *ecu, rtcosim_error *err)
{
    if (ecu->core.busy || ecu->core.dispatch_pending)
        return RTCOSIM_OK;
    ecu->core.dispatch_pending = true;
    /* zero delay: after everything else that happens at this instant */
    return rtcosim_lp_send(lp, ecu->lp, 0, ECU_EVENT_DISPATCH, 0, NULL, 0, err);
}

static rtcosim_status ecu_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    rtcosim_ecu *ecu = state;
    ecu_core *core = &ecu->core;
    switch (ev->type) {
    case ECU_EVENT_SENSOR:
        memcpy(core->sensors, ev->payload, ecu->config.sensor_count * sizeof(double));
        return RTCOSIM_OK;
    case RTCOSIM_CAN_EVENT_RX: {
        const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
        /* a classic controller: CAN FD and XL frames are not for it (the bus
         * sends it none; an FD-tolerant controller ignores them) */
        long k = rx && rx->format == RTCOSIM_CAN_FORMAT_CLASSIC
                     ? find_rx(ecu, key_of(rx->frame.id, rx->frame.extended))
                     : -1;
        if (k < 0)
            return RTCOSIM_OK; /* not accepted: the bus filters, but be tolerant */
        core->stats.frames_received++;
        ecu->mailboxes[k] = (mailbox){true, rx->frame};
        if (!ecu->rx[k].fn)
            return RTCOSIM_OK;
        if (core->isr_count == ECU_ISR_QUEUE) {
            core->stats.lost_interrupts++;
            return RTCOSIM_OK;
        }
        core->isr_queue[(core->isr_head + core->isr_count) % ECU_ISR_QUEUE] =
            (isr_job){(uint32_t)k, ev->time, rx->frame};
        core->isr_count++;
        return request_dispatch(lp, ecu, err);
    }
    case ECU_EVENT_RELEASE: {
        uint32_t t;
        memcpy(&t, ev->payload, sizeof t);
        task_state *ts = &ecu->task_states[t];
        ts->stats.releases++;
        ts->stats.last_release = ev->time;
        if (ts->pending) {
            ts->stats.overruns++; /* OSEK: one activation at a time */
        } else {
            ts->pending = true;
            ts->pending_release = ev->time;
        }
        rtcosim_status st = rtcosim_lp_send(lp, ecu->lp, ecu->tasks[t].period, ECU_EVENT_RELEASE,
                                            PRIO_RELEASE, &t, sizeof t, err);
        return st == RTCOSIM_OK ? request_dispatch(lp, ecu, err) : st;
    }
    case ECU_EVENT_DONE:
        core->busy = false;
        return request_dispatch(lp, ecu, err);
    case ECU_EVENT_DISPATCH:
        return dispatch(lp, ecu, err);
    default:
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': unexpected event type %u",
                                 ecu->name, ev->type);
    }
}

static rtcosim_status ecu_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    rtcosim_ecu *ecu = state;
    if (!ecu->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "ecu '%s': not connected (call"
                                 " rtcosim_ecu_connect)", ecu->name);
    memset(&ecu->core, 0, sizeof ecu->core);
    memcpy(ecu->core.actuators, ecu->actuator_init, sizeof ecu->core.actuators);
    ecu_software_scatter(ecu, ecu->software_init);
    if (ecu->so)
        ecu_so_run_init(ecu->so);
    memset(ecu->mailboxes, 0, ecu->rx_count * sizeof *ecu->mailboxes);
    for (size_t i = 0; i < ecu->task_count; i++) {
        ecu->task_states[i] = (task_state){.stats.name = ecu->tasks[i].name};
        uint32_t t = (uint32_t)i;
        rtcosim_status st = rtcosim_lp_send(lp, ecu->lp, ecu->tasks[i].offset, ECU_EVENT_RELEASE,
                                            PRIO_RELEASE, &t, sizeof t, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (ecu->plant) {
        rtcosim_status st = ecu_plant_reset(ecu->plant, rtcosim_lp_now(lp), ecu->actuator_init,
                                            ecu->core.sensors, err);
        if (st != RTCOSIM_OK)
            return name_ecu(ecu, err);
    }
    return RTCOSIM_OK;
}

/* State saving for the speculative scheduler: the flat snapshot, then a
 * passive plant's state (it lives in this LP). */
static size_t passive_plant_max(const rtcosim_ecu *ecu)
{
    return ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_PASSIVE
               ? ecu_plant_snapshot_max(ecu->plant) : 0;
}

bool rtcosim_ecu_can_save_state(const rtcosim_ecu *ecu, const char **reason)
{
    const char *why = NULL;
    if (ecu->so)
        (void)ecu_so_capturable(ecu->so, &why);
    if (!why && ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_PASSIVE &&
        passive_plant_max(ecu) == 0)
        why = "its passive plant cannot save its state";
    if (reason)
        *reason = why;
    return why == NULL;
}

static size_t ecu_snapshot_max(const void *state)
{
    const rtcosim_ecu *ecu = state;
    if (!rtcosim_ecu_can_save_state(ecu, NULL))
        return 0; /* run conservatively */
    /* the compact layout of ecu_save: at most the flat one and a count */
    return rtcosim_ecu_state_size(ecu) + sizeof(unsigned) + passive_plant_max(ecu);
}

/* The snapshot holds the ISR queue's waiting jobs only, not its 32 slots:
 * measured on the vehicle, copying the whole flat state (1.3 kB) per event
 * was the largest part of state saving. Layout: software, the core up to
 * its ISR queue, the number of waiting jobs and the jobs from the head, the
 * rest of the core, mailboxes, tasks, then a passive plant's state. */
static rtcosim_status ecu_save(const void *state, void *buffer, size_t capacity, size_t *used,
                               rtcosim_error *err)
{
    const rtcosim_ecu *ecu = state;
    const ecu_core *c = &ecu->core;
    size_t head = offsetof(ecu_core, isr_queue);
    size_t tail = sizeof *c - offsetof(ecu_core, isr_head);
    size_t own = ecu->config.software_size + head + sizeof c->isr_count +
                 c->isr_count * sizeof(isr_job) + tail + ecu->rx_count * sizeof(mailbox) +
                 ecu->task_count * sizeof(task_state);
    if (own > capacity)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': state buffer too small",
                                 ecu->name);
    unsigned char *p = buffer;
    ecu_software_gather(ecu, p);
    p += ecu->config.software_size;
    memcpy(p, c, head);
    p += head;
    memcpy(p, &c->isr_count, sizeof c->isr_count);
    p += sizeof c->isr_count;
    for (unsigned i = 0; i < c->isr_count; i++, p += sizeof(isr_job))
        memcpy(p, &c->isr_queue[(c->isr_head + i) % ECU_ISR_QUEUE], sizeof(isr_job));
    memcpy(p, &c->isr_head, tail);
    p += tail;
    memcpy(p, ecu->mailboxes, ecu->rx_count * sizeof(mailbox));
    p += ecu->rx_count * sizeof(mailbox);
    memcpy(p, ecu->task_states, ecu->task_count * sizeof(task_state));
    size_t plant = 0;
    rtcosim_status st = RTCOSIM_OK;
    if (ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_PASSIVE)
        st = ecu_plant_save(ecu->plant, (unsigned char *)buffer + own, capacity - own, &plant,
                            err);
    *used = own + plant;
    return st;
}

static rtcosim_status ecu_restore(void *state, const void *buffer, size_t size,
                                  rtcosim_error *err)
{
    rtcosim_ecu *ecu = state;
    ecu_core *c = &ecu->core;
    size_t head = offsetof(ecu_core, isr_queue);
    size_t tail = sizeof *c - offsetof(ecu_core, isr_head);
    const unsigned char *p = buffer;
    unsigned count;
    size_t fixed = ecu->config.software_size + head + sizeof count + tail +
                   ecu->rx_count * sizeof(mailbox) + ecu->task_count * sizeof(task_state);
    if (size < fixed)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': a state of %zu bytes is too"
                                 " short", ecu->name, size);
    ecu_software_scatter(ecu, p);
    p += ecu->config.software_size;
    memcpy(c, p, head);
    p += head;
    memcpy(&count, p, sizeof count);
    p += sizeof count;
    if (count > ECU_ISR_QUEUE || size < fixed + count * sizeof(isr_job))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': a state with %u interrupts"
                                 " waiting does not fit", ecu->name, count);
    for (unsigned i = 0; i < count; i++, p += sizeof(isr_job))
        memcpy(&c->isr_queue[i], p, sizeof(isr_job));
    memcpy(&c->isr_head, p, tail);
    c->isr_head = 0; /* the jobs were saved in order from the head */
    p += tail;
    memcpy(ecu->mailboxes, p, ecu->rx_count * sizeof(mailbox));
    p += ecu->rx_count * sizeof(mailbox);
    for (size_t i = 0; i < ecu->task_count; i++) {
        memcpy(&ecu->task_states[i], p, sizeof(task_state));
        ecu->task_states[i].stats.name = ecu->tasks[i].name; /* pointers stay ours */
        p += sizeof(task_state);
    }
    size_t own = (size_t)(p - (const unsigned char *)buffer);
    if (ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_PASSIVE)
        return ecu_plant_restore(ecu->plant, p, size - own, err);
    return RTCOSIM_OK;
}

static const rtcosim_lp_model ecu_model = {.kind = "ecu", .init = ecu_init, .event = ecu_event,
                                           .snapshot_max = ecu_snapshot_max, .save = ecu_save,
                                           .restore = ecu_restore};

/* ---- construction ---- */

rtcosim_status rtcosim_ecu_create(rtcosim_events *sim, const rtcosim_ecu_config *config,
                                  rtcosim_ecu **out, rtcosim_error *err)
{
    *out = NULL;
    const char *name = config->name && *config->name ? config->name : NULL;
    if (!name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu: a name is required");
    if (config->clock_hz == 0 || config->clock_hz > UINT64_C(100000000000))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': clock of %" PRIu64 " Hz is not"
                                 " in (0, 100 GHz]", name, config->clock_hz);
    if (config->sensor_count > RTCOSIM_ECU_IO_MAX || config->actuator_count > RTCOSIM_ECU_IO_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': at most %d sensors and %d"
                                 " actuators", name, RTCOSIM_ECU_IO_MAX, RTCOSIM_ECU_IO_MAX);
    const char *so = config->shared_object;
    if (so && (config->software_size || config->software_init))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': %s: a shared object's software"
                                 " state is its own data (software_size must be 0)", name, so);
    rtcosim_ecu *ecu = calloc(1, sizeof *ecu);
    if (!ecu)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
    ecu->sim = sim;
    ecu->config = *config;
    ecu->config.shared_object = NULL; /* ecu_so_path keeps its own copy */
    ecu->name = strdup(name);
    if (!ecu->name) {
        rtcosim_ecu_free(ecu);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
    }
    ecu->config.name = ecu->name;
    rtcosim_status st;
    if (so) {
        st = ecu_so_open(ecu, so, err);
        if (st != RTCOSIM_OK) {
            rtcosim_ecu_free(ecu);
            return rtcosim_error_prefix(err, "ecu '%s': ", name);
        }
    } else {
        ecu->software = calloc(1, config->software_size ? config->software_size : 1);
        ecu->software_init = calloc(1, config->software_size ? config->software_size : 1);
        ecu->ranges = calloc(1, sizeof *ecu->ranges);
        if (!ecu->software || !ecu->software_init || !ecu->ranges) {
            rtcosim_ecu_free(ecu);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
        }
        ecu->ranges[0] = (ecu_range){ecu->software, config->software_size};
        ecu->range_count = config->software_size ? 1 : 0;
        if (config->software_init && config->software_size)
            memcpy(ecu->software_init, config->software_init, config->software_size);
    }
    if (config->actuator_init)
        memcpy(ecu->actuator_init, config->actuator_init,
               config->actuator_count * sizeof(double));
    st = rtcosim_events_add_lp(sim, ecu->name, &ecu_model, ecu, RTCOSIM_LP_NO_GROUP, &ecu->lp,
                               err);
    if (st != RTCOSIM_OK) {
        rtcosim_ecu_free(ecu);
        return st;
    }
    *out = ecu;
    return RTCOSIM_OK;
}

void rtcosim_ecu_free(rtcosim_ecu *ecu)
{
    if (!ecu)
        return;
    for (size_t i = 0; i < ecu->task_count; i++)
        free(ecu->tasks[i].name);
    free(ecu->tasks);
    free(ecu->rx);
    free(ecu->tx);
    free(ecu->task_states);
    free(ecu->mailboxes);
    ecu_plant_free(ecu->plant);
    free(ecu->software);
    free(ecu->software_init);
    free(ecu->ranges);
    ecu_so_close(ecu->so);
    free(ecu->name);
    free(ecu);
}

const char *rtcosim_ecu_name(const rtcosim_ecu *ecu) { return ecu->name; }
rtcosim_lp_id rtcosim_ecu_lp(const rtcosim_ecu *ecu) { return ecu->lp; }

rtcosim_lp_id rtcosim_ecu_plant_lp(const rtcosim_ecu *ecu)
{
    return ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_ACTIVE ? ecu->plant->lp
                                                                  : RTCOSIM_LP_NO_GROUP;
}
rtcosim_time_ns rtcosim_ecu_response_delay(const rtcosim_ecu *ecu) { return ecu->response_delay; }
void *rtcosim_ecu_software(rtcosim_ecu *ecu) { return ecu->software; }
size_t rtcosim_ecu_software_size(const rtcosim_ecu *ecu) { return ecu->config.software_size; }
void rtcosim_ecu_software_read(const rtcosim_ecu *ecu, void *buffer)
{
    ecu_software_gather(ecu, buffer);
}
const char *rtcosim_ecu_shared_object(const rtcosim_ecu *ecu)
{
    return ecu->so ? ecu_so_path(ecu->so) : NULL;
}

static rtcosim_status check_open(const rtcosim_ecu *ecu, rtcosim_error *err)
{
    if (ecu->connected)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "ecu '%s': configuration changed after"
                                 " connect", ecu->name);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_add_task(rtcosim_ecu *ecu, const char *name, rtcosim_time_ns period,
                                    rtcosim_time_ns offset, uint64_t cycles, int priority,
                                    rtcosim_ecu_task_fn fn, rtcosim_error *err)
{
    return ecu_add_task(ecu, name, period, offset, cycles, priority, fn, NULL, err);
}

rtcosim_status ecu_add_task(rtcosim_ecu *ecu, const char *name, rtcosim_time_ns period,
                            rtcosim_time_ns offset, uint64_t cycles, int priority,
                            rtcosim_ecu_task_fn fn, void *code, rtcosim_error *err)
{
    rtcosim_status st = check_open(ecu, err);
    if (st != RTCOSIM_OK)
        return st;
    if (!name || !fn || period <= 0 || offset < 0 || cycles > UINT64_C(1000000000))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': task '%s' needs code, a positive"
                                 " period, a non-negative offset and at most 1e9 cycles",
                                 ecu->name, name ? name : "?");
    if (cycles_to_ns(ecu, cycles) > period)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': task '%s' runs %" PRIu64 " cycles"
                                 " = %" PRId64 " ns, longer than its period %" PRId64 " ns",
                                 ecu->name, name, cycles, cycles_to_ns(ecu, cycles), period);
    if (ecu->task_count == ecu->task_capacity) {
        ecu_task *t = grow(ecu->tasks, &ecu->task_capacity, sizeof *t);
        if (!t)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
        ecu->tasks = t;
    }
    char *copy = strdup(name);
    if (!copy)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
    ecu->tasks[ecu->task_count++] = (ecu_task){copy, period, offset, cycles_to_ns(ecu, cycles),
                                               cycles, priority, fn, code};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_add_can_rx(rtcosim_ecu *ecu, uint32_t id, bool extended,
                                      uint64_t cycles, rtcosim_ecu_isr_fn fn, rtcosim_error *err)
{
    return ecu_add_can_rx(ecu, id, extended, cycles, fn, NULL, err);
}

rtcosim_status ecu_add_can_rx(rtcosim_ecu *ecu, uint32_t id, bool extended, uint64_t cycles,
                              rtcosim_ecu_isr_fn fn, void *code, rtcosim_error *err)
{
    rtcosim_status st = check_open(ecu, err);
    if (st != RTCOSIM_OK)
        return st;
    if (!ecu->config.bus)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': receives CAN id 0x%" PRIX32
                                 " but has no bus", ecu->name, id);
    rtcosim_can_frame f = {.id = id, .extended = extended};
    if ((st = rtcosim_can_frame_check(&f, err)) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "ecu '%s': ", ecu->name);
    if (find_rx(ecu, key_of(id, extended)) >= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': CAN id 0x%" PRIX32 " received"
                                 " twice", ecu->name, id);
    if (cycles > UINT64_C(1000000000))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': ISR of 0x%" PRIX32 " runs more"
                                 " than 1e9 cycles", ecu->name, id);
    if (ecu->rx_count == ecu->rx_capacity) {
        ecu_rx *r = grow(ecu->rx, &ecu->rx_capacity, sizeof *r);
        if (!r)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
        ecu->rx = r;
    }
    ecu->rx[ecu->rx_count++] = (ecu_rx){key_of(id, extended), cycles_to_ns(ecu, cycles), fn, code};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_add_can_tx(rtcosim_ecu *ecu, uint32_t id, bool extended, uint8_t dlc,
                                      rtcosim_error *err)
{
    rtcosim_status st = check_open(ecu, err);
    if (st != RTCOSIM_OK)
        return st;
    if (!ecu->config.bus)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': sends CAN id 0x%" PRIX32
                                 " but has no bus", ecu->name, id);
    rtcosim_can_frame f = {.id = id, .extended = extended, .dlc = dlc};
    if ((st = rtcosim_can_frame_check(&f, err)) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "ecu '%s': ", ecu->name);
    if (ecu->tx_count == ecu->tx_capacity) {
        ecu_tx *t = grow(ecu->tx, &ecu->tx_capacity, sizeof *t);
        if (!t)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
        ecu->tx = t;
    }
    ecu->tx[ecu->tx_count++] = (ecu_tx){key_of(id, extended), dlc};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_attach_plant(rtcosim_ecu *ecu, rtcosim_component *plant,
                                        rtcosim_plant_mode mode, rtcosim_time_ns step,
                                        const uint32_t *sensor_vrs, const uint32_t *actuator_vrs,
                                        rtcosim_error *err)
{
    rtcosim_status st = check_open(ecu, err);
    if (st == RTCOSIM_OK && ecu->plant)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': already has a plant", ecu->name);
    if (st == RTCOSIM_OK && step <= 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': plant step must be positive",
                               ecu->name);
    ecu_plant *p = st == RTCOSIM_OK ? calloc(1, sizeof *p) : NULL;
    if (st == RTCOSIM_OK && !p)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
    if (st != RTCOSIM_OK) {
        rtcosim_component_free(plant);
        return st;
    }
    p->ecu = ecu;
    p->component = plant;
    p->mode = mode;
    p->step = step;
    p->sensor_count = ecu->config.sensor_count;
    p->actuator_count = ecu->config.actuator_count;
    if (p->sensor_count)
        memcpy(p->sensor_vrs, sensor_vrs, p->sensor_count * sizeof *sensor_vrs);
    if (p->actuator_count)
        memcpy(p->actuator_vrs, actuator_vrs, p->actuator_count * sizeof *actuator_vrs);
    ecu->plant = p;
    char instance[256];
    snprintf(instance, sizeof instance, "%s.plant", ecu->name);
    st = ecu_plant_prepare(p, instance, err);
    if (st == RTCOSIM_OK && mode == RTCOSIM_PLANT_ACTIVE)
        st = rtcosim_events_add_lp(ecu->sim, instance, &ecu_plant_model, p, ecu->lp, &p->lp, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "ecu '%s': plant: ", ecu->name);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_connect(rtcosim_ecu *ecu, rtcosim_error *err)
{
    if (ecu->connected)
        return RTCOSIM_OK;
    rtcosim_time_ns delay = RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < ecu->task_count; i++)
        if (ecu->tasks[i].exec_ns < delay)
            delay = ecu->tasks[i].exec_ns;
    for (size_t i = 0; i < ecu->rx_count; i++)
        if (ecu->rx[i].fn && ecu->rx[i].exec_ns < delay)
            delay = ecu->rx[i].exec_ns;
    if (delay == RTCOSIM_TIME_MAX)
        delay = 0; /* no code: it never sends, any bound holds */
    ecu->response_delay = delay;
    ecu->task_states = calloc(ecu->task_count ? ecu->task_count : 1, sizeof *ecu->task_states);
    ecu->mailboxes = calloc(ecu->rx_count ? ecu->rx_count : 1, sizeof *ecu->mailboxes);
    if (!ecu->task_states || !ecu->mailboxes)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
    rtcosim_status st = RTCOSIM_OK;
    if (ecu->config.bus) {
        st = rtcosim_can_bus_add_node(ecu->config.bus, ecu->name, ecu->lp, delay, &ecu->node, err);
        for (size_t i = 0; i < ecu->tx_count && st == RTCOSIM_OK; i++)
            st = rtcosim_can_bus_add_tx(ecu->config.bus, ecu->node, ecu->tx[i].key & 0x7FFFFFFFu,
                                        ecu->tx[i].key >> 31, ecu->tx[i].dlc, err);
        for (size_t i = 0; i < ecu->rx_count && st == RTCOSIM_OK; i++)
            st = rtcosim_can_bus_add_rx(ecu->config.bus, ecu->node, ecu->rx[i].key & 0x7FFFFFFFu,
                                        ecu->rx[i].key >> 31, err);
    }
    if (st == RTCOSIM_OK && ecu->plant && ecu->plant->mode == RTCOSIM_PLANT_ACTIVE) {
        /* the plant may run one response delay ahead of the ECU; the ECU
         * learns the plant's outputs one plant step ahead */
        if (ecu->config.actuator_count)
            st = rtcosim_events_add_link(ecu->sim, ecu->lp, ecu->plant->lp, delay, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_events_add_link(ecu->sim, ecu->plant->lp, ecu->lp, ecu->plant->step, err);
        /* the actuations are a sampled signal the plant may predict under
         * the speculative scheduler instead of waiting for the ECU (one
         * response delay of lookahead). The sensors are not declared: they
         * reach the ECU a whole plant step ahead, so it seldom lacks them,
         * and measured on the vehicle (N = 16) predicting them too cost a
         * fifth more CPU for no fewer rollbacks. */
        if (st == RTCOSIM_OK && ecu->config.actuator_count)
            st = rtcosim_events_add_prediction(ecu->sim, ecu->lp, ecu->plant->lp,
                                               PLANT_EVENT_ACTUATE, ecu->config.actuator_count,
                                               NULL, err);
    }
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "ecu '%s': ", ecu->name);
    ecu->connected = true;
    return RTCOSIM_OK;
}
