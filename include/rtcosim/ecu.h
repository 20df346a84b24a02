/* ECU emulator as a logical process: the control software of one control
 * unit as periodic tasks and CAN receive interrupts on an emulated processor
 * clock, with a plant it senses and actuates, on a CAN bus.
 *
 * Execution model: one core, fixed-priority non-preemptive scheduling (OSEK
 * "non-preemptive" tasks; interrupts are served before tasks when the core
 * becomes free). A job's code runs when the job starts and sees the sensor
 * values and received frames of that instant; its outputs (actuator values,
 * CAN frames) appear when the job ends, start + cycles / clock. Hence the
 * ECU's response delay, the shortest job, is its lookahead towards the plant
 * and the bus: the plant may run that far ahead of the ECU (the external
 * peripheral layer), and ECUs run ahead of each other by the shortest CAN
 * frame (the mutual peripheral layer); each ECU advances to the earliest time
 * its inputs grant, which the event kernel's conservative schedulers compute.
 *
 * Plants are components (rtcosim_component). An active plant is an LP of its
 * own stepping at a fixed step and sending its outputs to the ECU one step
 * ahead; a passive plant lives inside the ECU's LP and is stepped up to the
 * time when a job samples it. */
#ifndef RTCOSIM_ECU_H
#define RTCOSIM_ECU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can.h"
#include "rtcosim/component.h"
#include "rtcosim/events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RTCOSIM_ECU_IO_MAX 8      /* sensors and actuators per ECU */
#define RTCOSIM_ECU_TX_PER_JOB 8  /* CAN frames one job may send */

typedef struct rtcosim_ecu rtcosim_ecu;
typedef struct rtcosim_ecu_io rtcosim_ecu_io; /* a running job's view (opaque) */

typedef rtcosim_status (*rtcosim_ecu_task_fn)(rtcosim_ecu_io *io, void *software,
                                              rtcosim_error *err);
typedef rtcosim_status (*rtcosim_ecu_isr_fn)(rtcosim_ecu_io *io, void *software,
                                             const rtcosim_can_frame *frame, rtcosim_error *err);

typedef struct rtcosim_ecu_config {
    const char *name;
    uint64_t clock_hz;          /* emulated core clock, e.g. 200000000 */
    size_t software_size;       /* bytes of the control software's state */
    const void *software_init;  /* its contents at the start of every run (NULL: zeros) */
    rtcosim_can_bus *bus;       /* NULL: no CAN */
    size_t sensor_count, actuator_count; /* <= RTCOSIM_ECU_IO_MAX */
    const double *actuator_init; /* actuator values before the first job (NULL: zeros) */
    void *user;                 /* handed to task and interrupt code (rtcosim_ecu_io_user) */
    /* Software in the loop: the path of ECU code compiled for the host as a
     * shared object (contract: rtcosim/ecu_so.h). A private copy is loaded;
     * its writable data is the software state (software_size and
     * software_init must be 0 and NULL), captured and restored without
     * save/restore code of its own. Tasks and interrupts name its entry
     * points (rtcosim_ecu_add_task_symbol, rtcosim_ecu_add_can_rx_symbol).
     * A file that cannot be read or loaded, is not a shared object of this
     * host or has thread-local variables: EINVAL/EIO naming the file. */
    const char *shared_object;
} rtcosim_ecu_config;

typedef enum rtcosim_plant_mode {
    RTCOSIM_PLANT_ACTIVE = 0, /* own LP, fixed step, sends outputs one step ahead */
    RTCOSIM_PLANT_PASSIVE     /* stepped inside the ECU when a job samples */
} rtcosim_plant_mode;

typedef struct rtcosim_ecu_task_stats {
    const char *name;
    uint64_t releases, runs, overruns; /* overrun: released while still pending */
    rtcosim_time_ns last_release, last_start, last_end;
    rtcosim_time_ns max_response; /* end - release */
} rtcosim_ecu_task_stats;

typedef struct rtcosim_ecu_stats {
    uint64_t jobs, isr_runs, lost_interrupts, frames_sent, frames_received;
    rtcosim_time_ns busy_ns; /* core busy time */
} rtcosim_ecu_stats;

/* Add the ECU's LP. */
rtcosim_status rtcosim_ecu_create(rtcosim_events *sim, const rtcosim_ecu_config *config,
                                  rtcosim_ecu **out, rtcosim_error *err);
void rtcosim_ecu_free(rtcosim_ecu *ecu); /* frees its plant component too */
const char *rtcosim_ecu_name(const rtcosim_ecu *ecu);
rtcosim_lp_id rtcosim_ecu_lp(const rtcosim_ecu *ecu);
/* The LP of an active plant; RTCOSIM_LP_NO_GROUP for none or a passive one. */
rtcosim_lp_id rtcosim_ecu_plant_lp(const rtcosim_ecu *ecu);

