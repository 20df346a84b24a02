/* ASAM MDF measurement files read into a result table (result_table.h),
 * for `rtcosim plot`, `rtcosim info` and as a stimulus (--input-file, table
 * components): what CANape, CANoe, INCA, MDA and asammdf record, and what
 * rtcosim writes (mdf.c, whose header lists the blocks). The blocks of
 * each version are read in mdf4_read.c and mdf3_read.c into one layout of
 * channel groups (mdf_read_internal.h); the values and the table are made
 * here.
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
 * loops in block lists, data shorter than its records, more than 1 GiB of
 * data or table, or more data than deflate could have packed into the file
 * (a block listed twice). */
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

double mdf_value(const chan *c, const uint8_t *rec, const uint8_t *inval, size_t k)
{
    if ((c->flags & 2) && inval && (inval[c->inval_pos / 8] >> (c->inval_pos % 8) & 1))
        return NAN;
    if (c->type == 3 || c->type == 6) /* virtual: the record index */
        return convert(&c->cc, (double)k);
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
    } else if (c->dtype >= 2 && c->bits < 64 && (v >> (c->bits - 1) & 1)) {
        x = (double)(int64_t)(v | ~(((uint64_t)1 << c->bits) - 1)); /* sign-extended */
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
    free(g->offsets);
    free(g->time);
}

static rtcosim_status add_offset(rd *r, group *g, size_t at)
{
    if (!util_array_reserve(&g->offsets, g->count, &g->cap, sizeof *g->offsets, 1024))
        return mdf_oom(r);
    g->offsets[g->count++] = at;
    return RTCOSIM_OK;
}

rtcosim_status mdf_find_records(rd *r, uint64_t dg_at, uint8_t id_size, bool id_after, group *g,
                                size_t ng, const bytes *data)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t pos = 0;
    while (st == RTCOSIM_OK && pos < data->len) {
        if (data->len - pos < id_size)
            return mdf_fail(r, "its data end inside a record id", dg_at);
        uint64_t id = 0;
        for (size_t i = 0; i < id_size; i++)
            id |= (uint64_t)data->p[pos + i] << (8 * i);
        group *hit = NULL;
        for (size_t k = 0; k < ng && !hit; k++)
            hit = id_size == 0 || g[k].record_id == id ? &g[k] : NULL;
        if (!hit) {
            char what[64];
            snprintf(what, sizeof what, "record id %llu of no channel group",
                     (unsigned long long)id);
            return mdf_fail(r, what, dg_at);
        }
        pos += id_size;
        size_t size = (size_t)hit->data_bytes + hit->inval_bytes + (id_after ? id_size : 0);
        if (hit->vlsd) {
            if (data->len - pos < 4)
                return mdf_fail(r, "its data end inside a variable-length record", dg_at);
            size = 4 + (size_t)le_get32(data->p + pos);
        }
        if (data->len - pos < size)
            break; /* a record cut short at the end: the records before it count */
        if (!hit->vlsd)
            st = add_offset(r, hit, pos);
        if (size == 0 && id_size == 0)
            break; /* records of no bytes: none read */
        pos += size;
    }
    return st;
}

