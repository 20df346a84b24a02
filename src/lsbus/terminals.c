/* What an FMU declares beside modelDescription.xml: its terminals
 * (terminalsAndIcons/terminalsAndIcons.xml, FMI 3.0 section 2.4.9, nested
 * terminals and member variables) and the layered standards it implements
 * (extra/<name>/fmi-ls-manifest.xml, FMI 3.0 section 2.6), with the
 * LS-BUS rules for network terminals (LS-BUS 1.0 section 5.4) checked as
 * warnings, since importers accept such FMUs. */
#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fmi/fmu_internal.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"
#include "util/array.h"
#include "util/text.h"
#include "util/xml_read.h"

#define EXTRA_FILE_MAX (16u << 20)

struct rtcosim_fmu_extras {
    rtcosim_terminal *terminals;
    size_t *first_member; /* parallel to terminals, index into members */
    size_t terminal_count, terminal_capacity, first_member_capacity;
    rtcosim_terminal_member *members;
    size_t member_count, member_capacity;
    rtcosim_layered_standard *standards;
    size_t standard_count, standard_capacity;
    char **strings; /* every string above, owned */
    size_t string_count, string_capacity;
};

typedef struct parse_ctx {
    rtcosim_fmu_extras *x;
    const char *label;
    rtcosim_error *err;
} parse_ctx;

rtcosim_fmu_extras *rtcosim_fmu_extras_new(void)
{
    return calloc(1, sizeof(rtcosim_fmu_extras));
}

void rtcosim_fmu_extras_free(rtcosim_fmu_extras *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->string_count; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->terminals);
    free(x->first_member);
    free(x->members);
    free(x->standards);
    free(x);
}

/* An attribute's value kept in the extras; NULL when absent. *oom set when
 * memory ran out. */
static const char *keep_attr(parse_ctx *c, const xmlNode *n, const char *name, bool *oom)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *copy = strdup((const char *)v);
    xmlFree(v);
    rtcosim_fmu_extras *x = c->x;
    if (!copy || !util_array_reserve(&x->strings, x->string_count, &x->string_capacity,
                                     sizeof *x->strings, 32)) {
        free(copy);
        *oom = true;
        return NULL;
    }
    x->strings[x->string_count++] = copy;
    return copy;
}

static rtcosim_status out_of_memory(parse_ctx *c)
{
    return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->label);
}

static rtcosim_status missing(parse_ctx *c, const xmlNode *n, const char *attr)
{
    return rtcosim_error_set(c->err, RTCOSIM_EFORMAT, "%s: line %ld: <%s> lacks the required"
                             " attribute %s", c->label, xmlGetLineNo(n), (const char *)n->name,
                             attr);
}

static bool is_element(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Pointers into the member array once it stops moving. */
static void fix_members(rtcosim_fmu_extras *x)
{
    for (size_t i = 0; i < x->terminal_count; i++) {
        size_t end = i + 1 < x->terminal_count ? x->first_member[i + 1] : x->member_count;
        x->terminals[i].members = x->members ? x->members + x->first_member[i] : NULL;
        x->terminals[i].member_count = end - x->first_member[i];
    }
}

/* LS-BUS 1.0 section 5.4.1: a network terminal's matching rule and its four
 * members Tx_Data, Tx_Clock, Rx_Data, Rx_Clock (variableKind signal). The
 * members are read before nested terminals, so they are contiguous. */
static void check_network_terminal(parse_ctx *c, const rtcosim_terminal *t, size_t first,
                                   size_t end, long line)
{
    static const char *const roles[] = {"Tx_Data", "Tx_Clock", "Rx_Data", "Rx_Clock"};
    if (!t->matching_rule || strcmp(t->matching_rule, "org.fmi-ls-bus.transceiver") != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "lsbus", "%s: line %ld: network terminal '%s' has"
                    " matchingRule '%s', not org.fmi-ls-bus.transceiver (LS-BUS 1.0 section"
                    " 4.3.1)", c->label, line, t->name, t->matching_rule ? t->matching_rule : "");
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++) {
        bool found = false;
        for (size_t m = first; m < end; m++)
            if (c->x->members[m].member_name && strcmp(c->x->members[m].member_name, roles[r]) == 0)
                found = true;
        if (!found)
            rtcosim_log(RTCOSIM_LOG_WARNING, "lsbus", "%s: line %ld: network terminal '%s' lacks"
                        " the member %s (LS-BUS 1.0 section 5.4.1)", c->label, line, t->name,
                        roles[r]);
    }
}

