/* What the FMI 1.0 component operations (fmi1_ops.c) and the FMI 1.0 model-
 * exchange calls (me1.c) share: the binary's functions, resolved with the
 * MODELIDENTIFIER_fmi prefix, the callbacks and the negatedAlias mapping. */
#ifndef RTCOSIM_FMI_FMI1_INTERNAL_H
#define RTCOSIM_FMI_FMI1_INTERNAL_H

#include "fmi/api/fmi1.h"
#include "fmi/fmu_internal.h"

typedef struct rtcosim_fmi1_functions {
#define RTCOSIM_FMI1_FIELD_(name) fmi1##name##TYPE *name;
    RTCOSIM_FMI1_COMMON_FUNCTIONS(RTCOSIM_FMI1_FIELD_)
    RTCOSIM_FMI1_CS_FUNCTIONS(RTCOSIM_FMI1_FIELD_)
    RTCOSIM_FMI1_ME_FUNCTIONS(RTCOSIM_FMI1_FIELD_)
#undef RTCOSIM_FMI1_FIELD_
} rtcosim_fmi1_functions;

/* One String variable's copy of its last value read (fmi1_strings.c). */
typedef struct rtcosim_fmi1_string {
    uint32_t vr;
    char *text;
    size_t capacity;
} rtcosim_fmi1_string;

typedef struct rtcosim_fmi1 {
    rtcosim_fmi1_functions fn;
    fmi1CallbackFunctions cs_callbacks;   /* by value to fmiInstantiateSlave */
    fmi1MECallbackFunctions me_callbacks; /* by value to fmiInstantiateModel */
    char *fmu_location;                   /* CS: file URI of the extracted FMU */
    bool stop_defined, tolerance_defined;
    /* Between enter_init and exit_init; fmiInitializeSlave/fmiInitialize
     * called (at exit_init or the first read inside initialization). */
    bool in_init, initialized;
    double start, stop, tolerance;
    /* ME: fmiInitialize's event info, handed to the first event iteration. */
    fmi1EventInfo init_info;
    bool init_info_pending;
    /* negatedAlias variables get value references of rtcosim's own, from
     * first_own_vr on; own_base[vr - first_own_vr] is the base's reference
     * (UINT32_MAX first_own_vr: none). */
    uint32_t first_own_vr;
    uint32_t *own_base;
    size_t own_count;
    /* Load-time scratch (f->scratch_count entries): mapped references and
     * converted values, so that get/set never allocate. */
    fmi1ValueReference *vr;
    double *real;
    fmi1Integer *integer;
    fmi1Boolean *boolean;
    /* String variables by value reference (sorted, aliases once), and
     * scratch for fmiSetString arguments with NULL replaced by "". */
    rtcosim_fmi1_string *strings;
    size_t string_count;
    const char **string_args;
} rtcosim_fmi1;

/* The FMI 1.0 model-exchange calls behind me.h (me1.c). */
rtcosim_status rtcosim_fmi1_me_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err);
/* FMI 1.0 logger: instance name, status, category, printf message (ME and CS). */
void rtcosim_fmi1_logger(fmi1Component c, fmi1String instance_name, fmi1Status status,
                         fmi1String category, fmi1String message, ...);

/* fmi1_strings.c: a buffer per String variable, made at load. */
rtcosim_status rtcosim_fmi1_strings_prepare(rtcosim_fmu *f, rtcosim_error *err);
void rtcosim_fmi1_strings_free(rtcosim_fmi1 *x);
/* Replaces each of the n pointers fmiGetString returned (NULL: "") by the
 * variable's own copy, valid until the next read of that variable; false
 * when a buffer could not grow (out of memory). */
bool rtcosim_fmi1_strings_keep(rtcosim_fmi1 *x, const uint32_t *vrs, size_t n, const char **values);
/* The fmiSetString arguments: values, or scratch with NULL given as "". */
const char *const *rtcosim_fmi1_strings_args(rtcosim_fmi1 *x, const char *const *values, size_t n);

#endif
