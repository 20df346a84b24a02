/* CAN communication matrices in AUTOSAR 4 ARXML (the System Template's
 * CAN clusters), read into the same database as a DBC (dbc.h), so that
 * everything that takes a DBC takes an .arxml file. Per CAN-FRAME-TRIGGERING:
 * IDENTIFIER, CAN-ADDRESSING-MODE (EXTENDED: a 29-bit id), the CAN-FRAME it
 * references (its SHORT-NAME is the message's name, FRAME-LENGTH its
 * length), the sender (the ECU-INSTANCE whose FRAME-PORT the triggering
 * references with COMMUNICATION-DIRECTION OUT), the I-SIGNAL-I-PDUs mapped
 * into the frame (PDU-TO-FRAME-MAPPING START-POSITION: the PDU's bit offset)
 * and their cycle time (a CYCLIC-TIMING's TIME-PERIOD, or AUTOSAR 4.0's
 * REPETITION-PERIOD, VALUE in seconds); per I-SIGNAL-TO-I-PDU-MAPPING the
 * I-SIGNAL (its SHORT-NAME the signal's name, LENGTH in bits), START-POSITION
 * (in the DBC's numbering: for MOST-SIGNIFICANT-BYTE-FIRST, Motorola, the
 * most significant bit, as canmatrix and Vector's tools write it) and
 * PACKING-BYTE-ORDER; from the I-SIGNAL's NETWORK-REPRESENTATION-PROPS the
 * SW-BASE-TYPE (BASE-TYPE-ENCODING 2C: signed; without an encoding, a
 * platform type name sintN or intN: signed) and the COMPU-METHOD: a
 * COMPU-SCALE's COMPU-RATIONAL-COEFFS give factor and offset (numerator v0
 * + v1 x over denominator d0) and its LOWER/UPPER-LIMIT the raw range, its
 * COMPU-CONST VT texts the value table (without a COMPU-METHOD there, the
 * SYSTEM-SIGNAL's PHYSICAL-PROPS give it, as AUTOSAR 4.0 tools write it);
 * its or the props' UNIT-REF the unit
 * (DISPLAY-NAME). References are resolved by their SHORT-NAME paths.
 * A MULTIPLEXED-I-PDU becomes the DBC's multiplexing: its selector field
 * (SELECTOR-FIELD-START-POSITION, -LENGTH, -BYTE-ORDER) the multiplexor
 * PDU_Selector, starting at the INITIAL-DYNAMIC-PART's code; its STATIC-PART
 * I-PDU's signals plain and each DYNAMIC-PART-ALTERNATIVE I-PDU's signals
 * present at its SELECTOR-FIELD-CODE, all at their START-POSITIONs in the
 * multiplexed PDU (the part I-PDUs span it, as AUTOSAR's IpduM lays them
 * out; canmatrix reads them so too). A SECURED-I-PDU (SecOC) gives its
 * payload's signals (PAYLOAD-REF, a PDU-TRIGGERING, its I-PDU-REF) at the
 * secured PDU's offset; the freshness value and authenticator after them
 * are not computed (a frame built here carries zeros there). A
 * CONTAINER-I-PDU with headers makes its frame a container whose contained
 * PDUs are messages of their own (dbc.h), found by their header ids (the
 * headers' byte order from CONTAINER-I-PDU-HEADER-BYTE-ORDER, default
 * big-endian, as canmatrix); one with NO-HEADER places its contained PDUs
 * at their OFFSETs. The other kinds (N-PDUs, NM-PDUs, ...) are read over,
 * counted in one warning. AUTOSAR 3 files are refused by name. Errors are one line
 * FILE:LINE. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/hash.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "arxml_internal.h"
#include "rtcosim/log.h"
#include "util/xml_read.h"

bool ar_named(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *ar_child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (ar_named(c, name))
            return c;
    return NULL;
}

/* The first element `name` below n (depth first), else NULL. */
xmlNode *ar_descendant(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (ar_named(c, name))
            return c;
        xmlNode *d = ar_descendant(c, name);
        if (d)
            return d;
    }
    return NULL;
}

/* An element's text without surrounding blanks, in buf (cut to its size). */
const char *ar_text(const xmlNode *n, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!n)
        return NULL;
    xmlChar *t = xmlNodeGetContent(n);
    if (!t)
        return NULL;
    const char *s = (const char *)t;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    snprintf(buf, size, "%s", s);
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\n' ||
                   buf[len - 1] == '\r'))
        buf[--len] = '\0';
    xmlFree(t);
    return buf;
}

const char *ar_short_name(const xmlNode *n, char *buf, size_t size)
{
    return ar_text(ar_child(n, "SHORT-NAME"), buf, size);
}

int ar_line_of(const xmlNode *n) { return n ? (int)xmlGetLineNo(n) : 0; }

