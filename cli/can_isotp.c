/* `rtcosim can isotp LOG [--ids SPEC] [--addressing normal|extended]
 * [--relative-time]`: the ISO-TP messages of a CAN log (UDS, OBD) reassembled,
 * one line each with the service in words; and the id list both it and
 * `can decode --isotp` take. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "can_transport.h"
#include "cli.h"
#include "signals.h"
#include "rtcosim/can_log.h"
#include "rtcosim/isotp.h"
#include "rtcosim/results.h"

/* One id: hex with 0x or decimal, 'x' after it for a 29-bit id (else 29-bit
 * when over 0x7FF). Returns the end, NULL when it is no id. */
static const char *parse_id(const char *s, uint32_t *id, int *extended)
{
    char *end;
    if (*s < '0' || *s > '9')
        return NULL;
    unsigned long v = strtoul(s, &end, 0);
    if (end == s || v > 0x1FFFFFFFul)
        return NULL;
    *id = (uint32_t)v;
    if (*end == 'x' || *end == 'X') {
        *extended = 1;
        end++;
    } else {
        *extended = v > 0x7FF;
    }
    return end;
}

int cli_isotp_ids_parse(const char *option, const char *spec, bool address_byte,
                        rtcosim_isotp_ids **ids, size_t *count)
{
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        rtcosim_isotp_ids add[4];
        size_t n = 0;
        if (len == 3 && strncmp(s, "obd", 3) == 0) {
            n = 4;
            memcpy(add, rtcosim_isotp_obd_ids, sizeof add);
        } else {
            uint32_t first, last;
            int ext_first, ext_last;
            const char *e = parse_id(s, &first, &ext_first);
            last = first;
            ext_last = ext_first;
            if (e && *e == '-')
                e = parse_id(e + 1, &last, &ext_last);
            if (!e || e != s + len)
                return cli_fail("%s: '%.*s' is no CAN id or range of ids (e.g. 0x7E8, "
                                "0x7E0-0x7EF, 0x18DAF110 or 0x123x for a 29-bit id, obd)",
                                option, (int)len, s);
            if (last < first || ext_first != ext_last)
                return cli_fail("%s: '%.*s': a range goes from a smaller to a larger id of one "
                                "kind (11-bit or 29-bit)", option, (int)len, s);
            if (!ext_first && last > 0x7FF)
                return cli_fail("%s: '%.*s': an 11-bit id is at most 0x7FF", option, (int)len, s);
            add[n++] = (rtcosim_isotp_ids){first, last, ext_first != 0, false};
        }
        rtcosim_isotp_ids *grown = realloc(*ids, (*count + n) * sizeof **ids);
        if (!grown)
            return cli_fail("out of memory");
        *ids = grown;
        for (size_t k = 0; k < n; k++) {
            add[k].address_byte = address_byte;
            (*ids)[(*count)++] = add[k];
        }
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

int cli_isotp_addressing(const char *value, bool *address_byte)
{
    if (strcmp(value, "normal") == 0 || strcmp(value, "extended") == 0) {
        *address_byte = strcmp(value, "extended") == 0;
        return 0;
    }
    return cli_fail("--isotp-addressing: '%s' is not normal or extended (extended: an address "
                    "byte before each frame's PCI, as extended and mixed addressing put it)",
                    value);
}

int cli_isotp_option(const char *command, const char *ids_option, int argc, char **argv, int *i,
                     const char **spec, bool *address_byte)
{
    const char *a = argv[*i];
    if (strcmp(a, ids_option) != 0 && strcmp(a, "--isotp-addressing") != 0)
        return 0;
    if (*i + 1 >= argc) {
        cli_fail("%s: option %s needs a value", command, a);
        return -1;
    }
    const char *v = argv[++*i];
    if (strcmp(a, ids_option) == 0) {
        *spec = v;
        return 1;
    }
    return cli_isotp_addressing(v, address_byte) ? -1 : 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim can isotp LOG [--ids SPEC] [--isotp-addressing normal|extended]\n"
            "                         [--relative-time] [-o F.csv]\n"
            "\n"
            "The ISO-TP (ISO 15765-2) messages of a CAN log (candump -l, Vector ASC, Vector\n"
            "BLF or an ASAM MDF 4 bus log), reassembled from Single, First and Consecutive\n"
            "Frames as a receiver takes them (classic CAN and CAN FD, messages over 4095\n"
            "bytes by the escape sequence), one line each on standard output:\n"
            "  (TIME) BUS ID [LENGTH] DESCRIPTION: PAYLOAD\n"
            "TIME the completing frame's (the log's own seconds, as candump -l), DESCRIPTION\n"
            "the UDS (ISO 14229) or OBD service in words (a response with the time from\n"
            "its request's last frame to its own first: the server's P2; a response is\n"
            "paired with its request by the ids, 0x7E8+k with 0x7E0+k or 0x7DF,\n"
            "0x18DAttss with 0x18DAsstt or 0x18DB33tt, else by service), PAYLOAD its\n"
            "bytes in hex. Flow\n"
            "Control frames are read over; transfers left incomplete and frames that fit\n"
            "none are counted on standard error.\n"
            "\n"
            "  --ids SPEC          the ids that carry ISO-TP: a comma list of ids (0x7E8, or\n"
            "                      decimal), ranges (0x7E0-0x7EF) and 'obd' (0x7DF,\n"
            "                      0x7E0-0x7EF, 0x18DA0000-0x18DBFFFF); an id over 0x7FF or\n"
            "                      with an 'x' after it (0x123x) is 29-bit; default obd\n"
            "  --isotp-addressing normal|extended\n"
            "                      extended: each frame starts with an address byte (the\n"
            "                      target address of extended addressing, the address\n"
            "                      extension of mixed addressing), shown after the id\n"
            "  --relative-time     times from the log's first frame\n"
            "  -o, --output F.csv  a CSV instead of the trace: time, bus, id, address, length,\n"
            "                      service (in words), p2_ms (a response's), data (hex)\n"
            "  --help              this text\n");
}

