/* Shared state of the SSD reader's parts (ssd.c, ssd_elements.c,
 * ssd_connections.c, ssd_annotations.c): the parse context of one system
 * level and the helpers each part uses. */
#ifndef RTCOSIM_SSD_INTERNAL_H
#define RTCOSIM_SSD_INTERNAL_H

#include "system/system_internal.h"

typedef struct parse_ctx {
    rtcosim_system_desc *d;
    const char *label;
    rtcosim_error *err;
    /* The system being read: its dotted path from the top system followed by
     * a dot ("" for the top system), and its index among the nested systems
     * (-1 for the top system). */
    const char *path;
    int sub;
} parse_ctx;

#define FAIL(ctx, node, status, ...) system_fail((ctx)->err, status, (ctx)->label, node, __VA_ARGS__)
#define NOMEM(ctx) rtcosim_error_set((ctx)->err, RTCOSIM_ENOMEM, "%s: out of memory", (ctx)->label)

/* First child element ns:local of n, or NULL. */
const xmlNode *ssd_child(const xmlNode *n, const char *ns, const char *local);
/* rel resolved against the description's base directory (arena string). */
const char *ssd_join_path(rtcosim_system_desc *d, const char *rel);

/* Whether rel leaves the .ssp package (SSP 1.0 section 4; never for a plain
 * .ssd or with allow_outside). */
bool ssd_escapes_package(const rtcosim_system_desc *d, const char *rel);
/* A source attribute's file (a parameter set, mapping or dictionary; `what`
 * names it in errors): resolved against the description, kept inside a
 * .ssp, readable; *label is how messages name it ("archive.ssp:name"). */
rtcosim_status ssd_resolve_source(parse_ctx *ctx, const xmlNode *n, const char *source,
                                  const char *what, const char **path, const char **label);
/* The content of an element that holds it inline (its first child element)
 * or names a file in `source` (resolved as ssd_resolve_source with `kind`):
 * read(ctx, root, label, arg) on either; both or neither is an error
 * naming `what` and `inline_name`. */
typedef rtcosim_status (*ssd_content_reader)(parse_ctx *ctx, const xmlNode *root,
                                             const char *label, void *arg);
rtcosim_status ssd_read_source_or_inline(parse_ctx *ctx, const xmlNode *n, const char *what,
                                         const char *inline_name, const char *kind,
                                         ssd_content_reader read, void *arg);
/* ssm.c: a binding's ssd:ParameterMapping, inline or from its source. */
rtcosim_status ssd_read_binding_mapping(parse_ctx *ctx, const xmlNode *n, system_param_map *out);

/* ssd_elements.c: a system's connectors, elements (components and nested
 * systems, recursively) and connections as written; then, after
 * ssd_flatten_connections, its parameter bindings and those of its elements,
 * outer before inner so that the more specific binding wins. */
rtcosim_status ssd_read_system(parse_ctx *ctx, const xmlNode *sys);
rtcosim_status ssd_read_system_bindings(parse_ctx *ctx, const xmlNode *sys);

/* ssd_dictionaries.c: the ssd:SignalDictionaries of the system in ctx (each
 * a junction among d->subsystems), and one ssd:SignalDictionaryReference
 * element named full (its dictionary looked up from ctx's system outwards). */
rtcosim_status ssd_read_signal_dictionaries(parse_ctx *ctx, const xmlNode *list);
rtcosim_status ssd_read_dictionary_reference(parse_ctx *ctx, const xmlNode *n, const char *full);
/* The reference named full, or NULL. */
const system_dict_ref *ssd_find_dictionary_reference(const rtcosim_system_desc *d,
                                                     const char *full);
/* The value type of a connector or dictionary entry n (its ssc:Real, ...
 * child) into out (type, unit, enumeration); what names it in messages. */
rtcosim_status ssd_read_value_type(parse_ctx *ctx, const xmlNode *n, const char *what,
                                   rtcosim_ssd_connector *out);

/* ssd_connections.c: one ssd:Connection of the system in ctx, as written. */
rtcosim_status ssd_read_connection(parse_ctx *ctx, const xmlNode *n);
/* Replace the connections as written (through nested systems' connectors) by
 * connections between components and top-system connectors. */
rtcosim_status ssd_flatten_connections(parse_ctx *ctx);

/* ssd_maps.c: ssd:Enumerations; a mapping transformation of a connection
 * from connector a to b into cn; down(up(x)) as one map into down. */
rtcosim_status ssd_read_enumerations(parse_ctx *ctx, const xmlNode *list);
rtcosim_status ssd_read_mapping(parse_ctx *ctx, const xmlNode *t, const rtcosim_ssd_connector *a,
                                const rtcosim_ssd_connector *b, rtcosim_ssd_connection *cn);
rtcosim_status ssd_compose_maps(rtcosim_system_desc *d, const rtcosim_ssd_connection *up,
                                rtcosim_ssd_connection *down);

/* ssd_annotations.c */
rtcosim_status ssd_read_default_experiment(parse_ctx *ctx, const xmlNode *exp);
rtcosim_status ssd_read_annotations(parse_ctx *ctx, const xmlNode *owner);
/* A component's own annotations: libcosim's osp:StepSizeHint. */
rtcosim_status ssd_read_component_annotations(parse_ctx *ctx, const xmlNode *n,
                                              rtcosim_ssd_component *c);
/* ssd_ecu.c: the org.rtcosim.ecu annotation of a shared-object component;
 * whether a component's source is a shared object; the annotation and such
 * a source come together (else an error naming the line of n). */
rtcosim_status ssd_read_ecu(parse_ctx *ctx, const xmlNode *a, rtcosim_ssd_component *c);
bool ssd_is_shared_object(const rtcosim_ssd_component *c);
rtcosim_status ssd_check_ecu(parse_ctx *ctx, const xmlNode *n, const rtcosim_ssd_component *c);
/* Add an information line "label:line: text" (rtcosim_system_desc_info). */
rtcosim_status ssd_info(parse_ctx *ctx, const xmlNode *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
