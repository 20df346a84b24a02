/* `rtcosim run --can-bus NAME=COMP.TERMINAL,...`: each bus is a component of
 * the system (src/lsbus/bus_component.c) whose NODE.Tx_Data / Tx_Clock /
 * Rx_Data / Rx_Clock members are connected, as a bus-simulation FMU's would
 * be (LS-BUS 1.0 section 3.2.3), to the network terminal's members of each
 * node FMU (terminalsAndIcons.xml; without one, TERMINAL.Tx_Data etc.). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_can_bus.h"
#include "rtcosim/fmu.h"
#include "rtcosim/lsbus.h"

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
        if (!val || !strchr(val, '=') || strchr(val, '=') == val || !strchr(val, '.'))
            return cli_fail("--can-bus needs NAME=COMP.TERMINAL[,COMP.TERMINAL...], not '%s'",
                            val ? val : ""), -1;
        if (b->count == CLI_CAN_BUSES_MAX)
            return cli_fail("--can-bus: at most %d buses", CLI_CAN_BUSES_MAX), -1;
        b->specs[b->count++] = val;
    } else if (strcmp(opt, "--can-bitrate") == 0) {
        if (parse_u32(opt, val, 8000000, &v))
            return -1;
        if (v < 1000)
            return cli_fail("--can-bitrate: %s bit/s is below 1000", val), -1;
        b->bitrate = v;
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

static int attach_one(const cli_can_buses *b, const char *spec, rtcosim_master *m)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    const char *eq = strchr(spec, '=');
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    /* The nodes: COMP.TERMINAL, comma separated. */
    char list[2048];
    snprintf(list, sizeof list, "%s", eq + 1);
    char *nodes[64];
    uint32_t count = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (count == 64)
            return cli_fail("--can-bus %s: at most 64 nodes", name);
        nodes[count++] = tok;
    }
    if (count == 0)
        return cli_fail("--can-bus %s: no nodes", name);
    const char *node_names[64];
    for (uint32_t i = 0; i < count; i++)
        node_names[i] = nodes[i];
    rtcosim_lsbus_can_bridge_config config = {
        .name = name,
        .node_count = count,
        .bitrate = b->bitrate,
        .force_bitrate = b->bitrate != 0,
        .bus_notifications = true,
        .error_every = b->error_every,
        .error_code = b->error_code ? b->error_code : RTCOSIM_LSBUS_CAN_CRC_ERROR,
        .log_frames = b->log_path != NULL,
    };
    rtcosim_component *bus = NULL;
    if (rtcosim_lsbus_can_bus_component_create(&config, node_names, &bus, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, name, bus, 1, &err) != RTCOSIM_OK)
        return cli_fail("--can-bus %s: %s", name, err.message);
    for (uint32_t i = 0; i < count; i++) {
        char *dot = strrchr(nodes[i], '.');
        if (!dot || dot == nodes[i] || !dot[1])
            return cli_fail("--can-bus %s: '%s' is not COMP.TERMINAL", name, nodes[i]);
        *dot = '\0';
        const char *comp = nodes[i], *terminal = dot + 1;
        rtcosim_component *c = rtcosim_master_component(m, comp);
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
    if (b->log_path && b->count != 1)
        return cli_fail("--can-log needs exactly one --can-bus");
    if ((b->bitrate || b->error_every || b->error_code) && b->count == 0)
        return cli_fail("--can-bitrate, --can-error-every and --can-error-code need --can-bus");
    for (unsigned i = 0; i < b->count; i++) {
        int rc = attach_one(b, b->specs[i], m);
        if (rc)
            return rc;
    }
    return 0;
}

int cli_can_bus_finish(const cli_can_buses *b, rtcosim_master *m)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    for (unsigned i = 0; i < b->count; i++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(b->specs[i], '=') - b->specs[i]),
                 b->specs[i]);
        rtcosim_lsbus_can_bridge *bridge =
            rtcosim_lsbus_can_bus_component_bridge(rtcosim_master_component(m, name));
        if (!bridge)
            continue;
        rtcosim_lsbus_can_bridge_stats s;
        rtcosim_lsbus_can_bridge_stats_get(bridge, &s);
        printf("can bus %s: %u bit/s, %llu frames, %llu confirms, %llu arbitration lost, "
               "%llu bus errors, busy %.9g s\n",
               name, rtcosim_lsbus_can_bridge_bitrate(bridge), (unsigned long long)s.frames,
               (unsigned long long)s.confirms, (unsigned long long)s.arbitration_lost,
               (unsigned long long)s.bus_errors, rtcosim_time_to_seconds(s.busy_ns));
        if (b->log_path) {
            if (rtcosim_lsbus_can_bridge_write_log(bridge, b->log_path, &err) != RTCOSIM_OK)
                return cli_fail_error(&err);
            printf("wrote %zu frames of %s to %s\n", rtcosim_lsbus_can_bridge_log_count(bridge),
                   name, b->log_path);
        }
    }
    return 0;
}
