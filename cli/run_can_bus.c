/* `rtcosim run --can-bus NAME=COMP.TERMINAL,...`: each bus is a component of
 * the system (src/lsbus/bus_component.c) whose NODE.Tx_Data / Tx_Clock /
 * Rx_Data / Rx_Clock members are connected, as a bus-simulation FMU's would
 * be (LS-BUS 1.0 section 3.2.3), to the network terminal's members of each
 * node FMU (terminalsAndIcons.xml; without one, TERMINAL.Tx_Data etc.).
 * With `ecus:N` / `firmware:ECU=ELF` among the nodes the bus is the event
 * kernel's (src/can's bus LP, as `rtcosim events` builds it with the example
 * vehicle's native and firmware ECUs), stepped by the component. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/time.h"

#include "can_replay.h"
#include "cli.h"
#include "run_can_bus.h"
#include "run_report_columns.h"
#include "rtcosim/fmu.h"
#include "rtcosim/lsbus.h"
#include "rtcosim/can_signals.h"
#include "rtcosim/can_log.h"
#include "../examples/ecus/vehicle.h"

/* A bus with native/firmware ECUs: the event simulation holding them, the
 * vehicle (its bus, ECUs and plants), the FMU nodes' component. */
typedef struct cli_can_kernel_bus {
    struct cli_can_kernel_bus *next;
    rtcosim_events *sim;
    rtcosim_ecu_vehicle *vehicle;
    const char *const *node_names; /* during the build only */
    uint32_t node_count;
    bool lookahead;
    rtcosim_component *component;
    cli_can_replay replay; /* replay:LOG[@BUS] among the nodes */
    bool replaying;
} cli_can_kernel_bus;

/* Every such bus built in this process (a run may build a reference master
 * too), freed after the masters by cli_can_bus_free. */
static cli_can_kernel_bus *kernel_buses;

static const char *const members[4] = {"Tx_Data", "Tx_Clock", "Rx_Data", "Rx_Clock"};

static int parse_u32(const char *option, const char *text, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long long v = text ? strtoull(text, &end, 0) : 0;
    if (!text || !*text || *end || *text == '-' || v > max)
        return cli_fail("%s needs a whole number up to %u, not '%s'", option, max,
                        text ? text : "");
    *out = (uint32_t)v;
    return 0;
}

int cli_can_bus_option(cli_can_buses *b, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint32_t v = 0;
    if (strcmp(opt, "--can-bus") == 0) {
        if (!val || !strchr(val, '=') || strchr(val, '=') == val || !strchr(val, '=')[1])
            return cli_fail("--can-bus needs NAME=NODE[,NODE...] (COMP.TERMINAL, ecus:N, "
                            "firmware:ECU=ELF), not '%s'",
                            val ? val : ""), -1;
        if (b->count == CLI_CAN_BUSES_MAX)
            return cli_fail("--can-bus: at most %d buses", CLI_CAN_BUSES_MAX), -1;
        b->specs[b->count++] = val;
    } else if (strcmp(opt, "--can-signals") == 0) {
        if (!val || !strchr(val, '=') || strchr(val, '=') == val)
            return cli_fail("--can-signals needs NAME=F.dbc,NODE=COMP[,...], not '%s'",
                            val ? val : ""), -1;
        if (b->signal_count == CLI_CAN_BUSES_MAX)
            return cli_fail("--can-signals: at most %d buses", CLI_CAN_BUSES_MAX), -1;
        b->signal_specs[b->signal_count++] = val;
    } else if (strcmp(opt, "--can-bitrate") == 0) {
        if (parse_u32(opt, val, 8000000, &v))
            return -1;
        if (v < 1000)
            return cli_fail("--can-bitrate: %s bit/s is below 1000", val), -1;
        b->bitrate = v;
    } else if (strcmp(opt, "--can-fd-bitrate") == 0 || strcmp(opt, "--can-xl-bitrate") == 0) {
        if (parse_u32(opt, val, 1000000000, &v))
            return -1;
        if (v < 1000)
            return cli_fail("%s: %s bit/s is below 1000", opt, val), -1;
        *(opt[6] == 'f' ? &b->fd_bitrate : &b->xl_bitrate) = v;
    } else if (strcmp(opt, "--can-error-every") == 0) {
        if (parse_u32(opt, val, UINT32_MAX, &v))
            return -1;
        b->error_every = v;
    } else if (strcmp(opt, "--can-error-code") == 0) {
        if (parse_u32(opt, val, 6, &v))
            return -1;
        if (v == 0)
            return cli_fail("--can-error-code: 1..6 (LS-BUS 1.0 Bus Error codes)"), -1;
        b->error_code = (uint8_t)v;
    } else if (strcmp(opt, "--can-no-lookahead") == 0) {
        b->no_lookahead = true;
        return 1; /* a flag: no value consumed */
    } else if (strcmp(opt, "--can-log") == 0) {
        if (!val)
            return cli_fail("--can-log needs a file"), -1;
        b->log_path = val;
    } else
        return 0;
    ++*i;
    return 1;
}

