/* Shared state of libcosim's OspSystemStructure reader (system_osp.c: the
 * document, simulators, connections, functions; system_osp_groups.c:
 * variable groups through OspModelDescription.xml). */
#ifndef RTCOSIM_SYSTEM_OSP_H
#define RTCOSIM_SYSTEM_OSP_H

#include "system/system_internal.h"

#define MAX_GROUP_DEPTH 16

typedef struct osp_function {
    const char *name;
    double factor, offset;
    const rtcosim_ssd_endpoint *in, *out; /* the variables its signals connect to */
    int line;
} osp_function;

typedef struct osp_bond_end {
    const char *bond, *input; /* powerBond name, input end "comp.var" */
    int line;
} osp_bond_end;

typedef struct osp_ctx {
    rtcosim_system_desc *d;
    const char *label;
    rtcosim_error *err;
    osp_function *functions;
    size_t function_count, function_cap;
    osp_bond_end *bond_ends;
    size_t bond_end_count, bond_end_cap;
    xmlDoc **model_docs; /* per component: its OspModelDescription, or NULL */
} osp_ctx;

#define OFAIL(o, node, status, ...) system_fail((o)->err, status, (o)->label, node, __VA_ARGS__)

/* "label:line: message" for a place known by its line only. */
rtcosim_status osp_line_fail(osp_ctx *o, int line, rtcosim_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
bool osp_is(const xmlNode *n, const char *local); /* element of the OSPSystemStructure namespace */
/* An output or calculated parameter: the end a connection starts from. */
bool osp_drives(const rtcosim_ssd_connector *c);
/* A Variable / VariableGroup endpoint (group: no connector looked up). */
rtcosim_status osp_endpoint(osp_ctx *o, const xmlNode *n, rtcosim_ssd_endpoint *ep,
                            const rtcosim_ssd_connector **conn, bool group);
/* Add the connection between a and b, output end first; *input (if given)
 * gets "comp.var" of the input end. */
rtcosim_status osp_add_connection(osp_ctx *o, int line, rtcosim_ssd_endpoint a,
                                  const rtcosim_ssd_connector *ca, rtcosim_ssd_endpoint b,
                                  const rtcosim_ssd_connector *cb, double factor, double offset,
                                  bool transformed, const char **input);
/* The two endpoint children named local of a connection element. */
rtcosim_status osp_two_children(osp_ctx *o, const xmlNode *n, const char *local,
                                const xmlNode **a, const xmlNode **b);
/* system_osp_groups.c: one VariableGroupConnection. */
rtcosim_status osp_read_group_connection(osp_ctx *o, const xmlNode *n);

#endif
