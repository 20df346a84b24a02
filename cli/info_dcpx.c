/* `rtcosim info SLAVE.dcpx`: what the master reads from a DCP slave
 * description (src/dcp/dcpx.c), as `rtcosim run` uses it for a component
 * whose source is the file. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "info_system.h"
#include "rtcosim/dcp.h"

static void fact(const char *label, const char *value)
{
    if (value && *value)
        printf("%-20s %s\n", label, value);
}

int cli_info_dcpx(const char *path)
{
    rtcosim_dcpx *d = NULL;
    rtcosim_error err;
    if (rtcosim_dcpx_load(path, &d, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    fact("DCPX", path);
    fact("slave name", rtcosim_dcpx_slave_name(d));
    uint8_t uuid[16];
    char text[128];
    if (rtcosim_dcpx_uuid(d, uuid)) {
        rtcosim_dcp_uuid_format(uuid, text);
        fact("uuid", text);
    } else {
        fact("uuid", "(none: the master registers with the nil uuid)");
    }
    static const struct { rtcosim_dcp_op_mode mode; const char *name; } modes[] = {
        {RTCOSIM_DCP_OP_NRT, "NRT"}, {RTCOSIM_DCP_OP_SRT, "SRT"}, {RTCOSIM_DCP_OP_HRT, "HRT (not driven)"}};
    size_t at = 0;
    text[0] = '\0';
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
        if (rtcosim_dcpx_supports(d, modes[k].mode))
            at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", at ? ", " : "",
                                   modes[k].name);
    fact("operating modes", text[0] ? text : "(none)");
    uint32_t num = 0, den = 0;
    rtcosim_dcpx_time_resolution(d, &num, &den);
    snprintf(text, sizeof text, "%" PRIu32 "/%" PRIu32 " s (what the master configures)", num, den);
    fact("time resolution", text);
    if (rtcosim_dcpx_host(d) || rtcosim_dcpx_port(d)) {
        snprintf(text, sizeof text, "%s:%u", rtcosim_dcpx_host(d) ? rtcosim_dcpx_host(d) : "?",
                 (unsigned)rtcosim_dcpx_port(d));
        fact("UDP/IPv4 control", text);
    }
    if (rtcosim_dcpx_tcp_host(d) || rtcosim_dcpx_tcp_port(d)) {
        snprintf(text, sizeof text, "%s:%u", rtcosim_dcpx_tcp_host(d) ? rtcosim_dcpx_tcp_host(d) : "?",
                 (unsigned)rtcosim_dcpx_tcp_port(d));
        fact("TCP/IPv4 control", text);
    }
    const rtcosim_component_desc *desc = rtcosim_dcpx_component_desc(d);
    cli_info_print_variable_table(desc->variables, desc->variable_count);
    const uint32_t *max = rtcosim_dcpx_max_sizes(d);
    bool heading = false;
    for (size_t i = 0; i < desc->variable_count; i++) {
        const rtcosim_variable *v = &desc->variables[i];
        if (v->type != RTCOSIM_TYPE_STRING && v->type != RTCOSIM_TYPE_BINARY)
            continue;
        if (!heading)
            printf("\nString and Binary variables:\n");
        heading = true;
        if (max && max[i])
            printf("  %-20s maxSize %" PRIu32 " (values of up to %" PRIu32 " bytes are sent: "
                   "the 4-byte length counted, as DCPLib does)\n",
                   v->name, max[i], max[i] > 4 ? max[i] - 4 : 0);
        else
            printf("  %-20s no maxSize\n", v->name);
    }
    size_t n_templates = 0;
    const rtcosim_dcp_log_template *t = rtcosim_dcpx_log_templates(d, &n_templates);
    if (n_templates) {
        static const char *const levels[] = {"fatal", "error", "warning", "information", "debug"};
        printf("\nlog templates (%s):\n", rtcosim_dcpx_log_on_notification(d)
                                                ? "logging on notification"
                                                : "the slave declares no logging on notification");
        for (size_t i = 0; i < n_templates; i++)
            printf("  %3u  category %-3u %-11s \"%s\"\n", (unsigned)t[i].id,
                   (unsigned)t[i].category, t[i].level <= 4 ? levels[t[i].level] : "?", t[i].msg);
    }
    rtcosim_dcpx_free(d);
    return 0;
}
