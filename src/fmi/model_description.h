/* modelDescription.xml of FMI 1.0, 2.0 and 3.0, parsed and validated into the facts
 * the loader needs: identity, co-simulation capabilities, default experiment,
 * variables (FMI 3.0 arrays as their elements) and the listed outputs. Parses from memory so that the
 * fuzzer and the tests can feed it bytes directly. */
#ifndef RTCOSIM_FMI_MODEL_DESCRIPTION_H
#define RTCOSIM_FMI_MODEL_DESCRIPTION_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/component.h"
#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"

/* Largest modelDescription.xml accepted (bytes). */
#define RTCOSIM_FMI_MD_MAX_SIZE (256u * 1024u * 1024u)

typedef struct rtcosim_fmi_md_string rtcosim_fmi_md_string; /* string storage */

/* One FMI 3.0 array variable (FMI 3.0 section 2.4.7.4, <Dimension>). */
typedef struct rtcosim_fmi_md_array {
    uint32_t value_reference; /* the FMU's */
    rtcosim_type type;
    size_t first;             /* index of element 0 in variables */
    size_t count;             /* elements (row-major) */
    uint32_t first_vr;        /* rtcosim's value reference of element 0 */
} rtcosim_fmi_md_array;

/* One <Clock> variable: md_clocks.c fills the public record. */
typedef rtcosim_fmu_clock rtcosim_fmi_md_clock;

typedef struct rtcosim_fmi_md {
    rtcosim_fmi_version version;
    const char *fmi_version_text;
    const char *model_name;
    const char *instantiation_token; /* guid (2.0) / instantiationToken (3.0) */
    const char *description, *author, *model_version, *generation_tool, *generation_date;

    /* CoSimulation element */
    const char *model_identifier;
    bool can_handle_variable_step;
    bool can_get_set_state;
    bool can_serialize_state;
    bool provides_directional_derivatives;
    bool provides_adjoint_derivatives; /* 3.0 */
    bool can_interpolate_inputs;       /* 2.0 */
    int max_output_derivative_order;
    bool can_return_early;             /* 3.0 canReturnEarlyAfterIntermediateUpdate */
    bool has_event_mode;               /* 3.0 */
    bool provides_intermediate_update; /* 3.0 */
    bool provides_evaluate_discrete_states; /* 3.0 */

    /* Which interface elements the description has. */
    bool has_co_simulation, has_model_exchange;
    bool fell_back_to_model_exchange; /* read for model exchange: the FMU has no co-simulation */
    bool fell_back_to_scheduled_execution; /* read for it: the FMU offers nothing else */

    /* ModelExchange element (FMI 2.0 section 3.3, FMI 3.0 section 3.3) and the
     * sizes of the continuous system: states from ModelStructure Derivatives
     * (2.0) / ContinuousStateDerivative (3.0), event indicators from the
     * numberOfEventIndicators attribute (2.0) / EventIndicator elements (3.0). */
    const char *me_model_identifier;
    bool me_can_get_set_state;
    bool me_can_serialize_state;
    bool me_needs_completed_integrator_step; /* false only when declared not needed */
    size_t state_count;
    size_t event_indicator_count;

    /* DefaultExperiment (seconds) */
    bool has_start, has_stop, has_tolerance, has_step;
    double start, stop, tolerance, step;

    rtcosim_variable *variables;
    size_t variable_count;
    /* FMI 1.0: negatedAlias per variable (reads -base, Boolean: not base);
     * NULL for 2.0 and 3.0. fmi1_tool: CoSimulation_Tool (else StandAlone). */
    bool *negated;
    bool fmi1_tool;
    size_t *output_indices; /* ModelStructure outputs, indices into variables */
    size_t output_count;
    /* Their `dependencies` (parallel to output_indices): output k depends on
     * the variables output_dependencies[output_dependency_start[k] ..
     * output_dependency_start[k + 1]); not declared: on all inputs. NULL when
     * no output is listed. */
    bool *output_dependencies_declared;
    size_t *output_dependency_start; /* output_count + 1 entries */
    size_t *output_dependencies;

    /* FMI 3.0 arrays: each array variable is in `variables` as its elements
     * (name[i,j], 1-based, row-major), whose value references
     * [element_vr_base, element_vr_end) are rtcosim's own, above every
     * declared one; arrays[] maps them to the FMU's array (sorted by
     * first_vr). Aliases of an array share its elements' references. */
    rtcosim_fmi_md_array *arrays;
    size_t array_count;
    uint32_t element_vr_base, element_vr_end;

    /* FMI 3.0 clocks (md_clocks.c): the Clock variables; the clocks each
     * variable belongs to (`clocks` attribute) as indices into clocks,
     * clocked[clocked_start[i] .. clocked_start[i + 1]) for variable i
     * (clocked_start NULL when no variable is clocked); Binary variables'
     * maxSize (SIZE_MAX: none) and mimeType (NULL: application/octet-stream),
     * per variable, NULL without Binary variables. */
    rtcosim_fmi_md_clock *clocks;
    size_t clock_count;
    size_t *clocked_start;
    size_t *clocked;
    size_t *binary_max_size;
    const char **mime_types;
    rtcosim_fmu_clocks clock_view; /* the above as rtcosim_fmu_clocks_of gives them */
    bool has_scheduled_execution; /* ScheduledExecution element */
    const char *se_model_identifier;

    /* Rules broken in ways that do not stop a correct run (warnings logged;
     * with strict parsing they are errors instead). */
    size_t warning_count;

    rtcosim_fmi_md_string *strings;
} rtcosim_fmi_md;

