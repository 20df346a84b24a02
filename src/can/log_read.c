/* Reading CAN logs (can_log.h) of other tools and of rtcosim: candump -l and
 * Vector ASC (Vector BLF: log_blf_read.c; PEAK TRC: log_trc.c) into
 * time-stamped frames with their bus, for decoding with a DBC (`rtcosim can
 * decode`). Every error names file and line; the reader never reads past its
 * input (fuzzed: fuzz_can_log.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log_internal.h"
#include "util/array.h"
#include "util/read_file.h"
#include "util/text.h"

typedef struct reader {
    rtcosim_can_log *log;
    const char *name;
    int line;
    rtcosim_error *err;
    int base;              /* ASC: 16 or 10 */
    bool relative;         /* ASC: timestamps relative to the previous event */
    rtcosim_time_ns last;  /* ASC relative: time of the previous event */
} reader;

static rtcosim_status bad(reader *r, const char *what, const char *token)
{
    return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s:%d: %s '%.40s'", r->name, r->line, what,
                             token);
}

rtcosim_status can_log_add(rtcosim_can_log *log, const rtcosim_can_log_record *rec,
                           const char *file, rtcosim_error *err)
{
    if (log->sink) {
        log->count++;
        return log->sink(log->sink_context, log, rec, err);
    }
    if (!util_array_reserve(&log->records, log->count, &log->capacity, sizeof *log->records, 256))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory after %zu frames", file,
                                 log->count);
    log->records[log->count++] = *rec;
    return RTCOSIM_OK;
}

void can_log_done(rtcosim_can_log *log, const void *upto)
{
    if (log->view)
        util_file_view_done(log->view, (size_t)((const char *)upto - log->view->data));
}

int can_log_bus(rtcosim_can_log *log, const char *name, uint32_t *out)
{
    for (size_t i = 0; i < log->bus_count; i++)
        if (strcmp(log->buses[i], name) == 0) {
            *out = (uint32_t)i;
            return 0;
        }
    if (log->bus_count == CAN_LOG_MAX_BUSES)
        return -2;
    if (!(log->buses[log->bus_count] = strdup(name)))
        return -1;
    *out = (uint32_t)log->bus_count++;
    return 0;
}

static rtcosim_status bus_index(reader *r, const char *name, uint32_t *out)
{
    int rc = can_log_bus(r->log, name, out);
    if (rc == -2)
        return bad(r, "more than 64 buses, at", name);
    if (rc < 0)
        return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->name);
    return RTCOSIM_OK;
}

static rtcosim_status add(reader *r, const rtcosim_can_log_record *rec)
{
    return can_log_add(r->log, rec, r->name, r->err);
}

/* Decimal seconds ("1436509052.249713") at the start of t to nanoseconds
 * exactly (a double loses the microseconds of an epoch time); *end: where
 * they stop (NULL: they must end t); *fraction: whether a '.' was there. */
static bool scan_seconds(const char *t, const char **end, bool *fraction, rtcosim_time_ns *out)
{
    int64_t s = 0, ns = 0;
    int digits = 0, frac = 0;
    for (; (unsigned)(*t - '0') < 10u; t++, digits++) {
        if (s > (INT64_MAX / RTCOSIM_NS_PER_S - 9) / 10)
            return false;
        s = s * 10 + (*t - '0');
    }
    *fraction = *t == '.';
    if (*fraction)
        for (t++; (unsigned)(*t - '0') < 10u; t++, frac++)
            if (frac < 9)
                ns = ns * 10 + (*t - '0');
    if ((end ? (*end = t, false) : *t != '\0') || (digits == 0 && frac == 0))
        return false;
    for (int k = frac; k < 9; k++)
        ns *= 10;
    *out = s * RTCOSIM_NS_PER_S + ns;
    return true;
}

static bool parse_seconds(const char *t, rtcosim_time_ns *out)
{
    bool fraction;
    return scan_seconds(t, NULL, &fraction, out);
}

static bool parse_id(const char *text, int base, bool ext_suffix, rtcosim_can_log_record *rec)
{
    char buf[24];
    size_t n = strlen(text);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, text, n + 1);
    rec->extended = false;
    if (ext_suffix && (buf[n - 1] == 'x' || buf[n - 1] == 'X')) {
        rec->extended = true;
        buf[--n] = '\0';
    }
    char *end;
    unsigned long long id = strtoull(buf, &end, base);
    if (*end || !isxdigit((unsigned char)buf[0]))
        return false;
    if (!ext_suffix)
        rec->extended = n > 3;
    if (id > (rec->extended ? 0x1FFFFFFFull : 0x7FFull))
        return false;
    rec->id = (uint32_t)id;
    return true;
}

