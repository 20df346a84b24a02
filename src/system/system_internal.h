/* Internal state of a system description shared by the SSD reader, the SSV
 * parameter reader, the unit table and the .ssp unpacker (src/system/).
 * Strings live in one arena freed with the description; arrays grow by
 * doubling and are published through the public structs by system_sync. */
#ifndef RTCOSIM_SYSTEM_INTERNAL_H
#define RTCOSIM_SYSTEM_INTERNAL_H

#include <libxml/tree.h>

#include "rtcosim/csv.h"
#include "rtcosim/system.h"
#include "system/table_map.h"

typedef struct arena_block arena_block;

/* One unit of ssd:Units / ssv:Units: SI value = factor * value + offset, with
 * the SI base-unit exponents kg m s A K mol cd rad (SSP 1.0 ssc:BaseUnit). */
typedef struct system_unit {
    const char *name;
    int exponents[8];
    double factor, offset;
} system_unit;

typedef struct system_component {
    rtcosim_ssd_component pub;
    rtcosim_ssd_connector *connectors;
    size_t connector_count, connector_cap;
    rtcosim_ssd_parameter *parameters;
    size_t parameter_count, parameter_cap;
    table_map map; /* the input file's table: its columns mapped to inputs */
} system_component;

/* A nested ssd:System, flattened at load: its connectors are the boundary
 * connections pass through; path is its dotted name from the top system. */
typedef struct system_subsystem {
    const char *path;
    int line;
    rtcosim_ssd_connector *connectors;
    size_t connector_count, connector_cap;
    /* A signal dictionary (SSP 1.0 section 5.3.3; ssd_dictionaries.c): a
     * junction whose connectors are its entries, reached through the
     * signal dictionary references of its system and the systems inside;
     * path is the defining system's path and the dictionary's name. */
    bool dictionary;
} system_subsystem;

/* A SignalDictionaryReference element: its dotted name and the dictionary
 * (index into subsystems) it stands for. */
typedef struct system_dict_ref {
    const char *path;
    int junction;
    int line;
} system_dict_ref;

/* A connection as written, before flattening. An end is a component
 * (cn.*.component_index >= 0), a nested system's connector (*_sub >= 0) or a
 * connector of the top system (both -1). */
typedef struct system_edge {
    rtcosim_ssd_connection cn;
    int start_sub, end_sub;
} system_edge;

/* One item of an ssd:Enumerations ssc:Enumeration. */
typedef struct system_enum_item {
    const char *enumeration, *item;
    int64_t value;
} system_enum_item;

struct rtcosim_system_desc {
    arena_block *arena;
    const char *file;     /* as given to load (or the name for parse) */
    const char *label;    /* prefix of messages about the .ssd */
    const char *base_dir; /* relative sources resolve here */
    char *temp_dir;       /* extraction directory of a .ssp, removed on free */
    bool allow_outside;   /* a .ssp may reference files outside its package */
    const char *name;

    system_component *components;
    size_t component_count, component_cap;
    rtcosim_ssd_connector *connectors; /* of the system */
    size_t connector_count, connector_cap;
    rtcosim_ssd_parameter *parameters; /* bound to system connectors */
    size_t parameter_count, parameter_cap;
    rtcosim_ssd_connection *connections;
    size_t connection_count, connection_cap;
    system_unit *units;
    size_t unit_count, unit_cap;
    system_enum_item *enum_items;
    size_t enum_item_count, enum_item_cap;
    system_subsystem *subsystems;
    size_t subsystem_count, subsystem_cap;
    system_dict_ref *dict_refs;
    size_t dict_ref_count, dict_ref_cap;
    system_edge *edges; /* connections as written (ssd_connections.c) */
    size_t edge_count, edge_cap;

