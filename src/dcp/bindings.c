/* `--dcp COMPONENT=[udp://|tcp://]HOST:PORT`: system components replaced by remote DCP
 * slaves when the master is built (the build's wrap hook), so that an SSD
 * runs with some of its parts on another computer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcp/remote_internal.h"
#include "rtcosim/dcp.h"

typedef struct binding {
    char component[128];
    char host[64];
    uint16_t port;
    uint8_t transport;
    bool used;
} binding;

struct rtcosim_dcp_bindings {
    binding *items;
    size_t count;
    bool hold_lost_outputs;
    bool soft_real_time;
    rtcosim_time_ns srt_step_ns, srt_wait_ns;
};

void rtcosim_dcp_bindings_soft_real_time(rtcosim_dcp_bindings *b, bool srt)
{
    if (b)
        b->soft_real_time = srt;
}

void rtcosim_dcp_bindings_partner_prepare(void *context, rtcosim_time_ns macro_step,
                                          rtcosim_time_ns partner_timeout)
{
    rtcosim_dcp_bindings *b = context;
    if (!b)
        return;
    b->srt_step_ns = macro_step;
    b->srt_wait_ns = partner_timeout; /* 0: the remote's default */
}

void rtcosim_dcp_bindings_hold_lost_outputs(rtcosim_dcp_bindings *b, bool hold)
{
    if (b)
        b->hold_lost_outputs = hold;
}

rtcosim_status rtcosim_dcp_bindings_add(rtcosim_dcp_bindings **bindings, const char *spec,
                                        rtcosim_error *err)
{
    const char *eq = strchr(spec, '='), *colon = strrchr(spec, ':');
    uint8_t transport = RTCOSIM_DCP_UDP_IPV4;
    size_t scheme = 0;
    if (eq && strncmp(eq + 1, "tcp://", 6) == 0)
        transport = RTCOSIM_DCP_TCP_IPV4, scheme = 6;
    else if (eq && strncmp(eq + 1, "udp://", 6) == 0)
        scheme = 6;
    char *end = NULL;
    long port = colon ? (errno = 0, strtol(colon + 1, &end, 10)) : -1;
    if (!eq || !colon || colon < eq || eq == spec || (size_t)(eq - spec) >= sizeof ((binding *)0)->component ||
        colon <= eq + scheme || (size_t)(colon - eq - 1 - scheme) >= sizeof ((binding *)0)->host ||
        colon == eq + 1 + scheme || !end ||
        *end || errno || port <= 0 || port > 65535)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "--dcp: '%s' is not COMPONENT=[tcp://|udp://]HOST:PORT (IPv4 address, "
                                 "port 1..65535)",
                                 spec);
    if (!*bindings && !(*bindings = calloc(1, sizeof **bindings)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "--dcp: out of memory");
    rtcosim_dcp_bindings *b = *bindings;
    binding *items = realloc(b->items, (b->count + 1) * sizeof *items);
    if (!items)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "--dcp: out of memory");
    b->items = items;
    binding *it = &items[b->count++];
    memset(it, 0, sizeof *it);
    memcpy(it->component, spec, (size_t)(eq - spec));
    memcpy(it->host, eq + 1 + scheme, (size_t)(colon - eq - 1 - scheme));
    it->port = (uint16_t)port;
    it->transport = transport;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcp_bindings_create(rtcosim_dcp_bindings **out, rtcosim_error *err)
{
    if (!(*out = calloc(1, sizeof **out)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "--dcp: out of memory");
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcp_bindings_wrap(void *context, const char *name,
                                         rtcosim_component *component, rtcosim_component **out,
                                         rtcosim_error *err)
{
    rtcosim_dcp_bindings *b = context;
    *out = component;
    for (size_t i = 0; b && i < b->count; i++) {
        if (strcmp(b->items[i].component, name) != 0)
            continue;
        /* A component from a .dcpx keeps what its DCPX said of SRT. */
        bool from_dcpx = strcmp(rtcosim_component_kind(component), "dcp") == 0;
        rtcosim_dcp_remote_config cfg = {.host = b->items[i].host, .port = b->items[i].port,
                                         .transport = b->items[i].transport,
                                         .hold_lost_outputs = b->hold_lost_outputs,
                                         .no_srt = from_dcpx &&
                                                   ((remote *)rtcosim_component_impl(component))->cfg.no_srt,
                                         .soft_real_time = b->soft_real_time,
                                         .srt_step_ns = b->srt_step_ns,
                                         .srt_wait_ns = b->srt_wait_ns};
        if (from_dcpx) {
            /* ... and its uuid and time resolution: only the address moves. */
            const remote *was = rtcosim_component_impl(component);
            memcpy(cfg.uuid, was->cfg.uuid, sizeof cfg.uuid);
            cfg.time_res_numerator = was->cfg.time_res_numerator;
            cfg.time_res_denominator = was->cfg.time_res_denominator;
        }
        rtcosim_status st = rtcosim_dcp_remote_create(&cfg, rtcosim_component_description(component),
                                                      out, err);
        rtcosim_component_free(component);
        if (st != RTCOSIM_OK) {
            *out = NULL;
            return rtcosim_error_prefix(err, "--dcp %s=%s%s:%u: ", name,
                                        b->items[i].transport == RTCOSIM_DCP_TCP_IPV4 ? "tcp://" : "",
                                        b->items[i].host, (unsigned)b->items[i].port);
        }
        b->items[i].used = true;
        return RTCOSIM_OK;
    }
    if (b && b->soft_real_time && strcmp(rtcosim_component_kind(component), "dcp") == 0) {
        /* A remote slave from its .dcpx, not rebound: a real-time partner too. */
        remote *r = rtcosim_component_impl(component);
        r->cfg.hold_lost_outputs = b->hold_lost_outputs;
        return dcp_remote_make_srt(r, b->srt_step_ns, b->srt_wait_ns, err);
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcp_bindings_check_used(const rtcosim_dcp_bindings *b, rtcosim_error *err)
{
    for (size_t i = 0; b && i < b->count; i++)
        if (!b->items[i].used)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "--dcp: the system has no component '%s'",
                                     b->items[i].component);
    return RTCOSIM_OK;
}

size_t rtcosim_dcp_bindings_count(const rtcosim_dcp_bindings *b)
{
    return b ? b->count : 0;
}

const char *rtcosim_dcp_bindings_component(const rtcosim_dcp_bindings *b, size_t index)
{
    return b && index < b->count ? b->items[index].component : NULL;
}

const char *rtcosim_dcp_bindings_unused(const rtcosim_dcp_bindings *b)
{
    for (size_t i = 0; b && i < b->count; i++)
        if (!b->items[i].used)
            return b->items[i].component;
    return NULL;
}

void rtcosim_dcp_bindings_free(rtcosim_dcp_bindings *b)
{
    if (!b)
        return;
    free(b->items);
    free(b);
}
