/* PEAK-System TRC CAN trace files (PCAN-View, PCAN-Explorer, PCAN-Basic's
 * tools; can_log.h): read in every version of PEAK's "PEAK CAN TRC File
 * Format" (1.0, 1.1, 1.2, 1.3, 2.0, 2.1) and written as version 2.1.
 *
 * What the spec says and this file reads:
 * - ';' starts a comment line, except ";$FILEVERSION=x.y" (none: 1.0),
 *   ";$STARTTIME=D" (days since 1899-12-30 as a decimal number: the trace's
 *   start; the spec's own 1.2 example ends it with a ';') and ";$COLUMNS=..."
 *   (2.x: the columns' order by letter). Columns are separated by blanks;
 *   lines end CR LF (LF and a lone CR are read too).
 * - The columns of 1.x are fixed: 1.0 "N) O I L D" (number, time offset in
 *   whole milliseconds, id, DLC, data), 1.1 adds the type T (Rx, Tx, Warng,
 *   Error) after O, 1.2 the bus B before T, 1.3 a reserved column R ('-')
 *   before L. 2.x name them in ;$COLUMNS: N number, O offset, T type, B bus,
 *   I id, d direction (Rx/Tx), R reserved, l data length (0-64), L DLC
 *   (0-15), D data (the last column). Time offsets are milliseconds from the
 *   start with a fraction (microseconds) from 1.1 on.
 * - Ids: 4 hex digits an 11-bit id, 8 a 29-bit one (python-can's TRCWriter
 *   writes 7 for extended ids below 0x10000000: 5 to 8 digits read as
 *   29-bit, as python-can reads them).
 * - 1.x: "RTR" in place of the data is a remote frame; a type of Warng or
 *   Error (1.1 on), an id FFFFFFFF (a bus warning) or "ERROR" before the data
 *   (1.0's error frames) are no frames. 2.x types: DT a CAN frame, FD a CAN
 *   FD frame, FB with BRS, FE with ESI, BI with both, RR a remote request;
 *   ER (error frame), ST (hardware status), EC (error counter change) and EV
 *   (2.1: a user event of free text) are no frames. Lines that are no frame
 *   are read over, as the ASC reader reads over its error frames and other
 *   events. CAN FD's DLCs 9-15 stand for 12, 16, 20, 24, 32, 48 and 64 bytes;
 *   a classic frame's DLC 9-15 for 8.
 * - Times: the start plus the offset, in ns since 1970 (UTC: the file says
 *   no time zone) as candump -l's (log->absolute); a file without a start
 *   time (1.0), or one before 1970, counts from its start (offset only).
 *   The start's fraction is read to 12 digits, exactly (1e-12 day = 86.4 ns).
 * - The bus: "canN-1" for bus N (as the ASC reader names its channels);
 *   "can0" when the file has no bus column.
 * Every error names file and line and the text at fault; the reader never
 * reads past its input (fuzz_can_log.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "log_internal.h"

/* 1899-12-30 (day 0 of STARTTIME) to 1970-01-01 */
#define TRC_EPOCH_DAYS 25569
#define NS_PER_DAY INT64_C(86400000000000)

enum { TRC_MAX_COLUMNS = 10, TRC_MAX_TOKENS = 64 + TRC_MAX_COLUMNS + 2 };

typedef struct trc {
    rtcosim_can_log *log;
    const char *name;
    int line;
    rtcosim_error *err;
    int version;           /* 10, 11, 12, 13, 20, 21 */
    bool started;          /* a message line was read: the version is fixed */
    char columns[TRC_MAX_COLUMNS + 1]; /* 2.x: ;$COLUMNS' letters in order */
    rtcosim_time_ns start; /* ;$STARTTIME in ns since 1970; 0 none */
} trc;

static rtcosim_status bad(trc *t, const char *what, const char *token)
{
    return rtcosim_error_set(t->err, RTCOSIM_EFORMAT, "%s:%d: %s '%.40s'", t->name, t->line,
                             what, token);
}

static bool is_digit(char c) { return (unsigned)(c - '0') < 10u; }

