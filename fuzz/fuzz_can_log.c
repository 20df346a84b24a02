/* libFuzzer target for the CAN log readers (src/can/log_read.c: candump -l
 * and Vector ASC; log_trc.c: PEAK TRC; log_blf_read.c: BLF; log_mdf.c: MDF
 * 4 bus logs) and the
 * transport reassembly run on what they read (j1939_tp.c: J1939; nmea2000.c:
 * NMEA 2000 Fast Packets on every PGN of its ranges; isotp.c:
 * ISO-TP on every id, with and without an address byte, each message then
 * described as UDS by uds.c): any bytes give frames or a one-line error,
 * never a crash, an overread or a leak. The same bytes streamed from a file
 * (rtcosim_can_log_scan: an MDF log's groups merged by time as they are
 * read) give the same frames in the same order, or fail too (after the
 * frames before the fault); and candump's fast line reader gives what the
 * general one gives (RTCOSIM_CAN_LOG_GENERAL=1), frame for frame, or both
 * fail. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rtcosim/can_log.h"
#include "rtcosim/isotp.h"
#include "rtcosim/j1939.h"

static void isotp_all(const rtcosim_can_log *log, bool address_byte)
{
    const rtcosim_isotp_ids every[] = {{0, 0x7FF, false, address_byte},
                                       {0, 0x1FFFFFFFu, true, address_byte}};
    rtcosim_isotp tp;
    rtcosim_error err;
    if (rtcosim_isotp_reassemble(log, every, 2, &tp, &err) != RTCOSIM_OK)
        return;
    char what[64];
    for (size_t k = 0; k < tp.count; k++)
        rtcosim_uds_describe(tp.messages[k].data, tp.messages[k].size, what, sizeof what);
    rtcosim_isotp_free(&tp);
}

static void fast_packets_all(const rtcosim_can_log *log)
{
    static uint32_t pgns[0x1FFFF - 0x1ED00 + 1];
    for (uint32_t p = 0x1ED00; p <= 0x1FFFF; p++)
        pgns[p - 0x1ED00] = p;
    rtcosim_j1939_tp fp;
    rtcosim_error err;
    if (rtcosim_nmea2000_reassemble(log, pgns, sizeof pgns / sizeof *pgns, &fp, &err) ==
        RTCOSIM_OK)
        rtcosim_j1939_tp_free(&fp);
}

/* The frames a scan gives, checked one by one against the log read whole. */
typedef struct compare {
    const rtcosim_can_log *whole;
    size_t next;
} compare;

static rtcosim_status same_frame(void *context, const rtcosim_can_log *log,
                                 const rtcosim_can_log_record *r, rtcosim_error *err)
{
    (void)err;
    compare *c = context;
    if (!c->whole)
        return RTCOSIM_OK; /* (it fails whole: a stream gives what comes before the fault) */
    if (c->next >= rtcosim_can_log_count(c->whole))
        __builtin_trap(); /* more frames streamed than read whole */
    const rtcosim_can_log_record *w = &rtcosim_can_log_records(c->whole)[c->next++];
    const char *a = rtcosim_can_log_bus_name(log, r->bus), *b =
        rtcosim_can_log_bus_name(c->whole, w->bus);
    if (r->time != w->time || r->id != w->id || r->extended != w->extended ||
        r->remote != w->remote || r->size != w->size || r->line != w->line ||
        r->format != w->format || r->flags != w->flags || memcmp(r->data, w->data, r->size) ||
        !a || !b || strcmp(a, b))
        __builtin_trap(); /* streamed otherwise than read whole */
    return RTCOSIM_OK;
}

/* The same records (buses by name) in two logs read whole. */
static void same_logs(const rtcosim_can_log *a, const rtcosim_can_log *b)
{
    if (rtcosim_can_log_count(a) != rtcosim_can_log_count(b))
        __builtin_trap();
    compare c = {b, 0};
    for (size_t i = 0; i < rtcosim_can_log_count(a); i++)
        same_frame(&c, a, &rtcosim_can_log_records(a)[i], NULL);
}

/* Stream the bytes from a file (a memfd's /proc path) and compare. */
static void scan_compare(const uint8_t *data, size_t size, const rtcosim_can_log *whole)
{
    int fd = memfd_create("fuzz_can_log", 0);
    if (fd < 0)
        return;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        compare c = {whole, 0};
        rtcosim_can_log *log = NULL;
        rtcosim_error err;
        rtcosim_status st = rtcosim_can_log_scan(path, same_frame, &c, &log, &err);
        if ((st == RTCOSIM_OK) != (whole != NULL) ||
            (whole && c.next != rtcosim_can_log_count(whole)))
            __builtin_trap(); /* one way read, the other not, or frames missing */
        rtcosim_can_log_free(log);
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    rtcosim_status parsed = rtcosim_can_log_parse((const char *)data, size, "fuzz.log", &log, &err);
    scan_compare(data, size, parsed == RTCOSIM_OK ? log : NULL);
    setenv("RTCOSIM_CAN_LOG_GENERAL", "1", 1);
    rtcosim_can_log *general = NULL;
    rtcosim_status st = rtcosim_can_log_parse((const char *)data, size, "fuzz.log", &general, &err);
    unsetenv("RTCOSIM_CAN_LOG_GENERAL");
    if ((st == RTCOSIM_OK) != (parsed == RTCOSIM_OK))
        __builtin_trap(); /* the fast reader took a line the general one refuses, or back */
    if (general)
        same_logs(log, general);
    rtcosim_can_log_free(general);
    if (parsed == RTCOSIM_OK) {
        rtcosim_j1939_tp tp;
        if (rtcosim_j1939_tp_reassemble(log, &tp, &err) == RTCOSIM_OK)
            rtcosim_j1939_tp_free(&tp);
        fast_packets_all(log);
        isotp_all(log, false);
        isotp_all(log, true);
        rtcosim_can_log_free(log);
    }
    return 0;
}
