/* FMI 3.0 array variables (section 2.4.7.4, <Dimension>): their sizes, fixed
 * or from structural parameters, their elements `name[i,j]` (1-based,
 * row-major) with start values from the space-separated list, and the
 * description's `arrays` table that maps the elements' own value references
 * back to the FMU's array. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "fmi/md_internal.h"

#define MD_MAX_DIMENSIONS 16

/* The sizes of an array variable's dimensions (FMI 3.0 section 2.4.7.4,
 * <Dimension>): a fixed `start`, or the `valueReference` of a structural
 * parameter (section 2.4.7.4, causality structuralParameter, an unsigned
 * integer variable) whose start value gives the size; rtcosim does not use
 * Configuration Mode, so the size stays that start value. False on error. */
static bool array_shape(md_parser *p, size_t i, const var_extra *x, uint64_t *dims, size_t *ndims,
                        uint64_t *count)
{
    const rtcosim_fmi_md *md = p->md;
    const char *name = md->variables[i].name;
    *ndims = 0;
    *count = 1;
    for (xmlNode *d = x->node->children; d; d = d->next) {
        if (!md_is_element(d, "Dimension"))
            continue;
        if (*ndims == MD_MAX_DIMENSIONS) {
            md_violation(p, RTCOSIM_EUNSUPPORTED, "variable '%s': more than %d dimensions", name,
                         MD_MAX_DIMENSIONS);
            return false;
        }
        xmlChar *start = xmlGetProp(d, (const xmlChar *)"start");
        xmlChar *vr_text = xmlGetProp(d, (const xmlChar *)"valueReference");
        uint64_t size = 0, vr = 0;
        bool ok = false;
        if (start && !vr_text) {
            ok = md_parse_uint((const char *)start, UINT32_MAX, &size);
            if (!ok)
                md_violation(p, RTCOSIM_EFORMAT, "variable '%s': Dimension start='%s' is not a size",
                             name, (const char *)start);
        } else if (vr_text && !start) {
            long s = md_parse_uint((const char *)vr_text, UINT32_MAX, &vr) ? md_find_declared(p, vr) : -1;
            const rtcosim_variable *sp = s >= 0 ? &md->variables[s] : NULL;
            bool unsigned_type = sp && (sp->type == RTCOSIM_TYPE_UINT8 || sp->type == RTCOSIM_TYPE_UINT16 ||
                                        sp->type == RTCOSIM_TYPE_UINT32 || sp->type == RTCOSIM_TYPE_UINT64);
            bool signed_type = sp && (sp->type == RTCOSIM_TYPE_INT8 || sp->type == RTCOSIM_TYPE_INT16 ||
                                      sp->type == RTCOSIM_TYPE_INT32 || sp->type == RTCOSIM_TYPE_INT64);
            if (!sp || !(unsigned_type || signed_type) || !sp->has_start ||
                (signed_type && sp->start.i64 < 0)) {
                md_violation(p, RTCOSIM_EFORMAT,
                             "variable '%s': Dimension valueReference='%s' names no integer variable "
                             "with a start value",
                             name, (const char *)vr_text);
            } else {
                if (sp->causality != RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER)
                    md_lenient(p, "variable '%s': Dimension valueReference='%s' names '%s', which is "
                                  "not a structural parameter (FMI 3.0 section 2.4.7.4)",
                               name, (const char *)vr_text, sp->name);
                size = unsigned_type ? sp->start.u64 : (uint64_t)sp->start.i64;
                ok = true;
            }
        } else {
            md_violation(p, RTCOSIM_EFORMAT,
                         "variable '%s': a Dimension needs exactly one of start and valueReference", name);
        }
        xmlFree(start);
        xmlFree(vr_text);
        if (!ok)
            return false;
        dims[(*ndims)++] = size;
        if (size && *count > MD_MAX_ELEMENTS / size) {
            md_violation(p, RTCOSIM_EUNSUPPORTED, "variable '%s': more than %" PRIu64 " elements",
                         name, MD_MAX_ELEMENTS);
            return false;
        }
        *count *= size;
    }
    return true;
}

/* "name[i,j]" for element k (row-major, 1-based, as Modelica and FMI 2.0's
 * structured naming convention write indices). */
static const char *element_name(md_parser *p, const char *base, const uint64_t *dims,
                                size_t ndims, uint64_t k)
{
    uint64_t index[MD_MAX_DIMENSIONS];
    for (size_t d = ndims; d-- > 0;) {
        index[d] = dims[d] ? k % dims[d] : 0;
        k = dims[d] ? k / dims[d] : 0;
    }
    size_t len = strlen(base);
    char *text = malloc(len + ndims * 21 + 3);
    if (!text) {
        p->out_of_memory = true;
        return base;
    }
    size_t at = (size_t)sprintf(text, "%s[", base);
    for (size_t d = 0; d < ndims; d++)
        at += (size_t)sprintf(text + at, d ? ",%" PRIu64 : "%" PRIu64, index[d] + 1);
    text[at++] = ']';
    const char *kept = md_keep_n(p, text, at);
    free(text);
    return kept ? kept : base;
}

/* An array's start values: a white-space separated list in row-major order
 * (FMI 3.0 section 2.4.7.5), String arrays one <Start value> child per
 * element. One value for several elements is taken for all with a warning. */
