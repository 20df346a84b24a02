/* Turning a system description into a ready master: components loaded and
 * checked against their declared connectors, steps, connections with their
 * transformations, parameters as start values, and the run settings (the
 * caller's overrides over the description's rtcosim master annotation). */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log_quiet.h"
#include "csv/csv_values.h"
#include "results/result_table.h"
#include "rtcosim/dcp.h"
#include "rtcosim/ecu.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "system/system_internal.h"

#define NAME_MAX_LEN 512

static bool type_matches(rtcosim_ssp_type ssp, rtcosim_type t)
{
    switch (ssp) {
    case RTCOSIM_SSP_UNSPECIFIED: return true;
    case RTCOSIM_SSP_REAL: return t == RTCOSIM_TYPE_FLOAT64 || t == RTCOSIM_TYPE_FLOAT32;
    case RTCOSIM_SSP_INTEGER:
    case RTCOSIM_SSP_ENUMERATION:
        return rtcosim_type_is_numeric(t) && t != RTCOSIM_TYPE_FLOAT64 &&
               t != RTCOSIM_TYPE_FLOAT32 && t != RTCOSIM_TYPE_BOOLEAN;
    case RTCOSIM_SSP_BOOLEAN: return t == RTCOSIM_TYPE_BOOLEAN;
    case RTCOSIM_SSP_STRING: return t == RTCOSIM_TYPE_STRING;
    case RTCOSIM_SSP_BINARY: return t == RTCOSIM_TYPE_BINARY;
    }
    return false;
}

/* Which causalities a connector kind stands for (SSP 1.0 kinds vs FMI). */
static bool kind_matches(rtcosim_connector_kind kind, rtcosim_causality c)
{
    switch (kind) {
    case RTCOSIM_CONNECTOR_INPUT: return c == RTCOSIM_CAUSALITY_INPUT;
    case RTCOSIM_CONNECTOR_OUTPUT: return c == RTCOSIM_CAUSALITY_OUTPUT;
    case RTCOSIM_CONNECTOR_PARAMETER:
        return c == RTCOSIM_CAUSALITY_PARAMETER || c == RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER;
    case RTCOSIM_CONNECTOR_CALCULATED_PARAMETER:
        return c == RTCOSIM_CAUSALITY_CALCULATED_PARAMETER;
    case RTCOSIM_CONNECTOR_INOUT: return c == RTCOSIM_CAUSALITY_INPUT || c == RTCOSIM_CAUSALITY_OUTPUT;
    }
    return false;
}

/* An FMI 3.0 array appears in a component as its elements name[i,j]
 * (src/fmi/md_arrays.c), consecutive in the variable table: the first one
 * and how many, or NULL. */
static const rtcosim_variable *array_elements(const rtcosim_component *comp, const char *name,
                                              size_t *first, size_t *count)
{
    size_t len = strlen(name), n = rtcosim_component_variable_count(comp);
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = rtcosim_component_variable(comp, i)->name;
        if (strncmp(e, name, len) != 0 || e[len] != '[')
            continue;
        if (*count == 0)
            *first = i;
        if (i != *first + *count)
            break;
        ++*count;
    }
    return *count ? rtcosim_component_variable(comp, *first) : NULL;
}

/* A connector's variable: the variable of that name, or an array's first
 * element (the elements share kind and type). */
static const rtcosim_variable *connector_variable(const rtcosim_component *comp, const char *name)
{
    size_t first, count;
    const rtcosim_variable *v = rtcosim_component_find_variable(comp, name);
    return v ? v : array_elements(comp, name, &first, &count);
}

