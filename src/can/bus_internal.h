/* Shared by the bus LP's files (bus.c: the LP's handlers and transmission;
 * bus_nodes.c: nodes, databases and the lookahead; bus_arena.c: the bodies
 * of CAN FD and XL frames, which do not fit an event's 64 inline bytes). */
#ifndef RTCOSIM_CAN_BUS_INTERNAL_H
#define RTCOSIM_CAN_BUS_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "rtcosim/can.h"
#include "rtcosim/can_log.h"

/* The frame-body arena: CAN FD and XL frames' bytes in 1 MiB chunks that
 * never move, reserved by an atomic bump pointer (senders on any thread
 * write their frame's bytes, then send the event that carries the offset,
 * which orders the write before every read). Offsets only grow; chunk k
 * lives in slot k % CAN_ARENA_CHUNKS while it can still be read.
 *
 * A chunk is given back (can_arena_reclaim, on the bus's thread at its
 * commits) once the bump pointer has left it, the bus's own state refers to
 * none of its bodies, and every event that does, and every bus state a
 * rollback could restore that does, lies before the run's floor
 * (rtcosim_lp_floor): each chunk keeps `expire`, the latest time of an
 * event carrying one of its bodies or of the bus dropping one from its
 * queues. Memory is then what the bodies in flight need, not the run's
 * length; 4 GiB of them at once is the bound. */
#define CAN_ARENA_CHUNK_SHIFT 20
#define CAN_ARENA_CHUNKS 4096 /* 4 GiB of frame bodies live at once */
typedef struct can_arena {
    _Atomic uint64_t next;
    _Atomic(uint8_t *) chunks[CAN_ARENA_CHUNKS];
    _Atomic rtcosim_time_ns expire[CAN_ARENA_CHUNKS];
    /* the oldest chunk not given back (written by the reclaiming thread) */
    _Alignas(64) _Atomic uint64_t oldest;
    /* puts between their reservation and their `expire` (a reclaim waits
     * for none to be in progress) */
    _Alignas(64) _Atomic uint32_t active;
    _Atomic(uint8_t *) spare; /* a chunk given back, for the next one needed */
    /* can_arena_start_ahead: a helper thread allocates (and touches) the
     * next chunk once half of the current one is taken, so that a sender on
     * a real-time thread does not; chunks [oldest, wanted) are to exist */
    bool ahead;
    pthread_t helper;
    sem_t wake;
    _Atomic uint64_t wanted;
    _Atomic int stop;
    /* chunks the senders allocated themselves, and those the helper did;
     * chunks given back, and the most live at once */
    _Atomic uint64_t inline_chunks, helper_chunks;
    uint64_t freed_chunks, live_max;
} can_arena;

/* Copy n bytes in for an event at time `until` that carries them, *offset
 * where they are. Errors: out of memory, the arena's bound (named by
 * bus_name). */
rtcosim_status can_arena_put(can_arena *a, const void *data, size_t n, rtcosim_time_ns until,
                             uint64_t *offset, const char *bus_name, rtcosim_error *err);
/* The bytes at offset (a valid pointer also for 0 bytes). */
const uint8_t *can_arena_at(can_arena *a, uint64_t offset, size_t n);
/* The bytes at offset are referred to until `until` (an event carrying them,
 * or the bus dropping them from its state then). */
void can_arena_hold(can_arena *a, uint64_t offset, size_t n, rtcosim_time_ns until);
/* Give back the chunks below `pinned` (the least offset the bus's state
 * refers to, UINT64_MAX for none) whose every reference lies before `floor`.
 * One thread at a time (the bus's). */
void can_arena_reclaim(can_arena *a, rtcosim_time_ns floor, uint64_t pinned);
void can_arena_reset(can_arena *a);
/* Start the helper thread that allocates chunks ahead of the senders
 * (stopped by can_arena_free). */
rtcosim_status can_arena_start_ahead(can_arena *a, const char *bus_name, rtcosim_error *err);
/* Allocate the chunks that hold the first `bytes` (at most 64 MiB) now, their
 * pages touched (a real-time sender then takes no page fault on them). */
rtcosim_status can_arena_reserve(can_arena *a, size_t bytes, const char *bus_name,
                                 rtcosim_error *err);
void can_arena_free(can_arena *a);

/* A frame of any format as the bus's events and queues carry it: classic
 * frames whole, CAN FD and XL frames with their bytes in the arena. 40
 * bytes; zeroed before it is filled (lazy cancellation compares payloads
 * byte for byte, padding included). */
typedef struct can_ref {
    rtcosim_can_frame frame; /* classic: the frame; FD / XL: id and extended (dlc 0) */
    uint8_t format, flags, sdt, vcid;
    uint16_t length, reserved_;
    uint32_t af;
    uint64_t body; /* FD / XL: the bytes' offset in the arena */
} can_ref;

typedef struct can_pending {
    uint64_t arbitration; /* lower wins */
    rtcosim_time_ns requested;
    rtcosim_time_ns duration; /* on the wire, stuff bits included (computed once) */
    can_ref ref;
    bool discard_on_lost;
} can_pending;

typedef struct can_tx_entry {
    uint32_t key;    /* id | extended << 31 */
    uint16_t length; /* data bytes (classic: the DLC); upto: the most */
    uint8_t format;  /* rtcosim_can_format */
    bool upto;       /* any length up to `length` */
} can_tx_entry;

