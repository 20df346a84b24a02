/* System descriptions read from SSP 1.0 (System Structure and Parameterization):
 * a `.ssd` file or a `.ssp` archive (zip with SystemStructure.ssd at its root
 * and resources/). The reader turns the XML into plain, validated structs that
 * the CLI and the master use to build a run; it never loads components itself
 * (it reads an FMU's modelDescription.xml where the file leaves connectors
 * or their types to the model). libcosim's OspSystemStructure.xml is read
 * into the same structs (system_osp.c).
 *
 * What is read (SSP 1.0 element names):
 *   ssd:SystemStructureDescription  root; ssd:System
 *   ssd:Elements/ssd:System         nested systems at any depth, flattened at load:
 *                                   component c of nested system sub is "sub.c"
 *                                   (results "sub.c.var"); connections through a
 *                                   nested system's connectors become direct ones,
 *                                   transformations composed; its bindings name
 *                                   things relative to it
 *   ssd:Elements/ssd:Component      name, source, type; ssd:Connectors/ssd:Connector
 *                                   (kind, one of ssc:Real/Integer/Boolean/String/
 *                                   Enumeration/Binary with unit on ssc:Real)
 *   ssd:Connectors                  connectors of the system itself
 *   ssd:Connections/ssd:Connection  startElement/startConnector -> endElement/
 *                                   endConnector (element absent: the system),
 *                                   suppressUnitConversion, ssc:LinearTransformation
 *   ssd:Units/ssc:Unit/ssc:BaseUnit unit definitions used for automatic unit
 *                                   conversion on connections and parameters
 *   ssd:ParameterBindings           on the system and on components: source="x.ssv"
 *                                   or inline ssd:ParameterValues/ssv:ParameterSet,
 *                                   with prefix
 *   ssd:DefaultExperiment           startTime, stopTime (and stepSize, not in the
 *                                   SSP 1.0 schema but written by exporters)
 *   ssc:Annotation type="com.opensimulationplatform"  libcosim's: osp:Algorithm/
 *                                   osp:FixedStepAlgorithm baseStepSize (macro step)
 *                                   and numWorkerThreads; on a component
 *                                   osp:StepSizeHint value (decimation)
 *   ssc:Annotation type="org.openmodelica"  OMSimulator's: [oms:Annotations/]
 *                                   oms:SimulationInformation/oms:FixedStepMaster
 *                                   stepSize, or oms:VariableStepMaster initial/
 *                                   minimum/maximumStepSize (adaptive macro step);
 *                                   relativeTolerance, absoluteTolerance
 *   ssd:Component without ssd:Connectors  connectors from the model (FMU
 *                                   modelDescription.xml or native variable table);
 *                                   a connector without a type element gets the model's
 *   any other ssc:Annotation        ignored with an information line
 *   ssc:Annotation type="org.rtcosim.master"  master settings (below)
 *   ssc:Annotation type="org.rtcosim.realtime" real-time settings (below)
 *   ssc:Annotation type="org.rtcosim.ecu" on a component whose source is ECU
 *                                   code as a shared object: its sensors,
 *                                   actuators and tasks (rtcosim_ssd_ecu below)
 *
 * Component sources: a relative URI is resolved against the directory of the
 * .ssd (for a .ssp: the archive root after extraction) and must name an
 * existing file; `rtcosim:NAME` names a native model type of the registry
 * (native.h) and is kept as the name. A file ending in ".so" (or of type
 * "application/x-sharedlib") is ECU code built for the host as a shared
 * object and needs the org.rtcosim.ecu annotation; other files are FMUs, or
 * DCP slaves by their .dcpx.
 *
 * Parameter bindings: the names in a parameter set are prefixed with the
 * binding's `prefix` attribute, then matched. A binding on a component names
 * that component's variables; a binding on the system names `component.variable`
 * (or a system connector, whose value then flows along the connections that
 * start at it). Bindings apply in document order, system before components;
 * a later value for the same variable replaces an earlier one.
 *
 * The master annotation (namespace https://rtcosim.org/SSP1/Master), in the
 * Annotations (ssd: or ssc:) of the root, the system or ssd:DefaultExperiment:
 *
 *   <ssc:Annotation type="org.rtcosim.master">
 *     <rc:Master xmlns:rc="https://rtcosim.org/SSP1/Master"
 *                stepSize="0.001" order="gauss-seidel" coupling="foh"
 *                correction="energy" stepInput="mean" stepControl="false" threads="2">
 *       <rc:Component name="engine" stepSize="0.0001"/>   (or stepMultiple="10"
 *                                                          = 10 macro steps)
 *       <rc:PowerBond effort="mass1.F" flow="mass2.v1"/>  (a force/velocity pair,
 *                                    each named by its input end; see master.h)
 *     </rc:Master>
 *   </ssc:Annotation>
 *
 * order: jacobi | gauss-seidel (the Gauss-Seidel sequence follows the
 * components' direct-feedthrough dependencies); coupling: zoh | foh | soh; correction:
 * none | energy (= dead-time) | dead-time | integrator; stepInput: mean | start (what
 * components without input derivatives receive of a FOH/SOH estimate per step,
 * rtcosim_step_input in coupling.h); isolate: "all" or "C1,C2" (FMU components
 * that `rtcosim run` hosts in child processes, as its --isolate; --isolate and
 * --no-isolate override it). Unknown child elements of rc:Master are ignored so that later
 * versions (real-time settings) stay readable; unknown attributes are errors.
 *
 * Real-time settings (used by `rtcosim run --real-time` and system_rt.h;
 * the command line overrides each one): a sibling annotation, in the same
 * places and namespace:
 *
 *   <ssc:Annotation type="org.rtcosim.realtime">
 *     <rc:RealTime xmlns:rc="https://rtcosim.org/SSP1/Master" rtFactor="1" overrun="soft"
 *                  exchange="1" estimator="foh,horizon=0.01" partnerTimeout="1"
 *                  calibrate="true">
 *       <rc:NonRealTime component="transmission"/>      (one per component)
 *       <rc:NonRealTime component="engine" part="powertrain"/>
 *       <rc:Estimator signal="transmission.torque" spec="linear:engine.speed"/>
 *     </rc:RealTime>
 *   </ssc:Annotation>
 *
 * rtFactor > 0; overrun: soft | catch-up | skip | fail; exchange: frames
 * between exchanges with the non-real-time parts, "N" or a repeated pattern
 * "2,1" (or "2-1"); estimator: the default of every signal from a
 * non-real-time part, as rtcosim_estimator_spec_parse (estimate.h), a
 * relative map:FILE resolved against the .ssd's directory; partnerTimeout
 * and partnerWindow (the windows a part's pace is judged over) in seconds;
 * calibrate: true | false. NonRealTime elements with the same part="NAME"
 * form one non-real-time part (its own thread, queues, estimators, report
 * rows); those without part form one part together (as
 * --non-realtime C1,C2, each part as one more --non-realtime). Estimator:
 * one signal's estimator, as --estimator SIGNAL=SPEC (map and linear inputs,
 * bounds, rate limit; a relative map resolved as above); the command line's
 * for the same signal replaces it. Unknown attributes, an unknown
 * component, a component named twice, an Estimator signal that is not
 * component.variable of a component, one given twice and bad values are
 * errors naming file and line (a signal that does not go from a
 * non-real-time part to the real-time part: when the run is set up).
 *
 * Validation errors are one line, "FILE:LINE: problem", for: malformed XML
 * (.ssd and .ssv), a missing referenced file (component source, .ssv),
 * duplicate component or connector names, a connection naming an unknown
 * element or connector or running against the connectors' directions,
 * incompatible connector types, and different declared units without a
 * transformation or a known conversion. */
