/* XML documents read without output of libxml2's own (xml_read.h). libxml2
 * keeps only the last error, which after a mismatch is usually a
 * consequential "premature end of data": the first one, which names the
 * cause, is caught by a structured handler on the parser context and, for
 * the errors that bypass the context, on the thread's global handler while
 * the parse runs (libxml2 keeps both per thread). */
#include "util/xml_read.h"

#include <limits.h>
#include <stdio.h>

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "util/text.h"

typedef struct capture {
    bool seen;
    util_xml_error *first;
} capture;

static _Thread_local capture *current;

static void catch_error(void *data, xmlErrorPtr e)
{
    (void)data;
    capture *c = current;
    if (!c || c->seen || !e || e->level < XML_ERR_ERROR)
        return;
    c->seen = true;
    c->first->line = e->line;
    snprintf(c->first->message, sizeof c->first->message, "%s",
             e->message ? e->message : "not well-formed");
    util_text_one_line(c->first->message);
}

xmlDoc *util_xml_read(const char *data, size_t size, const char *url, int options,
                      util_xml_error *first)
{
    *first = (util_xml_error){0, "not well-formed"};
    if (size > (size_t)INT_MAX) {
        snprintf(first->message, sizeof first->message, "too large for libxml2 (%zu bytes)", size);
        return NULL;
    }
    xmlInitParser();
    xmlParserCtxt *ctxt = xmlNewParserCtxt();
    if (!ctxt) {
        snprintf(first->message, sizeof first->message, "out of memory");
        return NULL;
    }
    capture c = {.first = first}, *saved = current;
    current = &c;
    ctxt->sax->serror = catch_error;
    xmlStructuredErrorFunc saved_handler = xmlStructuredError;
    void *saved_context = xmlStructuredErrorContext;
    xmlSetStructuredErrorFunc(NULL, catch_error);
    xmlDoc *doc = xmlCtxtReadMemory(ctxt, data, (int)size, url, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                        options);
    xmlSetStructuredErrorFunc(saved_context, saved_handler);
    current = saved;
    if (doc && !xmlDocGetRootElement(doc)) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    if (!doc && !c.seen) {
        const xmlError *last = xmlCtxtGetLastError(ctxt);
        if (last && last->message) {
            first->line = last->line;
            snprintf(first->message, sizeof first->message, "%s", last->message);
            util_text_one_line(first->message);
        }
    }
    xmlFreeParserCtxt(ctxt);
    return doc;
}

void util_xml_error_text(const util_xml_error *e, char *buf, size_t size)
{
    if (e->line > 0)
        snprintf(buf, size, "line %d: %s", e->line, e->message);
    else
        snprintf(buf, size, "%s", e->message);
}

rtcosim_status util_xml_parse(const char *data, size_t size, const char *label, const char *what,
                              xmlDoc **out, rtcosim_error *err)
{
    util_xml_error first;
    if ((*out = util_xml_read(data, size, label, 0, &first)))
        return RTCOSIM_OK;
    char text[300];
    util_xml_error_text(&first, text, sizeof text);
    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %s (%s)", label, what, text);
}