static rtcosim_status check_connectors(const rtcosim_system_desc *d, const rtcosim_ssd_component *sc,
                                       const rtcosim_component *comp, rtcosim_error *err)
{
    for (size_t i = 0; i < sc->connector_count; i++) {
        const rtcosim_ssd_connector *cn = &sc->connectors[i];
        const rtcosim_variable *v = connector_variable(comp, cn->name);
        if (!v)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "%s:%d: component '%s' (%s) has no variable '%s'", d->label,
                                     cn->line, sc->name, sc->source, cn->name);
        if (!kind_matches(cn->kind, v->causality))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s:%d: connector '%s.%s' is declared %s but the variable is %s",
                                     d->label, cn->line, sc->name, cn->name,
                                     rtcosim_connector_kind_name(cn->kind),
                                     rtcosim_causality_name(v->causality));
        if (!type_matches(cn->type, v->type))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s:%d: connector '%s.%s' is declared %s but the variable is %s",
                                     d->label, cn->line, sc->name, cn->name,
                                     rtcosim_ssp_type_name(cn->type), rtcosim_type_name(v->type));
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_load_ecu(const rtcosim_ssd_component *sc, rtcosim_component **out,
                                      rtcosim_error *err)
{
    *out = NULL;
    if (!sc->ecu)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "component '%s' is no shared-object ECU",
                                 sc->name);
    const rtcosim_ssd_ecu *e = sc->ecu;
    rtcosim_ecu_so_task tasks[RTCOSIM_ECU_SO_TASKS_MAX];
    if (e->task_count > RTCOSIM_ECU_SO_TASKS_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': %zu tasks, at most %d",
                                 sc->name, e->task_count, RTCOSIM_ECU_SO_TASKS_MAX);
    for (size_t k = 0; k < e->task_count; k++)
        tasks[k] = (rtcosim_ecu_so_task){.entry = e->tasks[k].entry, .period = e->tasks[k].period,
                                         .offset = e->tasks[k].offset,
                                         .execution = e->tasks[k].execution,
                                         .priority = e->tasks[k].priority};
    rtcosim_ecu_so_component_config config = {
        .name = sc->name, .shared_object = sc->path, .sensors = e->sensors,
        .sensor_count = e->sensor_count, .actuators = e->actuators,
        .actuator_count = e->actuator_count, .tasks = tasks, .task_count = e->task_count};
    return rtcosim_ecu_so_component_create(&config, out, err);
}

/* A shared-object ECU's actuators appear at a job's end, from the inputs of
 * the job's start: none follows an input within a step. */
static rtcosim_status declare_no_feedthrough(rtcosim_master *m, const rtcosim_ssd_component *sc,
                                             rtcosim_error *err)
{
    for (size_t i = 0; i < sc->ecu->actuator_count; i++) {
        char name[512];
        snprintf(name, sizeof name, "%s.%s", sc->name, sc->ecu->actuators[i]);
        rtcosim_status st = rtcosim_master_set_feedthrough(m, name, NULL, 0, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static bool is_table(const rtcosim_ssd_component *sc)
{
    return !sc->native_type && !sc->ecu && rtcosim_table_is_source(sc->mime_type, sc->path);
}

/* A table's columns take the type and variability of the inputs their
 * connections drive (loaded before it): an Integer or Boolean input gets
 * integers or Booleans held from row to row, a discrete Real the row's value
 * held, a continuous one linear interpolation. One column driving inputs of
 * two kinds is refused, as is a String or Binary input. */
/* Where a table connection's error points: the system file and the
 * connection's line, or an input file's table (no line in the system) by its
 * own file. */
static const char *table_where(const rtcosim_system_desc *d, size_t ti,
                               const rtcosim_ssd_connection *cn, char *buf, size_t size)
{
    if (cn->line > 0)
        snprintf(buf, size, "%s:%d", d->label, cn->line);
    else
        snprintf(buf, size, "%s", d->components[ti].pub.path);
    return buf;
}

static rtcosim_status table_columns(const rtcosim_system_desc *d, size_t ti,
                                    rtcosim_component *const *comps, rtcosim_table_column *cols,
                                    const rtcosim_ssd_connection **from, size_t *count,
                                    rtcosim_error *err)
{
    *count = 0;
    char where[4200];
    for (size_t i = 0; i < d->connection_count; i++) {
        const rtcosim_ssd_connection *cn = &d->connections[i];
        if (cn->start.component_index != (int)ti || cn->end.component_index < 0 ||
            !comps[cn->end.component_index] || cn->has_linear_transformation ||
            cn->has_unit_conversion)
            continue;
        const rtcosim_variable *v =
            connector_variable(comps[cn->end.component_index], cn->end.connector);
        /* (an input file's column names the element itself: said here, as
         * connect_all would find the table's own column of that name) */
        if (!v && cn->line <= 0)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: column '%s': component '%s' "
                                     "has no variable '%s'", table_where(d, ti, cn, where,
                                     sizeof where), cn->start.connector, cn->end.component,
                                     cn->end.connector);
        if (!v)
            continue; /* connect_all names it */
        if (!rtcosim_component_find_variable(comps[cn->end.component_index], cn->end.connector))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s': %s.%s is an array: "
                                     "a column drives one element (%s.%s[1], ...)",
                                     table_where(d, ti, cn, where, sizeof where),
                                     cn->start.connector, cn->end.component, cn->end.connector,
                                     cn->end.component, cn->end.connector);
        if (!csv_type_is_number(v->type))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: table '%s' cannot drive "
                                     "%s.%s: a table gives numbers and Booleans, not %s values",
                                     table_where(d, ti, cn, where, sizeof where),
                                     cn->start.component, cn->end.component, cn->end.connector,
                                     rtcosim_type_name(v->type));
        rtcosim_table_column c = {.name = cn->start.connector, .type = v->type,
                                  .hold = v->variability != RTCOSIM_VARIABILITY_CONTINUOUS};
        size_t k = 0;
        while (k < *count && strcmp(cols[k].name, c.name) != 0)
            k++;
        if (k == *count) {
            cols[(*count)++] = c;
            from[k] = cn;
            continue;
        }
        if (cols[k].type != c.type || cols[k].hold != c.hold)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: table column '%s.%s' drives "
                                     "inputs of two kinds: %s.%s (line %d) and %s.%s; give each "
                                     "its own column", table_where(d, ti, cn, where, sizeof where),
                                     cn->start.component,
                                     c.name, from[k]->end.component, from[k]->end.connector,
                                     from[k]->line, cn->end.component, cn->end.connector);
    }
    return RTCOSIM_OK;
}