/* A hex digit's value, -1 for another character (no locale). */
static inline int hex(char c)
{
    unsigned d = (unsigned)(unsigned char)c - '0', x = ((unsigned)(unsigned char)c | 0x20u) - 'a';
    return d < 10u ? (int)d : x < 6u ? (int)x + 10 : -1;
}

/* n hex digits (n > 0) as a number; false if any is not hex. */
static bool hex_field(const char *t, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = hex(t[i]);
        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return n > 0;
}

/* A whole token as a number in base 10 or 16, at most max. */
static bool number(const char *t, int base, unsigned long max, unsigned long *out)
{
    char *end;
    if (!isxdigit((unsigned char)t[0]))
        return false;
    unsigned long v = strtoul(t, &end, base);
    if (*end || v > max)
        return false;
    *out = v;
    return true;
}

/* candump CAN XL, can-utils' compact format (lib.h): after "VVPPP#" (VCID,
 * priority id) "FF:SS:AAAAAAAA#DATA": flags (XLF 0x80 set), SDT, AF, 1 to
 * 2048 data bytes. Checked, counted, left out of the records. */
static rtcosim_status candump_xl(reader *r, const char *id, const char *rest, const char *bus)
{
    uint32_t v, flags, sdt, af;
    size_t n = strlen(id);
    if (n < 1 || n > 5 || !hex_field(id, n, &v) || (v & 0xFFFu) > 0x7FFu)
        return bad(r, "not a CAN XL VCID and priority id (VVPPP)", id);
    if (strlen(rest) < 15 || rest[2] != ':' || rest[5] != ':' || rest[14] != '#' ||
        !hex_field(rest, 2, &flags) || !hex_field(rest + 3, 2, &sdt) ||
        !hex_field(rest + 6, 8, &af))
        return bad(r, "expected CAN XL FLAGS:SDT:AF#DATA (2, 2 and 8 hex digits), got", rest);
    if (!(flags & 0x80u))
        return bad(r, "CAN XL flags without XLF (0x80):", rest);
    const char *data = rest + 15;
    size_t len = strlen(data);
    if (len == 0 || len % 2 || len / 2 > 2048)
        return bad(r, "CAN XL data must be 1 to 2048 bytes of two hex digits each, got", data);
    for (size_t i = 0; i < len; i++)
        if (hex(data[i]) < 0)
            return bad(r, "not hex data", data);
    uint32_t index;
    rtcosim_status st = bus_index(r, bus, &index);
    if (st == RTCOSIM_OK)
        r->log->xl_count++;
    return st;
}

