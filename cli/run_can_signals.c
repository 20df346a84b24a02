/* `rtcosim run --can-signals NAME=F.dbc,NODE=COMP[,...][,COMP.VAR=MSG.SIG...]`:
 * a CAN bus carrying the DBC's signals between components with plain
 * signal ports (src/can/signal_bus.c). NODE=COMP: component COMP is DBC
 * node NODE: the bus sends NODE's messages, each signal from COMP's Float64
 * output named like it (SIGNAL, or MESSAGE.SIGNAL), and gives COMP's
 * Float64 inputs so named the values of the other nodes' messages as the
 * bus delivered them. COMP.VAR=MSG.SIG connects one variable explicitly
 * (an output to the signal it sends, an input to the signal it receives). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "can_replay.h"
#include "cli.h"
#include "rtcosim/can_log.h"
#include "rtcosim/can_signals.h"
#include "rtcosim/log.h"
#include "run_can_bus.h"

#define MAX_ENTRIES 64

typedef struct mapping {
    const char *node, *comp; /* NODE=COMP */
} mapping;

typedef struct spec {
    char text[4096];
    char *name, *dbc_path;
    mapping nodes[MAX_ENTRIES];
    size_t node_count;
    char *explicit_left[MAX_ENTRIES], *explicit_right[MAX_ENTRIES];
    size_t explicit_count;
    cli_can_replay replay; /* replay:LOG[@BUS] */
    bool replaying;
} spec;

static int parse(spec *s, const char *text)
{
    memset(s, 0, sizeof *s);
    if (snprintf(s->text, sizeof s->text, "%s", text) >= (int)sizeof s->text)
        return cli_fail("--can-signals: '%.40s...' is too long", text);
    char *eq = strchr(s->text, '=');
    if (!eq || eq == s->text || !eq[1])
        return cli_fail("--can-signals needs NAME=F.dbc,NODE=COMP[,...], not '%s'", text);
    *eq = '\0';
    s->name = s->text;
    char *save = NULL;
    s->dbc_path = strtok_r(eq + 1, ",", &save);
    for (char *tok = strtok_r(NULL, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strncmp(tok, "replay:", 7) == 0) {
            char option[160];
            snprintf(option, sizeof option, "--can-signals %s: replay:", s->name);
            if (s->replaying)
                return cli_fail("--can-signals %s: one replay:LOG a bus", s->name);
            if (cli_can_replay_parse(&s->replay, option, tok + 7))
                return CLI_EXIT_USAGE;
            s->replaying = true;
            continue;
        }
        char *e = strchr(tok, '=');
        if (!e || e == tok || !e[1])
            return cli_fail("--can-signals %s: '%s' is neither NODE=COMP nor COMP.VAR=MSG.SIG",
                            s->name, tok);
        *e = '\0';
        bool dotted = memchr(tok, '.', (size_t)(e - tok)) != NULL;
        if (dotted && !strchr(e + 1, '.'))
            return cli_fail("--can-signals %s: '%s=%s' needs MESSAGE.SIGNAL on the right", s->name,
                            tok, e + 1);
        if ((dotted ? s->explicit_count : s->node_count) == MAX_ENTRIES)
            return cli_fail("--can-signals %s: at most %d of each kind of entry", s->name,
                            MAX_ENTRIES);
        if (dotted) {
            s->explicit_left[s->explicit_count] = tok;
            s->explicit_right[s->explicit_count++] = e + 1;
        } else {
            s->nodes[s->node_count++] = (mapping){.node = tok, .comp = e + 1};
        }
    }
    if (s->node_count == 0 && s->explicit_count == 0)
        return cli_fail("--can-signals %s: no NODE=COMP (which DBC node each component is) nor"
                        " COMP.VAR=MSG.SIG", s->name);
    return 0;
}

/* COMP's Float64 variable of `causality` named "MSG.SIG" or "SIG", else NULL. */
static const rtcosim_variable *find(const rtcosim_component *c, const rtcosim_dbc_message *m,
                                    const rtcosim_dbc_signal *sig, rtcosim_causality causality)
{
    char qualified[512];
    snprintf(qualified, sizeof qualified, "%s.%s", m->name, sig->name);
    const rtcosim_variable *v = rtcosim_component_find_variable(c, qualified);
    if (!v)
        v = rtcosim_component_find_variable(c, sig->name);
    return v && v->causality == causality && v->type == RTCOSIM_TYPE_FLOAT64 ? v : NULL;
}