rtcosim_status mdf_group_values(rd *r, group *g, const bytes *data)
{
    g->values = calloc(g->nchan + 1, sizeof *g->values);
    g->time = malloc((g->count ? g->count : 1) * sizeof *g->time);
    if (!g->values || !g->time)
        return mdf_oom(r);
    for (size_t i = 0; i < g->nchan; i++) {
        double *v = (ptrdiff_t)i == g->master ? g->time
                                              : (g->values[i] = malloc((g->count ? g->count : 1) *
                                                                       sizeof(double)));
        if (!v)
            return mdf_oom(r);
        for (size_t k = 0; k < g->count; k++) {
            const uint8_t *rec = data->p + g->offsets[k];
            v[k] = mdf_value(&g->chans[i], rec, g->inval_bytes ? rec + g->data_bytes : NULL, k);
        }
    }
    return RTCOSIM_OK;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The table: one group's times as they are when they do not decrease, else
 * the union of every group's times (each channel holding its last sample). */
static rtcosim_status build_table(rd *r, group *g, size_t ng, result_table **out)
{
    size_t columns = 0, total = 0, with_master = 0;
    for (size_t k = 0; k < ng; k++) {
        if (g[k].master < 0) {
            r->masterless += g[k].nchan > 0;
            continue;
        }
        with_master++;
        columns += g[k].nchan - 1;
        total += g[k].count;
    }
    if (!with_master)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: no channel group of numeric"
                                 " channels with a master (time) channel", r->path);
    if (!columns && r->can_frames)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: a CAN bus log (CAN_DataFrame "
                                 "records), no measured signals: decode its frames with a DBC "
                                 "(rtcosim can decode %s --dbc F.dbc -o F.mf4)", r->path, r->path);
    double *times = malloc((total ? total : 1) * sizeof *times);
    if (!times)
        return mdf_oom(r);
    size_t rows = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; g[k].master >= 0 && i < g[k].count; i++)
            if (!isnan(g[k].time[i]))
                times[rows++] = g[k].time[i];
    bool sorted = with_master == 1;
    for (size_t i = 1; sorted && i < rows; i++)
        sorted = times[i - 1] <= times[i];
    bool direct = sorted && rows == total; /* one group, times in order, none NaN */
    if (!sorted) {
        qsort(times, rows, sizeof *times, compare_double);
        size_t u = 0;
        for (size_t i = 0; i < rows; i++)
            if (u == 0 || times[i] != times[u - 1])
                times[u++] = times[i];
        rows = u;
    }
    if (columns && rows > MDF_MAX_BYTES / sizeof(double) / columns) {
        free(times);
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: %zu channels x %zu time stamps"
                                 " make a table of over 1 GiB", r->path, columns, rows);
    }
    result_table *t = result_table_new(r->path, rows, columns);
    if (!t) {
        free(times);
        return mdf_oom(r);
    }
    memcpy(t->time, times, rows * sizeof *times);
    free(times);
    size_t c = 0;
    bool ok = true;
    for (size_t k = 0; ok && k < ng; k++) {
        if (g[k].master < 0)
            continue;
        if (!t->first_name)
            ok = (t->first_name = strdup(g[k].chans[g[k].master].name)) != NULL;
        for (size_t i = 0; ok && i < g[k].nchan; i++) {
            if ((ptrdiff_t)i == g[k].master)
                continue;
            result_column *col = &t->columns[c++];
            const chan *ch = &g[k].chans[i];
            bool taken = false;
            for (size_t e = 0; e + 1 < c && !taken; e++)
                taken = strcmp(t->columns[e].name, ch->name) == 0;
            size_t len = strlen(ch->name) + 24;
            ok = (col->name = malloc(len)) != NULL &&
                 (!ch->unit || (col->unit = strdup(ch->unit)) != NULL);
            if (ok)
                snprintf(col->name, len, taken ? "%s (group %zu)" : "%s", ch->name, k + 1);
            if (direct) { /* the one group's rows as they are */
                if (ok)
                    memcpy(col->values, g[k].values[i], rows * sizeof(double));
                continue;
            }
            /* its own samples (for a plot), then the group's last sample
             * at or before each time held */
            size_t own = g[k].count ? g[k].count : 1;
            ok = ok && (col->own_time = malloc(own * sizeof(double))) != NULL &&
                 (col->own_values = malloc(own * sizeof(double))) != NULL;
            if (ok) {
                memcpy(col->own_time, g[k].time, g[k].count * sizeof(double));
                memcpy(col->own_values, g[k].values[i], g[k].count * sizeof(double));
                col->own_rows = g[k].count;
            }
            size_t j = 0;
            for (size_t row = 0; ok && row < rows; row++) {
                while (j < g[k].count && !(g[k].time[j] > t->time[row]))
                    j++;
                col->values[row] = j ? g[k].values[i][j - 1] : NAN;
            }
        }
    }
    if (!ok) {
        result_table_free(t);
        return mdf_oom(r);
    }
    *out = t;
    return RTCOSIM_OK;
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
    if (version >= 400 && version < 500)
        return mdf4_read_groups(r, groups, ng);
    if (unfinished && version >= 300 && version < 400)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: an unfinalized MDF 3 file (its"
                                 " recorder did not close it); finalize it first", r->path);
    if (version >= 300 && version < 400)
        return mdf3_read_groups(r, groups, ng);
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

rtcosim_status result_table_read_mdf_bytes(const uint8_t *data, size_t size, const char *path,
                                           result_table **out, rtcosim_error *err)
{
    *out = NULL;
    rd r = {.d = data, .n = size, .path = path, .err = err};
    group *groups = NULL;
    size_t ng = 0;
    rtcosim_status st = mdf_read_groups(&r, &groups, &ng);
    if (st == RTCOSIM_OK)
        st = build_table(&r, groups, ng, out);
    mdf_groups_free(groups, ng);
    if (st == RTCOSIM_OK)
        mdf_warn_unfinalized(&r);
    if (st == RTCOSIM_OK && (r.skipped || r.raw_conversions || r.masterless))
        rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                    "%s: %zu channels left out (not numbers: strings, byte arrays, structures), "
                    "%zu with a value-table, formula or text conversion read as raw values, %zu "
                    "channel groups without a master channel left out",
                    path, r.skipped, r.raw_conversions, r.masterless);
    return st;
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

typedef struct table_job {
    const char *path;
    result_table **out;
    rtcosim_error *err;
} table_job;

static rtcosim_status table_of(const uint8_t *data, size_t size, void *context)
{
    table_job *j = context;
    return result_table_read_mdf_bytes(data, size, j->path, j->out, j->err);
}

rtcosim_status result_table_read_mdf(const char *path, result_table **out, rtcosim_error *err)
{
    *out = NULL;
    table_job j = {path, out, err};
    return mdf_with_file(path, table_of, &j, err);
}

rtcosim_status result_table_read_mdf_select(const char *path, const result_select *s,
                                            result_table **out, rtcosim_error *err)
{
    /* (reads every channel, then drops the ones not asked for) */
    rtcosim_status st = result_table_read_mdf(path, out, err);
    if (st == RTCOSIM_OK)
        result_table_keep(*out, s);
    return st;
}
