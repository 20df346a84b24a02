/* String and Binary outputs in `rtcosim run` results: the master samples
 * numbers only, so these are read from their components when a row is kept,
 * each in a column of its own type (Binary as hex, as fmusim writes it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_text_columns.h"

int run_text_columns_init(run_text_columns *t, const rtcosim_master *m)
{
    *t = (run_text_columns){0};
    size_t n = rtcosim_master_text_observed_count(m);
    if (n == 0)
        return 0;
    t->components = calloc(n, sizeof *t->components);
    t->vrs = calloc(n, sizeof *t->vrs);
    t->types = calloc(n, sizeof *t->types);
    t->names = calloc(n, sizeof *t->names);
    if (!t->components || !t->vrs || !t->types || !t->names)
        return cli_fail("out of memory");
    t->count = n;
    for (size_t i = 0; i < n; i++) {
        const char *component;
        const rtcosim_variable *v;
        rtcosim_master_text_observed(m, i, &component, &t->components[i], &v);
        t->vrs[i] = v->value_reference;
        t->types[i] = v->type;
        size_t size = strlen(component) + strlen(v->name) + 2;
        if (!(t->names[i] = malloc(size)))
            return cli_fail("out of memory");
        snprintf(t->names[i], size, "%s.%s", component, v->name);
    }
    return 0;
}

rtcosim_status run_text_columns_read(const run_text_columns *t, rtcosim_value *row,
                                     rtcosim_error *err)
{
    for (size_t i = 0; i < t->count; i++) {
        rtcosim_status st = rtcosim_component_get(t->components[i], t->types[i], &t->vrs[i], 1,
                                                  t->types[i] == RTCOSIM_TYPE_STRING
                                                      ? (void *)&row[i].s
                                                      : (void *)&row[i].bin,
                                                  err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "output variable '%s': ", t->names[i]);
    }
    return RTCOSIM_OK;
}

void run_text_columns_free(run_text_columns *t)
{
    for (size_t i = 0; t->names && i < t->count; i++)
        free(t->names[i]);
    free(t->components);
    free(t->vrs);
    free(t->types);
    free(t->names);
    *t = (run_text_columns){0};
}
