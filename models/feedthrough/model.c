/* Copies every input to the output of the same type, with no delay (direct
 * feedthrough), for every FMI variable type: Real/Integer/Boolean/String in
 * FMI 2.0; Float32 ... UInt64, Boolean, String and Binary in FMI 3.0. Also has
 * a parameter of each variability, so that importers' value handling for every
 * type can be tested against the trivial truth output == input. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct feedthrough {
    double float64_continuous_in, float64_continuous_out;
    double float64_discrete_in, float64_discrete_out;
    int32_t int32_in, int32_out;
    bool boolean_in, boolean_out;
    char *string_in, *string_out;
    float float32_continuous_in, float32_continuous_out;
    int8_t int8_in, int8_out;
    uint8_t uint8_in, uint8_out;
    int16_t int16_in, int16_out;
    uint16_t uint16_in, uint16_out;
    uint32_t uint32_in, uint32_out;
    int64_t int64_in, int64_out;
    uint64_t uint64_in, uint64_out;
    model_binary binary_in, binary_out;
    double float64_fixed_parameter, float64_tunable_parameter, float64_calculated_parameter;
    int32_t int32_parameter;
    bool boolean_parameter;
    char *string_parameter;
    model_binary binary_parameter;
} feedthrough;

#define VAR(vr, name, type, causality, variability, initial, field, start, description)     \
    {name, vr, type, causality, variability, initial, offsetof(feedthrough, field), start, NULL, \
     description, 0, {0, 0}}
/* FEEDTHROUGH_EXACT_INPUTS builds the variant whose inputs say
 * initial="exact", as the Modelica Reference FMUs' Feedthrough (FMI 3.0)
 * declares them although the standard's table lists no initial for inputs. */
#ifdef FEEDTHROUGH_EXACT_INPUTS
#define INPUT_INITIAL MODEL_INITIAL_EXACT
#else
#define INPUT_INITIAL MODEL_INITIAL_DEFAULT
#endif
#define IN(vr, name, type, variability, field, start) \
    VAR(vr, name, type, MODEL_INPUT, variability, INPUT_INITIAL, field, start, NULL)
