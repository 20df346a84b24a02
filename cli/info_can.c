/* `rtcosim info F.dbc` and `rtcosim info LOG [--dbc F.dbc]`: what a CAN
 * database holds (messages, their senders and cycle times, every signal's
 * layout and scaling) and what a CAN log holds (per identifier: frames,
 * length, period and its spread), as rtcosim reads them. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "info_system.h"
#include "key_index.h"
#include "rtcosim/can_log.h"
#include "rtcosim/isotp.h"
#include "rtcosim/dbc.h"

bool cli_info_is_dbc(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && strcasecmp(path + n - 4, ".dbc") == 0) ||
           (n > 6 && strcasecmp(path + n - 6, ".arxml") == 0);
}

bool cli_info_is_can_log(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && (strcasecmp(path + n - 4, ".blf") == 0 || strcasecmp(path + n - 4, ".asc") == 0 ||
                     strcasecmp(path + n - 4, ".log") == 0 || strcasecmp(path + n - 4, ".trc") == 0);
}

static void id_text(char *out, size_t size, uint32_t id, bool extended)
{
    snprintf(out, size, extended ? "0x%08" PRIX32 "x" : "0x%03" PRIX32, id);
}

/* A container's column: its parts, headers and sending (IpduM). */
static void container_text(const rtcosim_dbc *dbc, const rtcosim_dbc_message *m, char *out,
                           size_t size)
{
    int n = snprintf(out, size, "  container of %zu PDUs, %s headers, %s, sent %g ms after its "
                     "first PDU", rtcosim_dbc_contained_count(dbc, m),
                     m->header_bytes == 4 ? "short" : "long",
                     m->header_little_endian ? "little-endian" : "big-endian",
                     (double)m->container_timeout / 1e6);
    if (m->container_first_trigger && n >= 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n, " or at once (first-contained trigger)");
    if (m->container_threshold && n >= 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n, ", at %u bytes", m->container_threshold);
    if (m->container_padding && n >= 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, ", padding 0x%02X", m->container_padding);
}