static rtcosim_status load_table(const rtcosim_system_desc *d, size_t ti,
                                 rtcosim_component *const *comps, rtcosim_component **out,
                                 rtcosim_error *err)
{
    const rtcosim_ssd_component *sc = &d->components[ti].pub;
    rtcosim_table_column *cols = calloc(d->connection_count + 1, sizeof *cols);
    const rtcosim_ssd_connection **from = calloc(d->connection_count + 1, sizeof *from);
    size_t count = 0;
    rtcosim_status st = cols && from ? table_columns(d, ti, comps, cols, from, &count, err)
                                     : rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    /* (an input file's table has no line in the file: its error names the
     * table's own file and line; its warnings were said when the system was
     * loaded, which read it too) */
    if (st == RTCOSIM_OK) {
        log_quiet_begin();
        st = table_component_load_mapped(sc->path, &d->components[ti].map, cols, count, out, err);
        log_quiet_end();
        if (st != RTCOSIM_OK && sc->line > 0)
            rtcosim_error_prefix(err, "%s:%d: component '%s': ", d->label, sc->line, sc->name);
    }
    free(cols);
    free(from);
    if (st == RTCOSIM_OK && (st = check_connectors(d, sc, *out, err)) != RTCOSIM_OK) {
        rtcosim_component_free(*out);
        *out = NULL;
    }
    return st;
}

