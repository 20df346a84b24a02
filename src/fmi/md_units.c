/* The units and declared types a modelDescription.xml defines, for the
 * variables that use them (md_variables.c): TypeDefinitions' units and
 * ranges by type name, and UnitDefinitions' units and display units. A unit,
 * display unit or declared type a variable names must be defined there (FMI
 * 2.0 sections 2.2.2, 2.2.3 and 2.2.7, FMI 3.0 sections 2.4.3, 2.4.4 and
 * 2.4.7); fmusim refuses a description that breaks it, the run does not
 * need it (the unit is text for the results): a lenient rule, refused with
 * --strict. Both tables are read before the variables and searched by
 * bsearch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/md_internal.h"

/* Whether UnitDefinitions defines the unit (display NULL) or a DisplayUnit
 * of it so named (p's table, read first). */
static bool unit_defined(const md_parser *p, const char *unit, const char *display);

/* The displayUnit of a variable's or type's element (what: "variable",
 * "type"), if any, must be a DisplayUnit of its unit. */
static void check_display_unit(md_parser *p, xmlNode *element, const char *what,
                               const char *name, const char *unit)
{
    xmlChar *display = xmlGetProp(element, (const xmlChar *)"displayUnit");
    if (display && !unit)
        md_lenient(p, "%s '%s': displayUnit '%s' without a unit (FMI 2.0 section 2.2.2, FMI 3.0 "
                      "section 2.4.3); ignored", what, name, (const char *)display);
    else if (display && !unit_defined(p, unit, (const char *)display))
        md_lenient(p, "%s '%s': displayUnit '%s' is not a DisplayUnit of its unit '%s' in "
                      "UnitDefinitions (FMI 2.0 section 2.2.2, FMI 3.0 section 2.4.3); ignored",
                   what, name, (const char *)display, unit);
    xmlFree(display);
}

/* ---- TypeDefinitions ---- */

static int by_type_name(const void *a, const void *b)
{
    return strcmp(((const md_type_unit *)a)->name, ((const md_type_unit *)b)->name);
}

/* Every named type of TypeDefinitions with its unit and range (FMI 2:
 * SimpleType's Real, Integer or Enumeration child; FMI 3: Float64Type,
 * Int32Type, ... itself); a type's unit checked against UnitDefinitions. */
static void read_types(md_parser *p, xmlNode *root)
{
    xmlNode *defs = md_child(root, "TypeDefinitions");
    if (!defs)
        return;
    size_t count = 0;
    for (xmlNode *t = defs->children; t; t = t->next)
        count += t->type == XML_ELEMENT_NODE;
    p->units = calloc(count ? count : 1, sizeof *p->units);
    if (!p->units) {
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *t = defs->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE)
            continue;
        xmlNode *holder = t;
        if (p->md->version == RTCOSIM_FMI_2) {
            holder = md_child(t, "Real");
            if (!holder)
                holder = md_child(t, "Integer");
            if (!holder)
                holder = md_child(t, "Enumeration");
        }
        const char *name = md_attr(p, t, "name");
        if (!name)
            continue;
        /* its kind: FMI 2 the SimpleType's child (Real, ...), FMI 3 the
         * element (Float64Type, ...) */
        const xmlNode *kind = p->md->version == RTCOSIM_FMI_2 ? xmlFirstElementChild(t) : t;
        md_type_unit facts = {name, NULL, NULL, NULL, kind ? (const char *)kind->name : ""};
        if (holder) {
            facts.unit = md_attr(p, holder, "unit");
            facts.min = md_attr(p, holder, "min");
            facts.max = md_attr(p, holder, "max");
        }
        if (facts.unit && !unit_defined(p, facts.unit, NULL))
            md_lenient(p, "type '%s': unit '%s' is not defined in UnitDefinitions (FMI 2.0 section "
                          "2.2.2, FMI 3.0 section 2.4.3); kept as its unit", name, facts.unit);
        if (holder)
            check_display_unit(p, holder, "type", name, facts.unit);
        p->units[p->unit_count++] = facts;
    }
    qsort(p->units, p->unit_count, sizeof *p->units, by_type_name);
    for (size_t i = 1; i < p->unit_count; i++) /* (a lookup finds one of them) */
        if (strcmp(p->units[i - 1].name, p->units[i].name) == 0)
            md_lenient(p, "TypeDefinitions: type '%s' is defined twice (FMI 2.0 section 2.2.3, "
                          "FMI 3.0 section 2.4.4: names are unique)", p->units[i].name);
}

/* ---- UnitDefinitions ---- */

