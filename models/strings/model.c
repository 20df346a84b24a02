/* String values through an FMU: String_output copies String_input,
 * Length_output is its length in bytes, Steps_output grows by "ab" on every
 * step (so it outgrows any buffer sized from the start), and Empty_output is
 * an output whose start value is the empty string and which never changes
 * (as libcosim's identity.fmu has one). Built as FMI 1.0 co-simulation with
 * the glue's volatile strings (RTCOSIM_FMU_FMI1_VOLATILE_STRINGS): every
 * fmiGetString returns a fresh buffer and frees the previous call's, and ""
 * as NULL, which FMI 1.0 allows; an importer keeping a returned pointer past
 * the next call reads freed memory (ASan reports it). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model.h"

enum { MAX_STEPS_TEXT = 200 }; /* Steps_output stops growing here */

typedef struct strings {
    char *string_in, *string_out, *empty_out, *steps_out;
    int32_t length_out;
} strings;

#define VAR(vr, name, type, causality, variability, initial, field, start, description) \
    {name, vr, type, causality, variability, initial, offsetof(strings, field), start, NULL, \
     description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    VAR(1, "String_input", MODEL_STRING, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
        string_in, "ab", NULL),
    VAR(2, "String_output", MODEL_STRING, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
        string_out, NULL, "Equals String_input"),
    VAR(3, "Length_output", MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
        length_out, NULL, "Bytes in String_input"),
    VAR(4, "Empty_output", MODEL_STRING, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_EXACT,
        empty_out, "", "Always the empty string"),
    VAR(5, "Steps_output", MODEL_STRING, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_CALCULATED,
        steps_out, NULL, "\"ab\" once per step taken"),
};

static void evaluate(model_instance *inst, void *data)
{
    strings *m = data;
    m->length_out = (int32_t)strlen(m->string_in);
    if (!model_set_string(inst, &m->string_out, m->string_in))
        model_log(inst, MODEL_LOG_STATUS_ERROR, "out of memory copying String_input");
}

static void initialize(model_instance *inst, void *data)
{
    strings *m = data;
    if (!model_set_string(inst, &m->steps_out, ""))
        model_log(inst, MODEL_LOG_STATUS_ERROR, "out of memory");
    evaluate(inst, data);
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)t;
    (void)h;
    strings *m = data;
    char text[MAX_STEPS_TEXT + 3];
    size_t len = strlen(m->steps_out);
    memcpy(text, m->steps_out, len + 1);
    if (len + 2 <= MAX_STEPS_TEXT)
        memcpy(text + len, "ab", 3);
    if (!model_set_string(inst, &m->steps_out, text))
        return MODEL_ERROR;
    evaluate(inst, data);
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "Strings",
    .description = "String input copied to an output, its length, a growing and an empty output",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5b01}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(strings),
    .check = NULL,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 1.0,
    .default_tolerance = 1e-6,
    .default_step_size = 0.25,
};