/* A periodic task: released at offset + k * period, runs `cycles` core
 * cycles. Lower priority numbers run first. */
rtcosim_status rtcosim_ecu_add_task(rtcosim_ecu *ecu, const char *name, rtcosim_time_ns period,
                                    rtcosim_time_ns offset, uint64_t cycles, int priority,
                                    rtcosim_ecu_task_fn fn, rtcosim_error *err);
/* Receive a CAN identifier into a mailbox (rtcosim_ecu_io_can_read), and,
 * with an ISR (fn != NULL), run `cycles` of interrupt code on every frame. */
rtcosim_status rtcosim_ecu_add_can_rx(rtcosim_ecu *ecu, uint32_t id, bool extended,
                                      uint64_t cycles, rtcosim_ecu_isr_fn fn, rtcosim_error *err);
/* The same for an ECU on a shared object (config.shared_object): the code is
 * the object's exported function `symbol` (signatures in rtcosim/ecu_so.h).
 * A symbol the object does not export: ENOTFOUND naming object and symbol. */
rtcosim_status rtcosim_ecu_add_task_symbol(rtcosim_ecu *ecu, const char *name,
                                           rtcosim_time_ns period, rtcosim_time_ns offset,
                                           uint64_t cycles, int priority, const char *symbol,
                                           rtcosim_error *err);
rtcosim_status rtcosim_ecu_add_can_rx_symbol(rtcosim_ecu *ecu, uint32_t id, bool extended,
                                             uint64_t cycles, const char *symbol,
                                             rtcosim_error *err);
/* The address of the exported variable `symbol` of an ECU's shared object
 * (to read its state between runs, or to set a calibration value before
 * the first run, see rtcosim_ecu_so_set); NULL when absent or not a
 * shared-object ECU. */
void *rtcosim_ecu_so_symbol(rtcosim_ecu *ecu, const char *symbol);
/* Write `size` bytes to the exported variable `symbol`, both now and in the
 * image every run starts from (a calibration value). ENOTFOUND when absent,
 * EINVAL when the bytes do not lie inside the captured writable data. */
rtcosim_status rtcosim_ecu_so_set(rtcosim_ecu *ecu, const char *symbol, const void *value,
                                  size_t size, rtcosim_error *err);
/* Whether the speculative scheduler can save and restore this ECU's state;
 * when not, *reason (may be NULL) says why in a phrase (static or owned by
 * the ECU). An ECU whose passive plant cannot save its state cannot either. */
bool rtcosim_ecu_can_save_state(const rtcosim_ecu *ecu, const char **reason);
/* Declare a frame the ECU sends (its TX database). */
rtcosim_status rtcosim_ecu_add_can_tx(rtcosim_ecu *ecu, uint32_t id, bool extended, uint8_t dlc,
                                      rtcosim_error *err);
/* Attach a plant. The ECU takes ownership of the component (created, not
 * yet instantiated) and drives its lifecycle; sensor i reads output
 * sensor_vrs[i] (FLOAT64), actuator i writes input actuator_vrs[i]. */
rtcosim_status rtcosim_ecu_attach_plant(rtcosim_ecu *ecu, rtcosim_component *plant,
                                        rtcosim_plant_mode mode, rtcosim_time_ns step,
                                        const uint32_t *sensor_vrs, const uint32_t *actuator_vrs,
                                        rtcosim_error *err);
/* After the tasks, interrupts and plant: join the bus (before
 * rtcosim_can_bus_connect) and declare the links to the plant. */
rtcosim_status rtcosim_ecu_connect(rtcosim_ecu *ecu, rtcosim_error *err);
/* The response delay: the shortest job's execution time. */
rtcosim_time_ns rtcosim_ecu_response_delay(const rtcosim_ecu *ecu);

/* Statistics of the last run. */
void rtcosim_ecu_stats_get(const rtcosim_ecu *ecu, rtcosim_ecu_stats *stats);
size_t rtcosim_ecu_task_count(const rtcosim_ecu *ecu);
void rtcosim_ecu_task_stats_get(const rtcosim_ecu *ecu, size_t task, rtcosim_ecu_task_stats *out);
/* Current sensor / actuator values (between runs, or from its own handlers). */
double rtcosim_ecu_sensor(const rtcosim_ecu *ecu, size_t index);
double rtcosim_ecu_actuator(const rtcosim_ecu *ecu, size_t index);

/* The emulator's own state (software, sensors, actuators, mailboxes, task
 * bookkeeping) as a flat snapshot, for checkpoints and rollback. Not while a
 * run is processing this ECU's events. */
