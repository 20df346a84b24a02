/* `rtcosim can convert IN OUT [--bus NAME] [--bitrate B] [--fd-bitrate B]`:
 * a CAN log from one format to another (candump -l, Vector ASC, Vector BLF,
 * PEAK TRC, ASAM MDF 4;
 * read by its content, written by OUT's name), through the readers and
 * writers of src/can. One bus is written: the log's only one, or --bus. The
 * formats that carry a frame's duration (ASC CAN FD lines, BLF) get it from
 * the frame's bits at the given bit rates (default 500 kbit/s, CAN FD data
 * phase 2 Mbit/s); times are kept as they are (end of frame). The frames
 * stream from the reader to the writer (convert below). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "signals.h"
#include "rtcosim/can_log.h"
#include "rtcosim/results.h"

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

/* A conversion streams: the frames go from the reader to the writer one at
 * a time, so a log of gigabytes costs no more memory than a short one. An
 * MDF file is told its frames' number and width first (a counting pass
 * over the input before the writing one). */
typedef struct convert {
    const char *in, *out, *bus; /* bus: --bus, or NULL */
    uint32_t rate, fd_rate;
    rtcosim_can_log_format to;
    bool counting;              /* the counting pass: frames[] and fd[] per bus */
    size_t frames[64];
    bool fd[64];
    rtcosim_can_log_layout layout;
    long chosen;                /* the bus written; -1 not seen yet */
    size_t checked;             /* buses compared with --bus so far */
    bool second;                /* a second bus appeared (no --bus): stopped */
    rtcosim_can_log_writer *w;  /* opened at the first frame written, or at the end */
    bool opened;                /* OUT was created */
    bool interrupted;           /* by SIGINT or SIGTERM (cli_stop_signal): stopped */
    size_t count, remote;
} convert;

static rtcosim_status open_writer(convert *c, const char *name, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_can_log_writer_open(c->out, c->to, name, &c->layout, &c->w, err);
    c->opened = st == RTCOSIM_OK;
    return st;
}

static rtcosim_status take(void *context, const rtcosim_can_log *log,
                           const rtcosim_can_log_record *r, rtcosim_error *err)
{
    convert *c = context;
    if (atomic_load_explicit(&cli_stop_signal, memory_order_relaxed)) {
        c->interrupted = true;
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "%s: interrupted", c->in);
    }
    if (c->counting) {
        c->frames[r->bus] += !r->remote;
        c->fd[r->bus] = c->fd[r->bus] || r->format == RTCOSIM_CAN_FORMAT_FD;
        return RTCOSIM_OK;
    }
    if (c->bus) {
        for (; c->checked < rtcosim_can_log_bus_count(log); c->checked++)
            if (strcmp(rtcosim_can_log_bus_name(log, c->checked), c->bus) == 0)
                c->chosen = (long)c->checked;
    } else if (c->chosen < 0) {
        c->chosen = (long)r->bus; /* the first frame's bus */
    } else if ((long)r->bus != c->chosen) {
        c->second = true;
        return RTCOSIM_ECANCELED;
    }
    if ((long)r->bus != c->chosen)
        return RTCOSIM_OK;
    if (r->remote) {
        c->remote++; /* a log entry carries no RTR bit */
        return RTCOSIM_OK;
    }
    rtcosim_status st;
    if (!c->w && (st = open_writer(c, rtcosim_can_log_bus_name(log, r->bus), err)) != RTCOSIM_OK)
        return st;
    rtcosim_can_log_entry x = {.end = r->time, .start = r->time, .format = r->format};
    if (c->to == RTCOSIM_CAN_LOG_ASC || c->to == RTCOSIM_CAN_LOG_BLF) /* (they record it) */
        x.start -= rtcosim_can_log_record_duration(r, c->rate, c->fd_rate);
    x.frame.id = r->id;
    x.frame.extended = r->extended;
    if (r->format == RTCOSIM_CAN_FORMAT_FD) {
        x.flags = r->flags;
        x.length = r->size;
        x.data = r->data;
    } else {
        x.frame.dlc = r->size;
        memcpy(x.frame.data, r->data, r->size);
    }
    c->count++;
    return rtcosim_can_log_writer_add(c->w, &x, err);
}