static rtcosim_status read_terminal(parse_ctx *c, const xmlNode *n, int depth, size_t parent)
{
    rtcosim_fmu_extras *x = c->x;
    if (depth > 16)
        return rtcosim_error_set(c->err, RTCOSIM_EFORMAT, "%s: line %ld: terminals nested more"
                                 " than 16 deep", c->label, xmlGetLineNo(n));
    bool oom = false;
    rtcosim_terminal t = {.depth = depth, .parent = parent};
    t.name = keep_attr(c, n, "name", &oom);
    t.kind = keep_attr(c, n, "terminalKind", &oom);
    t.matching_rule = keep_attr(c, n, "matchingRule", &oom);
    t.description = keep_attr(c, n, "description", &oom);
    if (oom)
        return out_of_memory(c);
    if (!t.name)
        return missing(c, n, "name");
    if (!t.matching_rule)
        return missing(c, n, "matchingRule");
    if (!util_array_reserve(&x->terminals, x->terminal_count, &x->terminal_capacity,
                            sizeof *x->terminals, 8) ||
        !util_array_reserve(&x->first_member, x->terminal_count, &x->first_member_capacity,
                            sizeof *x->first_member, 8))
        return out_of_memory(c);
    size_t index = x->terminal_count++;
    x->terminals[index] = t;
    x->first_member[index] = x->member_count;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (!is_element(k, "TerminalMemberVariable"))
            continue;
        rtcosim_terminal_member m = {0};
        m.variable_name = keep_attr(c, k, "variableName", &oom);
        m.member_name = keep_attr(c, k, "memberName", &oom);
        m.variable_kind = keep_attr(c, k, "variableKind", &oom);
        if (oom)
            return out_of_memory(c);
        if (!m.variable_name)
            return missing(c, k, "variableName");
        if (!m.variable_kind)
            return missing(c, k, "variableKind");
        if (!util_array_reserve(&x->members, x->member_count, &x->member_capacity,
                                sizeof *x->members, 16))
            return out_of_memory(c);
        x->members[x->member_count++] = m;
    }
    if (t.kind && strcmp(t.kind, RTCOSIM_LSBUS_NETWORK_TERMINAL) == 0)
        check_network_terminal(c, &t, x->first_member[index], x->member_count, xmlGetLineNo(n));
    /* nested terminals follow their parent's members */
    for (const xmlNode *k = n->children; k; k = k->next)
        if (is_element(k, "Terminal")) {
            rtcosim_status st = read_terminal(c, k, depth + 1, index);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

/* Parse XML from memory with neither network nor DTD nor entities; NULL
 * and an error naming the file when it is not well-formed. */
static xmlDoc *parse_xml(const char *xml, size_t size, const char *label, rtcosim_error *err)
{
    if (size > EXTRA_FILE_MAX || size > INT32_MAX) {
        rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %zu bytes is larger than the limit of %u",
                          label, size, EXTRA_FILE_MAX);
        return NULL;
    }
    xmlDoc *doc;
    util_xml_parse(xml, size, label, "malformed XML", &doc, err);
    return doc;
}