/* "(1436509052.249713) can0 123#DEADBEEF [more tokens]" */
static rtcosim_status candump_line(reader *r, char *line)
{
    char *save = NULL, *stamp = strtok_r(line, " \t\r", &save), *bus = strtok_r(NULL, " \t\r", &save),
         *frame = strtok_r(NULL, " \t\r", &save);
    if (!stamp || !bus || !frame)
        return bad(r, "expected '(SECONDS) IFACE ID#DATA', got", line);
    size_t n = strlen(stamp);
    if (n < 3 || stamp[0] != '(' || stamp[n - 1] != ')')
        return bad(r, "expected a time in parentheses, got", stamp);
    stamp[n - 1] = '\0';
    rtcosim_can_log_record rec = {.line = r->line};
    if (!parse_seconds(stamp + 1, &rec.time))
        return bad(r, "not a time", stamp + 1);
    char *hash = strchr(frame, '#');
    if (!hash)
        return bad(r, "expected ID#DATA, got", frame);
    *hash = '\0';
    if (strchr(hash + 1, ':'))
        return candump_xl(r, frame, hash + 1, bus);
    if (!parse_id(frame, 16, false, &rec))
        return bad(r, "not a CAN id", frame);
    const char *data = hash + 1;
    if (*data == 'R' || *data == 'r') {
        rec.remote = true;
        data = "";
    } else if (*data == '#') { /* CAN FD: ##<flags nibble><data> */
        if (hex(data[1]) < 0)
            return bad(r, "CAN FD frame without its flags nibble:", frame);
        rec.format = RTCOSIM_CAN_FORMAT_FD;
        rec.flags = (uint8_t)(hex(data[1]) & (RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI));
        data += 2;
    }
    size_t len = strlen(data);
    if (len % 2 || len / 2 > 64)
        return bad(r, "data must be 0 to 64 bytes of two hex digits each, got", data);
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex(data[2 * i]), lo = hex(data[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return bad(r, "not hex data", data);
        rec.data[i] = (uint8_t)(hi << 4 | lo);
    }
    rec.size = (uint8_t)(len / 2);
    rtcosim_status st = bus_index(r, bus, &rec.bus);
    return st != RTCOSIM_OK ? st : add(r, &rec);
}

/* The usual candump -l line, "(SECONDS.FRACTION) BUS ID#DATA" (or
 * ID##FDATA for CAN FD) with single spaces, read in one walk: 1 when it was
 * one (the record added, or *st an error of adding it), 0 when the line is
 * anything else, left untouched for candump_line, which reads every form
 * and says what is wrong (a log of millions of lines spent most of its time
 * in strtok, strtoull and friends). */
static int candump_fast(reader *r, char *line, rtcosim_status *st)
{
    const char *p = line;
    rtcosim_time_ns time;
    bool fraction;
    if (*p++ != '(' || (unsigned)(*p - '0') >= 10u || !scan_seconds(p, &p, &fraction, &time) ||
        !fraction || *p++ != ')' || *p++ != ' ')
        return 0;
    char *bus = (char *)p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (p == bus || *p != ' ')
        return 0;
    char *bus_end = (char *)p++;
    const char *id_at = p;
    uint32_t id = 0;
    for (int d; (d = hex(*p)) >= 0 && p - id_at < 9; p++)
        id = id << 4 | (uint32_t)d;
    size_t id_len = (size_t)(p - id_at);
    bool extended = id_len > 3;
    if (id_len == 0 || id_len > 8 || *p++ != '#' || id > (extended ? 0x1FFFFFFFu : 0x7FFu))
        return 0;
    rtcosim_can_log_record rec = {.line = r->line, .time = time,
                                  .id = id, .extended = extended};
    if (*p == '#') { /* CAN FD: ##<flags nibble><data> */
        int flags = hex(p[1]);
        if (flags < 0)
            return 0;
        rec.format = RTCOSIM_CAN_FORMAT_FD;
        rec.flags = (uint8_t)(flags & (RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI));
        p += 2;
    }
    size_t n = 0;
    for (;; n++) {
        int hi = hex(p[2 * n]), lo;
        if (hi < 0)
            break;
        if (n == 64 || (lo = hex(p[2 * n + 1])) < 0)
            return 0;
        rec.data[n] = (uint8_t)(hi << 4 | lo);
    }
    char end = p[2 * n];
    if (end != '\0' && end != ' ' && end != '\t')
        return 0; /* (R, an odd digit, CAN XL's ':', ...) */
    rec.size = (uint8_t)n;
    *bus_end = '\0';
    *st = bus_index(r, bus, &rec.bus);
    if (*st == RTCOSIM_OK)
        *st = add(r, &rec);
    return 1;
}

static bool is_time(const char *t)
{
    bool digits = false;
    for (; *t; t++) {
        if (isdigit((unsigned char)*t))
            digits = true;
        else if (*t != '.')
            return false;
    }
    return digits;
}

/* Whether the first line of a file that does not start with '(' begins an
 * ASC log: its header lines (date, base, internal events, comments,
 * Begin TriggerBlock) or an event line starting with a time. */
static bool asc_first_line(const char *line)
{
    static const char *const HEADS[] = {"date ", "base ", "internal events logged",
                                        "no internal events logged", "//", "begin triggerblock"};
    line += strspn(line, " \t");
    for (size_t i = 0; i < sizeof HEADS / sizeof *HEADS; i++)
        if (strncasecmp(line, HEADS[i], strlen(HEADS[i])) == 0)
            return true;
    char first[64];
    size_t n = strcspn(line, " \t");
    if (n == 0 || n >= sizeof first)
        return false;
    memcpy(first, line, n);
    first[n] = '\0';
    return is_time(first);
}

static rtcosim_status asc_bus(reader *r, const char *channel, uint32_t *out)
{
    char bus[32];
    snprintf(bus, sizeof bus, "can%ld", strtol(channel, NULL, 10) - 1);
    return bus_index(r, bus, out);
}

/* ASC "CANXL" message event (Vector's ASC logging format spec 1.4.17, as
 * can-utils' asc2log reads it): TIME CANXL CH DIR FORMAT DURATION BITS ID
 * [NAME], then for XLFF: SDT SEC DLC LEN SBC PCRC VCID AF DATA... (checked,
 * counted, left out), for CBFF/CEFF/FBFF/FEFF: DLC LEN DATA... then (FD:
 * stuff count) FCRC FLAGS: a classic or CAN FD record. */
static rtcosim_status asc_canxl(reader *r, char **tok, size_t n, rtcosim_can_log_record *rec)
{
    if (n < 10)
        return bad(r, "incomplete CANXL line at", tok[0]);
    const char *kind = tok[4];
    bool xl = strcasecmp(kind, "XLFF") == 0;
    bool fd = strcasecmp(kind, "FBFF") == 0 || strcasecmp(kind, "FEFF") == 0;
    if (!xl && !fd && strcasecmp(kind, "CBFF") != 0 && strcasecmp(kind, "CEFF") != 0)
        return bad(r, "CANXL frame format is none of CBFF, CEFF, FBFF, FEFF, XLFF:", kind);
    unsigned long v;
    /* the symbolic name is optional: the field after ID is a number
     * (SDT, or the DLC) and the next one too, else it is the name */
    size_t k = 8;
    if (!number(tok[8], r->base, xl ? 0xFF : 0xF, &v) || !number(tok[9], 10, ~0ul, &v))
        k = 9;
    unsigned long sdt, sec, dlc, len, vcid, af;
    if (xl) {
        if (k + 8 > n || !parse_id(tok[7], r->base, false, rec) || rec->extended)
            return bad(r, "not a CAN XL priority id (11 bits), or an incomplete line at",
                       tok[7]);
        if (!number(tok[k], r->base, 0xFF, &sdt) || !number(tok[k + 1], 10, 1, &sec) ||
            !number(tok[k + 2], r->base, 2047, &dlc) || !number(tok[k + 3], 10, 2048, &len) ||
            len != dlc + 1 || !number(tok[k + 6], r->base, 0xFF, &vcid) ||
            !number(tok[k + 7], r->base, 0xFFFFFFFFul, &af))
            return bad(r, "CANXL XLFF fields (SDT SEC DLC LEN SBC PCRC VCID AF) do not fit, at",
                       tok[k]);
        k += 8;
    } else {
        if (k + 2 > n || !parse_id(tok[7], r->base, true, rec))
            return bad(r, "not a CAN id, or an incomplete line at", tok[7]);
        if (!number(tok[k], r->base, 0xF, &dlc) || !number(tok[k + 1], 10, fd ? 64 : 8, &len))
            return bad(r, "CANXL DLC and data length do not fit, at", tok[k]);
        k += 2;
    }
    if (k + len > n)
        return bad(r, "fewer data bytes than the length says, at", tok[0]);
    for (size_t i = 0; i < len; i++) {
        if (!number(tok[k + i], r->base, 0xFF, &v))
            return bad(r, "not a data byte", tok[k + i]);
        if (!xl)
            rec->data[i] = (uint8_t)v;
    }
    rtcosim_status st = asc_bus(r, tok[2], &rec->bus);
    if (st != RTCOSIM_OK)
        return st;
    if (xl) {
        r->log->xl_count++;
        return RTCOSIM_OK;
    }
    rec->size = (uint8_t)len;
    /* FLAGS after the data: FCRC FLAGS (classic), stuff count FCRC FLAGS (FD) */
    size_t at = k + len + (fd ? 2 : 1);
    unsigned long flags = 0;
    if (at < n && !number(tok[at], 16, 0xFFFFFFFFul, &flags))
        return bad(r, "not CANXL flags", tok[at]);
    if (fd) {
        rec->format = RTCOSIM_CAN_FORMAT_FD;
        rec->flags = (uint8_t)((flags & 0x2000u ? RTCOSIM_CAN_FD_BRS : 0) |
                               (flags & 0x4000u ? RTCOSIM_CAN_FD_ESI : 0));
    } else if (flags & 0x10u) {
        rec->remote = true; /* RTR: no data */
        rec->size = 0;
    }
    return add(r, rec);
}

/* ASC: header lines set base and timestamps; event lines start with a time. */
static rtcosim_status asc_line(reader *r, char *line)
{
    /* a CANXL line has up to 2048 data bytes and some 30 other fields */
    enum { MAX_TOKENS = 2048 + 64 };
    char *tok[MAX_TOKENS];
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r", &save); t && n < MAX_TOKENS;
         t = strtok_r(NULL, " \t\r", &save))
        tok[n++] = t;
    if (n == 0)
        return RTCOSIM_OK;
    if (strcasecmp(tok[0], "base") == 0) {
        if (n < 2 || (strcasecmp(tok[1], "hex") != 0 && strcasecmp(tok[1], "dec") != 0))
            return bad(r, "base must be hex or dec, got", n > 1 ? tok[1] : "");
        r->base = strcasecmp(tok[1], "hex") == 0 ? 16 : 10;
        r->relative = n >= 4 && strcasecmp(tok[3], "relative") == 0;
        return RTCOSIM_OK;
    }
    if (!is_time(tok[0]))
        return RTCOSIM_OK; /* date, comments, Begin/End TriggerBlock, ... */
    rtcosim_can_log_record rec = {.line = r->line};
    if (!parse_seconds(tok[0], &rec.time))
        return bad(r, "not a time", tok[0]);
    if (r->relative && __builtin_add_overflow(rec.time, r->last, &rec.time))
        return bad(r, "relative time beyond 292 years after the start:", tok[0]);
    r->last = rec.time;
    size_t k = 1, dlc_at;
    if (n > 1 && strcasecmp(tok[1], "CANXL") == 0)
        return asc_canxl(r, tok, n, &rec);
    bool fd = n > 1 && strcasecmp(tok[1], "CANFD") == 0;
    /* classic: CH ID DIR d|r DLC ...; CANFD: CANFD CH DIR ID [NAME] BRS ESI DLC LEN ... */
    if (fd) {
        if (n < 9)
            return bad(r, "incomplete CANFD line at", tok[0]);
        char *ch = tok[2];
        if (!parse_id(tok[4], r->base, true, &rec))
            return bad(r, "not a CAN id", tok[4]);
        k = isdigit((unsigned char)tok[5][0]) ? 5 : 6; /* optional frame name */
        if (k + 4 > n)
            return bad(r, "incomplete CANFD line at", tok[0]);
        dlc_at = k + 3; /* BRS ESI DLC LEN: data length is the 4th */
        rec.format = RTCOSIM_CAN_FORMAT_FD;
        rec.flags = (uint8_t)((strcmp(tok[k], "1") == 0 ? RTCOSIM_CAN_FD_BRS : 0) |
                              (strcmp(tok[k + 1], "1") == 0 ? RTCOSIM_CAN_FD_ESI : 0));
        char bus[32];
        snprintf(bus, sizeof bus, "can%ld", strtol(ch, NULL, 10) - 1);
        rtcosim_status st = bus_index(r, bus, &rec.bus);
        if (st != RTCOSIM_OK)
            return st;
    } else {
        if (n < 3 || !isdigit((unsigned char)tok[1][0]))
            return RTCOSIM_OK; /* "Start of measurement", statistics, ... */
        if (strcasecmp(tok[2], "ErrorFrame") == 0 || n < 5)
            return RTCOSIM_OK;
        if (!parse_id(tok[2], r->base, true, &rec))
            return bad(r, "not a CAN id", tok[2]);
        if (strcasecmp(tok[4], "r") == 0)
            rec.remote = true;
        else if (strcasecmp(tok[4], "d") != 0)
            return bad(r, "expected d or r after the direction, got", tok[4]);
        dlc_at = 5;
        char bus[32];
        snprintf(bus, sizeof bus, "can%ld", strtol(tok[1], NULL, 10) - 1);
        rtcosim_status st = bus_index(r, bus, &rec.bus);
        if (st != RTCOSIM_OK)
            return st;
    }
    char *end;
    unsigned long size = 0;
    if (!rec.remote) {
        if (dlc_at >= n)
            return bad(r, "no data length, at", tok[0]);
        size = strtoul(tok[dlc_at], &end, fd ? 10 : r->base);
        if (*end || size > (fd ? 64 : 15))
            return bad(r, "not a data length", tok[dlc_at]);
        if (!fd && size > 8)
            size = 8; /* DLC 9..15 of classic CAN still carry 8 bytes */
    }
    if (size && dlc_at + 1 + size > n)
        return bad(r, "fewer data bytes than the length says, at", tok[0]);
    for (size_t i = 0; i < size; i++) {
        unsigned long b = strtoul(tok[dlc_at + 1 + i], &end, r->base);
        if (*end || b > 255)
            return bad(r, "not a data byte", tok[dlc_at + 1 + i]);
        rec.data[i] = (uint8_t)b;
    }
    rec.size = (uint8_t)size;
    return add(r, &rec);
}

