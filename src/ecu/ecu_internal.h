/* Internal structures of the ECU emulator shared by the ECU LP (ecu.c) and
 * the plant coupling (plant.c). */
#ifndef RTCOSIM_ECU_INTERNAL_H
#define RTCOSIM_ECU_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/ecu.h"

enum {
    ECU_EVENT_SENSOR = 0xEC01,   /* plant -> ECU: sensor values */
    ECU_EVENT_RELEASE = 0xEC02,  /* self: task release */
    ECU_EVENT_DONE = 0xEC03,     /* self: the running job ends */
    ECU_EVENT_DISPATCH = 0xEC04, /* self, zero delay: choose the next job */
    PLANT_EVENT_ACTUATE = 0xEC11, /* ECU -> plant: actuator values */
    PLANT_EVENT_STEP = 0xEC12,    /* self: next plant step */
};

/* Same-time order at an ECU: plant outputs, then received frames (priority 1,
 * set by the bus), then releases, then job ends; dispatch runs after all of
 * them (zero delay, so one depth later). At a plant: actuators, then steps. */
enum { PRIO_SENSOR = 0, PRIO_RELEASE = 2, PRIO_DONE = 3, PRIO_ACTUATE = 0, PRIO_STEP = 1 };

#define ECU_PENDING_ACTUATIONS 16

typedef struct ecu_plant {
    rtcosim_ecu *ecu;
    rtcosim_component *component;
    rtcosim_plant_mode mode;
    rtcosim_time_ns step;
    uint32_t sensor_vrs[RTCOSIM_ECU_IO_MAX], actuator_vrs[RTCOSIM_ECU_IO_MAX];
    size_t sensor_count, actuator_count;
    rtcosim_lp_id lp; /* active plants */
    rtcosim_state start_state; /* snapshot after initialization, for later runs */
    rtcosim_state scratch_state; /* reused by the speculative scheduler's state saving */
    bool initialized;
    /* per run */
    rtcosim_time_ns time;
    double inputs[RTCOSIM_ECU_IO_MAX];
    /* passive plants: actuator values waiting for their job's end */
    struct {
        rtcosim_time_ns at;
        double values[RTCOSIM_ECU_IO_MAX];
    } pending[ECU_PENDING_ACTUATIONS];
    unsigned pending_head, pending_count;
} ecu_plant;

#define ECU_ISR_QUEUE 32

typedef struct ecu_task {
    char *name;
    rtcosim_time_ns period, offset, exec_ns;
    uint64_t cycles;
    int priority;
    rtcosim_ecu_task_fn fn;
    void *code; /* a shared object's entry point (fn is then its trampoline) */
} ecu_task;

typedef struct ecu_rx {
    uint32_t key; /* id | extended << 31 */
    rtcosim_time_ns exec_ns;
    rtcosim_ecu_isr_fn fn;
    void *code;
} ecu_rx;

typedef struct ecu_tx {
    uint32_t key;
    uint8_t dlc;
} ecu_tx;

/* Per-run state of a task and of a mailbox (part of the snapshot). */
typedef struct task_state {
    bool pending;
    rtcosim_time_ns pending_release;
    rtcosim_ecu_task_stats stats;
} task_state;

typedef struct mailbox {
    bool full;
    rtcosim_can_frame frame;
} mailbox;

typedef struct isr_job {
    uint32_t rx;
    rtcosim_time_ns release;
    rtcosim_can_frame frame;
} isr_job;

/* Everything of the emulator that changes during a run besides the software
 * block, the mailboxes and the task states: one struct, so a snapshot is a
 * few memcpy. */
typedef struct ecu_core {
    double sensors[RTCOSIM_ECU_IO_MAX], actuators[RTCOSIM_ECU_IO_MAX];
    bool busy, dispatch_pending;
    isr_job isr_queue[ECU_ISR_QUEUE];
    unsigned isr_head, isr_count;
    rtcosim_ecu_stats stats;
} ecu_core;

/* One piece of the software's memory. */
typedef struct ecu_range {
    unsigned char *address;
    size_t size;
} ecu_range;

/* A loaded private copy of a shared object (ecu_so.c). */
typedef struct ecu_so {
    char *path; /* as given, for messages */
    void *handle;
    void (*init)(void);
    ecu_range *ranges;          /* its writable data in this process */
    size_t range_count, size;   /* size: the ranges' total */
    unsigned char *start_image; /* the ranges after loading (constructors run) */
    uintptr_t base;             /* load address (link-time addresses are offsets from it) */
    uintptr_t low, high;        /* its loaded segments' extent, from base */
    char outside_state[64];     /* the import that keeps state outside, or "" */
    char reason[160];
} ecu_so;

struct rtcosim_ecu {
    rtcosim_events *sim;
    rtcosim_lp_id lp;
    char *name;
    rtcosim_ecu_config config;
    /* The software state: the owned block `software` (one range), or a
     * shared object's writable data (`so`, its ranges; software NULL).
     * config.software_size is their total, software_init their start image. */
    void *software, *software_init;
    ecu_range *ranges;
    size_t range_count;
    ecu_so *so;
    double actuator_init[RTCOSIM_ECU_IO_MAX];
    ecu_task *tasks;
    size_t task_count, task_capacity;
    ecu_rx *rx;
    size_t rx_count, rx_capacity;
    ecu_tx *tx;
    size_t tx_count, tx_capacity;
    ecu_plant *plant;
    uint32_t node;
    bool connected;
    rtcosim_time_ns response_delay;
    /* per run */
    ecu_core core;
    task_state *task_states;
    mailbox *mailboxes;
};

