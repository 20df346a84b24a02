/* `rtcosim dcp-slave`: serve an FMU or a native model as a DCP 1.0 slave over
 * UDP/IPv4 and/or TCP/IPv4, one session after another, until interrupted; writes the
 * slave's DCPX so that any DCP master can configure it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "signals.h"
#include "rtcosim/dcp.h"
#include "rtcosim/fmu.h"
#include "rtcosim/native.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim dcp-slave FMU|rtcosim:MODEL [--udp HOST:PORT | --port PORT]\n"
            "                         [--tcp HOST:PORT] [--dcpx FILE] [--heartbeat SECONDS]\n"
            "                         [--mode nrt|srt]\n\n"
            "Serve the FMU (or native model) as a DCP 1.0 slave (non-real-time and soft\n"
            "real-time operating modes) over UDP/IPv4 and/or TCP/IPv4 (both on one event\n"
            "loop; UDP alone when --tcp is not given). Each master registration gets a\n"
            "fresh instance; sessions are served one after another. A master that started\n"
            "a heartbeat (sent INF_state) and then stays silent for longer than the\n"
            "heartbeat (default 2 s) is dropped and the slave is ALIVE again; one that\n"
            "never sent INF_state is not. STC_register must carry the uuid of the DCPX\n"
            "(--dcpx) or the nil uuid. Stops on SIGINT/SIGTERM.\n\n"
            "  --udp HOST:PORT   IPv4 address and port to listen on (default 127.0.0.1:0)\n"
            "  --port PORT       port on 127.0.0.1 (0: any free port, printed)\n"
            "  --tcp HOST:PORT   also listen for TCP/IPv4 masters there (PDUs framed by a\n"
            "                    4-byte little-endian length); --tcp alone: no UDP unless\n"
            "                    --udp/--port is given too\n"
            "  --dcpx FILE       write the slave's DCPX description there\n"
            "  --heartbeat S     seconds of master silence, once it sent INF_state, before\n"
            "                    the session is dropped (PROTOCOL_ERROR_HEARTBEAT_MISSED)\n"
            "  --input-wait S    NRT: how long a step whose input data were overtaken on\n"
            "                    the network waits for them before they count as lost\n"
            "                    (default 0.01)\n"
            "  --mode nrt|srt    srt (default): offer non-real-time and soft real-time;\n"
            "                    nrt: non-real-time only (SRT registrations are refused)\n");
}

static rtcosim_dcp_slave *running;

static void on_signal(int sig)
{
    (void)sig;
    if (running)
        rtcosim_dcp_slave_stop(running); /* atomic store and eventfd write: signal-safe */
}

static rtcosim_status make_component(void *context, rtcosim_component **out, rtcosim_error *err)
{
    const char *source = context;
    if (strncmp(source, "rtcosim:", 8) == 0)
        return rtcosim_native_create(source, out, err);
    return rtcosim_fmu_load(source, NULL, out, err);
}

static bool parse_port(const char *text, uint16_t *port);

/* "HOST:PORT" into host (64 bytes) and port. */
static bool parse_endpoint(const char *text, char *host, uint16_t *port)
{
    const char *colon = strrchr(text, ':');
    if (!colon || (size_t)(colon - text) >= 64 || !parse_port(colon + 1, port))
        return false;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    return true;
}

static bool parse_port(const char *text, uint16_t *port)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end || errno || v < 0 || v > 65535)
        return false;
    *port = (uint16_t)v;
    return true;
}

