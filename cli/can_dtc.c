/* `rtcosim can dtc LOG [--isotp SPEC]`: the diagnostic trouble codes a CAN log
 * carries, in time order: SAE J1939 DM1 (active) and DM2 (previously active)
 * messages, single frames or reassembled from transport sessions, and the
 * ISO-TP answers of OBD (services 0x03, 0x07, 0x0A: stored, pending,
 * permanent) and UDS (ReadDTCInformation 0x19 reportDTCByStatusMask 0x02,
 * and 0x0A supported DTCs). Facts: J1939-73's DM1 layout (lamp status byte,
 * flash byte, then 4 bytes a DTC: SPN bits 0-15, SPN bits 16-18 in the high
 * 3 bits of byte 3 under FMI in the low 5, the conversion method bit and a
 * 7-bit occurrence count; SPN 0 FMI 0 for none); SAE J2012's two-byte OBD
 * code (P/C/B/U in the top two bits, then four hex digits); ISO 14229-1's
 * DTC records (3 bytes and a status byte: bit 0 testFailed, bit 2
 * pendingDTC, bit 3 confirmedDTC, bit 7 warningIndicatorRequested). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "can_transport.h"
#include "cli.h"
#include "signals.h"
#include "rtcosim/can_log.h"
#include "rtcosim/dbc.h"
#include "rtcosim/isotp.h"
#include "rtcosim/j1939.h"
#include "rtcosim/results.h"

#define DM1 0xFECAu
#define DM2 0xFECBu

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim can dtc LOG [--isotp SPEC] [--isotp-addressing normal|extended]\n"
            "                       [--relative-time]\n"
            "\n"
            "The diagnostic trouble codes of a CAN log (candump -l, Vector ASC, Vector BLF or\n"
            "an ASAM MDF 4 bus log), one line per message that carries them:\n"
            "  SAE J1939 DM1 (active) and DM2 (previously active) from any source address,\n"
            "  single frames or reassembled from transport sessions: the lamps (MIL, red\n"
            "  stop, amber warning, protect) and each DTC as SPN, FMI and occurrence count;\n"
            "  ISO-TP answers (on the OBD ids, or those --isotp names, as `can isotp`): OBD\n"
            "  stored, pending and permanent DTCs (services 0x03, 0x07, 0x0A) as P/C/B/U\n"
            "  codes, UDS ReadDTCInformation by status mask (0x19 0x02, and 0x0A) as\n"
            "  3-byte DTCs with their status bits.\n"
            "\n"
            "  --isotp SPEC        the ids that carry ISO-TP (as `can isotp --ids`; default obd)\n"
            "  --isotp-addressing normal|extended\n"
            "                      extended: an address byte before each frame's PCI\n"
            "  --relative-time     times from the log's first frame\n"
            "  --help              this text\n");
}

static const char *lamp(unsigned bits)
{
    static const char *const names[] = {"off", "on", "error", "n/a"};
    return names[bits & 3];
}

/* A DM1/DM2 payload: lamps, then the DTCs (none: "no DTC"). */
static void print_dm(const uint8_t *d, size_t n, FILE *out)
{
    if (n < 2) {
        fprintf(out, " (%zu bytes: no lamp status)", n);
        return;
    }
    fprintf(out, " MIL %s, red stop %s, amber warning %s, protect %s:", lamp(d[0] >> 6),
            lamp(d[0] >> 4), lamp(d[0] >> 2), lamp(d[0]));
    size_t shown = 0;
    for (size_t at = 2; at + 4 <= n; at += 4) {
        const uint8_t *t = d + at;
        uint32_t spn = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)(t[2] >> 5) << 16;
        unsigned fmi = t[2] & 0x1F, oc = t[3] & 0x7F;
        if (spn == 0x7FFFF && fmi == 0x1F)
            continue; /* padding (all ones) */
        if (spn == 0 && fmi == 0)
            continue; /* "no DTC" */
        fprintf(out, "%s SPN %u FMI %u OC %u%s", shown ? ";" : "", (unsigned)spn, fmi, oc,
                t[3] >> 7 ? " (CM 1: an old SPN conversion)" : "");
        shown++;
    }
    if (!shown)
        fputs(" no DTC", out);
}