static rtcosim_status load_component(const rtcosim_system_desc *d, const rtcosim_ssd_component *sc,
                                     const rtcosim_system_build_options *opts,
                                     rtcosim_component **out, rtcosim_error *err)
{
    bool dcpx = rtcosim_dcp_is_dcpx(sc->path); /* a remote DCP slave */
    if (sc->ecu) {
        rtcosim_status st = rtcosim_system_load_ecu(sc, out, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "%s:%d: ", d->label, sc->line);
        st = check_connectors(d, sc, *out, err);
        if (st != RTCOSIM_OK) {
            rtcosim_component_free(*out);
            *out = NULL;
        }
        return st;
    }
    /* SSP names no FMI interface: an FMU offering only model exchange, or
     * only scheduled execution (FMI 3.0 chapter 5: its partitions run in each
     * macro step), is loaded for that (the loader's fallback) */
    rtcosim_fmu_options fo = opts->fmu ? *opts->fmu : (rtcosim_fmu_options){0};
    fo.model_exchange_fallback = true;
    rtcosim_status st = sc->native_type ? rtcosim_native_create(sc->native_type, out, err)
                        : dcpx          ? rtcosim_dcp_remote_from_dcpx(sc->path, out, err)
                        : opts->describe_only ? rtcosim_fmu_describe(sc->path, &fo, out, err)
                                              : rtcosim_fmu_load(sc->path, &fo, out, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s:%d: component '%s': ", d->label, sc->line, sc->name);
    st = check_connectors(d, sc, *out, err);
    if (st != RTCOSIM_OK) {
        rtcosim_component_free(*out);
        *out = NULL;
    }
    return st;
}

/* libcosim's decimation of a step size hint (fixed_step_algorithm.cpp):
 * floor(hint / base step), at least 1; a hint that is no multiple of the
 * base step is logged with the step the component gets instead. */
static unsigned hint_multiple(const rtcosim_system_desc *d, const rtcosim_ssd_component *sc,
                              rtcosim_time_ns macro)
{
    int64_t multiple = sc->step_size_hint_ns / macro;
    if (multiple < 1)
        multiple = 1;
    if (multiple > UINT32_MAX)
        multiple = UINT32_MAX;
    if (multiple * macro != sc->step_size_hint_ns)
        rtcosim_log(RTCOSIM_LOG_WARNING, "system",
                    "%s: component '%s': step size hint %.9g s is no multiple of the macro step "
                    "%.9g s; it steps every %.9g s",
                    d->label, sc->name, rtcosim_time_to_seconds(sc->step_size_hint_ns),
                    rtcosim_time_to_seconds(macro), rtcosim_time_to_seconds(multiple * macro));
    return (unsigned)multiple;
}

/* A component's step multiple: its rate entry, else its step size hint,
 * else 1, or with step control RTCOSIM_MASTER_VARIABLE_STEP (it follows the
 * controller; the master refuses one that cannot vary its step). */
static unsigned step_multiple(const rtcosim_system_desc *d, size_t component, rtcosim_time_ns macro,
                              bool adaptive, rtcosim_status *st, rtcosim_error *err)
{
    *st = RTCOSIM_OK;
    for (size_t i = 0; i < d->rate_count; i++) {
        const rtcosim_ssd_component_rate *r = &d->rates[i];
        if (r->component_index != (int)component)
            continue;
        int64_t multiple = r->multiple;
        if (r->step_ns > 0) {
            if (r->step_ns % macro != 0) {
                *st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                        "%s: component '%s': step %.9g s is not a multiple of the "
                                        "macro step %.9g s",
                                        d->label, r->component, rtcosim_time_to_seconds(r->step_ns),
                                        rtcosim_time_to_seconds(macro));
                return 0;
            }
            multiple = r->step_ns / macro;
        }
        if (multiple > UINT32_MAX) {
            *st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: component '%s': step multiple too large",
                                    d->label, r->component);
            return 0;
        }
        return (unsigned)multiple;
    }
    const rtcosim_ssd_component *sc = &d->components[component].pub;
    if (sc->step_size_hint_ns > 0)
        return hint_multiple(d, sc, macro);
    return adaptive ? RTCOSIM_MASTER_VARIABLE_STEP : 1;
}

static void parameter_text(const rtcosim_ssd_parameter *p, char *buf, size_t size, const char **out)
{
    switch (p->type) {
    case RTCOSIM_SSP_REAL: snprintf(buf, size, "%.17g", p->value.r); break;
    case RTCOSIM_SSP_INTEGER: snprintf(buf, size, "%" PRId64, p->value.i); break;
    case RTCOSIM_SSP_BOOLEAN: snprintf(buf, size, "%s", p->value.b ? "true" : "false"); break;
    default: *out = p->value.s; return;
    }
    *out = buf;
}

static rtcosim_extrapolation extrapolation_of(rtcosim_ssd_coupling c)
{
    return c == RTCOSIM_SSD_COUPLING_FOH ? RTCOSIM_EXTRAPOLATION_FOH
           : c == RTCOSIM_SSD_COUPLING_SOH ? RTCOSIM_EXTRAPOLATION_SOH
                                           : RTCOSIM_EXTRAPOLATION_ZOH;
}