/* The variable of member `member` of terminal `terminal` of a component: from
 * its terminalsAndIcons.xml when it has one, else TERMINAL.MEMBER. */
static int member_variable(rtcosim_component *c, const rtcosim_fmu_extras *extras,
                           const char *comp, const char *terminal, const char *member,
                           char *out, size_t size)
{
    if (extras) {
        for (size_t t = 0; t < rtcosim_fmu_extras_terminal_count(extras); t++) {
            const rtcosim_terminal *term = rtcosim_fmu_extras_terminal(extras, t);
            if (strcmp(term->name, terminal) != 0 || term->depth != 0)
                continue;
            for (size_t k = 0; k < term->member_count; k++)
                if (term->members[k].member_name &&
                    strcmp(term->members[k].member_name, member) == 0) {
                    snprintf(out, size, "%s.%s", comp, term->members[k].variable_name);
                    return 0;
                }
            return cli_fail("--can-bus: terminal '%s' of '%s' has no member %s", terminal, comp,
                            member);
        }
    }
    snprintf(out, size, "%s.%s.%s", comp, terminal, member);
    if (!rtcosim_component_find_variable(c, out + strlen(comp) + 1))
        return cli_fail("--can-bus: '%s' has no terminal '%s' (no terminalsAndIcons.xml entry "
                        "and no variable %s.%s)",
                        comp, terminal, terminal, member);
    return 0;
}

static void kernel_bus_free(cli_can_kernel_bus *k)
{
    rtcosim_component_free(k->component); /* only when the master never took it */
    rtcosim_ecu_vehicle_free(k->vehicle);
    rtcosim_events_free(k->sim);
    cli_can_replay_free(&k->replay);
    free(k);
}

/* The bus component freed with its master (the calibration's probe's before
 * the run): its simulation, ECUs and emulated cores go with it. */
static void kernel_bus_release(void *context)
{
    cli_can_kernel_bus *k = context;
    for (cli_can_kernel_bus **p = &kernel_buses; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    kernel_bus_free(k);
}

/* The FMU nodes' component on the vehicle's bus, before it connects. */
static rtcosim_status attach_fmu_nodes(rtcosim_events *sim, rtcosim_can_bus *bus, void *context,
                                       rtcosim_error *err)
{
    cli_can_kernel_bus *k = context;
    rtcosim_status st = rtcosim_lsbus_can_lp_component_create(sim, bus, k->node_names,
                                                              k->node_count, k->lookahead,
                                                              &k->component, err);
    if (st == RTCOSIM_OK && k->replaying)
        st = cli_can_replay_attach(&k->replay, sim, bus, err);
    return st;
}

/* The event kernel's bus with the example vehicle's first `ecus` ECUs (one
 * on its firmware), as `rtcosim events` builds it, and the FMU nodes. */
static int kernel_bus(const cli_can_buses *b, const char *name, rtcosim_ecu_vehicle_config *vc,
                      const char *const *node_names, uint32_t count, const cli_can_replay *replay,
                      const rtcosim_master *m, rtcosim_component **bus)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    cli_can_kernel_bus *k = calloc(1, sizeof *k);
    if (!k)
        return cli_fail("--can-bus %s: out of memory", name);
    k->next = kernel_buses;
    kernel_buses = k;
    k->node_names = node_names;
    k->node_count = count;
    if (replay) {
        k->replay = *replay;
        k->replaying = true;
    }
    /* Lookahead (macro steps across the ECUs' events that bring the FMU
     * nodes nothing) lets the bus return early, which the master allows
     * when every component can vary its step. */
    k->lookahead = !b->no_lookahead;
    for (size_t c = 0; k->lookahead && c < rtcosim_master_component_count(m); c++)
        k->lookahead = rtcosim_component_capabilities(rtcosim_master_component_at(m, c))
                           ->can_handle_variable_step;
    vc->bitrate = b->bitrate;
    vc->fd_bitrate = b->fd_bitrate;
    vc->xl_bitrate = b->xl_bitrate;
    /* In a real-time run the log is allocated once, for the most frames
     * the run can carry (log_capacity), as the bridge's. */
    vc->log_frames = b->log_path != NULL || b->report_dir != NULL;
    vc->log_capacity = b->real_time ? b->log_capacity : 0;
    vc->frame_bytes_reserve = b->real_time ? b->frame_bytes_reserve : 0;
    vc->error_every = b->error_every;
    vc->error_code = b->error_code;
    vc->bus_name = name;
    vc->attach = attach_fmu_nodes;
    vc->attach_context = k;
    if (rtcosim_events_create(&k->sim, &err) != RTCOSIM_OK ||
        rtcosim_ecu_vehicle_build(k->sim, vc, &k->vehicle, &err) != RTCOSIM_OK)
        return cli_fail("--can-bus %s: %s", name, err.message);
    *bus = k->component;
    k->component = NULL; /* the master owns it, and frees the ECUs with it */
    rtcosim_lsbus_can_lp_component_on_free(*bus, kernel_bus_release, k);
    return 0;
}

