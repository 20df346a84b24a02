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

#include "dbc_internal.h"
#include "rtcosim/log.h"

typedef struct ar {
    xmlHashTable *paths; /* "/PKG/.../NAME" -> element */
    const char *file;
    rtcosim_error *err;
    rtcosim_dbc *dbc;
    size_t skipped_pdus, secured_pdus;
    bool headers_little_endian; /* CONTAINER-I-PDU-HEADER-BYTE-ORDER */
} ar;

/* Where an I-PDU's signals go in a frame: at `offset` bits, plain or
 * present at one selector code of a multiplexed PDU. */
typedef struct pdu_place {
    uint32_t offset;
    rtcosim_dbc_mux mux;
    uint64_t code;
} pdu_place;

static bool named(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (named(c, name))
            return c;
    return NULL;
}

/* The first element `name` below n (depth first), else NULL. */
static xmlNode *descendant(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (named(c, name))
            return c;
        xmlNode *d = descendant(c, name);
        if (d)
            return d;
    }
    return NULL;
}

/* An element's text without surrounding blanks, in buf (cut to its size). */
static const char *text(const xmlNode *n, char *buf, size_t size)
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

static const char *short_name(const xmlNode *n, char *buf, size_t size)
{
    return text(child(n, "SHORT-NAME"), buf, size);
}

static int line_of(const xmlNode *n) { return n ? (int)xmlGetLineNo(n) : 0; }

