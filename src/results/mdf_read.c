/* ASAM MDF measurement files read into a result table (result_table.h),
 * for `rtcosim plot`, `rtcosim info` and as a stimulus (--input-file, table
 * components): what CANape, CANoe, INCA, MDA and asammdf record, and what
 * rtcosim writes (mdf.c, whose header lists the blocks). The blocks of
 * each version are read in mdf4_read.c and mdf3_read.c into one layout of
 * channel groups (mdf_read_internal.h); the values of a channel are made
 * here, the table in mdf_table.c: the records of the groups read are walked
 * a data block at a time (mdf_records.c, the one place records are found,
 * for the table, `info` and the bus logs alike), keeping only the master's
 * times and the channels asked for (result_table_read_mdf_select: only the
 * groups holding one are walked), so memory is the columns kept, not the
 * data groups' bytes.
 *
 * MDF 4 (4.00-4.2x, finalized): every data group, sorted (no record ids) or
 * unsorted (1, 2, 4 or 8-byte record ids, VLSD records skipped); data in DT
 * blocks, DZ blocks (deflate, and transposed deflate), DL lists and HL
 * headers; numeric channels (unsigned and signed integers of 1 to 64 bits
 * at any bit offset, IEEE half, single and double floats, either byte
 * order) with invalidation bits (an invalid sample is NaN), virtual
 * channels, and conversions none, linear, rational and value tables
 * (interpolated, nearest key, ranges); units from TX or MD blocks, else the
 * conversion's.
 * MDF 3 (3.00-3.3x, little-endian block layout, IEEE floats, finalized):
 * every data group, sorted or unsorted (1-byte record ids, before or
 * before and after each record); integers of 1 to 64 bits at any bit
 * offset (the byte offset with 3.x's additional byte offset), floats and
 * doubles, in the file's or an explicit byte order; conversions 1:1,
 * linear, rational, polynomial and value tables (interpolated or not);
 * names from the long-name TX block, else
 * the short name; units from the conversion block; texts read as latin-1.
 * Either version: other conversions give the raw values (said in one
 * warning); each channel group's master channel is its time; several
 * groups are put on the union of their times, each channel holding its
 * last sample (NaN before its first). Left out, said in one warning:
 * string, byte-array and structure channels, groups without a master.
 * Refused with one line naming the file: MDF 2 and big-endian or VAX-float
 * MDF 3, unfinalized files, blocks out of the file or of the wrong kind,
 * loops in block lists, data shorter than its records, a table of more than
 * 1 GiB (its columns x rows, or the values of the channels read), or more
 * data than deflate could have packed into the file (a block listed
 * twice); a data group's bytes have no bound of their own. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/mdf_read_internal.h"
#include "results/result_table.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "util/array.h"
#include "util/le.h"

double mdf_f64(const uint8_t *p)
{
    uint64_t bits = le_get64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

rtcosim_status mdf_fail(rd *r, const char *what, uint64_t at)
{
    return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: MDF block at %llu: %s", r->path,
                             (unsigned long long)at, what);
}

rtcosim_status mdf_oom(rd *r)
{
    return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
}

bool mdf_start_utc(rd *r, int64_t ns)
{
    if (ns > 0)
        r->start_ns = ns;
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    return ns > 0 && gmtime_r(&secs, &tm) &&
           strftime(r->start, sizeof r->start, "%Y-%m-%d %H:%M:%S UTC", &tm) > 0;
}

char *mdf_latin1(const uint8_t *p, size_t n)
{
    n = strnlen((const char *)p, n);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
        n--;
    char *s = malloc(2 * n + 1), *q = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x80) {
            *q++ = (char)p[i];
        } else { /* U+0080..U+00FF in two bytes */
            *q++ = (char)(0xC0 | p[i] >> 6);
            *q++ = (char)(0x80 | (p[i] & 0x3F));
        }
    }
    *q = '\0';
    return s;
}

rtcosim_status mdf_append(rd *r, bytes *out, const uint8_t *p, size_t n)
{
    /* deflate packs at most 1032 bytes in one: a data group holds no more
     * than 1100 times the file (else a block is used twice) */
    size_t most = r->n < MDF_MAX_BYTES / 1100 ? r->n * 1100 : MDF_MAX_BYTES;
    if (n > most - out->len)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: more data in a data group than"
                                 " %s (a data block used twice?)", r->path,
                                 most == MDF_MAX_BYTES ? "1 GiB" : "the file can hold");
    if (out->len + n > out->cap) {
        size_t cap = out->cap ? out->cap : 4096;
        while (cap < out->len + n)
            cap *= 2;
        uint8_t *q = realloc(out->p, cap);
        if (!q)
            return mdf_oom(r);
        out->p = q;
        out->cap = cap;
    }
    if (n && p) /* (NULL: room only) */
        memcpy(out->p + out->len, p, n);
    out->len += n;
    return RTCOSIM_OK;
}