typedef struct can_node {
    char *name;
    rtcosim_lp_id lp;
    rtcosim_time_ns tx_lookahead;
    can_tx_entry *tx; /* sorted by key at connect */
    size_t tx_count, tx_capacity;
    uint32_t *rx_keys;
    size_t rx_count, rx_capacity;
    bool rx_all; /* receives every frame of the other nodes, CAN FD and XL ones too */
    bool tx_any; /* may send any identifier and format (no TX database) */
    bool confirm; /* gets its own frames back at their end (LS-BUS Confirm) */
    bool notify_errors; /* gets RTCOSIM_CAN_EVENT_BUS_ERROR (LS-BUS Bus Error) */
    bool fd_xl; /* carries CAN FD and XL frames (rx_all, or sends them); set at connect */
    bool controls; /* reports its state, sends and gets wake-ups (LS-BUS node FMUs) */
    bool tx_no_xl; /* tx_any, but never a CAN XL frame (a replayed log) */
    uint8_t state; /* RTCOSIM_CAN_STATE_*, as last reported (part of the snapshot) */
    can_pending *queue; /* sorted by arbitration, capacity from the config */
    uint32_t queued;
} can_node;

struct rtcosim_can_bus {
    rtcosim_events *sim;
    rtcosim_lp_id lp;
    char *name;
    rtcosim_can_bus_config config;
    rtcosim_time_ns bit_ns, fd_bit_ns, xl_bit_ns, min_frame;
    can_node *nodes;
    size_t node_count, node_capacity;
    bool connected, busy, arbitration_pending;
    /* The frame on the wire when error injection corrupts it: back into its
     * sender's queue at its end (-1: none). Part of the snapshot. */
    int64_t retransmit_node;
    can_pending retransmit;
    rtcosim_time_ns start_time;
    rtcosim_can_bus_stats stats;
    _Atomic uint64_t frames_live; /* stats.frames for other threads (a live view) */
    /* The log: log_count entries in all (absolute: snapshots hold it), the
     * first log_written of them given to `stream` at commits and dropped,
     * the others at log[0 .. log_count - log_written). A rollback restores
     * a snapshot at or before its target, which can lie before written
     * entries (never before the committed time): coasting forward logs
     * them again, the same, and they are counted, not kept. */
    rtcosim_can_log_entry *log;
    size_t log_count, log_capacity, log_written;
    rtcosim_can_log_writer *stream; /* rtcosim_can_bus_stream_log, or NULL */
    /* FNV-1a over the logged frames in order (rtcosim_can_bus_log_digest) and
     * how many it covers: saved with the state, so right after a rollback and
     * on the rank that gathers a run over ranks, which holds no entries */
    uint64_t log_digest;
    size_t log_total;
    /* The bodies of a held log's CAN FD and XL frames (no stream: kept for
     * rtcosim_can_bus_log after the run), copied out of the arena so that
     * the arena's chunks can go back while the run goes: chunks of
     * CAN_LOG_STORE_CHUNK bytes that never move, log_store_used of them
     * taken (absolute; a snapshot holds it, a rollback takes it back). */
    uint8_t **log_store;
    size_t log_store_chunks, log_store_capacity, log_store_reserved;
    uint64_t log_store_used;
    can_arena arena;
};
#define CAN_LOG_STORE_SHIFT 20

/* rtcosim_lp_model.commit (bus_arena.c): the log's final entries written
 * to its stream (can_bus_log_commit, bus_log.c), then the arena's chunks no
 * event, state or log entry can read any more given back. */
rtcosim_status can_bus_commit(rtcosim_lp *lp, void *state, rtcosim_time_ns before,
                              rtcosim_error *err);
rtcosim_status can_bus_log_commit(rtcosim_can_bus *bus, rtcosim_time_ns before,
                                  rtcosim_error *err);
/* Room for `bytes` of a held log's frame bodies allocated now (a real-time
 * run's log, so that its paced thread does not); false when out of memory. */
bool can_bus_log_store_reserve(rtcosim_can_bus *bus, size_t bytes);
void can_bus_log_store_free(rtcosim_can_bus *bus);

static inline uint32_t can_id_key(uint32_t id, bool extended)
{
    return id | (extended ? UINT32_C(0x80000000) : 0);
}

/* A frame's identifier and length for its format (rtcosim_can_any_frame);
 * errors name the frame. */
rtcosim_status can_frame_check_any(const rtcosim_can_any_frame *f, rtcosim_error *err);
/* The TX database entry of key, or NULL. */
const can_tx_entry *can_node_tx_entry(const can_node *n, uint32_t key);
/* Whether a sorted key list holds key. */
bool can_keys_hold(const uint32_t *keys, size_t n, uint32_t key);
/* The shortest a frame of this format, identifier (CAN_ANY_ID: any) and
 * length can last on this bus (unstuffed, BRS where it shortens it): the
 * lookahead's ingredients. */
#define CAN_ANY_ID UINT32_MAX
rtcosim_time_ns can_bus_shortest_frame(const rtcosim_can_bus *bus, uint8_t format, uint32_t id,
                                       bool extended, uint16_t length);

/* The log (bus_log.c): entries in memory, not yet given to the stream; a
 * frame the bus sent, logged (and added to the digest). */
static inline size_t can_bus_log_held(const rtcosim_can_bus *bus)
{
    return bus->log_count > bus->log_written ? bus->log_count - bus->log_written : 0;
}
rtcosim_status can_bus_log_frame(rtcosim_can_bus *bus, rtcosim_time_ns start, rtcosim_time_ns end,
                                 uint32_t sender, const can_ref *r, rtcosim_error *err);

#endif
