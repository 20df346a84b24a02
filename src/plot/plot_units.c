/* Units for result columns that carry none, from the model that made them:
 * an FMU's variables, an SSD/SSP's connectors or a DBC's signals. The
 * names are copied so the model can be closed at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot_internal.h"
#include "rtcosim/component.h"
#include "rtcosim/dbc.h"
#include "rtcosim/fmu.h"
#include "rtcosim/system.h"
#include "util/text.h"

struct plot_unit_map {
    size_t count, capacity;
    char **names, **units;
};

void plot_unit_map_free(plot_unit_map *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++) {
        free(m->names[i]);
        free(m->units[i]);
    }
    free(m->names);
    free(m->units);
    free(m);
}

/* Adds "prefix.name" (or name) -> unit; units that are absent or empty are
 * not worth keeping. */
static bool add(plot_unit_map *m, const char *prefix, const char *name, const char *unit)
{
    if (!unit || !*unit || !name)
        return true;
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? m->capacity * 2 : 64;
        char **n = realloc(m->names, cap * sizeof *n);
        if (n)
            m->names = n;
        char **u = realloc(m->units, cap * sizeof *u);
        if (u)
            m->units = u;
        if (!n || !u)
            return false;
        m->capacity = cap;
    }
    size_t len = (prefix ? strlen(prefix) + 1 : 0) + strlen(name) + 1;
    char *full = malloc(len);
    char *copy = strdup(unit);
    if (!full || !copy) {
        free(full);
        free(copy);
        return false;
    }
    if (prefix)
        snprintf(full, len, "%s.%s", prefix, name);
    else
        snprintf(full, len, "%s", name);
    m->names[m->count] = full;
    m->units[m->count++] = copy;
    return true;
}

rtcosim_status plot_unit_map_load(const char *path, plot_unit_map **out, rtcosim_error *err)
{
    *out = NULL;
    plot_unit_map *m = calloc(1, sizeof *m);
    if (!m)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    bool ok = true;
    rtcosim_status st = RTCOSIM_OK;
    if (util_path_has_ending(path, ".fmu")) {
        rtcosim_component *c = NULL;
        st = rtcosim_fmu_load(path, NULL, &c, err);
        for (size_t i = 0; st == RTCOSIM_OK && ok && i < rtcosim_component_variable_count(c); i++) {
            const rtcosim_variable *v = rtcosim_component_variable(c, i);
            ok = add(m, NULL, v->name, v->unit);
        }
        rtcosim_component_free(c);
    } else if (util_path_has_ending(path, ".dbc") || util_path_has_ending(path, ".arxml")) {
        rtcosim_dbc *dbc = NULL;
        st = rtcosim_dbc_load(path, &dbc, err);
        for (size_t i = 0; st == RTCOSIM_OK && ok && i < rtcosim_dbc_message_count(dbc); i++) {
            const rtcosim_dbc_message *msg = rtcosim_dbc_message_at(dbc, i);
            for (size_t k = 0; ok && k < msg->signal_count; k++)
                ok = add(m, msg->name, msg->signals[k].name, msg->signals[k].unit);
        }
        rtcosim_dbc_free(dbc);
    } else if (util_path_has_ending(path, ".ssd") || util_path_has_ending(path, ".ssp") ||
               util_path_has_ending(path, ".xml")) {
        rtcosim_system_desc *d = NULL;
        st = rtcosim_system_desc_load(path, &d, err);
        for (size_t i = 0; st == RTCOSIM_OK && ok && i < rtcosim_system_desc_connector_count(d); i++) {
            const rtcosim_ssd_connector *k = rtcosim_system_desc_connector(d, i);
            ok = add(m, NULL, k->name, k->unit);
        }
        for (size_t i = 0; st == RTCOSIM_OK && ok && i < rtcosim_system_desc_component_count(d); i++) {
            const rtcosim_ssd_component *c = rtcosim_system_desc_component(d, i);
            for (size_t k = 0; ok && k < c->connector_count; k++)
                ok = add(m, c->name, c->connectors[k].name, c->connectors[k].unit);
        }
        rtcosim_system_desc_free(d);
    } else {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: units are read from an .fmu, .ssd, .ssp, .dbc or .arxml file",
                               path);
    }
    if (st == RTCOSIM_OK && !ok)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    if (st != RTCOSIM_OK) {
        plot_unit_map_free(m);
        return st;
    }
    *out = m;
    return RTCOSIM_OK;
}

const char *plot_unit_map_find(const plot_unit_map *m, const char *column)
{
    if (!m)
        return NULL;
    size_t n = strlen(column);
    const char *suffix_unit = NULL;
    for (size_t i = 0; i < m->count; i++) {
        const char *name = m->names[i];
        size_t k = strlen(name);
        if (k == n && strcmp(name, column) == 0)
            return m->units[i];
        /* "can0.Engine.Speed" matches the DBC's "Engine.Speed" */
        if (!suffix_unit && k < n && column[n - k - 1] == '.' && strcmp(column + n - k, name) == 0)
            suffix_unit = m->units[i];
    }
    return suffix_unit;
}
