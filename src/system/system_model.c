/* Connectors from the component's own model: SSP 1.0 lets an ssd:Component
 * omit ssd:Connectors and a connector omit its type, and OMSimulator users
 * write such files; the variables then come from the FMU's
 * modelDescription.xml (read out of the archive, nothing unpacked or loaded)
 * or from a native model's variable table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

#include "archive/zip_dl.h"

#include "csv/csv_values.h"
#include "fmi/fmu_internal.h"
#include "fmi/model_description.h"
#include "rtcosim/csv.h"
#include "rtcosim/dcp.h"
#include "rtcosim/native.h"
#include "system/system_internal.h"
#include "util/text.h"

/* modelDescription.xml of an FMU archive (or of an unpacked FMU directory). */
static rtcosim_status read_md_text(const char *path, char **data, size_t *size, rtcosim_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        char file[4096];
        snprintf(file, sizeof file, "%s/modelDescription.xml", path);
        return rtcosim_fmi_read_file(file, RTCOSIM_FMI_MD_MAX_SIZE, data, size, err);
    }
    /* Never a device or a pipe: reading one could block. */
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a regular file", path);
    rtcosim_status loaded = rtcosim_zip_load(err);
    if (loaded != RTCOSIM_OK)
        return loaded;
    int code = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY, &code);
    if (!za)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a readable zip archive", path);
    zip_int64_t index = zip_name_locate(za, "modelDescription.xml", 0);
    zip_stat_t zs;
    zip_stat_init(&zs);
    rtcosim_status st = RTCOSIM_OK;
    if (index < 0 || zip_stat_index(za, (zip_uint64_t)index, 0, &zs) != 0 ||
        !(zs.valid & ZIP_STAT_SIZE))
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no modelDescription.xml", path);
    else if (zs.size > RTCOSIM_FMI_MD_MAX_SIZE)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: modelDescription.xml is too large", path);
    char *buf = st == RTCOSIM_OK ? malloc((size_t)zs.size + 1) : NULL;
    if (st == RTCOSIM_OK && !buf)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    zip_file_t *zf = buf ? zip_fopen_index(za, (zip_uint64_t)index, 0) : NULL;
    if (buf && (!zf || zip_fread(zf, buf, zs.size) != (zip_int64_t)zs.size))
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: cannot read modelDescription.xml", path);
    if (zf)
        zip_fclose(zf);
    zip_close(za);
    if (st != RTCOSIM_OK) {
        free(buf);
        return st;
    }
    buf[zs.size] = '\0';
    *data = buf;
    *size = (size_t)zs.size;
    return RTCOSIM_OK;
}

/* The parsed model description: co-simulation first, model exchange for an
 * FMU without a CoSimulation element. */
static rtcosim_status read_md(const char *path, rtcosim_fmi_md **md, rtcosim_error *err)
{
    char *text = NULL;
    size_t size = 0;
    rtcosim_status st = read_md_text(path, &text, &size, err);
    if (st != RTCOSIM_OK)
        return st;
    /* quiet: the build loads the FMU, whose load says each warning */
    rtcosim_fmi_md_options o = {.interface = RTCOSIM_FMI_MD_CO_SIMULATION, .quiet = true};
    st = rtcosim_fmi_md_parse_with(text, size, "modelDescription.xml", &o, md, err);
    if (st != RTCOSIM_OK) {
        rtcosim_error me_err;
        o.interface = RTCOSIM_FMI_MD_MODEL_EXCHANGE;
        if (rtcosim_fmi_md_parse_with(text, size, "modelDescription.xml", &o, md, &me_err) ==
            RTCOSIM_OK)
            st = RTCOSIM_OK;
    }
    free(text);
    return st;
}

static bool kind_of(rtcosim_causality c, rtcosim_connector_kind *kind)
{
    switch (c) {
    case RTCOSIM_CAUSALITY_INPUT: *kind = RTCOSIM_CONNECTOR_INPUT; return true;
    case RTCOSIM_CAUSALITY_OUTPUT: *kind = RTCOSIM_CONNECTOR_OUTPUT; return true;
    case RTCOSIM_CAUSALITY_PARAMETER:
    case RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER: *kind = RTCOSIM_CONNECTOR_PARAMETER; return true;
    case RTCOSIM_CAUSALITY_CALCULATED_PARAMETER:
        *kind = RTCOSIM_CONNECTOR_CALCULATED_PARAMETER;
        return true;
    default: return false;
    }
}