static int run(int argc, char **argv)
{
    const char *source = NULL, *dcpx = NULL;
    char host[64] = "127.0.0.1", tcp_host[64] = "";
    uint16_t port = 0, tcp_port = 0;
    bool udp_given = false, tcp_given = false;
    rtcosim_time_ns heartbeat = 0, input_wait = 0;
    bool nrt_only = false;
    rtcosim_error err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--udp") == 0 && i + 1 < argc) {
            if (!parse_endpoint(argv[++i], host, &port))
                return cli_fail("dcp-slave: --udp wants HOST:PORT, got '%s'", argv[i]);
            udp_given = true;
        } else if (strcmp(a, "--tcp") == 0 && i + 1 < argc) {
            if (!parse_endpoint(argv[++i], tcp_host, &tcp_port))
                return cli_fail("dcp-slave: --tcp wants HOST:PORT, got '%s'", argv[i]);
            tcp_given = true;
        } else if (strcmp(a, "--port") == 0 && i + 1 < argc) {
            if (!parse_port(argv[++i], &port))
                return cli_fail("dcp-slave: --port wants 0..65535, got '%s'", argv[i]);
            udp_given = true;
        } else if (strcmp(a, "--dcpx") == 0 && i + 1 < argc) {
            dcpx = argv[++i];
        } else if (strcmp(a, "--input-wait") == 0 && i + 1 < argc) {
            if (rtcosim_time_parse_seconds(argv[++i], &input_wait, &err) != RTCOSIM_OK || input_wait <= 0)
                return cli_fail("dcp-slave: --input-wait wants positive seconds, got '%s'", argv[i]);
        } else if (strcmp(a, "--heartbeat") == 0 && i + 1 < argc) {
            if (rtcosim_time_parse_seconds(argv[++i], &heartbeat, &err) != RTCOSIM_OK || heartbeat <= 0)
                return cli_fail("dcp-slave: --heartbeat wants positive seconds, got '%s'", argv[i]);
        } else if (strcmp(a, "--mode") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "nrt") != 0 && strcmp(m, "srt") != 0)
                return cli_fail("dcp-slave: --mode wants nrt or srt, got '%s'", m);
            nrt_only = strcmp(m, "nrt") == 0;
        } else if (a[0] == '-') {
            return cli_fail("dcp-slave: unknown or incomplete option '%s' (see rtcosim dcp-slave --help)", a);
        } else {
            int rc = cli_positional("dcp-slave", "FMU", &source, argv, i);
            if (rc)
                return rc;
        }
    }
    if (!source)
        return cli_fail("dcp-slave: no FMU given (usage: rtcosim dcp-slave FMU --udp HOST:PORT)");
    if (cli_check_output_not_input("--dcpx", dcpx, &source, 1) != 0)
        return 1;
    bool udp = udp_given || !tcp_given;
    rtcosim_dcp_slave_config cfg = {.host = udp ? host : NULL, .port = port,
                                    .tcp_host = tcp_given ? tcp_host : NULL, .tcp_port = tcp_port,
                                    .factory = make_component,
                                    .factory_context = (void *)source,
                                    .heartbeat_timeout_ns = heartbeat, .input_wait_ns = input_wait,
                                    .nrt_only = nrt_only};
    rtcosim_dcp_slave *slave;
    if (rtcosim_dcp_slave_create(&cfg, &slave, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    if (dcpx && rtcosim_dcp_slave_write_dcpx(slave, dcpx, &err) != RTCOSIM_OK) {
        rtcosim_dcp_slave_free(slave);
        return cli_fail_error(&err);
    }
    printf("DCP slave '%s' on", source);
    if (udp)
        printf(" udp %s:%u", host, (unsigned)rtcosim_dcp_slave_port(slave));
    if (tcp_given)
        printf("%s tcp %s:%u", udp ? "," : "", tcp_host, (unsigned)rtcosim_dcp_slave_tcp_port(slave));
    printf("%s%s\n", dcpx ? ", description " : "", dcpx ? dcpx : "");
    fflush(stdout);
    running = slave;
    struct sigaction sa = {.sa_handler = on_signal};
    cli_sigaction_unless_ignored(SIGINT, &sa, NULL);
    cli_sigaction_unless_ignored(SIGTERM, &sa, NULL);
    rtcosim_status st = rtcosim_dcp_slave_run(slave, &err);
    running = NULL;
    printf("DCP slave stopped after %u session(s)\n", rtcosim_dcp_slave_sessions(slave));
    rtcosim_dcp_slave_free(slave);
    return st == RTCOSIM_OK ? 0 : cli_fail_error(&err);
}

const rtcosim_cli_command rtcosim_cli_cmd_dcp_slave = {
    "dcp-slave", "serve an FMU as a DCP 1.0 slave over UDP or TCP", run};
