/* `rtcosim can convert IN OUT [--bus NAME] [--bitrate B] [--fd-bitrate B]`:
 * a CAN log from one format to another (candump -l, Vector ASC, Vector BLF;
 * read by its content, written by OUT's name), through the readers and
 * writers of src/can. One bus is written: the log's only one, or --bus. The
 * formats that carry a frame's duration (ASC CAN FD lines, BLF) get it from
 * the frame's bits at the given bit rates (default 500 kbit/s, CAN FD data
 * phase 2 Mbit/s); times are kept as they are (end of frame). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/can_log.h"

static int parse_rate(const char *option, const char *text, uint32_t *out)
{
    char *end;
    unsigned long v = text ? strtoul(text, &end, 10) : 0;
    if (!text || !*text || *end || v < 1000 || v > 1000000000)
        return cli_fail("can convert: %s needs a bit rate of 1000 to 1000000000 bit/s, not '%s'",
                        option, text ? text : "");
    *out = (uint32_t)v;
    return 0;
}

int cli_can_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *bus = NULL;
    uint32_t rate = 500000, fd_rate = 2000000;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--bus") == 0) {
            if (!v)
                return cli_fail("can convert: --bus needs a bus name (e.g. can0)");
            bus = argv[++i];
        } else if (strcmp(a, "--bitrate") == 0 || strcmp(a, "--fd-bitrate") == 0) {
            if (parse_rate(a, v, strcmp(a, "--bitrate") == 0 ? &rate : &fd_rate))
                return CLI_EXIT_USAGE;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return cli_fail("can convert: unknown option '%s' (usage: rtcosim can convert IN OUT"
                            " [--bus NAME] [--bitrate B] [--fd-bitrate B])", a);
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            return cli_fail("can convert: more than two files given ('%s')", a);
        }
    }
    if (!in || !out)
        return cli_fail("can convert: give IN and OUT (usage: rtcosim can convert IN OUT [--bus"
                        " NAME])");
    if (fd_rate < rate)
        return cli_fail("can convert: --fd-bitrate %u is below --bitrate %u", fd_rate, rate);
    rtcosim_error err;
    rtcosim_can_log *log = NULL;
    if (rtcosim_can_log_read(in, &log, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    size_t buses = rtcosim_can_log_bus_count(log), b = 0;
    if (bus) {
        while (b < buses && strcmp(rtcosim_can_log_bus_name(log, b), bus) != 0)
            b++;
        if (b == buses) {
            rtcosim_can_log_free(log);
            return cli_fail("can convert: %s: no bus '%s' in it (it has %zu)", in, bus, buses);
        }
    } else if (buses > 1) {
        int rc = cli_fail("can convert: %s has frames of %zu buses (%s, %s%s): name one with --bus",
                          in, buses, rtcosim_can_log_bus_name(log, 0),
                          rtcosim_can_log_bus_name(log, 1), buses > 2 ? ", ..." : "");
        rtcosim_can_log_free(log);
        return rc;
    }
    size_t n = rtcosim_can_log_count(log), count = 0, remote = 0;
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    rtcosim_can_log_entry *e = calloc(n ? n : 1, sizeof *e);
    if (!e) {
        rtcosim_can_log_free(log);
        return cli_fail("can convert: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].bus != b)
            continue;
        if (r[i].remote) {
            remote++; /* a log entry carries no RTR bit */
            continue;
        }
        rtcosim_can_log_entry *x = &e[count++];
        x->end = r[i].time;
        x->start = r[i].time - rtcosim_can_log_record_duration(&r[i], rate, fd_rate);
        x->frame.id = r[i].id;
        x->frame.extended = r[i].extended;
        x->format = r[i].format;
        if (r[i].format == RTCOSIM_CAN_FORMAT_FD) {
            x->flags = r[i].flags;
            x->length = r[i].size;
            x->data = r[i].data;
        } else {
            x->frame.dlc = r[i].size;
            memcpy(x->frame.data, r[i].data, r[i].size);
        }
    }
    const char *name = buses ? rtcosim_can_log_bus_name(log, b) : "can0";
    rtcosim_can_log_format to = rtcosim_can_log_format_of(out);
    int rc = 0;
    if (rtcosim_can_log_write(e, count, name, to, out, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    else
        printf("converted %zu frames of %s from %s (%s) to %s (%s)\n", count, name, in,
               rtcosim_can_log_format_name(rtcosim_can_log_source(log)), out, rtcosim_can_log_format_name(to));
    if (rc == 0 && (remote || rtcosim_can_log_xl_count(log)))
        fprintf(stderr, "rtcosim: warning: %s: %zu remote frames and %zu CAN XL frames left out"
                " (not carried by the converter)\n", in, remote, rtcosim_can_log_xl_count(log));
    free(e);
    rtcosim_can_log_free(log);
    return rc;
}
