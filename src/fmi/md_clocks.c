/* FMI 3.0 clocks in modelDescription.xml: the attributes of <Clock> variables
 * (section 2.4.7.3, ClockAttributes; the types of section 2.2.8), the
 * `clocks` attribute of clocked variables (section 2.4.7.4) and Binary
 * maxSize / mimeType (section 2.4.7.3). Read in a second pass over
 * ModelVariables once the variable table and its value-reference index exist. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "fmi/md_internal.h"

static const char *const kind_words[] = {
    [RTCOSIM_FMI_CLOCK_CONSTANT] = "constant", [RTCOSIM_FMI_CLOCK_FIXED] = "fixed",
    [RTCOSIM_FMI_CLOCK_TUNABLE] = "tunable",   [RTCOSIM_FMI_CLOCK_CHANGING] = "changing",
    [RTCOSIM_FMI_CLOCK_COUNTDOWN] = "countdown", [RTCOSIM_FMI_CLOCK_TRIGGERED] = "triggered",
};

const char *rtcosim_fmi_clock_kind_name(rtcosim_fmi_clock_kind kind)
{
    return (unsigned)kind < sizeof kind_words / sizeof kind_words[0] ? kind_words[kind] : "?";
}

static bool is_periodic(rtcosim_fmi_clock_kind k)
{
    return k == RTCOSIM_FMI_CLOCK_CONSTANT || k == RTCOSIM_FMI_CLOCK_FIXED ||
           k == RTCOSIM_FMI_CLOCK_TUNABLE;
}

static bool is_variable_node(const xmlNode *n)
{
    static const char *const types[] = {"Float64", "Float32", "Int8",    "UInt8",  "Int16",
                                        "UInt16",  "Int32",   "UInt32",  "Int64",  "UInt64",
                                        "Boolean", "String",  "Binary",  "Clock",  "Enumeration"};
    if (n->type != XML_ELEMENT_NODE)
        return false;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp((const char *)n->name, types[i]) == 0)
            return true;
    return false;
}

/* The first element of the declared variable this node is, or -1. */
static long node_variable(md_parser *p, xmlNode *node)
{
    const char *vr_text = md_attr(p, node, "valueReference");
    uint64_t vr;
    if (!vr_text || !md_parse_uint(vr_text, UINT32_MAX, &vr))
        return -1; /* already reported by md_variables.c */
    size_t count = 0;
    long at = md_find_vr(p, vr, &count);
    /* A zero-size array has no element to describe. */
    return at >= 0 && count > 0 && (size_t)at < p->md->variable_count ? at : -1;
}

static bool read_u64(md_parser *p, xmlNode *node, const char *name, const char *var,
                     uint64_t *out)
{
    const char *t = md_attr(p, node, name);
    *out = 0;
    if (!t)
        return false;
    if (!md_parse_uint(t, UINT64_MAX, out)) {
        md_violation(p, RTCOSIM_EFORMAT, "clock '%s': %s='%s' is not an unsigned number", var, name,
                     t);
        return false;
    }
    return true;
}

/* One <Clock>: the kind decides when the importer activates it, the interval
 * and shift when a periodic one ticks, the priority the order at one instant.
 * Wrong values there would tick it at wrong times: errors. Attributes the
 * standard forbids for the kind but which change nothing rtcosim does:
 * warnings (FMI 3.0 section 2.4.7.3). */