/* SSP's type of an FMI variable type; UNSPECIFIED for clocks (SSP 1.0 has none). */
static rtcosim_ssp_type ssp_type_of(rtcosim_type t)
{
    switch (t) {
    case RTCOSIM_TYPE_FLOAT64:
    case RTCOSIM_TYPE_FLOAT32: return RTCOSIM_SSP_REAL;
    case RTCOSIM_TYPE_BOOLEAN: return RTCOSIM_SSP_BOOLEAN;
    case RTCOSIM_TYPE_STRING: return RTCOSIM_SSP_STRING;
    case RTCOSIM_TYPE_BINARY: return RTCOSIM_SSP_BINARY;
    case RTCOSIM_TYPE_CLOCK: return RTCOSIM_SSP_UNSPECIFIED;
    default: return RTCOSIM_SSP_INTEGER;
    }
}

/* An FMI 3.0 array (elements "name[i,j]", arrays[] of the model
 * description) stands for one connector "name": 1 for its first element, 2
 * for the others, 0 for scalars (FMI 2.0 names such as "p.e[1]" included). */
static int array_role(const rtcosim_fmi_md *md, size_t i)
{
    for (size_t k = 0; md && k < md->array_count; k++)
        if (i >= md->arrays[k].first && i < md->arrays[k].first + md->arrays[k].count)
            return i == md->arrays[k].first ? 1 : 2;
    return 0;
}

