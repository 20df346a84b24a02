/* The ECU emulator's statistics, its state as one flat block (save/restore
 * between runs), and the job's view of it (sensors, actuators, mailboxes,
 * frames to send): what a task's or an interrupt's code calls. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ecu_internal.h"

/* ---- statistics and state ---- */

void rtcosim_ecu_stats_get(const rtcosim_ecu *ecu, rtcosim_ecu_stats *stats)
{
    *stats = ecu->core.stats;
}

size_t rtcosim_ecu_task_count(const rtcosim_ecu *ecu) { return ecu->task_count; }

void rtcosim_ecu_task_stats_get(const rtcosim_ecu *ecu, size_t task, rtcosim_ecu_task_stats *out)
{
    memset(out, 0, sizeof *out);
    if (task < ecu->task_count && ecu->task_states)
        *out = ecu->task_states[task].stats;
}

double rtcosim_ecu_sensor(const rtcosim_ecu *ecu, size_t index)
{
    return index < RTCOSIM_ECU_IO_MAX ? ecu->core.sensors[index] : 0.0;
}

double rtcosim_ecu_actuator(const rtcosim_ecu *ecu, size_t index)
{
    return index < RTCOSIM_ECU_IO_MAX ? ecu->core.actuators[index] : 0.0;
}

size_t rtcosim_ecu_state_size(const rtcosim_ecu *ecu)
{
    return ecu->config.software_size + sizeof ecu->core + ecu->rx_count * sizeof(mailbox) +
           ecu->task_count * sizeof(task_state);
}

rtcosim_status rtcosim_ecu_save_state(const rtcosim_ecu *ecu, void *buffer, size_t size,
                                      rtcosim_error *err)
{
    const char *reason;
    if (!rtcosim_ecu_can_save_state(ecu, &reason))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "ecu '%s': cannot save its state: %s",
                                 ecu->name, reason);
    if (!ecu->connected || size < rtcosim_ecu_state_size(ecu))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': state needs %zu bytes and a"
                                 " connected ECU", ecu->name, rtcosim_ecu_state_size(ecu));
    unsigned char *p = buffer;
    ecu_software_gather(ecu, p);
    p += ecu->config.software_size;
    memcpy(p, &ecu->core, sizeof ecu->core);
    p += sizeof ecu->core;
    memcpy(p, ecu->mailboxes, ecu->rx_count * sizeof(mailbox));
    p += ecu->rx_count * sizeof(mailbox);
    memcpy(p, ecu->task_states, ecu->task_count * sizeof(task_state));
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_restore_state(rtcosim_ecu *ecu, const void *buffer, size_t size,
                                         rtcosim_error *err)
{
    if (!ecu->connected || size != rtcosim_ecu_state_size(ecu))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': a state of %zu bytes does not"
                                 " fit (%zu expected)", ecu->name, size,
                                 rtcosim_ecu_state_size(ecu));
    const unsigned char *p = buffer;
    ecu_software_scatter(ecu, p);
    p += ecu->config.software_size;
    memcpy(&ecu->core, p, sizeof ecu->core);
    p += sizeof ecu->core;
    memcpy(ecu->mailboxes, p, ecu->rx_count * sizeof(mailbox));
    p += ecu->rx_count * sizeof(mailbox);
    for (size_t i = 0; i < ecu->task_count; i++) {
        memcpy(&ecu->task_states[i], p, sizeof(task_state));
        ecu->task_states[i].stats.name = ecu->tasks[i].name; /* pointers stay ours */
        p += sizeof(task_state);
    }
    return RTCOSIM_OK;
}

/* ---- the job's view ---- */

rtcosim_time_ns rtcosim_ecu_io_now(const rtcosim_ecu_io *io) { return io->now; }
rtcosim_time_ns rtcosim_ecu_io_release(const rtcosim_ecu_io *io) { return io->release; }

void *rtcosim_ecu_io_user(const rtcosim_ecu_io *io) { return io->ecu->config.user; }
void rtcosim_ecu_io_set_cycles(rtcosim_ecu_io *io, uint64_t cycles) { io->cycles = cycles; }

double rtcosim_ecu_io_sensor(const rtcosim_ecu_io *io, size_t index)
{
    return index < io->ecu->config.sensor_count ? io->ecu->core.sensors[index] : 0.0;
}

void rtcosim_ecu_io_actuate(rtcosim_ecu_io *io, size_t index, double value)
{
    if (index >= io->ecu->config.actuator_count) {
        if (io->status == RTCOSIM_OK)
            io->status = rtcosim_error_set(io->err, RTCOSIM_EINVAL, "actuator %zu of %zu",
                                           index, io->ecu->config.actuator_count);
        return;
    }
    io->ecu->core.actuators[index] = value;
    io->actuated = true;
}

bool rtcosim_ecu_io_can_read(rtcosim_ecu_io *io, uint32_t id, bool extended,
                             rtcosim_can_frame *frame)
{
    long k = find_rx(io->ecu, key_of(id, extended));
    if (k < 0) {
        if (io->status == RTCOSIM_OK)
            io->status = rtcosim_error_set(io->err, RTCOSIM_ENOTFOUND, "reads CAN id 0x%" PRIX32
                                           " that is not in its RX database", id);
        return false;
    }
    if (!io->ecu->mailboxes[k].full)
        return false;
    *frame = io->ecu->mailboxes[k].frame;
    return true;
}

rtcosim_status rtcosim_ecu_io_can_send(rtcosim_ecu_io *io, uint32_t id, bool extended,
                                       const uint8_t *data, uint8_t dlc, rtcosim_error *err)
{
    if (!io->ecu->config.bus)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s' has no CAN bus", io->ecu->name);
    if (dlc > RTCOSIM_CAN_DATA_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can frame 0x%" PRIX32 ": payload of %u"
                                 " bytes exceeds the 8 bytes of classic CAN", id, dlc);
    if (io->tx_count == RTCOSIM_ECU_TX_PER_JOB)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "more than %d frames in one job",
                                 RTCOSIM_ECU_TX_PER_JOB);
    rtcosim_can_frame *f = &io->tx[io->tx_count++];
    *f = (rtcosim_can_frame){.id = id, .extended = extended, .dlc = dlc};
    if (dlc && data)
        memcpy(f->data, data, dlc);
    return RTCOSIM_OK;
}
