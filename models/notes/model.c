/* A String input an importer may change only in Event Mode (FMI 3.0 section
 * 4.2.2: discrete inputs change at events). `echo` is the `note` taken at the
 * latest event and `changes` counts the events at which it differed from the
 * echo before; between events the step changes nothing. So an importer that
 * passes a changed String through an input event gives `changes` one more at
 * that instant (the row before it shows the old count), and one that calls
 * an unchanged String a change gives no extra count: the count says how
 * many distinct values arrived.
 *
 * Binary values too: `trail` gains one byte per step, the step's number
 * modulo 256 (1, 2, ..., 255, 0, 1, ...), up to 300 bytes, so it changes on
 * every step, outgrows a buffer sized from the start and holds NUL bytes;
 * `blob` is an input taken at any set (FMI 3.0 allows it in Step Mode
 * without Event Mode), `blob_size` and `blob_sum` (the sum of its bytes) the
 * outputs an importer's rows can be checked by. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model.h"

enum { TRAIL_CAP = 300 };

typedef struct notes {
    char *note, *echo;
    int32_t changes;
    model_binary trail, blob;
    int32_t blob_size, blob_sum;
    uint32_t steps;
} notes;

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    {"note", 1, MODEL_STRING, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(notes, note), "", NULL, "Taken at events", 0, {0, 0}},
    {"echo", 2, MODEL_STRING, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(notes, echo), NULL, NULL, "note as taken at the latest event", 0, {0, 0}},
    {"changes", 3, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(notes, changes), NULL, NULL, "Events at which note differed from echo", 0, {0, 0}},
    {"trail", 4, MODEL_BINARY, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(notes, trail), NULL, NULL, "One byte per step: the step's number modulo 256", 0,
     {0, 0}},
    {"blob", 5, MODEL_BINARY, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(notes, blob), "", NULL, "Any bytes", 0, {0, 0}},
    {"blob_size", 6, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(notes, blob_size), NULL, NULL, "Bytes in blob", 0, {0, 0}},
    {"blob_sum", 7, MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
     offsetof(notes, blob_sum), NULL, NULL, "Sum of the bytes in blob", 0, {0, 0}},
};

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    notes *m = data;
    m->blob_size = (int32_t)m->blob.size;
    m->blob_sum = 0;
    for (size_t i = 0; i < m->blob.size; i++)
        m->blob_sum += m->blob.data[i];
}

static void initialize(model_instance *inst, void *data)
{
    notes *m = data;
    m->changes = 0;
    m->steps = 0;
    if (!model_set_string(inst, &m->echo, m->note) || !model_set_binary(inst, &m->trail, "", 0))
        model_log(inst, MODEL_LOG_STATUS_ERROR, "out of memory");
    evaluate(inst, data);
}

static model_status step_to_event(model_instance *inst, void *data, double t, double h,
                                  double *reached, bool *event)
{
    notes *m = data;
    *reached = t + h;
    *event = false;
    m->steps++;
    if (m->trail.size < TRAIL_CAP) {
        unsigned char bytes[TRAIL_CAP];
        if (m->trail.size)
            memcpy(bytes, m->trail.data, m->trail.size);
        bytes[m->trail.size] = (unsigned char)(m->steps % 256);
        if (!model_set_binary(inst, &m->trail, bytes, m->trail.size + 1))
            return MODEL_ERROR;
    }
    evaluate(inst, data); /* outputs consistent with the inputs set before the step */
    return MODEL_OK;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)inst, (void)data, (void)t, (void)h;
    return MODEL_OK; /* not used: step_to_event is set */
}

static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    (void)result;
    notes *m = data;
    if (strcmp(m->note, m->echo) == 0)
        return MODEL_OK;
    m->changes++;
    return model_set_string(inst, &m->echo, m->note) ? MODEL_OK : MODEL_ERROR;
}

const model_def model_definition = {
    .model_name = "Notes",
    .description = "A String input taken in Event Mode, its echo and changes; a growing Binary output and a Binary input",
    .instantiation_token = "{8a41c0d2-5e3f-4b6a-9c7d-2f1e0a9b8c73}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(notes),
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .event_update = event_update,
    .step_to_event = step_to_event,
    .default_start_time = 0.0,
    .default_stop_time = 1.0,
    .default_step_size = 0.1,
};