static rtcosim_status apply(rtcosim_system_desc *d, system_component *c, bool fill_all,
                            const rtcosim_variable *vars, size_t count, const rtcosim_fmi_md *md,
                            rtcosim_error *err)
{
    if (!fill_all) {
        for (size_t k = 0; k < c->connector_count; k++) {
            rtcosim_ssd_connector *cn = &c->connectors[k];
            if (cn->type != RTCOSIM_SSP_UNSPECIFIED)
                continue;
            size_t len = strlen(cn->name);
            for (size_t i = 0; i < count; i++)
                if (strcmp(vars[i].name, cn->name) == 0 ||
                    (strncmp(vars[i].name, cn->name, len) == 0 && vars[i].name[len] == '[')) {
                    cn->type = ssp_type_of(vars[i].type);
                    if (cn->type == RTCOSIM_SSP_REAL && !cn->unit && vars[i].unit)
                        cn->unit = system_strdup(d, vars[i].unit);
                    break;
                }
        }
        system_sync(d);
        return RTCOSIM_OK;
    }
    c->pub.connectors_from_model = true;
    for (size_t i = 0; i < count; i++) {
        rtcosim_connector_kind kind;
        rtcosim_ssp_type type = ssp_type_of(vars[i].type);
        int role = array_role(md, i);
        if (!kind_of(vars[i].causality, &kind) || type == RTCOSIM_SSP_UNSPECIFIED || role == 2)
            continue;
        const char *bracket = strrchr(vars[i].name, '[');
        const char *name = role == 1 && bracket
                               ? system_strndup(d, vars[i].name, (size_t)(bracket - vars[i].name))
                               : system_strdup(d, vars[i].name);
        rtcosim_ssd_connector *slot =
            system_grow(&c->connectors, &c->connector_count, &c->connector_cap, sizeof *slot);
        if (!name || !slot)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        *slot = (rtcosim_ssd_connector){.name = name, .kind = kind, .type = type,
                                        .line = c->pub.line};
        if (type == RTCOSIM_SSP_REAL && vars[i].unit && !(slot->unit = system_strdup(d, vars[i].unit)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    system_sync(d);
    return RTCOSIM_OK;
}

static bool needs_model(const system_component *c, bool fill_all)
{
    if (fill_all)
        return true;
    for (size_t k = 0; k < c->connector_count; k++)
        if (c->connectors[k].type == RTCOSIM_SSP_UNSPECIFIED)
            return true;
    return false;
}

rtcosim_status system_model_connectors(rtcosim_system_desc *d, system_component *c, bool fill_all,
                                       rtcosim_error *err)
{
    const char *path = c->pub.path;
    if (!needs_model(c, fill_all))
        return RTCOSIM_OK;
    if (rtcosim_dcp_is_dcpx(path)) {
        /* a remote DCP slave: its description's variables, as an FMU's */
        rtcosim_dcpx *dcpx = NULL;
        rtcosim_status st = rtcosim_dcpx_load(path, &dcpx, err);
        if (st != RTCOSIM_OK)
            return st;
        const rtcosim_component_desc *desc = rtcosim_dcpx_component_desc(dcpx);
        st = apply(d, c, fill_all, desc->variables, desc->variable_count, NULL, err);
        rtcosim_dcpx_free(dcpx);
        return st;
    }
    if (c->pub.ecu) {
        /* ECU code as a shared object: its variables are the annotation's
         * sensors (Real inputs) and actuators (Real outputs) */
        const rtcosim_ssd_ecu *e = c->pub.ecu;
        rtcosim_variable vars[2 * 64];
        size_t n = 0;
        for (size_t i = 0; i < e->sensor_count + e->actuator_count && n < 2 * 64; i++) {
            bool input = i < e->sensor_count;
            vars[n++] = (rtcosim_variable){
                .name = input ? e->sensors[i] : e->actuators[i - e->sensor_count],
                .type = RTCOSIM_TYPE_FLOAT64,
                .causality = input ? RTCOSIM_CAUSALITY_INPUT : RTCOSIM_CAUSALITY_OUTPUT};
        }
        return apply(d, c, fill_all, vars, n, NULL, err);
    }
    if (c->pub.native_type) {
        /* An unknown native type is reported by the build, naming the line. */
        rtcosim_component *native = NULL;
        rtcosim_error ignored;
        if (rtcosim_native_create(c->pub.native_type, &native, &ignored) != RTCOSIM_OK)
            return RTCOSIM_OK;
        rtcosim_status st;
        size_t n = rtcosim_component_variable_count(native);
        rtcosim_variable *vars = calloc(n ? n : 1, sizeof *vars);
        if (!vars) {
            rtcosim_component_free(native);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++)
            vars[i] = *rtcosim_component_variable(native, i);
        st = apply(d, c, fill_all, vars, n, NULL, err);
        free(vars);
        rtcosim_component_free(native);
        return st;
    }
    if (rtcosim_table_is_source(c->pub.mime_type, path)) {
        rtcosim_component *table = NULL;
        rtcosim_status st = table_component_load_mapped(path, &c->map, NULL, 0, &table, err);
        if (st != RTCOSIM_OK)
            return st;
        /* connectors from its header when the file declares none, without a
         * type: the columns' types are decided when the system is built, by
         * the inputs they drive (build.c); declared ones keep the file's */
        if (fill_all) {
            st = apply(d, c, true, rtcosim_component_variable(table, 0),
                       rtcosim_component_variable_count(table), NULL, err);
            for (size_t k = 0; k < c->connector_count; k++)
                c->connectors[k].type = RTCOSIM_SSP_UNSPECIFIED;
        }
        rtcosim_component_free(table);
        return st;
    }
    rtcosim_fmi_md *md = NULL;
    rtcosim_status st = read_md(path, &md, err);
    if (st != RTCOSIM_OK)
        return st;
    st = apply(d, c, fill_all, md->variables, md->variable_count, md, err);
    rtcosim_fmi_md_free(md);
    return st;
}

rtcosim_status system_model_name(rtcosim_system_desc *d, const char *fmu_path, const char **out,
                                 rtcosim_error *err)
{
    rtcosim_fmi_md *md = NULL;
    rtcosim_status st = read_md(fmu_path, &md, err);
    if (st != RTCOSIM_OK)
        return st;
    *out = system_strdup(d, md->model_name ? md->model_name : "");
    rtcosim_fmi_md_free(md);
    return *out ? RTCOSIM_OK : rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
}

bool system_archive_is_fmu(const char *path)
{
    rtcosim_error ignored;
    if (rtcosim_zip_load(&ignored) != RTCOSIM_OK)
        return false;
    int code = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY, &code);
    if (!za)
        return false;
    bool fmu = zip_name_locate(za, "modelDescription.xml", 0) >= 0 &&
               zip_name_locate(za, "SystemStructure.ssd", 0) < 0;
    zip_close(za);
    return fmu;
}

/* An input file's columns against the FMU's variables, as `simulate` checks
 * them: inputs a table can drive (numbers, Booleans; build.c types them). */
static rtcosim_status check_input_columns(const rtcosim_fmi_md *md, const char *input,
                                          const rtcosim_csv *csv, rtcosim_error *err)
{
    for (size_t k = 0; k < rtcosim_csv_column_count(csv); k++) {
        const char *name = rtcosim_csv_column_name(csv, k);
        const rtcosim_variable *v = NULL;
        for (size_t i = 0; i < md->variable_count && !v; i++)
            if (strcmp(md->variables[i].name, name) == 0)
                v = &md->variables[i];
        size_t len = strlen(name);
        for (size_t i = 0; i < md->variable_count && !v; i++)
            if (strncmp(md->variables[i].name, name, len) == 0 && md->variables[i].name[len] == '[')
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s': an array: a column "
                                         "drives one element (%s[1], ...)", input, name, name);
        if (!v)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: column '%s': model '%s' has no"
                                     " such variable", input, name, md->model_name);
        if (v->causality != RTCOSIM_CAUSALITY_INPUT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s': variable is not an "
                                     "input (causality %s)", input, name,
                                     rtcosim_causality_name(v->causality));
        if (!csv_type_is_number(v->type))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: column '%s': a %s input; "
                                     "run --input-file drives numbers and Booleans (rtcosim "
                                     "simulate reads the others)", input, name,
                                     rtcosim_type_name(v->type));
    }
    return RTCOSIM_OK;
}