/* Units sort by name, each followed by its display units (display NULL:
 * the unit itself, first). */
static int by_unit(const void *a, const void *b)
{
    const md_unit_name *x = a, *y = b;
    int c = strcmp(x->unit, y->unit);
    if (c || x->display == y->display)
        return c;
    if (!x->display || !y->display)
        return x->display ? 1 : -1;
    return strcmp(x->display, y->display);
}

static bool unit_defined(const md_parser *p, const char *unit, const char *display)
{
    md_unit_name key = {unit, display};
    return p->unit_name_count && bsearch(&key, p->unit_names, p->unit_name_count,
                                         sizeof *p->unit_names, by_unit);
}

static void read_unit_names(md_parser *p, xmlNode *root)
{
    xmlNode *defs = md_child(root, "UnitDefinitions");
    if (!defs)
        return;
    size_t count = 0;
    for (xmlNode *u = defs->children; u; u = u->next)
        for (xmlNode *d = u->children; md_is_element(u, "Unit") && d; d = d->next)
            count += md_is_element(d, "DisplayUnit");
    for (xmlNode *u = defs->children; u; u = u->next)
        count += md_is_element(u, "Unit");
    if (!(p->unit_names = calloc(count ? count : 1, sizeof *p->unit_names))) {
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *u = defs->children; u; u = u->next) {
        const char *unit = md_is_element(u, "Unit") ? md_attr(p, u, "name") : NULL;
        if (md_is_element(u, "Unit") && (!unit || !*unit))
            md_lenient(p, "UnitDefinitions: a Unit without a name (FMI 2.0 section 2.2.2, FMI 3.0 "
                          "section 2.4.3); ignored");
        if (!unit || !*unit)
            continue;
        p->unit_names[p->unit_name_count++] = (md_unit_name){unit, NULL};
        for (xmlNode *d = u->children; d; d = d->next) {
            const char *display = md_is_element(d, "DisplayUnit") ? md_attr(p, d, "name") : NULL;
            if (display)
                p->unit_names[p->unit_name_count++] = (md_unit_name){unit, display};
        }
    }
    qsort(p->unit_names, p->unit_name_count, sizeof *p->unit_names, by_unit);
    for (size_t i = 1; i < p->unit_name_count; i++)
        if (by_unit(&p->unit_names[i - 1], &p->unit_names[i]) == 0)
            md_lenient(p, "UnitDefinitions: %s '%s' is defined twice (FMI 2.0 section 2.2.2, FMI "
                          "3.0 section 2.4.3: names are unique)",
                       p->unit_names[i].display ? "display unit" : "unit",
                       p->unit_names[i].display ? p->unit_names[i].display
                                                : p->unit_names[i].unit);
}

void md_read_definitions(md_parser *p, xmlNode *root)
{
    read_unit_names(p, root);
    read_types(p, root);
}

const md_type_unit *md_variable_units(md_parser *p, xmlNode *typed, const char *name,
                                      const char *unit, const char *declared_type)
{
    md_type_unit key = {declared_type, NULL, NULL, NULL, NULL};
    const md_type_unit *declared =
        declared_type && p->unit_count
            ? bsearch(&key, p->units, p->unit_count, sizeof *p->units, by_type_name)
            : NULL;
    if (declared_type && !declared)
        md_lenient(p, "variable '%s': declaredType '%s' is not defined in TypeDefinitions (FMI "
                      "2.0 section 2.2.7, FMI 3.0 section 2.4.7); ignored", name, declared_type);
    /* the type's kind must be the variable's: a Real's a SimpleType of a
     * Real (FMI 2.0 section 2.2.3), a Float64's a Float64Type (FMI 3.0
     * section 2.4.4) */
    char want[64];
    snprintf(want, sizeof want, "%s%s", (const char *)typed->name,
             p->md->version == RTCOSIM_FMI_2 ? "" : "Type");
    if (declared && strcmp(declared->kind, want) != 0) {
        md_lenient(p, "variable '%s': declaredType '%s' is of kind %s, not %s (FMI 2.0 section "
                      "2.2.3, FMI 3.0 section 2.4.4); ignored", name, declared_type,
                   declared->kind[0] ? declared->kind : "type of no kind", want);
        declared = NULL;
    }
    if (unit && !unit_defined(p, unit, NULL))
        md_lenient(p, "variable '%s': unit '%s' is not defined in UnitDefinitions (FMI 2.0 "
                      "section 2.2.2, FMI 3.0 section 2.4.3); kept as its unit", name, unit);
    check_display_unit(p, typed, "variable", name, unit ? unit : declared ? declared->unit : NULL);
    return declared;
}
