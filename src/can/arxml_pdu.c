/* ARXML PDUs and their signals (arxml_internal.h): I-SIGNAL-I-PDUs with
 * their I-SIGNALs' layout and scaling, MULTIPLEXED-I-PDUs, SECURED-I-PDUs
 * and CONTAINER-I-PDUs (arxml.c's header says what each becomes). */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arxml_internal.h"
#include "rtcosim/log.h"

/* Factor, offset, raw range, value texts and unit of a signal from its
 * COMPU-METHOD (and the props' UNIT-REF). */
static rtcosim_status scaling(ar *a, const xmlNode *compu, const xmlNode *props,
                              rtcosim_dbc_signal *s, bool *have_range, double *raw_lo,
                              double *raw_hi)
{
    rtcosim_status st = RTCOSIM_OK;
    xmlNode *scales = compu ? ar_descendant(ar_child(compu, "COMPU-INTERNAL-TO-PHYS"), "COMPU-SCALES")
                            : NULL;
    rtcosim_dbc_value_text *values = NULL;
    size_t count = 0;
    bool linear = false; /* the first rational scale gives factor and offset */
    for (xmlNode *sc = scales ? scales->children : NULL; sc && st == RTCOSIM_OK; sc = sc->next) {
        if (!ar_named(sc, "COMPU-SCALE"))
            continue;
        xmlNode *coeffs = ar_child(sc, "COMPU-RATIONAL-COEFFS"), *vt = ar_descendant(sc, "VT");
        double lo = 0, hi = 0;
        bool has_lo = ar_number(ar_child(sc, "LOWER-LIMIT"), &lo), has_hi = ar_number(ar_child(sc, "UPPER-LIMIT"), &hi);
        if (coeffs && !linear) {
            linear = true;
            double v[2] = {0, 1}, d = 1;
            int k = 0;
            const xmlNode *num = ar_child(coeffs, "COMPU-NUMERATOR"), *den = ar_child(coeffs, "COMPU-DENOMINATOR");
            for (const xmlNode *x = num ? num->children : NULL; x && k < 2; x = x->next)
                if (ar_named(x, "V") && !ar_number(x, &v[k++]))
                    return ar_fail(a, x, "COMPU-NUMERATOR: a V that is not a number");
            for (const xmlNode *x = den ? den->children : NULL; x; x = x->next)
                if (ar_named(x, "V")) {
                    if (!ar_number(x, &d) || d == 0)
                        return ar_fail(a, x, "COMPU-DENOMINATOR: not a non-zero number");
                    break;
                }
            if (k == 1)
                v[1] = 0; /* a constant: numerator v0 only */
            s->factor = v[1] / d;
            s->offset = v[0] / d;
            if (s->factor == 0)
                return ar_fail(a, coeffs, "COMPU-RATIONAL-COEFFS: factor 0");
            if (has_lo && has_hi) {
                *have_range = true;
                *raw_lo = lo;
                *raw_hi = hi;
            }
        } else if (!coeffs && vt && has_lo) {
            char t[256];
            ar_text(vt, t, sizeof t);
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
    xmlNode *unit = ar_deref(a, props, "UNIT-REF", &st);
    if (!unit && compu)
        unit = ar_deref(a, compu, "UNIT-REF", &st);
    char u[128] = "";
    if (unit && !ar_text(ar_child(unit, "DISPLAY-NAME"), u, sizeof u))
        ar_short_name(unit, u, sizeof u);
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
    xmlNode *isig = ar_deref(a, map, "I-SIGNAL-REF", &st);
    if (!isig)
        return st; /* an I-SIGNAL-GROUP mapping: its signals have mappings of their own */
    char name[256], order[64];
    uint64_t start, bits;
    ar_short_name(isig, name, sizeof name);
    if (!ar_whole(ar_child(map, "START-POSITION"), 511, &start))
        return ar_fail(a, map, "I-SIGNAL-TO-I-PDU-MAPPING %s: START-POSITION missing or not 0..511",
                    name);
    if (!ar_whole(ar_child(isig, "LENGTH"), 64, &bits) || bits == 0)
        return ar_fail(a, isig, "I-SIGNAL %s: LENGTH missing or not 1..64 bits", name);
    ar_text(ar_child(map, "PACKING-BYTE-ORDER"), order, sizeof order);
    if (has_signal(a, message, name)) {
        /* the same I-SIGNAL in two alternatives of a multiplexed PDU, or
         * two PDUs of one frame: a name must identify one signal */
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: signal %s left out: frame %s has a signal"
                    " of that name already", a->file, ar_line_of(map), name,
                    a->dbc->messages[message].pub.name);
        return RTCOSIM_OK;
    }
    rtcosim_dbc_signal s = {.name = name, .start_bit = (uint32_t)(start + at.offset),
                            .length = (uint32_t)bits,
                            .little_endian = strcmp(order, "MOST-SIGNIFICANT-BYTE-FIRST") != 0,
                            .factor = 1, .line = ar_line_of(map), .mux = at.mux,
                            .mux_value = at.code};
    xmlNode *props = ar_descendant(ar_child(isig, "NETWORK-REPRESENTATION-PROPS"),
                                "SW-DATA-DEF-PROPS-CONDITIONAL");
    xmlNode *base = props ? ar_deref(a, props, "BASE-TYPE-REF", &st) : NULL;
    xmlNode *compu = props ? ar_deref(a, props, "COMPU-METHOD-REF", &st) : NULL;
    xmlNode *unit_props = props;
    if (!compu && st == RTCOSIM_OK) {
        /* AUTOSAR 4.0 tools give the scaling on the SYSTEM-SIGNAL's
         * PHYSICAL-PROPS instead (canmatrix looks there too) */
        xmlNode *sys = ar_deref(a, isig, "SYSTEM-SIGNAL-REF", &st);
        xmlNode *physical = sys ? ar_descendant(ar_child(sys, "PHYSICAL-PROPS"),
                                             "SW-DATA-DEF-PROPS-CONDITIONAL")
                                : NULL;
        compu = physical ? ar_deref(a, physical, "COMPU-METHOD-REF", &st) : NULL;
        if (compu)
            unit_props = physical;
    }
    if (st != RTCOSIM_OK)
        return st;
    char encoding[32] = "", type[64] = "";
    if (ar_text(ar_child(base, "BASE-TYPE-ENCODING"), encoding, sizeof encoding) && encoding[0])
        s.is_signed = strcmp(encoding, "2C") == 0 || strcmp(encoding, "IEEE754") == 0;
    else /* no encoding (canmatrix writes none): AUTOSAR's platform type names, sint16 */
        s.is_signed = ar_short_name(base, type, sizeof type) &&
                      (strncasecmp(type, "sint", 4) == 0 || strncasecmp(type, "int", 3) == 0);
    if (strcmp(encoding, "IEEE754") == 0) {
        if (bits != 32 && bits != 64)
            return ar_fail(a, isig, "I-SIGNAL %s: an IEEE754 base type needs 32 or 64 bits, it has"
                        " %u", name, (unsigned)bits);
        s.value_type = bits == 32 ? RTCOSIM_DBC_FLOAT32 : RTCOSIM_DBC_FLOAT64;
    }
    /* INIT-VALUE: a NUMERICAL-VALUE-SPECIFICATION's VALUE (raw) */
    s.has_start = ar_number(ar_child(ar_descendant(ar_child(isig, "INIT-VALUE"),
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
        return ar_fail(a, map, "signal %s: its bits do not fit the frame's %u bytes", name,
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
    xmlNode *cyclic = ar_descendant(pdu, "CYCLIC-TIMING");
    xmlNode *period = ar_child(cyclic, "TIME-PERIOD");
    if (!period)
        period = ar_child(cyclic, "REPETITION-PERIOD");
    double s;
    if (!ar_number(ar_child(period, "VALUE"), &s) || !(s > 0) || s > 1e6)
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
    const xmlNode *sigs = ar_child(pdu, "I-SIGNAL-TO-PDU-MAPPINGS");
    for (const xmlNode *s = sigs ? sigs->children : NULL; s && st == RTCOSIM_OK; s = s->next)
        if (ar_named(s, "I-SIGNAL-TO-I-PDU-MAPPING"))
            st = read_signal(a, message, length, at, s);
    return st;
}

/* The I-PDU a part of a multiplexed PDU references (I-PDU-REF), which must
 * be an I-SIGNAL-I-PDU; NULL with *st set otherwise. */
static const xmlNode *part_pdu(ar *a, const xmlNode *part, const char *mux_name,
                               rtcosim_status *st)
{
    const xmlNode *pdu = ar_deref(a, part, "I-PDU-REF", st);
    if (*st != RTCOSIM_OK)
        return NULL;
    if (!pdu) {
        *st = ar_fail(a, part, "MULTIPLEXED-I-PDU %s: a part without an I-PDU-REF", mux_name);
        return NULL;
    }
    if (!ar_named(pdu, "I-SIGNAL-I-PDU")) {
        *st = ar_fail(a, part, "MULTIPLEXED-I-PDU %s: a part's I-PDU is a %s, not an"
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
        if (ar_named(c, name))
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
    ar_short_name(pdu, name, sizeof name);
    const message_build *m = &a->dbc->messages[message];
    for (size_t i = 0; i < m->pub.signal_count; i++)
        if (m->signals[i].mux == RTCOSIM_DBC_MULTIPLEXOR) {
            /* one selector a frame in the database's multiplexing */
            rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: MULTIPLEXED-I-PDU %s left out: frame"
                        " %s has a multiplexed PDU already", a->file, ar_line_of(pdu), name,
                        m->pub.name);
            return RTCOSIM_OK;
        }
    uint64_t start, bits;
    if (!ar_whole(ar_child(pdu, "SELECTOR-FIELD-START-POSITION"), 511, &start))
        return ar_fail(a, pdu, "MULTIPLEXED-I-PDU %s: SELECTOR-FIELD-START-POSITION missing or not"
                    " 0..511", name);
    if (!ar_whole(ar_child(pdu, "SELECTOR-FIELD-LENGTH"), 32, &bits) || bits == 0)
        return ar_fail(a, pdu, "MULTIPLEXED-I-PDU %s: SELECTOR-FIELD-LENGTH missing or not 1..32",
                    name);
    ar_text(ar_child(pdu, "SELECTOR-FIELD-BYTE-ORDER"), order, sizeof order);
    const xmlNode *parts[MAX_PARTS];
    size_t n = collect(ar_child(pdu, "DYNAMIC-PARTS") ? ar_child(pdu, "DYNAMIC-PARTS")
                                                   : ar_child(pdu, "DYNAMIC-PART"),
                       "DYNAMIC-PART-ALTERNATIVE", parts, MAX_PARTS, 0, 0);
    if (n == MAX_PARTS)
        return ar_fail(a, pdu, "MULTIPLEXED-I-PDU %s: more than %d DYNAMIC-PART-ALTERNATIVEs", name,
                    MAX_PARTS - 1);
    uint64_t initial = 0;
    bool have_initial = false;
    for (size_t i = 0; i < n; i++) {
        char flag[16] = "";
        uint64_t code;
        ar_text(ar_child(parts[i], "INITIAL-DYNAMIC-PART"), flag, sizeof flag);
        if (!have_initial && strcmp(flag, "true") == 0 &&
            ar_whole(ar_child(parts[i], "SELECTOR-FIELD-CODE"), UINT32_MAX, &code)) {
            initial = code;
            have_initial = true;
        }
    }
    snprintf(sig, sizeof sig, "%s_Selector", name);
    rtcosim_dbc_signal sel = {.name = sig, .start_bit = (uint32_t)(start + offset),
                              .length = (uint32_t)bits,
                              .little_endian = strcmp(order, "MOST-SIGNIFICANT-BYTE-FIRST") != 0,
                              .factor = 1, .minimum = 0, .maximum = ldexp(1.0, (int)bits) - 1,
                              .line = ar_line_of(pdu), .mux = RTCOSIM_DBC_MULTIPLEXOR,
                              .has_start = have_initial, .start_raw = (double)initial};
    if (!rtcosim_dbc_signal_fits(&sel, length))
        return ar_fail(a, pdu, "MULTIPLEXED-I-PDU %s: its selector field does not fit the frame's"
                    " %u bytes", name, (unsigned)length);
    if (has_signal(a, message, sig))
        return ar_fail(a, pdu, "MULTIPLEXED-I-PDU %s: frame %s has a signal named %s already", name,
                    m->pub.name, sig);
    if (dbc_add_signal(a->dbc, message, &sel) != 0)
        return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *statics[MAX_PARTS];
    size_t ns = ar_named(ar_child(pdu, "STATIC-PART"), "STATIC-PART")
                    ? (statics[0] = ar_child(pdu, "STATIC-PART"), 1)
                    : collect(ar_child(pdu, "STATIC-PARTS"), "STATIC-PART", statics, MAX_PARTS, 0, 0);
    for (size_t i = 0; i < ns && st == RTCOSIM_OK; i++) {
        const xmlNode *part = part_pdu(a, statics[i], name, &st);
        if (part)
            st = read_signal_pdu(a, message, length, part,
                                 (pdu_place){offset, RTCOSIM_DBC_PLAIN, 0});
    }
    for (size_t i = 0; i < n && st == RTCOSIM_OK; i++) {
        uint64_t code;
        if (!ar_whole(ar_child(parts[i], "SELECTOR-FIELD-CODE"), UINT32_MAX, &code) ||
            (bits < 32 && code >> bits))
            return ar_fail(a, parts[i], "MULTIPLEXED-I-PDU %s: SELECTOR-FIELD-CODE missing or beyond"
                        " its %u-bit selector", name, (unsigned)bits);
        const xmlNode *part = part_pdu(a, parts[i], name, &st);
        if (part)
            st = read_signal_pdu(a, message, length, part,
                                 (pdu_place){offset, RTCOSIM_DBC_MULTIPLEXED, code});
    }
    return st;
}

/* An optional time in seconds (0 to 1000) into *ns; false: not one. */
static bool optional_time(const xmlNode *n, rtcosim_time_ns *ns)
{
    double s;
    if (!n)
        return true;
    if (!ar_number(n, &s) || !(s >= 0 && s < 1e3))
        return false;
    *ns = (rtcosim_time_ns)llround(s * 1e9);
    return true;
}

/* The container's sending: CONTAINER-TIMEOUT, CONTAINER-TRIGGER,
 * THRESHOLD-SIZE (bytes, at most the container's), UNUSED-BIT-PATTERN. */
static rtcosim_status container_sending(ar *a, const xmlNode *pdu, const char *name,
                                        uint8_t length, rtcosim_dbc_message *how)
{
    if (!optional_time(ar_child(pdu, "CONTAINER-TIMEOUT"), &how->container_timeout))
        return ar_fail(a, pdu, "CONTAINER-I-PDU %s: CONTAINER-TIMEOUT not a time in seconds (0 to"
                    " 1000)", name);
    char trigger[32] = "";
    if (ar_text(ar_child(pdu, "CONTAINER-TRIGGER"), trigger, sizeof trigger) && trigger[0] &&
        strcmp(trigger, "DEFAULT-TRIGGER") != 0 && strcmp(trigger, "FIRST-CONTAINED-TRIGGER") != 0)
        return ar_fail(a, pdu, "CONTAINER-I-PDU %s: CONTAINER-TRIGGER %s (DEFAULT-TRIGGER or"
                    " FIRST-CONTAINED-TRIGGER)", name, trigger);
    how->container_first_trigger = strcmp(trigger, "FIRST-CONTAINED-TRIGGER") == 0;
    uint64_t v = 0;
    const xmlNode *n = ar_child(pdu, "THRESHOLD-SIZE");
    if (n && !ar_whole(n, length, &v))
        return ar_fail(a, n, "CONTAINER-I-PDU %s: THRESHOLD-SIZE not a number of bytes (0..%u,"
                    " its frame's)", name, (unsigned)length);
    how->container_threshold = (uint32_t)v;
    v = 0;
    if ((n = ar_child(pdu, "UNUSED-BIT-PATTERN")) && !ar_whole(n, 255, &v))
        return ar_fail(a, n, "CONTAINER-I-PDU %s: UNUSED-BIT-PATTERN not a byte (0..255)", name);
    how->container_padding = (uint8_t)v;
    return RTCOSIM_OK;
}

/* A contained PDU's CONTAINED-I-PDU-PROPS: TRIGGER (ALWAYS, NEVER),
 * COLLECTION-SEMANTICS (LAST-IS-BEST, QUEUED), TIMEOUT. */
static rtcosim_status contained_sending(ar *a, const xmlNode *props, const char *name,
                                        rtcosim_dbc_message *how)
{
    char trigger[32] = "", semantics[32] = "";
    ar_text(ar_child(props, "TRIGGER"), trigger, sizeof trigger);
    ar_text(ar_child(props, "COLLECTION-SEMANTICS"), semantics, sizeof semantics);
    if (trigger[0] && strcmp(trigger, "ALWAYS") != 0 && strcmp(trigger, "NEVER") != 0)
        return ar_fail(a, props, "contained PDU %s: TRIGGER %s (ALWAYS or NEVER)", name, trigger);
    if (semantics[0] && strcmp(semantics, "LAST-IS-BEST") != 0 && strcmp(semantics, "QUEUED") != 0)
        return ar_fail(a, props, "contained PDU %s: COLLECTION-SEMANTICS %s (LAST-IS-BEST or"
                    " QUEUED)", name, semantics);
    how->contained_trigger = strcmp(trigger, "ALWAYS") == 0;
    how->contained_queued = strcmp(semantics, "QUEUED") == 0;
    how->contained_timeout = -1;
    if (!optional_time(ar_child(props, "TIMEOUT"), &how->contained_timeout))
        return ar_fail(a, props, "contained PDU %s: TIMEOUT not a time in seconds (0 to 1000)",
                    name);
    return RTCOSIM_OK;
}

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
    ar_short_name(pdu, name, sizeof name);
    ar_text(ar_child(pdu, "HEADER-TYPE"), type, sizeof type);
    bool no_header = strcmp(type, "NO-HEADER") == 0 || !type[0];
    uint8_t header = strcmp(type, "SHORT-HEADER") == 0 ? 4 : strcmp(type, "LONG-HEADER") == 0 ? 8 : 0;
    if (!no_header && !header)
        return ar_fail(a, pdu, "CONTAINER-I-PDU %s: HEADER-TYPE %s (SHORT-HEADER, LONG-HEADER or"
                    " NO-HEADER)", name, type);
    if (header && (offset || a->dbc->messages[message].pub.signal_count ||
                   a->dbc->messages[message].pub.header_bytes)) {
        rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: CONTAINER-I-PDU %s left out: a container"
                    " with headers must be its frame's only PDU", a->file, ar_line_of(pdu), name);
        return RTCOSIM_OK;
    }
    rtcosim_dbc_message how = {.header_bytes = header,
                               .header_little_endian = a->headers_little_endian};
    rtcosim_status st = container_sending(a, pdu, name, length, &how);
    if (st != RTCOSIM_OK)
        return st;
    if (header)
        dbc_set_container(a->dbc, message, &how);
    const xmlNode *refs = ar_child(pdu, "CONTAINED-PDU-TRIGGERING-REFS");
    for (const xmlNode *r = refs ? refs->children : NULL; r && st == RTCOSIM_OK; r = r->next) {
        if (!ar_named(r, "CONTAINED-PDU-TRIGGERING-REF"))
            continue;
        char path[2048];
        const xmlNode *trig = ar_text(r, path, sizeof path) && path[0]
                                  ? xmlHashLookup(a->paths, (const xmlChar *)path) : NULL;
        if (!trig)
            return ar_fail(a, r, "CONTAINED-PDU-TRIGGERING-REF %s: no element has that path", path);
        const xmlNode *part = ar_deref(a, trig, "I-PDU-REF", &st);
        if (st != RTCOSIM_OK)
            return st;
        if (!part)
            return ar_fail(a, trig, "PDU-TRIGGERING of CONTAINER-I-PDU %s: no I-PDU-REF", name);
        char part_name[256];
        ar_short_name(part, part_name, sizeof part_name);
        const xmlNode *props = ar_child(part, "CONTAINED-I-PDU-PROPS");
        if (!props)
            props = part; /* (canmatrix looks anywhere in the PDU) */
        if (no_header) {
            uint64_t bytes;
            if (!ar_whole(ar_descendant(props, "OFFSET"), 63, &bytes))
                return ar_fail(a, part, "%s in the NO-HEADER CONTAINER-I-PDU %s: no OFFSET (bytes,"
                            " 0..63) in its CONTAINED-I-PDU-PROPS", part_name, name);
            st = ar_read_pdu(a, message, length, part, offset + (uint32_t)bytes * 8, depth + 1);
            continue;
        }
        uint64_t id, bytes;
        const char *id_name = header == 4 ? "HEADER-ID-SHORT-HEADER" : "HEADER-ID-LONG-HEADER";
        if (!ar_whole(ar_descendant(props, id_name), header == 4 ? 0xFFFFFFu : 0xFFFFFFFFu, &id))
            return ar_fail(a, part, "%s in CONTAINER-I-PDU %s: no %s (0..%s)", part_name, name,
                        id_name, header == 4 ? "0xFFFFFF" : "0xFFFFFFFF");
        if (!ar_whole(ar_child(part, "LENGTH"), 64, &bytes))
            return ar_fail(a, part, "%s: LENGTH missing or over 64 bytes", part_name);
        size_t index;
        int rc = dbc_add_contained(a->dbc, message, part_name, (uint8_t)bytes, (uint32_t)id,
                                   ar_line_of(part), &index);
        if (rc == -3 || rc == -4) {
            rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: contained PDU %s of %s left out: its"
                        " %s is another's", a->file, ar_line_of(part), part_name, name,
                        rc == -3 ? "name" : "header id");
            continue;
        }
        if (rc)
            return rtcosim_error_set(a->err, RTCOSIM_ENOMEM, "%s: out of memory", a->file);
        if (props != part) {
            if ((st = contained_sending(a, props, part_name, &how)) != RTCOSIM_OK)
                return st;
            dbc_set_contained(a->dbc, index, &how);
        }
        st = ar_read_pdu(a, index, (uint8_t)bytes, part, 0, depth + 1);
    }
    return st;
}

/* One PDU mapped into a frame at `offset` bits: an I-SIGNAL-I-PDU, a
 * multiplexed one, a secured one's payload or a container's contained PDUs
 * (depth: PDUs in PDUs are not followed deeper than that). */
rtcosim_status ar_read_pdu(ar *a, size_t message, uint8_t length, const xmlNode *pdu,
                            uint32_t offset, int depth)
{
    if (ar_named(pdu, "I-SIGNAL-I-PDU"))
        return read_signal_pdu(a, message, length, pdu, (pdu_place){offset, RTCOSIM_DBC_PLAIN, 0});
    if (ar_named(pdu, "MULTIPLEXED-I-PDU"))
        return read_multiplexed_pdu(a, message, length, pdu, offset);
    if (ar_named(pdu, "SECURED-I-PDU") && depth < 4) {
        rtcosim_status st = RTCOSIM_OK;
        const xmlNode *trig = ar_deref(a, pdu, "PAYLOAD-REF", &st);
        const xmlNode *payload = trig ? ar_deref(a, trig, "I-PDU-REF", &st) : NULL;
        if (st != RTCOSIM_OK)
            return st;
        if (!payload) {
            char name[256];
            ar_short_name(pdu, name, sizeof name);
            return ar_fail(a, pdu, "SECURED-I-PDU %s: no payload (PAYLOAD-REF to a PDU-TRIGGERING"
                        " with an I-PDU-REF)", name);
        }
        a->secured_pdus++;
        return ar_read_pdu(a, message, length, payload, offset, depth + 1);
    }
    if (ar_named(pdu, "CONTAINER-I-PDU") && depth < 4)
        return read_container_pdu(a, message, length, pdu, offset, depth);
    a->skipped_pdus++;
    return RTCOSIM_OK;
}
