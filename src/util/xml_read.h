/* XML documents read with libxml2 without a word on stderr (the library
 * never prints): the parser's messages, and the encoding and I/O errors that
 * libxml2 sends past the parser context to the thread's global handler
 * ("encoding error : input conversion failed ...", printed by default), are
 * caught, the first one kept as the reason. Not part of the public API. */
#ifndef RTCOSIM_UTIL_XML_READ_H
#define RTCOSIM_UTIL_XML_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "rtcosim/status.h"

/* The first error of a parse: its line (0: none given, as an encoding
 * error's) and its message on one line ("not well-formed" when libxml2 gave
 * none). */
typedef struct util_xml_error {
    int line;
    char message[256];
} util_xml_error;

/* data parsed with XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING
 * and `options` (no DTD is loaded, no entity expanded unless asked); url
 * names the document for libxml2 (may be NULL). NULL on failure (also for a
 * document without a root element), with *first the reason. */
xmlDoc *util_xml_read(const char *data, size_t size, const char *url, int options,
                      util_xml_error *first);

/* "line N: message", or the message alone when it has no line. */
void util_xml_error_text(const util_xml_error *e, char *buf, size_t size);

/* util_xml_read with no further options, the failure as the error
 * "LABEL: WHAT (line N: reason)" (what: "malformed XML", ...). */
rtcosim_status util_xml_parse(const char *data, size_t size, const char *label, const char *what,
                              xmlDoc **out, rtcosim_error *err);

#endif
