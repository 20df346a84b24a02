/* Building MDF 4 blocks in memory (mdf.c's results, mdf_bus.c's CAN bus
 * logs): a growing buffer, blocks with their common header, links and
 * text. Every block is 8-byte aligned and zeroed; an allocation failure
 * sets `failed` and turns later calls into no-ops. Not public. */
#ifndef RTCOSIM_RESULTS_MDF_WRITE_INTERNAL_H
#define RTCOSIM_RESULTS_MDF_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#pragma GCC visibility push(hidden)

typedef struct mdf_buf {
    uint8_t *p;
    size_t len, cap;
    bool failed;
} mdf_buf;

/* n zeroed bytes at the end (NULL when out of memory). */
uint8_t *mdf_grow(mdf_buf *b, size_t n);
/* A block "##<id>" of `data` data bytes after `links` links: its offset (its
 * data at offset + 24 + 8 * links), or 0 out of memory. */
uint64_t mdf_block(mdf_buf *b, const char id[3], size_t links, size_t data);
void mdf_link(mdf_buf *b, uint64_t block_at, size_t link, uint64_t target);
uint8_t *mdf_data(mdf_buf *b, uint64_t block_at, size_t links);
/* A TX (or MD) block holding text: its offset, 0 for no text. */
uint64_t mdf_text(mdf_buf *b, const char *id, const char *text);
/* The identification block of an MDF 4.10 file written by rtcosim. */
void mdf_identification(mdf_buf *b);
/* HD (links DG, FH, ...; start time start_ns) and its FH with the XML
 * comment naming the tool and what the file holds: HD's offset. */
uint64_t mdf_header(mdf_buf *b, int64_t start_ns, const char *what);
/* A CN block (links next, composition, name, source, conversion, data, unit,
 * comment): type (0 value, 2 master), sync (1 time for a master), data type
 * (0 unsigned, 2 signed, 4 float, 10 byte array; little-endian), bit offset,
 * byte offset in the record, bit count, flags. Its offset. */
typedef struct mdf_cn {
    const char *name, *unit, *comment;
    uint8_t type, sync, dtype, bit_offset;
    uint32_t byte_offset, bits, flags, inval_bit; /* flags 2: inval_bit is valid */
} mdf_cn;
uint64_t mdf_channel(mdf_buf *b, const mdf_cn *cn);
/* Now, in ns since 1970 UTC. */
int64_t mdf_now_ns(void);

enum { MDF_UNSIGNED = 0, MDF_SIGNED = 2, MDF_FLOAT = 4, MDF_BYTES = 10 };

/* A value channel of a results file: its texts, its storage (data type and
 * bytes) and its invalidation bit (-1: none; the bit set in a record's
 * invalidation bytes says the record has no value for it). */
typedef struct mdf_column {
    const char *name, *unit, *comment;
    uint8_t dtype, bytes;
    int32_t inval_bit;
} mdf_column;
/* The warning that column `name` of a results file is not written to the
 * MDF file at path (String and Binary values: numeric channels only). */
void mdf_warn_text_left_out(const char *path, const char *name);
/* The storage of a variable of that type (rtcosim_type; Boolean and Clock as
 * uint8 0/1, integers of their width, Float32 single, the rest double). */
void mdf_storage_of(int type, uint8_t *dtype, uint8_t *bytes);
/* The blocks before a results file's records (ID, HD, FH, DG, CG, the time
 * master channel, then the columns packed in order after it), a CG of
 * `rows` records and `inval_bytes` invalidation bytes after each record's
 * data; *dg_at and *cg_at their blocks (the DG's data link, 2, is the
 * caller's). */
void mdf_results_metadata(mdf_buf *b, const mdf_column *cols, size_t n, uint64_t rows,
                          uint32_t inval_bytes, int64_t start_ns, uint64_t *dg_at,
                          uint64_t *cg_at);

/* Records up to this many bytes go into one DT block; more into DZ blocks of
 * about MDF_DZ_BYTES of whole records each, transposed by the record's bytes
 * (a slowly changing channel's bytes repeat) and deflated, listed by a DL
 * block: what long runs write shrinks several-fold, and every MDF 4.1
 * reader takes it. */
enum { MDF_DT_MAX = 1 << 20, MDF_DZ_BYTES = 4 << 20 };
/* Write `rows` records of `record` bytes (fill writes rows [first, first +
 * count) into rec) as DZ blocks and their DL block at f's position `at`;
 * *dl: the DL's offset. False when memory, zlib or the write failed. */
typedef void mdf_fill_fn(void *context, uint8_t *rec, size_t first, size_t count);
bool mdf_write_dz(FILE *f, uint64_t at, size_t rows, size_t record, mdf_fill_fn *fill,
                  void *context, uint64_t *dl);

/* The same a record at a time, for a writer that gets its records one by
 * one: mdf_dz_row gives where the next record's bytes go (NULL when a
 * write failed), mdf_dz_end writes the last DZ block and the DL (*dl its
 * offset) and frees; holds one block of records, however many come. */
typedef struct mdf_dz {
    FILE *f;
    uint64_t at;
    size_t record, per, used, blocks, cap;
    uint8_t *rec, *col, *z;
    unsigned long bound;
    uint64_t *offsets;
    bool ok;
} mdf_dz;
bool mdf_dz_begin(mdf_dz *z, FILE *f, uint64_t at, size_t record);
uint8_t *mdf_dz_row(mdf_dz *z);
bool mdf_dz_end(mdf_dz *z, uint64_t *dl);

#pragma GCC visibility pop

#endif