static int hex_digit(char c)
{
    unsigned d = (unsigned)(unsigned char)c - '0', x = ((unsigned)(unsigned char)c | 0x20u) - 'a';
    return d < 10u ? (int)d : x < 6u ? (int)x + 10 : -1;
}

/* A whole token of decimal digits, at most max. */
static bool decimal(const char *t, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    if (!is_digit(*t))
        return false;
    for (; is_digit(*t); t++)
        if ((v = v * 10 + (unsigned long)(*t - '0')) > max)
            return false;
    *out = v;
    return *t == '\0';
}

/* ";$STARTTIME=D.F": days since 1899-12-30 (a ';' and blanks may follow). */
static rtcosim_status start_time(trc *t, const char *v)
{
    int64_t days = 0, frac = 0;
    int digits = 0, k = 0;
    const char *p = v;
    for (; is_digit(*p); p++, digits++)
        if ((days = days * 10 + (*p - '0')) > TRC_EPOCH_DAYS + 106750)
            return bad(t, "STARTTIME past the year 2262 (times in ns since 1970 end there):", v);
    if (*p == '.')
        for (p++; is_digit(*p); p++)
            if (k < 12) {
                frac = frac * 10 + (*p - '0');
                k++;
            }
    p += strspn(p, " \t;");
    if (digits == 0 || *p)
        return bad(t, "STARTTIME is not a number of days:", v);
    for (; k < 12; k++)
        frac *= 10;
    /* frac / 1e12 day = frac * 86.4 ns */
    t->start = days < TRC_EPOCH_DAYS ? 0 : (days - TRC_EPOCH_DAYS) * NS_PER_DAY + (frac * 864 + 5) / 10;
    t->log->absolute = days >= TRC_EPOCH_DAYS;
    return RTCOSIM_OK;
}

/* ";$COLUMNS=N,O,T,B,I,d,R,L,D" */
static rtcosim_status columns(trc *t, const char *v)
{
    char c[TRC_MAX_COLUMNS + 1];
    size_t n = 0;
    for (const char *p = v;;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        size_t len = strcspn(p, ", \t");
        if (len != 1 || !strchr("NOTBIdRlLD", *p))
            return bad(t, "COLUMNS: not a TRC column (N, O, T, B, I, d, R, l, L, D):", p);
        if (memchr(c, *p, n))
            return bad(t, "COLUMNS: a column named twice:", p);
        c[n++] = *p++;
        p += strspn(p, " \t");
        if (*p == ',')
            p++;
        else if (*p)
            return bad(t, "COLUMNS: expected letters separated by commas, got", p);
    }
    c[n] = '\0';
    if (!memchr(c, 'O', n) || !memchr(c, 'T', n) || !memchr(c, 'I', n) || !memchr(c, 'D', n) ||
        (!memchr(c, 'l', n) && !memchr(c, 'L', n)))
        return bad(t, "COLUMNS must name O, T, I, D and l or L, got", v);
    if (c[n - 1] != 'D')
        return bad(t, "COLUMNS: the data D must be the last column, got", v);
    memcpy(t->columns, c, n + 1);
    return RTCOSIM_OK;
}

/* A ";$KEY=VALUE" line; other comment lines are read over. */
static rtcosim_status comment(trc *t, char *line)
{
    if (line[1] != '$')
        return RTCOSIM_OK;
    char *eq = strchr(line, '=');
    if (!eq)
        return RTCOSIM_OK;
    char *key = line + 2;
    size_t klen = (size_t)(eq - key);
    while (klen && (key[klen - 1] == ' ' || key[klen - 1] == '\t'))
        klen--;
    char *v = eq + 1 + strspn(eq + 1, " \t");
    size_t vlen = strlen(v);
    while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
        v[--vlen] = '\0';
    if (klen == 11 && strncasecmp(key, "FILEVERSION", 11) == 0) {
        static const char *const versions[] = {"1.0", "1.1", "1.2", "1.3", "2.0", "2.1"};
        static const int numbers[] = {10, 11, 12, 13, 20, 21};
        for (size_t i = 0; i < 6; i++)
            if (strcmp(v, versions[i]) == 0) {
                if (t->started && numbers[i] != t->version)
                    return bad(t, "FILEVERSION after the first message:", v);
                t->version = numbers[i];
                return RTCOSIM_OK;
            }
        return bad(t, "not a TRC file version (1.0, 1.1, 1.2, 1.3, 2.0, 2.1):", v);
    }
    if (klen == 9 && strncasecmp(key, "STARTTIME", 9) == 0)
        return start_time(t, v);
    if (klen == 7 && strncasecmp(key, "COLUMNS", 7) == 0)
        return columns(t, v);
    return RTCOSIM_OK; /* (another keyword: nothing to keep) */
}