static void read_clock(md_parser *p, xmlNode *node, size_t variable, rtcosim_fmi_md_clock *c)
{
    rtcosim_variable *v = &p->md->variables[variable];
    const char *name = v->name;
    c->variable = variable;
    c->interval = NAN;
    if (v->causality != RTCOSIM_CAUSALITY_INPUT && v->causality != RTCOSIM_CAUSALITY_OUTPUT &&
        v->causality != RTCOSIM_CAUSALITY_LOCAL)
        md_violation(p, RTCOSIM_EFORMAT,
                     "clock '%s': causality must be input, output or local (FMI 3.0 section 2.4.7.4)",
                     name);
    if (v->variability != RTCOSIM_VARIABILITY_DISCRETE)
        md_violation(p, RTCOSIM_EFORMAT,
                     "clock '%s': variability must be discrete (FMI 3.0 section 2.4.7.4)", name);
    const char *kind = md_attr(p, node, "intervalVariability");
    int k = -1;
    for (size_t i = 0; kind && i < sizeof kind_words / sizeof kind_words[0]; i++)
        if (strcmp(kind, kind_words[i]) == 0)
            k = (int)i;
    if (kind && k < 0 && strcmp(kind, "changeable") == 0) {
        /* The word of FMI 3.0 drafts and of some exporters. */
        md_lenient(p, "clock '%s': intervalVariability 'changeable' is spelled 'changing' (FMI 3.0 "
                      "section 2.4.7.3); taken as 'changing'", name);
        k = RTCOSIM_FMI_CLOCK_CHANGING;
    }
    if (k < 0) {
        md_violation(p, RTCOSIM_EFORMAT,
                     kind ? "clock '%s': unknown intervalVariability '%s' (FMI 3.0 section 2.4.7.3)"
                          : "clock '%s': intervalVariability is required (FMI 3.0 section 2.4.7.3)%s",
                     name, kind ? kind : "");
        return;
    }
    c->kind = (rtcosim_fmi_clock_kind)k;
    if (c->kind != RTCOSIM_FMI_CLOCK_TRIGGERED && v->causality == RTCOSIM_CAUSALITY_OUTPUT)
        md_violation(p, RTCOSIM_EFORMAT,
                     "clock '%s': an output clock must be triggered, not %s (FMI 3.0 section 2.2.8)",
                     name, kind_words[c->kind]);

    const char *priority = md_attr(p, node, "priority");
    if (priority) {
        uint64_t pr;
        if (!md_parse_uint(priority, UINT32_MAX, &pr))
            md_violation(p, RTCOSIM_EFORMAT, "clock '%s': priority '%s' is not a 32-bit unsigned number",
                         name, priority);
        else if (v->causality == RTCOSIM_CAUSALITY_OUTPUT)
            md_lenient(p, "clock '%s': an output clock must not have a priority (FMI 3.0 section "
                          "2.4.7.3); ignored", name);
        else
            c->has_priority = true, c->priority = (uint32_t)pr;
    }
    const char *flag = md_attr(p, node, "canBeDeactivated");
    if (flag && !md_parse_bool(flag, &c->can_be_deactivated))
        md_violation(p, RTCOSIM_EFORMAT, "clock '%s': canBeDeactivated '%s' is not a boolean", name, flag);
    flag = md_attr(p, node, "supportsFraction");
    if (flag && !md_parse_bool(flag, &c->supports_fraction))
        md_violation(p, RTCOSIM_EFORMAT, "clock '%s': supportsFraction '%s' is not a boolean", name, flag);

    const char *interval = md_attr(p, node, "intervalDecimal");
    const char *shift = md_attr(p, node, "shiftDecimal");
    if (interval) {
        if (!md_parse_double(interval, &c->interval) || !isfinite(c->interval) || c->interval <= 0) {
            md_violation(p, RTCOSIM_EFORMAT,
                         "clock '%s': intervalDecimal '%s' must be a number greater than 0 (FMI 3.0 "
                         "section 2.4.7.3)", name, interval);
            return;
        }
        c->has_interval = true;
    }
    if (shift) {
        if (!md_parse_double(shift, &c->shift) || !isfinite(c->shift) || c->shift < 0) {
            md_violation(p, RTCOSIM_EFORMAT,
                         "clock '%s': shiftDecimal '%s' must be a number of at least 0 (FMI 3.0 "
                         "section 2.4.7.3)", name, shift);
            return;
        }
        if (!interval)
            md_lenient(p, "clock '%s': shiftDecimal needs intervalDecimal (FMI 3.0 section 2.4.7.3)",
                       name);
    }
    bool has_resolution = read_u64(p, node, "resolution", name, &c->resolution);
    bool has_counter = read_u64(p, node, "intervalCounter", name, &c->interval_counter);
    read_u64(p, node, "shiftCounter", name, &c->shift_counter);
    if ((has_resolution && c->resolution == 0) || (has_counter && c->interval_counter == 0)) {
        md_violation(p, RTCOSIM_EFORMAT,
                     "clock '%s': %s must be greater than 0 (FMI 3.0 section 2.4.7.3)", name,
                     has_counter && c->interval_counter == 0 ? "intervalCounter" : "resolution");
        return;
    }
    if (has_counter && !has_resolution) {
        md_lenient(p, "clock '%s': intervalCounter needs resolution (FMI 3.0 section 2.4.7.3); "
                      "ignored", name);
        c->interval_counter = c->shift_counter = 0;
    } else if (has_counter) {
        if (!c->supports_fraction)
            md_lenient(p, "clock '%s': intervalCounter needs supportsFraction=\"true\" (FMI 3.0 "
                          "section 2.4.7.3)", name);
        /* The rational interval is exact; the decimal one is its rounding. */
        double counted = (double)c->interval_counter / (double)c->resolution;
        if (c->has_interval && fabs(counted - c->interval) > 1e-9 * counted)
            md_lenient(p, "clock '%s': intervalDecimal %g differs from intervalCounter/resolution "
                          "%g (FMI 3.0 section 2.4.7.3); the counter is used", name, c->interval,
                       counted);
        c->interval = counted;
        c->shift = (double)c->shift_counter / (double)c->resolution;
        c->has_interval = true;
    }
    if (c->has_interval && !is_periodic(c->kind)) {
        md_lenient(p, "clock '%s': a %s clock must not declare an interval (FMI 3.0 section "
                      "2.4.7.3); ignored", name, kind_words[c->kind]);
        c->has_interval = false;
        c->interval = NAN;
        c->shift = 0;
    }
    if (c->has_interval && c->shift >= c->interval)
        md_lenient(p, "clock '%s': shift %g is not below the interval %g (FMI 3.0 section 2.2.8)",
                   name, c->shift, c->interval);
    if (!c->has_interval && c->kind == RTCOSIM_FMI_CLOCK_CONSTANT)
        md_lenient(p, "clock '%s': a constant clock needs intervalDecimal (FMI 3.0 section "
                      "2.4.7.3); the interval is asked of the FMU", name);
}