/* SAE J2012: the system letter from the top two bits, then four hex digits. */
static void obd_code(unsigned hi, unsigned lo, char out[8])
{
    static const char letters[] = "PCBU";
    snprintf(out, 8, "%c%X%X%02X", letters[hi >> 6], (hi >> 4) & 3, hi & 0xF, lo);
}

static void print_status(unsigned s, FILE *out)
{
    static const char *const bits[] = {"testFailed", "testFailedThisOperationCycle",
                                       "pendingDTC", "confirmedDTC",
                                       "testNotCompletedSinceLastClear",
                                       "testFailedSinceLastClear",
                                       "testNotCompletedThisOperationCycle",
                                       "warningIndicatorRequested"};
    fprintf(out, " (status 0x%02X", s);
    for (unsigned b = 0; b < 8; b++)
        if (s >> b & 1)
            fprintf(out, " %s", bits[b]);
    fputc(')', out);
}

/* Does an ISO-TP message carry DTCs (an OBD or UDS answer listing them)? */
static bool carries_dtcs(const uint8_t *d, size_t n)
{
    return (n >= 1 && (d[0] == 0x43 || d[0] == 0x47 || d[0] == 0x4A)) ||
           (n >= 3 && d[0] == 0x59 && (d[1] == 0x02 || d[1] == 0x0A));
}

/* Its DTCs (carries_dtcs). */
static void print_isotp_dtcs(const uint8_t *d, size_t n, FILE *out)
{
    if (d[0] == 0x43 || d[0] == 0x47 || d[0] == 0x4A) {
        /* OBD: on CAN a count byte, then two bytes a code */
        static const char *const kinds[] = {[3] = "stored", [7] = "pending", [10] = "permanent"};
        fprintf(out, " OBD %s DTCs:", kinds[d[0] - 0x40]);
        size_t count = n >= 2 ? d[1] : 0, shown = 0;
        for (size_t k = 0; k < count && 2 + 2 * k + 1 < n; k++) {
            char code[8];
            obd_code(d[2 + 2 * k], d[3 + 2 * k], code);
            fprintf(out, "%s %s", shown++ ? "," : "", code);
        }
        if (!shown)
            fputs(" none", out);
        return;
    }
    {
        fprintf(out, " UDS ReadDTCInformation %s (availability mask 0x%02X):",
                d[1] == 0x02 ? "reportDTCByStatusMask" : "reportSupportedDTC", d[2]);
        size_t shown = 0;
        for (size_t at = 3; at + 4 <= n; at += 4, shown++) {
            fprintf(out, "%s DTC 0x%02X%02X%02X", shown ? ";" : "", d[at], d[at + 1], d[at + 2]);
            print_status(d[at + 3], out);
        }
        if (!shown)
            fputs(" none", out);
    }
}

static void put_time(const rtcosim_can_log *log, rtcosim_time_ns time, uint32_t bus,
                     rtcosim_time_ns origin, FILE *out)
{
    char text[RTCOSIM_FORMAT_MAX];
    rtcosim_format_time(time - origin, text);
    fprintf(out, "(%s) %s", text, rtcosim_can_log_bus_name(log, bus));
}

/* The log read a frame at a time: each frame into the reassemblers, and the
 * lines in the log's order as their messages complete (a DM1/DM2 single
 * frame at once, a session or transfer at its last frame). */
typedef struct reading {
    rtcosim_j1939_tp tp;
    rtcosim_isotp iso;
    rtcosim_j1939_tp_stream *tp_stream;
    rtcosim_isotp_stream *iso_stream;
    size_t tp_done, iso_done; /* messages printed (or passed over) so far */
    bool relative, any;
    rtcosim_time_ns origin;
    size_t dm, uds;
    size_t frames; /* read so far */
} reading;