/* The next line of text[at..size) into *line (a reusable buffer, NUL-
 * terminated; line ends LF, CR LF or CR, as util_text_unify_line_ends
 * reads them); *len its length, *nul whether it holds a NUL byte. Returns
 * where the next line starts, or SIZE_MAX out of memory. */
static size_t next_line(const char *text, size_t size, size_t at, char **line, size_t *cap,
                         size_t *len, bool *nul)
{
    const char *p = text + at, *end = text + size;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    const char *cr = memchr(p, '\r', (size_t)(stop - p));
    size_t n = (size_t)((cr ? cr : stop) - p), next;
    if (cr) /* CR LF or a lone CR */
        next = (size_t)(cr - text) + 1 + (cr + 1 < end && cr[1] == '\n');
    else
        next = nl ? (size_t)(nl - text) + 1 : size;
    if (n + 1 > *cap) {
        size_t want = *cap ? *cap : 256;
        while (want < n + 1)
            want *= 2;
        char *bigger = realloc(*line, want);
        if (!bigger)
            return SIZE_MAX;
        *line = bigger;
        *cap = want;
    }
    memcpy(*line, p, n);
    (*line)[n] = '\0';
    *len = n;
    *nul = memchr(p, '\0', n) != NULL;
    return next;
}

rtcosim_status can_log_lines(const char *text, size_t size, size_t at, const char *name,
                             const char *what, rtcosim_can_log *log, int *lineno,
                             rtcosim_status (*line_fn)(void *context, char *line), void *context,
                             rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    char *line = NULL;
    size_t cap = 0, len = 0;
    while (st == RTCOSIM_OK && at < size) {
        bool nul = false;
        size_t next = next_line(text, size, at, &line, &cap, &len, &nul);
        if (next == SIZE_MAX) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
            break;
        }
        at = next;
        if ((*lineno & 0xFFFF) == 0)
            can_log_done(log, text + at);
        ++*lineno;
        st = nul ? rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%d: %s: binary data (a NUL byte)",
                                     name, *lineno, what)
                 : line_fn(context, line);
    }
    free(line);
    return st;
}