bool mdf_conv_table(conv *c, int type, const uint8_t *p, size_t n, size_t width, bool *oom)
{
    double *tab = malloc((n ? n : 1) * width * sizeof *tab);
    if (!tab) {
        *oom = true;
        return false;
    }
    for (size_t i = 0; i < n * width; i++)
        tab[i] = mdf_f64(p + 8 * i);
    bool ascending = n > 0;
    for (size_t i = 1; ascending && i < n; i++)
        ascending = tab[i * width] >= tab[(i - 1) * width];
    if (!ascending) {
        free(tab);
        return false;
    }
    c->type = type;
    c->tab = tab;
    c->n = n;
    return true;
}

/* x through a value table (conv's types 4, 5, 6). */
static double table_value(const conv *c, double x)
{
    const double *t = c->tab;
    size_t n = c->n;
    if (isnan(x))
        return x;
    if (c->type == MDF_CONV_RANGES) {
        for (size_t i = 0; i < n; i++) {
            double lo = t[3 * i], hi = t[3 * i + 1];
            if (x >= lo && (c->int_raw ? x <= hi : x < hi))
                return t[3 * i + 2];
        }
        return c->v[0];
    }
    /* the first key >= x */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[2 * mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n)
        return t[2 * (n - 1) + 1];
    if (lo == 0 || t[2 * lo] == x)
        return t[2 * lo + 1];
    double k0 = t[2 * (lo - 1)], k1 = t[2 * lo], v0 = t[2 * (lo - 1) + 1], v1 = t[2 * lo + 1];
    if (c->type == MDF_CONV_NEAREST)
        return x - k0 <= k1 - x ? v0 : v1;
    return v0 + (v1 - v0) * (x - k0) / (k1 - k0);
}

static double convert(const conv *c, double x)
{
    if (c->type == 1)
        return c->v[0] + c->v[1] * x;
    if (c->type == 2)
        return (c->v[0] * x * x + c->v[1] * x + c->v[2]) / (c->v[3] * x * x + c->v[4] * x + c->v[5]);
    if (c->type == 3) {
        double d = x - c->v[4] - c->v[5];
        return (c->v[1] - c->v[3] * d) / (c->v[2] * d - c->v[0]);
    }
    if (c->type >= MDF_CONV_TABLE)
        return table_value(c, x);
    return x;
}

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    double v = exp == 0 ? ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY)
                                                         : ldexp(mant | 0x400, exp - 25);
    return h & 0x8000 ? -v : v;
}

uint64_t mdf_raw_bits(const chan *c, const uint8_t *rec)
{
    bool big = c->dtype & 1;
    size_t n = (c->bit_offset + c->bits + 7) / 8;
    const uint8_t *p = rec + c->byte_offset;
    unsigned __int128 raw = 0;
    for (size_t i = 0; i < n; i++)
        raw |= (unsigned __int128)p[big ? n - 1 - i : i] << (8 * i);
    raw >>= c->bit_offset;
    uint64_t v = (uint64_t)raw;
    if (c->bits < 64)
        v &= ((uint64_t)1 << c->bits) - 1;
    if (c->dtype >= 2 && c->dtype < 4 && c->bits < 64 && (v >> (c->bits - 1) & 1))
        v |= ~(((uint64_t)1 << c->bits) - 1); /* sign-extended */
    return v;
}

result_exact mdf_exact_kind(const chan *c)
{
    bool identity = c->cc.type == 0 || (c->cc.type == 1 && c->cc.v[0] == 0 && c->cc.v[1] == 1);
    if (c->type != 0 || c->dtype >= 4 || c->bits <= 53 || c->bits > 64 || !identity)
        return RESULT_EXACT_NONE;
    return c->dtype >= 2 ? RESULT_EXACT_INT64 : RESULT_EXACT_UINT64;
}

double mdf_value(const chan *c, const uint8_t *rec, const uint8_t *inval, size_t k)
{
    if ((c->flags & 2) && inval && (inval[c->inval_pos / 8] >> (c->inval_pos % 8) & 1))
        return NAN;
    if (c->type == 3 || c->type == 6) /* virtual: the record index */
        return convert(&c->cc, (double)k);
    uint64_t v = mdf_raw_bits(c, rec);
    double x;
    if (c->dtype >= 4) {
        if (c->bits == 16) {
            x = half_to_double((uint16_t)v);
        } else if (c->bits == 32) {
            float f;
            uint32_t w = (uint32_t)v;
            memcpy(&f, &w, sizeof f);
            x = f;
        } else {
            memcpy(&x, &v, sizeof x);
        }
    } else {
        x = c->dtype >= 2 ? (double)(int64_t)v : (double)v;
    }
    return convert(&c->cc, x);
}