static int by_variable(const void *a, const void *b)
{
    size_t x = ((const rtcosim_fmi_md_clock *)a)->variable;
    size_t y = ((const rtcosim_fmi_md_clock *)b)->variable;
    return x < y ? -1 : x > y;
}

long rtcosim_fmi_md_clock_of(const rtcosim_fmi_md *md, size_t variable)
{
    size_t lo = 0, hi = md->clock_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (md->clocks[mid].variable == variable)
            return (long)mid;
        if (md->clocks[mid].variable < variable)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* A variable's `clocks`: value references of Clock variables. One naming
 * anything else leaves open when the variable may be read or set: an error. */
static void read_clocked(md_parser *p, xmlNode *node, size_t variable, size_t *counts,
                         size_t *list)
{
    rtcosim_fmi_md *md = p->md;
    const char *text = md_attr(p, node, "clocks");
    if (!text)
        return;
    const rtcosim_variable *v = &md->variables[variable];
    const char *c = text;
    size_t len, n = 0;
    for (const char *tok; (tok = md_next_token(&c, &len));) {
        char word[24];
        uint64_t vr;
        long target = -1;
        if (len < sizeof word) {
            memcpy(word, tok, len);
            word[len] = '\0';
            if (md_parse_uint(word, UINT32_MAX, &vr))
                target = md_find_vr(p, vr, NULL);
        }
        long clock = target >= 0 ? rtcosim_fmi_md_clock_of(md, (size_t)target) : -1;
        if (clock < 0) {
            md_violation(p, RTCOSIM_EFORMAT,
                         "variable '%s': clocks '%s' names %.*s, which is not a Clock (FMI 3.0 "
                         "section 2.4.7.4)", v->name, text, (int)(len < 24 ? len : 24), tok);
            return;
        }
        if (list)
            list[n] = (size_t)clock;
        n++;
    }
    if (n == 0) {
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': clocks is empty (FMI 3.0 section 2.4.7.4)",
                     v->name);
        return;
    }
    if (!list && v->variability != RTCOSIM_VARIABILITY_DISCRETE &&
        v->variability != RTCOSIM_VARIABILITY_TUNABLE)
        md_lenient(p, "variable '%s': only discrete or tunable variables can be clocked (FMI 3.0 "
                      "section 2.4.7.4)", v->name);
    if (counts)
        counts[variable] = n;
}

static void read_binary(md_parser *p, xmlNode *node, size_t variable)
{
    rtcosim_fmi_md *md = p->md;
    const char *max = md_attr(p, node, "maxSize");
    uint64_t size;
    if (max && (!md_parse_uint(max, SIZE_MAX - 1, &size)))
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': maxSize '%s' is not a byte count (FMI 3.0 "
                                         "section 2.4.7.3)", md->variables[variable].name, max);
    else if (max)
        md->binary_max_size[variable] = (size_t)size;
    md->mime_types[variable] = md_attr(p, node, "mimeType");
}

static void read_all(md_parser *p, xmlNode *root);

