/* PHOLD (Fujimoto 1990), the synthetic benchmark of parallel event
 * simulators, as a model of this kernel: it has no work per event, so it
 * measures the kernel's own cost per event (queue, pools, synchronization). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "rtcosim/events.h"
#include "rtcosim/events_dist.h"

/* The counters first: they are the state that is saved (speculative
 * rollback) and sent to rank 0 (rtcosim_events_gather); the pointer is not. */
typedef struct phold_lp {
    uint64_t processed;
    uint64_t hash;
    const rtcosim_phold_config *config;
} phold_lp;

struct rtcosim_phold {
    rtcosim_phold_config config;
    phold_lp *lps;
};

/* llround(x) for 0 <= x < 2^63 without the library call: truncation, then
 * the exact fraction (x - trunc(x) is exact in binary floating point; from
 * 2^52 on every double is an integer and the fraction 0). */
static inline rtcosim_time_ns round_half_away(double x)
{
    rtcosim_time_ns whole = (rtcosim_time_ns)x;
    return whole + (x - (double)whole >= 0.5);
}

static rtcosim_status phold_send(rtcosim_lp *lp, const rtcosim_phold_config *c,
                                 rtcosim_error *err)
{
    rtcosim_lp_id self = rtcosim_lp_self(lp), dst = self;
    if (c->lps > 1 && rtcosim_lp_random_uniform(lp) <= c->remote_fraction) {
        dst = rtcosim_lp_random_below(lp, c->lps - 1);
        dst += dst >= self; /* any LP but this one */
    }
    double increment = rtcosim_lp_random_exponential(lp, (double)c->mean_increment);
    rtcosim_time_ns delay = c->lookahead + round_half_away(increment);
    return rtcosim_lp_send(lp, dst, delay, 0, 0, NULL, 0, err);
}

static rtcosim_status phold_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    phold_lp *p = state;
    for (uint32_t i = 0; i < p->config->events_per_lp; i++) {
        rtcosim_status st = phold_send(lp, p->config, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status phold_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                  rtcosim_error *err)
{
    phold_lp *p = state;
    p->processed++;
    /* order-sensitive mix (FNV-1a style over the key of the event) */
    p->hash = (p->hash ^ (uint64_t)ev->time) * UINT64_C(0x100000001B3);
    p->hash = (p->hash ^ ev->src) * UINT64_C(0x100000001B3);
    return phold_send(lp, p->config, err);
}

static const rtcosim_lp_model phold_model = {
    .kind = "phold", .init = phold_init, .event = phold_event,
    .state_size = offsetof(phold_lp, config), /* copy-state saving of the counters */
};

rtcosim_status rtcosim_phold_build(rtcosim_events *sim, const rtcosim_phold_config *config,
                                   rtcosim_phold **out, rtcosim_error *err)
{
    *out = NULL;
    if (rtcosim_events_lp_count(sim) != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "phold: the simulation must be empty");
    if (config->lps == 0 || config->lookahead <= 0 || config->mean_increment < 0 ||
        !(config->remote_fraction >= 0 && config->remote_fraction <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "phold: needs at least one LP, a positive"
                                 " lookahead and a remote fraction in [0, 1]");
    rtcosim_phold *ph = calloc(1, sizeof *ph);
    if (!ph || !(ph->lps = calloc(config->lps, sizeof *ph->lps))) {
        free(ph);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "phold: out of memory");
    }
    ph->config = *config;
    for (uint32_t i = 0; i < config->lps; i++) {
        char name[32];
        snprintf(name, sizeof name, "phold%u", i);
        ph->lps[i].config = &ph->config;
        rtcosim_status st = rtcosim_events_add_lp(sim, name, &phold_model, &ph->lps[i],
                                                  RTCOSIM_LP_NO_GROUP, NULL, err);
        if (st != RTCOSIM_OK) {
            rtcosim_phold_free(ph);
            return st;
        }
    }
    rtcosim_status st = rtcosim_events_link_all(sim, config->lookahead, err);
    if (st != RTCOSIM_OK) {
        rtcosim_phold_free(ph);
        return st;
    }
    *out = ph;
    return RTCOSIM_OK;
}

void rtcosim_phold_reset(rtcosim_phold *ph)
{
    for (uint32_t i = 0; i < ph->config.lps; i++)
        ph->lps[i].processed = ph->lps[i].hash = 0;
}

uint64_t rtcosim_phold_checksum(const rtcosim_phold *ph)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (uint32_t i = 0; i < ph->config.lps; i++) {
        h = (h ^ ph->lps[i].hash) * UINT64_C(0x100000001B3);
        h = (h ^ ph->lps[i].processed) * UINT64_C(0x100000001B3);
    }
    return h;
}

rtcosim_status rtcosim_phold_combine(rtcosim_phold *ph, const rtcosim_transport *t,
                                     rtcosim_error *err)
{
    if (!t || t->size == 1)
        return RTCOSIM_OK;
    size_t n = ph->config.lps;
    uint64_t *v = malloc(2 * n * sizeof *v);
    if (!v)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "phold: out of memory");
    /* an LP's counters are non-zero on its own rank only: the sum is its value */
    for (size_t i = 0; i < n; i++) {
        v[2 * i] = ph->lps[i].processed;
        v[2 * i + 1] = ph->lps[i].hash;
    }
    rtcosim_status st = t->allreduce_u64(t->context, v, 2 * n, RTCOSIM_REDUCE_SUM, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        ph->lps[i].processed = v[2 * i];
        ph->lps[i].hash = v[2 * i + 1];
    }
    free(v);
    return st;
}

void rtcosim_phold_free(rtcosim_phold *ph)
{
    if (!ph)
        return;
    free(ph->lps);
    free(ph);
}