/* A time offset "[-]MS[.FRACTION]" in milliseconds to ns (the fraction to
 * 6 digits: ns). */
static bool offset(const char *t, rtcosim_time_ns *out)
{
    bool negative = *t == '-';
    t += negative;
    int64_t ms = 0, ns = 0;
    int digits = 0, k = 0;
    for (; is_digit(*t); t++, digits++)
        if ((ms = ms * 10 + (*t - '0')) > INT64_MAX / 1000000 - 1)
            return false;
    if (*t == '.')
        for (t++; is_digit(*t); t++)
            if (k < 6) {
                ns = ns * 10 + (*t - '0');
                k++;
            }
    if (*t || digits == 0)
        return false;
    for (; k < 6; k++)
        ns *= 10;
    *out = (ms * 1000000 + ns) * (negative ? -1 : 1);
    return true;
}

/* The bytes of a CAN FD DLC. */
static unsigned fd_length(unsigned dlc)
{
    static const unsigned char LEN[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64};
    return LEN[dlc & 15];
}

/* A message line (its tokens). */
static rtcosim_status message(trc *t, char **tok, size_t n, bool overflow)
{
    static const char *const LAYOUT_1X[] = {"NOILD", "NOTILD", "NOBTILD", "NOBTIRLD"};
    bool v2 = t->version >= 20;
    if (v2 && !t->columns[0])
        return bad(t, "a TRC 2.x message before any ;$COLUMNS line:", tok[0]);
    const char *cols = v2 ? t->columns : LAYOUT_1X[t->version - 10];
    size_t data_at = strlen(cols) - 1; /* D is last */
    const char *type = NULL;
    const char *T = strchr(cols, 'T');
    rtcosim_can_log_record rec = {.line = t->line};
    if (T) {
        size_t at = (size_t)(T - cols);
        if (at >= n)
            return bad(t, "a line cut short before its type:", tok[0]);
        type = tok[at];
        if (v2) {
            static const char *const FRAMES[] = {"DT", "FD", "FB", "FE", "BI", "RR"};
            static const char *const OTHERS[] = {"ER", "ST", "EC", "EV"};
            size_t i = 0;
            for (; i < 4; i++)
                if (strcmp(type, OTHERS[i]) == 0)
                    return RTCOSIM_OK; /* error frame, status, error counters, event */
            for (i = 0; i < 6 && strcmp(type, FRAMES[i]) != 0; i++)
                ;
            if (i == 6)
                return bad(t, "not a TRC message type (DT, FD, FB, FE, BI, RR, ER, ST, EC, EV):",
                           type);
            if (i >= 1 && i <= 4) {
                rec.format = RTCOSIM_CAN_FORMAT_FD;
                rec.flags = (uint8_t)((i == 2 || i == 4 ? RTCOSIM_CAN_FD_BRS : 0) |
                                      (i == 3 || i == 4 ? RTCOSIM_CAN_FD_ESI : 0));
            }
            rec.remote = i == 5;
        } else if (strcmp(type, "Warng") == 0 || strcmp(type, "Error") == 0) {
            return RTCOSIM_OK; /* a bus warning, an error frame */
        } else if (strcmp(type, "Rx") != 0 && strcmp(type, "Tx") != 0) {
            return bad(t, "not a TRC 1.x message type (Rx, Tx, Warng, Error):", type);
        }
    }
    if (!v2) {
        size_t at = (size_t)(strchr(cols, 'I') - cols);
        if ((at < n && strcasecmp(tok[at], "FFFFFFFF") == 0) ||
            (data_at < n && strcmp(tok[data_at], "ERROR") == 0))
            return RTCOSIM_OK; /* a bus warning (1.0; 1.x's Warng lines), 1.0's error frame */
    }
    if (n < data_at) {
        char what[96];
        snprintf(what, sizeof what, "a line cut short: %zu of the %zu columns before the data, "
                 "the last", n, data_at);
        return bad(t, what, tok[n - 1]);
    }
    if (overflow)
        return bad(t, "more than 64 data bytes, at", tok[0]);
    long dlc = -1, length = -1;
    unsigned long v;
    for (size_t i = 0; i < data_at; i++) {
        const char *x = tok[i];
        switch (cols[i]) {
        case 'N': {
            size_t len = strlen(x);
            char last = len ? x[len - 1] : '\0';
            size_t d = strspn(x, "0123456789");
            if (d == 0 || !(d == len || (d + 1 == len && last == ')')))
                return bad(t, "not a message number:", x);
            break;
        }
        case 'O': {
            rtcosim_time_ns off;
            if (!offset(x, &off))
                return bad(t, "not a time offset in milliseconds:", x);
            if (__builtin_add_overflow(t->start, off, &rec.time))
                return bad(t, "a time offset beyond 292 years:", x);
            break;
        }
        case 'B': {
            if (!decimal(x, 255, &v) || v == 0)
                return bad(t, "not a bus number (1 to 255):", x);
            char bus[16];
            snprintf(bus, sizeof bus, "can%lu", v - 1);
            int rc = can_log_bus(t->log, bus, &rec.bus);
            if (rc == -2)
                return bad(t, "more than 64 buses, at", x);
            if (rc < 0)
                return rtcosim_error_set(t->err, RTCOSIM_ENOMEM, "%s: out of memory", t->name);
            break;
        }
        case 'I': {
            size_t len = strlen(x);
            uint32_t id = 0;
            bool hex = len >= 1 && len <= 8;
            for (size_t k = 0; hex && k < len; k++) {
                int d = hex_digit(x[k]);
                hex = d >= 0;
                id = id << 4 | (uint32_t)(d & 15);
            }
            rec.extended = len > 4;
            if (!hex || id > (rec.extended ? 0x1FFFFFFFu : 0x7FFu))
                return bad(t, "not a CAN id (4 hex digits up to 07FF, or 8 up to 1FFFFFFF):", x);
            rec.id = id;
            break;
        }
        case 'd':
            if (strcmp(x, "Rx") != 0 && strcmp(x, "Tx") != 0)
                return bad(t, "expected the direction Rx or Tx, got", x);
            break;
        case 'l':
            if (!decimal(x, 64, &v))
                return bad(t, "not a data length (0 to 64):", x);
            length = (long)v;
            break;
        case 'L':
            if (!decimal(x, 15, &v))
                return bad(t, "not a DLC (0 to 15):", x);
            dlc = (long)v;
            break;
        default: /* R: reserved */
            break;
        }
    }
    if (!strchr(cols, 'B') && can_log_bus(t->log, "can0", &rec.bus) < 0)
        return rtcosim_error_set(t->err, RTCOSIM_ENOMEM, "%s: out of memory", t->name);
    char **data = tok + data_at;
    size_t count = n - data_at;
    if (count >= 1 && strcmp(data[0], "RTR") == 0 && (!v2 || rec.remote)) {
        if (count > 1)
            return bad(t, "more after RTR:", data[1]);
        rec.remote = true;
        count = 0;
    }
    bool fd = rec.format == RTCOSIM_CAN_FORMAT_FD;
    long size = dlc >= 0 ? (long)(fd ? fd_length((unsigned)dlc) : dlc > 8 ? 8 : (unsigned)dlc) : length;
    if (length >= 0 && dlc >= 0 && length != size) {
        char what[96];
        snprintf(what, sizeof what, "the data length %ld is not what DLC %ld says (%ld), at",
                 length, dlc, size);
        return bad(t, what, tok[0]);
    }
    if (length >= 0 && (fd ? rtcosim_can_fd_dlc((unsigned)length) < 0 : length > 8))
        return bad(t, fd ? "not a CAN FD data length (0-8, 12, 16, 20, 24, 32, 48, 64), at"
                         : "a CAN frame of more than 8 bytes, at", tok[0]);
    if (rec.remote) {
        if (count)
            return bad(t, "a remote frame with data:", data[0]);
        size = 0;
    } else if ((size_t)size != count) {
        char what[96];
        snprintf(what, sizeof what, "%zu data bytes where the %s says %ld, at", count,
                 dlc >= 0 ? "DLC" : "data length", size);
        return bad(t, what, count ? data[0] : tok[data_at - 1]);
    }
    for (size_t i = 0; i < count; i++) {
        int hi = hex_digit(data[i][0]), lo = hi < 0 ? -1 : hex_digit(data[i][1]);
        if (hi < 0 || lo < 0 || data[i][2])
            return bad(t, "not a data byte (2 hex digits):", data[i]);
        rec.data[i] = (uint8_t)(hi << 4 | lo);
    }
    rec.size = (uint8_t)size;
    return can_log_add(t->log, &rec, t->name, t->err);
}