void mdf_group_free(group *g)
{
    for (size_t i = 0; i < g->nchan; i++) {
        free(g->chans[i].name);
        free(g->chans[i].unit);
        free(g->chans[i].cc.tab);
        if (g->values)
            free(g->values[i]);
    }
    free(g->chans);
    free(g->values);
    free(g->time);
}

rtcosim_status mdf_read_groups(rd *r, group **groups, size_t *ng)
{
    const uint8_t *data = r->d;
    size_t size = r->n;
    snprintf(r->start, sizeof r->start, "-");
    bool unfinished = size >= 8 && memcmp(data, "UnFinMF ", 8) == 0;
    if (size < 64 || (memcmp(data, "MDF     ", 8) != 0 && !unfinished)) {
        if (size >= 8 && (memcmp(data, "MDF     ", 8) == 0 || unfinished))
            return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: cut short: %zu bytes, less"
                                     " than an MDF file's identification block", r->path, size);
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: not an MDF file (no \"MDF     \""
                                 " identification)", r->path);
    }
    unsigned version = (unsigned)(data[28] | data[29] << 8);
    if (unfinished && version >= 300 && version < 400)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: an unfinalized MDF 3 file (its"
                                 " recorder did not close it); finalize it first", r->path);
    if (version >= 300 && version < 500) {
        rtcosim_status st = version >= 400 ? mdf4_read_groups(r, groups, ng)
                                           : mdf3_read_groups(r, groups, ng);
        if (st != RTCOSIM_OK || r->layout || r->bus)
            return st;
        /* every channel's values (channels_only: of the data groups with
         * channels besides their masters) */
        group *g = *groups;
        for (size_t first = 0, last; first < *ng; first = last) {
            bool channels = false;
            for (last = first; last < *ng && g[last].dg_at == g[first].dg_at; last++)
                channels = channels || g[last].nchan > (g[last].master >= 0);
            for (size_t k = first; k < last; k++) {
                g[k].read = channels || !r->channels_only; /* (VLSD: walked past) */
                for (size_t i = 0; i < g[k].nchan; i++)
                    g[k].chans[i].want = true;
            }
        }
        return mdf_walk_values(r, g, *ng);
    }
    char text[9] = "";
    for (size_t i = 0; i < 8 && data[8 + i] > ' ' && data[8 + i] < 127; i++)
        text[i] = (char)data[8 + i];
    return rtcosim_error_set(r->err, RTCOSIM_EUNSUPPORTED, "%s: MDF version %s (%u): only MDF 3"
                             " and MDF 4 files are read (convert it, e.g. with asammdf)", r->path,
                             text, version);
}

void mdf_warn_unfinalized(const rd *r)
{
    if (r->unfinalized)
        rtcosim_log(RTCOSIM_LOG_WARNING, "results", "%s: an unfinalized MDF file (its recorder "
                    "did not close it, as loggers leave their files): read as far as its "
                    "records go%s", r->path,
                    r->dt_to_end ? ", its last data block to the end of the file" : "");
}

void mdf_groups_free(group *groups, size_t ng)
{
    for (size_t k = 0; k < ng; k++)
        mdf_group_free(&groups[k]);
    free(groups);
}

rtcosim_status mdf_with_file(const char *path,
                                rtcosim_status (*fn)(const uint8_t *, size_t, void *),
                                void *context, rtcosim_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        if (fd >= 0)
            close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open the MDF file", path);
    }
    size_t size = (size_t)sb.st_size;
    void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (map == MAP_FAILED)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not an MDF file (%s)", path,
                                 size ? "cannot map it" : "empty");
    rtcosim_status st = fn(map, size, context);
    munmap(map, size);
    return st;
}


void *mdf_room(void *items, size_t n, size_t size)
{
    /* room for max(4, the next power of two) items: grown at 0 and at each
     * power of two from 4 */
    if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
        return items;
    return realloc(items, (n < 4 ? 4 : 2 * n) * size);
}

chan *mdf_chans_room(group *g)
{
    chan *p = mdf_room(g->chans, g->nchan, sizeof *g->chans);
    if (p)
        g->chans = p;
    return p;
}