#ifndef RTCOSIM_SYSTEM_H
#define RTCOSIM_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ssd:Connector kind. */
typedef enum rtcosim_connector_kind {
    RTCOSIM_CONNECTOR_INPUT = 0,
    RTCOSIM_CONNECTOR_OUTPUT,
    RTCOSIM_CONNECTOR_PARAMETER,
    RTCOSIM_CONNECTOR_CALCULATED_PARAMETER,
    RTCOSIM_CONNECTOR_INOUT
} rtcosim_connector_kind;

/* SSP value types (ssc:Real etc.); UNSPECIFIED when the connector gives none. */
typedef enum rtcosim_ssp_type {
    RTCOSIM_SSP_UNSPECIFIED = 0,
    RTCOSIM_SSP_REAL,
    RTCOSIM_SSP_INTEGER,
    RTCOSIM_SSP_BOOLEAN,
    RTCOSIM_SSP_STRING,
    RTCOSIM_SSP_ENUMERATION,
    RTCOSIM_SSP_BINARY
} rtcosim_ssp_type;

const char *rtcosim_connector_kind_name(rtcosim_connector_kind kind); /* "input", ... */
const char *rtcosim_ssp_type_name(rtcosim_ssp_type type);             /* "Real", ... */

/* All strings below are owned by the description and live as long as it. */