static rtcosim_correction correction_of(rtcosim_ssd_correction c)
{
    return c == RTCOSIM_SSD_CORRECTION_DEAD_TIME    ? RTCOSIM_CORRECTION_DEAD_TIME
           : c == RTCOSIM_SSD_CORRECTION_INTEGRATOR ? RTCOSIM_CORRECTION_INTEGRATOR
                                                    : RTCOSIM_CORRECTION_NONE;
}

/* The annotation's settings with the caller's overrides on top. */
static rtcosim_ssd_master_settings merged_settings(const rtcosim_system_desc *d,
                                                   const rtcosim_ssd_master_settings *o)
{
    rtcosim_ssd_master_settings s = d->master;
    if (o->has_step_size) {
        s.has_step_size = true;
        s.step_size_ns = o->step_size_ns;
    }
    if (o->order != RTCOSIM_SSD_ORDER_DEFAULT)
        s.order = o->order;
    if (o->coupling != RTCOSIM_SSD_COUPLING_DEFAULT)
        s.coupling = o->coupling;
    if (o->correction != RTCOSIM_SSD_CORRECTION_DEFAULT)
        s.correction = o->correction;
    if (o->step_input != RTCOSIM_SSD_STEP_INPUT_DEFAULT)
        s.step_input = o->step_input;
    if (o->has_step_control) {
        s.has_step_control = true;
        s.step_control = o->step_control;
    }
    if (o->step_rtol > 0) {
        s.step_rtol = o->step_rtol;
        s.step_atol = o->step_atol;
    }
    if (o->min_step_ns > 0)
        s.min_step_ns = o->min_step_ns;
    if (o->max_step_ns > 0)
        s.max_step_ns = o->max_step_ns;
    if (o->threads > 0)
        s.threads = o->threads;
    return s;
}

static bool is_member(const bool *members, int component_index)
{
    return !members || (component_index >= 0 && members[component_index]);
}

/* A power bond "comp.var" end: is comp among the members? */
static bool bond_end_is_member(const rtcosim_system_desc *d, const bool *members, const char *end)
{
    if (!members)
        return true;
    /* Component names of nested systems hold dots: try every split. */
    for (const char *dot = strchr(end, '.'); dot; dot = strchr(dot + 1, '.'))
        for (size_t i = 0; i < d->component_count; i++) {
            const char *name = d->components[i].pub.name;
            if (strlen(name) == (size_t)(dot - end) && strncmp(name, end, (size_t)(dot - end)) == 0)
                return members[i];
        }
    return false;
}

/* A connection between two FMI 3.0 arrays connects them element by element:
 * each element of the start, name[i,j], to the end's element with the same
 * indices, which must exist and be all of them (the same shape).
 * RTCOSIM_ENOTFOUND (no error set) when the start is no array. */
