/* Loading FMUs (FMI 2.0 and 3.0 co-simulation) as rtcosim components.
 * rtcosim_fmu_load unzips the archive into a private temporary directory
 * (removed again when the component is freed), reads and validates
 * modelDescription.xml, dlopens the platform binary and resolves every FMI
 * function the component interface uses. The result is an ordinary
 * rtcosim_component: the master drives it like any other. */
#ifndef RTCOSIM_FMU_H
#define RTCOSIM_FMU_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/component.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_fmi_version {
    RTCOSIM_FMI_2 = 2,
    RTCOSIM_FMI_3 = 3
} rtcosim_fmi_version;

typedef struct rtcosim_fmu_options {
    bool log_fmi_calls;     /* log every FMI call at DEBUG level, category "fmi" */
    bool visible;           /* FMI visible/interactive flag */
    bool fmu_logging_on;    /* FMI loggingOn: ask the FMU for its own log messages */
    const char *temp_dir;   /* parent of the extraction directory; NULL: $TMPDIR or /tmp */
    uint64_t max_unpacked_bytes; /* limit on the archive's inflated size; 0: 4 GiB */
} rtcosim_fmu_options;

/* Facts from modelDescription.xml beyond what the component description holds
 * (for `rtcosim info`). Strings live as long as the component. */
typedef struct rtcosim_fmu_info {
    rtcosim_fmi_version fmi_version;
    const char *fmi_version_text;  /* as written, e.g. "2.0", "3.0" */
    const char *model_name;
    const char *instantiation_token; /* FMI 2.0 guid / FMI 3.0 instantiationToken */
    const char *description;       /* may be NULL */
    const char *author;            /* may be NULL */
    const char *version;           /* may be NULL */
    const char *generation_tool;   /* may be NULL */
    const char *generation_date;   /* may be NULL */
    const char *model_identifier;  /* co-simulation modelIdentifier */
    const char *extracted_dir;     /* where the archive was unpacked */
    const char *binary_path;       /* the shared object that was loaded */
    /* Indices into the component's variable table of the outputs listed in
     * ModelStructure/Outputs (FMI 2.0) or ModelStructure/Output (FMI 3.0). */
    const size_t *output_indices;
    size_t output_count;
    /* The outputs' ModelStructure `dependencies` (parallel to output_indices;
     * NULL when output_count is 0). output_dependencies_declared[k] false:
     * the attribute is absent and output k depends on all inputs (FMI 2.0
     * section 2.2.8, FMI 3.0 section 2.4.8); true: it depends exactly on the
     * variables (indices into the component's variable table)
     * output_dependencies[output_dependency_start[k] ..
     * output_dependency_start[k + 1]), none when the list is empty. */
    const bool *output_dependencies_declared;
    const size_t *output_dependency_start;
    const size_t *output_dependencies;
} rtcosim_fmu_info;

/* Load an FMU archive. Errors name the file and the problem in one line
 * ("model.fmu: modelDescription.xml: variable 'x': ..."). opts may be NULL. */
rtcosim_status rtcosim_fmu_load(const char *path, const rtcosim_fmu_options *opts,
                                rtcosim_component **out, rtcosim_error *err);

/* The FMU facts of a component made by rtcosim_fmu_load; NULL for other kinds. */
const rtcosim_fmu_info *rtcosim_fmu_info_of(const rtcosim_component *c);

#ifdef __cplusplus
}
#endif
#endif
