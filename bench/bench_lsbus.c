/* B13 `rtcosim bench lsbus`: 16 LS-BUS CAN node FMUs (models/lsbus_node, FMI
 * 3.0 co-simulation with Event Mode and clocks) on rtcosim's bus in a system
 * run by the master (as rtcosim run --can-bus), each sending an 8-byte frame
 * every period at 500 kbit/s; beside it the LS-BUS bridge alone, driven as a
 * master would drive it at each event instant, and the same traffic between
 * native node LPs on src/can's bus LP (event kernel, sequential). Bridge and
 * native must put every frame on the bus at the same end time (a checksum of
 * (end time, id) of every frame); the FMUs send a fixed payload, so their
 * stuffing differs. Figures: simulated seconds per wall second of each and
 * the overhead per frame over the native path. Medians over repeats. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "rtcosim/can.h"
#include "rtcosim/fmu.h"
#include "rtcosim/master.h"
#include "rtcosim/simulate.h"
#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"

#define NODES 16u
#define LOOKAHEAD_NS 1000
#define FRAME_ID(i) (0x100u + (i))

typedef struct traffic {
    unsigned nodes;
    rtcosim_time_ns period, stop;
} traffic;

/* The payload node i sends in its k-th period: varies so that stuffing does. */
static void payload(unsigned node, uint64_t k, uint8_t data[8])
{
    for (unsigned b = 0; b < 8; b++)
        data[b] = (uint8_t)((k >> (8 * (b & 3))) ^ (node * 37u + b * 11u));
}

static uint64_t mix(uint64_t sum, rtcosim_time_ns end, uint32_t id)
{
    uint64_t x = (uint64_t)end * 0x9E3779B97F4A7C15u ^ id;
    x ^= x >> 29;
    return sum + x * 0xBF58476D1CE4E5B9u;
}

/* ---- native: node LPs on the bus LP ---- */

typedef struct native_node {
    rtcosim_can_bus *bus;
    uint32_t node;
    unsigned index;
    uint64_t k;
    const traffic *tr;
    uint64_t received;
} native_node;

static rtcosim_status native_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    /* the run starts at -LOOKAHEAD: the first frame reaches the bus at 0 */
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, 1, 0, NULL, 0, err);
}

static rtcosim_status native_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    native_node *n = state;
    if (rtcosim_can_rx_of(ev)) {
        n->received++;
        return RTCOSIM_OK;
    }
    rtcosim_can_frame f = {.id = FRAME_ID(n->index), .dlc = 8};
    payload(n->index, n->k++, f.data);
    rtcosim_status st = rtcosim_can_transmit(lp, n->bus, n->node, &f, LOOKAHEAD_NS, err);
    if (st != RTCOSIM_OK)
        return st;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), n->tr->period, 1, 0, NULL, 0, err);
}

static const rtcosim_lp_model native_model = {.kind = "bench-node", .init = native_init,
                                              .event = native_event};

static int run_native(const traffic *tr, double *wall_s, uint64_t *frames, uint64_t *checksum,
                      uint64_t *dropped, double load[2])
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    native_node nodes[NODES];
    int rc = 1;
    if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK)
        goto out;
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .log_frames = true};
    if (rtcosim_can_bus_create(sim, &bc, &bus, &err) != RTCOSIM_OK)
        goto out;
    for (unsigned i = 0; i < tr->nodes; i++) {
        char name[16];
        snprintf(name, sizeof name, "node%u", i);
        nodes[i] = (native_node){.bus = bus, .index = i, .tr = tr};
        rtcosim_lp_id lp;
        if (rtcosim_events_add_lp(sim, name, &native_model, &nodes[i], RTCOSIM_LP_NO_GROUP, &lp,
                                  &err) != RTCOSIM_OK ||
            rtcosim_can_bus_add_node(bus, name, lp, LOOKAHEAD_NS, &nodes[i].node, &err) !=
                RTCOSIM_OK ||
            rtcosim_can_bus_add_tx(bus, nodes[i].node, FRAME_ID(i), false, 8, &err) != RTCOSIM_OK)
            goto out;
    }
    for (unsigned i = 0; i < tr->nodes; i++)
        for (unsigned j = 0; j < tr->nodes; j++)
            if (i != j && rtcosim_can_bus_add_rx(bus, nodes[i].node, FRAME_ID(j), false, &err) !=
                              RTCOSIM_OK)
                goto out;
    if (rtcosim_can_bus_connect(bus, &err) != RTCOSIM_OK)
        goto out;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .start_time = -LOOKAHEAD_NS, .stop_time = tr->stop};
    int64_t t0 = bench_now_ns();
    if (rtcosim_events_run(sim, &o, NULL, &err) != RTCOSIM_OK)
        goto out;
    *wall_s = (double)(bench_now_ns() - t0) * 1e-9;
    rtcosim_can_bus_stats st;
    rtcosim_can_bus_stats_get(bus, tr->stop, &st);
    *dropped = st.dropped;
    load[0] = st.load;
    load[1] = st.offered_load;
    *frames = 0;
    *checksum = 0;
    const rtcosim_can_log_entry *log = rtcosim_can_bus_log(bus);
    for (size_t i = 0; i < rtcosim_can_bus_log_count(bus); i++)
        if (log[i].end <= tr->stop) {
            *checksum = mix(*checksum, log[i].end, log[i].frame.id);
            (*frames)++;
        }
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "rtcosim: bench lsbus (native): %s\n", err.message);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    return rc;
}