    bool has_start, has_stop;
    rtcosim_time_ns start_ns, stop_ns;
    const char *format; /* rtcosim_system_desc_format; NULL: "SSP 1.0" */
    /* Macro steps of other places than org.rtcosim.master (system.h). */
    bool exp_has_step, osp_has_step, oms_has_step;
    rtcosim_time_ns exp_step_ns, osp_step_ns, oms_step_ns;
    int osp_step_line, oms_step_line;
    int osp_threads; /* libcosim numWorkerThreads; 0: not given */
    /* OMSimulator's oms:VariableStepMaster: an adaptive macro step within
     * [oms_min_step, oms_max_step] (0: the master's defaults); tolerances
     * (0: not given). */
    bool oms_variable_step;
    rtcosim_time_ns oms_min_step, oms_max_step;
    double oms_rtol, oms_atol;
    /* libcosim's parameter-set selection (load options); matched: some
     * binding carried that name; set_names: the names seen, comma-separated. */
    const char *parameter_set;
    bool parameter_set_matched;
    const char *set_names;
    const char **infos; /* information lines, arena strings */
    size_t info_count, info_cap;

    rtcosim_ssd_master_settings master;
    rtcosim_ssd_realtime_settings realtime;
    rtcosim_ssd_component_rate *rates;
    size_t rate_count, rate_cap;
    rtcosim_ssd_power_bond *bonds;
    size_t bond_count, bond_cap;
    const char **rt_estimators; /* rc:Estimator as "SIGNAL=SPEC", arena strings */
    size_t rt_estimator_count, rt_estimator_cap;
};