void md_read_clocks(md_parser *p, xmlNode *root)
{
    read_all(p, root);
    rtcosim_fmi_md *md = p->md;
    md->clock_view = (rtcosim_fmu_clocks){md->clocks, md->clock_count, md->clocked_start,
                                          md->clocked, md->binary_max_size,
                                          (const char *const *)md->mime_types};
}

static void read_all(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    xmlNode *mv = md_child(root, "ModelVariables");
    if (md->version != RTCOSIM_FMI_3 || !mv || !p->first_element)
        return;
    size_t clocks = 0, binaries = 0;
    bool any_clocked = false;
    for (size_t i = 0; i < md->variable_count; i++) {
        clocks += md->variables[i].type == RTCOSIM_TYPE_CLOCK;
        binaries += md->variables[i].type == RTCOSIM_TYPE_BINARY;
    }
    for (xmlNode *n = mv->children; n; n = n->next)
        any_clocked |= is_variable_node(n) && xmlHasProp(n, (const xmlChar *)"clocks");
    if (binaries) {
        md->binary_max_size = malloc(md->variable_count * sizeof *md->binary_max_size);
        md->mime_types = calloc(md->variable_count, sizeof *md->mime_types);
        if (!md->binary_max_size || !md->mime_types) {
            p->out_of_memory = true;
            return;
        }
        for (size_t i = 0; i < md->variable_count; i++)
            md->binary_max_size[i] = SIZE_MAX;
    }
    md->clocks = calloc(clocks ? clocks : 1, sizeof *md->clocks);
    if (!md->clocks) {
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *n = mv->children; n; n = n->next) {
        if (!is_variable_node(n))
            continue;
        long at = node_variable(p, n);
        if (at < 0)
            continue;
        if (md->variables[at].type == RTCOSIM_TYPE_CLOCK && md->clock_count < clocks)
            read_clock(p, n, (size_t)at, &md->clocks[md->clock_count++]);
        else if (md->variables[at].type == RTCOSIM_TYPE_BINARY && md->binary_max_size)
            read_binary(p, n, (size_t)at);
    }
    qsort(md->clocks, md->clock_count, sizeof *md->clocks, by_variable);
    /* Aliases share the base's value (section 2.4.7.7): copy Binary facts. */
    for (size_t i = 0; md->binary_max_size && i < md->variable_count; i++) {
        long base = md_find_vr(p, md->variables[i].value_reference, NULL);
        if (base >= 0 && (size_t)base != i && md->variables[i].type == RTCOSIM_TYPE_BINARY) {
            md->binary_max_size[i] = md->binary_max_size[base];
            md->mime_types[i] = md->mime_types[base];
        }
    }
    if (!any_clocked)
        return;
    /* clocked lists: count per base, then fill; aliases use their base's. */
    size_t *counts = calloc(md->variable_count, sizeof *counts);
    md->clocked_start = calloc(md->variable_count + 1, sizeof *md->clocked_start);
    if (!counts || !md->clocked_start) {
        free(counts);
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *n = mv->children; n; n = n->next) {
        long at = is_variable_node(n) ? node_variable(p, n) : -1;
        if (at >= 0)
            read_clocked(p, n, (size_t)at, counts, NULL);
    }
    size_t *base_of = malloc(md->variable_count * sizeof *base_of);
    if (!base_of) {
        free(counts);
        p->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < md->variable_count; i++) {
        long base = md_find_vr(p, md->variables[i].value_reference, NULL);
        base_of[i] = base >= 0 ? (size_t)base : i;
        md->clocked_start[i + 1] = md->clocked_start[i] + counts[base_of[i]];
    }
    md->clocked = malloc((md->clocked_start[md->variable_count] + 1) * sizeof *md->clocked);
    if (!md->clocked) {
        free(counts), free(base_of);
        p->out_of_memory = true;
        return;
    }
    /* Fill each base's list, then copy it to its aliases. */
    for (xmlNode *n = mv->children; n; n = n->next) {
        long at = is_variable_node(n) ? node_variable(p, n) : -1;
        if (at >= 0 && counts[at])
            read_clocked(p, n, (size_t)at, NULL, md->clocked + md->clocked_start[at]);
    }
    for (size_t i = 0; i < md->variable_count; i++)
        if (base_of[i] != i && counts[base_of[i]])
            memcpy(md->clocked + md->clocked_start[i], md->clocked + md->clocked_start[base_of[i]],
                   counts[base_of[i]] * sizeof *md->clocked);
    free(base_of);
    free(counts);
}