struct rtcosim_ecu_io {
    rtcosim_ecu *ecu;
    rtcosim_time_ns now, release;
    bool actuated;
    uint64_t cycles; /* measured by the job's code; 0: the declared ones */
    unsigned tx_count;
    rtcosim_can_frame tx[RTCOSIM_ECU_TX_PER_JOB];
    rtcosim_error *err;
    rtcosim_status status; /* first error of actuate (which returns nothing) */
    void *code; /* the job's shared-object entry point, or NULL */
};

/* Copy the software's ranges out to / in from one flat buffer. */
static inline void ecu_software_gather(const rtcosim_ecu *ecu, unsigned char *out)
{
    for (size_t i = 0; i < ecu->range_count; out += ecu->ranges[i].size, i++)
        memcpy(out, ecu->ranges[i].address, ecu->ranges[i].size);
}

static inline void ecu_software_scatter(rtcosim_ecu *ecu, const unsigned char *in)
{
    for (size_t i = 0; i < ecu->range_count; in += ecu->ranges[i].size, i++)
        memcpy(ecu->ranges[i].address, in, ecu->ranges[i].size);
}

static inline uint32_t key_of(uint32_t id, bool extended)
{
    return id | (extended ? UINT32_C(0x80000000) : 0);
}

static inline rtcosim_time_ns cycles_to_ns(const rtcosim_ecu *ecu, uint64_t cycles)
{
    /* rounded up: an output never appears before the last cycle ends */
    return (rtcosim_time_ns)((cycles * (uint64_t)RTCOSIM_NS_PER_S + ecu->config.clock_hz - 1) /
                             ecu->config.clock_hz);
}

static inline long find_rx(const rtcosim_ecu *ecu, uint32_t key)
{
    for (size_t i = 0; i < ecu->rx_count; i++)
        if (ecu->rx[i].key == key)
            return (long)i;
    return -1;
}

/* ecu.c: the tasks and interrupts of both kinds of code */
rtcosim_status ecu_add_task(rtcosim_ecu *ecu, const char *name, rtcosim_time_ns period,
                            rtcosim_time_ns offset, uint64_t cycles, int priority,
                            rtcosim_ecu_task_fn fn, void *code, rtcosim_error *err);
rtcosim_status ecu_add_can_rx(rtcosim_ecu *ecu, uint32_t id, bool extended, uint64_t cycles,
                              rtcosim_ecu_isr_fn fn, void *code, rtcosim_error *err);

/* ecu_so.c: software in the loop. Load a private copy of `path` with its
 * writable data found (`owner`, e.g. "ecu 'engine'", names the loader in the
 * warning about state outside the object). */
rtcosim_status ecu_so_load(const char *path, const char *owner, ecu_so **out,
                           rtcosim_error *err);
/* The same into ecu->so, its writable data as ecu->ranges and the start image
 * as ecu->software_init (config.software_size their total). */
rtcosim_status ecu_so_open(rtcosim_ecu *ecu, const char *path, rtcosim_error *err);
/* The object's exported symbol, or NULL. */
void *ecu_so_entry(const ecu_so *so, const char *symbol);
/* A flat copy of the data of another load of the same file (at from_base)
 * made fit for this one: every aligned word pointing into that load's
 * segments is moved by the difference of the bases (pointers to its own
 * variables and code; an integer that happens to lie in that address range
 * would be moved too, which ECU code does not meet in practice). */
void ecu_so_rebase(const ecu_so *so, unsigned char *data, uintptr_t from_base);
/* Copy the object's writable data out to / in from one flat buffer of so->size bytes. */
static inline void ecu_so_gather(const ecu_so *so, unsigned char *out)
{
    for (size_t i = 0; i < so->range_count; out += so->ranges[i].size, i++)
        memcpy(out, so->ranges[i].address, so->ranges[i].size);
}
static inline void ecu_so_scatter(ecu_so *so, const unsigned char *in)
{
    for (size_t i = 0; i < so->range_count; in += so->ranges[i].size, i++)
        memcpy(so->ranges[i].address, in, so->ranges[i].size);
}
void ecu_so_close(ecu_so *so);
/* At each run's start, after the reset to the start image: ecu_init(). */
void ecu_so_run_init(ecu_so *so);
/* false with the reason when the object's state escapes its data. */
bool ecu_so_capturable(const ecu_so *so, const char **reason);
const char *ecu_so_path(const ecu_so *so);

/* plant.c */
rtcosim_status ecu_plant_prepare(ecu_plant *p, const char *instance, rtcosim_error *err);
rtcosim_status ecu_plant_reset(ecu_plant *p, rtcosim_time_ns now, const double *inputs,
                               double *sensors, rtcosim_error *err);
/* Passive: step to `t` applying due actuations, then read the sensors. */
rtcosim_status ecu_plant_sample(ecu_plant *p, rtcosim_time_ns t, double *sensors,
                                rtcosim_error *err);
rtcosim_status ecu_plant_actuate_later(ecu_plant *p, rtcosim_time_ns at, const double *values,
                                       rtcosim_error *err);
extern const rtcosim_lp_model ecu_plant_model;
/* State saving of the plant for the speculative scheduler (0: cannot). */
size_t ecu_plant_snapshot_max(ecu_plant *p);
rtcosim_status ecu_plant_save(ecu_plant *p, unsigned char *buffer, size_t capacity, size_t *used,
                              rtcosim_error *err);
rtcosim_status ecu_plant_restore(ecu_plant *p, const unsigned char *buffer, size_t size,
                                 rtcosim_error *err);
void ecu_plant_free(ecu_plant *p);

#endif
