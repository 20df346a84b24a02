/* The SSP 1.0 SystemStructureDescription reader: walks ssd:System and builds
 * the validated description of system.h (components, connectors, connections
 * with transformations, parameter bindings, default experiment and the
 * org.rtcosim.master and org.rtcosim.realtime annotations). Every rejection names file and line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive.h"
#include "core/log_quiet.h"
#include "system/ssd_internal.h"
#include "util/text.h"

const char *rtcosim_connector_kind_name(rtcosim_connector_kind kind)
{
    switch (kind) {
    case RTCOSIM_CONNECTOR_INPUT: return "input";
    case RTCOSIM_CONNECTOR_OUTPUT: return "output";
    case RTCOSIM_CONNECTOR_PARAMETER: return "parameter";
    case RTCOSIM_CONNECTOR_CALCULATED_PARAMETER: return "calculatedParameter";
    case RTCOSIM_CONNECTOR_INOUT: return "inout";
    }
    return "unknown";
}

const char *rtcosim_ssp_type_name(rtcosim_ssp_type type)
{
    switch (type) {
    case RTCOSIM_SSP_UNSPECIFIED: return "unspecified";
    case RTCOSIM_SSP_REAL: return "Real";
    case RTCOSIM_SSP_INTEGER: return "Integer";
    case RTCOSIM_SSP_BOOLEAN: return "Boolean";
    case RTCOSIM_SSP_STRING: return "String";
    case RTCOSIM_SSP_ENUMERATION: return "Enumeration";
    case RTCOSIM_SSP_BINARY: return "Binary";
    }
    return "unknown";
}

/* ---- the document -------------------------------------------------------- */

static rtcosim_status read_document(parse_ctx *ctx, const xmlNode *root)
{
    rtcosim_system_desc *d = ctx->d;
    if (!system_is(root, SSD_NS, "SystemStructureDescription"))
        return FAIL(ctx, root, RTCOSIM_EFORMAT,
                    "root element is '%s', expected ssd:SystemStructureDescription (namespace %s)",
                    (const char *)root->name, SSD_NS);
    const char *version = system_attr(d, root, "version");
    if (!version)
        return FAIL(ctx, root, RTCOSIM_EFORMAT, "SystemStructureDescription has no version");
    if (strncmp(version, "1.", 2) != 0)
        return FAIL(ctx, root, RTCOSIM_EUNSUPPORTED, "SSP version '%s' is not supported (1.0)",
                    version);
    const xmlNode *units = ssd_child(root, SSD_NS, "Units");
    rtcosim_status st = units ? system_read_units(d, units, ctx->label, ctx->err) : RTCOSIM_OK;
    if (st != RTCOSIM_OK)
        return st;
    const xmlNode *enums = ssd_child(root, SSD_NS, "Enumerations");
    if (enums && (st = ssd_read_enumerations(ctx, enums)) != RTCOSIM_OK)
        return st;
    const xmlNode *sys = ssd_child(root, SSD_NS, "System");
    if (!sys)
        return FAIL(ctx, root, RTCOSIM_EFORMAT, "no ssd:System element");
    d->name = system_attr(d, sys, "name");
    if (!d->name || !*d->name)
        return FAIL(ctx, sys, RTCOSIM_EFORMAT, "ssd:System without a name");

    /* Nested systems are flattened here, once: their components become
     * "path.component" and connections through their connectors become direct
     * ones, so the master never sees the hierarchy. */
    if ((st = ssd_read_system(ctx, sys)) != RTCOSIM_OK ||
        (st = ssd_flatten_connections(ctx)) != RTCOSIM_OK ||
        (st = ssd_read_system_bindings(ctx, sys)) != RTCOSIM_OK ||
        (st = system_propagate_parameters(d, ctx->err)) != RTCOSIM_OK)
        return st;
    const xmlNode *exp = ssd_child(root, SSD_NS, "DefaultExperiment");
    if (exp && (st = ssd_read_default_experiment(ctx, exp)) != RTCOSIM_OK)
        return st;
    if ((st = ssd_read_annotations(ctx, root)) != RTCOSIM_OK ||
        (st = ssd_read_annotations(ctx, sys)) != RTCOSIM_OK)
        return st;
    /* Other tools' settings where the rtcosim annotation gives none:
     * OMSimulator's VariableStepMaster is an adaptive macro step (when its
     * initialStepSize is the macro step: no rtcosim or libcosim fixed step
     * comes first), libcosim's numWorkerThreads the worker threads. */
    d->oms_variable_step = d->oms_variable_step && !d->master.has_step_size && !d->osp_has_step;
    if (d->oms_variable_step && !d->master.has_step_control) {
        d->master.has_step_control = true;
        d->master.step_control = true;
    }
    if (d->osp_threads > 0 && d->master.threads == 0)
        d->master.threads = d->osp_threads;
    system_sync(d);
    return RTCOSIM_OK;
}

