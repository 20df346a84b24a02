/* `rtcosim can decode` (cmd_can.c: the options, the first pass that finds
 * the log's messages and makes the columns; can_decode_write.c: the second
 * pass, the rows into CSV, MAT or MDF, and the plot). Not public. */
#ifndef RTCOSIM_CLI_CAN_DECODE_H
#define RTCOSIM_CLI_CAN_DECODE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "can_transport.h"
#include "key_index.h"
#include "rtcosim/can_log.h"
#include "rtcosim/dbc.h"
#include "rtcosim/results.h"
#include "signals.h"

/* A column block: one DBC message on one bus. */
typedef struct block {
    uint32_t bus;
    const rtcosim_dbc_message *message;
    size_t first; /* first column of its signals */
    size_t *part_first; /* a container: each contained PDU's first column, from `first` */
    bool warned;  /* a frame shorter than the message was reported */
} block;

/* A column's latest value as its CSV text (formatted once per decoded value,
 * so that a row costs one write per column). */
typedef struct cell {
    char text[RTCOSIM_FORMAT_MAX];
    size_t length; /* 0: no value (an empty cell) */
    double value;  /* the number text reads as (when it is one) */
} cell;

typedef struct decoder {
    const rtcosim_can_log *log;
    const rtcosim_dbc *dbc;
    const char *log_path;
    block *blocks;
    size_t block_count, block_cap, columns;
    size_t *block_of;    /* per record, SIZE_MAX: not decoded */
    char **names;        /* per column */
    const char **units;  /* per column: its signal's (the database's), or NULL */
    bool *selected;      /* per column */
    key_index by_message; /* the blocks by (bus, message): block_key */
    uint64_t unknown;
    uint64_t unknown_parts;      /* contained PDUs of header ids the database lacks */
    bool container_overrun;      /* a container frame's header ran past its end (said once) */
    bool value_text;     /* VAL_ texts in CSV cells (--values text) */
    rtcosim_time_ns time_origin; /* subtracted from every time (--relative-time) */
    can_transport tr; /* J1939 sessions, Fast Packets, ISO-TP */
    /* Streaming (no transport to reassemble): the log is read again for
     * each pass, a frame at a time, never held (block_of unused). */
    bool streaming;
    bool relative;               /* --relative-time: the origin is the first frame's time */
    bool have_first;
    rtcosim_time_ns first_time;  /* the log's first frame's time */
    int rc;                      /* a pass's failure, said (sinks return ECANCELED) */
    struct rows *rows;           /* the pass writing rows */
    /* Ctrl-C or SIGTERM (cli_stop_signal) stopped a pass at a frame: the
     * rows written so far stand (an output of them), and how many */
    bool interrupted;
    size_t rows_written;
} decoder;

/* Has a signal asked the decoding to stop? (then said in d->interrupted) */
static inline bool can_decode_stop_asked(decoder *d)
{
    if (atomic_load_explicit(&cli_stop_signal, memory_order_relaxed))
        d->interrupted = true;
    return d->interrupted;
}

/* A block's key: the message's address above its bus (under 64: six bits). */
static inline uint64_t can_decode_block_key(uint32_t bus, const rtcosim_dbc_message *m)
{
    return (uint64_t)(uintptr_t)m << 6 | bus;
}

/* The rows of every decoded frame into path (NULL: standard output): CSV,
 * or by its name MAT or MDF (complete rows); complete_only: CSV rows only
 * from the first frame at which every selected column has a value. A
 * signal stops it at a frame, the rows so far written (d->interrupted). */
int can_decode_write(decoder *d, const char *path, bool complete_only);
/* The selected signals plotted over time into output (.svg, .png, .pdf). */
int can_decode_plot(decoder *d, const char *output, const char *log_path);

#endif