static int connect_nodes(const char *name, char **nodes, uint32_t count, rtcosim_master *m,
                         bool real_time_part);

static int attach_one(const cli_can_buses *b, const char *spec, rtcosim_master *m)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    const char *eq = strchr(spec, '=');
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    /* The nodes, comma separated: COMP.TERMINAL (an LS-BUS FMU's network
     * terminal), ecus:N (the example vehicle's first N native ECUs with
     * their plants), firmware:ECU=ELF (that ECU on its firmware). */
    char list[2048];
    const char *node_names[64]; /* copied by the component */
    snprintf(list, sizeof list, "%s", eq + 1);
    char *nodes[64];
    uint32_t count = 0;
    rtcosim_ecu_vehicle_config vc = {.ecus = 0};
    bool with_ecus = false;
    static cli_can_replay replay; /* copied into the bus's */
    bool replaying = false;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strncmp(tok, "ecus:", 5) == 0) {
            char *end = NULL;
            unsigned long n = strtoul(tok + 5, &end, 10);
            if (end == tok + 5 || *end || n == 0 || n > 64)
                return cli_fail("--can-bus %s: '%s' needs ecus:N with N in 1..64", name, tok);
            vc.ecus = (unsigned)n;
            with_ecus = true;
            continue;
        }
        if (strncmp(tok, "replay:", 7) == 0) {
            char option[160];
            snprintf(option, sizeof option, "--can-bus %s: replay:", name);
            if (replaying)
                return cli_fail("--can-bus %s: one replay:LOG a bus", name);
            if (cli_can_replay_parse(&replay, option, tok + 7))
                return CLI_EXIT_USAGE;
            replaying = true;
            continue;
        }
        if (strncmp(tok, "firmware:", 9) == 0) {
            const char *fw = tok + 9, *at = strchr(fw, '=');
            if (!at || at == fw || !at[1] || (size_t)(at - fw) >= sizeof vc.firmware_ecu ||
                strlen(at + 1) >= sizeof vc.firmware_path)
                return cli_fail("--can-bus %s: '%s' needs firmware:ECU=ELF", name, tok);
            snprintf(vc.firmware_ecu, sizeof vc.firmware_ecu, "%.*s", (int)(at - fw), fw);
            snprintf(vc.firmware_path, sizeof vc.firmware_path, "%s", at + 1);
            with_ecus = true;
            continue;
        }
        if (count == 64)
            return cli_fail("--can-bus %s: at most 64 nodes", name);
        nodes[count++] = tok;
    }
    if (count == 0 && !with_ecus)
        return cli_fail("--can-bus %s: no nodes%s", name,
                        replaying ? " besides the replay (a node FMU or ecus:N receives it)" : "");
    for (uint32_t i = 0; i < count; i++)
        node_names[i] = nodes[i];
    if (with_ecus && vc.ecus == 0)
        vc.ecus = 1; /* firmware:engine=... alone: the engine */
    rtcosim_component *bus = NULL;
    if (with_ecus || replaying) { /* the event kernel's bus (a replay is a node of it) */
        int rc = kernel_bus(b, name, &vc, node_names, count, replaying ? &replay : NULL, m, &bus);
        if (rc)
            return rc;
        if (rtcosim_master_add_component(m, name, bus, 1, &err) != RTCOSIM_OK)
            return cli_fail("--can-bus %s: %s", name, err.message);
        return connect_nodes(name, nodes, count, m, b->real_time);
    }
    rtcosim_lsbus_can_bridge_config config = {
        .name = name,
        .node_count = count,
        .bitrate = b->bitrate,
        .force_bitrate = b->bitrate != 0,
        .fd_bitrate = b->fd_bitrate,
        .xl_bitrate = b->xl_bitrate,
        .bus_notifications = true,
        .error_every = b->error_every,
        .error_code = b->error_code ? b->error_code : RTCOSIM_LSBUS_CAN_CRC_ERROR,
        .log_frames = b->log_path != NULL || b->report_dir != NULL,
        .log_capacity = b->log_capacity,
    };
    if (rtcosim_lsbus_can_bus_component_create(&config, node_names, &bus, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, name, bus, 1, &err) != RTCOSIM_OK)
        return cli_fail("--can-bus %s: %s", name, err.message);
    return connect_nodes(name, nodes, count, m, b->real_time);
}

