/* `rtcosim can decode LOG --dbc FILE [-o CSV] [--signal S]... [--plot F]`:
 * the signals of a candump -l, Vector ASC, Vector BLF or ASAM MDF 4 log decoded through a DBC
 * database, one CSV row per decoded frame with every signal's latest value
 * in columns bus.MESSAGE.SIGNAL, optionally plotted: the options and the
 * first pass (the messages the log holds, the columns); the second pass, the
 * rows and their outputs, in can_decode_write.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "can_decode.h"
#include "can_transport.h"
#include "signals.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim can decode LOG [--dbc FILE] [-o CSV] [--signal NAME]... [--plot F.svg]\n"
            "                          [--values text|raw] [--relative-time] [--j1939]\n"
            "                          [--isotp SPEC [--isotp-addressing normal|extended]]\n"
            "       rtcosim can convert IN OUT [--bus NAME] [--bitrate B] [--fd-bitrate B]\n"
            "       rtcosim can isotp LOG [--ids SPEC] (UDS/OBD messages: rtcosim can isotp --help)\n"
            "       rtcosim can dtc LOG (J1939 DM1/DM2, OBD and UDS trouble codes: can dtc --help)\n"
            "\n"
            "convert: a log from one format to another (IN read by its content, OUT written\n"
            "by its name: .blf Vector BLF, .asc Vector ASC, .mf4 ASAM MDF 4 bus log, .trc\n"
            "PEAK TRC 2.1, else candump -l), one bus (the log's only one, or --bus); frame\n"
            "durations for ASC and BLF from the frames' bits at --bitrate (default 500000)\n"
            "and --fd-bitrate (default 2000000); times kept.\n"
            "\n"
            "Decode the frames of a CAN log (candump -l, Vector ASC, Vector BLF, PEAK TRC or\n"
            "an ASAM MDF 4 bus log) with a DBC database.\n"
            "Writes CSV: column \"time\" (s), then one column bus.MESSAGE.SIGNAL per signal of\n"
            "each DBC message seen on each bus; one row per decoded frame, each cell the\n"
            "signal's latest value (empty before its first frame; multiplexed signals when\n"
            "present). Frames whose id the DBC does not define are counted, not decoded;\n"
            "signals in bytes a frame lacks (shorter than its DBC message) are empty cells,\n"
            "with one warning per message. Ctrl-C (or SIGTERM) while the rows are written\n"
            "stops at the next frame, the output then holding the rows so far (exit status\n"
            "130). Names are quoted as RFC 4180 says. Values are the\n"
            "decimals raw * factor + offset is (factor 0.1, raw 96: 9.6), at the resolution of\n"
            "the DBC's factor and offset, in their shortest form.\n"
            "\n"
            "  --dbc FILE         the CAN database: a DBC, or an AUTOSAR 4 ARXML (.arxml);\n"
            "                     without it, the DBC an MDF bus log carries (attached, as\n"
            "                     CANoe and asammdf attach it)\n"
            "  -o, --output FILE  write the signals here: .csv, or .mat (complete rows, Dymola\n"
            "                     layout) or .mf4 (complete rows, ASAM MDF 4.10; a log of\n"
            "                     wall-clock times starts it at its first frame); default:\n"
            "                     CSV on standard output unless --plot\n"
            "  --signal NAME      only this column: bus.MESSAGE.SIGNAL, MESSAGE.SIGNAL or SIGNAL\n"
            "                     (repeatable); rows then only for frames carrying one of them\n"
            "  --plot F.svg|.png|.pdf  plot the (selected) signals over time, from the first frame\n"
            "                     at which every plotted signal has a value\n"            "  --values text|raw  signals with a VAL_ table: their text for the raw values it\n"
            "                     lists (as cantools' decode_choices; default), or the number\n"
            "                     (raw: always; MAT files and plots always hold numbers)\n"
            "  --relative-time    times from the log's first frame (as candump -t z) instead\n"
            "                     of the log's own (candump -l: seconds since 1970)\n"
            "  --j1939            every extended message of the database is an SAE J1939\n"
            "                     parameter group (else those its VFrameFormat J1939PG or a\n"
            "                     ProtocolType J1939 database makes one): matched by PGN,\n"
            "                     whatever the priority and source address; messages over 8\n"
            "                     bytes reassembled from transport sessions (BAM, RTS/CTS)\n"
            "                     and, in NMEA 2000's ranges (PGN 0x1ED00-0x1FFFF),\n"
            "                     from Fast Packets\n"
            "  --isotp SPEC       frames of these ids carry ISO-TP (ISO 15765-2: UDS, OBD):\n"
            "                     each message reassembled from its Single, First and\n"
            "                     Consecutive Frames is decoded whole by the DBC message of\n"
            "                     its id, laid out as one frame would carry it (byte 0 the\n"
            "                     length's low byte, the service id at byte 1, as the OBD\n"
            "                     and UDS databases expect); SPEC: ids (0x7E8), ranges\n"
            "                     (0x7E0-0x7EF), 'obd', comma-separated; an id over 0x7FF\n"
            "                     or with an 'x' after it is 29-bit\n"
            "  --isotp-addressing normal|extended\n"
            "                     extended: an address byte before each frame's PCI (extended\n"
            "                     or mixed addressing); it leads the decoded layout\n"
            "  --help             this text\n");
}



static void decoder_free(decoder *d)
{
    for (size_t c = 0; d->names && c < d->columns; c++)
        free(d->names[c]);
    free(d->names);
    free(d->units);
    free(d->selected);
    for (size_t b = 0; d->blocks && b < d->block_count; b++)
        free(d->blocks[b].part_first);
    free(d->blocks);
    key_index_free(&d->by_message);
    free(d->block_of);
    can_transport_free(&d->tr);
}


static size_t dot_count(const char *name)
{
    size_t n = 0;
    for (; *name; name++)
        n += *name == '.';
    return n;
}

/* The last dots + 1 dot-separated parts of name (all of it when fewer). */
static const char *name_tail(const char *name, size_t dots)
{
    for (size_t k = strlen(name); k > 0; k--)
        if (name[k - 1] == '.' && dots-- == 0)
            return name + k;
    return name;
}

