/* What the MDF readers share (mdf_read.c): a file's channel groups, their
 * channels in one layout for MDF 3 and MDF 4 (mdf3_read.c, mdf4_read.c
 * fill them from their blocks), and the records found in a data group's
 * bytes, turned into one column of doubles per channel. Not public. */
#ifndef RTCOSIM_RESULTS_MDF_READ_INTERNAL_H
#define RTCOSIM_RESULTS_MDF_READ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "result_table.h"

#define MDF_MAX_BYTES ((size_t)1 << 30)

/* The mapped file being read, and what was left out of it. */
typedef struct rd {
    const uint8_t *d;
    size_t n;
    const char *path;
    rtcosim_error *err;
    size_t skipped, raw_conversions, masterless;
    char start[48]; /* the measurement's start as text, "-" when unknown */
    int64_t start_ns; /* the measurement's start, ns since 1970 UTC; 0 unknown */
    /* Reading a bus log (mdf_bus.c): a structure's component channels are
     * read as channels of their own named "STRUCTURE.COMPONENT", and byte
     * arrays (fixed, or variable-length in SD blocks or a VLSD channel
     * group) kept as raw bytes. */
    bool bus;
    /* (not rd.bus) data groups whose channel groups hold no channel but
     * their master are not read (no records: signals beside a bus log) */
    bool channels_only;
    /* the channel groups' layout, no records (as rd.bus, with a
     * measurement's channels; mdf_info.c and mdf_table.c walk the records) */
    bool layout;
    bool can_frames; /* (not rd.bus) a CAN_DataFrame structure was left out */
    /* An unfinalized MDF 4 file (what loggers leave: "UnFinMF ", or flags
     * set), read as far as its records go; dt_to_end: its last DT block's
     * length was never written, so a DT block whose length is that of an
     * empty one (or runs past the file) holds the data to the file's end. */
    bool unfinalized, dt_to_end;
    /* d is a read-only mapping of the file (mdf_with_file): the pages of a
     * data block walked past are given back (mdf_records.c) */
    bool mapped;
} rd;

/* The warning an unfinalized file gets (rd.unfinalized), once per read. */
void mdf_warn_unfinalized(const rd *r);

typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
} bytes;

/* A conversion: 0 none, 1 linear v0 + v1 x, 2 rational (v0 x^2 + v1 x + v2)
 * / (v3 x^2 + v4 x + v5), 3 MDF 3's polynomial (v1 - v3 (x - v4 - v5)) /
 * (v2 (x - v4 - v5) - v0); value tables of n rows in tab: 4 interpolated
 * (key, value; keys ascending; clamped at the ends), 5 the nearest key's
 * value (the lower one on a tie), 6 ranges (lower, upper, value), x in
 * [lower, upper) for a float raw value, [lower, upper] for an integer, else
 * v0, the default. */
typedef struct conv {
    int type;
    bool int_raw; /* the raw value is an integer (for ranges) */
    double v[6];
    double *tab;
    size_t n;
} conv;

enum { MDF_CONV_TABLE = 4, MDF_CONV_NEAREST = 5, MDF_CONV_RANGES = 6 };

/* A value table of n rows of `width` doubles read from p (little-endian)
 * into c (type: 4, 5 or 6); false when its keys do not ascend (or out of
 * memory: *oom set), c left without conversion. */
bool mdf_conv_table(conv *c, int type, const uint8_t *p, size_t n, size_t width, bool *oom);

/* A numeric channel in MDF 4's terms: type 0 value, 2 master, 3 and 6
 * virtual (the record index); dtype 0/1 unsigned LE/BE, 2/3 signed, 4/5
 * IEEE float (16, 32 or 64 bits); flags bit 1: invalidation bit inval_pos
 * of the bytes after the record's data. */
typedef struct chan {
    char *name, *unit;
    uint8_t type, dtype, bit_offset;
    uint32_t byte_offset, bits, flags, inval_pos;
    conv cc;
    /* rd.bus only: 1 a fixed byte array (bits / 8 bytes at byte_offset), 2
     * variable-length (the record holds the byte offset of a uint32 length
     * and the bytes in a stream: the SD blocks at data_link, or the records
     * of the VLSD channel group at data_link, each a uint32 length and the
     * bytes, one after the other) */
    uint8_t raw;
    uint64_t data_link;
    bool want; /* its values are read (mdf_walk_values) */
} chan;

/* A channel group: its layout, then the values read (mdf_walk_values). */
typedef struct group {
    uint64_t record_id;
    uint32_t data_bytes, inval_bytes;
    bool vlsd;
    chan *chans;
    size_t nchan;
    ptrdiff_t master;
    /* read: its records are walked for the master's times (time, when it
     * has one) and the wanted channels' values (values[i], NULL for the
     * others); count of them, room for cap */
    bool read;
    size_t count, cap;
    double *time, **values;
    /* the CG block's offset; its DG block's, the DG's record id size and data
     * link (the records are walked a block at a time: mdf_records.c);
     * cycles: the records the CG block says it has (a hint, 0 unknown) */
    uint64_t at, dg_at, data_link, cycles;
    uint8_t id_size;
    /* MDF 3: the record id is after each record as well (id_after), and
     * the data group's records are data_len bytes at data_link, no block */
    bool id_after, mdf3;
    uint64_t data_len;
} group;

/* items (n of them, size bytes each) with room for one more: the same, or
 * grown by doubling (realloc'd), so that a long (or looping) list of
 * channels or channel groups costs no quadratic copying; NULL when out of
 * memory (items as they were). */
