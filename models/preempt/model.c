/* Preempt: a long low-priority partition and a fast high-priority one (FMI
 * 3.0 chapter 5), for an importer that preempts between critical sections.
 *   slow (vr 20, priority 2): periodic 10 ms from 0; busy for `noncritical`
 *        seconds of wall time, then inside lockPreemption/unlockPreemption
 *        for `critical` seconds (with a nested lock/unlock pair half way,
 *        where an importer that ignores nesting would wrongly preempt), then
 *        `tail` seconds outside again
 *   fast (vr 21, priority 1): periodic 5 ms from 1 ms; counts where slow was
 * With the defaults (2, 5, 0.5 ms) in 10 ms real-time frames fast is
 * released at 1 ms inside slow's non-critical part and at 6 ms inside its
 * critical section: a preemptive importer runs it at slow's lock (2 ms) and
 * at its unlock (7 ms), 1 ms late each time (plus slow's own lateness). `log` keeps the events of
 * slow's latest activation as digits: 1 slow begins, 2 enters its critical
 * section, 3 leaves it, 4 ends, 5 fast runs meanwhile (152354 above). */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "se_model.h"

typedef struct preempt {
    double noncritical, critical, tail;
    int32_t slow_count, fast_count, fast_in_noncritical, fast_in_critical, log;
    int phase; /* 0 slow not running, 1 non-critical, 2 critical */
} preempt;

enum { VR_SLOW = 20, VR_FAST = 21 };

#define OUT(vr, name, field, description)                                                  \
    {name, vr, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,             \
     offsetof(preempt, field), NULL, NULL, description, 0, {0, 0}}
#define PAR(vr, name, field, start, description)                                           \
    {name, vr, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,             \
     offsetof(preempt, field), start, "s", description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    PAR(1, "noncritical", noncritical, "0.002", "slow's wall time before its critical section"),
    PAR(2, "critical", critical, "0.005", "slow's wall time inside its critical section"),
    PAR(3, "tail", tail, "0.0005", "slow's wall time after its critical section"),
    OUT(4, "slow_count", slow_count, "activations of slow"),
    OUT(5, "fast_count", fast_count, "activations of fast"),
    OUT(6, "fast_in_noncritical", fast_in_noncritical,
        "activations of fast while slow ran outside its critical section"),
    OUT(7, "fast_in_critical", fast_in_critical,
        "activations of fast while slow was inside its critical section (a wrong importer)"),
    OUT(8, "log", log, "events of slow's latest activation as digits"),
};

static const se_clock_def clocks[] = {
    {"slow", VR_SLOW, true, "constant", "0.01", "0", 2, "every 10 ms from 0"},
    {"fast", VR_FAST, true, "constant", "0.005", "0.001", 1, "every 5 ms from 1 ms"},
};

static const se_clocked_def clocked[] = {
    {4, "20"}, {8, "20"}, {5, "21"}, {6, "21"}, {7, "21"},
};

static void record(preempt *d, int event)
{
    if (d->log < 100000000)
        d->log = d->log * 10 + event;
}

/* Busy for `seconds` of wall time: the partition's computation. */
static void spin(double seconds)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9 < seconds);
}

static model_status activate(model_instance *inst, void *data, uint32_t clock, double time)
{
    (void)time;
    preempt *d = data;
    switch (clock) {
    case VR_FAST:
        d->fast_count++;
        if (d->phase == 1)
            d->fast_in_noncritical++;
        if (d->phase == 2)
            d->fast_in_critical++;
        if (d->phase)
            record(d, 5);
        return MODEL_OK;
    case VR_SLOW:
        d->slow_count++;
        d->log = 0;
        d->phase = 1;
        record(d, 1);
        spin(d->noncritical);
        se_lock_preemption(inst);
        d->phase = 2;
        record(d, 2);
        spin(d->critical / 2);
        se_lock_preemption(inst); /* nested: still critical, no preemption point */
        spin(d->critical / 2);
        se_unlock_preemption(inst);
        record(d, 3);
        d->phase = 1;
        se_unlock_preemption(inst);
        spin(d->tail);
        record(d, 4);
        d->phase = 0;
        return MODEL_OK;
    default:
        return MODEL_ERROR;
    }
}

static model_status get_interval(model_instance *inst, void *data, uint32_t clock,
                                 double *interval, int *qualifier)
{
    (void)inst, (void)data, (void)clock, (void)interval, (void)qualifier;
    return MODEL_ERROR; /* both clocks are declared constant */
}

static model_status get_clock(model_instance *inst, void *data, uint32_t clock, bool *ticked)
{
    (void)inst, (void)data, (void)clock, (void)ticked;
    return MODEL_ERROR; /* no output clocks */
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst, (void)data;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)data, (void)t, (void)h;
    model_log(inst, MODEL_LOG_STATUS_ERROR, "Preempt runs in scheduled execution only");
    return MODEL_ERROR;
}

const model_def model_definition = {
    .model_name = "Preempt",
    .description = "A long low-priority partition with a critical section and a fast "
                   "high-priority one (FMI 3.0 scheduled execution)",
    .instantiation_token = "{8d2c6b1e-4f3a-4e7d-a5c9-1b2e3f4a5d60}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(preempt),
    .initialize = initialize,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 0.1,
    .default_step_size = 0.01,
};

const se_model_def se_model_definition = {
    .clocks = clocks,
    .clock_count = sizeof clocks / sizeof clocks[0],
    .clocked = clocked,
    .clocked_count = sizeof clocked / sizeof clocked[0],
    .activate = activate,
    .get_interval = get_interval,
    .get_clock = get_clock,
};