/* The requests not yet answered, so that a response finds its own and
 * tells how long the server took (P2: from the request's last frame to the
 * response's first). Paired by the addressing of ISO 15765-4 and ISO
 * 14229-2's normal fixed addressing: a response on 0x7E8 + k answers a
 * physical request on 0x7E0 + k (generally, an 11-bit response id answers a
 * request 8 below it, as OBD and most UDS id pairs go) or a functional one on
 * 0x7DF; a 29-bit response 0x18DA<tester><server> answers 0x18DA<server>
 * <tester> or a functional 0x18DB33<tester>; with extended addressing a
 * response's id ends in its request's address byte and its address byte is
 * the request id's last byte (0x6F1 [12] -> 0x612 [F1]). Only when no request of the
 * service came on a paired id is the bus's latest request of that service
 * taken (addressing schemes of their own, e.g. extended addressing). A
 * physical request is answered once (a Response Pending keeps it open), a
 * functional one by every server until the next of its service. */
#define OPEN_REQUESTS 64u

typedef struct request {
    uint32_t bus, id;
    bool extended, functional;
    uint8_t service;
    int address; /* the request's address byte (extended addressing), -1 none */
    rtcosim_time_ns ended;
} request;

typedef struct requests {
    request open[OPEN_REQUESTS];
    size_t count;
} requests;

static bool is_functional(uint32_t id, bool extended)
{
    return extended ? (id & 0xFFFF00u) == 0xDB3300u : id == 0x7DF;
}

static void request_open(requests *q, const rtcosim_isotp_message *m, uint8_t service,
                         rtcosim_time_ns ended)
{
    size_t k = 0;
    while (k < q->count && !(q->open[k].bus == m->bus && q->open[k].id == m->id &&
                             q->open[k].extended == m->extended &&
                             q->open[k].service == service && q->open[k].address == m->address))
        k++;
    if (k == q->count) {
        if (q->count == OPEN_REQUESTS) /* the oldest goes */
            memmove(q->open, q->open + 1, --q->count * sizeof *q->open);
        k = q->count++;
    }
    q->open[k] = (request){.bus = m->bus, .id = m->id, .extended = m->extended,
                           .functional = is_functional(m->id, m->extended), .service = service,
                           .address = m->address, .ended = ended};
}

/* Does request q pair with a response on id (extended; its address byte,
 * -1 none) by the addressing? */
static bool paired(const request *q, uint32_t id, bool extended, int address)
{
    if (q->extended != extended)
        return false;
    if (q->address >= 0 && address >= 0) /* extended addressing: each names the other */
        return (int)(id & 0xFF) == q->address && address == (int)(q->id & 0xFF);
    if (!extended)
        return q->functional ? id >= 0x7E8 && id <= 0x7EF : q->id + 8 == id;
    uint32_t tester = id >> 8 & 0xFF, server = id & 0xFF;
    if ((id & 0xFF0000u) != 0xDA0000u)
        return false;
    return q->functional ? (q->id & 0xFF) == tester
                         : (q->id & 0xFFFFFFu) == (0xDA0000u | server << 8 | tester);
}

