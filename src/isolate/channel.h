/* The shared-memory channel between rtcosim and a child hosting one FMU
 * (--isolate): one request at a time in a memfd mapping, a sequence-number
 * handshake on two futex words; each side spins briefly, then sleeps in the
 * kernel. Internal header. */
#ifndef RTCOSIM_ISOLATE_CHANNEL_H
#define RTCOSIM_ISOLATE_CHANNEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtcosim/component.h"

enum {
    CHANNEL_BYTES = 1 << 20,
    CHANNEL_MESSAGE = 512,
    CHANNEL_PATH = 4096,
};

typedef enum channel_op {
    OP_PING = 0, /* nothing: round-trip benchmark */
    OP_LOAD,     /* load the FMU at `path` */
    OP_INSTANTIATE,
    OP_SETUP,
    OP_ENTER_INIT,
    OP_EXIT_INIT,
    OP_DO_STEP,
    OP_GET,
    OP_SET,
    OP_TERMINATE,
    OP_QUIT,
    /* FMU state snapshots, named by the child's slot number (state_id,
     * 1-based; 0 in OP_GET_STATE / OP_DESERIALIZE: a new slot). */
    OP_GET_STATE,
    OP_SET_STATE,
    OP_FREE_STATE,
    OP_STATE_SIZE,  /* size in n */
    OP_SERIALIZE,   /* n bytes into data[] */
    OP_DESERIALIZE, /* n bytes from data[] */
} channel_op;

typedef struct channel {
    _Atomic uint32_t request;  /* incremented by the parent per request */
    _Atomic uint32_t response; /* set to request by the child when done */
    uint32_t op;
    int32_t status;
    int64_t t, h, start, stop;
    double tolerance;
    uint32_t type;
    uint64_t n;
    bool interface_me;
    uint32_t state_id;
    rtcosim_step_result result;
    char message[CHANNEL_MESSAGE];
    char path[CHANNEL_PATH];
    char temp_dir[CHANNEL_PATH]; /* the child extracts under it; the parent removes it */
    _Alignas(16) unsigned char data[]; /* n value references, then the values */
} channel;

/* Bytes available in data[]. */
size_t channel_data_bytes(void);

/* A new mapping on a memfd (fd inherited by children: no close-on-exec). */
channel *channel_create(int *fd);
channel *channel_map(int fd);
void channel_unmap(channel *ch);

/* Parent: publish the request and wait for the response; false when the
 * child `pid` ended first (*wait_status then holds its waitpid status). */
bool channel_call(channel *ch, pid_t pid, int *wait_status);
/* Child: wait for the next request (returns its sequence number), answer it. */
uint32_t channel_next(channel *ch, uint32_t last);
void channel_answer(channel *ch, uint32_t seq);

#endif
