/* The contract between rtcosim's ECU emulator and ECU application code
 * compiled for the host as a shared object (software in the loop). This is
 * the one header such code includes; it needs nothing else from rtcosim and
 * is not linked against it.
 *
 * The code is ordinary C that keeps its state in global and static
 * variables. rtcosim loads a private copy of the object per ECU (two ECUs on
 * one object do not share variables) and captures the state itself: the
 * object's writable data (.data, .bss and the like, not the GOT or what
 * RELRO protects) is copied at every snapshot the speculative scheduler
 * takes and written back on a rollback, and reset to its contents at load
 * before every run. What the object keeps elsewhere is not captured; so an
 * object that imports an allocator (malloc, calloc, realloc, free, strdup,
 * operator new, mmap, ...) or a C library function with hidden state (rand,
 * srand, random, strtok, ...) is loaded, but never speculated on (it runs
 * conservatively, and a warning names the import), and one with thread-local
 * variables is refused.
 *
 * Entry points (exported with default visibility, C linkage):
 *   void NAME(const rtcosim_ecu_so_io *io);                      a task
 *   void NAME(const rtcosim_ecu_so_io *io, uint32_t id,
 *             const uint8_t *data, unsigned dlc);                 a CAN receive interrupt
 *   void ecu_init(void);                                          optional: after the
 *                                                                 reset at each run's start
 * The names of tasks and interrupts are given by whoever configures the ECU
 * (rtcosim_ecu_add_task_symbol, rtcosim_ecu_add_can_rx_symbol; for the
 * example vehicle of `rtcosim events`, see examples/ecus/README.md). */
#ifndef RTCOSIM_ECU_SO_H
#define RTCOSIM_ECU_SO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTCOSIM_ECU_SO_VERSION 1u
/* A CAN identifier with this bit set is an extended (29-bit) one. */
#define RTCOSIM_ECU_SO_EXTENDED UINT32_C(0x80000000)

typedef struct rtcosim_ecu_so_io rtcosim_ecu_so_io;
struct rtcosim_ecu_so_io {
    unsigned version; /* RTCOSIM_ECU_SO_VERSION */
    void *context;    /* rtcosim's, for the functions below */
    /* The job's start time in seconds of simulated time. */
    double (*now)(const rtcosim_ecu_so_io *io);
    /* Sensor value `index` (0 outside the ECU's sensors). */
    double (*sensor)(const rtcosim_ecu_so_io *io, unsigned index);
    /* Set actuator `index`; sent to the plant when the job ends. */
    void (*actuate)(const rtcosim_ecu_so_io *io, unsigned index, double value);
    /* The last frame received with `id` into data[0..7]: its length, or -1
     * when none has arrived yet. */
    int (*can_read)(const rtcosim_ecu_so_io *io, uint32_t id, uint8_t data[8]);
    /* Send a frame (it goes on the bus when the job ends): 0, or -1 when
     * refused (the job then fails with the reason). */
    int (*can_send)(const rtcosim_ecu_so_io *io, uint32_t id, const uint8_t *data,
                    unsigned dlc);
    /* The cycles this job ran, when the code measures them (else the
     * declared ones stand). */
    void (*set_cycles)(const rtcosim_ecu_so_io *io, uint64_t cycles);
};

#ifdef __cplusplus
}
#endif
#endif