static rtcosim_status trc_line(trc *t, char *line)
{
    char *p = line + strspn(line, " \t");
    if (*p == '\0')
        return RTCOSIM_OK;
    if (*p == ';')
        return comment(t, p);
    if (!t->started) {
        t->started = true;
        if (!t->version)
            t->version = 10; /* no ;$FILEVERSION */
    }
    char *tok[TRC_MAX_TOKENS];
    size_t n = 0;
    bool overflow = false;
    char *save = NULL;
    for (char *x = strtok_r(p, " \t", &save); x; x = strtok_r(NULL, " \t", &save)) {
        if (n == TRC_MAX_TOKENS) {
            overflow = true;
            break;
        }
        tok[n++] = x;
    }
    return message(t, tok, n, overflow);
}

bool can_log_is_trc(const char *text, size_t size)
{
    if (size && text[0] == ';')
        return true;
    /* a 1.0 trace without its header: "     1)      1841  0001  8  ..." */
    size_t i = 0;
    while (i < size && is_digit(text[i]))
        i++;
    return i > 0 && i + 1 < size && text[i] == ')' && (text[i + 1] == ' ' || text[i + 1] == '\t');
}

static rtcosim_status trc_line_of(void *context, char *line) { return trc_line(context, line); }

rtcosim_status can_log_parse_trc(const char *text, size_t size, size_t at, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err)
{
    log->source = RTCOSIM_CAN_LOG_TRC;
    log->absolute = false;
    trc t = {.log = log, .name = name, .err = err};
    return can_log_lines(text, size, at, name, "not a PEAK TRC trace", log, &t.line, trc_line_of,
                         &t, err);
}