#define OUT(vr, name, type, variability, field, input)                                   \
    VAR(vr, name, type, MODEL_OUTPUT, variability, MODEL_INITIAL_CALCULATED, field, NULL, \
        "Equals " input)

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    IN(1, "Float64_continuous_input", MODEL_FLOAT64, MODEL_CONTINUOUS, float64_continuous_in, "0"),
    OUT(2, "Float64_continuous_output", MODEL_FLOAT64, MODEL_CONTINUOUS, float64_continuous_out,
        "Float64_continuous_input"),
    IN(3, "Float64_discrete_input", MODEL_FLOAT64, MODEL_DISCRETE, float64_discrete_in, "0"),
    OUT(4, "Float64_discrete_output", MODEL_FLOAT64, MODEL_DISCRETE, float64_discrete_out,
        "Float64_discrete_input"),
    IN(5, "Int32_input", MODEL_INT32, MODEL_DISCRETE, int32_in, "0"),
    OUT(6, "Int32_output", MODEL_INT32, MODEL_DISCRETE, int32_out, "Int32_input"),
    IN(7, "Boolean_input", MODEL_BOOLEAN, MODEL_DISCRETE, boolean_in, "false"),
    OUT(8, "Boolean_output", MODEL_BOOLEAN, MODEL_DISCRETE, boolean_out, "Boolean_input"),
    IN(9, "String_input", MODEL_STRING, MODEL_DISCRETE, string_in, ""),
    OUT(10, "String_output", MODEL_STRING, MODEL_DISCRETE, string_out, "String_input"),
    IN(11, "Float32_continuous_input", MODEL_FLOAT32, MODEL_CONTINUOUS, float32_continuous_in, "0"),
    OUT(12, "Float32_continuous_output", MODEL_FLOAT32, MODEL_CONTINUOUS, float32_continuous_out,
        "Float32_continuous_input"),
    IN(13, "Int8_input", MODEL_INT8, MODEL_DISCRETE, int8_in, "0"),
    OUT(14, "Int8_output", MODEL_INT8, MODEL_DISCRETE, int8_out, "Int8_input"),
    IN(15, "UInt8_input", MODEL_UINT8, MODEL_DISCRETE, uint8_in, "0"),
    OUT(16, "UInt8_output", MODEL_UINT8, MODEL_DISCRETE, uint8_out, "UInt8_input"),
    IN(17, "Int16_input", MODEL_INT16, MODEL_DISCRETE, int16_in, "0"),
    OUT(18, "Int16_output", MODEL_INT16, MODEL_DISCRETE, int16_out, "Int16_input"),
    IN(19, "UInt16_input", MODEL_UINT16, MODEL_DISCRETE, uint16_in, "0"),
    OUT(20, "UInt16_output", MODEL_UINT16, MODEL_DISCRETE, uint16_out, "UInt16_input"),
    IN(21, "UInt32_input", MODEL_UINT32, MODEL_DISCRETE, uint32_in, "0"),
    OUT(22, "UInt32_output", MODEL_UINT32, MODEL_DISCRETE, uint32_out, "UInt32_input"),
    IN(23, "Int64_input", MODEL_INT64, MODEL_DISCRETE, int64_in, "0"),
    OUT(24, "Int64_output", MODEL_INT64, MODEL_DISCRETE, int64_out, "Int64_input"),
    IN(25, "UInt64_input", MODEL_UINT64, MODEL_DISCRETE, uint64_in, "0"),
    OUT(26, "UInt64_output", MODEL_UINT64, MODEL_DISCRETE, uint64_out, "UInt64_input"),
    IN(27, "Binary_input", MODEL_BINARY, MODEL_DISCRETE, binary_in, ""),
    OUT(28, "Binary_output", MODEL_BINARY, MODEL_DISCRETE, binary_out, "Binary_input"),
    VAR(29, "Float64_fixed_parameter", MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED,
        MODEL_INITIAL_EXACT, float64_fixed_parameter, "0.5", "Settable before initialization only"),
    VAR(30, "Float64_tunable_parameter", MODEL_FLOAT64, MODEL_PARAMETER, MODEL_TUNABLE,
        MODEL_INITIAL_EXACT, float64_tunable_parameter, "0.25", "Settable between steps"),
    VAR(31, "Float64_calculated_parameter", MODEL_FLOAT64, MODEL_CALCULATED_PARAMETER, MODEL_FIXED,
        MODEL_INITIAL_CALCULATED, float64_calculated_parameter, NULL,
        "Equals 2 * Float64_fixed_parameter"),
    VAR(32, "Int32_parameter", MODEL_INT32, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,
        int32_parameter, "-7", NULL),
    VAR(33, "Boolean_parameter", MODEL_BOOLEAN, MODEL_PARAMETER, MODEL_TUNABLE,
        MODEL_INITIAL_EXACT, boolean_parameter, "true", NULL),
    VAR(34, "String_parameter", MODEL_STRING, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,
        string_parameter, "rtcosim", NULL),
    VAR(35, "Binary_parameter", MODEL_BINARY, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
        binary_parameter, "00ff7f80", NULL),
};

/* output = input for every pair; Strings and Binaries are copied into the
 * output's own storage. */
static void evaluate(model_instance *inst, void *data)
{
    feedthrough *m = data;
    m->float64_continuous_out = m->float64_continuous_in;
    m->float64_discrete_out = m->float64_discrete_in;
    m->int32_out = m->int32_in;
    m->boolean_out = m->boolean_in;
    m->float32_continuous_out = m->float32_continuous_in;
    m->int8_out = m->int8_in;
    m->uint8_out = m->uint8_in;
    m->int16_out = m->int16_in;
    m->uint16_out = m->uint16_in;
    m->uint32_out = m->uint32_in;
    m->int64_out = m->int64_in;
    m->uint64_out = m->uint64_in;
    if (!model_set_string(inst, &m->string_out, m->string_in) ||
        !model_set_binary(inst, &m->binary_out, m->binary_in.data, m->binary_in.size))
        model_log(inst, MODEL_LOG_STATUS_ERROR, "out of memory copying String/Binary input");
}

static void initialize(model_instance *inst, void *data)
{
    feedthrough *m = data;
    m->float64_calculated_parameter = 2.0 * m->float64_fixed_parameter;
    evaluate(inst, data);
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)t;
    (void)h;
    evaluate(inst, data);
    return MODEL_OK;
}

const model_def model_definition = {
#ifdef FEEDTHROUGH_EXACT_INPUTS
    .model_name = "FeedthroughExact",
#else
    .model_name = "Feedthrough",
#endif
    .description = "Copies each input to the output of the same type",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a02}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(feedthrough),
    .check = NULL,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
#ifdef FEEDTHROUGH_MODEL_EXCHANGE
    .model_exchange = true, /* no states: outputs follow the inputs at once */
#endif
    .default_start_time = 0.0,
    .default_stop_time = 2.0,
    .default_tolerance = 1e-6,
    .default_step_size = 1e-3,
};