__attribute__((format(printf, 3, 4))) static rtcosim_status fail(ar *a, const xmlNode *at,
                                                                 const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rtcosim_error_set(a->err, RTCOSIM_EFORMAT, "%s:%d: %s", a->file, line_of(at), msg);
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
        if (short_name(c, name, sizeof name) && name[0]) {
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
static xmlNode *deref(ar *a, const xmlNode *n, const char *ref, rtcosim_status *status)
{
    char path[2048];
    xmlNode *r = child(n, ref);
    if (!r || !text(r, path, sizeof path) || !path[0])
        return NULL;
    xmlNode *target = xmlHashLookup(a->paths, (const xmlChar *)path);
    if (!target && status && *status == RTCOSIM_OK)
        *status = fail(a, r, "%s %s: no element has that path", ref, path);
    return target;
}

static bool number(const xmlNode *n, double *out)
{
    char buf[64], *end;
    if (!text(n, buf, sizeof buf) || !buf[0])
        return false;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool whole(const xmlNode *n, uint64_t max, uint64_t *out)
{
    char buf[64], *end;
    if (!text(n, buf, sizeof buf) || !buf[0] || buf[0] == '-')
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
    const xmlNode *refs = child(trig, "FRAME-PORT-REFS");
    for (const xmlNode *r = refs ? refs->children : NULL; r; r = r->next) {
        if (!named(r, "FRAME-PORT-REF"))
            continue;
        char path[2048], dir[16];
        if (!text(r, path, sizeof path))
            continue;
        const xmlNode *port = xmlHashLookup(a->paths, (const xmlChar *)path);
        if (!port || !text(child(port, "COMMUNICATION-DIRECTION"), dir, sizeof dir) ||
            strcmp(dir, "OUT") != 0)
            continue;
        for (const xmlNode *p = port->parent; p; p = p->parent)
            if (named(p, "ECU-INSTANCE")) {
                short_name(p, out, size);
                return;
            }
    }
}

/* Factor, offset, raw range, value texts and unit of a signal from its
 * COMPU-METHOD (and the props' UNIT-REF). */
static rtcosim_status scaling(ar *a, const xmlNode *compu, const xmlNode *props,
                              rtcosim_dbc_signal *s, bool *have_range, double *raw_lo,
                              double *raw_hi)
{
    rtcosim_status st = RTCOSIM_OK;
    xmlNode *scales = compu ? descendant(child(compu, "COMPU-INTERNAL-TO-PHYS"), "COMPU-SCALES")
                            : NULL;
    rtcosim_dbc_value_text *values = NULL;
    size_t count = 0;
    bool linear = false; /* the first rational scale gives factor and offset */
    for (xmlNode *sc = scales ? scales->children : NULL; sc && st == RTCOSIM_OK; sc = sc->next) {
        if (!named(sc, "COMPU-SCALE"))
            continue;
        xmlNode *coeffs = child(sc, "COMPU-RATIONAL-COEFFS"), *vt = descendant(sc, "VT");
        double lo = 0, hi = 0;
        bool has_lo = number(child(sc, "LOWER-LIMIT"), &lo), has_hi = number(child(sc, "UPPER-LIMIT"), &hi);
        if (coeffs && !linear) {
            linear = true;
            double v[2] = {0, 1}, d = 1;
            int k = 0;
            const xmlNode *num = child(coeffs, "COMPU-NUMERATOR"), *den = child(coeffs, "COMPU-DENOMINATOR");
            for (const xmlNode *x = num ? num->children : NULL; x && k < 2; x = x->next)
                if (named(x, "V") && !number(x, &v[k++]))
                    return fail(a, x, "COMPU-NUMERATOR: a V that is not a number");
            for (const xmlNode *x = den ? den->children : NULL; x; x = x->next)
                if (named(x, "V")) {
                    if (!number(x, &d) || d == 0)
                        return fail(a, x, "COMPU-DENOMINATOR: not a non-zero number");
                    break;
                }
            if (k == 1)
                v[1] = 0; /* a constant: numerator v0 only */
            s->factor = v[1] / d;
            s->offset = v[0] / d;
            if (s->factor == 0)
                return fail(a, coeffs, "COMPU-RATIONAL-COEFFS: factor 0");
            if (has_lo && has_hi) {
                *have_range = true;
                *raw_lo = lo;
                *raw_hi = hi;
            }
        } else if (!coeffs && vt && has_lo) {
            char t[256];
            text(vt, t, sizeof t);
            rtcosim_dbc_value_text *grown = realloc(values, (count + 1) * sizeof *grown);
            if (grown)
                values = grown;
            char *copy = grown ? strdup(t) : NULL;
            if (!copy) {
                s->values = values;
                s->value_count = count;
                return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
            }
            values[count++] = (rtcosim_dbc_value_text){(int64_t)llround(lo), copy};
            s->values = values; /* the caller frees them on any failure */
            s->value_count = count;
        }
    }
    s->values = values;
    s->value_count = count;
    xmlNode *unit = deref(a, props, "UNIT-REF", &st);
    if (!unit && compu)
        unit = deref(a, compu, "UNIT-REF", &st);
    char u[128] = "";
    if (unit && !text(child(unit, "DISPLAY-NAME"), u, sizeof u))
        short_name(unit, u, sizeof u);
    s->unit = strdup(u);
    if (!s->unit && st == RTCOSIM_OK)
        st = rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
    return st;
}

static void free_signal_parts(rtcosim_dbc_signal *s)
{
    for (size_t i = 0; i < s->value_count; i++)
        free((char *)s->values[i].text);
    free((void *)s->values);
    free((char *)s->unit);
}

/* Whether message `message` has a signal of that name already. */
static bool has_signal(const ar *a, size_t message, const char *name)
{
    const message_build *m = &a->dbc->messages[message];
    for (size_t i = 0; i < m->pub.signal_count; i++)
        if (strcmp(m->signals[i].name, name) == 0)
            return true;
    return false;
}

static rtcosim_status read_signal(ar *a, size_t message, uint8_t length, pdu_place at,
                                  const xmlNode *map)
{
    rtcosim_status st = RTCOSIM_OK;
    xmlNode *isig = deref(a, map, "I-SIGNAL-REF", &st);
    if (!isig)
        return st; /* an I-SIGNAL-GROUP mapping: its signals have mappings of their own */
    char name[256], order[64];
    uint64_t start, bits;
    short_name(isig, name, sizeof name);
    if (!whole(child(map, "START-POSITION"), 511, &start))
        return fail(a, map, "I-SIGNAL-TO-I-PDU-MAPPING %s: START-POSITION missing or not 0..511",
                    name);
    if (!whole(child(isig, "LENGTH"), 64, &bits) || bits == 0)
        return fail(a, isig, "I-SIGNAL %s: LENGTH missing or not 1..64 bits", name);
    text(child(map, "PACKING-BYTE-ORDER"), order, sizeof order);
    if (has_signal(a, message, name)) {
        /* the same I-SIGNAL in two alternatives of a multiplexed PDU, or
         * two PDUs of one frame: a name must identify one signal */
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: signal %s left out: frame %s has a signal"
                    " of that name already", a->file, line_of(map), name,
                    a->dbc->messages[message].pub.name);
        return RTCOSIM_OK;
    }
    rtcosim_dbc_signal s = {.name = name, .start_bit = (uint32_t)(start + at.offset),
                            .length = (uint32_t)bits,
                            .little_endian = strcmp(order, "MOST-SIGNIFICANT-BYTE-FIRST") != 0,
                            .factor = 1, .line = line_of(map), .mux = at.mux,
                            .mux_value = at.code};
    xmlNode *props = descendant(child(isig, "NETWORK-REPRESENTATION-PROPS"),
                                "SW-DATA-DEF-PROPS-CONDITIONAL");
    xmlNode *base = props ? deref(a, props, "BASE-TYPE-REF", &st) : NULL;
    xmlNode *compu = props ? deref(a, props, "COMPU-METHOD-REF", &st) : NULL;
    xmlNode *unit_props = props;
    if (!compu && st == RTCOSIM_OK) {
        /* AUTOSAR 4.0 tools give the scaling on the SYSTEM-SIGNAL's
         * PHYSICAL-PROPS instead (canmatrix looks there too) */
        xmlNode *sys = deref(a, isig, "SYSTEM-SIGNAL-REF", &st);
        xmlNode *physical = sys ? descendant(child(sys, "PHYSICAL-PROPS"),
                                             "SW-DATA-DEF-PROPS-CONDITIONAL")
                                : NULL;
        compu = physical ? deref(a, physical, "COMPU-METHOD-REF", &st) : NULL;
        if (compu)
            unit_props = physical;
    }
    if (st != RTCOSIM_OK)
        return st;
    char encoding[32] = "", type[64] = "";
    if (text(child(base, "BASE-TYPE-ENCODING"), encoding, sizeof encoding) && encoding[0])
        s.is_signed = strcmp(encoding, "2C") == 0 || strcmp(encoding, "IEEE754") == 0;
    else /* no encoding (canmatrix writes none): AUTOSAR's platform type names, sint16 */
        s.is_signed = short_name(base, type, sizeof type) &&
                      (strncasecmp(type, "sint", 4) == 0 || strncasecmp(type, "int", 3) == 0);
    if (strcmp(encoding, "IEEE754") == 0) {
        if (bits != 32 && bits != 64)
            return fail(a, isig, "I-SIGNAL %s: an IEEE754 base type needs 32 or 64 bits, it has"
                        " %u", name, (unsigned)bits);
        s.value_type = bits == 32 ? RTCOSIM_DBC_FLOAT32 : RTCOSIM_DBC_FLOAT64;
    }
    /* INIT-VALUE: a NUMERICAL-VALUE-SPECIFICATION's VALUE (raw) */
    s.has_start = number(child(descendant(child(isig, "INIT-VALUE"),
                                          "NUMERICAL-VALUE-SPECIFICATION"), "VALUE"),
                         &s.start_raw);
    bool have_range = false;
    double lo = 0, hi = 0;
    st = scaling(a, compu, unit_props, &s, &have_range, &lo, &hi);
    if (st != RTCOSIM_OK) {
        free_signal_parts(&s);
        return st;
    }
    if (!have_range && s.value_type != RTCOSIM_DBC_INTEGER) { /* the float's range */
        lo = s.value_type == RTCOSIM_DBC_FLOAT32 ? -FLT_MAX : -DBL_MAX;
        hi = -lo;
    } else if (!have_range) { /* the raw type's range */
        double span = ldexp(1.0, (int)bits);
        lo = s.is_signed ? -span / 2 : 0;
        hi = s.is_signed ? span / 2 - 1 : span - 1;
    }
    double p0 = lo * s.factor + s.offset, p1 = hi * s.factor + s.offset;
    if (!isfinite(p0) || !isfinite(p1)) { /* a float's range scaled past a double */
        p0 = -DBL_MAX;
        p1 = DBL_MAX;
    }
    s.minimum = p0 < p1 ? p0 : p1;
    s.maximum = p0 < p1 ? p1 : p0;
    if (!rtcosim_dbc_signal_fits(&s, length)) {
        free_signal_parts(&s);
        return fail(a, map, "signal %s: its bits do not fit the frame's %u bytes", name,
                    (unsigned)length);
    }
    if (dbc_add_signal(a->dbc, message, &s) != 0) {
        free_signal_parts(&s);
        return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
    }
    return RTCOSIM_OK;
}

/* The cycle time of a PDU (its first CYCLIC-TIMING), 0 when none. */
static rtcosim_time_ns cycle_of(const xmlNode *pdu)
{
    xmlNode *cyclic = descendant(pdu, "CYCLIC-TIMING");
    xmlNode *period = child(cyclic, "TIME-PERIOD");
    if (!period)
        period = child(cyclic, "REPETITION-PERIOD");
    double s;
    if (!number(child(period, "VALUE"), &s) || !(s > 0) || s > 1e6)
        return 0;
    return (rtcosim_time_ns)llround(s * 1e9);
}

/* An I-SIGNAL-I-PDU's signals, placed `at`; its cycle time the frame's
 * (the first one given). */
static rtcosim_status read_signal_pdu(ar *a, size_t message, uint8_t length, const xmlNode *pdu,
                                      pdu_place at)
{
    rtcosim_time_ns cycle = cycle_of(pdu);
    if (cycle && !a->dbc->messages[message].pub.cycle_time)
        dbc_set_cycle_time(a->dbc, message, cycle);
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *sigs = child(pdu, "I-SIGNAL-TO-PDU-MAPPINGS");
    for (const xmlNode *s = sigs ? sigs->children : NULL; s && st == RTCOSIM_OK; s = s->next)
        if (named(s, "I-SIGNAL-TO-I-PDU-MAPPING"))
            st = read_signal(a, message, length, at, s);
    return st;
}

/* The I-PDU a part of a multiplexed PDU references (I-PDU-REF), which must
 * be an I-SIGNAL-I-PDU; NULL with *st set otherwise. */
static const xmlNode *part_pdu(ar *a, const xmlNode *part, const char *mux_name,
                               rtcosim_status *st)
{
    const xmlNode *pdu = deref(a, part, "I-PDU-REF", st);
    if (*st != RTCOSIM_OK)
        return NULL;
    if (!pdu) {
        *st = fail(a, part, "MULTIPLEXED-I-PDU %s: a part without an I-PDU-REF", mux_name);
        return NULL;
    }
    if (!named(pdu, "I-SIGNAL-I-PDU")) {
        *st = fail(a, part, "MULTIPLEXED-I-PDU %s: a part's I-PDU is a %s, not an"
                   " I-SIGNAL-I-PDU", mux_name, (const char *)pdu->name);
        return NULL;
    }
    return pdu;
}

/* Every element `name` below n (the parts' lists: STATIC-PARTS holds
 * STATIC-PART in AUTOSAR 4.1 on, 4.0 has one STATIC-PART directly). */
static size_t collect(const xmlNode *n, const char *name, const xmlNode **out, size_t max,
                      size_t count, int depth)
{
    for (const xmlNode *c = n ? n->children : NULL; c && count < max; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (named(c, name))
            out[count++] = c;
        else if (depth < 4)
            count = collect(c, name, out, max, count, depth + 1);
    }
    return count;
}

enum { MAX_PARTS = 1024 }; /* alternatives (or static parts) of one multiplexed PDU */

static rtcosim_status read_multiplexed_pdu(ar *a, size_t message, uint8_t length,
                                           const xmlNode *pdu, uint32_t offset)
{
    char name[256], order[64] = "", sig[300];
    short_name(pdu, name, sizeof name);
    const message_build *m = &a->dbc->messages[message];
    for (size_t i = 0; i < m->pub.signal_count; i++)
        if (m->signals[i].mux == RTCOSIM_DBC_MULTIPLEXOR) {
            /* one selector a frame in the database's multiplexing */
            rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: MULTIPLEXED-I-PDU %s left out: frame"
                        " %s has a multiplexed PDU already", a->file, line_of(pdu), name,
                        m->pub.name);
            return RTCOSIM_OK;
        }
    uint64_t start, bits;
    if (!whole(child(pdu, "SELECTOR-FIELD-START-POSITION"), 511, &start))
        return fail(a, pdu, "MULTIPLEXED-I-PDU %s: SELECTOR-FIELD-START-POSITION missing or not"
                    " 0..511", name);
    if (!whole(child(pdu, "SELECTOR-FIELD-LENGTH"), 32, &bits) || bits == 0)
        return fail(a, pdu, "MULTIPLEXED-I-PDU %s: SELECTOR-FIELD-LENGTH missing or not 1..32",
                    name);
    text(child(pdu, "SELECTOR-FIELD-BYTE-ORDER"), order, sizeof order);
    const xmlNode *parts[MAX_PARTS];
    size_t n = collect(child(pdu, "DYNAMIC-PARTS") ? child(pdu, "DYNAMIC-PARTS")
                                                   : child(pdu, "DYNAMIC-PART"),
                       "DYNAMIC-PART-ALTERNATIVE", parts, MAX_PARTS, 0, 0);
    if (n == MAX_PARTS)
        return fail(a, pdu, "MULTIPLEXED-I-PDU %s: more than %d DYNAMIC-PART-ALTERNATIVEs", name,
                    MAX_PARTS - 1);
    uint64_t initial = 0;
    bool have_initial = false;
    for (size_t i = 0; i < n; i++) {
        char flag[16] = "";
        uint64_t code;
        text(child(parts[i], "INITIAL-DYNAMIC-PART"), flag, sizeof flag);
        if (!have_initial && strcmp(flag, "true") == 0 &&
            whole(child(parts[i], "SELECTOR-FIELD-CODE"), UINT32_MAX, &code)) {
            initial = code;
            have_initial = true;
        }
    }
    snprintf(sig, sizeof sig, "%s_Selector", name);
    rtcosim_dbc_signal sel = {.name = sig, .start_bit = (uint32_t)(start + offset),
                              .length = (uint32_t)bits,
                              .little_endian = strcmp(order, "MOST-SIGNIFICANT-BYTE-FIRST") != 0,
                              .factor = 1, .minimum = 0, .maximum = ldexp(1.0, (int)bits) - 1,
                              .line = line_of(pdu), .mux = RTCOSIM_DBC_MULTIPLEXOR,
                              .has_start = have_initial, .start_raw = (double)initial};
    if (!rtcosim_dbc_signal_fits(&sel, length))
        return fail(a, pdu, "MULTIPLEXED-I-PDU %s: its selector field does not fit the frame's"
                    " %u bytes", name, (unsigned)length);
    if (has_signal(a, message, sig))
        return fail(a, pdu, "MULTIPLEXED-I-PDU %s: frame %s has a signal named %s already", name,
                    m->pub.name, sig);
    if (dbc_add_signal(a->dbc, message, &sel) != 0)
        return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *statics[MAX_PARTS];
    size_t ns = named(child(pdu, "STATIC-PART"), "STATIC-PART")
                    ? (statics[0] = child(pdu, "STATIC-PART"), 1)
                    : collect(child(pdu, "STATIC-PARTS"), "STATIC-PART", statics, MAX_PARTS, 0, 0);
    for (size_t i = 0; i < ns && st == RTCOSIM_OK; i++) {
        const xmlNode *part = part_pdu(a, statics[i], name, &st);
        if (part)
            st = read_signal_pdu(a, message, length, part,
                                 (pdu_place){offset, RTCOSIM_DBC_PLAIN, 0});
    }
    for (size_t i = 0; i < n && st == RTCOSIM_OK; i++) {
        uint64_t code;
        if (!whole(child(parts[i], "SELECTOR-FIELD-CODE"), UINT32_MAX, &code) ||
            (bits < 32 && code >> bits))
            return fail(a, parts[i], "MULTIPLEXED-I-PDU %s: SELECTOR-FIELD-CODE missing or beyond"
                        " its %u-bit selector", name, (unsigned)bits);
        const xmlNode *part = part_pdu(a, parts[i], name, &st);
        if (part)
            st = read_signal_pdu(a, message, length, part,
                                 (pdu_place){offset, RTCOSIM_DBC_MULTIPLEXED, code});
    }
    return st;
}

static rtcosim_status read_pdu(ar *a, size_t message, uint8_t length, const xmlNode *pdu,
                               uint32_t offset, int depth);

/* A CONTAINER-I-PDU mapped into frame `message`: with SHORT-HEADER or
 * LONG-HEADER each contained PDU (CONTAINED-PDU-TRIGGERING-REFS, a
 * PDU-TRIGGERING's I-PDU-REF) becomes a message of its own, found in the
 * frame by its HEADER-ID-SHORT-HEADER / HEADER-ID-LONG-HEADER; with
 * NO-HEADER (a static layout) its signals are the frame's, at the
 * contained PDU's OFFSET (bytes). */
static rtcosim_status read_container_pdu(ar *a, size_t message, uint8_t length,
                                         const xmlNode *pdu, uint32_t offset, int depth)
{
    char name[256], type[32] = "";
    short_name(pdu, name, sizeof name);
    text(child(pdu, "HEADER-TYPE"), type, sizeof type);
    bool no_header = strcmp(type, "NO-HEADER") == 0 || !type[0];
    uint8_t header = strcmp(type, "SHORT-HEADER") == 0 ? 4 : strcmp(type, "LONG-HEADER") == 0 ? 8 : 0;
    if (!no_header && !header)
        return fail(a, pdu, "CONTAINER-I-PDU %s: HEADER-TYPE %s (SHORT-HEADER, LONG-HEADER or"
                    " NO-HEADER)", name, type);
    if (header && (offset || a->dbc->messages[message].pub.signal_count ||
                   a->dbc->messages[message].pub.header_bytes)) {
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: CONTAINER-I-PDU %s left out: a container"
                    " with headers must be its frame's only PDU", a->file, line_of(pdu), name);
        return RTCOSIM_OK;
    }
    double timeout = 0;
    if (child(pdu, "CONTAINER-TIMEOUT") &&
        (!number(child(pdu, "CONTAINER-TIMEOUT"), &timeout) || !(timeout >= 0 && timeout < 1e3)))
        return fail(a, pdu, "CONTAINER-I-PDU %s: CONTAINER-TIMEOUT not a time in seconds (0 to"
                    " 1000)", name);
    if (header)
        dbc_set_container(a->dbc, message, header, a->headers_little_endian,
                          (rtcosim_time_ns)llround(timeout * 1e9));
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *refs = child(pdu, "CONTAINED-PDU-TRIGGERING-REFS");
    for (const xmlNode *r = refs ? refs->children : NULL; r && st == RTCOSIM_OK; r = r->next) {
        if (!named(r, "CONTAINED-PDU-TRIGGERING-REF"))
            continue;
        char path[2048];
        const xmlNode *trig = text(r, path, sizeof path) && path[0]
                                  ? xmlHashLookup(a->paths, (const xmlChar *)path) : NULL;
        if (!trig)
            return fail(a, r, "CONTAINED-PDU-TRIGGERING-REF %s: no element has that path", path);
        const xmlNode *part = deref(a, trig, "I-PDU-REF", &st);
        if (st != RTCOSIM_OK)
            return st;
        if (!part)
            return fail(a, trig, "PDU-TRIGGERING of CONTAINER-I-PDU %s: no I-PDU-REF", name);
        char part_name[256];
        short_name(part, part_name, sizeof part_name);
        const xmlNode *props = child(part, "CONTAINED-I-PDU-PROPS");
        if (!props)
            props = part; /* (canmatrix looks anywhere in the PDU) */
        if (no_header) {
            uint64_t bytes;
            if (!whole(descendant(props, "OFFSET"), 63, &bytes))
                return fail(a, part, "%s in the NO-HEADER CONTAINER-I-PDU %s: no OFFSET (bytes,"
                            " 0..63) in its CONTAINED-I-PDU-PROPS", part_name, name);
            st = read_pdu(a, message, length, part, offset + (uint32_t)bytes * 8, depth + 1);
            continue;
        }
        uint64_t id, bytes;
        const char *id_name = header == 4 ? "HEADER-ID-SHORT-HEADER" : "HEADER-ID-LONG-HEADER";
        if (!whole(descendant(props, id_name), header == 4 ? 0xFFFFFFu : 0xFFFFFFFFu, &id))
            return fail(a, part, "%s in CONTAINER-I-PDU %s: no %s (0..%s)", part_name, name,
                        id_name, header == 4 ? "0xFFFFFF" : "0xFFFFFFFF");
        if (!whole(child(part, "LENGTH"), 64, &bytes))
            return fail(a, part, "%s: LENGTH missing or over 64 bytes", part_name);
        size_t index;
        int rc = dbc_add_contained(a->dbc, message, part_name, (uint8_t)bytes, (uint32_t)id,
                                   line_of(part), &index);
        if (rc == -3 || rc == -4) {
            rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: contained PDU %s of %s left out: its"
                        " %s is another's", a->file, line_of(part), part_name, name,
                        rc == -3 ? "name" : "header id");
            continue;
        }
        if (rc)
            return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
        st = read_pdu(a, index, (uint8_t)bytes, part, 0, depth + 1);
    }
    return st;
}

