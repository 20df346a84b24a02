/* What the parts of the modelDescription.xml reader share (internal to
 * src/fmi): the parser context, the rule-violation reporting (errors, and
 * warnings that --strict turns into errors), string storage in the
 * description, and the XML Schema value syntax. The parts: md_values.c
 * (values), md_variables.c (ModelVariables, FMI 3.0 arrays), md_structure.c
 * (ModelStructure), model_description.c (document, interfaces, entry points). */
#ifndef RTCOSIM_FMI_MD_INTERNAL_H
#define RTCOSIM_FMI_MD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "fmi/model_description.h"

#pragma GCC visibility push(hidden)

struct rtcosim_fmi_md_string {
    rtcosim_fmi_md_string *next;
    char text[];
};

/* A declared type's unit and range (attribute texts, NULL when absent), for
 * lookups by type name. */
typedef struct md_type_unit {
    const char *name;
    const char *unit;
    const char *min, *max;
    const char *kind; /* FMI 2: SimpleType's child (Real, ...); FMI 3: Float64Type, ...; "" */
} md_type_unit;

/* A unit UnitDefinitions defines (display NULL), or one of its display units. */
typedef struct md_unit_name {
    const char *unit, *display;
} md_unit_name;

/* Parsing context: the description being filled and the violation count. */
typedef struct md_parser {
    rtcosim_fmi_md *md;
    const char *label;
    rtcosim_error *err;
    unsigned violations;
    bool strict;            /* warnings are violations */
    bool out_of_memory;
    /* Lookup tables so that large descriptions parse in O(n log n). */
    md_type_unit *units;    /* TypeDefinitions, sorted by name (md_units.c) */
    size_t unit_count;
    md_unit_name *unit_names; /* UnitDefinitions, sorted (md_units.c) */
    size_t unit_name_count;
    /* FMI 3: the variables as declared (before arrays are expanded into their
     * elements): their value references, indices sorted by (vr, index), and
     * where each one's elements start in md->variables and how many. */
    size_t declared_count;
    uint32_t *declared_vr;
    size_t *vr_order;
    size_t *first_element, *element_count;
    long *alias_of;         /* per variable (elements): its FMI 3 Alias base, else -1 */
    int interface;          /* rtcosim_fmi_md_interface: the element required */
    bool model_exchange_fallback; /* see rtcosim_fmi_md_options */
    bool quiet;             /* see rtcosim_fmi_md_options */
} md_parser;

/* An error: the first becomes p->err, later ones are logged. */
void md_violation(md_parser *p, rtcosim_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A rule the standard states but whose violation does not stop a correct
 * run (the Reference FMUs and fmusim accept it): logged as a warning naming
 * the variable and counted in md->warning_count; with strict, an error.
 * Messages say "<rule broken> (<section>)[; <what rtcosim does instead>]";
 * the part after the last ';' is left out of the strict error. */
void md_lenient(md_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *md_keep_n(md_parser *p, const char *text, size_t len);
/* An attribute's value copied into the description's storage, or NULL. */
const char *md_attr(md_parser *p, xmlNode *node, const char *name);
bool md_is_element(const xmlNode *n, const char *name);
xmlNode *md_child(xmlNode *parent, const char *name);

/* XML Schema value syntax (md_values.c). */
bool md_parse_double(const char *text, double *out);
bool md_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out);
bool md_parse_uint(const char *text, uint64_t hi, uint64_t *out);
bool md_parse_bool(const char *text, bool *out);
bool md_parse_start(md_parser *p, rtcosim_type type, const char *text, rtcosim_value *out);
/* v's min/max from the attributes of `typed` (the element holding the type
 * facts), a missing one from the declared type's (`declared`, may be NULL);
 * an unreadable bound is a lenient violation and ignored. */
void md_read_range(md_parser *p, xmlNode *typed, const md_type_unit *declared,
                   rtcosim_variable *v);
/* UnitDefinitions and TypeDefinitions (md_units.c), read before the
 * variables into p's tables, the definitions themselves checked. */
void md_read_definitions(md_parser *p, xmlNode *root);
/* A variable's declared type, with the lenient rules on its unit (the
 * variable's own, may be NULL), displayUnit and declaredType (attributes of
 * `typed`, the element holding the type facts): the declared type's unit
 * and range, NULL when there is none, no such type or one of another kind. */
const md_type_unit *md_variable_units(md_parser *p, xmlNode *typed, const char *name,
                                      const char *unit, const char *declared_type);
/* The next white-space separated token at *c (its length in *len), moving *c
 * past it; NULL at the end. */
const char *md_next_token(const char **c, size_t *len);

/* Per-variable raw facts needed after the whole list is read. */
typedef struct var_extra {
    const char *derivative_text; /* FMI 2: 1-based index; FMI 3: value reference */
    const char *declared_type;
    long alias_of;               /* FMI 3 Alias: index of the variable it names, else -1 */
    xmlNode *node;               /* FMI 3: the variable element */
    xmlNode *typed;              /* the element holding start (FMI 2: the type child) */
    bool is_array;               /* FMI 3: has <Dimension> children */
    bool start_wanted;           /* arrays: start list parsed at expansion */
} var_extra;

/* Largest number of elements of all arrays together (protects memory from
 * hostile sizes; the Reference FMUs' StateSpace has a few dozen). */
#define MD_MAX_ELEMENTS (UINT64_C(1) << 22)

/* md_variables.c: ModelVariables into md->variables (FMI 3.0 arrays as
 * their elements). */
void md_read_variables(md_parser *p, xmlNode *root);
/* FMI 3: the variables a value reference names: *count elements from the
 * returned index (1 for a scalar); -1 when none. */
long md_find_vr(const md_parser *p, uint64_t vr, size_t *count);
/* FMI 3: the declared variable (before expansion) with this value reference. */
long md_find_declared(const md_parser *p, uint64_t vr);

/* md_arrays.c: expand the declared table (arrays into their elements), fill
 * p->first_element, p->element_count, p->alias_of and md->arrays. */
void md_expand_arrays(md_parser *p, const var_extra *extra);

/* md_clocks.c: FMI 3.0 Clock attributes, `clocks` of clocked variables,
 * Binary maxSize/mimeType (after md_read_variables). */
void md_read_clocks(md_parser *p, xmlNode *root);

/* md_fmi1.c: an FMI 1.0 description's root attributes, Implementation and
 * ModelVariables. */
void md_read_fmi1(md_parser *p, xmlNode *root);

/* md_structure.c: ModelStructure. */
void md_read_outputs(md_parser *p, xmlNode *root);
void md_read_continuous_structure(md_parser *p, xmlNode *root);

#pragma GCC visibility pop

#endif
