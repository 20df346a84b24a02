/* A `.dcpx` file as a component source: the component is the remote DCP
 * slave the description names (its UDP_IPv4 Control host and port, else
 * TCP_IPv4's), with the description's variables. `--dcp C=...` may still
 * bind it elsewhere (the build's wrap replaces it before it talks). */
#include <stdio.h>
#include <string.h>

#include "rtcosim/dcp.h"
#include "util/text.h"

rtcosim_status rtcosim_dcp_remote_from_dcpx(const char *path, rtcosim_component **out,
                                            rtcosim_error *err)
{
    *out = NULL;
    rtcosim_dcpx *d = NULL;
    rtcosim_status st = rtcosim_dcpx_load(path, &d, err);
    if (st != RTCOSIM_OK)
        return st;
    if (!rtcosim_dcpx_supports(d, RTCOSIM_DCP_OP_NRT)) {
        rtcosim_dcpx_free(d);
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: the slave offers no NonRealTime operating mode (the master "
                                 "drives it in NRT lock step)", path);
    }
    /* A real-time run's partner asks for SRT; a DCPX without it is NRT. */
    rtcosim_dcp_remote_config cfg = {.no_srt = !rtcosim_dcpx_supports(d, RTCOSIM_DCP_OP_SRT)};
    (void)rtcosim_dcpx_uuid(d, cfg.uuid); /* absent: nil */
    cfg.max_sizes = rtcosim_dcpx_max_sizes(d);
    /* Logging on notification with rtcosim's own slaves only: a DCPLib slave
     * (built as its examples are, with logging) declares it too, but aborts
     * on the CFG_logging that asks for it (std::invalid_argument on log
     * mode 2; seen with DCPLib 39e16f0, src/dcp/README.md). */
    cfg.log_templates = rtcosim_dcpx_log_templates(d, &cfg.log_template_count);
    cfg.log_on_notification = rtcosim_dcpx_log_on_notification(d) && rtcosim_dcpx_by_rtcosim(d);
    rtcosim_dcpx_time_resolution(d, &cfg.time_res_numerator, &cfg.time_res_denominator);
    if (rtcosim_dcpx_host(d) && rtcosim_dcpx_port(d)) {
        cfg.host = rtcosim_dcpx_host(d);
        cfg.port = rtcosim_dcpx_port(d);
    } else if (rtcosim_dcpx_tcp_host(d) && rtcosim_dcpx_tcp_port(d)) {
        cfg.host = rtcosim_dcpx_tcp_host(d);
        cfg.port = rtcosim_dcpx_tcp_port(d);
        cfg.transport = RTCOSIM_DCP_TCP_IPV4;
    } /* else port 0: instantiate asks for --dcp */
    st = rtcosim_dcp_remote_create(&cfg, rtcosim_dcpx_component_desc(d), out, err);
    rtcosim_dcpx_free(d);
    return st;
}

bool rtcosim_dcp_is_dcpx(const char *path) { return util_path_has_ending(path, ".dcpx"); }