typedef struct rtcosim_ssd_connector {
    const char *name;
    rtcosim_connector_kind kind;
    rtcosim_ssp_type type;
    const char *unit; /* NULL when not declared */
    int line;         /* line in the .ssd */
    const char *enumeration; /* ssc:Enumeration name (ssd:Enumerations), NULL when none */
} rtcosim_ssd_connector;

/* A parameter value after binding. Enumeration values are their item name
 * (value.s); Integer uses value.i. */
typedef struct rtcosim_ssd_parameter {
    const char *name; /* variable/connector name within its component */
    rtcosim_ssp_type type;
    union {
        double r;
        int64_t i;
        bool b;
        const char *s;
    } value;
    const char *unit;   /* as written in the .ssv, NULL when absent */
    const char *origin; /* file the value came from */
    int line;           /* line in that file */
} rtcosim_ssd_parameter;

/* The org.rtcosim.ecu annotation of a component whose source is ECU code
 * compiled for the host as a shared object (a source ending in ".so" or of
 * type "application/x-sharedlib"; contract rtcosim/ecu_so.h, component
 * rtcosim_ecu_so_component_create in rtcosim/ecu.h):
 *   <ssc:Annotation type="org.rtcosim.ecu">
 *     <rc:Ecu sensors="speed" actuators="throttle">   inputs / outputs, index = position
 *       <rc:Task entry="control_1ms" period="0.001" offset="0" priority="0" execution="0"/>
 *     </rc:Ecu>
 *   </ssc:Annotation>
 * offset and execution default to 0, priority to the task's position. */
typedef struct rtcosim_ssd_ecu_task {
    const char *entry;
    rtcosim_time_ns period, offset, execution;
    int priority;
    int line;
} rtcosim_ssd_ecu_task;

typedef struct rtcosim_ssd_ecu {
    const char *const *sensors;
    size_t sensor_count;
    const char *const *actuators;
    size_t actuator_count;
    const rtcosim_ssd_ecu_task *tasks;
    size_t task_count;
    int line;
} rtcosim_ssd_ecu;

typedef struct rtcosim_ssd_component rtcosim_ssd_component;
/* The component of a shared-object ECU (c->ecu set) as the build loads it:
 * rtcosim_ecu_so_component_create (rtcosim/ecu.h) on its path, sensors,
 * actuators and tasks; one more private copy of the object per call. */
rtcosim_status rtcosim_system_load_ecu(const rtcosim_ssd_component *c, rtcosim_component **out,
                                       rtcosim_error *err);