static void print_dm_line(reading *rd, const rtcosim_can_log *log, rtcosim_time_ns time,
                          uint32_t bus, uint32_t id, const uint8_t *d, size_t size)
{
    put_time(log, time, bus, rd->origin, stdout);
    printf(" SA 0x%02X %s", (unsigned)(id & 0xFF),
           rtcosim_j1939_pgn(id) == DM1 ? "DM1 active" : "DM2 previously active");
    print_dm(d, size, stdout);
    fputc('\n', stdout);
    rd->dm++;
}

static rtcosim_status take(void *context, const rtcosim_can_log *log,
                           const rtcosim_can_log_record *r, rtcosim_error *err)
{
    reading *rd = context;
    rd->frames++;
    size_t i = rtcosim_can_log_count(log) - 1;
    if (!rd->any) {
        rd->any = true;
        rd->origin = rd->relative ? r->time : 0;
    }
    if (!rtcosim_j1939_tp_add(rd->tp_stream, r, i) || !rtcosim_isotp_add(rd->iso_stream, r, i))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reassembling the log's "
                                 "transfers");
    uint32_t pgn = rtcosim_j1939_pgn(r->id);
    if (r->extended && !r->remote && (pgn == DM1 || pgn == DM2))
        print_dm_line(rd, log, r->time, r->bus, r->id, r->data, r->size);
    for (; rd->tp_done < rd->tp.count; rd->tp_done++) {
        const rtcosim_j1939_message *m = &rd->tp.messages[rd->tp_done];
        if (m->pgn == DM1 || m->pgn == DM2) /* (completed at this frame) */
            print_dm_line(rd, log, r->time, r->bus, m->id, m->data, m->size);
    }
    for (; rd->iso_done < rd->iso.count; rd->iso_done++) {
        const rtcosim_isotp_message *m = &rd->iso.messages[rd->iso_done];
        if (!carries_dtcs(m->data, m->size))
            continue;
        put_time(log, m->time, m->bus, rd->origin, stdout);
        printf(" %0*X", m->extended ? 8 : 3, (unsigned)m->id);
        print_isotp_dtcs(m->data, m->size, stdout);
        fputc('\n', stdout);
        rd->uds++;
    }
    return RTCOSIM_OK;
}

int cli_can_dtc(int argc, char **argv)
{
    cli_isotp_args args;
    int rc = cli_isotp_args_parse("can dtc", "--isotp", false, argc, argv, usage, &args);
    if (rc < 0)
        return 0;
    const char *log_path = args.log_path;
    bool relative = args.relative;
    rtcosim_isotp_ids *ids = args.ids;
    size_t id_count = args.id_count;
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    reading rd = {.relative = relative};
    if (rc == 0 && (!(rd.tp_stream = rtcosim_j1939_tp_begin(&rd.tp)) ||
                    !(rd.iso_stream = rtcosim_isotp_begin(ids, id_count, &rd.iso))))
        rc = cli_fail("out of memory");
    /* Ctrl-C (or SIGTERM) stops the reading at the next frame: what was
     * printed stands (flushed) */
    int signo = 0;
    if (rc == 0 &&
        cli_can_log_scan_stoppable(log_path, take, &rd, &log, &signo, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    rtcosim_j1939_tp_end(rd.tp_stream);
    rtcosim_isotp_end(rd.iso_stream);
    if (rc == 0 && fflush(stdout) != 0)
        rc = cli_fail("writing standard output failed");
    if (rc == 0 && signo) {
        fprintf(stderr, "rtcosim: can dtc: ended by %s after %zu frames of %s: %zu J1939 "
                "DM1/DM2 messages, %zu OBD/UDS DTC answers so far\n", cli_signal_name(signo),
                rd.frames, log_path, rd.dm, rd.uds);
        rc = cli_signal_exit_code(signo);
    }
    if (rc == 0)
        fprintf(stderr, "rtcosim: %s: %zu J1939 DM1/DM2 messages, %zu OBD/UDS DTC answers\n",
                log_path, rd.dm, rd.uds);
    rtcosim_isotp_free(&rd.iso);
    rtcosim_j1939_tp_free(&rd.tp);
    rtcosim_can_log_free(log);
    free(ids);
    return rc;
}