/* ---- writing: TRC 2.1 ---- */

struct trc_writer {
    FILE *f;
    char *bus;
    bool header;
    rtcosim_time_ns start; /* the trace's start: ;$STARTTIME */
    uint64_t number;       /* messages written */
    size_t xl;             /* CAN XL frames left out */
};

trc_writer *can_log_trc_begin(FILE *f, const char *bus)
{
    trc_writer *w = calloc(1, sizeof *w);
    if (w && !(w->bus = strdup(bus))) {
        free(w);
        return NULL;
    }
    if (w)
        w->f = f;
    return w;
}

/* Floor division for the start's days and time of day. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* The header, with the trace's start at `start` (a multiple of 216 us: a
 * whole number of 1e-10 days, written exactly with 10 decimals, and of
 * microseconds, so offsets in us give back the times of the candump -l
 * writer to the us). */
static void write_header(trc_writer *w, rtcosim_time_ns start)
{
    w->start = start;
    w->header = true;
    int64_t days = floor_div(start, NS_PER_DAY), in_day = start - days * NS_PER_DAY;
    time_t seconds = (time_t)floor_div(start, INT64_C(1000000000));
    struct tm tm = {0};
    gmtime_r(&seconds, &tm);
    int64_t sub = start - (int64_t)seconds * INT64_C(1000000000); /* ns in the second */
    fprintf(w->f,
            ";$FILEVERSION=2.1\r\n"
            ";$STARTTIME=%" PRId64 ".%010" PRId64 "\r\n"
            ";$COLUMNS=N,O,T,B,I,d,R,L,D\r\n"
            ";\r\n"
            ";   Start time: %02d.%02d.%04d %02d:%02d:%02d.%03d.%d\r\n"
            ";   Generated by rtcosim\r\n"
            ";-------------------------------------------------------------------------------\r\n"
            ";   Bus  Name\r\n"
            ";   1    %s\r\n"
            ";-------------------------------------------------------------------------------\r\n"
            ";   Message   Time    Type    ID     Rx/Tx\r\n"
            ";   Number    Offset  |  Bus  [hex]  |  Reserved\r\n"
            ";   |         [ms]    |  |    |      |  |  Data Length Code\r\n"
            ";   |         |       |  |    |      |  |  |    Data [hex] ...\r\n"
            ";   |         |       |  |    |      |  |  |    |\r\n"
            ";---+-- ------+------ +- +- --+----- +- +- +--- +- -- -- -- -- -- -- --\r\n",
            TRC_EPOCH_DAYS + days, in_day / 8640, tm.tm_mday, tm.tm_mon + 1, tm.tm_year + 1900,
            tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(sub / 1000000), (int)(sub / 100000 % 10),
            w->bus);
}

