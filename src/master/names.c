/* Names in the master: a component by name, "component.variable" split and
 * resolved (component and variable names may hold dots), a variable's own
 * name when one component alone has it, and errors that say what is missing
 * with the nearest name. */
#include <stdio.h>
#include <string.h>

#include "master/master_internal.h"

int master_find_component(const rtcosim_master *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->comp_count; i++)
        if (strlen(m->comps[i].name) == len && strncmp(m->comps[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

/* The dot that ends the component part of "comp.var". Component names may
 * hold dots themselves (flattened nested SSP systems: "sub.comp"), and so
 * may variable names: the first split whose component has that variable
 * wins, else the longest split naming a component (an array's base name),
 * else the first dot. *ci is the component or -1. */
const char *master_split_name(const rtcosim_master *m, const char *text, int *ci)
{
    const char *fallback = NULL;
    *ci = -1;
    for (const char *dot = strchr(text, '.'); dot; dot = strchr(dot + 1, '.')) {
        int i = master_find_component(m, text, (size_t)(dot - text));
        if (i < 0)
            continue;
        if (rtcosim_component_find_variable(m->comps[i].c, dot + 1)) {
            *ci = i;
            return dot;
        }
        fallback = dot;
        *ci = i;
    }
    return fallback ? fallback : strchr(text, '.');
}

/* Resolve "comp.var" to indices; errors name the text and what is missing. */
rtcosim_status master_resolve(const rtcosim_master *m, const char *what, const char *text,
                              size_t *comp, size_t *var, rtcosim_error *err)
{
    int ci = -1;
    *comp = *var = 0;
    const char *dot = text ? master_split_name(m, text, &ci) : NULL;
    /* not component.variable: a variable's own name, when one component
     * alone has it (`rtcosim run model.fmu`: the FMU's, beside its input
     * table's columns) */
    if (text && (!dot || ci < 0 || !rtcosim_component_find_variable(m->comps[ci].c, dot + 1))) {
        const rtcosim_variable *found = NULL;
        size_t owner = 0, owners = 0;
        for (size_t i = 0; i < m->comp_count; i++) {
            const rtcosim_variable *v = rtcosim_component_find_variable(m->comps[i].c, text);
            if (v && owners++ == 0) {
                found = v;
                owner = i;
            } else if (v) {
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is a variable of "
                                         "components '%s' and '%s': name it component.variable",
                                         what, text, m->comps[owner].name, m->comps[i].name);
            }
        }
        if (found) {
            *comp = owner;
            *var = (size_t)(found - rtcosim_component_variable(m->comps[owner].c, 0));
            return RTCOSIM_OK;
        }
    }
    if (text && m->comp_count == 1 && (!dot || ci < 0)) {
        const char *near = rtcosim_component_nearest_variable(m->comps[0].c, text);
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                 "%s: component '%s' (the system's only one) has no variable "
                                 "'%s'%s%s%s", what, m->comps[0].name, text,
                                 near ? "; did you mean '" : "", near ? near : "",
                                 near ? "'?" : "");
    }
    if (!dot)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: '%s' is not of the form component.variable", what,
                                 text ? text : "");
    if (ci < 0) {
        /* "Did you mean": the component whose name is nearest by edit distance. */
        char typed[256];
        snprintf(typed, sizeof typed, "%.*s", (int)(dot - text), text);
        const char *near = NULL;
        size_t best = (size_t)-1;
        for (size_t i = 0; i < m->comp_count; i++) {
            size_t d = rtcosim_edit_distance(typed, m->comps[i].name);
            if (d < best && rtcosim_name_is_close(typed, m->comps[i].name, d)) {
                best = d;
                near = m->comps[i].name;
            }
        }
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no component '%s'%s%s%s", what,
                                 typed, near ? "; did you mean '" : "", near ? near : "",
                                 near ? "'?" : "");
    }
    const rtcosim_variable *v = rtcosim_component_find_variable(m->comps[ci].c, dot + 1);
    if (!v) {
        const char *near = rtcosim_component_nearest_variable(m->comps[ci].c, dot + 1);
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                 "%s: component '%s' has no variable '%s'%s%s%s%s%s", what,
                                 m->comps[ci].name, dot + 1, near ? "; did you mean '" : "",
                                 near ? m->comps[ci].name : "", near ? "." : "",
                                 near ? near : "", near ? "'?" : "");
    }
    *comp = (size_t)ci;
    *var = (size_t)(v - rtcosim_component_variable(m->comps[ci].c, 0));
    return RTCOSIM_OK;
}