/* Parse and validate. `label` prefixes every message (normally
 * "modelDescription.xml"). The first violation becomes the error; further
 * ones are logged at WARNING (category "fmi"). Never prints. */
rtcosim_status rtcosim_fmi_md_parse(const char *xml, size_t size, const char *label,
                                    rtcosim_fmi_md **out, rtcosim_error *err);
void rtcosim_fmi_md_free(rtcosim_fmi_md *md);

/* Which interface element a parse requires: rtcosim_fmi_md_parse requires
 * CoSimulation; a model-exchange import requires ModelExchange instead. */
typedef enum rtcosim_fmi_md_interface {
    RTCOSIM_FMI_MD_CO_SIMULATION,
    RTCOSIM_FMI_MD_MODEL_EXCHANGE,
    RTCOSIM_FMI_MD_SCHEDULED_EXECUTION /* FMI 3.0 chapter 5 */
} rtcosim_fmi_md_interface;
rtcosim_status rtcosim_fmi_md_parse_for(const char *xml, size_t size, const char *label,
                                        rtcosim_fmi_md_interface interface,
                                        rtcosim_fmi_md **out, rtcosim_error *err);

/* Options of a parse: the interface element required, and strict checking
 * (rules that the standard states but whose violation does not stop a
 * correct run are errors instead of warnings). */
typedef struct rtcosim_fmi_md_options {
    rtcosim_fmi_md_interface interface;
    bool strict;
    /* With RTCOSIM_FMI_MD_CO_SIMULATION: an FMU that offers model exchange
     * only is read for that (md->fell_back_to_model_exchange), as FMPy
     * simulates it, instead of being refused; one that offers scheduled
     * execution only (FMI 3.0 chapter 5) for that
     * (md->fell_back_to_scheduled_execution). */
    bool model_exchange_fallback;
    /* Log nothing (warnings are still counted): a read for the variables
     * alone, whose FMU is loaded later and says it then (an SSD's
     * connectors), so that each warning shows once. */
    bool quiet;
} rtcosim_fmi_md_options;
rtcosim_status rtcosim_fmi_md_parse_with(const char *xml, size_t size, const char *label,
                                         const rtcosim_fmi_md_options *opts,
                                         rtcosim_fmi_md **out, rtcosim_error *err);

/* The clock (index into md->clocks) of variable i, or -1. */
long rtcosim_fmi_md_clock_of(const rtcosim_fmi_md *md, size_t variable);

/* True when some variable has this type. */
bool rtcosim_fmi_md_has_type(const rtcosim_fmi_md *md, rtcosim_type type);

#endif
