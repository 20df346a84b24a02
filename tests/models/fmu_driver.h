/* Drives a model FMU's binary directly through dlopen/dlsym, without the
 * project's FMU loader, so that the models and their glue are tested on their
 * own. One small driver covers FMI 2.0 and 3.0 so that each behaviour is
 * written once and checked for both versions (the cmocka prestate selects
 * the version). The instantiation token is read from the FMU's generated
 * modelDescription.xml, which also checks that XML and binary agree. */
#ifndef RTCOSIM_TESTS_MODELS_FMU_DRIVER_H
#define RTCOSIM_TESTS_MODELS_FMU_DRIVER_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fmi/api/fmi2.h"
#include "fmi/api/fmi3.h"
#include "rtcosim_test_fmus.h"

typedef struct fmi2_api {
#define FIELD_(name) name##TYPE *name;
    RTCOSIM_FMI2_COMMON_FUNCTIONS(FIELD_)
    RTCOSIM_FMI2_CS_FUNCTIONS(FIELD_)
} fmi2_api;

typedef struct fmi3_api {
    RTCOSIM_FMI3_COMMON_FUNCTIONS(FIELD_)
    RTCOSIM_FMI3_CS_FUNCTIONS(FIELD_)
#undef FIELD_
} fmi3_api;

/* Which FMU a test runs on: its version and build paths (the cmocka
 * prestate). */
typedef struct fmu_target {
    int version;
    const char *binary;
    const char *dir;
} fmu_target;

typedef struct fmu {
    int version;
    void *handle;
    fmi2_api f2;
    fmi3_api f3;
    char token[128];
    void *instance;
    /* FMI 3.0 fmi3DoStep out-arguments of the last step. */
    bool terminate;
    bool early_return;
    double last_successful_time;
} fmu;

/* Every message the FMU logged, for assertions on error messages. */
static char fmu_log_text[1 << 16];
static char fmu_last_category[64];
static int fmu_log_count;

static inline void fmu_log_clear(void)
{
    fmu_log_text[0] = '\0';
    fmu_last_category[0] = '\0';
    fmu_log_count = 0;
}

static inline void fmu_log_append(const char *category, const char *message)
{
    size_t used = strlen(fmu_log_text);
    snprintf(fmu_log_text + used, sizeof fmu_log_text - used, "[%s] %s\n", category, message);
    snprintf(fmu_last_category, sizeof fmu_last_category, "%s", category);
    fmu_log_count++;
}

static inline void fmu_logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                        fmi2String category, fmi2String message, ...)
{
    (void)env, (void)name, (void)status;
    char text[4096];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message, ap);
    va_end(ap);
    fmu_log_append(category, text);
}

static inline void fmu_logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                        fmi3String message)
{
    (void)env, (void)status;
    fmu_log_append(category, message);
}

static const fmi2CallbackFunctions fmu_callbacks2 = {fmu_logger2, calloc, free, NULL, NULL};

/* Reads the guid/instantiationToken attribute of modelDescription.xml. */
static inline bool fmu_read_token(const char *dir, char *token, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    if (!doc)
        return false;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    xmlChar *value = xmlGetProp(root, (const xmlChar *)"guid");
    if (!value)
        value = xmlGetProp(root, (const xmlChar *)"instantiationToken");
    bool ok = value != NULL;
    if (ok)
        snprintf(token, size, "%s", (const char *)value);
    xmlFree(value);
    xmlFreeDoc(doc);
    return ok;
}

/* Loads the binary and resolves every function; a missing one is left NULL
 * (the caller checks the ones it needs). */
static inline bool fmu_open(fmu *f, const fmu_target *t)
{
    memset(f, 0, sizeof *f);
    f->version = t->version;
    if (!fmu_read_token(t->dir, f->token, sizeof f->token))
        return false;
    f->handle = dlopen(t->binary, RTLD_NOW | RTLD_LOCAL);
    if (!f->handle)
        return false;
#define RESOLVE2_(name) f->f2.name = (name##TYPE *)dlsym(f->handle, #name);
#define RESOLVE3_(name) f->f3.name = (name##TYPE *)dlsym(f->handle, #name);
    if (t->version == 2) {
        RTCOSIM_FMI2_COMMON_FUNCTIONS(RESOLVE2_)
        RTCOSIM_FMI2_CS_FUNCTIONS(RESOLVE2_)
    } else {
        RTCOSIM_FMI3_COMMON_FUNCTIONS(RESOLVE3_)
        RTCOSIM_FMI3_CS_FUNCTIONS(RESOLVE3_)
    }
#undef RESOLVE2_
#undef RESOLVE3_
    fmu_log_clear();
    return true;
}