rtcosim_status rtcosim_terminals_parse(const char *xml, size_t size, const char *name,
                                       rtcosim_fmu_extras *extras, rtcosim_error *err)
{
    const char *label = name ? name : "terminalsAndIcons.xml";
    xmlDoc *doc = parse_xml(xml, size, label, err);
    if (!doc)
        return err ? err->status : RTCOSIM_EFORMAT;
    parse_ctx c = {extras, label, err};
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !is_element(root, "fmiTerminalsAndIcons")) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: the root element is <%s>, not"
                               " <fmiTerminalsAndIcons>", label,
                               root ? (const char *)root->name : "");
    } else {
        for (const xmlNode *k = root->children; k && st == RTCOSIM_OK; k = k->next) {
            if (!is_element(k, "Terminals"))
                continue;
            for (const xmlNode *t = k->children; t && st == RTCOSIM_OK; t = t->next)
                if (is_element(t, "Terminal"))
                    st = read_terminal(&c, t, 0, SIZE_MAX);
        }
    }
    fix_members(extras);
    xmlFreeDoc(doc);
    return st;
}

static rtcosim_status parse_bool(parse_ctx *c, const xmlNode *n, const char *attr,
                                 const char *text, bool *out)
{
    /* XML Schema xs:boolean */
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
        *out = true;
    else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
        *out = false;
    else
        return rtcosim_error_set(c->err, RTCOSIM_EFORMAT, "%s: line %ld: %s=\"%s\" is not a"
                                 " boolean", c->label, xmlGetLineNo(n), attr, text);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_manifest_parse(const char *xml, size_t size, const char *name,
                                      const char *folder, rtcosim_fmu_extras *extras,
                                      rtcosim_error *err)
{
    const char *label = name ? name : "fmi-ls-manifest.xml";
    xmlDoc *doc = parse_xml(xml, size, label, err);
    if (!doc)
        return err ? err->status : RTCOSIM_EFORMAT;
    parse_ctx c = {extras, label, err};
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *root = xmlDocGetRootElement(doc);
    bool oom = false;
    rtcosim_layered_standard s = {0};
    /* FMI 3.0 section 2.6: the root element is the layered standard's
     * choice; only its fmi-ls-* attributes are common */
    if (!root) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no root element", label);
        goto done;
    }
    /* fmi-ls-name, -version, -description live in the namespace
     * http://fmi-standard.org/fmi-ls-manifest; xmlGetProp matches them by
     * local name, so a manifest that forgot the namespace still reads. */
    s.name = keep_attr(&c, root, "fmi-ls-name", &oom);
    s.version = keep_attr(&c, root, "fmi-ls-version", &oom);
    s.description = keep_attr(&c, root, "fmi-ls-description", &oom);
    const char *bus_sim = keep_attr(&c, root, "isBusSimulationFMU", &oom);
    if (folder) {
        char *copy = strdup(folder);
        if (!copy || !util_array_reserve(&extras->strings, extras->string_count,
                                         &extras->string_capacity, sizeof *extras->strings, 32)) {
            free(copy);
            oom = true;
        } else {
            extras->strings[extras->string_count++] = copy;
            s.folder = copy;
        }
    }
    if (oom) {
        st = out_of_memory(&c);
        goto done;
    }
    if (!s.name) {
        st = missing(&c, root, "fmi-ls-name");
        goto done;
    }
    if (!s.version) {
        st = missing(&c, root, "fmi-ls-version");
        goto done;
    }
    if (bus_sim && (st = parse_bool(&c, root, "isBusSimulationFMU", bus_sim,
                                    &s.is_bus_simulation_fmu)) != RTCOSIM_OK)
        goto done;
    if (folder && strcmp(folder, s.name) != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "lsbus", "%s: fmi-ls-name '%s' differs from its folder"
                    " name extra/%s (FMI 3.0 section 2.6: the folder is the one the layered"
                    " standard mandates)", label, s.name, folder);
    if (!util_array_reserve(&extras->standards, extras->standard_count,
                            &extras->standard_capacity, sizeof *extras->standards, 4)) {
        st = out_of_memory(&c);
        goto done;
    }
    extras->standards[extras->standard_count++] = s;
done:
    xmlFreeDoc(doc);
    return st;
}