/* Each node's terminal members to the bus component's. */
static int connect_nodes(const char *name, char **nodes, uint32_t count, rtcosim_master *m,
                         bool real_time_part)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    for (uint32_t i = 0; i < count; i++) {
        char *dot = strrchr(nodes[i], '.');
        if (!dot || dot == nodes[i] || !dot[1])
            return cli_fail("--can-bus %s: '%s' is not COMP.TERMINAL", name, nodes[i]);
        *dot = '\0';
        const char *comp = nodes[i], *terminal = dot + 1;
        rtcosim_component *c = rtcosim_master_component(m, comp);
        if (!c && real_time_part)
            return cli_fail("--can-bus %s: no component '%s' in the real-time part (a bus's "
                            "nodes step on the paced thread, not in a --non-realtime part)",
                            name, comp);
        if (!c)
            return cli_fail("--can-bus %s: no component '%s'", name, comp);
        const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
        rtcosim_fmu_extras *extras = NULL;
        if (info && info->extracted_dir &&
            rtcosim_fmu_extras_read(info->extracted_dir, &extras, &err) != RTCOSIM_OK)
            return cli_fail("--can-bus %s: '%s': %s", name, comp, err.message);
        char vars[4][512];
        int rc = 0;
        for (int k = 0; k < 4 && !rc; k++)
            rc = member_variable(c, extras, comp, terminal, members[k], vars[k], sizeof vars[k]);
        rtcosim_fmu_extras_free(extras);
        if (rc)
            return rc;
        *dot = '.';
        char bus_side[4][300];
        for (int k = 0; k < 4; k++)
            snprintf(bus_side[k], sizeof bus_side[k], "%s.%s.%s", name, nodes[i], members[k]);
        /* The node's Tx goes to the bus, the bus's Rx to the node. */
        if (rtcosim_master_connect(m, vars[0], bus_side[0], NULL, &err) != RTCOSIM_OK ||
            rtcosim_master_connect(m, vars[1], bus_side[1], NULL, &err) != RTCOSIM_OK ||
            rtcosim_master_connect(m, bus_side[2], vars[2], NULL, &err) != RTCOSIM_OK ||
            rtcosim_master_connect(m, bus_side[3], vars[3], NULL, &err) != RTCOSIM_OK)
            return cli_fail("--can-bus %s: %s", name, err.message);
    }
    return 0;
}