rtcosim_status ar_fail(ar *a, const xmlNode *at, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rtcosim_error_set(a->err, RTCOSIM_EFORMAT, "%s:%d: %s", a->file, ar_line_of(at), msg);
}

/* Register every element that has a SHORT-NAME under its path; false when
 * out of memory. */
static bool index_paths(ar *a, xmlNode *n, const char *prefix, int depth)
{
    for (xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        char name[256], path[2048];
        const char *here = prefix;
        if (ar_short_name(c, name, sizeof name) && name[0]) {
            if (snprintf(path, sizeof path, "%s/%s", prefix, name) >= (int)sizeof path)
                continue; /* too deep to be referenced */
            if (!xmlHashLookup(a->paths, (const xmlChar *)path) && /* the first one stays */
                xmlHashAddEntry(a->paths, (const xmlChar *)path, c) != 0)
                return false; /* out of memory */
            here = path;
        }
        if (depth < 64 && !index_paths(a, c, here, depth + 1))
            return false;
    }
    return true;
}

/* The element a REF child names, else NULL (missing: *status set when the
 * reference is there but leads nowhere). */
xmlNode *ar_deref(ar *a, const xmlNode *n, const char *ref, rtcosim_status *status)
{
    char path[2048];
    xmlNode *r = ar_child(n, ref);
    if (!r || !ar_text(r, path, sizeof path) || !path[0])
        return NULL;
    xmlNode *target = xmlHashLookup(a->paths, (const xmlChar *)path);
    if (!target && status && *status == RTCOSIM_OK)
        *status = ar_fail(a, r, "%s %s: no element has that path", ref, path);
    return target;
}

bool ar_number(const xmlNode *n, double *out)
{
    char buf[64], *end;
    if (!ar_text(n, buf, sizeof buf) || !buf[0])
        return false;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool ar_whole(const xmlNode *n, uint64_t max, uint64_t *out)
{
    char buf[64], *end;
    if (!ar_text(n, buf, sizeof buf) || !buf[0] || buf[0] == '-')
        return false;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (*end || errno == ERANGE || v > max)
        return false;
    *out = v;
    return true;
}

/* The ECU that sends a frame triggering's frame: its FRAME-PORT with
 * COMMUNICATION-DIRECTION OUT. */
static void sender_of(ar *a, const xmlNode *trig, char *out, size_t size)
{
    snprintf(out, size, "Vector__XXX");
    const xmlNode *refs = ar_child(trig, "FRAME-PORT-REFS");
    for (const xmlNode *r = refs ? refs->children : NULL; r; r = r->next) {
        if (!ar_named(r, "FRAME-PORT-REF"))
            continue;
        char path[2048], dir[16];
        if (!ar_text(r, path, sizeof path))
            continue;
        const xmlNode *port = xmlHashLookup(a->paths, (const xmlChar *)path);
        if (!port || !ar_text(ar_child(port, "COMMUNICATION-DIRECTION"), dir, sizeof dir) ||
            strcmp(dir, "OUT") != 0)
            continue;
        for (const xmlNode *p = port->parent; p; p = p->parent)
            if (ar_named(p, "ECU-INSTANCE")) {
                ar_short_name(p, out, size);
                return;
            }
    }
}

static rtcosim_status read_frame(ar *a, const xmlNode *trig)
{
    rtcosim_status st = RTCOSIM_OK;
    char name[256], mode[32], sender[256];
    uint64_t id, length;
    xmlNode *frame = ar_deref(a, trig, "FRAME-REF", &st);
    if (!frame)
        return st; /* a triggering without a frame: nothing is sent */
    ar_short_name(frame, name, sizeof name);
    ar_text(ar_child(trig, "CAN-ADDRESSING-MODE"), mode, sizeof mode);
    bool extended = strcmp(mode, "EXTENDED") == 0;
    if (!ar_whole(ar_child(trig, "IDENTIFIER"), extended ? 0x1FFFFFFFu : 0x7FFu, &id))
        return ar_fail(a, trig, "CAN-FRAME-TRIGGERING of %s: IDENTIFIER missing or beyond %s ids",
                    name, extended ? "29-bit" : "11-bit");
    if (!ar_whole(ar_child(frame, "FRAME-LENGTH"), 64, &length))
        return ar_fail(a, frame, "CAN-FRAME %s: FRAME-LENGTH missing or over 64 bytes", name);
    sender_of(a, trig, sender, sizeof sender);
    size_t index;
    int rc = dbc_add_message(a->dbc, (uint32_t)id, extended, name, (uint16_t)length, sender,
                             ar_line_of(trig), &index);
    if (rc == -2 || rc == -3) {
        const rtcosim_dbc_message *was = rtcosim_dbc_find_id(a->dbc, (uint32_t)id, extended);
        if (was && strcmp(was->name, name) == 0)
            return RTCOSIM_OK; /* the same frame on another channel */
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: frame %s (id 0x%" PRIX64 ") left out:"
                    " its %s is another frame's (line %d)", a->file, ar_line_of(trig), name, id,
                    rc == -2 ? "id" : "name", was ? was->line : 0);
        return RTCOSIM_OK;
    }
    if (rc)
        return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
    char behavior[32] = "";
    if (!ar_text(ar_child(trig, "CAN-FRAME-TX-BEHAVIOR"), behavior, sizeof behavior) || !behavior[0])
        ar_text(ar_child(trig, "CAN-FRAME-RX-BEHAVIOR"), behavior, sizeof behavior);
    if (strcmp(behavior, "CAN-FD") == 0 || length > 8)
        dbc_set_format(a->dbc, index, true, true, false); /* CAN FD (its data phase switched) */
    const xmlNode *maps = ar_child(frame, "PDU-TO-FRAME-MAPPINGS");
    for (const xmlNode *m = maps ? maps->children : NULL; m && st == RTCOSIM_OK; m = m->next) {
        if (!ar_named(m, "PDU-TO-FRAME-MAPPING"))
            continue;
        xmlNode *pdu = ar_deref(a, m, "PDU-REF", &st);
        if (!pdu)
            continue;
        uint64_t pdu_start = 0;
        if (ar_child(m, "START-POSITION") && !ar_whole(ar_child(m, "START-POSITION"), 511, &pdu_start))
            return ar_fail(a, m, "PDU-TO-FRAME-MAPPING of %s: START-POSITION not 0..511", name);
        st = ar_read_pdu(a, index, (uint8_t)length, pdu, (uint32_t)pdu_start, 0);
    }
    return st;
}

