/* `rtcosim run SYSTEM --input-file in.csv` (rtcosim_system_load_options.
 * input_file): the input table joins the loaded system as a table component
 * (table.c) connected to the inputs its columns name, "component.variable"
 * (component names may hold dots) or a connector's own name when one
 * component alone has an input of that name. Each named input must be an
 * input no connection drives yet, of a type a table gives (Real, Integer,
 * Enumeration, Boolean); the column takes its type and is held from row to
 * row unless the input is a continuous Real (build.c); an Int64 or UInt64
 * column is read exactly (table.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "system/system_internal.h"

/* Does `rest` name the connector `name`, or an element of that array
 * ("u[2]", as the model's variable table names it)? */
static bool names_connector(const char *name, const char *rest, bool *element)
{
    size_t len = strlen(name);
    if (strncmp(name, rest, len) != 0)
        return false;
    *element = rest[len] == '[';
    return rest[len] == '\0' || (*element && rest[strlen(rest) - 1] == ']');
}

/* The input connector a column names: *comp and *conn (and in *element the
 * array element it names, "u[2]", else NULL), or an error. */
static rtcosim_status find_input(const rtcosim_system_desc *d, size_t table, const char *input,
                                 const char *column, size_t *comp, size_t *conn,
                                 const char **element, rtcosim_error *err)
{
    *element = NULL;
    size_t found = 0;
    for (int pass = 0; pass < 2 && !found; pass++) {
        for (size_t i = 0; i < d->component_count; i++) {
            if (i == table)
                continue;
            const system_component *c = &d->components[i];
            size_t len = strlen(c->pub.name);
            /* pass 0: component.variable; pass 1: the variable's own name */
            const char *rest = pass ? column
                               : strncmp(column, c->pub.name, len) == 0 && column[len] == '.'
                                   ? column + len + 1
                                   : NULL;
            for (size_t k = 0; rest && k < c->connector_count; k++) {
                bool is_element = false;
                if (!names_connector(c->connectors[k].name, rest, &is_element))
                    continue;
                if (found++)
                    return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s' names "
                                             "connectors of components '%s' and '%s': name it "
                                             "component.variable", input, column,
                                             d->components[*comp].pub.name, c->pub.name);
                *comp = i;
                *conn = k;
                *element = is_element ? rest : NULL;
            }
        }
    }
    if (!found)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: column '%s': the system has no "
                                 "such connector (component.variable)", input, column);
    const rtcosim_ssd_connector *k = &d->components[*comp].connectors[*conn];
    if (k->kind != RTCOSIM_CONNECTOR_INPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s': %s.%s is not an input",
                                 input, column, d->components[*comp].pub.name, k->name);
    if (k->type == RTCOSIM_SSP_STRING || k->type == RTCOSIM_SSP_BINARY)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: column '%s': %s.%s is a %s "
                                 "input; an input file gives numbers and Booleans", input, column,
                                 d->components[*comp].pub.name, k->name,
                                 rtcosim_ssp_type_name(k->type));
    for (size_t i = 0; i < d->connection_count; i++) {
        const rtcosim_ssd_connection *cn = &d->connections[i];
        bool part = false; /* the whole array, or the same element */
        if (cn->end.component_index == (int)*comp &&
            (strcmp(cn->end.connector, k->name) == 0 ||
             (*element && strcmp(cn->end.connector, *element) == 0) ||
             (!*element && names_connector(k->name, cn->end.connector, &part))))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s': %s.%s is driven "
                                     "by a connection already (line %d)", input, column,
                                     d->components[*comp].pub.name, k->name, cn->line);
    }
    return RTCOSIM_OK;
}

rtcosim_status system_add_input_table(rtcosim_system_desc *d, const char *input,
                                      const table_map *map, rtcosim_error *err)
{
    char *path = realpath(input, NULL);
    if (!path)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: cannot open input file: %s", input,
                                 strerror(errno));
    const char *stored = system_strdup(d, path);
    free(path);
    /* a name no component has: input, input_2, ... */
    const char *name = "input";
    for (unsigned n = 2;; n++) {
        bool taken = false;
        for (size_t i = 0; i < d->component_count && !taken; i++)
            taken = strcmp(d->components[i].pub.name, name) == 0;
        if (!taken)
            break;
        if (!(name = system_printf(d, "input_%u", n)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    system_component *c =
        system_grow(&d->components, &d->component_count, &d->component_cap, sizeof *c);
    if (!stored || !c)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    size_t table = d->component_count - 1;
    *c = (system_component){.pub = {.name = name, .source = stored, .path = stored,
                                    .mime_type = "text/csv"}};
    if (map && map->count) { /* the mapping's names, kept with the system */
        const char **column = system_alloc(d, map->count * sizeof *column);
        const char **in = system_alloc(d, map->count * sizeof *in);
        for (size_t i = 0; column && in && i < map->count; i++)
            if (!(column[i] = system_strdup(d, map->column[i])) ||
                !(in[i] = system_strdup(d, map->input[i])))
                column = NULL;
        if (!column || !in)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        c->map = (table_map){.count = map->count, .column = column, .input = in};
    }
    rtcosim_status st = system_model_connectors(d, c, true, err);
    if (st != RTCOSIM_OK)
        return st;
    /* the table's connectors are its columns, in order */
    for (size_t k = 0; k < d->components[table].connector_count && st == RTCOSIM_OK; k++) {
        const char *column = d->components[table].connectors[k].name;
        size_t comp = 0, conn = 0;
        const char *element = NULL;
        st = find_input(d, table, input, column, &comp, &conn, &element, err);
        rtcosim_ssd_connection *slot =
            st == RTCOSIM_OK
                ? system_grow(&d->connections, &d->connection_count, &d->connection_cap,
                              sizeof *slot)
                : NULL;
        if (st == RTCOSIM_OK && !slot)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        if (st != RTCOSIM_OK)
            break;
        const system_component *to = &d->components[comp];
        *slot = (rtcosim_ssd_connection){
            .start = {name, column, (int)table, (int)k},
            .end = {to->pub.name, element ? element : to->connectors[conn].name, (int)comp,
                    (int)conn},
            .factor = 1};
    }
    system_sync(d);
    return st;
}