/* A block's columns: its message's signals, or a container's contained
 * PDUs' signals one PDU after the other (by header id), each PDU's first
 * column noted in part_first; 0 out of memory. */
static size_t block_width(const rtcosim_dbc *dbc, block *bl)
{
    const rtcosim_dbc_message *m = bl->message;
    if (!m->header_bytes)
        return m->signal_count;
    size_t n = rtcosim_dbc_contained_count(dbc, m), width = 0;
    if (!(bl->part_first = calloc(n + 1, sizeof *bl->part_first)))
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        bl->part_first[i] = width;
        width += rtcosim_dbc_contained_at(dbc, m, i)->signal_count;
    }
    return width;
}


/* The block of record i (r) in the log: its (bus, message) block, added at
 * its first frame (*out SIZE_MAX: not decoded); 0, or 1 after saying why. */
static int classify(decoder *d, const rtcosim_can_log_record *r, size_t i, size_t *out)
{
    can_message_view v;
    int whole = can_transport_at(&d->tr, r, i, &v);
    *out = SIZE_MAX;
    if (!d->have_first) {
        d->have_first = true;
        d->first_time = r->time;
    }
    if (whole < 0)
        return 0; /* a transfer's frame: counted with them */
    const rtcosim_dbc_message *m = rtcosim_dbc_find_frame(d->dbc, v.id, v.extended);
    if (!m && can_transport_j1939_frame(&d->tr, r))
        return 0; /* a transport session's frame: counted with the sessions */
    if (!m || r->remote) {
        d->unknown += !m;
        return 0;
    }
    size_t b = key_index_find(&d->by_message, can_decode_block_key(r->bus, m));
    if (b == SIZE_MAX) {
        b = d->block_count;
        if (b == d->block_cap) {
            size_t cap = d->block_cap ? 2 * d->block_cap : 16;
            block *grown = realloc(d->blocks, cap * sizeof *grown);
            if (!grown)
                return cli_fail("out of memory");
            d->blocks = grown;
            d->block_cap = cap;
        }
        if (!key_index_add(&d->by_message, can_decode_block_key(r->bus, m), b))
            return cli_fail("out of memory");
        block *bl = &d->blocks[d->block_count++];
        *bl = (block){.bus = r->bus, .message = m, .first = d->columns};
        size_t width = block_width(d->dbc, bl);
        if (width == SIZE_MAX)
            return cli_fail("out of memory");
        d->columns += width;
    }
    *out = b;
    return 0;
}