int cli_info_dbc(const char *path)
{
    rtcosim_dbc *dbc = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_load(path, &dbc, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    size_t mc = rtcosim_dbc_message_count(dbc), signals = 0;
    for (size_t i = 0; i < mc; i++)
        signals += rtcosim_dbc_message_at(dbc, i)->signal_count;
    size_t n = strlen(path);
    printf("%-20s %s\n%-20s %zu, %zu signals\n\n",
           n > 6 && strcasecmp(path + n - 6, ".arxml") == 0 ? "ARXML" : "DBC", path, "messages",
           mc, signals);
    printf("%-12s %-24s %4s  %-16s %10s  %s\n", "id", "message", "dlc", "transmitter", "cycle",
           "signals");
    for (size_t i = 0; i < mc; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(dbc, i);
        char id[24], cycle[32] = "-", kind[224] = "";
        if (m->contained_in) /* a contained PDU: its header id in its container */
            snprintf(id, sizeof id, " h0x%" PRIX32, m->header_id);
        else
            id_text(id, sizeof id, m->id, m->extended);
        if (m->cycle_time > 0)
            snprintf(cycle, sizeof cycle, "%g ms", (double)m->cycle_time / 1e6);
        if (m->header_bytes)
            container_text(dbc, m, kind, sizeof kind);
        else if (m->contained_in)
            snprintf(kind, sizeof kind, "  in %s%s%s", m->contained_in->name,
                     m->contained_queued ? ", queued" : "",
                     m->contained_trigger ? ", triggers it" : "");
        if (m->contained_in && m->contained_timeout >= 0)
            snprintf(kind + strlen(kind), sizeof kind - strlen(kind), ", timeout %g ms",
                     (double)m->contained_timeout / 1e6);
        printf("%-12s %-24s %4u  %-16s %10s  %zu%s%s\n", id, m->name, (unsigned)m->dlc,
               m->transmitter ? m->transmitter : "-", cycle, m->signal_count,
               m->fd && !m->contained_in ? (m->brs ? "  CAN FD, BRS" : "  CAN FD") : "", kind);
    }
    printf("\n%-40s %5s %3s %-8s %-4s %10s %10s %12s %12s %-8s %s\n", "signal", "start", "len",
           "order", "sign", "factor", "offset", "min", "max", "unit", "mux");
    for (size_t i = 0; i < mc; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(dbc, i);
        for (size_t k = 0; k < m->signal_count; k++) {
            const rtcosim_dbc_signal *s = &m->signals[k];
            char name[300], mux[32] = "";
            snprintf(name, sizeof name, "%s.%s", m->name, s->name);
            if (s->mux == RTCOSIM_DBC_MULTIPLEXOR)
                snprintf(mux, sizeof mux, "M");
            else if (s->mux == RTCOSIM_DBC_MULTIPLEXED && s->mux_range_count) {
                /* extended: "m1M 2-4,7 of S0" */
                int n = snprintf(mux, sizeof mux, "m%" PRIu64 "%s", s->mux_value,
                                 s->selects ? "M " : " ");
                for (size_t r = 0; r < s->mux_range_count && n > 0 && (size_t)n < sizeof mux; r++)
                    n += s->mux_ranges[r][0] == s->mux_ranges[r][1]
                             ? snprintf(mux + n, sizeof mux - (size_t)n, "%s%" PRIu64, r ? "," : "",
                                        s->mux_ranges[r][0])
                             : snprintf(mux + n, sizeof mux - (size_t)n,
                                        "%s%" PRIu64 "-%" PRIu64, r ? "," : "",
                                        s->mux_ranges[r][0], s->mux_ranges[r][1]);
                if (n > 0 && (size_t)n < sizeof mux)
                    snprintf(mux + n, sizeof mux - (size_t)n, " of %s", s->muxer->name);
            } else if (s->mux == RTCOSIM_DBC_MULTIPLEXED)
                snprintf(mux, sizeof mux, "m%" PRIu64 "%s", s->mux_value, s->selects ? "M" : "");
            printf("%-40s %5u %3u %-8s %-4s %10.10g %10.10g %12.10g %12.10g %-8s %s%s\n", name,
                   s->start_bit, s->length, s->little_endian ? "Intel" : "Motorola",
                   s->value_type == RTCOSIM_DBC_FLOAT32   ? "f32"
                   : s->value_type == RTCOSIM_DBC_FLOAT64 ? "f64"
                   : s->is_signed                         ? "-"
                                                          : "+",
                   s->factor, s->offset, s->minimum, s->maximum,
                   s->unit && *s->unit ? s->unit : "-", mux,
                   s->value_count ? (mux[0] ? ", values" : "values") : "");
        }
    }
    rtcosim_dbc_free(dbc);
    return 0;
}

/* One identifier's frames on one bus. */
typedef struct id_stats {
    uint64_t key;
    uint32_t bus, id;
    bool extended;
    uint8_t format;
    uint64_t frames;
    unsigned min_size, max_size;
    rtcosim_time_ns first, last, min_gap, max_gap;
} id_stats;

static uint64_t key_of(const rtcosim_can_log_record *r)
{
    return (uint64_t)r->bus << 40 | (uint64_t)r->format << 32 | (r->extended ? 1ull << 31 : 0) |
           r->id;
}

/* What `info` gathers of a log, a frame at a time: per identifier (found by
 * a hash of its key) its frames, lengths and gaps, the log's time span, and
 * the ISO-TP messages on the OBD/UDS ids. Gaps are taken in the log's order;
 * a frame earlier than its identifier's last one (a log out of time order)
 * sends the caller to the sorted way (out_of_order). */
typedef struct log_stats {
    id_stats *ids;
    size_t count, cap;
    key_index by_key; /* ids by their key */
    size_t frames;
    rtcosim_time_ns first, last;
    bool out_of_order;
    rtcosim_isotp tp;
    rtcosim_isotp_stream *iso;
} log_stats;

/* One frame; false out of memory. */
static bool take(log_stats *st, const rtcosim_can_log_record *x, size_t index)
{
    if (st->iso && !rtcosim_isotp_add(st->iso, x, index))
        return false;
    if (st->frames == 0 || x->time < st->first)
        st->first = x->time;
    if (st->frames == 0 || x->time > st->last)
        st->last = x->time;
    st->frames++;
    uint64_t key = key_of(x);
    size_t at = key_index_find(&st->by_key, key);
    id_stats *s;
    if (at == SIZE_MAX) {
        if (st->count == st->cap) {
            size_t cap = st->cap ? 2 * st->cap : 64;
            id_stats *ids = realloc(st->ids, cap * sizeof *ids);
            if (!ids)
                return false;
            st->ids = ids;
            st->cap = cap;
        }
        if (!key_index_add(&st->by_key, key, st->count))
            return false;
        s = &st->ids[st->count++];
        *s = (id_stats){.key = key, .bus = x->bus, .id = x->id, .extended = x->extended,
                        .format = x->format, .min_size = x->size, .max_size = x->size,
                        .first = x->time, .last = x->time, .min_gap = -1, .max_gap = -1};
    } else {
        s = &st->ids[at];
        rtcosim_time_ns gap = x->time - s->last;
        if (gap < 0)
            st->out_of_order = true;
        if (s->min_gap < 0 || gap < s->min_gap)
            s->min_gap = gap;
        if (gap > s->max_gap)
            s->max_gap = gap;
        s->last = x->time;
    }
    s->frames++;
    if (x->size < s->min_size)
        s->min_size = x->size;
    if (x->size > s->max_size)
        s->max_size = x->size;
    return true;
}

static bool stats_begin(log_stats *st)
{
    *st = (log_stats){0};
    return (st->iso = rtcosim_isotp_begin(rtcosim_isotp_obd_ids, 4, &st->tp)) != NULL;
}

static void stats_free(log_stats *st)
{
    rtcosim_isotp_end(st->iso);
    rtcosim_isotp_free(&st->tp);
    free(st->ids);
    key_index_free(&st->by_key);
    *st = (log_stats){0};
}

static int by_time_then_index(const void *a, const void *b, void *records)
{
    const rtcosim_can_log_record *r = records;
    const rtcosim_can_log_record *x = &r[*(const size_t *)a], *y = &r[*(const size_t *)b];
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* A loaded log's statistics: in the log's order, or (when that is not time
 * order for some identifier) in time order. */
static int stats_of_log(const rtcosim_can_log *log, log_stats *st)
{
    size_t n = rtcosim_can_log_count(log);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    bool ok = stats_begin(st);
    for (size_t i = 0; ok && i < n; i++)
        ok = take(st, &r[i], i);
    if (ok && st->out_of_order) {
        size_t *order = malloc((n ? n : 1) * sizeof *order);
        ok = order != NULL;
        for (size_t i = 0; ok && i < n; i++)
            order[i] = i;
        if (ok)
            qsort_r(order, n, sizeof *order, by_time_then_index, (void *)r);
        stats_free(st);
        ok = ok && stats_begin(st);
        /* (the ISO-TP transfers in the log's order, as a receiver saw them) */
        rtcosim_isotp_stream *iso = st->iso;
        st->iso = NULL;
        for (size_t i = 0; ok && i < n; i++)
            ok = rtcosim_isotp_add(iso, &r[i], i);
        for (size_t i = 0; ok && i < n; i++)
            ok = take(st, &r[order[i]], order[i]);
        st->iso = iso;
        free(order);
    }
    rtcosim_isotp_end(st->iso);
    st->iso = NULL;
    return ok ? 0 : cli_fail("info: out of memory");
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const id_stats *)a)->key, y = ((const id_stats *)b)->key;
    return (x > y) - (x < y);
}

