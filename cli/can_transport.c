/* Transport protocols for `rtcosim can decode` (can_transport.h). */
#include <stdio.h>
#include <stdlib.h>

#include "can_transport.h"
#include "cli.h"
#include "signals.h"

/* Does the database hold J1939 parameter groups (whose long messages come
 * in transport sessions or, in NMEA 2000's ranges, Fast Packets)? */
static bool has_j1939(const rtcosim_dbc *dbc)
{
    for (size_t i = 0; i < rtcosim_dbc_message_count(dbc); i++)
        if (rtcosim_dbc_message_at(dbc, i)->j1939)
            return true;
    return false;
}

static int by_pgn(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The database's J1939 groups of over 8 bytes in NMEA 2000's Fast Packet
 * ranges (sorted, once each) into t->fp_pgns; 0 or 1 out of memory. */
static int fast_packet_pgns(can_transport *t, const rtcosim_dbc *dbc)
{
    size_t n = rtcosim_dbc_message_count(dbc);
    if (!(t->fp_pgns = calloc(n + 1, sizeof *t->fp_pgns)))
        return cli_fail("out of memory");
    for (size_t i = 0; i < n; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(dbc, i);
        uint32_t pgn = rtcosim_j1939_pgn(m->id);
        if (m->j1939 && m->dlc > 8 && rtcosim_nmea2000_fast_packet_range(pgn))
            t->fp_pgns[t->fp_pgn_count++] = pgn;
    }
    qsort(t->fp_pgns, t->fp_pgn_count, sizeof *t->fp_pgns, by_pgn);
    size_t k = 0;
    for (size_t i = 0; i < t->fp_pgn_count; i++)
        if (k == 0 || t->fp_pgns[i] != t->fp_pgns[k - 1])
            t->fp_pgns[k++] = t->fp_pgns[i];
    t->fp_pgn_count = k;
    return 0;
}

int can_transport_begin(can_transport *t, const rtcosim_dbc *dbc)
{
    if (has_j1939(dbc)) {
        t->tp_on = true;
        if (!(t->tp_stream = rtcosim_j1939_tp_begin(&t->tp)))
            return cli_fail("out of memory");
        if (fast_packet_pgns(t, dbc))
            return 1;
        t->fp_on = t->fp_pgn_count > 0;
        if (t->fp_on && !(t->fp_stream = rtcosim_nmea2000_begin(t->fp_pgns, t->fp_pgn_count,
                                                                &t->fp)))
            return cli_fail("out of memory");
    }
    t->iso_on = t->iso_id_count > 0;
    if (t->iso_on && !(t->iso_stream = rtcosim_isotp_begin(t->iso_ids, t->iso_id_count, &t->iso)))
        return cli_fail("out of memory");
    return 0;
}

int can_transport_add(can_transport *t, const rtcosim_can_log_record *r, size_t i)
{
    if ((t->tp_stream && !rtcosim_j1939_tp_add(t->tp_stream, r, i)) ||
        (t->fp_stream && !rtcosim_nmea2000_add(t->fp_stream, r, i)) ||
        (t->iso_stream && !rtcosim_isotp_add(t->iso_stream, r, i)))
        return cli_fail("out of memory reassembling the log's transfers");
    return 0;
}

void can_transport_end(can_transport *t)
{
    rtcosim_j1939_tp_end(t->tp_stream);
    rtcosim_nmea2000_end(t->fp_stream);
    rtcosim_isotp_end(t->iso_stream);
    t->tp_stream = NULL;
    t->fp_stream = NULL;
    t->iso_stream = NULL;
}

void can_transport_rewind(can_transport *t)
{
    t->tp_next = t->fp_next = t->iso_next = 0;
}

/* The message of this list completed at record i, if any (*next: the first
 * not before it). */
static const rtcosim_j1939_message *j1939_at(const rtcosim_j1939_tp *tp, size_t *next, size_t i)
{
    while (*next < tp->count && tp->messages[*next].record < i)
        ++*next;
    return *next < tp->count && tp->messages[*next].record == i ? &tp->messages[*next] : NULL;
}

int can_transport_at(can_transport *t, const rtcosim_can_log_record *r, size_t i,
                     can_message_view *v)
{
    *v = (can_message_view){.id = r->id, .extended = r->extended, .data = r->data,
                            .size = r->size};
    if (t->iso_on) {
        while (t->iso_next < t->iso.count && t->iso.messages[t->iso_next].record < i)
            t->iso_next++;
        if (t->iso_next < t->iso.count && t->iso.messages[t->iso_next].record == i) {
            const rtcosim_isotp_message *m = &t->iso.messages[t->iso_next];
            v->data = m->frame;
            v->size = m->frame_size;
            return 1;
        }
        if (!r->remote &&
            rtcosim_isotp_match(t->iso_ids, t->iso_id_count, r->id, r->extended, NULL))
            return -1; /* part of a transfer */
    }
    const rtcosim_j1939_message *m = t->tp_on ? j1939_at(&t->tp, &t->tp_next, i) : NULL;
    if (!m && t->fp_on)
        m = j1939_at(&t->fp, &t->fp_next, i);
    if (m) {
        *v = (can_message_view){.id = m->id, .extended = true, .data = m->data, .size = m->size};
        return 1;
    }
    if (t->fp_on && r->extended && !r->remote) {
        uint32_t pgn = rtcosim_j1939_pgn(r->id);
        if (bsearch(&pgn, t->fp_pgns, t->fp_pgn_count, sizeof pgn, by_pgn))
            return -1; /* a Fast Packet frame */
    }
    return 0;
}

bool can_transport_j1939_frame(const can_transport *t, const rtcosim_can_log_record *r)
{
    uint32_t pgn = rtcosim_j1939_pgn(r->id);
    return t->tp_on && r->extended && (pgn == 0xEC00 || pgn == 0xEB00);
}

void can_transport_report(const can_transport *t, const char *log_path)
{
    if (t->tp_on && (t->tp.frames || t->tp.incomplete))
        fprintf(stderr, "rtcosim: %s: %zu J1939 transport frames gave %zu messages (%zu sessions "
                "not completed)\n", log_path, t->tp.frames, t->tp.count, t->tp.incomplete);
    if (t->fp_on && (t->fp.frames || t->fp.incomplete))
        fprintf(stderr, "rtcosim: %s: %zu NMEA 2000 Fast Packet frames gave %zu messages (%zu "
                "not completed)\n", log_path, t->fp.frames, t->fp.count, t->fp.incomplete);
    if (t->iso_on)
        fprintf(stderr, "rtcosim: %s: %zu ISO-TP frames gave %zu messages (%zu flow control, %zu "
                "transfers not completed, %zu frames fitting none)\n", log_path, t->iso.frames,
                t->iso.count, t->iso.flow_control, t->iso.incomplete, t->iso.invalid);
}

void can_transport_free(can_transport *t)
{
    can_transport_end(t);
    rtcosim_j1939_tp_free(&t->tp);
    free(t->fp_pgns);
    rtcosim_j1939_tp_free(&t->fp);
    rtcosim_isotp_free(&t->iso);
}

typedef struct stoppable {
    rtcosim_can_log_frame_fn *frame;
    void *context;
} stoppable;

static rtcosim_status stop_or_take(void *context, const rtcosim_can_log *log,
                                   const rtcosim_can_log_record *r, rtcosim_error *err)
{
    const stoppable *s = context;
    if (atomic_load_explicit(&cli_stop_signal, memory_order_relaxed))
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted");
    return s->frame(s->context, log, r, err);
}

rtcosim_status cli_can_log_scan_stoppable(const char *path, rtcosim_can_log_frame_fn *frame,
                                          void *context, rtcosim_can_log **out, int *signo,
                                          rtcosim_error *err)
{
    stoppable s = {frame, context};
    cli_signals_install();
    rtcosim_status st = rtcosim_can_log_scan(path, stop_or_take, &s, out, err);
    cli_signals_restore();
    *signo = atomic_load(&cli_stop_signal);
    return *signo && st == RTCOSIM_ECANCELED ? RTCOSIM_OK : st;
}