static rtcosim_status classify_frame(void *context, const rtcosim_can_log *log,
                                     const rtcosim_can_log_record *r, rtcosim_error *err)
{
    decoder *d = context;
    size_t b;
    (void)err;
    size_t i = rtcosim_can_log_count(log) - 1;
    if (can_decode_stop_asked(d))
        return (d->rc = 1), RTCOSIM_ECANCELED;
    if ((d->rc = can_transport_add(&d->tr, r, i)) != 0 || (d->rc = classify(d, r, i, &b)) != 0)
        return RTCOSIM_ECANCELED;
    return RTCOSIM_OK;
}

/* Blocks in order of first appearance (a pass over the log), column names,
 * the selection. */
static int decoder_init(decoder *d, const char *const *signals, size_t signal_count)
{
    if (can_transport_begin(&d->tr, d->dbc))
        return 1;
    if (d->streaming) {
        rtcosim_can_log *meta = NULL;
        rtcosim_error err;
        rtcosim_status st = rtcosim_can_log_scan(d->log_path, classify_frame, d, &meta, &err);
        if (st != RTCOSIM_OK) {
            rtcosim_can_log_free(meta);
            return d->rc ? d->rc : cli_fail_error(&err);
        }
        d->log = meta; /* (its buses, counts and source; freed by the caller) */
    } else {
        size_t n = rtcosim_can_log_count(d->log);
        const rtcosim_can_log_record *recs = rtcosim_can_log_records(d->log);
        if (!(d->block_of = calloc(n + 1, sizeof *d->block_of)))
            return cli_fail("out of memory");
        for (size_t i = 0; i < n; i++)
            if (can_decode_stop_asked(d) || can_transport_add(&d->tr, &recs[i], i) ||
                classify(d, &recs[i], i, &d->block_of[i]))
                return 1;
    }
    can_transport_end(&d->tr); /* (the sessions still open: incomplete) */
    if (d->relative && d->have_first)
        d->time_origin = d->first_time;
    d->names = calloc(d->columns + 1, sizeof *d->names);
    d->selected = calloc(d->columns + 1, sizeof *d->selected);
    d->units = calloc(d->columns + 1, sizeof *d->units);
    if (!d->names || !d->selected || !d->units)
        return cli_fail("out of memory");
    for (size_t b = 0; b < d->block_count; b++) {
        const rtcosim_dbc_message *c = d->blocks[b].message;
        size_t parts = c->header_bytes ? rtcosim_dbc_contained_count(d->dbc, c) : 1, col = 0;
        for (size_t p = 0; p < parts; p++) {
            const rtcosim_dbc_message *m = c->header_bytes ? rtcosim_dbc_contained_at(d->dbc, c, p)
                                                           : c;
            for (size_t k = 0; k < m->signal_count; k++, col++) {
                const char *bus = rtcosim_can_log_bus_name(d->log, d->blocks[b].bus);
                size_t len = strlen(bus) + strlen(m->name) + strlen(m->signals[k].name) + 3;
                char *name = malloc(len);
                if (!name)
                    return cli_fail("out of memory");
                snprintf(name, len, "%s.%s.%s", bus, m->name, m->signals[k].name);
                d->names[d->blocks[b].first + col] = name;
                d->units[d->blocks[b].first + col] = m->signals[k].unit;
                d->selected[d->blocks[b].first + col] = signal_count == 0;
            }
        }
    }
    for (size_t s = 0; s < signal_count; s++) {
        bool found = false;
        size_t want = strlen(signals[s]);
        for (size_t c = 0; c < d->columns; c++) {
            size_t len = strlen(d->names[c]);
            /* The whole name or a tail after a '.'. */
            if (len >= want && strcmp(d->names[c] + len - want, signals[s]) == 0 &&
                (len == want || d->names[c][len - want - 1] == '.'))
                found = d->selected[c] = true;
        }
        if (!found) {
            /* "Did you mean": the column whose tail of as many parts as the
             * typed name (SIGNAL, MESSAGE.SIGNAL, bus.MESSAGE.SIGNAL) is nearest. */
            const char *near = NULL;
            size_t best = (size_t)-1;
            for (size_t c = 0; c < d->columns; c++) {
                const char *tail = name_tail(d->names[c], dot_count(signals[s]));
                size_t dist = cli_edit_distance(signals[s], tail);
                if (dist < best && cli_is_close(signals[s], tail, dist)) {
                    best = dist;
                    near = tail;
                }
            }
            if (near)
                return cli_fail("can decode: no signal '%s' among the decoded messages of %s; did "
                                "you mean '%s'?",
                                signals[s], rtcosim_can_log_bus_count(d->log) ? "the log" : "an empty log",
                                near);
            return cli_fail("can decode: no signal '%s' among the decoded messages of %s",
                            signals[s], rtcosim_can_log_bus_count(d->log) ? "the log" : "an empty log");
        }
    }
    return 0;
}