/* A candump -l or ASC log's lines (parse_into): which one it is, from its
 * first non-blank line on. */
typedef struct text_log {
    reader r;
    bool candump, known, fast;
} text_log;

static rtcosim_status text_log_line(void *context, char *line)
{
    text_log *x = context;
    reader *r = &x->r;
    if (line[strspn(line, " \t")] == '\0')
        return RTCOSIM_OK;
    if (!x->known && !x->candump && !asc_first_line(line))
        return bad(r, "not a candump -l, ASC, TRC, BLF or MDF log: the line reads",
                   line + strspn(line, " \t"));
    x->known = true;
    rtcosim_status st = RTCOSIM_OK;
    if (!x->candump)
        return asc_line(r, line);
    if (!x->fast || !candump_fast(r, line, &st))
        st = candump_line(r, line);
    return st;
}

/* Reads text[0..size) into log (created by the caller, its sink set or not);
 * a line at a time, so a log of any length costs no more than its longest
 * line besides what the log keeps. */
static rtcosim_status parse_into(const char *text, size_t size, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err)
{
    bool blf = can_log_is_blf(text, size);
    if (blf || can_log_is_mdf(text, size)) {
        log->source = blf ? RTCOSIM_CAN_LOG_BLF : RTCOSIM_CAN_LOG_MDF;
        return blf ? can_log_parse_blf((const uint8_t *)text, size, name, log, err)
                   : can_log_parse_mdf((const uint8_t *)text, size, name, log, err);
    }
    size_t at = size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* (a BOM) */
    size_t skip = at;
    while (skip < size && (text[skip] == ' ' || text[skip] == '\t' || text[skip] == '\n' ||
                           text[skip] == '\r'))
        skip++;
    if (skip < size && can_log_is_trc(text + skip, size - skip)) /* PEAK TRC: log_trc.c */
        return can_log_parse_trc(text, size, at, name, log, err);
    /* (RTCOSIM_CAN_LOG_GENERAL=1: every candump line through the general
     * reader, for tests that compare the two: fuzz_can_log) */
    const char *general = getenv("RTCOSIM_CAN_LOG_GENERAL");
    text_log x = {.r = {.log = log, .name = name, .err = err, .base = 16},
                  .fast = !(general && strcmp(general, "1") == 0),
                  .candump = skip < size && text[skip] == '('};
    log->source = x.candump ? RTCOSIM_CAN_LOG_CANDUMP : RTCOSIM_CAN_LOG_ASC;
    log->absolute = x.candump;
    return can_log_lines(text, size, at, name, "not a candump -l, ASC, TRC, BLF or MDF log", log,
                         &x.r.line, text_log_line, &x, err);
}

