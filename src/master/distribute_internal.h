/* The proxy component of `--distribute` (distribute.c) and the per-step
 * exchange of its values between ranks (distribute_exchange.c): the state
 * both share. */
#ifndef RTCOSIM_MASTER_DISTRIBUTE_INTERNAL_H
#define RTCOSIM_MASTER_DISTRIBUTE_INTERNAL_H

#include <stdbool.h>

#include "rtcosim/master_distribute.h"

typedef struct placement {
    char *name;
    int rank;
    bool used;
} placement;

struct rtcosim_distribution {
    const rtcosim_transport *t;
    placement *places;
    size_t place_count;
    size_t wrapped; /* components wrapped so far (round robin) */
    char **names;   /* [wrapped] with their ranks */
    int *ranks;
    uint64_t calls;  /* broadcasts, collective exchanges and messages */
    int64_t call_ns; /* wall time in them */
    /* The last failure the master returned is known to every rank (all then
     * leave the run together); false after a Gauss-Seidel failure, which only
     * the ranks reading the component see. */
    bool failure_shared;
};

typedef struct remote {
    rtcosim_distribution *d;
    rtcosim_component *inner;
    char *name;
    int owner;
    bool mine;
    /* the owner's status of steps and writes not yet told to the others */
    rtcosim_status pending;
    rtcosim_error pending_err;
    bool unusual_step; /* early return, event or termination request */
    unsigned char *buf;
    size_t cap;
} remote;

/* The proxy behind c, NULL when c is no proxy. */
remote *master_remote_of(const rtcosim_component *c);
int64_t master_distribute_now_ns(void);

#endif