static inline bool fmu_instantiate_with(fmu *f, const char *token, bool logging_on)
{
    if (f->version == 2)
        f->instance = f->f2.fmi2Instantiate("test", fmi2CoSimulation, token, "file:///tmp",
                                            &fmu_callbacks2, fmi2False, logging_on);
    else
        f->instance = f->f3.fmi3InstantiateCoSimulation("test", token, "/tmp/", false, logging_on,
                                                        false, false, NULL, 0, NULL, fmu_logger3,
                                                        NULL);
    return f->instance != NULL;
}

/* Instantiated with logging on (so that every error message is seen). */
static inline bool fmu_instantiate(fmu *f) { return fmu_instantiate_with(f, f->token, true); }

static inline void fmu_free_instance(fmu *f)
{
    if (!f->instance)
        return;
    if (f->version == 2)
        f->f2.fmi2FreeInstance(f->instance);
    else
        f->f3.fmi3FreeInstance(f->instance);
    f->instance = NULL;
}

/* Frees the instance if there is one, then unloads the binary. */
static inline void fmu_close(fmu *f)
{
    fmu_free_instance(f);
    if (f->handle)
        dlclose(f->handle);
    f->handle = NULL;
}

static inline int fmu_enter_init(fmu *f, double start, bool stop_defined, double stop)
{
    if (f->version == 2) {
        int s = f->f2.fmi2SetupExperiment(f->instance, fmi2False, 0.0, start, stop_defined, stop);
        return s != fmi2OK ? s : (int)f->f2.fmi2EnterInitializationMode(f->instance);
    }
    return f->f3.fmi3EnterInitializationMode(f->instance, false, 0.0, start, stop_defined, stop);
}

static inline int fmu_exit_init(fmu *f)
{
    return f->version == 2 ? f->f2.fmi2ExitInitializationMode(f->instance)
                           : f->f3.fmi3ExitInitializationMode(f->instance);
}

/* Instantiate, initialize from start 0 without stop time: Step Mode. */
static inline bool fmu_start(fmu *f)
{
    return fmu_instantiate(f) && fmu_enter_init(f, 0.0, false, 0.0) == 0 && fmu_exit_init(f) == 0;
}

static inline int fmu_step(fmu *f, double t, double h)
{
    if (f->version == 2)
        return f->f2.fmi2DoStep(f->instance, t, h, fmi2True);
    bool event = true;
    f->terminate = f->early_return = true;
    f->last_successful_time = -1.0;
    int s = f->f3.fmi3DoStep(f->instance, t, h, true, &event, &f->terminate, &f->early_return,
                             &f->last_successful_time);
    return event ? -1 : s; /* the models never need event handling */
}

static inline int fmu_terminate(fmu *f)
{
    return f->version == 2 ? f->f2.fmi2Terminate(f->instance) : f->f3.fmi3Terminate(f->instance);
}

static inline int fmu_reset(fmu *f)
{
    return f->version == 2 ? f->f2.fmi2Reset(f->instance) : f->f3.fmi3Reset(f->instance);
}

static inline int fmu_get_real(fmu *f, uint32_t vr, double *value)
{
    return f->version == 2 ? f->f2.fmi2GetReal(f->instance, &vr, 1, value)
                           : f->f3.fmi3GetFloat64(f->instance, &vr, 1, value, 1);
}

static inline double fmu_real(fmu *f, uint32_t vr)
{
    double value = -12345.0;
    if (fmu_get_real(f, vr, &value) != 0)
        return -12345.0;
    return value;
}

static inline int fmu_set_real(fmu *f, uint32_t vr, double value)
{
    return f->version == 2 ? f->f2.fmi2SetReal(f->instance, &vr, 1, &value)
                           : f->f3.fmi3SetFloat64(f->instance, &vr, 1, &value, 1);
}

static inline int fmu_get_int32(fmu *f, uint32_t vr, int32_t *value)
{
    return f->version == 2 ? f->f2.fmi2GetInteger(f->instance, &vr, 1, value)
                           : f->f3.fmi3GetInt32(f->instance, &vr, 1, value, 1);
}

