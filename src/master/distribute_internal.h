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
    /* The owner's last step asked to end the run (FMI 2.0 fmi2Terminated,
     * FMI 3.0 terminateSimulation): told to every rank with the next
     * exchange, which applies it as the single-process master does. */
    int ended;
    unsigned char *buf;
    size_t cap;
} remote;

enum { REMOTE_RUNS = 0, REMOTE_TERMINATE = 1, REMOTE_DISCARD = 2 };

/* The proxy behind c, NULL when c is no proxy. */
remote *master_remote_of(const rtcosim_component *c);
int64_t master_distribute_now_ns(void);

#endif