rtcosim_status system_fmu_ssd(const char *path, const char *input, const table_map *map,
                              char **xml, size_t *size, rtcosim_error *err)
{
    *xml = NULL;
    *size = 0;
    rtcosim_fmi_md *md = NULL;
    rtcosim_status st = read_md(path, &md, err);
    if (st != RTCOSIM_OK) {
        if (strncmp(err->message, path, strlen(path)) != 0)
            rtcosim_error_prefix(err, "%s: ", path);
        return st;
    }
    const char *id = md->model_identifier ? md->model_identifier : md->me_model_identifier;
    if (!id || !*id) {
        rtcosim_fmi_md_free(md);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: modelDescription.xml names no "
                                 "modelIdentifier", path);
    }
    /* the input file's columns against the FMU (the table joins the system
     * after the parse, as in any system: system_add_input_table) */
    if (input) {
        rtcosim_csv *csv = NULL;
        if ((st = table_map_read(input, map, NULL, NULL, &csv, err)) == RTCOSIM_OK)
            st = check_input_columns(md, input, csv, err);
        rtcosim_csv_free(csv);
        if (st != RTCOSIM_OK) {
            rtcosim_fmi_md_free(md);
            return st;
        }
    }
    /* fmusim's defaults, as `rtcosim simulate`: the default experiment, else
     * start 0, stop start + 1, step (stop - start) / 500 */
    double start = md->has_start ? md->start : 0;
    double stop = md->has_stop ? md->stop : start + 1;
    const char *slash = strrchr(path, '/');
    FILE *f = open_memstream(xml, size);
    if (!f) {
        rtcosim_fmi_md_free(md);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<ssd:SystemStructureDescription version=\"1.0\" name=\"", f);
    util_xml_put_escaped(f, id);
    fputs("\"\n    xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
          "    xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
          "    xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n  <ssd:System name=\"", f);
    util_xml_put_escaped(f, id);
    fputs("\">\n    <ssd:Elements>\n      <ssd:Component name=\"", f);
    util_xml_put_escaped(f, id);
    /* "./": a relative reference, even when the name has a ':' (RFC 3986
     * section 4.2) */
    fputs("\" source=\"./", f);
    util_xml_put_escaped(f, slash ? slash + 1 : path);
    fputs("\"/>\n    </ssd:Elements>\n", f);
    if (!(md->has_step && md->step > 0) && stop > start)
        fprintf(f, "    <ssd:Annotations>\n      <ssc:Annotation type=\"org.rtcosim.master\">\n"
                   "        <rc:Master stepSize=\"%.17g\"/>\n      </ssc:Annotation>\n"
                   "    </ssd:Annotations>\n", (stop - start) / 500);
    fprintf(f, "  </ssd:System>\n  <ssd:DefaultExperiment startTime=\"%.17g\" stopTime=\"%.17g\"/>\n"
               "</ssd:SystemStructureDescription>\n", start, stop);
    rtcosim_fmi_md_free(md);
    if (fclose(f) != 0 || !*xml) {
        free(*xml);
        *xml = NULL;
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    return RTCOSIM_OK;
}