/* One PDU mapped into a frame at `offset` bits: an I-SIGNAL-I-PDU, a
 * multiplexed one, a secured one's payload or a container's contained PDUs
 * (depth: PDUs in PDUs are not followed deeper than that). */
static rtcosim_status read_pdu(ar *a, size_t message, uint8_t length, const xmlNode *pdu,
                               uint32_t offset, int depth)
{
    if (named(pdu, "I-SIGNAL-I-PDU"))
        return read_signal_pdu(a, message, length, pdu, (pdu_place){offset, RTCOSIM_DBC_PLAIN, 0});
    if (named(pdu, "MULTIPLEXED-I-PDU"))
        return read_multiplexed_pdu(a, message, length, pdu, offset);
    if (named(pdu, "SECURED-I-PDU") && depth < 4) {
        rtcosim_status st = RTCOSIM_OK;
        const xmlNode *trig = deref(a, pdu, "PAYLOAD-REF", &st);
        const xmlNode *payload = trig ? deref(a, trig, "I-PDU-REF", &st) : NULL;
        if (st != RTCOSIM_OK)
            return st;
        if (!payload) {
            char name[256];
            short_name(pdu, name, sizeof name);
            return fail(a, pdu, "SECURED-I-PDU %s: no payload (PAYLOAD-REF to a PDU-TRIGGERING"
                        " with an I-PDU-REF)", name);
        }
        a->secured_pdus++;
        return read_pdu(a, message, length, payload, offset, depth + 1);
    }
    if (named(pdu, "CONTAINER-I-PDU") && depth < 4)
        return read_container_pdu(a, message, length, pdu, offset, depth);
    a->skipped_pdus++;
    return RTCOSIM_OK;
}

