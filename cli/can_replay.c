/* `--can-replay LOG[@BUS]` and `replay:LOG[@BUS]` (can_replay.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "can_replay.h"
#include "cli.h"

int cli_can_replay_parse(cli_can_replay *r, const char *option, const char *spec)
{
    memset(r, 0, sizeof *r);
    const char *at = spec ? strrchr(spec, '@') : NULL;
    if (at && strchr(at, '/'))
        at = NULL; /* an '@' in a directory name */
    size_t n = spec ? (at ? (size_t)(at - spec) : strlen(spec)) : 0;
    if (n == 0 || (at && !at[1]))
        return cli_fail("%s needs LOG or LOG@BUS (a candump -l, ASC, BLF, TRC or MDF 4 log), not '%s'",
                        option, spec ? spec : "");
    if (n >= sizeof r->path || (at && strlen(at + 1) >= sizeof r->bus))
        return cli_fail("%s: '%s' is too long", option, spec);
    memcpy(r->path, spec, n);
    if (at)
        snprintf(r->bus, sizeof r->bus, "%s", at + 1);
    return 0;
}

rtcosim_status cli_can_replay_attach(cli_can_replay *r, rtcosim_events *sim, rtcosim_can_bus *bus,
                                     rtcosim_error *err)
{
    return rtcosim_can_replay_add_file(sim, bus, r->path, r->bus[0] ? r->bus : NULL, &r->replay,
                                       err);
}

void cli_can_replay_print(const cli_can_replay *r, const char *prefix)
{
    if (!r->replay)
        return;
    rtcosim_can_replay_stats s;
    rtcosim_can_replay_stats_get(r->replay, &s);
    printf("%s%s: %zu frames%s%s from log time %.6f s", prefix, r->path, s.frames,
           r->bus[0] ? " of " : "", r->bus, rtcosim_time_to_seconds(s.origin));
    if (s.own_skipped)
        printf(", %zu frames left out whose ids the bus's ECUs send", s.own_skipped);
    if (s.remote_skipped)
        printf(", %zu remote frames not sent (the bus carries none)", s.remote_skipped);
    if (s.xl_skipped)
        printf(", %zu CAN XL frames not sent", s.xl_skipped);
    if (s.early)
        printf(", %zu frames due before 0 s sent at the start", s.early);
    printf("\n");
}

void cli_can_replay_free(cli_can_replay *r)
{
    rtcosim_can_replay_free(r->replay);
    r->replay = NULL;
}
