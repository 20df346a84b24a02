/* Shared helpers of the SSP reader: the string arena, growable arrays, safe
 * XML reading (no network, no entity expansion, errors as values instead of
 * libxml2's stderr output) and strict parsing of attribute numbers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "system/system_internal.h"
#include "util/array.h"
#include "util/read_file.h"
#include "util/text.h"
#include "util/xml_read.h"

struct arena_block {
    arena_block *next;
    size_t used, size;
    max_align_t data[];
};

#define ARENA_BLOCK_SIZE 8192

void *system_alloc(rtcosim_system_desc *d, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    arena_block *b = d->arena;
    if (!b || b->size - b->used < size) {
        size_t cap = size > ARENA_BLOCK_SIZE ? size : ARENA_BLOCK_SIZE;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->size = cap;
        b->used = 0;
        b->next = d->arena;
        d->arena = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p;
}

const char *system_strndup(rtcosim_system_desc *d, const char *s, size_t n)
{
    char *p = system_alloc(d, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

const char *system_strdup(rtcosim_system_desc *d, const char *s)
{
    return s ? system_strndup(d, s, strlen(s)) : NULL;
}

const char *system_printf(rtcosim_system_desc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = system_alloc(d, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void system_arena_free(rtcosim_system_desc *d)
{
    while (d->arena) {
        arena_block *next = d->arena->next;
        free(d->arena);
        d->arena = next;
    }
}

void *system_grow(void *array_ptr, size_t *count, size_t *cap, size_t elem)
{
    if (!util_array_reserve(array_ptr, *count, cap, elem, 8))
        return NULL;
    char *array;
    memcpy(&array, array_ptr, sizeof array);
    char *slot = array + *count * elem;
    memset(slot, 0, elem);
    (*count)++;
    return slot;
}

void system_sync(rtcosim_system_desc *d)
{
    for (size_t i = 0; i < d->component_count; i++) {
        system_component *c = &d->components[i];
        c->pub.connectors = c->connectors;
        c->pub.connector_count = c->connector_count;
        c->pub.parameters = c->parameters;
        c->pub.parameter_count = c->parameter_count;
    }
    d->master.rates = d->rates;
    d->master.rate_count = d->rate_count;
    d->master.bonds = d->bonds;
    d->master.bond_count = d->bond_count;
}

/* No XML_PARSE_NOENT (entities stay references), no DTD loading, no network. */
rtcosim_status system_read_xml(const char *data, size_t size, const char *label, xmlDoc **out,
                               rtcosim_error *err)
{
    util_xml_error first;
    *out = util_xml_read(data, size, NULL, XML_PARSE_NOCDATA, &first);
    if (*out)
        return RTCOSIM_OK;
    if (first.line <= 0) /* encoding errors come without a position */
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: malformed XML: %s", label,
                                 first.message);
    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%d: malformed XML: %s", label, first.line,
                             first.message);
}

rtcosim_status system_read_xml_file(const char *path, const char *label, xmlDoc **out,
                                    rtcosim_error *err)
{
    *out = NULL;
    char *data;
    size_t size;
    rtcosim_status st = util_read_xml_file(path, label, NULL, &data, &size, err);
    if (st == RTCOSIM_OK)
        st = system_read_xml(data, size, label, out, err);
    free(data);
    return st;
}

bool system_is(const xmlNode *n, const char *ns, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
           strcmp((const char *)n->ns->href, ns) == 0 &&
           strcmp((const char *)n->name, local) == 0;
}

const char *system_attr(rtcosim_system_desc *d, const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    const char *s = system_strdup(d, (const char *)v);
    xmlFree(v);
    return s;
}

rtcosim_status system_fail(rtcosim_error *err, rtcosim_status status, const char *label,
                           const xmlNode *node, const char *fmt, ...)
{
    char message[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (node)
        return rtcosim_error_set(err, status, "%s:%ld: %s", label, xmlGetLineNo(node), message);
    return rtcosim_error_set(err, status, "%s: %s", label, message);
}

/* xs:double: decimal or exponent notation, INF/-INF/NaN rejected as values
 * no physical parameter should take. */
bool system_parse_double(const char *text, double *out)
{
    if (!text || !*text)
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (end == text || *end || !isfinite(v) || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

bool system_parse_int64(const char *text, int64_t *out)
{
    if (!text || !*text)
        return false;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

/* xs:boolean: true, false, 1, 0. */
bool system_parse_bool(const char *text, bool *out)
{
    if (!text)
        return false;
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0) {
        *out = true;
        return true;
    }
    if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0) {
        *out = false;
        return true;
    }
    return false;
}