static rtcosim_status read_triggerings(ar *a, const xmlNode *n, int depth)
{
    rtcosim_status st = RTCOSIM_OK;
    for (const xmlNode *c = n->children; c && st == RTCOSIM_OK; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (ar_named(c, "CAN-FRAME-TRIGGERING"))
            st = read_frame(a, c);
        else if (depth < 64)
            st = read_triggerings(a, c, depth + 1);
    }
    return st;
}

rtcosim_status rtcosim_dbc_parse_arxml(const char *xml, size_t size, const char *name,
                                       rtcosim_dbc **out, rtcosim_error *err)
{
    *out = NULL;
    if (size > INT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: too large", name);
    xmlDoc *doc;
    rtcosim_status parsed = util_xml_parse(xml, size, name, "not well-formed XML", &doc, err);
    if (parsed != RTCOSIM_OK)
        return parsed;
    ar a = {.file = name, .err = err};
    rtcosim_status st = RTCOSIM_OK;
    xmlNode *root = xmlDocGetRootElement(doc);
    const char *ns = root && root->ns && root->ns->href ? (const char *)root->ns->href : "";
    if (!ar_named(root, "AUTOSAR"))
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: the root element is not AUTOSAR", name);
    else if (strncmp(ns, "http://autosar.org/3", 20) == 0)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: AUTOSAR 3 (%s) is not read, AUTOSAR 4"
                               " only (canmatrix converts: canconvert --arVersion 4.1.0)", name,
                               ns);
    else if (!(a.paths = xmlHashCreate(1024)) || !(a.dbc = dbc_new()))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    if (st == RTCOSIM_OK && !index_paths(&a, root, "", 0))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    if (st == RTCOSIM_OK) {
        char order[64] = "";
        ar_text(ar_descendant(root, "CONTAINER-I-PDU-HEADER-BYTE-ORDER"), order, sizeof order);
        a.headers_little_endian = strcmp(order, "MOST-SIGNIFICANT-BYTE-LAST") == 0;
        st = read_triggerings(&a, root, 0);
    }
    if (st == RTCOSIM_OK && rtcosim_dbc_message_count(a.dbc) == 0)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no CAN frame (CAN-FRAME-TRIGGERING with"
                               " a FRAME-REF) in it", name);
    if (st == RTCOSIM_OK && a.skipped_pdus)
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s: %zu PDUs of other kinds than I-SIGNAL-I-PDU,"
                    " MULTIPLEXED-I-PDU, SECURED-I-PDU and CONTAINER-I-PDU (N-PDU, NM-PDU, ...) read over", name,
                    a.skipped_pdus);
    if (st == RTCOSIM_OK && a.secured_pdus)
        rtcosim_log(RTCOSIM_LOG_INFO, "dbc", "%s: %zu SECURED-I-PDUs: their payloads' signals"
                    " read; freshness values and authenticators are not computed (zeros in the"
                    " frames built here)", name, a.secured_pdus);
    if (a.paths)
        xmlHashFree(a.paths, NULL);
    xmlFreeDoc(doc);
    if (st != RTCOSIM_OK) {
        rtcosim_dbc_free(a.dbc);
        return st;
    }
    dbc_finish(a.dbc, name);
    *out = a.dbc;
    return RTCOSIM_OK;
}