static const char *format_name(uint8_t f)
{
    return f == RTCOSIM_CAN_FORMAT_FD ? "CAN FD" : f == RTCOSIM_CAN_FORMAT_XL ? "CAN XL" : "classic";
}

static rtcosim_status take_frame(void *context, const rtcosim_can_log *log,
                                 const rtcosim_can_log_record *r, rtcosim_error *err)
{
    if (!take(context, r, rtcosim_can_log_count(log) - 1))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "info: out of memory");
    return RTCOSIM_OK;
}

static int print_log(const char *path, rtcosim_can_log *log, log_stats *st, const char *dbc_path);

/* A log file streams: a frame at a time into the statistics (a log of
 * gigabytes in the memory of a short one); read whole and sorted only when
 * it is out of time order. */
int cli_info_can_log_try(const char *path, const char *dbc_path, rtcosim_error *err)
{
    rtcosim_can_log *log = NULL;
    if (!cli_rereadable(path)) { /* a pipe: read whole once (it may need sorting) */
        if (rtcosim_can_log_read(path, &log, err) != RTCOSIM_OK)
            return -1;
        return cli_info_can_log_read(path, log, dbc_path);
    }
    log_stats st;
    if (!stats_begin(&st))
        return cli_fail("info: out of memory");
    rtcosim_status s = rtcosim_can_log_scan(path, take_frame, &st, &log, err);
    if (s != RTCOSIM_OK) {
        rtcosim_can_log_free(log);
        stats_free(&st);
        return -1;
    }
    if (st.out_of_order) {
        stats_free(&st);
        rtcosim_can_log_free(log);
        if (rtcosim_can_log_read(path, &log, err) != RTCOSIM_OK)
            return -1;
        return cli_info_can_log_read(path, log, dbc_path);
    }
    rtcosim_isotp_end(st.iso);
    st.iso = NULL;
    return print_log(path, log, &st, dbc_path);
}