int cli_can_bus_attach(const cli_can_buses *b, rtcosim_master *m)
{
    if (b->log_path && b->count + b->signal_count != 1)
        return cli_fail("--can-log needs exactly one --can-bus or --can-signals");
    if ((b->fd_bitrate || b->xl_bitrate || b->error_every || b->error_code ||
         b->no_lookahead) && b->count == 0)
        return cli_fail("--can-fd-bitrate, --can-xl-bitrate, --can-error-every, "
                        "--can-error-code and --can-no-lookahead need --can-bus");
    if ((b->bitrate || b->log_path) && b->count + b->signal_count == 0)
        return cli_fail("--can-bitrate and --can-log need --can-bus or --can-signals");
    for (unsigned i = 0; i < b->count; i++) {
        int rc = attach_one(b, b->specs[i], m);
        if (rc)
            return rc;
    }
    int rc = cli_can_signals_attach(b, m);
    return rc ? rc : cli_can_log_stream_open(b, m);
}

int cli_can_bus_check_real_time(const cli_can_buses *b, const char *non_realtime)
{
    for (unsigned i = 0; i < b->count && non_realtime; i++) {
        const char *spec = strchr(b->specs[i], '=') + 1;
        for (const char *p = spec; *p;) {
            size_t n = strcspn(p, ",");
            const char *dot = memchr(p, '.', n);
            size_t comp = dot ? (size_t)(dot - p) : 0;
            for (const char *q = non_realtime; comp && *q;) {
                size_t m = strcspn(q, ",;");
                if (m == comp && strncmp(p, q, m) == 0)
                    return cli_fail("--can-bus %.*s: node '%.*s' is in a non-real-time part "
                                    "(--non-realtime); a bus's nodes must be in the real-time "
                                    "part, whose thread steps the bus",
                                    (int)(strchr(b->specs[i], '=') - b->specs[i]), b->specs[i],
                                    (int)comp, p);
                q += m + (q[m] != '\0');
            }
            p += n + (p[n] != '\0');
        }
    }
    return 0;
}

rtcosim_status cli_can_bus_attach_real_time(void *context, rtcosim_master *m, bool probe,
                                            rtcosim_error *err)
{
    cli_can_buses *b = context;
    cli_can_buses probe_buses = *b;
    if (probe) { /* the calibration's probe logs nothing */
        probe_buses.log_path = NULL;
        probe_buses.report_dir = NULL;
    }
    int rc = cli_can_bus_attach(probe ? &probe_buses : b, m);
    if (!rc)
        return RTCOSIM_OK;
    b->failed = rc;
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "--can-bus: not attached");
}

int cli_can_bus_finish(const cli_can_buses *b, rtcosim_master *m)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    int signals = cli_can_signals_finish(b, m);
    if (signals)
        return signals;
    for (unsigned i = 0; i < b->count; i++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(b->specs[i], '=') - b->specs[i]),
                 b->specs[i]);
        rtcosim_component *c = rtcosim_master_component(m, name);
        rtcosim_lsbus_can_bridge *bridge = rtcosim_lsbus_can_bus_component_bridge(c);
        rtcosim_can_bus *kernel = rtcosim_lsbus_can_lp_component_bus(c);
        if (kernel) {
            rtcosim_can_bus_stats s;
            rtcosim_can_bus_stats_get(kernel, rtcosim_master_time(m), &s);
            const cli_can_kernel_bus *k = kernel_buses;
            while (k && rtcosim_ecu_vehicle_bus(k->vehicle) != kernel)
                k = k->next;
            bool ecus = k && rtcosim_ecu_vehicle_ecu_count(k->vehicle) > 0;
            printf("can bus %s: %u bit/s (event kernel%s), %llu frames, %llu bus errors, "
                   "busy %.9g s, load %.1f %%\n",
                   name, rtcosim_can_bus_bitrate(kernel), ecus ? ", with ECUs" : "",
                   (unsigned long long)s.frames,
                   (unsigned long long)s.bus_errors, rtcosim_time_to_seconds(s.busy_ns),
                   100.0 * s.load);
            if (s.log_dropped)
                printf("can bus %s: the log of %zu frames was full: %llu later frames not logged\n",
                       name, rtcosim_can_bus_log_count(kernel),
                       (unsigned long long)s.log_dropped);
            if (k) {
                char prefix[160];
                snprintf(prefix, sizeof prefix, "can bus %s: replay ", name);
                cli_can_replay_print(&k->replay, prefix);
            }
            if (b->real_time && s.frame_bytes_chunks_inline)
                printf("can bus %s: %llu MiB of CAN FD/XL frame bytes were allocated on the paced"
                       " thread (the helper allocating them ahead fell behind, or the log kept"
                       " more of them than its reserve)\n",
                       name, (unsigned long long)s.frame_bytes_chunks_inline);
            int rc = b->log_path ? cli_can_log_finish(name, b->log_path, kernel, NULL) : 0;
            if (rc)
                return rc;
            if (b->report_dir) {
                char path[4096];
                snprintf(path, sizeof path, "%s/can_%s.log", b->report_dir, name);
                if (rtcosim_can_bus_write_log(kernel, path, &err) != RTCOSIM_OK)
                    return cli_fail_error(&err);
            }
            continue;
        }
        if (!bridge)
            continue;
        rtcosim_lsbus_can_bridge_stats s;
        rtcosim_lsbus_can_bridge_stats_get(bridge, &s);
        printf("can bus %s: %u bit/s, %llu frames, %llu confirms, %llu arbitration lost, "
               "%llu bus errors, busy %.9g s\n",
               name, rtcosim_lsbus_can_bridge_bitrate(bridge), (unsigned long long)s.frames,
               (unsigned long long)s.confirms, (unsigned long long)s.arbitration_lost,
               (unsigned long long)s.bus_errors, rtcosim_time_to_seconds(s.busy_ns));
        if (s.log_dropped)
            printf("can bus %s: the log of %zu frames was full: %llu later frames not logged\n",
                   name, rtcosim_lsbus_can_bridge_log_count(bridge),
                   (unsigned long long)s.log_dropped);
        int rc = b->log_path ? cli_can_log_finish(name, b->log_path, NULL, bridge) : 0;
        if (rc)
            return rc;
        if (b->report_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/can_%s.log", b->report_dir, name);
            if (rtcosim_lsbus_can_bridge_write_log(bridge, path, &err) != RTCOSIM_OK)
                return cli_fail_error(&err);
        }
    }
    return 0;
}

