/* rtcosim run --isolate: the selection of FMU components hosted out of
 * process and the build wrap that hosts them (rtcosim_isolate_wrap), so the
 * master, the real-time executor and the Jacobi threads drive them as any
 * other component. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rtcosim/dcp.h"
#include "rtcosim/isolate.h"
#include "run_isolate.h"

int run_isolation_parse_timeout(const char *text)
{
    char *end = NULL;
    double v = text ? strtod(text, &end) : NAN;
    if (!text || !*text || *end || !isfinite(v) || v < 0 || v > 1e6)
        return cli_fail("--isolate-timeout: '%s' is not a number of seconds >= 0 (0: no limit)",
                        text ? text : "");
    rtcosim_isolate_set_timeout(v);
    return 0;
}

int run_isolation_add(run_isolation *iso, const char *names)
{
    size_t used = strlen(iso->names);
    if (!*names)
        return cli_fail("--isolate: empty component list");
    if (used + strlen(names) + 2 > sizeof iso->names)
        return cli_fail("--isolate: too many names");
    snprintf(iso->names + used, sizeof iso->names - used, "%s%s", used ? "," : "", names);
    return 0;
}

bool run_isolation_active(const run_isolation *iso) { return iso->all || iso->names[0]; }

bool run_isolation_selects(const run_isolation *iso, const char *name)
{
    if (iso->all)
        return true;
    size_t len = strlen(name);
    for (const char *p = iso->names; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return true;
        p += n + (comma != NULL);
    }
    return false;
}

static const rtcosim_ssd_component *find(const rtcosim_system_desc *desc, const char *name,
                                         size_t len)
{
    for (size_t i = 0; i < rtcosim_system_desc_component_count(desc); i++) {
        const rtcosim_ssd_component *c = rtcosim_system_desc_component(desc, i);
        if (strlen(c->name) == len && strncmp(c->name, name, len) == 0)
            return c;
    }
    return NULL;
}

/* What a component is when it is not an FMU a host can run (NULL: an FMU). */
static const char *not_an_fmu(const rtcosim_ssd_component *c)
{
    if (!c->path)
        return "native (rtcosim:)";
    if (c->ecu)
        return "ECU code as a shared object";
    if (rtcosim_table_is_source(c->mime_type, c->path))
        return "a table (CSV or MAT)";
    if (rtcosim_dcp_is_dcpx(c->path))
        return "a remote DCP slave (.dcpx)";
    return NULL;
}

int run_isolation_prepare(run_isolation *iso, const rtcosim_system_desc *desc)
{
    iso->desc = desc;
    /* Every FMU: ECU code as a shared object has no host to run in, so it
     * stays here, and the user is told so (native components are this
     * program's own code). */
    for (size_t i = 0; iso->all && i < rtcosim_system_desc_component_count(desc); i++) {
        const rtcosim_ssd_component *c = rtcosim_system_desc_component(desc, i);
        if (c->path && c->ecu)
            fprintf(stderr, "rtcosim: warning: --isolate: component '%s' of %s is ECU code as a "
                    "shared object: it runs in this process (only FMUs are isolated)\n", c->name,
                    rtcosim_system_desc_file(desc));
    }
    for (const char *p = iso->names; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const rtcosim_ssd_component *c = find(desc, p, n);
        if (!c)
            return cli_fail("isolate: %s has no component '%.*s'",
                            rtcosim_system_desc_file(desc), (int)n, p);
        if (not_an_fmu(c))
            return cli_fail("isolate: component '%s' of %s is %s, not an FMU", c->name,
                            rtcosim_system_desc_file(desc), not_an_fmu(c));
        p += n + (comma != NULL);
    }
    ssize_t n = readlink("/proc/self/exe", iso->host_exe, sizeof iso->host_exe - 1);
    if (n <= 0)
        return cli_fail("run: --isolate: cannot find the rtcosim executable");
    iso->host_exe[n] = '\0';
    return 0;
}

rtcosim_status run_isolation_wrap(void *context, const char *name, rtcosim_component *component,
                                  rtcosim_component **out, rtcosim_error *err)
{
    run_isolation *iso = context;
    const rtcosim_ssd_component *c = find(iso->desc, name, strlen(name));
    rtcosim_component *inner = component;
    if (c && !not_an_fmu(c) && run_isolation_selects(iso, name)) {
        /* the host loads the FMU as this process did: the same options and
         * interface (model exchange for an FMU that offers nothing else) */
        static const rtcosim_fmu_options defaults = {0};
        rtcosim_status st = rtcosim_isolate_wrap_options(component, c->path, iso->host_exe,
                                                         iso->fmu ? iso->fmu : &defaults,
                                                         &inner, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (iso->next)
        return iso->next(iso->next_context, name, inner, out, err);
    *out = inner;
    return RTCOSIM_OK;
}
