/* Internal structures of the ECU emulator shared by the ECU LP (ecu.c) and
 * the plant coupling (plant.c). */
#ifndef RTCOSIM_ECU_INTERNAL_H
#define RTCOSIM_ECU_INTERNAL_H

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