static rtcosim_can_log_writer *log_stream; /* cli_can_log_stream_open */

int cli_can_log_stream_open(const cli_can_buses *b, rtcosim_master *m)
{
    /* (a second master of the run, --reference's, keeps its log) */
    if (!b->log_path || b->real_time || b->count + b->signal_count != 1 || log_stream)
        return 0;
    const char *spec = b->count ? b->specs[0] : b->signal_specs[0];
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(strchr(spec, '=') - spec), spec);
    rtcosim_component *c = rtcosim_master_component(m, name);
    rtcosim_can_bus *kernel =
        b->count ? rtcosim_lsbus_can_lp_component_bus(c) : rtcosim_can_signal_bus_can(c);
    rtcosim_lsbus_can_bridge *bridge = b->count ? rtcosim_lsbus_can_bus_component_bridge(c) : NULL;
    if (!kernel && !bridge)
        return 0;
    /* the bridge's nodes are FMUs that may send any format */
    rtcosim_can_log_layout layout = {.frames = RTCOSIM_CAN_LOG_FRAMES_UNKNOWN, .fd = true,
                                     .xl = true};
    if (kernel)
        rtcosim_can_bus_log_layout(kernel, &layout);
    rtcosim_error err;
    rtcosim_error_clear(&err);
    if (rtcosim_can_log_writer_open(b->log_path, rtcosim_can_log_format_of(b->log_path), name,
                                    &layout, &log_stream, &err) != RTCOSIM_OK ||
        (kernel ? rtcosim_can_bus_stream_log(kernel, log_stream, &err)
                : rtcosim_lsbus_can_bridge_stream_log(bridge, log_stream, &err)) != RTCOSIM_OK) {
        if (log_stream)
            rtcosim_can_log_writer_abort(log_stream);
        log_stream = NULL;
        return cli_fail_error(&err);
    }
    return 0;
}

