/* The UnitDefinitions element of a generated modelDescription.xml: one Unit
 * for every unit the described variables use, each once, as FMI 2.0 section
 * 2.2.2 and FMI 3.0 section 2.4.3 require of a unit attribute (fmusim refuses
 * a description whose unit is not defined there); FMI 1.0 (section 2.4) has
 * BaseUnit elements with a unit attribute instead. Shared by describe.c,
 * describe_fmi1.c and describe_se.c, each with its own attribute writer. */
#ifndef RTCOSIM_MODEL_DESCRIBE_UNITS_H
#define RTCOSIM_MODEL_DESCRIBE_UNITS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

static inline void describe_units_as(FILE *f, const model_def *m,
                                     bool (*shown)(const model_variable *),
                                     void (*put_attr)(const char *, const char *),
                                     const char *element, const char *attribute)
{
    bool any = false;
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (!v->unit || !shown(v))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = m->variables[j].unit && shown(&m->variables[j]) &&
                   strcmp(m->variables[j].unit, v->unit) == 0;
        if (seen)
            continue;
        fprintf(f, "%s    <%s", any ? "" : "  <UnitDefinitions>\n", element);
        any = true;
        put_attr(attribute, v->unit);
        fputs("/>\n", f);
    }
    if (any)
        fputs("  </UnitDefinitions>\n", f);
}

/* FMI 2.0 and 3.0: <Unit name="..."/>. */
static inline void describe_unit_definitions(FILE *f, const model_def *m,
                                             bool (*shown)(const model_variable *),
                                             void (*put_attr)(const char *, const char *))
{
    describe_units_as(f, m, shown, put_attr, "Unit", "name");
}

#endif