static rtcosim_status connect_arrays(rtcosim_master *m, const rtcosim_ssd_connection *cn,
                                     const rtcosim_coupling_options *o, rtcosim_error *err)
{
    const rtcosim_component *a = rtcosim_master_component(m, cn->start.component);
    const rtcosim_component *b = rtcosim_master_component(m, cn->end.component);
    size_t af, an, bf, bn;
    if (!a || !b || rtcosim_component_find_variable(a, cn->start.connector) ||
        !array_elements(a, cn->start.connector, &af, &an))
        return RTCOSIM_ENOTFOUND;
    if (!array_elements(b, cn->end.connector, &bf, &bn) || bn != an)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "connection %s.%s -> %s.%s: '%s' is an array of %zu elements, "
                                 "'%s' %s",
                                 cn->start.component, cn->start.connector, cn->end.component,
                                 cn->end.connector, cn->start.connector, an, cn->end.connector,
                                 bn ? "has another number" : "is no array");
    char from[NAME_MAX_LEN], to[NAME_MAX_LEN];
    size_t prefix = strlen(cn->start.connector);
    for (size_t k = 0; k < an; k++) {
        const char *suffix = rtcosim_component_variable(a, af + k)->name + prefix; /* "[i,j]" */
        snprintf(from, sizeof from, "%s.%s%s", cn->start.component, cn->start.connector, suffix);
        snprintf(to, sizeof to, "%s.%s%s", cn->end.component, cn->end.connector, suffix);
        rtcosim_status st = rtcosim_master_connect(m, from, to, o, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status connect_all(const rtcosim_system_desc *d, const bool *members,
                                  rtcosim_master *m, const rtcosim_coupling_options *base,
                                  rtcosim_error *err)
{
    char from[NAME_MAX_LEN], to[NAME_MAX_LEN];
    for (size_t i = 0; i < d->connection_count; i++) {
        const rtcosim_ssd_connection *cn = &d->connections[i];
        /* Connections from system parameters were resolved into component
         * parameters by the reader; system inputs and outputs have no
         * partner outside a top-level run. */
        if (cn->start.component_index < 0 || cn->end.component_index < 0)
            continue;
        if (!is_member(members, cn->start.component_index) ||
            !is_member(members, cn->end.component_index))
            continue;
        rtcosim_coupling_options o = *base;
        if (cn->has_linear_transformation || cn->has_unit_conversion) {
            o.has_transformation = true;
            o.factor = cn->factor;
            o.offset = cn->offset;
        }
        o.map_from = cn->map_from;
        o.map_to = cn->map_to;
        o.map_count = cn->map_count;
        rtcosim_status st = connect_arrays(m, cn, &o, err);
        if (st == RTCOSIM_ENOTFOUND) {
            snprintf(from, sizeof from, "%s.%s", cn->start.component, cn->start.connector);
            snprintf(to, sizeof to, "%s.%s", cn->end.component, cn->end.connector);
            st = rtcosim_master_connect(m, from, to, &o, err);
        }
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "%s:%d: ", d->label, cn->line);
    }
    return RTCOSIM_OK;
}

static rtcosim_status apply_parameters(const rtcosim_system_desc *d, const bool *members,
                                       rtcosim_master *m, rtcosim_error *err)
{
    char name[NAME_MAX_LEN], buf[64];
    for (size_t i = 0; i < d->component_count; i++) {
        if (!is_member(members, (int)i))
            continue;
        const rtcosim_ssd_component *sc = &d->components[i].pub;
        for (size_t k = 0; k < sc->parameter_count; k++) {
            const rtcosim_ssd_parameter *p = &sc->parameters[k];
            const char *text = NULL;
            parameter_text(p, buf, sizeof buf, &text);
            snprintf(name, sizeof name, "%s.%s", sc->name, p->name);
            rtcosim_status st = rtcosim_master_set_start_value(m, name, text, err);
            if (st != RTCOSIM_OK)
                return rtcosim_error_prefix(err, "%s:%d: parameter '%s': ", p->origin, p->line,
                                            name);
        }
    }
    return RTCOSIM_OK;
}

/* Whether the master's first `numbers` observed variables and first `texts`
 * observed String and Binary ones hold the variable of that name. */
static bool observed(const rtcosim_master *m, const char *name, size_t numbers, size_t texts)
{
    for (size_t i = 0; i < numbers; i++)
        if (strcmp(rtcosim_master_observed_name(m, i), name) == 0)
            return true;
    for (size_t i = 0; i < texts; i++)
        if (strcmp(rtcosim_master_text_observed_name(m, i), name) == 0)
            return true;
    return false;
}

/* One --output-variable: a component.variable (a whole FMI 3.0 array its
 * elements), or a shell pattern over "component.variable" ('engine.*',
 * '*.speed*') for every variable it matches but time, in the components'
 * and their variables' order, each once. */
static rtcosim_status observe(rtcosim_master *m, const char *name, rtcosim_error *err)
{
    /* (a pattern matches a variable once: only those observed before it
     * are looked through, linear in the variables for the first pattern) */
    size_t numbers = rtcosim_master_observed_count(m), texts = rtcosim_master_text_observed_count(m);
    if (observed(m, name, numbers, texts))
        return RTCOSIM_OK; /* (named twice, or after a pattern that matched it) */
    rtcosim_status st = rtcosim_master_observe(m, name, err);
    if (st == RTCOSIM_OK || !result_name_is_pattern(name))
        return st;
    st = RTCOSIM_OK;
    size_t matched = 0;
    char full[1024];
    for (size_t c = 0; st == RTCOSIM_OK && c < rtcosim_master_component_count(m); c++) {
        const char *comp = rtcosim_master_component_name_at(m, c);
        const rtcosim_component *component = rtcosim_master_component(m, comp);
        for (size_t k = 0; st == RTCOSIM_OK && k < rtcosim_component_variable_count(component);
             k++) {
            const rtcosim_variable *v = rtcosim_component_variable(component, k);
            if (v->causality == RTCOSIM_CAUSALITY_INDEPENDENT ||
                (size_t)snprintf(full, sizeof full, "%s.%s", comp, v->name) >= sizeof full ||
                fnmatch(name, full, 0) != 0)
                continue;
            matched++;
            if (!observed(m, full, numbers, texts))
                st = rtcosim_master_observe(m, full, err);
        }
    }
    if (st == RTCOSIM_OK && !matched)
        st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "no component.variable matches it");
    return st;
}

