/* ModelStructure of modelDescription.xml (FMI 2.0 section 2.2.8, FMI 3.0
 * section 2.4.8): the listed outputs with their `dependencies`, and for
 * model exchange the continuous-state derivatives and event indicators. An
 * FMI 3.0 array listed by its value reference stands for all its elements. */
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "fmi/md_internal.h"
#include "rtcosim/log.h"

/* The variables an item's reference names: FMI 2 a 1-based index, FMI 3 a
 * value reference (several elements for an array). -1 when none. */
static long item_target(md_parser *p, const char *text, size_t *count)
{
    const rtcosim_fmi_md *md = p->md;
    *count = 1;
    if (!text)
        return -1;
    if (md->version == RTCOSIM_FMI_2) {
        int64_t k;
        return md_parse_int(text, 1, (int64_t)md->variable_count, &k) ? (long)(k - 1) : -1;
    }
    uint64_t vr;
    return md_parse_uint(text, UINT32_MAX, &vr) ? md_find_vr(p, vr, count) : -1;
}

/* The continuous states (one per listed derivative element, in the listed
 * order) and, for FMI 3.0, the event indicators (one per EventIndicator
 * element). Each listed derivative must be a float variable with a
 * `derivative` attribute: model exchange cannot run otherwise (an error). */
void md_read_continuous_structure(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    xmlNode *ms = md_child(root, "ModelStructure");
    if (!ms)
        return;
    xmlNode *list = md->version == RTCOSIM_FMI_2 ? md_child(ms, "Derivatives") : ms;
    const char *item = md->version == RTCOSIM_FMI_2 ? "Unknown" : "ContinuousStateDerivative";
    const char *key = md->version == RTCOSIM_FMI_2 ? "index" : "valueReference";
    for (xmlNode *n = list ? list->children : NULL; n; n = n->next) {
        if (!md_is_element(n, item))
            continue;
        xmlChar *text = xmlGetProp(n, (const xmlChar *)key);
        size_t count;
        long index = item_target(p, (const char *)text, &count);
        if (index < 0 || md->variables[index].derivative_of < 0)
            md_violation(p, RTCOSIM_EFORMAT,
                         "ModelStructure derivative '%s' refers to no variable with a derivative attribute",
                         text ? (const char *)text : "(missing)");
        else
            md->state_count += count;
        xmlFree(text);
    }
    if (md->version == RTCOSIM_FMI_3)
        for (xmlNode *n = ms->children; n; n = n->next) {
            if (!md_is_element(n, "EventIndicator"))
                continue;
            xmlChar *text = xmlGetProp(n, (const xmlChar *)"valueReference");
            size_t count;
            long index = item_target(p, (const char *)text, &count);
            md->event_indicator_count += index < 0 ? 1 : count;
            xmlFree(text);
        }
}

/* The `dependencies` attribute of the k-th listed output (of `count`):
 * FMI 2.0 section 2.2.8, 1-based ScalarVariable indices; FMI 3.0 section
 * 2.4.8, value references; separated by white space. Absent: the output
 * depends on all knowns (recorded as not declared); present and empty: on
 * none. Kept as indices into the variable table, so that an importer can
 * order its steps without assuming direct feedthrough everywhere. An entry
 * that names no variable is a warning; the output is then taken to depend
 * on everything (as if the attribute were absent), which is always safe. */