static const char *node_of(const spec *s, const char *comp)
{
    for (size_t i = 0; i < s->node_count; i++)
        if (strcmp(s->nodes[i].comp, comp) == 0)
            return s->nodes[i].node;
    return NULL;
}

static int connect(rtcosim_master *m, const char *bus, const char *from, const char *to,
                   size_t *count)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    if (rtcosim_master_connect(m, from, to, NULL, &err) != RTCOSIM_OK)
        return cli_fail("--can-signals %s: %s", bus, err.message);
    ++*count;
    return 0;
}

/* The automatic connections of one NODE=COMP. */
static int connect_node(const spec *s, const rtcosim_dbc *dbc, rtcosim_master *m,
                        const mapping *map, size_t *tx, size_t *rx)
{
    rtcosim_component *c = rtcosim_master_component(m, map->comp);
    if (!c)
        return cli_fail("--can-signals %s: no component '%s' (for node %s)", s->name, map->comp,
                        map->node);
    for (size_t i = 0; i < rtcosim_dbc_message_count(dbc); i++) {
        const rtcosim_dbc_message *msg = rtcosim_dbc_message_at(dbc, i);
        bool own = msg->transmitter && strcmp(msg->transmitter, map->node) == 0;
        for (size_t k = 0; k < msg->signal_count; k++) {
            const rtcosim_dbc_signal *sig = &msg->signals[k];
            const rtcosim_variable *v = find(c, msg, sig, own ? RTCOSIM_CAUSALITY_OUTPUT
                                                              : RTCOSIM_CAUSALITY_INPUT);
            if (!v)
                continue;
            char var[600], port[600];
            snprintf(var, sizeof var, "%s.%s", map->comp, v->name);
            snprintf(port, sizeof port, "%s.%s.%s.%s", s->name, own ? "tx" : "rx", msg->name,
                     sig->name);
            int rc = own ? connect(m, s->name, var, port, tx) : connect(m, s->name, port, var, rx);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int explicit_connection(const spec *s, const rtcosim_dbc *dbc, rtcosim_master *m,
                               size_t i, size_t *tx, size_t *rx)
{
    char comp[256];
    const char *left = s->explicit_left[i], *dot = strchr(left, '.');
    snprintf(comp, sizeof comp, "%.*s", (int)(dot - left), left);
    const rtcosim_component *c = rtcosim_master_component(m, comp);
    const rtcosim_variable *v = c ? rtcosim_component_find_variable(c, dot + 1) : NULL;
    if (!v)
        return cli_fail("--can-signals %s: no variable '%s'", s->name, left);
    char msg_name[256];
    const char *right = s->explicit_right[i], *sdot = strchr(right, '.');
    snprintf(msg_name, sizeof msg_name, "%.*s", (int)(sdot - right), right);
    const rtcosim_dbc_message *msg = rtcosim_dbc_find_message(dbc, msg_name);
    if (!msg || !rtcosim_dbc_find_signal(msg, sdot + 1))
        return cli_fail("--can-signals %s: %s: no signal '%s' in %s", s->name, left, right,
                        s->dbc_path);
    char port[600];
    if (v->causality == RTCOSIM_CAUSALITY_OUTPUT) {
        const char *node = node_of(s, comp);
        if (!node || !msg->transmitter || strcmp(node, msg->transmitter) != 0)
            return cli_fail("--can-signals %s: %s sends %s, a message of node %s: map %s=%s",
                            s->name, left, right, msg->transmitter ? msg->transmitter : "?",
                            msg->transmitter ? msg->transmitter : "NODE", comp);
        snprintf(port, sizeof port, "%s.tx.%s", s->name, right);
        return connect(m, s->name, left, port, tx);
    }
    snprintf(port, sizeof port, "%s.rx.%s", s->name, right);
    return connect(m, s->name, port, left, rx);
}

static int attach_one(const cli_can_buses *b, const char *text, rtcosim_master *m)
{
    static spec s; /* large */
    int rc = parse(&s, text);
    if (rc)
        return rc;
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_dbc *dbc = NULL;
    if (rtcosim_dbc_load(s.dbc_path, &dbc, &err) != RTCOSIM_OK)
        return cli_fail("--can-signals %s: %s", s.name, err.message);
    /* the nodes that transmit a message send; the others only receive */
    const char *senders[MAX_ENTRIES];
    size_t sender_count = 0;
    for (size_t i = 0; i < s.node_count; i++)
        for (size_t k = 0; k < rtcosim_dbc_message_count(dbc); k++) {
            const char *t = rtcosim_dbc_message_at(dbc, k)->transmitter;
            if (t && strcmp(t, s.nodes[i].node) == 0) {
                senders[sender_count++] = s.nodes[i].node;
                break;
            }
        }
    rtcosim_can_signal_bus_config config = {
        .name = s.name, .bitrate = b->bitrate, .senders = senders, .sender_count = sender_count,
        .log_frames = b->log_path != NULL || b->report_dir != NULL,
        .log_capacity = b->real_time ? b->log_capacity : 0,
        .replay_path = s.replaying ? s.replay.path : NULL,
        .replay_bus = s.replaying && s.replay.bus[0] ? s.replay.bus : NULL};
    rtcosim_component *bus = NULL;
    if (rtcosim_can_signal_bus_create(&config, dbc, s.dbc_path, &bus, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, s.name, bus, 1, &err) != RTCOSIM_OK)
        return cli_fail("--can-signals %s: %s", s.name, err.message);
    size_t tx = 0, rx = 0;
    const rtcosim_dbc *db = rtcosim_can_signal_bus_dbc(bus);
    for (size_t i = 0; i < s.explicit_count && !rc; i++)
        rc = explicit_connection(&s, db, m, i, &tx, &rx);
    for (size_t i = 0; i < s.node_count && !rc; i++)
        rc = connect_node(&s, db, m, &s.nodes[i], &tx, &rx);
    if (!rc && tx + rx == 0)
        rc = cli_fail("--can-signals %s: no variable of the components is named like a signal of"
                      " %s (SIGNAL or MESSAGE.SIGNAL), and no COMP.VAR=MSG.SIG given", s.name,
                      s.dbc_path);
    if (!rc)
        rtcosim_log(RTCOSIM_LOG_INFO, "can", "can bus %s: %zu signals sent from outputs, %zu"
                    " received into inputs (%s)", s.name, tx, rx, s.dbc_path);
    return rc;
}

int cli_can_signals_attach(const cli_can_buses *b, rtcosim_master *m)
{
    for (unsigned i = 0; i < b->signal_count; i++) {
        int rc = attach_one(b, b->signal_specs[i], m);
        if (rc)
            return rc;
    }
    return 0;
}

int cli_can_signals_finish(const cli_can_buses *b, rtcosim_master *m)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    for (unsigned i = 0; i < b->signal_count; i++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s",
                 (int)(strchr(b->signal_specs[i], '=') - b->signal_specs[i]), b->signal_specs[i]);
        rtcosim_component *c = rtcosim_master_component(m, name);
        rtcosim_can_bus *can = rtcosim_can_signal_bus_can(c);
        if (!can)
            continue;
        rtcosim_can_bus_stats st;
        rtcosim_can_bus_stats_get(can, rtcosim_master_time(m), &st);
        printf("can bus %s: %u bit/s (DBC signals), %llu frames, busy %.9g s, load %.1f %%, "
               "worst latency %.1f us\n", name, rtcosim_can_bus_bitrate(can),
               (unsigned long long)st.frames, rtcosim_time_to_seconds(st.busy_ns), 100.0 * st.load,
               (double)st.max_latency_ns / 1e3);
        const rtcosim_can_replay *replay = rtcosim_can_signal_bus_replay(c);
        if (replay) {
            rtcosim_can_replay_stats rs;
            rtcosim_can_replay_stats_get(replay, &rs);
            printf("can bus %s: replay of %zu frames from log time %.6f s, %zu left out whose ids"
                   " the senders send\n", name, rs.frames, rtcosim_time_to_seconds(rs.origin),
                   rs.own_skipped);
        }
        uint64_t unknown = rtcosim_can_signal_bus_unknown(c);
        if (unknown)
            printf("can bus %s: %llu frames of ids the DBC does not define (not decoded)\n", name,
                   (unsigned long long)unknown);
        int rc = b->log_path ? cli_can_log_finish(name, b->log_path, can, NULL) : 0;
        if (rc)
            return rc;
        if (b->report_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/can_%s.log", b->report_dir, name);
            if (rtcosim_can_bus_write_log(can, path, &err) != RTCOSIM_OK)
                return cli_fail_error(&err);
        }
    }
    return 0;
}