rtcosim_status rtcosim_system_build_master(const rtcosim_system_desc *d,
                                           const rtcosim_system_build_options *opts,
                                           rtcosim_master **out, rtcosim_error *err)
{
    static const rtcosim_system_build_options no_options = {0};
    if (!d || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_build_master: NULL argument");
    *out = NULL;
    if (!opts)
        opts = &no_options;
    rtcosim_ssd_master_settings s = merged_settings(d, &opts->overrides);
    if (d->component_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: the system has no components", d->label);

    /* Components first: without a macro step in the file, their default
     * experiments give it. */
    rtcosim_component **comps = calloc(d->component_count, sizeof *comps);
    if (!comps)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", d->label);
    rtcosim_status st = RTCOSIM_OK;
    rtcosim_time_ns smallest = 0;
    /* tables last: their columns take the types of the inputs they drive */
    for (size_t k = 0; k < 2 * d->component_count && st == RTCOSIM_OK; k++) {
        size_t i = k % d->component_count;
        const rtcosim_ssd_component *sc = &d->components[i].pub;
        if (!is_member(opts->members, (int)i) || is_table(sc) != (k >= d->component_count))
            continue;
        st = is_table(sc) ? load_table(d, i, comps, &comps[i], err)
                          : load_component(d, sc, opts, &comps[i], err);
        if (st != RTCOSIM_OK)
            break;
        const rtcosim_component_desc *cd = rtcosim_component_description(comps[i]);
        if (cd && cd->has_default_step && cd->default_step > 0 &&
            (smallest == 0 || cd->default_step < smallest))
            smallest = cd->default_step;
        if (opts->wrap) {
            rtcosim_component *inner = comps[i];
            comps[i] = NULL;
            st = opts->wrap(opts->wrap_context, sc->name, inner, &comps[i], err);
            if (st != RTCOSIM_OK)
                rtcosim_error_prefix(err, "%s:%d: component '%s': ", d->label, sc->line, sc->name);
        }
    }
    rtcosim_ssd_step_origin origin = RTCOSIM_STEP_FROM_OPTION;
    if (st == RTCOSIM_OK && !opts->overrides.has_step_size) {
        if (!rtcosim_system_desc_macro_step(d, &s.step_size_ns, &origin) && smallest > 0) {
            origin = RTCOSIM_STEP_FROM_COMPONENTS;
            s.step_size_ns = smallest;
        }
        s.has_step_size = origin != RTCOSIM_STEP_FROM_NONE;
    }
    if (st == RTCOSIM_OK && !s.has_step_size)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: no macro step size (give one on the command line, as stepSize "
                               "in the org.rtcosim.master annotation, as libcosim's FixedStepAlgorithm "
                               "baseStepSize, OMSimulator's FixedStepMaster stepSize or on "
                               "ssd:DefaultExperiment; no component has a "
                               "default experiment step either)",
                               d->label);
    if (opts->step_origin)
        *opts->step_origin = st == RTCOSIM_OK ? origin : RTCOSIM_STEP_FROM_NONE;

    rtcosim_master *m = NULL;
    if (st == RTCOSIM_OK && (st = rtcosim_master_create(s.step_size_ns, &m, err)) != RTCOSIM_OK)
        rtcosim_error_prefix(err, "%s: ", d->label);
    if (st == RTCOSIM_OK)
        rtcosim_master_set_strict_ranges(m, opts->fmu && opts->fmu->strict);
    for (size_t i = 0; i < d->component_count && st == RTCOSIM_OK; i++) {
        if (!comps[i])
            continue;
        const rtcosim_ssd_component *sc = &d->components[i].pub;
        unsigned multiple = step_multiple(d, i, s.step_size_ns,
                                          s.has_step_control && s.step_control, &st, err);
        if (st != RTCOSIM_OK)
            break;
        rtcosim_component *comp = comps[i];
        comps[i] = NULL; /* the master owns it now, also on failure */
        st = rtcosim_master_add_component(m, sc->name, comp, multiple, err);
        if (st == RTCOSIM_OK && sc->ecu)
            st = declare_no_feedthrough(m, sc, err);
        if (st != RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s:%d: ", d->label, sc->line);
    }
    for (size_t i = 0; i < d->component_count; i++)
        rtcosim_component_free(comps[i]);
    free(comps);

    rtcosim_coupling_options base;
    rtcosim_coupling_options_init(&base);
    base.extrapolation = extrapolation_of(s.coupling);
    base.correction = correction_of(s.correction);
    base.step_input = s.step_input == RTCOSIM_SSD_STEP_INPUT_START ? RTCOSIM_STEP_INPUT_START
                                                                   : RTCOSIM_STEP_INPUT_MEAN;
    if (st == RTCOSIM_OK) {
        rtcosim_master_set_coupling_defaults(m, &base);
        if (s.order != RTCOSIM_SSD_ORDER_DEFAULT)
            rtcosim_master_set_order(m, s.order == RTCOSIM_SSD_ORDER_GAUSS_SEIDEL
                                            ? RTCOSIM_ORDER_GAUSS_SEIDEL
                                            : RTCOSIM_ORDER_JACOBI);
        if (s.threads > 0 && (st = rtcosim_master_set_threads(m, (unsigned)s.threads, err)) != RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s: ", d->label);
    }
    if (st == RTCOSIM_OK && s.has_step_control && s.step_control) {
        rtcosim_step_control sc;
        rtcosim_step_control_init(&sc);
        sc.enabled = true;
        /* OMSimulator's VariableStepMaster bounds and tolerances. */
        if (d->oms_variable_step) {
            if (d->oms_min_step > 0)
                sc.min_step = d->oms_min_step;
            if (d->oms_max_step > 0)
                sc.max_step = d->oms_max_step;
            if (d->oms_rtol > 0)
                sc.rtol = d->oms_rtol;
            if (d->oms_atol > 0)
                sc.atol = d->oms_atol;
        }
        /* org.rtcosim.master / the command line over OMSimulator's. */
        if (s.step_rtol > 0) {
            sc.rtol = s.step_rtol;
            if (s.step_atol > 0)
                sc.atol = s.step_atol;
        }
        if (s.min_step_ns > 0)
            sc.min_step = s.min_step_ns;
        if (s.max_step_ns > 0)
            sc.max_step = s.max_step_ns;
        if (sc.min_step > 0 && sc.max_step > 0 && sc.min_step > sc.max_step) {
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "%s: step control: minimum step %.9g s above maximum %.9g s",
                                   d->label, rtcosim_time_to_seconds(sc.min_step),
                                   rtcosim_time_to_seconds(sc.max_step));
        } else if ((st = rtcosim_master_set_step_control(m, &sc, err)) != RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s: ", d->label);
    }
    if (st == RTCOSIM_OK)
        st = connect_all(d, opts->members, m, &base, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < d->bond_count; i++)
        if (bond_end_is_member(d, opts->members, d->bonds[i].effort) &&
            bond_end_is_member(d, opts->members, d->bonds[i].flow) &&
            (st = rtcosim_master_add_power_bond(m, d->bonds[i].effort, d->bonds[i].flow, err)) !=
            RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s:%d: ", d->label, d->bonds[i].line);
    if (st == RTCOSIM_OK)
        st = apply_parameters(d, opts->members, m, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < opts->observe_count; i++)
        if ((st = observe(m, opts->observe[i], err)) != RTCOSIM_OK)
            rtcosim_error_prefix(err, "output variable '%s': ", opts->observe[i]);
    if (st != RTCOSIM_OK) {
        rtcosim_master_free(m);
        return st;
    }
    *out = m;
    return RTCOSIM_OK;
}