/* A table of signals over time as a component: OMSimulator's table
 * component, which SSP files name with the MIME type "text/csv" (the proposed
 * MA-CSV stimuli format; OMSimulator before 2.1 wrote "application/table").
 * An input table in fmusim's CSV format (rtcosim/csv.h: header "time",
 * name, ...; rows with non-decreasing time): every column is a Float64
 * output, continuous, linearly interpolated between rows; equal times mark a
 * jump (the later row applies from that instant); before the first row the
 * first applies, after the last the last (setup warns when the run reaches
 * past either end). Its state is its time (rollback, speculation). A path
 * ending in .mat is a result file in the Modelica/Dymola layout (MAT v4 or
 * v5, binTrans or binNormal: what Dymola, OpenModelica, OMSimulator and
 * rtcosim write; OMSimulator's table reads them too): its variables, time
 * first, are the columns; a data_1 variable is constant. */
rtcosim_status rtcosim_table_component_load(const char *path, rtcosim_component **out,
                                            rtcosim_error *err);
/* A column given another type or held instead of interpolated: integers and
 * Booleans are always held (the last row at or before t, as fmusim and
 * `rtcosim simulate` apply discrete inputs), floats when `hold` is set (a
 * discrete Real input). Every cell must be a value of the type (integral
 * and in range; a Boolean 0 or 1), else the load fails naming the line.
 * Int64 and UInt64 columns of a CSV are read exactly (past 2^53; a MAT or
 * MDF file's values are doubles). */
typedef struct rtcosim_table_column {
    const char *name;  /* the column's header */
    rtcosim_type type; /* a float or integer type, or Boolean */
    bool hold;
} rtcosim_table_column;
/* rtcosim_table_component_load with `columns` given their type and
 * interpolation; the others stay continuous Float64. A system gives each
 * column the type and variability of the inputs its connections drive
 * (rtcosim_system_build). */
rtcosim_status rtcosim_table_component_load_columns(const char *path,
                                                    const rtcosim_table_column *columns,
                                                    size_t column_count, rtcosim_component **out,
                                                    rtcosim_error *err);
/* Is a component of this MIME type ("text/csv", "application/table") or,
 * without one, this source (a .csv or .mat file) a table? */
bool rtcosim_table_is_source(const char *mime_type, const char *path);

struct rtcosim_ssd_component {
    const char *name;
    const char *source;      /* as written in the .ssd */
    const char *path;        /* resolved file path; NULL for native components */
    const char *native_type; /* NAME of `rtcosim:NAME`; NULL for files */
    const char *mime_type;   /* type attribute, NULL when absent */
    const rtcosim_ssd_connector *connectors;
    size_t connector_count;
    const rtcosim_ssd_parameter *parameters;
    size_t parameter_count;
    int line;
    /* libcosim's osp:StepSizeHint (or an OspSystemStructure Simulator
     * stepSize): the component steps every floor(hint / macro step) macro
     * steps, at least 1 (libcosim's decimation); 0 when none. */
    rtcosim_time_ns step_size_hint_ns;
    /* The connectors were taken from the model (no ssd:Connectors given). */
    bool connectors_from_model;
    /* The org.rtcosim.variants annotation's rc:Variants (rtcosim run
     * --variants): spec="steps:..|solvers:.." (checked with
     * rtcosim_anytime_spec_parse) and strategy="escalate|timer|parallel";
     * NULL when not given. */
    const char *variants;
    const char *variants_strategy;
    /* The org.rtcosim.ecu annotation (above) of a shared-object component;
     * NULL for other components. */
    const rtcosim_ssd_ecu *ecu;
};

/* One end of a connection. component is NULL for a connector of the system. */
typedef struct rtcosim_ssd_endpoint {
    const char *component;
    const char *connector;
    int component_index; /* index into the components, -1 for the system */
    int connector_index; /* index into that component's (or the system's) connectors */
} rtcosim_ssd_endpoint;