static rtcosim_status read_frame(ar *a, const xmlNode *trig)
{
    rtcosim_status st = RTCOSIM_OK;
    char name[256], mode[32], sender[256];
    uint64_t id, length;
    xmlNode *frame = deref(a, trig, "FRAME-REF", &st);
    if (!frame)
        return st; /* a triggering without a frame: nothing is sent */
    short_name(frame, name, sizeof name);
    text(child(trig, "CAN-ADDRESSING-MODE"), mode, sizeof mode);
    bool extended = strcmp(mode, "EXTENDED") == 0;
    if (!whole(child(trig, "IDENTIFIER"), extended ? 0x1FFFFFFFu : 0x7FFu, &id))
        return fail(a, trig, "CAN-FRAME-TRIGGERING of %s: IDENTIFIER missing or beyond %s ids",
                    name, extended ? "29-bit" : "11-bit");
    if (!whole(child(frame, "FRAME-LENGTH"), 64, &length))
        return fail(a, frame, "CAN-FRAME %s: FRAME-LENGTH missing or over 64 bytes", name);
    sender_of(a, trig, sender, sizeof sender);
    size_t index;
    int rc = dbc_add_message(a->dbc, (uint32_t)id, extended, name, (uint8_t)length, sender,
                             line_of(trig), &index);
    if (rc == -2 || rc == -3) {
        const rtcosim_dbc_message *was = rtcosim_dbc_find_id(a->dbc, (uint32_t)id, extended);
        if (was && strcmp(was->name, name) == 0)
            return RTCOSIM_OK; /* the same frame on another channel */
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: frame %s (id 0x%" PRIX64 ") left out:"
                    " its %s is another frame's (line %d)", a->file, line_of(trig), name, id,
                    rc == -2 ? "id" : "name", was ? was->line : 0);
        return RTCOSIM_OK;
    }
    if (rc)
        return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
    char behavior[32] = "";
    if (!text(child(trig, "CAN-FRAME-TX-BEHAVIOR"), behavior, sizeof behavior) || !behavior[0])
        text(child(trig, "CAN-FRAME-RX-BEHAVIOR"), behavior, sizeof behavior);
    if (strcmp(behavior, "CAN-FD") == 0 || length > 8)
        dbc_set_format(a->dbc, index, true, true); /* CAN FD (its data phase switched) */
    const xmlNode *maps = child(frame, "PDU-TO-FRAME-MAPPINGS");
    for (const xmlNode *m = maps ? maps->children : NULL; m && st == RTCOSIM_OK; m = m->next) {
        if (!named(m, "PDU-TO-FRAME-MAPPING"))
            continue;
        xmlNode *pdu = deref(a, m, "PDU-REF", &st);
        if (!pdu)
            continue;
        uint64_t pdu_start = 0;
        if (child(m, "START-POSITION") && !whole(child(m, "START-POSITION"), 511, &pdu_start))
            return fail(a, m, "PDU-TO-FRAME-MAPPING of %s: START-POSITION not 0..511", name);
        st = read_pdu(a, index, (uint8_t)length, pdu, (uint32_t)pdu_start, 0);
    }
    return st;
}

static rtcosim_status read_triggerings(ar *a, const xmlNode *n, int depth)
{
    rtcosim_status st = RTCOSIM_OK;
    for (const xmlNode *c = n->children; c && st == RTCOSIM_OK; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (named(c, "CAN-FRAME-TRIGGERING"))
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
    xmlDoc *doc = xmlReadMemory(xml, (int)size, name, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not well-formed XML", name);
    ar a = {.file = name, .err = err};
    rtcosim_status st = RTCOSIM_OK;
    xmlNode *root = xmlDocGetRootElement(doc);
    const char *ns = root && root->ns && root->ns->href ? (const char *)root->ns->href : "";
    if (!named(root, "AUTOSAR"))
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
        text(descendant(root, "CONTAINER-I-PDU-HEADER-BYTE-ORDER"), order, sizeof order);
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