/* ---- the bridge, driven as the master drives it ---- */

static int run_bridge(const traffic *tr, double *wall_s, uint64_t *frames, uint64_t *checksum,
                      uint64_t *dropped)
{
    rtcosim_error err;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = tr->nodes,
                                           .bitrate = 500000, .bus_notifications = true};
    rtcosim_lsbus_can_bridge *b = NULL;
    if (rtcosim_lsbus_can_bridge_create(&cfg, &b, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: bench lsbus: %s\n", err.message);
        return 1;
    }
    uint8_t tx[NODES][64];
    uint64_t k = 0;
    rtcosim_time_ns next_send = 0;
    *frames = 0;
    *checksum = 0;
    int64_t t0 = bench_now_ns();
    for (;;) {
        rtcosim_time_ns bus_next = rtcosim_lsbus_can_bridge_next_event(b);
        rtcosim_time_ns t = bus_next < next_send ? bus_next : next_send;
        if (t > tr->stop)
            break;
        if (t == next_send) {
            /* every node's Tx_Clock ticks: its Tx_Data holds one CAN Transmit */
            for (unsigned i = 0; i < tr->nodes; i++) {
                uint8_t data[8];
                payload(i, k, data);
                rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT};
                op.u.transmit = (rtcosim_lsbus_can_transmit){.id = FRAME_ID(i),
                                                             .data_length = 8, .data = data};
                size_t used = 0;
                if (rtcosim_lsbus_write(tx[i], sizeof tx[i], &used, &op, &err) != RTCOSIM_OK ||
                    rtcosim_lsbus_can_bridge_push(b, i, t, tx[i], used, &err) != RTCOSIM_OK)
                    goto fail;
            }
            k++;
            next_send += tr->period;
        }
        if (rtcosim_lsbus_can_bridge_advance(b, t, &err) != RTCOSIM_OK)
            goto fail;
        /* Rx_Data of every node; the last node's shows each frame once: the
         * others' as Transmit ops, its own as a Confirm */
        for (unsigned i = 0; i < tr->nodes; i++) {
            size_t size;
            const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b, i, &size);
            if (i + 1 != tr->nodes || size == 0)
                continue;
            rtcosim_lsbus_reader r;
            rtcosim_lsbus_op op;
            bool got;
            rtcosim_lsbus_reader_init(&r, rx, size);
            while (rtcosim_lsbus_read(&r, &op, &got, &err) == RTCOSIM_OK && got) {
                uint32_t id = op.code == RTCOSIM_LSBUS_OP_CAN_TRANSMIT ? op.u.transmit.id
                              : op.code == RTCOSIM_LSBUS_OP_CAN_CONFIRM ? op.u.id
                                                                         : 0;
                if (id) {
                    *checksum = mix(*checksum, t, id);
                    (*frames)++;
                }
            }
        }
    }
    *wall_s = (double)(bench_now_ns() - t0) * 1e-9;
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    *dropped = st.dropped;
    rtcosim_lsbus_can_bridge_free(b);
    return 0;
fail:
    fprintf(stderr, "rtcosim: bench lsbus (bridge): %s\n", err.message);
    rtcosim_lsbus_can_bridge_free(b);
    return 1;
}

/* ---- node FMUs in a system on the bus component (rtcosim run --can-bus) ---- */