rtcosim_status rtcosim_can_log_parse(const char *text, size_t size, const char *name,
                                     rtcosim_can_log **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_can_log *log = calloc(1, sizeof *log);
    if (!log)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    rtcosim_status st = parse_into(text, size, name, log, err);
    if (st != RTCOSIM_OK) {
        rtcosim_can_log_free(log);
        return st;
    }
    *out = log;
    return RTCOSIM_OK;
}

bool can_log_is_binary(const char *data, size_t size)
{
    return can_log_is_blf(data, size) || can_log_is_mdf(data, size);
}

static rtcosim_status read_log(const char *path, rtcosim_can_log_frame_fn *frame, void *context,
                               rtcosim_can_log **out, rtcosim_error *err)
{
    *out = NULL;
    util_file_view view;
    rtcosim_status st = util_file_view_open(path, path, "CAN log", can_log_is_binary, &view,
                                             err);
    if (st != RTCOSIM_OK)
        return st;
    /* an empty text log is a capture without traffic (candump -l makes
     * one); a binary format always has its header */
    bool blf = util_path_has_ending(path, ".blf"), mdf = util_path_is_mdf(path);
    if (view.size == 0 && (blf || mdf)) {
        util_file_view_close(&view);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: an empty file (0 bytes): no %s "
                                 "(its header is missing; a copy cut short?)", path,
                                 blf ? "Vector BLF log" : "ASAM MDF bus log");
    }
    rtcosim_can_log *log = calloc(1, sizeof *log);
    if (!log) {
        util_file_view_close(&view);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    log->sink = frame;
    log->sink_context = context;
    log->view = &view;
    st = parse_into(view.data, view.size, path, log, err);
    util_file_view_close(&view);
    log->sink = NULL;
    log->view = NULL;
    if (st != RTCOSIM_OK && !(frame && st == RTCOSIM_ECANCELED)) {
        rtcosim_can_log_free(log);
        return st;
    }
    *out = log; /* (a sink's stop: what was read so far) */
    return st;
}

