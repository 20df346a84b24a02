/* Tasks: a control unit's task set as an FMI 3.0 scheduled-execution FMU
 * (chapter 5), the project's own counterpart of the Reference FMUs' Clocks.
 * Three model partitions with three priorities, whose clock references run
 * against their priorities so that an importer ordering by reference fails:
 *   fast      (vr 102, priority 1): constant periodic, interval 1 s, shift 0.5 s;
 *             at its 2nd tick it starts the countdown with 1 s, at its 4th with 0 s
 *   trigger   (vr 101, priority 2): triggered by the importer; adds input u to sum
 *             and ticks the output clock alarm when sum first reaches 5
 *   countdown (vr 100, priority 3): countdown, its interval set by fast
 *   slow      (vr 104, priority 0): fixed periodic, 10 s from 0.25 s unless the importer
 *             sets another interval in Initialization Mode; counts into local slow_count
 * `order` records the partitions of the latest activation time as digits
 * (1 fast, 2 trigger, 3 countdown): 123 = fast, then trigger, then countdown. */
#include <stddef.h>
#include <stdint.h>

#include "se_model.h"

typedef struct tasks {
    int32_t slow_count;
    int32_t fast_count, trigger_count, countdown_count, sum, alarms, frame_length, order, u;
    model_binary frame;
    double order_time;       /* activation time `order` refers to */
    bool order_started;
    double countdown_interval;
    int countdown_qualifier; /* 0 not yet known, 1 unchanged, 2 changed */
    bool alarm;              /* output clock, reset when read */
} tasks;

enum { VR_FAST = 102, VR_TRIGGER = 101, VR_COUNTDOWN = 100, VR_ALARM = 103, VR_SLOW = 104 };

#define OUT(vr, name, field, description)                                                  \
    {name, vr, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,             \
     offsetof(tasks, field), NULL, NULL, description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    OUT(1, "fast_count", fast_count, "ticks of fast"),
    OUT(2, "trigger_count", trigger_count, "ticks of trigger"),
    OUT(3, "countdown_count", countdown_count, "ticks of countdown"),
    OUT(4, "sum", sum, "sum of u over the ticks of trigger"),
    OUT(5, "alarms", alarms, "ticks of alarm"),
    OUT(6, "frame_length", frame_length, "bytes of frame at the last tick of trigger"),
    OUT(7, "order", order, "partitions of the latest activation time, in the order they ran"),
    {"u", 8, MODEL_INT32, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(tasks, u), "0", NULL, "added to sum when trigger ticks", 0, {0, 0}},
    {"frame", 9, MODEL_BINARY, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(tasks, frame), "00", NULL, "a frame of at most 4 bytes, read when trigger ticks",
     0, {0, 0}},
    {"slow_count", 10, MODEL_INT32, MODEL_LOCAL, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(tasks, slow_count), NULL, NULL, "ticks of slow", 0, {0, 0}},
};

static const se_clock_def clocks[] = {
    {"countdown", VR_COUNTDOWN, true, "countdown", NULL, NULL, 3, "started by fast"},
    {"trigger", VR_TRIGGER, true, "triggered", NULL, NULL, 2, "ticked by the importer"},
    {"fast", VR_FAST, true, "constant", "1.0", "0.5", 1, "every second from 0.5 s"},
    {"alarm", VR_ALARM, false, "triggered", NULL, NULL, -1, "sum reached 5"},
    {"slow", VR_SLOW, true, "fixed", "10", "0.25", 0, "every 10 s from 0.25 s unless set"},
};

static const se_clocked_def clocked[] = {
    {1, "102"}, {2, "101"}, {3, "100"}, {4, "101"}, {5, "103"},
    {6, "101"}, {8, "101"}, {9, "101"}, {10, "104"},
};

static const se_binary_def binaries[] = {{9, 4, "application/x-rtcosim-frame"}};

/* The partitions of one activation time, as digits in the order they ran. */
static void record_order(tasks *d, int partition, double time)
{
    if (!d->order_started || time != d->order_time)
        d->order = 0;
    d->order = d->order * 10 + partition;
    d->order_time = time;
    d->order_started = true;
}

static model_status activate(model_instance *inst, void *data, uint32_t clock, double time)
{
    tasks *d = data;
    switch (clock) {
    case VR_FAST:
        /* Highest priority: nothing preempts it, so it takes no lock. */
        d->fast_count++;
        record_order(d, 1, time);
        if (d->fast_count == 2 || d->fast_count == 4) {
            d->countdown_interval = d->fast_count == 2 ? 1.0 : 0.0;
            d->countdown_qualifier = 2;
            se_clock_update(inst);
        }
        return MODEL_OK;
    case VR_TRIGGER: {
        se_lock_preemption(inst); /* sum and order are shared with fast's instant */
        d->trigger_count++;
        int32_t before = d->sum;
        d->sum += d->u;
        d->frame_length = (int32_t)d->frame.size;
        bool alarm = before < 5 && d->sum >= 5;
        if (alarm) {
            d->alarm = true;
            d->alarms++;
        }
        record_order(d, 2, time);
        se_unlock_preemption(inst);
        if (alarm)
            se_clock_update(inst);
        return MODEL_OK;
    }
    case VR_SLOW:
        d->slow_count++; /* takes no part in `order` */
        return MODEL_OK;
    case VR_COUNTDOWN:
        d->countdown_count++;
        record_order(d, 3, time);
        return MODEL_OK;
    default:
        return MODEL_ERROR;
    }
}

static model_status get_interval(model_instance *inst, void *data, uint32_t clock,
                                 double *interval, int *qualifier)
{
    (void)inst;
    tasks *d = data;
    if (clock != VR_COUNTDOWN)
        return MODEL_ERROR;
    *qualifier = d->countdown_qualifier;
    if (d->countdown_qualifier == 2) {
        *interval = d->countdown_interval;
        d->countdown_qualifier = 1; /* told once (FMI 3.0 section 2.3.7) */
    }
    return MODEL_OK;
}

static model_status get_clock(model_instance *inst, void *data, uint32_t clock, bool *ticked)
{
    (void)inst;
    tasks *d = data;
    if (clock != VR_ALARM)
        return MODEL_ERROR;
    *ticked = d->alarm;
    d->alarm = false; /* section 5.2.3: only the first read after a tick says so */
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst, (void)data;
}

/* Only scheduled execution: time advances by activations. */
static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)data, (void)t, (void)h;
    model_log(inst, MODEL_LOG_STATUS_ERROR, "Tasks runs in scheduled execution only");
    return MODEL_ERROR;
}

const model_def model_definition = {
    .model_name = "Tasks",
    .description = "Task set with periodic, triggered, countdown and output clocks (FMI 3.0 "
                   "scheduled execution)",
    .instantiation_token = "{5e1f3a7c-2b4d-4c8e-9f10-7a6b5c4d3e21}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(tasks),
    .initialize = initialize,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 4.0,
    .default_step_size = 0.5,
};

const se_model_def se_model_definition = {
    .clocks = clocks,
    .clock_count = sizeof clocks / sizeof clocks[0],
    .clocked = clocked,
    .clocked_count = sizeof clocked / sizeof clocked[0],
    .binaries = binaries,
    .binary_count = sizeof binaries / sizeof binaries[0],
    .activate = activate,
    .get_interval = get_interval,
    .get_clock = get_clock,
};