static bool is_directory(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The directory part of a path ("." for none, "/" for "/x"); malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == path)
        return strdup("/");
    return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

static rtcosim_system_desc *desc_new(const char *file, const char *label, const char *base_dir)
{
    rtcosim_system_desc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->file = system_strdup(d, file);
    d->label = system_strdup(d, label);
    d->base_dir = system_strdup(d, base_dir);
    if (!d->file || !d->label || !d->base_dir) {
        rtcosim_system_desc_free(d);
        return NULL;
    }
    return d;
}

/* The document's format by its root element: libcosim's OspSystemStructure
 * or SSP's SystemStructureDescription. */
static rtcosim_status read_any(rtcosim_system_desc *d, xmlDoc *doc, rtcosim_error *err)
{
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (system_is_osp(root))
        return system_read_osp(d, root, err);
    parse_ctx ctx = {d, d->label, err, "", -1};
    return read_document(&ctx, root);
}

static rtcosim_status parse_into(rtcosim_system_desc *d, const char *xml, size_t size,
                                 rtcosim_error *err)
{
    xmlDoc *doc = NULL;
    rtcosim_status st = system_read_xml(xml, size, d->label, &doc, err);
    if (st != RTCOSIM_OK)
        return st;
    st = read_any(d, doc, err);
    xmlFreeDoc(doc);
    return st;
}