/* Every frame of IN to take(): streamed from the file, or (loaded: IN read
 * whole, from a pipe that cannot be read twice) from its records; *meta: what
 * the scan says of the log (loaded: NULL, the loaded log says it). */
static rtcosim_status each_frame(convert *c, const rtcosim_can_log *loaded,
                                 rtcosim_can_log **meta, rtcosim_error *err)
{
    if (!loaded)
        return rtcosim_can_log_scan(c->in, take, c, meta, err);
    *meta = NULL;
    const rtcosim_can_log_record *r = rtcosim_can_log_records(loaded);
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; st == RTCOSIM_OK && i < rtcosim_can_log_count(loaded); i++)
        st = take(c, loaded, &r[i], err);
    return st;
}

/* The buses' names for a message: "can0, can1, ..." (at most the first two). */
static void bus_list(const rtcosim_can_log *log, char *text, size_t size)
{
    size_t n = rtcosim_can_log_bus_count(log);
    snprintf(text, size, "%s, %s%s", n > 0 ? rtcosim_can_log_bus_name(log, 0) : "",
             n > 1 ? rtcosim_can_log_bus_name(log, 1) : "", n > 2 ? ", ..." : "");
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim can convert IN OUT [--bus NAME] [--bitrate B] [--fd-bitrate B]\n"
            "A CAN log from one format to another: IN read by its content (candump -l, Vector\n"
            "ASC or BLF, PEAK TRC, an ASAM MDF 4 bus log), OUT written by its name (.blf\n"
            "Vector BLF, .asc Vector ASC, .mf4 ASAM MDF 4 bus log, .trc PEAK TRC 2.1, else\n"
            "candump -l); one bus; times kept.\n"
            "A frame at a time: a log of any length in little memory. Ctrl-C (or SIGTERM)\n"
            "stops at the next frame, OUT then a complete log of the frames converted so far\n"
            "(exit status 130).\n"
            "  --bus NAME        the bus to convert when the log holds several (e.g. can1)\n"
            "  --bitrate B       bit rate for the frame durations ASC and BLF record (default\n"
            "                    500000)\n"
            "  --fd-bitrate B    CAN FD data phase bit rate for them (default 2000000)\n");
}

/* The conversion was stopped by a signal: what OUT holds. */
static int interrupted(const convert *c)
{
    int signo = atomic_load(&cli_stop_signal);
    if (c->opened)
        fprintf(stderr, "rtcosim: can convert: ended by %s after %zu frames: %s holds them (a "
                "complete %s)\n", cli_signal_name(signo), c->count, c->out,
                rtcosim_can_log_format_name(c->to));
    else
        fprintf(stderr, "rtcosim: can convert: ended by %s before a frame was written: %s not "
                "written\n", cli_signal_name(signo), c->out);
    return cli_signal_exit_code(signo);
}