rtcosim_status rtcosim_can_log_read(const char *path, rtcosim_can_log **out, rtcosim_error *err)
{
    return read_log(path, NULL, NULL, out, err);
}

rtcosim_status rtcosim_can_log_scan(const char *path, rtcosim_can_log_frame_fn *frame,
                                    void *context, rtcosim_can_log **out, rtcosim_error *err)
{
    if (!frame) {
        *out = NULL;
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no function to give the frames to",
                                 path);
    }
    return read_log(path, frame, context, out, err);
}

void rtcosim_can_log_free(rtcosim_can_log *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->bus_count; i++)
        free(log->buses[i]);
    free(log->records);
    free(log->database);
    free(log->database_name);
    free(log);
}

const char *rtcosim_can_log_database(const rtcosim_can_log *log, size_t *size, const char **name)
{
    if (size)
        *size = log->database_size;
    if (name)
        *name = log->database_name;
    return log->database;
}

size_t rtcosim_can_log_count(const rtcosim_can_log *log) { return log->count; }
const rtcosim_can_log_record *rtcosim_can_log_records(const rtcosim_can_log *log)
{
    return log->records;
}
size_t rtcosim_can_log_bus_count(const rtcosim_can_log *log) { return log->bus_count; }
size_t rtcosim_can_log_xl_count(const rtcosim_can_log *log) { return log->xl_count; }
rtcosim_can_log_format rtcosim_can_log_source(const rtcosim_can_log *log) { return log->source; }
const char *rtcosim_can_log_bus_name(const rtcosim_can_log *log, size_t index)
{
    return index < log->bus_count ? log->buses[index] : NULL;
}