static void read_output_dependencies(md_parser *p, xmlNode *item, size_t k, size_t count)
{
    rtcosim_fmi_md *md = p->md;
    if (!md->output_dependency_start) {
        md->output_dependencies_declared = calloc(count ? count : 1, sizeof(bool));
        md->output_dependency_start = calloc(count + 1, sizeof(size_t));
        if (!md->output_dependencies_declared || !md->output_dependency_start) {
            p->out_of_memory = true;
            return;
        }
    }
    size_t first = md->output_dependency_start[k];
    md->output_dependency_start[k + 1] = first;
    xmlChar *text = xmlGetProp(item, (const xmlChar *)"dependencies");
    if (!text)
        return;
    const char *s = (const char *)text, *c, *token;
    size_t tokens = 0, len;
    for (c = s; (token = md_next_token(&c, &len)) != NULL;) {
        char buf[32];
        size_t span = 1;
        if (len < sizeof buf) {
            memcpy(buf, token, len);
            buf[len] = '\0';
            if (item_target(p, buf, &span) < 0)
                span = 1;
        }
        tokens += span;
    }
    size_t *grown = tokens ? realloc(md->output_dependencies, (first + tokens) * sizeof(size_t))
                           : md->output_dependencies;
    if (tokens && !grown) {
        p->out_of_memory = true;
        xmlFree(text);
        return;
    }
    md->output_dependencies = grown;
    const char *output = md->variables[md->output_indices[k]].name;
    size_t n = first;
    bool complete = true;
    for (c = s; (token = md_next_token(&c, &len)) != NULL;) {
        char buf[32];
        long index = -1;
        size_t span = 1;
        if (len < sizeof buf) {
            memcpy(buf, token, len);
            buf[len] = '\0';
            index = item_target(p, buf, &span);
        }
        if (index < 0) {
            md_lenient(p, "ModelStructure output '%s': dependencies entry '%.*s' refers to no variable "
                          "(FMI 2.0 section 2.2.8, FMI 3.0 section 2.4.8); taken to depend on all inputs",
                       output, (int)(len < 64 ? len : 64), token);
            complete = false;
        } else {
            for (size_t e = 0; e < span; e++)
                md->output_dependencies[n++] = (size_t)index + e;
        }
    }
    if (complete) {
        md->output_dependencies_declared[k] = true;
        md->output_dependency_start[k + 1] = n;
    }
    xmlFree(text);
}

/* ModelStructure outputs: FMI 2 Outputs/Unknown@index (1-based), FMI 3
 * Output@valueReference (an array: each element). Each must name an output
 * variable (FMI 2.0 section 2.2.8, FMI 3.0 section 2.4.8); one that does not
 * is left out with a warning: the variables' own causality decides what is
 * an output, so the run is not affected. */
void md_read_outputs(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    xmlNode *ms = md_child(root, "ModelStructure");
    if (!ms)
        return;
    xmlNode *list = md->version == RTCOSIM_FMI_2 ? md_child(ms, "Outputs") : ms;
    if (!list)
        return;
    const char *item = md->version == RTCOSIM_FMI_2 ? "Unknown" : "Output";
    const char *key = md->version == RTCOSIM_FMI_2 ? "index" : "valueReference";
    size_t count = 0;
    for (xmlNode *n = list->children; n; n = n->next)
        if (md_is_element(n, item)) {
            xmlChar *text = xmlGetProp(n, (const xmlChar *)key);
            size_t span;
            count += item_target(p, (const char *)text, &span) < 0 ? 1 : span;
            xmlFree(text);
        }
    md->output_indices = calloc(count ? count : 1, sizeof *md->output_indices);
    if (!md->output_indices) {
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *n = list->children; n; n = n->next) {
        if (!md_is_element(n, item))
            continue;
        xmlChar *text = xmlGetProp(n, (const xmlChar *)key);
        const char *t = text ? (const char *)text : "(missing)";
        size_t span;
        long index = item_target(p, (const char *)text, &span);
        if (index < 0)
            md_lenient(p, "ModelStructure output %s='%s' refers to no variable; left out", key, t);
        else if (md->variables[index].causality != RTCOSIM_CAUSALITY_OUTPUT)
            md_lenient(p, "ModelStructure output %s='%s' refers to variable '%s', which is not an "
                          "output; left out",
                       key, t, md->variables[index].name);
        else
            for (size_t e = 0; e < span; e++) {
                md->output_indices[md->output_count] = (size_t)index + e;
                read_output_dependencies(p, n, md->output_count++, count);
            }
        xmlFree(text);
    }
    /* Every output should be listed too; only warn, as exporters often get
     * this wrong and it does not stop a co-simulation. */
    bool *listed = calloc(md->variable_count ? md->variable_count : 1, sizeof *listed);
    if (!listed) {
        p->out_of_memory = true;
        return;
    }
    for (size_t k = 0; k < md->output_count; k++)
        listed[md->output_indices[k]] = true;
    for (size_t j = 0; j < md->variable_count; j++)
        if (md->variables[j].causality == RTCOSIM_CAUSALITY_OUTPUT && !listed[j] &&
            !(p->alias_of && p->alias_of[j] >= 0 && listed[p->alias_of[j]]) && !p->quiet)
            rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: output '%s' is missing from ModelStructure",
                        p->label, md->variables[j].name);
    free(listed);
}