size_t rtcosim_ecu_state_size(const rtcosim_ecu *ecu);
rtcosim_status rtcosim_ecu_save_state(const rtcosim_ecu *ecu, void *buffer, size_t size,
                                      rtcosim_error *err);
rtcosim_status rtcosim_ecu_restore_state(rtcosim_ecu *ecu, const void *buffer, size_t size,
                                         rtcosim_error *err);
/* The software state block (read/write between runs) and its size; NULL for
 * a shared-object ECU, whose state is its object's writable data: copy it
 * with rtcosim_ecu_software_read (software_size bytes). */
void *rtcosim_ecu_software(rtcosim_ecu *ecu);
size_t rtcosim_ecu_software_size(const rtcosim_ecu *ecu);
void rtcosim_ecu_software_read(const rtcosim_ecu *ecu, void *buffer);
/* The shared object of a shared-object ECU (as given), else NULL. */
const char *rtcosim_ecu_shared_object(const rtcosim_ecu *ecu);

/* ---- ECU code from a shared object as a co-simulation component ----
 * The application code of rtcosim/ecu_so.h as a component of a system (an
 * SSD component whose source is the .so, see rtcosim/system.h's
 * org.rtcosim.ecu annotation): sensor i is the FLOAT64 input sensors[i],
 * actuator i the FLOAT64 output actuators[i]; each step runs the jobs
 * released in [t, t + h) on one non-preemptive core in priority order, each
 * at its start with the step's inputs, its actuations visible `execution`
 * after its start (no direct feedthrough); CAN reads find nothing and sends
 * are refused (-1: a system of components has no bus). Its state, the
 * object's writable data and the task bookkeeping, is saved and restored
 * like an FMU's (get/set/serialize state), so the speculative master rolls
 * it back; an object importing state outside itself (malloc, rand, ...)
 * loads with a warning and without state support. Errors as for
 * config.shared_object above, and ENOTFOUND for a missing entry point. */
#define RTCOSIM_ECU_SO_TASKS_MAX 16

typedef struct rtcosim_ecu_so_task {
    const char *entry;         /* exported void f(const rtcosim_ecu_so_io *) */
    rtcosim_time_ns period;    /* > 0 */
    rtcosim_time_ns offset;    /* >= 0: first release at start + offset */
    rtcosim_time_ns execution; /* >= 0: outputs appear this long after the job starts */
    int priority;              /* lower runs first */
} rtcosim_ecu_so_task;

typedef struct rtcosim_ecu_so_component_config {
    const char *name; /* for messages */
    const char *shared_object;
    const char *const *sensors;   /* input names, index = sensor index */
    size_t sensor_count;          /* <= RTCOSIM_ECU_IO_MAX */
    const char *const *actuators; /* output names, index = actuator index */
    size_t actuator_count;        /* <= RTCOSIM_ECU_IO_MAX */
    const rtcosim_ecu_so_task *tasks;
    size_t task_count; /* 1..RTCOSIM_ECU_SO_TASKS_MAX */
} rtcosim_ecu_so_component_config;

/* Load a private copy of the object (two components on one file keep their
 * own variables) and wrap it; the configuration is copied. */
rtcosim_status rtcosim_ecu_so_component_create(const rtcosim_ecu_so_component_config *config,
                                               rtcosim_component **out, rtcosim_error *err);

/* ---- for task and interrupt code ---- */

rtcosim_time_ns rtcosim_ecu_io_now(const rtcosim_ecu_io *io);     /* job start */
rtcosim_time_ns rtcosim_ecu_io_release(const rtcosim_ecu_io *io); /* job release */
double rtcosim_ecu_io_sensor(const rtcosim_ecu_io *io, size_t index);
/* Written at the job's end. */
void rtcosim_ecu_io_actuate(rtcosim_ecu_io *io, size_t index, double value);
/* The latest frame received with this identifier; false when none yet. An
 * identifier missing from the RX database fails the job (and the run). */
bool rtcosim_ecu_io_can_read(rtcosim_ecu_io *io, uint32_t id, bool extended,
                             rtcosim_can_frame *frame);
/* config.user of the ECU. */
void *rtcosim_ecu_io_user(const rtcosim_ecu_io *io);
/* The job's executed cycles, when its code measures them (an emulated core):
 * the job then ends after max(cycles, its declared cycles); the declared
 * cycles stay the lower bound that makes the response delay. */
void rtcosim_ecu_io_set_cycles(rtcosim_ecu_io *io, uint64_t cycles);
/* Queue a frame from the TX database; it reaches the bus at the job's end. */
rtcosim_status rtcosim_ecu_io_can_send(rtcosim_ecu_io *io, uint32_t id, bool extended,
                                       const uint8_t *data, uint8_t dlc, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
