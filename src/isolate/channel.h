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
#include "rtcosim/fmu.h"

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
    /* Model exchange: the FMU's own serialized state, as fmusim's state
     * files hold it (rtcosim_fmu_me_get_fmu_state / set), n bytes in data[] */
    OP_ME_GET_FMU_STATE,
    OP_ME_SET_FMU_STATE,
    /* Model exchange: the parent's event observer (n bit 0) and input
     * source (bit 1) on or off; an input event (rtcosim_fmu_me_enter_input_event) */
    OP_ME_CALLBACKS,
    OP_ME_INPUT_EVENT,
    /* The parent ran the callback the host asked for (its status and
     * message in status and message): the host's request goes on. */
    OP_CALLBACK_DONE,
    /* FMI 3.0 Event Mode of a co-simulation FMU loaded with eventModeUsed
     * (rtcosim_component_enter_event_mode, _update_discrete_states: its
     * result in `update`, _enter_step_mode) */
    OP_ENTER_EVENT_MODE,
    OP_UPDATE_DISCRETE_STATES,
    OP_ENTER_STEP_MODE,
    /* fmi3GetIntervalDecimal of clock number n (rtcosim_fmu_get_interval):
     * interval and qualifier */
    OP_GET_INTERVAL,
} channel_op;

/* What a host's answer asks of the parent before the request can go on:
 * from inside the integrator, the parent's event observer or input source
 * at callback_time. The parent makes any requests of its own (gets, sets),
 * then OP_CALLBACK_DONE; the host answers that with the request's outcome
 * or the next callback. */
typedef enum channel_callback {
    CALLBACK_NONE = 0,
    CALLBACK_EVENT_BEFORE,
    CALLBACK_EVENT_AFTER,
    CALLBACK_INPUTS,
} channel_callback;

/* The first word of a channel: `rtcosim host-fmu` refuses any other fd. */
#define CHANNEL_MAGIC 0x52544349u /* "RTCI" */

typedef struct channel {
    uint32_t magic;            /* CHANNEL_MAGIC, written by channel_create */
    int32_t parent;            /* the pid of the process that created it */
    _Atomic uint32_t request;  /* incremented by the parent per request */
    _Atomic uint32_t response; /* set to request by the child when done */
    /* The spin policy (util/spin_wait's): the child spins for the next
     * request only while the parent says a CPU is free for it; each side
     * publishes the CPU it last ran on, so that neither spins while the
     * other is queued behind it on the same CPU. */
    _Atomic uint32_t child_may_spin;
    _Atomic int32_t parent_cpu, child_cpu;
    /* Set by a side about to sleep on its futex word: the other side makes
     * the FUTEX_WAKE system call only then. */
    _Atomic uint32_t parent_sleeping, child_sleeping;
    uint32_t op;
    int32_t status;
    int64_t t, h, start, stop;
    double tolerance;
    uint32_t type;
    uint64_t n;
    /* String and Binary values: the bytes of their records (below) after
     * the value references */
    uint64_t record_bytes;
    /* OP_LOAD: the parent's loading options, all of them, with the interface
     * it settled on (no fallback left to take) and temp_dir NULL (the host
     * extracts under the channel's temp_dir) */
    rtcosim_fmu_options options;
    int32_t log_level; /* OP_LOAD: the parent's (rtcosim_log_level) */
    uint32_t state_id;
    rtcosim_event_update update; /* OP_UPDATE_DISCRETE_STATES' result */
    double interval;             /* OP_GET_INTERVAL's result */
    int32_t qualifier;
    uint32_t callback; /* channel_callback: set in a host's answer */
    double callback_time;
    rtcosim_step_result result;
    char message[CHANNEL_MESSAGE];
    char path[CHANNEL_PATH];
    char temp_dir[CHANNEL_PATH]; /* the child extracts under it; the parent removes it */
    _Alignas(16) unsigned char data[]; /* n value references, then the values */
} channel;

/* Bytes available in data[]. */
size_t channel_data_bytes(void);

/* String and Binary values travel as records after the n value references
 * (8-byte aligned): per value a u64 size (CHANNEL_NULL_STRING for a NULL
 * string), then the bytes (a String's with its terminating NUL), padded to
 * 8 bytes (records.c). */
#define CHANNEL_NULL_STRING UINT64_MAX

/* Does the type travel as records? */
static inline bool channel_has_records(rtcosim_type type)
{
    return type == RTCOSIM_TYPE_STRING || type == RTCOSIM_TYPE_BINARY;
}
/* Bytes the records of values[0..n) (const char * or rtcosim_binary) take,
 * SIZE_MAX past `limit`. */
size_t channel_records_size(rtcosim_type type, const void *values, size_t n, size_t limit);
/* Write them (out has channel_records_size bytes). */
void channel_records_pack(unsigned char *out, rtcosim_type type, const void *values, size_t n);
/* Point values[0..n) at the records in buf[0..bytes); false, with the reason
 * in why, when they are malformed: a size past the end, a String without
 * its terminating NUL. */
bool channel_records_unpack(const unsigned char *buf, size_t bytes, rtcosim_type type, size_t n,
                            void *values, char *why, size_t why_size);

/* A new mapping on a memfd (fd inherited by children: no close-on-exec). */
channel *channel_create(int *fd);
channel *channel_map(int fd);
void channel_unmap(channel *ch);

typedef enum channel_result {
    CHANNEL_ANSWERED,
    CHANNEL_ENDED,       /* the child ended first: *wait_status holds its waitpid status */
    CHANNEL_TIMEOUT,     /* no answer within timeout_ns (*wait_status: WUNTRACED's view) */
    CHANNEL_INTERRUPTED, /* *interrupt became non-zero while waiting */
} channel_result;

/* Parent: publish the request and wait for the response, at most timeout_ns
 * (0: no limit), or until *interrupt is set (checked while asleep, every
 * 10 ms, as is whether the child `pid` is alive). may_spin false sleeps at
 * once (no CPU free for spinning). */
channel_result channel_call(channel *ch, pid_t pid, int *wait_status, int64_t timeout_ns,
                            const _Atomic int *interrupt, bool may_spin);
/* Child: whether fd is a channel made by our parent (magic, size, creator);
 * NULL (and a reason in why) when not. */
channel *channel_check_and_map(int fd, char *why, size_t why_size);
/* Child: wait for the next request (returns its sequence number), answer it. */
uint32_t channel_next(channel *ch, uint32_t last);
void channel_answer(channel *ch, uint32_t seq);

#endif