/* Arena: every string of a description, freed at once. */
void *system_alloc(rtcosim_system_desc *d, size_t size);
const char *system_strdup(rtcosim_system_desc *d, const char *s);
const char *system_strndup(rtcosim_system_desc *d, const char *s, size_t n);
const char *system_printf(rtcosim_system_desc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void system_arena_free(rtcosim_system_desc *d);

/* Make room for one more element of size elem in *array (count used, *cap
 * allocated); returns a pointer to the new zeroed slot or NULL when out of memory. */
void *system_grow(void *array_ptr, size_t *count, size_t *cap, size_t elem);

/* Copy the internal arrays into the public structs (after every change). */
void system_sync(rtcosim_system_desc *d);

/* Parse an XML document from memory with network access and entity
 * expansion off; a malformed document fails with "label:line: message". */
rtcosim_status system_read_xml(const char *data, size_t size, const char *label,
                               xmlDoc **out, rtcosim_error *err);
rtcosim_status system_read_xml_file(const char *path, const char *label, xmlDoc **out,
                                    rtcosim_error *err);

/* Element tests and attribute access. */
#define SSD_NS "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define SSC_NS "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define SSV_NS "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
#define RTCOSIM_MASTER_NS "https://rtcosim.org/SSP1/Master"
bool system_is(const xmlNode *n, const char *ns, const char *local);
const char *system_attr(rtcosim_system_desc *d, const xmlNode *n, const char *name);

/* "label:line: message" into err; returns status. */
rtcosim_status system_fail(rtcosim_error *err, rtcosim_status status, const char *label,
                           const xmlNode *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Strict number parsing of attribute text. */
bool system_parse_double(const char *text, double *out);
bool system_parse_int64(const char *text, int64_t *out);
bool system_parse_bool(const char *text, bool *out);

/* Units (units.c). */
rtcosim_status system_read_units(rtcosim_system_desc *d, const xmlNode *units_el,
                                 const char *label, rtcosim_error *err);
/* Conversion from unit `from` to unit `to`: to = factor * from + offset.
 * False when either unit is unknown or their dimensions differ. */
/* Whether a unit of this name is declared (ssc:Unit in the SSD or an SSV). */
bool system_unit_known(const rtcosim_system_desc *d, const char *name);
/* Adds an information line "label:line: text" (rtcosim_system_desc_info). */
rtcosim_status system_add_info(rtcosim_system_desc *d, const char *label, long line,
                               const char *text, rtcosim_error *err);
bool system_unit_conversion(const rtcosim_system_desc *d, const char *from, const char *to,
                            double *factor, double *offset);

/* Connectors a component's model declares (system_model.c): with
 * fill_all (no ssd:Connectors) every input, output, parameter and calculated
 * parameter becomes one; otherwise connectors without a type get the
 * variable's. A .dcpx component is left alone. */
rtcosim_status system_model_connectors(rtcosim_system_desc *d, system_component *c,
                                       bool fill_all, rtcosim_error *err);
/* The model name of an FMU's modelDescription.xml (arena string). */
rtcosim_status system_model_name(rtcosim_system_desc *d, const char *fmu_path, const char **out,
                                 rtcosim_error *err);

/* An FMU given where a system is expected (`rtcosim run model.fmu`): an
 * archive with modelDescription.xml and no SystemStructure.ssd at its root. */
bool system_archive_is_fmu(const char *path);
/* The SSD text of a system of that FMU alone (system_model.c): the component
 * named after its modelIdentifier, the source the archive's file name (beside
 * the FMU), the default experiment's start and stop (else 0 and 1 s, as
 * fmusim) and, without a default step, (stop - start) / 500 as the macro step;
 * input (NULL: none): an input file, whose columns must name continuous
 * Float inputs (the load then adds its table, system_add_input_table). */
rtcosim_status system_fmu_ssd(const char *path, const char *input, const table_map *map,
                              char **xml, size_t *size, rtcosim_error *err);

/* A system's input file (input_table.c): the table component "input" (or
 * input_N) connected to the inputs its columns name (component.variable,
 * or a connector name one component alone has), none of them driven yet;
 * map (NULL: none) keeps and renames columns first. */
rtcosim_status system_add_input_table(rtcosim_system_desc *d, const char *input,
                                      const table_map *map, rtcosim_error *err);

/* libcosim's OspSystemStructure.xml (system_osp.c) into d, whose base_dir
 * and label are set; root is the document's root element. */
rtcosim_status system_read_osp(rtcosim_system_desc *d, const xmlNode *root, rtcosim_error *err);
bool system_is_osp(const xmlNode *root);
#define OSP_STRUCTURE_NS "http://opensimulationplatform.com/MSMI/OSPSystemStructure"

/* Parameter-set selection (ssv.c): whether a set named `name` (NULL: no
 * name) is applied under d->parameter_set; records the names seen. */
bool system_parameter_set_selected(rtcosim_system_desc *d, const char *name);

/* SSP 1.0 parameter mappings (section 7, ssm.c): per entry, the name in the
 * parameter source, the name it is applied as, and an optional transformation
 * of the value. */
#define SSM_NS "http://ssp-standard.org/SSP1/SystemStructureParameterMapping"
typedef enum system_map_kind {
    SYSTEM_MAP_NONE,
    SYSTEM_MAP_LINEAR,      /* Real: factor * x + offset, after any unit conversion */
    SYSTEM_MAP_BOOLEAN,     /* ssc:MapEntry pairs, as written */
    SYSTEM_MAP_INTEGER,
    SYSTEM_MAP_ENUMERATION  /* item names */
} system_map_kind;
typedef struct system_map_entry {
    const char *source, *target;
    const char *origin; /* file and line, for messages */
    int line;
    bool suppress_unit_conversion;
    system_map_kind kind;
    double factor, offset;
    const char **map_from, **map_to;
    size_t map_count;
} system_map_entry;
typedef struct system_param_map {
    system_map_entry *entries;
    size_t count;
} system_param_map;

/* How one ssd:ParameterBinding applies its parameters: names get the
 * binding's prefix (NULL: none), go through its mapping (NULL: as they are),
 * and then get the dotted path of the nested system holding the binding
 * ("" or NULL at the top); target: component index, or -1 for the system. */
typedef struct system_binding {
    const char *path, *prefix;
    int target;
    const system_param_map *map;
} system_binding;

/* Parameter sets (ssv.c). */
rtcosim_status system_apply_parameter_set_node(rtcosim_system_desc *d, const xmlNode *set,
                                               const char *label, const system_binding *b,
                                               rtcosim_error *err);
rtcosim_status system_apply_parameter_set_file(rtcosim_system_desc *d, const char *path,
                                               const char *shown_path, const system_binding *b,
                                               rtcosim_error *err);
/* A parameter mapping element (ssm:ParameterMapping, inline or an .ssm
 * file's root) read into *out (the description's arena). */
rtcosim_status system_read_parameter_mapping(rtcosim_system_desc *d, const xmlNode *root,
                                             const char *label, system_param_map *out,
                                             rtcosim_error *err);
/* The connector "path.name" of a nested system, or NULL. */
const rtcosim_ssd_connector *system_find_boundary(const rtcosim_system_desc *d,
                                                  const char *full_name);
/* Values bound to system connectors flow along connections to components. */
rtcosim_status system_propagate_parameters(rtcosim_system_desc *d, rtcosim_error *err);

#endif