static int run_can(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    if (strcmp(argv[1], "convert") == 0)
        return cli_can_convert(argc, argv);
    if (strcmp(argv[1], "isotp") == 0)
        return cli_can_isotp(argc, argv);
    if (strcmp(argv[1], "dtc") == 0)
        return cli_can_dtc(argc, argv);
    if (strcmp(argv[1], "decode") != 0)
        return cli_fail("can: unknown subcommand '%s' (see rtcosim can --help)", argv[1]);
    const char *log_path = NULL, *dbc_path = NULL, *out = NULL, *plot_path = NULL;
    const char **signals = calloc((size_t)argc, sizeof *signals);
    size_t signal_count = 0;
    bool value_text = true, relative_time = false, j1939 = false, iso_address = false;
    const char *iso_spec = NULL;
    if (!signals)
        return cli_fail("out of memory");
    int rc = 0, taken;
    for (int i = 2; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(signals);
            return 0;
        } else if (strcmp(a, "--relative-time") == 0) {
            relative_time = true;
        } else if (strcmp(a, "--j1939") == 0) {
            j1939 = true;
        } else if ((taken = cli_isotp_option("can decode", "--isotp", argc, argv, &i, &iso_spec,
                                             &iso_address)) != 0) {
            rc = taken < 0;
        } else if (strcmp(a, "--dbc") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                   strcmp(a, "--signal") == 0 || strcmp(a, "--plot") == 0 ||
                   strcmp(a, "--values") == 0) {
            if (i + 1 >= argc)
                rc = cli_fail("can decode: option %s needs a value", a);
            else if (strcmp(a, "--values") == 0) {
                const char *v = argv[++i];
                if (strcmp(v, "text") == 0 || strcmp(v, "raw") == 0)
                    value_text = strcmp(v, "text") == 0;
                else
                    rc = cli_fail("can decode: --values: '%s' is not text or raw", v);
            } else if (strcmp(a, "--dbc") == 0)
                dbc_path = argv[++i];
            else if (strcmp(a, "--signal") == 0)
                signals[signal_count++] = argv[++i];
            else if (strcmp(a, "--plot") == 0)
                plot_path = argv[++i];
            else
                out = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            rc = cli_unknown_option("can", a, usage);
        } else {
            rc = cli_positional("can decode", "log", &log_path, argv, i);
        }
    }
    /* (without --dbc only an MDF bus log, which may carry its database) */
    size_t path_len = log_path ? strlen(log_path) : 0;
    if (rc == 0 && (!log_path || (!dbc_path && (path_len < 4 ||
                                                strcasecmp(log_path + path_len - 4, ".mf4")))))
        rc = cli_fail("can decode: give a LOG and --dbc FILE (usage: rtcosim can decode LOG "
                      "--dbc FILE [-o CSV]; an .mf4 bus log may carry its own)");
    /* (the log is read again while the output is written) */
    if (rc == 0 && out && cli_same_file(log_path, out))
        rc = cli_fail("can decode: %s is both the LOG and the output (give another name for -o)",
                      log_path);
    rtcosim_isotp_ids *iso_ids = NULL;
    size_t iso_id_count = 0;
    if (rc == 0 && iso_spec)
        rc = cli_isotp_ids_parse("--isotp", iso_spec, iso_address, &iso_ids, &iso_id_count);
    else if (rc == 0 && iso_address)
        rc = cli_fail("can decode: --isotp-addressing applies to --isotp ids: give them (e.g. "
                      "--isotp 0x6F1,0x600-0x6FF)");
    rtcosim_error err;
    rtcosim_dbc *dbc = NULL;
    rtcosim_can_log *log = NULL;
    decoder d = {.tr = {.iso_ids = iso_ids, .iso_id_count = iso_id_count}};
    char attached[512] = "";
    /* (the database first, as before: its errors come before the log's) */
    if (rc == 0 && dbc_path && rtcosim_dbc_load(dbc_path, &dbc, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    /* The log streams: read once per pass (columns, then rows), never held,
     * so that a log of gigabytes takes the memory of a short one; transport
     * sessions, Fast Packets and ISO-TP transfers are reassembled in the
     * first pass (their messages kept, not their frames). The database an
     * MDF log brings is read first, alone; a log from a pipe, which cannot
     * be read twice, is read whole. */
    if (rc == 0 && dbc && j1939)
        rtcosim_dbc_set_j1939(dbc);
    d.streaming = rc == 0 && cli_rereadable(log_path); /* (a pipe: read once) */
    if (rc == 0 && !d.streaming && rtcosim_can_log_read(log_path, &log, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    char *db_text = NULL, *db_name = NULL;
    size_t db_size = 0;
    if (rc == 0 && !dbc_path && d.streaming && /* (its attachment alone) */
        rtcosim_can_log_read_database(log_path, &db_text, &db_size, &db_name, &err) !=
            RTCOSIM_OK)
        rc = cli_fail_error(&err);
    if (rc == 0 && !dbc_path) { /* the database the log carries (an MDF log's attachment) */
        size_t size = db_size;
        const char *name = db_name, *text = d.streaming ? db_text
                                                        : rtcosim_can_log_database(log, &size,
                                                                                   &name);
        if (!text)
            rc = cli_fail("can decode: %s carries no database: give --dbc FILE (usage: rtcosim "
                          "can decode LOG --dbc FILE [-o CSV])", log_path);
        else {
            snprintf(attached, sizeof attached, "%s (attached to %s)", name, log_path);
            dbc_path = attached;
            if (rtcosim_dbc_parse(text, size, attached, &dbc, &err) != RTCOSIM_OK)
                rc = cli_fail_error(&err);
        }
    }
    free(db_text);
    free(db_name);
    /* Ctrl-C (or SIGTERM) stops at the next frame: in the first pass nothing
     * is written; in the second the output holds the rows so far (a MAT or
     * MDF file converted from them) */
    cli_signals_install();
    if (rc == 0) {
        if (j1939 && attached[0]) /* (the log's own database, read since) */
            rtcosim_dbc_set_j1939(dbc);
        d.log = log;
        d.dbc = dbc;
        d.log_path = log_path;
        d.value_text = value_text;
        d.relative = relative_time;
        rc = decoder_init(&d, signals, signal_count);
        if (d.streaming)
            log = (rtcosim_can_log *)d.log; /* (what the scan said of the log) */
    }
    bool first_pass = d.interrupted;
    if (first_pass)
        rc = 0; /* (said below) */
    if (rc == 0 && !first_pass && (out || !plot_path))
        rc = can_decode_write(&d, out, false);
    if (rc == 0 && plot_path && !d.interrupted)
        rc = can_decode_plot(&d, plot_path, log_path);
    cli_signals_restore();
    if (d.interrupted) {
        int signo = atomic_load(&cli_stop_signal);
        if (first_pass || !(out || !plot_path))
            fprintf(stderr, "rtcosim: can decode: ended by %s while reading %s: nothing "
                    "written\n", cli_signal_name(signo), log_path);
        else if (rc == 0)
            fprintf(stderr, "rtcosim: can decode: ended by %s after %zu rows: %s holds them\n",
                    cli_signal_name(signo), d.rows_written, out ? out : "the output");
        rc = rc ? rc : cli_signal_exit_code(signo);
    }
    if (rc == 0 && log && rtcosim_can_log_count(log) == 0)
        fprintf(stderr, "rtcosim: warning: %s holds no frames\n", log_path);
    if (rc == 0 && d.unknown)
        fprintf(stderr, "rtcosim: %s: %llu frames with ids %s does not define were not decoded\n",
                log_path, (unsigned long long)d.unknown, dbc_path);
    if (rc == 0)
        can_transport_report(&d.tr, log_path);
    if (rc == 0 && d.unknown_parts)
        fprintf(stderr, "rtcosim: %s: %llu contained PDUs with header ids %s does not define were"
                " not decoded\n", log_path, (unsigned long long)d.unknown_parts, dbc_path);
    if (rc == 0 && log && rtcosim_can_log_xl_count(log))
        fprintf(stderr, "rtcosim: %s: %zu CAN XL frames were not decoded (a DBC describes "
                "classic and CAN FD frames)\n", log_path, rtcosim_can_log_xl_count(log));
    decoder_free(&d);
    rtcosim_can_log_free(log);
    rtcosim_dbc_free(dbc);
    free(iso_ids);
    free(signals);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_can = {
    "can", "decode a candump/ASC/BLF/MDF CAN log with a DBC (or ARXML) into CSV signals and plots; list its ISO-TP (UDS, OBD) messages and trouble codes; convert logs", run_can};