int cli_can_log_finish(const char *name, const char *path, rtcosim_can_bus *kernel,
                       rtcosim_lsbus_can_bridge *bridge)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    if (!log_stream) { /* kept by the bus: written now */
        if ((kernel ? rtcosim_can_bus_write_log(kernel, path, &err)
                    : rtcosim_lsbus_can_bridge_write_log(bridge, path, &err)) != RTCOSIM_OK)
            return cli_fail_error(&err);
        printf("wrote %zu frames of %s to %s\n",
               kernel ? rtcosim_can_bus_log_count(kernel) : rtcosim_lsbus_can_bridge_log_count(bridge),
               name, path);
        return 0;
    }
    rtcosim_can_log_writer *w = log_stream;
    log_stream = NULL;
    uint64_t frames = 0;
    rtcosim_status st = RTCOSIM_OK;
    if (kernel) {
        /* what the bus logged but did not commit yet (a run that failed
         * before its end): final all the same, a stepped bus never rolls back */
        const rtcosim_can_log_entry *held = rtcosim_can_bus_log(kernel);
        size_t n = rtcosim_can_bus_log_count(kernel);
        for (size_t i = 0; i < n && st == RTCOSIM_OK; i++)
            st = rtcosim_can_log_writer_add(w, &held[i], &err);
        frames = rtcosim_can_bus_log_written(kernel) + n;
        (void)rtcosim_can_bus_stream_log(kernel, NULL, NULL);
    } else {
        frames = rtcosim_lsbus_can_bridge_log_streamed(bridge);
        (void)rtcosim_lsbus_can_bridge_stream_log(bridge, NULL, NULL);
    }
    rtcosim_status closed = rtcosim_can_log_writer_close(w, st == RTCOSIM_OK ? &err : NULL);
    if (st != RTCOSIM_OK || closed != RTCOSIM_OK)
        return cli_fail_error(&err);
    printf("wrote %llu frames of %s to %s\n", (unsigned long long)frames, name, path);
    return 0;
}

void cli_can_bus_free(void)
{
    if (log_stream) { /* (the run never finished: a failed start) */
        rtcosim_can_log_writer_abort(log_stream);
        log_stream = NULL;
    }
    while (kernel_buses) {
        cli_can_kernel_bus *k = kernel_buses;
        kernel_buses = k->next;
        kernel_bus_free(k);
    }
}

/* The bus component named by spec i of b in m. */
static rtcosim_component *bus_of(const cli_can_buses *b, unsigned i, rtcosim_master *m,
                                 char *name, size_t size)
{
    snprintf(name, size, "%.*s", (int)(strchr(b->specs[i], '=') - b->specs[i]), b->specs[i]);
    return rtcosim_master_component(m, name);
}

int cli_can_bus_reserve_work(const cli_can_buses *b, rtcosim_master *m, size_t frames)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    for (unsigned i = 0; i < b->count; i++) {
        char name[128];
        rtcosim_component *c = bus_of(b, i, m, name, sizeof name);
        if (c && rtcosim_lsbus_can_component_reserve_work(c, frames, &err) != RTCOSIM_OK)
            return cli_fail("--can-bus %s: %s", name, err.message);
    }
    return 0;
}

static int compare_time(const void *a, const void *b)
{
    rtcosim_time_ns x = *(const rtcosim_time_ns *)a, y = *(const rtcosim_time_ns *)b;
    return (x > y) - (x < y);
}

/* The bus's work per frame: p50, p99 (nearest rank) and max in ns over the
 * frames recorded; false when none was. */
static bool work_figures(const rtcosim_component *c, size_t *frames, double figures[3])
{
    size_t n;
    const rtcosim_lsbus_frame_work *w = rtcosim_lsbus_can_component_work(c, &n, NULL);
    *frames = n;
    rtcosim_time_ns *sorted = n ? malloc(n * sizeof *sorted) : NULL;
    if (!sorted)
        return false;
    for (size_t i = 0; i < n; i++)
        sorted[i] = w[i].work_ns;
    qsort(sorted, n, sizeof *sorted, compare_time);
    const double ranks[2] = {0.50, 0.99};
    for (int k = 0; k < 2; k++) {
        size_t rank = (size_t)(ranks[k] * (double)n + 0.999999999);
        figures[k] = (double)sorted[(rank ? rank : 1) - 1];
    }
    figures[2] = (double)sorted[n - 1];
    free(sorted);
    return true;
}

void cli_can_bus_print_work(const cli_can_buses *b, rtcosim_master *m)
{
    for (unsigned i = 0; i < b->count; i++) {
        char name[128];
        rtcosim_component *c = bus_of(b, i, m, name, sizeof name);
        size_t n;
        double f[3];
        if (c && work_figures(c, &n, f))
            printf("can bus %s: its work on the paced thread per frame p50 %.1f us, p99 %.1f us, "
                   "max %.1f us (%zu frames)\n",
                   name, f[0] / 1e3, f[1] / 1e3, f[2] / 1e3, n);
    }
}