/* Read one optional file of the extracted FMU; ENOTFOUND quietly when absent. */
static rtcosim_status read_optional(const char *dir, const char *rel, char **data, size_t *size,
                                    rtcosim_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: path too long", rel);
    rtcosim_error local;
    rtcosim_status st = rtcosim_fmi_read_file(path, EXTRA_FILE_MAX, data, size, &local);
    if (st == RTCOSIM_ENOTFOUND)
        return st;
    if (st != RTCOSIM_OK) {
        /* name the file inside the FMU, not the temporary path */
        const char *why = strstr(local.message, ": ");
        return rtcosim_error_set(err, st, "%s%s", rel, why ? why : ": unreadable");
    }
    return RTCOSIM_OK;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static rtcosim_status read_manifests(const char *dir, rtcosim_fmu_extras *x, rtcosim_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/extra", dir) >= sizeof path)
        return RTCOSIM_OK;
    DIR *d = opendir(path);
    if (!d)
        return RTCOSIM_OK;
    /* sorted, so that the listing does not depend on the file system */
    char **names = NULL;
    size_t count = 0, capacity = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *copy = strdup(e->d_name);
        if (!copy || !util_array_reserve(&names, count, &capacity, sizeof *names, 8)) {
            free(copy);
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "extra/: out of memory");
            break;
        }
        names[count++] = copy;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count && st == RTCOSIM_OK; i++) {
        char rel[1024];
        if ((size_t)snprintf(rel, sizeof rel, "extra/%s/fmi-ls-manifest.xml", names[i]) >=
            sizeof rel)
            continue;
        char *data;
        size_t size;
        st = read_optional(dir, rel, &data, &size, err);
        if (st == RTCOSIM_ENOTFOUND) {
            st = RTCOSIM_OK; /* extra/ holds other things too */
            continue;
        }
        if (st == RTCOSIM_OK) {
            st = rtcosim_manifest_parse(data, size, rel, names[i], x, err);
            free(data);
        }
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return st;
}

rtcosim_status rtcosim_fmu_extras_read(const char *extracted_dir, rtcosim_fmu_extras **out,
                                       rtcosim_error *err)
{
    *out = NULL;
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    if (!x)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    /* FMI 3.0 section 2.5 names the folder terminalsAndIcons/; early LS-BUS
     * drafts wrote icons/, which some exporters still use */
    static const char *const places[] = {"terminalsAndIcons/terminalsAndIcons.xml",
                                         "icons/terminalsAndIcons.xml"};
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; i < 2; i++) {
        char *data;
        size_t size;
        st = read_optional(extracted_dir, places[i], &data, &size, err);
        if (st == RTCOSIM_ENOTFOUND) {
            st = RTCOSIM_OK;
            continue;
        }
        if (st == RTCOSIM_OK) {
            st = rtcosim_terminals_parse(data, size, places[i], x, err);
            free(data);
        }
        break;
    }
    if (st == RTCOSIM_OK)
        st = read_manifests(extracted_dir, x, err);
    if (st != RTCOSIM_OK) {
        rtcosim_fmu_extras_free(x);
        return st;
    }
    *out = x;
    return RTCOSIM_OK;
}

size_t rtcosim_fmu_extras_terminal_count(const rtcosim_fmu_extras *x)
{
    return x ? x->terminal_count : 0;
}

const rtcosim_terminal *rtcosim_fmu_extras_terminal(const rtcosim_fmu_extras *x, size_t i)
{
    return x && i < x->terminal_count ? &x->terminals[i] : NULL;
}

size_t rtcosim_fmu_extras_standard_count(const rtcosim_fmu_extras *x)
{
    return x ? x->standard_count : 0;
}

const rtcosim_layered_standard *rtcosim_fmu_extras_standard(const rtcosim_fmu_extras *x,
                                                            size_t i)
{
    return x && i < x->standard_count ? &x->standards[i] : NULL;
}