static int run_fmus(const traffic *tr, const char *fmu, double *wall_s, uint64_t *frames,
                    uint64_t *dropped)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_master *m = NULL;
    rtcosim_fmu_options opts = {.event_mode_where_declared = true};
    char names[NODES][16], terminals[NODES][24];
    const char *node_names[NODES];
    if (rtcosim_master_create(tr->period, &m, &err) != RTCOSIM_OK)
        goto fail;
    for (unsigned i = 0; i < tr->nodes; i++) {
        rtcosim_component *c = NULL;
        snprintf(names[i], sizeof names[i], "n%u", i);
        snprintf(terminals[i], sizeof terminals[i], "n%u.CAN", i);
        node_names[i] = terminals[i];
        char var[64], value[32];
        if (rtcosim_fmu_load(fmu, &opts, &c, &err) != RTCOSIM_OK ||
            rtcosim_master_add_component(m, names[i], c, 1, &err) != RTCOSIM_OK)
            goto fail;
        static const char *const params[][2] = {{"data_length", "8"}, {"offset", "0"}};
        for (int p = 0; p < 2; p++) {
            snprintf(var, sizeof var, "n%u.%s", i, params[p][0]);
            if (rtcosim_master_set_start_value(m, var, params[p][1], &err) != RTCOSIM_OK)
                goto fail;
        }
        snprintf(var, sizeof var, "n%u.can_id", i);
        snprintf(value, sizeof value, "%u", FRAME_ID(i));
        if (rtcosim_master_set_start_value(m, var, value, &err) != RTCOSIM_OK)
            goto fail;
        snprintf(var, sizeof var, "n%u.period", i);
        snprintf(value, sizeof value, "%.17g", rtcosim_time_to_seconds(tr->period));
        if (rtcosim_master_set_start_value(m, var, value, &err) != RTCOSIM_OK)
            goto fail;
    }
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = tr->nodes,
                                           .bitrate = 500000, .bus_notifications = true};
    rtcosim_component *bus = NULL;
    if (rtcosim_lsbus_can_bus_component_create(&cfg, node_names, &bus, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "can0", bus, 1, &err) != RTCOSIM_OK)
        goto fail;
    static const char *const members[4] = {"Tx_Data", "Tx_Clock", "Rx_Data", "Rx_Clock"};
    for (unsigned i = 0; i < tr->nodes; i++)
        for (int k = 0; k < 4; k++) {
            char node_side[64], bus_side[64];
            snprintf(node_side, sizeof node_side, "n%u.CAN.%s", i, members[k]);
            snprintf(bus_side, sizeof bus_side, "can0.n%u.CAN.%s", i, members[k]);
            bool to_bus = k < 2;
            if (rtcosim_master_connect(m, to_bus ? node_side : bus_side,
                                       to_bus ? bus_side : node_side, NULL, &err) != RTCOSIM_OK)
                goto fail;
        }
    if (rtcosim_master_initialize(m, 0, tr->stop, &err) != RTCOSIM_OK)
        goto fail;
    int64_t t0 = bench_now_ns();
    if (rtcosim_master_run(m, tr->stop, NULL, NULL, &err) != RTCOSIM_OK)
        goto fail;
    *wall_s = (double)(bench_now_ns() - t0) * 1e-9;
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(
        rtcosim_lsbus_can_bus_component_bridge(rtcosim_master_component(m, "can0")), &st);
    *frames = st.frames;
    *dropped = st.dropped;
    rtcosim_master_free(m);
    return 0;
fail:
    fprintf(stderr, "rtcosim: bench lsbus (node FMUs): %s\n", err.message);
    rtcosim_master_free(m);
    return 1;
}

/* One traffic pattern: the three paths, interleaved over the repeats,
 * their figures under `prefix`. */