typedef struct rtcosim_ssd_connection {
    rtcosim_ssd_endpoint start, end;
    /* end = factor * start + offset: the ssc:LinearTransformation when given,
     * else the automatic unit conversion (SSP 1.0: units from ssd:Units with
     * equal base-unit exponents), else factor 1 offset 0. */
    double factor, offset;
    bool has_linear_transformation;
    bool has_unit_conversion;
    int line;
    /* ssc:Integer/Boolean/EnumerationMappingTransformation: a start value
     * map_from[i] arrives as map_to[i] (enumeration items as their values
     * from ssd:Enumerations, Booleans as 0/1); others pass unchanged. */
    const int64_t *map_from, *map_to;
    size_t map_count;
} rtcosim_ssd_connection;

typedef enum rtcosim_ssd_order {
    RTCOSIM_SSD_ORDER_DEFAULT = 0, RTCOSIM_SSD_ORDER_JACOBI, RTCOSIM_SSD_ORDER_GAUSS_SEIDEL
} rtcosim_ssd_order;
typedef enum rtcosim_ssd_coupling {
    RTCOSIM_SSD_COUPLING_DEFAULT = 0, RTCOSIM_SSD_COUPLING_ZOH, RTCOSIM_SSD_COUPLING_FOH,
    RTCOSIM_SSD_COUPLING_SOH
} rtcosim_ssd_coupling;
/* Energy-preserving coupling correction (coupling.h): DEAD_TIME releases the
 * last step's integrated extrapolation error over the next step ("energy" is
 * accepted as its name too); INTEGRATOR spreads it with a time constant. */
typedef enum rtcosim_ssd_correction {
    RTCOSIM_SSD_CORRECTION_DEFAULT = 0, RTCOSIM_SSD_CORRECTION_NONE,
    RTCOSIM_SSD_CORRECTION_DEAD_TIME, RTCOSIM_SSD_CORRECTION_INTEGRATOR
} rtcosim_ssd_correction;
/* What black-box consumers of FOH/SOH estimates receive per step (coupling.h,
 * rtcosim_step_input): the step's mean of the estimate or its start value. */
typedef enum rtcosim_ssd_step_input {
    RTCOSIM_SSD_STEP_INPUT_DEFAULT = 0, RTCOSIM_SSD_STEP_INPUT_MEAN, RTCOSIM_SSD_STEP_INPUT_START
} rtcosim_ssd_step_input;

/* Per-component rate: an absolute step (step_ns > 0) or a multiple of the
 * macro step (multiple > 0). */
typedef struct rtcosim_ssd_component_rate {
    const char *component;
    int component_index;
    rtcosim_time_ns step_ns;
    int64_t multiple;
} rtcosim_ssd_component_rate;

/* A power bond of the annotation: the effort and flow connections, each
 * named by its input end "component.variable". */
typedef struct rtcosim_ssd_power_bond {
    const char *effort, *flow;
    int line;
} rtcosim_ssd_power_bond;

/* Settings from the org.rtcosim.master annotation; *_DEFAULT / has_* false
 * when not given (the master's own defaults then apply). */
typedef struct rtcosim_ssd_master_settings {
    bool present; /* the annotation was found */
    bool has_step_size;
    rtcosim_time_ns step_size_ns;
    rtcosim_ssd_order order;
    rtcosim_ssd_coupling coupling;
    rtcosim_ssd_correction correction;
    rtcosim_ssd_step_input step_input;
    bool has_step_control, step_control;
    /* Step control bounds (stepTolerance="REL[,ABS]", minStepSize,
     * maxStepSize; rtcosim run --step-tolerance, --min-step-size,
     * --max-step-size); 0: not given (OMSimulator's VariableStepMaster
     * values, else the master's defaults). */
    double step_rtol, step_atol;
    rtcosim_time_ns min_step_ns, max_step_ns;
    int threads; /* 0: not given */
    /* isolate="all" or "C,C..": FMU components hosted in child processes
     * (rtcosim run --isolate; checked by the runner); NULL: not given. */
    const char *isolate;
    const rtcosim_ssd_component_rate *rates;
    size_t rate_count;
    const rtcosim_ssd_power_bond *bonds;
    size_t bond_count;
} rtcosim_ssd_master_settings;