int cli_can_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *bus = NULL;
    uint32_t rate = 500000, fd_rate = 2000000;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--bus") == 0) {
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
    if (cli_same_file(in, out)) /* (OUT is written while IN is read) */
        return cli_fail("can convert: %s is both IN and OUT (give another name for OUT)", in);
    convert c = {.in = in, .out = out, .bus = bus, .rate = rate, .fd_rate = fd_rate,
                 .to = rtcosim_can_log_format_of(out), .chosen = -1};
    rtcosim_error err;
    /* a pipe cannot be read twice: read whole once (a file streams) */
    rtcosim_can_log *loaded = NULL, *log = NULL;
    if (!cli_rereadable(in) && rtcosim_can_log_read(in, &loaded, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    int rc = 0;
    rtcosim_status st = RTCOSIM_OK;
    /* Ctrl-C (or SIGTERM) ends the conversion at the next frame with OUT a
     * complete log of the frames converted so far */
    cli_signals_install();
    if (c.to == RTCOSIM_CAN_LOG_MDF) { /* the frames' number and width first */
        c.counting = true;
        if (each_frame(&c, loaded, &log, &err) != RTCOSIM_OK) {
            cli_signals_restore();
            rtcosim_can_log_free(loaded);
            rtcosim_can_log_free(log);
            if (c.interrupted)
                return interrupted(&c);
            return cli_fail_error(&err);
        }
        c.counting = false;
        const rtcosim_can_log *said = log ? log : loaded;
        size_t buses = rtcosim_can_log_bus_count(said), b = 0;
        if (bus)
            while (b < buses && strcmp(rtcosim_can_log_bus_name(said, b), bus) != 0)
                b++;
        char names[160];
        bus_list(said, names, sizeof names);
        rtcosim_can_log_free(log);
        log = NULL;
        if (bus && b == buses)
            rc = cli_fail("can convert: %s: no bus '%s' in it (it has %zu)", in, bus, buses);
        else if (!bus && buses > 1)
            rc = cli_fail("can convert: %s has frames of %zu buses (%s): name one with --bus",
                          in, buses, names);
        c.layout = (rtcosim_can_log_layout){.frames = buses && b < buses ? c.frames[b] : 0,
                                            .fd = buses && b < buses && c.fd[b]};
    }
    if (rc == 0)
        st = each_frame(&c, loaded, &log, &err);
    cli_signals_restore();
    if (c.interrupted) {
        if (c.w) {
            rtcosim_can_log_writer_truncate(c.w);
            st = rtcosim_can_log_writer_close(c.w, &err);
            c.w = NULL;
            if (st != RTCOSIM_OK) {
                rtcosim_results_discard(out);
                rc = cli_fail_error(&err);
            }
        }
        rtcosim_can_log_free(log);
        rtcosim_can_log_free(loaded);
        return rc ? rc : interrupted(&c);
    }
    const rtcosim_can_log *said = log ? log : loaded;
    if (rc == 0 && st == RTCOSIM_OK && !c.w && !(bus && c.chosen < 0)) /* an empty log */
        st = open_writer(&c, bus ? bus : said && rtcosim_can_log_bus_count(said)
                                              ? rtcosim_can_log_bus_name(said, 0) : "can0", &err);
    if (rc == 0 && st == RTCOSIM_OK && c.w) {
        rtcosim_can_log_writer *w = c.w;
        c.w = NULL;
        st = rtcosim_can_log_writer_close(w, &err);
    }
    if (rc == 0 && (st != RTCOSIM_OK || (bus && c.chosen < 0))) {
        rtcosim_can_log_writer_abort(c.w);
        if (c.opened)
            rtcosim_results_discard(out); /* (nothing half-written is left) */
        if (c.second || (bus && c.chosen < 0 && st == RTCOSIM_OK)) {
            /* how many buses the log has: counted for the message */
            rtcosim_can_log_free(log);
            c.counting = true;
            log = NULL;
            if (each_frame(&c, loaded, &log, &err) != RTCOSIM_OK) {
                rc = cli_fail_error(&err);
            } else {
                said = log ? log : loaded;
                char names[160];
                bus_list(said, names, sizeof names);
                size_t buses = rtcosim_can_log_bus_count(said);
                rc = bus ? cli_fail("can convert: %s: no bus '%s' in it (it has %zu)", in, bus,
                                    buses)
                         : cli_fail("can convert: %s has frames of %zu buses (%s): name one "
                                    "with --bus", in, buses, names);
            }
        } else {
            rc = cli_fail_error(&err);
        }
    }
    if (rc == 0) {
        const char *name = bus ? bus
                           : c.chosen >= 0 ? rtcosim_can_log_bus_name(said, (size_t)c.chosen)
                           : rtcosim_can_log_bus_count(said) ? rtcosim_can_log_bus_name(said, 0)
                                                             : "can0";
        printf("converted %zu frames of %s from %s (%s) to %s (%s)\n", c.count, name, in,
               rtcosim_can_log_format_name(rtcosim_can_log_source(said)), out,
               rtcosim_can_log_format_name(c.to));
        if (c.remote || rtcosim_can_log_xl_count(said))
            fprintf(stderr, "rtcosim: warning: %s: %zu remote frames and %zu CAN XL frames left "
                    "out (not carried by the converter)\n", in, c.remote,
                    rtcosim_can_log_xl_count(said));
    }
    rtcosim_can_log_free(log);
    rtcosim_can_log_free(loaded);
    return rc;
}