void *mdf_room(void *items, size_t n, size_t size);
chan *mdf_chans_room(group *g);
double mdf_f64(const uint8_t *p);
/* "PATH: MDF block at AT: WHAT" */
rtcosim_status mdf_fail(rd *r, const char *what, uint64_t at);
rtcosim_status mdf_oom(rd *r);
/* r->start from ns since 1970 UTC; false (r->start as it was) for none. */
bool mdf_start_utc(rd *r, int64_t ns);
/* n bytes (p NULL: room only) onto out, bounded by what the file can hold. */
rtcosim_status mdf_append(rd *r, bytes *out, const uint8_t *p, size_t n);
/* Text of n bytes in the file's code page (latin-1 for MDF 3) as UTF-8,
 * up to the first NUL, blanks at the end cut; NULL when out of memory. */
char *mdf_latin1(const uint8_t *p, size_t n);
/* Channel c's value in record rec (the group's record k; inval: its
 * invalidation bytes, NULL none): NAN when invalid. */
double mdf_value(const chan *c, const uint8_t *rec, const uint8_t *inval, size_t k);
/* A value channel's raw 64 bits in rec (an integer sign-extended to int64
 * for a signed one, a float's bits), before conversion and invalidation. */
uint64_t mdf_raw_bits(const chan *c, const uint8_t *rec);
/* Whether a double may round c's values and they can be carried exactly: an
 * integer value channel of 54 to 64 bits without conversion (or 0 + 1 x)
 * (result_column's exact; an invalid sample is NaN in the doubles). */
result_exact mdf_exact_kind(const chan *c);
/* The records of the groups g[0..ng) marked read walked, a data group at a
 * time, into their time (the master's values, when they have one) and
 * values (the channels marked want); the values held are bounded as a
 * table's (1 GiB). */
rtcosim_status mdf_walk_values(rd *r, group *g, size_t ng);
void mdf_group_free(group *g);

/* The file at path mapped for fn (size 0 or unmappable: an error). */
rtcosim_status mdf_with_file(const char *path,
                             rtcosim_status (*fn)(const uint8_t *, size_t, void *),
                             void *context, rtcosim_error *err);

/* Every data group of an MDF file (version 3 or 4, told by its
 * identification block) read into *groups: their layout, and unless
 * rd.layout or rd.bus every channel's values (rd.channels_only: of the data
 * groups with channels besides their masters). */
rtcosim_status mdf_read_groups(rd *r, group **groups, size_t *ng);
void mdf_groups_free(group *groups, size_t ng);

/* Every data group of an MDF 4 / MDF 3 file appended to *groups, their
 * layout (the identification block checked by the caller). */
rtcosim_status mdf4_read_groups(rd *r, group **groups, size_t *ng);
/* An MDF 4 file's first embedded attachment whose file name ends in ending
 * (ASCII case ignored): its bytes (inflated when compressed) onto out and
 * its file name in *name (NULL, out untouched: none). */
rtcosim_status mdf4_attachment(rd *r, const char *ending, bytes *out, char **name);
rtcosim_status mdf3_read_groups(rd *r, group **groups, size_t *ng);

/* The data blocks behind an MDF 4 data link (DT, DV, SD or DZ blocks, DL
 * and HL lists walked) in their order: where each block is, its data in
 * the file, and whether that is deflated (a DZ block's header and data). */
typedef struct mdf_block_ref {
    uint64_t at;
    const uint8_t *data;
    size_t size;
    bool dz;
} mdf_block_ref;
typedef struct mdf_block_list {
    mdf_block_ref *blocks;
    size_t count, cap;
} mdf_block_list;
rtcosim_status mdf4_data_blocks(rd *r, uint64_t at, mdf_block_list *out);
/* A block's bytes (inflated when deflated) appended to out. */
rtcosim_status mdf4_block_bytes(rd *r, const mdf_block_ref *b, bytes *out);

/* The bytes of a list of data blocks (an MDF 4 data link), in order
 * (mdf_records.c): open lists the blocks (their plain bytes bounded by the
 * file: a block used twice is refused), some gives up to `most` bytes from
 * one block, take the next n in one piece (a piece across blocks copied;
 * *got < n: the data ended after *got), both valid until the next call. */
typedef struct mdf_seq {
    rd *r;
    mdf_block_list list;
    size_t next;        /* the next block to open */
    const uint8_t *cur; /* the open block's bytes */
    size_t len, pos;
    bool plain;         /* cur is in the file (not an inflated block) */
    size_t given;       /* cur's bytes given back (rd.mapped) */
    uint64_t inflated;  /* deflated blocks' bytes so far (bounded: a block used twice) */
    bytes dz;           /* the open block inflated */
    bytes carry;        /* a piece across blocks */
} mdf_seq;
rtcosim_status mdf_seq_open(mdf_seq *s, rd *r, uint64_t link);
void mdf_seq_rewind(mdf_seq *s);
void mdf_seq_free(mdf_seq *s);
rtcosim_status mdf_seq_some(mdf_seq *s, size_t most, const uint8_t **p, size_t *got);
rtcosim_status mdf_seq_take(mdf_seq *s, size_t n, const uint8_t **p, size_t *got);

/* The records of a data group (groups[0..ng): its channel groups, as
 * mdf4_read_groups or mdf3_read_groups give them), one at a time:
 * next gives its group (*hit) and bytes (*p, valid until the next call; a
 * VLSD record's bytes after its length), 0 at the end (a record cut short
 * ends the records), -1 on an error (*st). */
typedef struct mdf_recs {
    mdf_seq s;
    const group *groups; /* the data group's channel groups (record sizes by id) */
    size_t ng;
    bool done;
} mdf_recs;
rtcosim_status mdf_recs_open(mdf_recs *c, rd *r, const group *groups, size_t ng);
void mdf_recs_rewind(mdf_recs *c);
int mdf_recs_next(mdf_recs *c, const group **hit, const uint8_t **p, size_t *size,
                  rtcosim_status *st);

#endif