/* The request a response (first frame at `start`) answers, or NULL. */
static request *request_of(requests *q, const rtcosim_isotp_message *m, uint8_t service,
                           rtcosim_time_ns start)
{
    request *by_id = NULL, *by_service = NULL;
    for (size_t k = 0; k < q->count; k++) {
        request *c = &q->open[k];
        if (c->bus != m->bus || c->service != service || c->ended > start)
            continue;
        if (paired(c, m->id, m->extended, m->address) && (!by_id || c->ended > by_id->ended))
            by_id = c;
        if (!by_service || c->ended > by_service->ended)
            by_service = c;
    }
    if (by_id)
        return by_id;
    /* (no paired request: an addressing of its own, taken by service, unless
     * the response's id follows the pairing, whose request is then missing) */
    bool conventional = m->address < 0 && (m->extended ? (m->id & 0xFF0000u) == 0xDA0000u
                                                       : m->id >= 0x7E8 && m->id <= 0x7EF);
    return conventional ? NULL : by_service;
}

static void request_close(requests *q, request *r)
{
    size_t k = (size_t)(r - q->open);
    memmove(q->open + k, q->open + k + 1, (q->count - k - 1) * sizeof *q->open);
    q->count--;
}

/* One message: a trace line, or (csv) a row of time, bus, id, address,
 * length, service, the response's P2 in ms, the payload in hex. */
static void print_message(const rtcosim_can_log *log, const rtcosim_isotp_message *m,
                          rtcosim_time_ns origin, requests *pending, bool csv, FILE *out)
{
    char time[RTCOSIM_FORMAT_MAX], what[160], p2[32] = "";
    rtcosim_format_time(m->time - origin, time);
    uint8_t service;
    rtcosim_uds_kind kind = rtcosim_uds_classify(m->data, m->size, &service);
    if (kind == RTCOSIM_UDS_REQUEST) {
        request_open(pending, m, service, m->time);
    } else if (kind != RTCOSIM_UDS_UNKNOWN) {
        rtcosim_time_ns start = m->first_time;
        request *q = request_of(pending, m, service, start);
        if (q) {
            snprintf(p2, sizeof p2, "%.3f", (double)(start - q->ended) / 1e6);
            if (kind != RTCOSIM_UDS_PENDING && !q->functional) /* (answered) */
                request_close(pending, q);
        }
    }
    rtcosim_uds_describe(m->data, m->size, what, sizeof what);
    if (csv) {
        fprintf(out, "%s,", time);
        cli_put_csv_quoted(rtcosim_can_log_bus_name(log, m->bus), out);
        fprintf(out, ",0x%0*X,", m->extended ? 8 : 3, (unsigned)m->id);
        if (m->address >= 0)
            fprintf(out, "0x%02X", (unsigned)m->address);
        fprintf(out, ",%u,", (unsigned)m->size);
        cli_put_csv_quoted(what, out);
        fprintf(out, ",%s,", p2);
        for (uint32_t k = 0; k < m->size; k++)
            fprintf(out, "%02X", m->data[k]);
        fputc('\n', out);
        return;
    }
    fprintf(out, "(%s) %s %0*X", time, rtcosim_can_log_bus_name(log, m->bus),
            m->extended ? 8 : 3, (unsigned)m->id);
    if (m->address >= 0)
        fprintf(out, " %02X", (unsigned)m->address);
    fprintf(out, " [%u] %s%s%s%s:", (unsigned)m->size, what, *p2 ? ", " : "", p2,
            *p2 ? " ms after the request" : "");
    for (uint32_t k = 0; k < m->size; k++)
        fprintf(out, " %02X", m->data[k]);
    fputc('\n', out);
}

/* A log read a frame at a time into the reassembler. */
typedef struct reading {
    rtcosim_isotp_stream *stream;
    bool any;
    rtcosim_time_ns first_time;
} reading;

static rtcosim_status feed(void *context, const rtcosim_can_log *log,
                           const rtcosim_can_log_record *r, rtcosim_error *err)
{
    reading *rd = context;
    if (!rd->any) {
        rd->any = true;
        rd->first_time = r->time;
    }
    if (!rtcosim_isotp_add(rd->stream, r, rtcosim_can_log_count(log) - 1))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reassembling ISO-TP "
                                 "transfers");
    return RTCOSIM_OK;
}