static int run_case(const traffic *tr, const char *fmu, unsigned repeats, const char *prefix)
{
    double wall[3][50], load[2] = {0, 0};
    uint64_t frames[3] = {0}, sums[3] = {0}, dropped[3] = {0};
    for (unsigned r = 0; r < repeats; r++) {
        /* interleaved, so that a passing load hits all alike */
        if (run_native(tr, &wall[0][r], &frames[0], &sums[0], &dropped[0], load) ||
            run_bridge(tr, &wall[1][r], &frames[1], &sums[1], &dropped[1]) ||
            run_fmus(tr, fmu, &wall[2][r], &frames[2], &dropped[2]))
            return 1;
    }
    printf("\n%s: a frame per node every %.6g ms: bus load %.2f (busy time / time), offered %.2f%s\n",
           prefix, rtcosim_time_to_seconds(tr->period) * 1e3, load[0], load[1],
           load[1] > 1 ? " (overloaded: transmit queues fill and drop frames)" : "");
    double sim_s = rtcosim_time_to_seconds(tr->stop);
    double med[3] = {bench_median(wall[0], repeats), bench_median(wall[1], repeats),
                     bench_median(wall[2], repeats)};
    const char *names[3] = {"native node LPs + bus LP", "LS-BUS bridge", "node FMUs + bus (run)"};
    printf("%-26s %10s %10s %9s %12s %18s\n", "path", "frames", "dropped", "wall s", "sim s/wall s",
           "checksum");
    for (int c = 0; c < 3; c++)
        printf("%-26s %10" PRIu64 " %10" PRIu64 " %9.4f %12.1f %18" PRIx64 "\n", names[c],
               frames[c], dropped[c], med[c], sim_s / med[c], sums[c]);
    bool same = frames[0] == frames[1] && sums[0] == sums[1];
    double bridge_ns = frames[1] ? (med[1] - med[0]) * 1e9 / (double)frames[1] : 0;
    double fmus_ns = frames[2] ? (med[2] - med[0]) * 1e9 / (double)frames[2] : 0;
    printf("bridge: same frames at the same end times as native: %s; overhead per frame %.1f ns\n",
           same ? "yes" : "NO", bridge_ns);
    printf("node FMUs (fixed payload, so other stuffing): %.1f ns per frame, native %.1f ns: "
           "overhead per frame over native %.1f ns\n",
           frames[2] ? med[2] * 1e9 / (double)frames[2] : 0,
           frames[0] ? med[0] * 1e9 / (double)frames[0] : 0, fmus_ns);
    char name[96];
#define FIGURE(suffix, value, unit)                                                          \
    (snprintf(name, sizeof name, "%s.%s", prefix, suffix), bench_figure(name, value, unit))
    FIGURE("sim_s_per_wall_s", sim_s / med[2], "x");
    FIGURE("overhead_ns_per_frame", fmus_ns, "ns");
    FIGURE("bus_load", load[0], "");
    FIGURE("offered_load", load[1], "");
    FIGURE("bridge.sim_s_per_wall_s", sim_s / med[1], "x");
    FIGURE("native.sim_s_per_wall_s", sim_s / med[0], "x");
    FIGURE("bridge.ns_per_frame", med[1] * 1e9 / (double)(frames[1] ? frames[1] : 1), "ns");
    FIGURE("bridge.overhead_ns_per_frame", bridge_ns, "ns");
    FIGURE("identical", same ? 1 : 0, "bool");
#undef FIGURE
    return same ? 0 : 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: rtcosim bench lsbus [--quick] [--repeats N] [--stop-time T]"
                    " [--period T] [--nodes N] [--fmu LsBusNode-fmi3.fmu]\n");
    return 2;
}

static int run_lsbus_bench(int argc, char **argv)
{
    unsigned repeats = 5;
    traffic tr = {.nodes = NODES, .period = RTCOSIM_NS_PER_MS, .stop = 10 * RTCOSIM_NS_PER_S};
    rtcosim_error err;
    static char fmu[4096];
    const char *fmu_given = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fmu") == 0 && i + 1 < argc) {
            fmu_given = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            repeats = 1;
            tr.stop = RTCOSIM_NS_PER_S;
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            unsigned long v;
            if (!bench_parse_count(argv[++i], 1, 1000, &v))
                return usage();
            repeats = (unsigned)v;
        } else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            unsigned long v;
            if (!bench_parse_count(argv[++i], 1, 1000, &v))
                return usage();
            tr.nodes = (unsigned)v;
        } else if ((strcmp(argv[i], "--stop-time") == 0 || strcmp(argv[i], "--period") == 0) &&
                   i + 1 < argc) {
            rtcosim_time_ns *dst = argv[i][2] == 's' ? &tr.stop : &tr.period;
            if (rtcosim_time_parse_seconds(argv[++i], dst, &err) != RTCOSIM_OK || *dst <= 0)
                return usage();
        } else {
            return usage();
        }
    }
    if (repeats == 0 || repeats > 50 || tr.nodes < 2 || tr.nodes > NODES)
        return usage();
    if (fmu_given)
        snprintf(fmu, sizeof fmu, "%s", fmu_given);
    else if (rtcosim_example_fmu_path("LsBusNode-fmi3.fmu", fmu, sizeof fmu, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: bench lsbus: %s\n", err.message);
        return 1;
    }
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* queue-full warnings of an overloaded bus */
    printf("LS-BUS node FMUs, bridge and native bus LP: %u nodes, 500 kbit/s, one 8-byte frame per "
           "node every period, %.6g s simulated, median of %u\n",
           tr.nodes, rtcosim_time_to_seconds(tr.stop), repeats);
    bench_print_load();
    /* The case (a frame per node every 1 ms: 16 x ~120 bits x 2 us
     * per ms offers the bus about 3.5 times what it carries, so transmit
     * queues fill and drop frames) and one under the bus's capacity. */
    traffic under = tr;
    under.period = 5 * tr.period;
    int rc = run_case(&tr, fmu, repeats, "lsbus");
    if (rc == 0)
        rc = run_case(&under, fmu, repeats, "lsbus.under_capacity");
    return rc;
}

const rtcosim_bench rtcosim_bench_lsbus = {"lsbus", "B13: 16 LS-BUS CAN node FMUs on rtcosim's bus,"
                                           " the bridge alone, native node LPs", run_lsbus_bench};