/* "REL[,ABS]": both > 0 (ABS absent: *atol = 0, the default). false when
 * malformed or not positive. */
bool rtcosim_ssd_parse_tolerance(const char *text, double *rtol, double *atol);

/* Settings from the org.rtcosim.realtime annotation (see above); has_* false / NULL when not given. */
typedef struct rtcosim_ssd_realtime_settings {
    bool present;
    int line;
    bool has_rt_factor;
    double rt_factor;
    bool has_overrun;
    int overrun; /* rtcosim_overrun_policy (realtime.h) */
    const char *exchange;  /* executor spelling: "N" or "N-M-..." */
    const char *estimator; /* validated spec, map path resolved */
    bool has_partner_timeout;
    rtcosim_time_ns partner_timeout;
    bool has_calibrate, calibrate;
    bool has_partner_window;
    rtcosim_time_ns partner_window;
    /* The non-real-time parts: parts separated by ';', their components
     * by ',' (rtcosim_rt_options.non_realtime). */
    const char *non_realtime;
    /* rc:Estimator elements as "SIGNAL=SPEC" (validated spec, map path
     * resolved), as --estimator SIGNAL=SPEC. */
    const char *const *signal_estimators;
    size_t signal_estimator_count;
} rtcosim_ssd_realtime_settings;

typedef struct rtcosim_system_desc rtcosim_system_desc; /* opaque */

/* Read a .ssd file, a .ssp archive (chosen by the zip signature, not the
 * name), libcosim's OspSystemStructure.xml (chosen by its root element;
 * see src/system/README.md for what of it is read), a directory holding
 * OspSystemStructure.xml or SystemStructure.ssd, or an FMU (an archive with
 * modelDescription.xml and no SystemStructure.ssd at its root): a system of
 * that one component, named after its modelIdentifier, with the FMU's
 * default experiment start and stop (else 0 and 1 s, as fmusim) and, when it
 * gives no step, (stop - start) / 500 as the macro step; format "FMU". A .ssp is unpacked into a private temporary directory (under
 * $TMPDIR or /tmp) that rtcosim_system_desc_free removes; entries whose
 * names would escape it are rejected. */
rtcosim_status rtcosim_system_desc_load(const char *path, rtcosim_system_desc **out,
                                        rtcosim_error *err);

/* Load options. allow_outside: a .ssp may name FMUs and parameter sets
 * outside its package (absolute paths, file:// URIs, ".." that climbs out);
 * without it they are refused (RTCOSIM_EFORMAT naming the reference), so
 * that opening a package never loads code from elsewhere on the machine. */
typedef struct rtcosim_system_load_options {
    bool allow_outside;
    /* libcosim's choice among several parameter bindings of one element:
     * only bindings whose ssv:ParameterSet has this name are applied, the
     * others skipped (`rtcosim run --parameter-set NAME`). NULL: SSP's
     * document order, every binding applied, a later value wins. A name that
     * no binding of the file carries fails with RTCOSIM_ENOTFOUND naming the
     * sets there are. */
    const char *parameter_set;
    /* An input file in fmusim's CSV format (`run --input-file`), which
     * becomes a table component "input" (rtcosim_table_component_load; input_2
     * ... when the name is taken) connected to the inputs its columns name:
     * for an FMU alone its inputs by their names; in a system inputs as
     * component.variable (or a connector name that one component alone has)
     * that no connection drives; numbers and Booleans, each column of the
     * type of its input, held unless that is a continuous Float
     * (rtcosim_table_component_load_columns). NULL: none. */
    const char *input_file;
    /* `run --input-column INPUT=COLUMN` (added last; 0: none): of
     * input_file's columns only input_columns[i] are kept, each named
     * input_column_inputs[i] (the input it drives, named as above): a
     * measurement's channels under the names of a system's inputs. A column
     * the file lacks fails naming the file and the nearest column. */
    const char *const *input_columns;
    const char *const *input_column_inputs;
    size_t input_column_count;
} rtcosim_system_load_options;
/* rtcosim_system_desc_load with options (NULL: defaults). */
rtcosim_status rtcosim_system_desc_load_with(const char *path,
                                             const rtcosim_system_load_options *options,
                                             rtcosim_system_desc **out, rtcosim_error *err);