rtcosim_status rtcosim_system_desc_parse(const char *xml, size_t size, const char *base_dir,
                                         const char *name, rtcosim_system_desc **out,
                                         rtcosim_error *err)
{
    if (!out || (!xml && size))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_desc_parse: NULL argument");
    *out = NULL;
    if (!name)
        name = "SystemStructure.ssd";
    rtcosim_system_desc *d = desc_new(name, name, base_dir ? base_dir : ".");
    if (!d)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    rtcosim_status st = parse_into(d, xml ? xml : "", size, err);
    if (st != RTCOSIM_OK) {
        rtcosim_system_desc_free(d);
        return st;
    }
    *out = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_desc_load(const char *path, rtcosim_system_desc **out,
                                        rtcosim_error *err)
{
    return rtcosim_system_desc_load_with(path, NULL, out, err);
}

rtcosim_status rtcosim_system_desc_load_with(const char *path,
                                             const rtcosim_system_load_options *options,
                                             rtcosim_system_desc **out, rtcosim_error *err)
{
    if (!path || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_desc_load: NULL argument");
    *out = NULL;
    rtcosim_system_desc *d = NULL;
    char *ssd_path = NULL, *fmu_ssd = NULL;
    size_t fmu_ssd_size = 0;
    rtcosim_status st;
    const table_map map = {.count = options ? options->input_column_count : 0,
                           .column = options ? options->input_columns : NULL,
                           .input = options ? options->input_column_inputs : NULL};
    if (map.count && (!options->input_file || !map.column || !map.input))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: input columns are mapped without %s",
                                 path, options->input_file ? "their names" : "an input file");
    if (rtcosim_archive_is_zip(path) && system_archive_is_fmu(path)) {
        /* an FMU alone: a system of one component, nothing unpacked here */
        if ((st = system_fmu_ssd(path, options ? options->input_file : NULL, &map, &fmu_ssd,
                                 &fmu_ssd_size, err)) != RTCOSIM_OK)
            return st;
        char *dir = dir_of(path);
        d = dir ? desc_new(path, path, dir) : NULL;
        free(dir);
        if (!d) {
            free(fmu_ssd);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        d->format = "FMU";
    } else if (rtcosim_archive_is_zip(path)) {
        char *dir = NULL;
        const rtcosim_archive_limits limits = {.kind = "SSP"};
        if ((st = rtcosim_archive_extract(path, NULL, &limits, &dir, err)) != RTCOSIM_OK)
            return st;
        char label[PATH_MAX + 32];
        snprintf(label, sizeof label, "%s:SystemStructure.ssd", path);
        d = desc_new(path, label, dir);
        if (!d) {
            rtcosim_archive_remove_dir(dir);
            free(dir);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        d->temp_dir = dir;
        if (asprintf(&ssd_path, "%s/SystemStructure.ssd", dir) < 0) {
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        if (access(ssd_path, R_OK) != 0) {
            free(ssd_path);
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s: archive has neither SystemStructure.ssd (an SSP) nor "
                                     "modelDescription.xml (an FMU) at its root", path);
        }
    } else if ((util_path_has_ending(path, ".fmu") || util_path_has_ending(path, ".ssp")) && access(path, F_OK) == 0 &&
               !is_directory(path)) {
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a zip archive (an %s is one)",
                                 path, util_path_has_ending(path, ".fmu") ? "FMU" : "SSP package");
    } else if (is_directory(path)) {
        /* A directory, as libcosim takes one: its OspSystemStructure.xml, else
         * its SystemStructure.ssd (an unpacked .ssp). */
        if (asprintf(&ssd_path, "%s/OspSystemStructure.xml", path) > 0 &&
            access(ssd_path, R_OK) != 0) {
            free(ssd_path);
            if (asprintf(&ssd_path, "%s/SystemStructure.ssd", path) < 0)
                ssd_path = NULL;
        }
        d = ssd_path ? desc_new(path, ssd_path, path) : NULL;
        if (!d || !ssd_path) {
            free(ssd_path);
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        if (access(ssd_path, R_OK) != 0) {
            rtcosim_system_desc_free(d);
            free(ssd_path);
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "%s: directory holds neither OspSystemStructure.xml nor "
                                     "SystemStructure.ssd",
                                     path);
        }
    } else {
        char *dir = dir_of(path);
        d = dir ? desc_new(path, path, dir) : NULL;
        free(dir);
        ssd_path = strdup(path);
        if (!d || !ssd_path) {
            free(ssd_path);
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
    }
    d->allow_outside = options && options->allow_outside;
    if (options && options->parameter_set) {
        d->parameter_set = system_strdup(d, options->parameter_set);
        if (!d->parameter_set) {
            free(ssd_path);
            free(fmu_ssd);
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
    }
    xmlDoc *doc = NULL;
    st = fmu_ssd ? system_read_xml(fmu_ssd, fmu_ssd_size, d->label, &doc, err)
                 : system_read_xml_file(ssd_path, d->label, &doc, err);
    free(ssd_path);
    if (st == RTCOSIM_OK) {
        st = read_any(d, doc, err);
        xmlFreeDoc(doc);
    }
    /* the input file's table (an FMU's columns were checked against it) */
    if (st == RTCOSIM_OK && options && options->input_file) {
        if (fmu_ssd) /* (read and its warnings said by system_fmu_ssd already) */
            log_quiet_begin();
        st = system_add_input_table(d, options->input_file, &map, err);
        if (fmu_ssd)
            log_quiet_end();
    }
    free(fmu_ssd);
    if (st == RTCOSIM_OK && d->parameter_set && !d->parameter_set_matched)
        st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                               "%s: no parameter binding carries a set named '%s' (sets: %s)",
                               d->label, d->parameter_set, d->set_names ? d->set_names : "none");
    d->parameter_set = NULL; /* sets applied later (--parameter-set FILE) are not filtered */
    if (st != RTCOSIM_OK) {
        rtcosim_system_desc_free(d);
        return st;
    }
    *out = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_desc_apply_parameter_set(rtcosim_system_desc *desc,
                                                       const char *ssv_path, rtcosim_error *err)
{
    if (!desc || !ssv_path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "rtcosim_system_desc_apply_parameter_set: NULL argument");
    if (access(ssv_path, R_OK) != 0)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: parameter set not found", ssv_path);
    const system_binding top = {.target = -1};
    rtcosim_status st = system_apply_parameter_set_file(desc, ssv_path, ssv_path, &top, err);
    if (st == RTCOSIM_OK)
        st = system_propagate_parameters(desc, err);
    return st;
}

void rtcosim_system_desc_free(rtcosim_system_desc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->component_count; i++) {
        free(d->components[i].connectors);
        free(d->components[i].parameters);
    }
    free(d->components);
    for (size_t i = 0; i < d->subsystem_count; i++)
        free(d->subsystems[i].connectors);
    free(d->subsystems);
    free(d->dict_refs);
    free(d->edges);
    free(d->connectors);
    free(d->parameters);
    free(d->connections);
    free(d->units);
    free(d->rates);
    free(d->infos);
    free(d->enum_items);
    free(d->bonds);
    free(d->rt_estimators);
    if (d->temp_dir) {
        rtcosim_archive_remove_dir(d->temp_dir);
        free(d->temp_dir);
    }
    system_arena_free(d);
    free(d);
}

const char *rtcosim_system_desc_name(const rtcosim_system_desc *d) { return d->name; }
const char *rtcosim_system_desc_file(const rtcosim_system_desc *d) { return d->file; }
const char *rtcosim_system_desc_base_dir(const rtcosim_system_desc *d) { return d->base_dir; }
const char *rtcosim_system_desc_format(const rtcosim_system_desc *d)
{
    return d->format ? d->format : "SSP 1.0";
}

size_t rtcosim_system_desc_component_count(const rtcosim_system_desc *d)
{
    return d->component_count;
}

const rtcosim_ssd_component *rtcosim_system_desc_component(const rtcosim_system_desc *d,
                                                           size_t index)
{
    return index < d->component_count ? &d->components[index].pub : NULL;
}

int rtcosim_system_desc_find_component(const rtcosim_system_desc *d, const char *name)
{
    for (size_t i = 0; i < d->component_count; i++)
        if (strcmp(d->components[i].pub.name, name) == 0)
            return (int)i;
    return -1;
}

size_t rtcosim_system_desc_connector_count(const rtcosim_system_desc *d)
{
    return d->connector_count;
}

const rtcosim_ssd_connector *rtcosim_system_desc_connector(const rtcosim_system_desc *d,
                                                           size_t index)
{
    return index < d->connector_count ? &d->connectors[index] : NULL;
}

size_t rtcosim_system_desc_parameter_count(const rtcosim_system_desc *d)
{
    return d->parameter_count;
}

const rtcosim_ssd_parameter *rtcosim_system_desc_parameter(const rtcosim_system_desc *d,
                                                           size_t index)
{
    return index < d->parameter_count ? &d->parameters[index] : NULL;
}

size_t rtcosim_system_desc_connection_count(const rtcosim_system_desc *d)
{
    return d->connection_count;
}

const rtcosim_ssd_connection *rtcosim_system_desc_connection(const rtcosim_system_desc *d,
                                                             size_t index)
{
    return index < d->connection_count ? &d->connections[index] : NULL;
}

bool rtcosim_system_desc_start_time(const rtcosim_system_desc *d, rtcosim_time_ns *start)
{
    if (d->has_start && start)
        *start = d->start_ns;
    return d->has_start;
}

bool rtcosim_system_desc_stop_time(const rtcosim_system_desc *d, rtcosim_time_ns *stop)
{
    if (d->has_stop && stop)
        *stop = d->stop_ns;
    return d->has_stop;
}

const rtcosim_ssd_master_settings *rtcosim_system_desc_master(const rtcosim_system_desc *d)
{
    return &d->master;
}

const rtcosim_ssd_realtime_settings *rtcosim_system_desc_realtime(const rtcosim_system_desc *d)
{
    return &d->realtime;
}

size_t rtcosim_system_desc_info_count(const rtcosim_system_desc *d) { return d->info_count; }

const char *rtcosim_system_desc_info(const rtcosim_system_desc *d, size_t index)
{
    return index < d->info_count ? d->infos[index] : NULL;
}

const char *rtcosim_ssd_step_origin_name(rtcosim_ssd_step_origin origin)
{
    switch (origin) {
    case RTCOSIM_STEP_FROM_NONE: return "nowhere";
    case RTCOSIM_STEP_FROM_OPTION: return "the command line";
    case RTCOSIM_STEP_FROM_RTCOSIM_MASTER: return "the org.rtcosim.master annotation";
    case RTCOSIM_STEP_FROM_OSP:
        return "the OSP base step (FixedStepAlgorithm baseStepSize or BaseStepSize)";
    case RTCOSIM_STEP_FROM_OMSIMULATOR: return "the OMSimulator SimulationInformation annotation";
    case RTCOSIM_STEP_FROM_DEFAULT_EXPERIMENT: return "the ssd:DefaultExperiment";
    case RTCOSIM_STEP_FROM_COMPONENTS: return "the smallest component default experiment";
    case RTCOSIM_STEP_FROM_FMU_FALLBACK:
        return "fmusim's default, (stop - start) / 500: the FMU's default experiment gives no step";
    }
    return "unknown";
}

bool rtcosim_system_desc_macro_step(const rtcosim_system_desc *d, rtcosim_time_ns *step,
                                    rtcosim_ssd_step_origin *origin)
{
    rtcosim_ssd_step_origin o = RTCOSIM_STEP_FROM_NONE;
    rtcosim_time_ns h = 0;
    if (d->master.has_step_size) {
        /* an FMU alone has that annotation only when it gives no step */
        o = d->format && strcmp(d->format, "FMU") == 0 ? RTCOSIM_STEP_FROM_FMU_FALLBACK
                                                      : RTCOSIM_STEP_FROM_RTCOSIM_MASTER;
        h = d->master.step_size_ns;
    } else if (d->osp_has_step) {
        o = RTCOSIM_STEP_FROM_OSP;
        h = d->osp_step_ns;
    } else if (d->oms_has_step) {
        o = RTCOSIM_STEP_FROM_OMSIMULATOR;
        h = d->oms_step_ns;
    } else if (d->exp_has_step) {
        o = RTCOSIM_STEP_FROM_DEFAULT_EXPERIMENT;
        h = d->exp_step_ns;
    }
    if (step)
        *step = h;
    if (origin)
        *origin = o;
    return o != RTCOSIM_STEP_FROM_NONE;
}