int cli_info_can_log(const char *path, const char *dbc_path)
{
    rtcosim_error err;
    int rc = cli_info_can_log_try(path, dbc_path, &err);
    return rc == -1 ? cli_fail_error(&err) : rc;
}

int cli_info_can_log_read(const char *path, rtcosim_can_log *log, const char *dbc_path)
{
    log_stats st;
    if (stats_of_log(log, &st)) {
        stats_free(&st);
        rtcosim_can_log_free(log);
        return 1;
    }
    return print_log(path, log, &st, dbc_path);
}

/* What `info` says of a log (frees log and st). */
static int print_log(const char *path, rtcosim_can_log *log, log_stats *st, const char *dbc_path)
{
    rtcosim_dbc *dbc = NULL;
    rtcosim_error err;
    size_t db_size = 0;
    const char *db_name = NULL, *db_text = rtcosim_can_log_database(log, &db_size, &db_name);
    if ((dbc_path && rtcosim_dbc_load(dbc_path, &dbc, &err) != RTCOSIM_OK) ||
        (!dbc_path && db_text && rtcosim_dbc_parse(db_text, db_size, db_name, &dbc, &err) !=
                                     RTCOSIM_OK)) {
        rtcosim_can_log_free(log);
        stats_free(st);
        return cli_fail_error(&err);
    }
    size_t n = rtcosim_can_log_count(log);
    rtcosim_can_log_format f = rtcosim_can_log_source(log);
    printf("%-20s %s (%s)\n", "CAN log", path, rtcosim_can_log_format_name(f));
    if (db_text)
        printf("%-20s %s (%zu bytes)%s\n", "attached database", db_name, db_size,
               dbc_path ? ": --dbc given instead" : ": names the messages");
    printf("%-20s %zu", "frames", n);
    if (rtcosim_can_log_xl_count(log))
        printf(" and %zu CAN XL frames (not listed)", rtcosim_can_log_xl_count(log));
    printf(" on %zu bus%s:", rtcosim_can_log_bus_count(log),
           rtcosim_can_log_bus_count(log) == 1 ? "" : "es");
    for (size_t b = 0; b < rtcosim_can_log_bus_count(log); b++)
        printf(" %s", rtcosim_can_log_bus_name(log, b));
    printf("\n");
    if (n)
        printf("%-20s %.6f s to %.6f s (%.6f s)\n", "time", rtcosim_time_to_seconds(st->first),
               rtcosim_time_to_seconds(st->last), rtcosim_time_to_seconds(st->last - st->first));
    qsort(st->ids, st->count, sizeof *st->ids, by_key);
    printf("\n%-12s %-8s %-8s %-24s %8s %7s %12s %12s %12s\n", "id", "bus", "format", "message",
           "frames", "bytes", "period ms", "min ms", "max ms");
    for (size_t i = 0; i < st->count; i++) {
        const id_stats *s = &st->ids[i];
        char id[24], bytes[16], period[24] = "-", lo[24] = "-", hi[24] = "-";
        id_text(id, sizeof id, s->id, s->extended);
        const rtcosim_dbc_message *m = dbc ? rtcosim_dbc_find_frame(dbc, s->id, s->extended) : NULL;
        if (s->min_size == s->max_size)
            snprintf(bytes, sizeof bytes, "%u", s->min_size);
        else
            snprintf(bytes, sizeof bytes, "%u-%u", s->min_size, s->max_size);
        if (s->frames > 1) {
            snprintf(period, sizeof period, "%.3f",
                     (double)(s->last - s->first) / (double)(s->frames - 1) / 1e6);
            snprintf(lo, sizeof lo, "%.3f", (double)s->min_gap / 1e6);
            snprintf(hi, sizeof hi, "%.3f", (double)s->max_gap / 1e6);
        }
        printf("%-12s %-8s %-8s %-24s %8" PRIu64 " %7s %12s %12s %12s\n", id,
               rtcosim_can_log_bus_name(log, s->bus), format_name(s->format),
               m ? m->name : (dbc ? "(not in the DBC)" : "-"), s->frames, bytes, period, lo, hi);
    }
    /* diagnostic traffic on the OBD / UDS ids: where its messages are read */
    if (st->tp.count)
        printf("\n%-20s %zu messages on the OBD/UDS ids (0x7DF, 0x7E0-0x7EF, 0x18DA/0x18DB"
               "xxxx): rtcosim can isotp %s\n", "ISO-TP", st->tp.count, path);
    stats_free(st);
    rtcosim_can_log_free(log);
    rtcosim_dbc_free(dbc);
    return 0;
}