/* Parse SSD (or OspSystemStructure) text from memory. base_dir resolves relative sources (NULL: the
 * current directory); name is used in messages ("SystemStructure.ssd"). */
rtcosim_status rtcosim_system_desc_parse(const char *xml, size_t size, const char *base_dir,
                                         const char *name, rtcosim_system_desc **out,
                                         rtcosim_error *err);

/* Apply a further .ssv parameter set as if bound to the system last (names
 * are `component.variable`); used for `rtcosim run --parameter-set`. */
rtcosim_status rtcosim_system_desc_apply_parameter_set(rtcosim_system_desc *desc,
                                                       const char *ssv_path,
                                                       rtcosim_error *err);

void rtcosim_system_desc_free(rtcosim_system_desc *desc); /* NULL is a no-op */

const char *rtcosim_system_desc_name(const rtcosim_system_desc *desc);   /* ssd:System name */
const char *rtcosim_system_desc_file(const rtcosim_system_desc *desc);   /* path of the .ssd or .ssp */
const char *rtcosim_system_desc_base_dir(const rtcosim_system_desc *desc);
/* "SSP 1.0", "OspSystemStructure" (libcosim's format, system_osp.c) or "FMU". */
const char *rtcosim_system_desc_format(const rtcosim_system_desc *desc);

size_t rtcosim_system_desc_component_count(const rtcosim_system_desc *desc);
const rtcosim_ssd_component *rtcosim_system_desc_component(const rtcosim_system_desc *desc,
                                                           size_t index);
/* Index of the named component, or -1. */
int rtcosim_system_desc_find_component(const rtcosim_system_desc *desc, const char *name);

/* Connectors of the system itself. */
size_t rtcosim_system_desc_connector_count(const rtcosim_system_desc *desc);
const rtcosim_ssd_connector *rtcosim_system_desc_connector(const rtcosim_system_desc *desc,
                                                           size_t index);
/* Parameter values bound to system connectors. */
size_t rtcosim_system_desc_parameter_count(const rtcosim_system_desc *desc);
const rtcosim_ssd_parameter *rtcosim_system_desc_parameter(const rtcosim_system_desc *desc,
                                                           size_t index);

size_t rtcosim_system_desc_connection_count(const rtcosim_system_desc *desc);
const rtcosim_ssd_connection *rtcosim_system_desc_connection(const rtcosim_system_desc *desc,
                                                             size_t index);

/* ssd:DefaultExperiment; has_* false when absent. */
bool rtcosim_system_desc_start_time(const rtcosim_system_desc *desc, rtcosim_time_ns *start);
bool rtcosim_system_desc_stop_time(const rtcosim_system_desc *desc, rtcosim_time_ns *stop);

const rtcosim_ssd_master_settings *rtcosim_system_desc_master(const rtcosim_system_desc *desc);

/* Where the macro step came from, highest precedence first. */
typedef enum rtcosim_ssd_step_origin {
    RTCOSIM_STEP_FROM_NONE = 0,
    RTCOSIM_STEP_FROM_OPTION,             /* the build overrides (command line) */
    RTCOSIM_STEP_FROM_RTCOSIM_MASTER,     /* org.rtcosim.master stepSize */
    RTCOSIM_STEP_FROM_OSP,                /* libcosim: com.opensimulationplatform FixedStepAlgorithm
                                             baseStepSize, or OspSystemStructure BaseStepSize */
    RTCOSIM_STEP_FROM_OMSIMULATOR,        /* org.openmodelica oms:FixedStepMaster stepSize or
                                             oms:VariableStepMaster initialStepSize */
    RTCOSIM_STEP_FROM_DEFAULT_EXPERIMENT, /* stepSize on ssd:DefaultExperiment */
    RTCOSIM_STEP_FROM_COMPONENTS,         /* smallest stepSize of the components' default experiments */
    RTCOSIM_STEP_FROM_FMU_FALLBACK        /* an FMU run alone whose default experiment gives no
                                             step: (stop - start) / 500, as fmusim */
} rtcosim_ssd_step_origin;
const char *rtcosim_ssd_step_origin_name(rtcosim_ssd_step_origin origin); /* "the command line", ... */

