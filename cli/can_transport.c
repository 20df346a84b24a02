/* Transport protocols for `rtcosim can decode` (can_transport.h). */
#include <stdio.h>
#include <stdlib.h>

#include "can_transport.h"
#include "cli.h"

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

/* Per record: the message completed there + 1, 0 for none; NULL out of memory. */
static size_t *index_j1939(size_t n, const rtcosim_j1939_tp *tp)
{
    size_t *of = calloc(n + 1, sizeof *of);
    for (size_t k = 0; of && k < tp->count; k++)
        of[tp->messages[k].record] = k + 1;
    return of;
}

static size_t *index_isotp(size_t n, const rtcosim_isotp *iso)
{
    size_t *of = calloc(n + 1, sizeof *of);
    for (size_t k = 0; of && k < iso->count; k++)
        of[iso->messages[k].record] = k + 1;
    return of;
}

int can_transport_init(can_transport *t, const rtcosim_can_log *log, const rtcosim_dbc *dbc)
{
    size_t n = rtcosim_can_log_count(log);
    rtcosim_error err;
    if (has_j1939(dbc)) {
        if (rtcosim_j1939_tp_reassemble(log, &t->tp, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
        if (!(t->tp_of = index_j1939(n, &t->tp)))
            return cli_fail("out of memory");
        if (fast_packet_pgns(t, dbc))
            return 1;
        if (t->fp_pgn_count) {
            if (rtcosim_nmea2000_reassemble(log, t->fp_pgns, t->fp_pgn_count, &t->fp, &err) !=
                RTCOSIM_OK)
                return cli_fail_error(&err);
            if (!(t->fp_of = index_j1939(n, &t->fp)))
                return cli_fail("out of memory");
        }
    }
    if (t->iso_id_count) {
        if (rtcosim_isotp_reassemble(log, t->iso_ids, t->iso_id_count, &t->iso, &err) !=
            RTCOSIM_OK)
            return cli_fail_error(&err);
        if (!(t->iso_of = index_isotp(n, &t->iso)))
            return cli_fail("out of memory");
    }
    return 0;
}

bool can_transport_needed(const rtcosim_dbc *dbc, size_t iso_id_count)
{
    return iso_id_count > 0 || has_j1939(dbc);
}

int can_transport_at(const can_transport *t, const rtcosim_can_log_record *r, size_t i,
                     can_message_view *v)
{
    *v = (can_message_view){.id = r->id, .extended = r->extended, .data = r->data,
                            .size = r->size};
    if (t->iso_of && t->iso_of[i]) {
        const rtcosim_isotp_message *m = &t->iso.messages[t->iso_of[i] - 1];
        v->data = m->frame;
        v->size = m->frame_size;
        return 1;
    }
    if (t->iso_of && !r->remote &&
        rtcosim_isotp_match(t->iso_ids, t->iso_id_count, r->id, r->extended, NULL))
        return -1; /* part of a transfer */
    const rtcosim_j1939_message *m = t->tp_of && t->tp_of[i] ? &t->tp.messages[t->tp_of[i] - 1]
                                     : t->fp_of && t->fp_of[i]
                                         ? &t->fp.messages[t->fp_of[i] - 1] : NULL;
    if (m) {
        *v = (can_message_view){.id = m->id, .extended = true, .data = m->data, .size = m->size};
        return 1;
    }
    if (t->fp_of && r->extended && !r->remote) {
        uint32_t pgn = rtcosim_j1939_pgn(r->id);
        if (bsearch(&pgn, t->fp_pgns, t->fp_pgn_count, sizeof pgn, by_pgn))
            return -1; /* a Fast Packet frame */
    }
    return 0;
}

bool can_transport_j1939_frame(const can_transport *t, const rtcosim_can_log_record *r)
{
    uint32_t pgn = rtcosim_j1939_pgn(r->id);
    return t->tp_of && r->extended && (pgn == 0xEC00 || pgn == 0xEB00);
}

void can_transport_report(const can_transport *t, const char *log_path)
{
    if (t->tp_of && (t->tp.frames || t->tp.incomplete))
        fprintf(stderr, "rtcosim: %s: %zu J1939 transport frames gave %zu messages (%zu sessions "
                "not completed)\n", log_path, t->tp.frames, t->tp.count, t->tp.incomplete);
    if (t->fp_of && (t->fp.frames || t->fp.incomplete))
        fprintf(stderr, "rtcosim: %s: %zu NMEA 2000 Fast Packet frames gave %zu messages (%zu "
                "not completed)\n", log_path, t->fp.frames, t->fp.count, t->fp.incomplete);
    if (t->iso_of)
        fprintf(stderr, "rtcosim: %s: %zu ISO-TP frames gave %zu messages (%zu flow control, %zu "
                "transfers not completed, %zu frames fitting none)\n", log_path, t->iso.frames,
                t->iso.count, t->iso.flow_control, t->iso.incomplete, t->iso.invalid);
}

void can_transport_free(can_transport *t)
{
    free(t->tp_of);
    rtcosim_j1939_tp_free(&t->tp);
    free(t->fp_pgns);
    free(t->fp_of);
    rtcosim_j1939_tp_free(&t->fp);
    free(t->iso_of);
    rtcosim_isotp_free(&t->iso);
}