/* ns to whole microseconds, rounded to nearest (halves away from 0). */
static int64_t to_us(rtcosim_time_ns t)
{
    return t >= 0 ? (t + 500) / 1000 : -((-t + 500) / 1000);
}

bool can_log_trc_add(trc_writer *w, const rtcosim_can_log_entry *e)
{
    if (e->format == RTCOSIM_CAN_FORMAT_XL) {
        w->xl++; /* (TRC has no CAN XL frames) */
        return true;
    }
    if (!w->header) /* the first frame's time, down to a multiple of 216 us */
        write_header(w, floor_div(e->end, 216000) * 216000);
    int64_t us = to_us(e->end - w->start);
    uint64_t mag = us < 0 ? (uint64_t)-us : (uint64_t)us;
    char when[32], id[16];
    snprintf(when, sizeof when, "%s%" PRIu64 ".%03u", us < 0 ? "-" : "", mag / 1000,
             (unsigned)(mag % 1000));
    snprintf(id, sizeof id, e->frame.extended ? "%08" PRIX32 : "%04" PRIX32, e->frame.id);
    const char *type = "DT";
    const uint8_t *data = e->frame.data;
    unsigned dlc = e->frame.dlc, n = dlc < 8 ? dlc : 8, have = n;
    if (e->format == RTCOSIM_CAN_FORMAT_FD) {
        static const char *const TYPES[] = {"FD", "FB", "FE", "BI"};
        type = TYPES[e->flags & (RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI)];
        have = e->length < 64 ? e->length : 64;
        n = rtcosim_can_fd_length(have); /* (a length FD has not: padded with 0) */
        dlc = (unsigned)rtcosim_can_fd_dlc(n);
        data = e->data;
    }
    fprintf(w->f, "%7" PRIu64 " %13s %s 1  %8s Rx -  ", ++w->number, when, type, id);
    fprintf(w->f, "%-*u", n ? 4 : 0, dlc);
    for (unsigned k = 0; k < n; k++)
        fprintf(w->f, " %02X", k < have ? data[k] : 0);
    fputs("\r\n", w->f);
    return true;
}

bool can_log_trc_end(trc_writer *w, bool ok, size_t *xl)
{
    if (ok && !w->header)
        write_header(w, 0); /* no frames: a trace from the simulation's start */
    if (xl)
        *xl = w->xl;
    free(w->bus);
    free(w);
    return ok;
}