/* The macro step the file gives (annotations, then ssd:DefaultExperiment);
 * false when it gives none (the build then takes the components'). */
bool rtcosim_system_desc_macro_step(const rtcosim_system_desc *desc, rtcosim_time_ns *step,
                                    rtcosim_ssd_step_origin *origin);

/* Information lines of the reader ("file:line: text"), e.g. an annotation
 * not understood and therefore ignored; the CLI prints them as info. */
size_t rtcosim_system_desc_info_count(const rtcosim_system_desc *desc);
const char *rtcosim_system_desc_info(const rtcosim_system_desc *desc, size_t index);
const rtcosim_ssd_realtime_settings *rtcosim_system_desc_realtime(const rtcosim_system_desc *desc);

/* ---- building a master from a description (system/build.c) ------------ */

struct rtcosim_master;
struct rtcosim_fmu_options;

typedef struct rtcosim_system_build_options {
    /* Settings that override the description's master annotation: a field
     * counts when set (has_*, non-DEFAULT enums, threads > 0); rates and
     * step order are taken from the description only. */
    rtcosim_ssd_master_settings overrides;
    const struct rtcosim_fmu_options *fmu; /* for FMU components; may be NULL */
    /* Variables to observe ("component.variable"); NULL/0: every output of
     * every component, in component and variable order (as fmusim records an
     * FMU's outputs). */
    const char *const *observe;
    size_t observe_count;
    /* Build only part of the system (used by the real-time adapter,
     * system_rt.h): members[i] tells whether description component i is
     * added; connections, power bonds, parameters and default observations
     * then keep to the members (a connection with an end outside is left
     * unconnected). NULL: every component. */
    const bool *members;
    /* Called for each component right after it is loaded (not yet added to
     * the master): it may replace it by a wrapper (e.g. rtcosim_delay_wrap,
     * which takes ownership of the component in every case). NULL: none. */
    rtcosim_status (*wrap)(void *context, const char *name, rtcosim_component *component,
                           rtcosim_component **out, rtcosim_error *err);
    void *wrap_context;
    /* Filled (when not NULL) with where the macro step came from. */
    rtcosim_ssd_step_origin *step_origin;
    /* FMUs by their description alone (rtcosim_fmu_describe: no binary
     * loaded, also an FMU built for another platform): the master can be
     * inspected and its order planned (rtcosim_master_plan_order), not
     * initialized (`rtcosim info` of a system). */
    bool describe_only;
} rtcosim_system_build_options;

/* Create the master for a description: load every component (FMUs with
 * rtcosim_fmu_load, `rtcosim:NAME` from the native registry), check each
 * declared connector against the component's variable (exists, direction,
 * type), give each its step (annotation rates; a step must be a multiple of
 * the macro step), connect with the connection's transformation and the
 * coupling settings, declare the annotation's power bonds, apply the bound parameters as start values, and set
 * order, threads and step control. The macro step is the override, else
 * rtcosim_system_desc_macro_step, else the smallest default-experiment
 * stepSize of the components; without any it fails naming the file. Errors
 * name the file and line of the element at fault. The caller initializes,
 * runs and frees the master. opts may be NULL. */
rtcosim_status rtcosim_system_build_master(const rtcosim_system_desc *desc,
                                           const rtcosim_system_build_options *opts,
                                           struct rtcosim_master **out, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
