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

/* libxml2 keeps only the last error, which after a mismatch is usually a
 * consequential "premature end of data"; the first one names the real cause.
 * The handler sees the context as its data, so the capture is thread-local. */
typedef struct first_error {
    bool seen;
    int line;
    char message[256];
} first_error;

static _Thread_local first_error *current_capture;

static void capture_error(void *data, xmlErrorPtr e)
{
    (void)data;
    first_error *cap = current_capture;
    if (!cap || cap->seen || !e || e->level < XML_ERR_ERROR)
        return;
    cap->seen = true;
    cap->line = e->line;
    snprintf(cap->message, sizeof cap->message, "%s", e->message ? e->message : "not well-formed");
}

static rtcosim_status xml_error(xmlParserCtxt *ctxt, const first_error *first, const char *label,
                                rtcosim_error *err)
{
    const xmlError *last = xmlCtxtGetLastError(ctxt);
    xmlError copy = {0};
    const xmlError *e = last;
    if (first->seen) {
        copy.line = first->line;
        copy.message = (char *)first->message;
        e = &copy;
    }
    if (!e || !e->message)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not well-formed XML", label);
    /* libxml2 messages end with a newline; keep the error on one line. */
    char message[256];
    snprintf(message, sizeof message, "%s", e->message);
    util_text_one_line(message);
    if (e->line <= 0) /* encoding errors come without a position */
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: malformed XML: %s", label, message);
    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%d: malformed XML: %s", label, e->line,
                             message);
}

/* No XML_PARSE_NOENT (entities stay references), no DTD loading, no network. */
#define SAFE_XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA)

rtcosim_status system_read_xml(const char *data, size_t size, const char *label, xmlDoc **out,
                               rtcosim_error *err)
{
    *out = NULL;
    if (size > (size_t)INT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: file too large", label);
    xmlParserCtxt *ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
    first_error first = {0};
    first_error *saved = current_capture;
    current_capture = &first;
    ctxt->sax->serror = capture_error;
    /* Encoding and I/O errors bypass the parser context and go to the
     * thread's global handler, which prints to stderr by default: route them
     * to the capture too while this parse runs (libxml2 keeps these
     * handlers per thread). */
    xmlStructuredErrorFunc saved_handler = xmlStructuredError;
    void *saved_context = xmlStructuredErrorContext;
    xmlSetStructuredErrorFunc(NULL, capture_error);
    xmlDoc *doc = xmlCtxtReadMemory(ctxt, data, (int)size, NULL, NULL, SAFE_XML_OPTIONS);
    xmlSetStructuredErrorFunc(saved_context, saved_handler);
    current_capture = saved;
    rtcosim_status st = RTCOSIM_OK;
    if (!doc || !xmlDocGetRootElement(doc)) {
        st = xml_error(ctxt, &first, label, err);
        xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(ctxt);
    *out = doc;
    return st;
}

rtcosim_status system_read_xml_file(const char *path, const char *label, xmlDoc **out,
                                    rtcosim_error *err)
{
    *out = NULL;
    char *data;
    size_t size;
    rtcosim_status st = util_read_file(path, label, NULL, &data, &size, err);
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