int cli_isotp_args_parse(const char *command, const char *ids_option, bool takes_output,
                         int argc, char **argv, void (*usage)(FILE *), cli_isotp_args *out)
{
    *out = (cli_isotp_args){0};
    bool address_byte = false;
    int rc = 0, taken;
    for (int i = 2; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--relative-time") == 0) {
            out->relative = true;
        } else if (takes_output && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            if (i + 1 >= argc)
                rc = cli_fail("%s: option %s needs a value", command, a);
            else
                out->output = argv[++i];
        } else if ((taken = cli_isotp_option(command, ids_option, argc, argv, &i, &out->spec,
                                             &address_byte)) != 0) {
            rc = taken < 0;
        } else if (a[0] == '-' && a[1]) {
            rc = cli_unknown_option(command, a, usage);
        } else {
            rc = cli_positional(command, "log", &out->log_path, argv, i);
        }
    }
    if (rc == 0 && !out->log_path)
        rc = cli_fail("%s: give a LOG (usage: rtcosim %s LOG [%s SPEC])", command, command,
                      ids_option);
    if (rc == 0)
        rc = cli_isotp_ids_parse(ids_option, out->spec ? out->spec : "obd", address_byte,
                                 &out->ids, &out->id_count);
    return rc;
}

int cli_can_isotp(int argc, char **argv)
{
    cli_isotp_args args;
    int rc = cli_isotp_args_parse("can isotp", "--ids", true, argc, argv, usage, &args);
    if (rc < 0)
        return 0;
    const char *log_path = args.log_path, *spec = args.spec, *output = args.output;
    bool relative = args.relative;
    rtcosim_isotp_ids *ids = args.ids;
    size_t id_count = args.id_count;
    rtcosim_can_log *log = NULL;
    /* the log streams: its frames into the reassembler, which keeps the
     * messages only */
    rtcosim_error err;
    rtcosim_isotp tp = {0};
    reading rd = {0};
    if (rc == 0 && !(rd.stream = rtcosim_isotp_begin(ids, id_count, &tp)))
        rc = cli_fail("out of memory");
    /* Ctrl-C (or SIGTERM) stops the reading at the next frame: the messages
     * completed so far are listed */
    int signo = 0;
    if (rc == 0 &&
        cli_can_log_scan_stoppable(log_path, feed, &rd, &log, &signo, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    rtcosim_isotp_end(rd.stream);
    if (rc == 0) {
        rtcosim_time_ns origin = relative ? rd.first_time : 0;
        requests *pending = calloc(1, sizeof *pending);
        if (!pending)
            rc = cli_fail("out of memory");
        FILE *out = output ? fopen(output, "w") : stdout;
        if (rc == 0 && !out)
            rc = cli_fail("%s: cannot write the CSV file", output);
        if (rc == 0 && output)
            fputs("\"time\",\"bus\",\"id\",\"address\",\"length\",\"service\",\"p2_ms\","
                  "\"data\"\n", out);
        for (size_t k = 0; rc == 0 && k < tp.count; k++)
            print_message(log, &tp.messages[k], origin, pending, output != NULL, out);
        free(pending);
        if (out && out != stdout && fclose(out) != 0 && rc == 0)
            rc = cli_fail("%s: writing the CSV file failed", output);
        else if (rc == 0 && out == stdout && fflush(stdout) != 0)
            rc = cli_fail("writing standard output failed");
    }
    if (rc == 0 && signo) {
        fprintf(stderr, "rtcosim: can isotp: ended by %s after %zu frames of %s: the %zu "
                "messages completed so far %s\n", cli_signal_name(signo), tp.frames, log_path,
                tp.count, output ? "are in the CSV file" : "are listed");
        rc = cli_signal_exit_code(signo);
    }
    if (rc == 0) {
        fprintf(stderr, "rtcosim: %s: %zu ISO-TP messages from %zu frames on %s (%zu flow "
                "control, %zu transfers not completed, %zu frames fitting none)\n",
                log_path, tp.count, tp.frames, spec ? spec : "the OBD ids", tp.flow_control,
                tp.incomplete, tp.invalid);
        if (!tp.frames)
            fprintf(stderr, "rtcosim: %s: no frame has one of those ids; name the ones that "
                    "carry ISO-TP with --ids (e.g. --ids 0x7E0-0x7EF,0x7BB)\n", log_path);
    }
    rtcosim_isotp_free(&tp);
    rtcosim_can_log_free(log);
    free(ids);
    return rc;
}
