/* The child side of --isolate (`rtcosim host-fmu FD`): load the FMU named in
 * the channel and answer each request with the component's own status and
 * message. Dies with its parent (PR_SET_PDEATHSIG); ignores SIGINT/SIGTERM,
 * which a terminal sends to the whole process group: the parent ends runs. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "isolate/channel.h"
#include "rtcosim/fmu.h"
#include "rtcosim/isolate.h"

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static rtcosim_status serve(channel *ch, rtcosim_component **c, rtcosim_error *err)
{
    if (ch->op != OP_PING && ch->op != OP_LOAD && !*c)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "isolate: no FMU loaded");
    const uint32_t *vrs = (const uint32_t *)ch->data;
    void *values = ch->data + align8(ch->n * sizeof(uint32_t));
    switch ((channel_op)ch->op) {
    case OP_PING:
        return RTCOSIM_OK;
    case OP_LOAD: {
        rtcosim_fmu_options fo = {.interface_type = ch->interface_me ? RTCOSIM_FMI_MODEL_EXCHANGE
                                                                     : RTCOSIM_FMI_CO_SIMULATION,
                                  .temp_dir = ch->temp_dir[0] ? ch->temp_dir : NULL};
        return rtcosim_fmu_load(ch->path, &fo, c, err);
    }
    case OP_INSTANTIATE:
        return rtcosim_component_instantiate(*c, ch->path, err);
    case OP_SETUP:
        return rtcosim_component_setup(*c, ch->tolerance, ch->start, ch->stop, err);
    case OP_ENTER_INIT:
        return rtcosim_component_enter_init(*c, err);
    case OP_EXIT_INIT:
        return rtcosim_component_exit_init(*c, err);
    case OP_DO_STEP:
        return rtcosim_component_do_step(*c, ch->t, ch->h, &ch->result, err);
    case OP_GET:
        return rtcosim_component_get(*c, (rtcosim_type)ch->type, vrs, ch->n, values, err);
    case OP_SET:
        return rtcosim_component_set(*c, (rtcosim_type)ch->type, vrs, ch->n, values, err);
    case OP_TERMINATE:
        return rtcosim_component_terminate(*c, err);
    case OP_QUIT:
        return RTCOSIM_OK;
    }
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: unknown request %u", ch->op);
}

int rtcosim_isolate_host(int fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1; /* the parent is already gone */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    /* Die of the FMU's own fatal signal (a sanitizer's handler would turn it
     * into another), so that the parent names the real cause. */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], SIG_DFL);
    channel *ch = channel_map(fd);
    if (!ch)
        return 1;
    rtcosim_component *c = NULL;
    uint32_t last = atomic_load(&ch->response);
    for (;;) {
        uint32_t seq = channel_next(ch, last);
        last = seq;
        rtcosim_error err;
        rtcosim_error_clear(&err);
        rtcosim_status st = serve(ch, &c, &err);
        ch->status = st;
        snprintf(ch->message, sizeof ch->message, "%s", st == RTCOSIM_OK ? "" : err.message);
        bool quit = ch->op == OP_QUIT;
        if (quit) {
            rtcosim_component_free(c);
            c = NULL;
        }
        channel_answer(ch, seq);
        if (quit)
            break;
    }
    channel_unmap(ch);
    return 0;
}