static void array_start(md_parser *p, const var_extra *x, const char *name,
                        rtcosim_variable *elements, uint64_t n)
{
    const rtcosim_variable *v = &elements[0];
    if (n == 0)
        return;
    uint64_t got = 0;
    if (v->type == RTCOSIM_TYPE_STRING) {
        for (xmlNode *s = x->node->children; s; s = s->next)
            if (md_is_element(s, "Start")) {
                const char *value = md_attr(p, s, "value");
                if (got < n && value)
                    elements[got].start.s = value;
                got++;
            }
    } else {
        xmlChar *text = xmlGetProp(x->typed, (const xmlChar *)"start");
        const char *c = (const char *)text, *token;
        size_t len;
        while (c && (token = md_next_token(&c, &len)) != NULL) {
            if (got < n) {
                char buf[128];
                bool ok = len < sizeof buf;
                if (ok) {
                    memcpy(buf, token, len);
                    buf[len] = '\0';
                    ok = md_parse_start(p, v->type, buf, &elements[got].start);
                }
                if (!ok) {
                    md_violation(p, RTCOSIM_EFORMAT,
                                 "variable '%s': start value '%.*s' is not a valid %s value",
                                 elements[got].name, (int)(len < 64 ? len : 64), token,
                                 rtcosim_type_name(v->type));
                    xmlFree(text);
                    return;
                }
            }
            got++;
        }
        xmlFree(text);
    }
    if (got == 1 && n > 1) {
        md_lenient(p, "variable '%s': one start value for %" PRIu64 " elements (FMI 3.0 section "
                      "2.4.7.5 wants one per element); used for all", name, n);
        for (uint64_t k = 1; k < n; k++)
            elements[k].start = elements[0].start;
    } else if (got != n) {
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': %" PRIu64 " start values for %" PRIu64
                                         " elements", name, got, n);
        return;
    }
    for (uint64_t k = 0; k < n; k++)
        elements[k].has_start = true;
}

/* Replace the declared table by the elements: scalars stay, each array
 * becomes its elements with value references from above every declared one
 * (an Alias of an array shares its base's), and md->arrays records each. */
void md_expand_arrays(md_parser *p, const var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    size_t n = md->variable_count, arrays = 0;
    p->first_element = calloc(n ? n : 1, sizeof *p->first_element);
    p->element_count = calloc(n ? n : 1, sizeof *p->element_count);
    uint64_t (*dims)[MD_MAX_DIMENSIONS] = calloc(n ? n : 1, sizeof *dims);
    size_t *ndims = calloc(n ? n : 1, sizeof *ndims);
    if (!p->first_element || !p->element_count || !dims || !ndims) {
        free(dims);
        free(ndims);
        p->out_of_memory = true;
        return;
    }
    uint64_t total = 0, max_vr = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t count = 1;
        if (md->variables[i].value_reference > max_vr)
            max_vr = md->variables[i].value_reference;
        if (extra[i].is_array && !array_shape(p, i, &extra[i], dims[i], &ndims[i], &count))
            count = 0;
        if (extra[i].is_array && extra[i].alias_of < 0)
            arrays++;
        p->first_element[i] = (size_t)total;
        p->element_count[i] = (size_t)count;
        total += count;
        if (total > MD_MAX_ELEMENTS + n) {
            md_violation(p, RTCOSIM_EUNSUPPORTED, "arrays with more than %" PRIu64 " elements in all",
                         MD_MAX_ELEMENTS);
            break;
        }
    }
    if (arrays == 0 || p->violations || p->out_of_memory) {
        /* The table stays as declared; only the Alias bases are kept. */
        free(dims);
        free(ndims);
        p->alias_of = malloc((n ? n : 1) * sizeof *p->alias_of);
        if (!p->alias_of) {
            p->out_of_memory = true;
            return;
        }
        for (size_t i = 0; i < n; i++) {
            p->alias_of[i] = extra[i].alias_of;
            p->first_element[i] = i;
            p->element_count[i] = 1;
        }
        return;
    }
    if (max_vr + 1 + total > UINT32_MAX) {
        md_violation(p, RTCOSIM_EUNSUPPORTED,
                     "no value references left above %" PRIu64 " for the %" PRIu64 " array elements",
                     max_vr, total);
        free(dims);
        free(ndims);
        return;
    }
    rtcosim_variable *all = calloc(total ? total : 1, sizeof *all);
    md->arrays = calloc(arrays, sizeof *md->arrays);
    long *alias_of = malloc((total ? total : 1) * sizeof *alias_of);
    if (!all || !md->arrays || !alias_of) {
        free(all);
        free(alias_of);
        free(dims);
        free(ndims);
        p->out_of_memory = true;
        return;
    }
    md->element_vr_base = (uint32_t)(max_vr + 1);
    uint32_t next_vr = md->element_vr_base;
    for (size_t i = 0; i < n; i++) {
        size_t first = p->first_element[i], count = p->element_count[i];
        long base = extra[i].alias_of;
        for (size_t e = 0; e < count; e++)
            alias_of[first + e] = base >= 0 ? (long)(p->first_element[base] + e) : -1;
        if (!extra[i].is_array) {
            all[first] = md->variables[i];
            continue;
        }
        for (size_t e = 0; e < count; e++) {
            rtcosim_variable *el = &all[first + e];
            *el = md->variables[i];
            el->name = element_name(p, md->variables[i].name, dims[i], ndims[i], e);
            el->value_reference = base >= 0 ? all[p->first_element[base] + e].value_reference
                                            : next_vr + (uint32_t)e;
        }
        if (extra[i].start_wanted)
            array_start(p, &extra[i], md->variables[i].name, &all[first], count);
        if (base < 0) {
            md->arrays[md->array_count++] = (rtcosim_fmi_md_array){
                .value_reference = md->variables[i].value_reference,
                .type = md->variables[i].type,
                .first = first,
                .count = count,
                .first_vr = next_vr,
            };
            next_vr += (uint32_t)count;
        }
    }
    md->element_vr_end = next_vr;
    free(md->variables);
    md->variables = all;
    md->variable_count = (size_t)total;
    free(p->alias_of);
    p->alias_of = alias_of;
    free(dims);
    free(ndims);
}