static inline int fmu_set_int32(fmu *f, uint32_t vr, int32_t value)
{
    return f->version == 2 ? f->f2.fmi2SetInteger(f->instance, &vr, 1, &value)
                           : f->f3.fmi3SetInt32(f->instance, &vr, 1, &value, 1);
}

static inline int fmu_get_bool(fmu *f, uint32_t vr, bool *value)
{
    if (f->version == 3)
        return f->f3.fmi3GetBoolean(f->instance, &vr, 1, value, 1);
    fmi2Boolean b = -1;
    int s = f->f2.fmi2GetBoolean(f->instance, &vr, 1, &b);
    *value = b != fmi2False;
    return s;
}

static inline int fmu_set_bool(fmu *f, uint32_t vr, bool value)
{
    if (f->version == 3)
        return f->f3.fmi3SetBoolean(f->instance, &vr, 1, &value, 1);
    fmi2Boolean b = value;
    return f->f2.fmi2SetBoolean(f->instance, &vr, 1, &b);
}

static inline int fmu_get_string(fmu *f, uint32_t vr, const char **value)
{
    return f->version == 2 ? f->f2.fmi2GetString(f->instance, &vr, 1, value)
                           : f->f3.fmi3GetString(f->instance, &vr, 1, value, 1);
}

static inline int fmu_set_string(fmu *f, uint32_t vr, const char *value)
{
    return f->version == 2 ? f->f2.fmi2SetString(f->instance, &vr, 1, &value)
                           : f->f3.fmi3SetString(f->instance, &vr, 1, &value, 1);
}

static inline int fmu_get_state(fmu *f, void **state)
{
    return f->version == 2 ? f->f2.fmi2GetFMUstate(f->instance, state)
                           : f->f3.fmi3GetFMUState(f->instance, state);
}

static inline int fmu_set_state(fmu *f, void *state)
{
    return f->version == 2 ? f->f2.fmi2SetFMUstate(f->instance, state)
                           : f->f3.fmi3SetFMUState(f->instance, state);
}

static inline int fmu_free_state(fmu *f, void **state)
{
    return f->version == 2 ? f->f2.fmi2FreeFMUstate(f->instance, state)
                           : f->f3.fmi3FreeFMUState(f->instance, state);
}

/* Serializes state into a malloc'ed buffer. */
static inline int fmu_serialize(fmu *f, void *state, unsigned char **bytes, size_t *size)
{
    int s = f->version == 2 ? f->f2.fmi2SerializedFMUstateSize(f->instance, state, size)
                            : f->f3.fmi3SerializedFMUStateSize(f->instance, state, size);
    if (s != 0)
        return s;
    *bytes = malloc(*size);
    if (!*bytes)
        return fmi2Fatal;
    return f->version == 2
               ? f->f2.fmi2SerializeFMUstate(f->instance, state, (fmi2Byte *)*bytes, *size)
               : f->f3.fmi3SerializeFMUState(f->instance, state, *bytes, *size);
}

static inline int fmu_deserialize(fmu *f, const unsigned char *bytes, size_t size, void **state)
{
    return f->version == 2
               ? f->f2.fmi2DeSerializeFMUstate(f->instance, (const fmi2Byte *)bytes, size, state)
               : f->f3.fmi3DeserializeFMUState(f->instance, bytes, size, state);
}

#define FMU_TARGETS(NAME)                                                                  \
    static const fmu_target NAME##_fmi2 = {2, RTCOSIM_FMU_##NAME##_FMI2_BINARY,           \
                                           RTCOSIM_FMU_##NAME##_FMI2_DIR};                \
    static const fmu_target NAME##_fmi3 = {3, RTCOSIM_FMU_##NAME##_FMI3_BINARY,           \
                                           RTCOSIM_FMU_##NAME##_FMI3_DIR};

/* cmocka runs a test for both versions: test(fn, NAME). */
#define BOTH_VERSIONS(fn, NAME)                                                            \
    {#fn " (FMI 2.0)", fn, NULL, NULL, (void *)&NAME##_fmi2},                               \
        {#fn " (FMI 3.0)", fn, NULL, NULL, (void *)&NAME##_fmi3}

#endif