/* frames.csv: per bus the column bus_us[NAME], its work in the frame. */
typedef struct bus_cells {
    const cli_can_buses *b;
    rtcosim_master *m;
    size_t cursor[CLI_CAN_BUSES_MAX];
} bus_cells;

static void add_bus_cells(void *context, FILE *out, bool header, double t)
{
    bus_cells *bc = context;
    for (unsigned i = 0; i < bc->b->count; i++) {
        char name[128];
        rtcosim_component *c = bus_of(bc->b, i, bc->m, name, sizeof name);
        if (header) {
            fprintf(out, ",bus_us[%s]", name);
            continue;
        }
        size_t n;
        const rtcosim_lsbus_frame_work *w = rtcosim_lsbus_can_component_work(c, &n, NULL);
        /* records and frames both ascend in time: walk along */
        while (bc->cursor[i] < n &&
               rtcosim_time_to_seconds(w[bc->cursor[i]].te) < t - 1e-9 * (t > 1 ? t : 1))
            bc->cursor[i]++;
        size_t k = bc->cursor[i];
        double te = k < n ? rtcosim_time_to_seconds(w[k].te) : 0;
        if (k < n && te <= t + 1e-9 * (t > 1 ? t : 1))
            fprintf(out, ",%.3f", (double)w[k].work_ns / 1e3);
        else
            fputs(",", out);
    }
}

int cli_can_bus_report(const cli_can_buses *b, rtcosim_master *m, const char *dir)
{
    if (!dir || b->count == 0)
        return 0;
    FILE *f;
    int rc = cli_summary_csv_open(dir, "CAN bus", &f);
    if (rc)
        return rc;
    for (unsigned i = 0; i < b->count; i++) {
        char name[128];
        rtcosim_component *c = bus_of(b, i, m, name, sizeof name);
        rtcosim_lsbus_can_bridge *bridge = rtcosim_lsbus_can_bus_component_bridge(c);
        rtcosim_can_bus *kernel = rtcosim_lsbus_can_lp_component_bus(c);
        rtcosim_time_ns elapsed = rtcosim_master_time(m);
        uint64_t frames = 0, errors = 0;
        double load = 0;
        if (kernel) {
            rtcosim_can_bus_stats s;
            rtcosim_can_bus_stats_get(kernel, elapsed, &s);
            frames = s.frames;
            errors = s.bus_errors;
            load = s.load;
        } else if (bridge) {
            rtcosim_lsbus_can_bridge_stats s;
            rtcosim_lsbus_can_bridge_stats_get(bridge, &s);
            frames = s.frames;
            errors = s.bus_errors;
            load = elapsed > 0 ? (double)s.busy_ns / (double)elapsed : 0;
        }
        fprintf(f, "can_frames[%s],%llu,\n", name, (unsigned long long)frames);
        fprintf(f, "can_bus_errors[%s],%llu,\n", name, (unsigned long long)errors);
        fprintf(f, "can_load[%s],%.6f,\n", name, load);
        size_t n;
        double w[3];
        if (work_figures(c, &n, w)) {
            fprintf(f, "can_work_p50[%s],%.3f,us\n", name, w[0] / 1e3);
            fprintf(f, "can_work_p99[%s],%.3f,us\n", name, w[1] / 1e3);
            fprintf(f, "can_work_max[%s],%.3f,us\n", name, w[2] / 1e3);
        }
    }
    if ((rc = cli_summary_csv_close(f, dir, "CAN bus")) != 0)
        return rc;
    bus_cells bc = {.b = b, .m = m};
    return cli_frames_csv_add_columns(dir, "CAN bus", add_bus_cells, &bc);
}

void cli_can_bus_report_names(const cli_can_buses *b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < b->count && n < size; i++) {
        const char *eq = strchr(b->specs[i], '=');
        int len = eq ? (int)(eq - b->specs[i]) : (int)strlen(b->specs[i]);
        int w = snprintf(out + n, size - n, ", can_%.*s.log", len, b->specs[i]);
        if (w < 0 || (size_t)w >= size - n)
            break;
        n += (size_t)w;
    }
}
