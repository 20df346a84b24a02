/* A .mat results file written while the run goes (mat_stream.h), in the
 * Dymola layout of mat.c. At open libmatio writes the matrices before
 * data_2 (Aclass, name, description, dataInfo and data_1, every parameter
 * column in data_1) and data_2's header follows, with no columns yet. Each
 * row is then one column of data_2 (its time and the trajectories, doubles
 * in the machine's order as libmatio writes them) appended through the
 * recorder's buffer, and whenever that buffer reaches the file, data_2's
 * column count and data_1's times and parameter values are patched in
 * place: a run that dies leaves a file every MAT reader opens, with the
 * time points up to the last write (at most 100 ms of them lost).
 * A parameter is in data_1 only while it keeps its first value. One that
 * changes during the run (a tunable parameter the run sets) has its changes
 * kept aside (a few per run as a rule) and close rewrites the file with it
 * among data_2's trajectories, as the CSV conversion (mat.c) places it: the
 * file is the conversion's byte for byte. Values are those the CSV would
 * hold: a Float32 value is the double its shortest text reads as, a NaN
 * the one NaN the text reads as. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <matio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/mat_stream.h"
#include "matio_dl.h"
#include "mat_write_internal.h"
#include "part_file.h"
#include "result_csv.h"
#include "rtcosim/log.h"
#include "util/write_target.h"

enum { KIND_TEXT, KIND_F64, KIND_F32, KIND_SIGNED, KIND_UNSIGNED, KIND_BOOL };

/* MAT v4: a matrix is five int32 (type, rows, columns, imaginary flag,
 * name length with its NUL), the name, then the values column by column. */
enum { MAT4_HEADER = 20, DATA2_NAME = 7 /* "data_2" and its NUL */ };
static const uint64_t MAT4_MAX_COLUMNS = 2147483647; /* the count is an int32 */

typedef struct stream_col {
    uint8_t kind;
    bool parameter;
    uint32_t at; /* a trajectory: its place in data_2's column; a parameter: its index */
} stream_col;

typedef struct param_change {
    uint64_t row;
    size_t param;
    double value;
} param_change;

struct mat_stream {
    const rtcosim_column *columns;
    size_t n;
    stream_col *cols;
    size_t n1, n2, nparams; /* data_1's rows (time, parameters), data_2's (time, trajectories) */
    double *data1;          /* n1 x 2 as in the file: the start values, then the stop values */
    double *held;           /* each parameter's value now */
    bool *varied;
    param_change *changes;
    size_t nchanges, cap_changes;
    bool changes_failed;
    uint64_t rows, max_rows, rows_over;
    off_t data1_at, ncols_at, data2_at;
    uint8_t head[MAT4_HEADER + DATA2_NAME];
};

static bool big_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 0;
}

/* data_2's header for `rows` rows of `cols` values. */
static void data2_header(uint8_t *head, size_t cols, uint64_t rows)
{
    /* type MOPT: M 0 little-endian / 1 big-endian, O 0, P 0 double, T 0 full */
    int32_t h[5] = {big_endian() ? 1000 : 0, (int32_t)cols, (int32_t)rows, 0, DATA2_NAME};
    memcpy(head, h, sizeof h);
    memcpy(head + MAT4_HEADER, "data_2", DATA2_NAME);
}

void mat_stream_free(mat_stream *m)
{
    if (!m)
        return;
    free(m->cols);
    free(m->data1);
    free(m->held);
    free(m->varied);
    free(m->changes);
    free(m);
}

rtcosim_status mat_stream_open(const char *path, const rtcosim_column *columns, size_t n,
                               mat_stream **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_status st = rtcosim_matio_load(err);
    if (st != RTCOSIM_OK)
        return st;
    mat_stream *m = calloc(1, sizeof *m);
    mat_entry *entries = calloc(n + 1, sizeof *entries);
    if (!m || !entries || !(m->cols = calloc(n + 1, sizeof *m->cols))) {
        free(entries);
        mat_stream_free(m);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the MAT file", path);
    }
    m->columns = columns;
    m->n = n;
    m->n1 = m->n2 = 1;
    m->max_rows = MAT4_MAX_COLUMNS;
    const char *cap = getenv("RTCOSIM_MAT_MAX_ROWS"); /* (tests: a smaller cap) */
    if (cap && strtoull(cap, NULL, 10) > 0 && strtoull(cap, NULL, 10) < m->max_rows)
        m->max_rows = strtoull(cap, NULL, 10);
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_column *c = &columns[i];
        stream_col *s = &m->cols[i];
        switch (c->type) {
        case RTCOSIM_TYPE_STRING:
        case RTCOSIM_TYPE_BINARY:
            s->kind = KIND_TEXT;
            mat_warn_text_left_out(path, c->name);
            continue;
        case RTCOSIM_TYPE_FLOAT64: s->kind = KIND_F64; break;
        case RTCOSIM_TYPE_FLOAT32: s->kind = KIND_F32; break;
        case RTCOSIM_TYPE_INT8:
        case RTCOSIM_TYPE_INT16:
        case RTCOSIM_TYPE_INT32:
        case RTCOSIM_TYPE_INT64: s->kind = KIND_SIGNED; break;
        case RTCOSIM_TYPE_UINT8:
        case RTCOSIM_TYPE_UINT16:
        case RTCOSIM_TYPE_UINT32:
        case RTCOSIM_TYPE_UINT64: s->kind = KIND_UNSIGNED; break;
        default: s->kind = KIND_BOOL; break; /* Boolean, Clock */
        }
        s->parameter = c->parameter;
        s->at = s->parameter ? (uint32_t)m->nparams++ : (uint32_t)m->n2;
        entries[ne++] = (mat_entry){.name = c->name, .meta = c, .matrix = s->parameter ? 1 : 2,
                                    .row = s->parameter ? (int)++m->n1 : (int)++m->n2};
    }
    m->data1 = calloc(2 * m->n1, sizeof *m->data1);
    m->held = calloc(m->nparams + 1, sizeof *m->held);
    m->varied = calloc(m->nparams + 1, sizeof *m->varied);
    if (!m->data1 || !m->held || !m->varied)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the MAT file", path);
    for (size_t p = 1; st == RTCOSIM_OK && p < m->n1; p++)
        m->data1[p] = m->data1[m->n1 + p] = NAN; /* until the first row */
    mat_t *mat = st == RTCOSIM_OK ? mat_write_meta(path, entries, ne, m->data1, m->n1, err) : NULL;
    free(entries);
    if (st == RTCOSIM_OK && !mat)
        st = err->status;
    errno = 0;
    if (mat && Mat_Close(mat) != 0)
        st = mat_write_failure(path, errno, err);
    struct stat sb;
    if (st == RTCOSIM_OK && stat(path, &sb) != 0)
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read back the MAT file: %s", path,
                               strerror(errno));
    if (st != RTCOSIM_OK) {
        mat_stream_free(m);
        return st;
    }
    /* data_1 is the last matrix libmatio wrote: its values end the file */
    m->data1_at = sb.st_size - (off_t)(2 * m->n1 * sizeof(double));
    m->ncols_at = sb.st_size + 8;
    m->data2_at = sb.st_size + MAT4_HEADER + DATA2_NAME;
    data2_header(m->head, m->n2, 0);
    *out = m;
    return RTCOSIM_OK;
}

const uint8_t *mat_stream_head(const mat_stream *m, size_t *bytes)
{
    *bytes = sizeof m->head;
    return m->head;
}

size_t mat_stream_record_bytes(const mat_stream *m)
{
    return m->n2 * sizeof(double);
}

bool mat_stream_has_room(mat_stream *m)
{
    if (m->rows < m->max_rows)
        return true;
    m->rows_over++;
    return false;
}

/* The value as the CSV's text would read back (mat.c's conversion). */
static inline double value_of(const stream_col *c, const rtcosim_value *v)
{
    switch (c->kind) {
    case KIND_F64: return v->f64 == v->f64 ? v->f64 : NAN;
    case KIND_F32: {
        char text[RTCOSIM_FORMAT_MAX];
        rtcosim_format_float(v->f32, text);
        return result_csv_number(text);
    }
    case KIND_SIGNED: return (double)v->i64;
    case KIND_UNSIGNED: return (double)v->u64;
    default: return v->b ? 1.0 : 0.0;
    }
}

static void note_change(mat_stream *m, size_t param, double value)
{
    m->held[param] = value;
    m->varied[param] = true;
    if (m->nchanges == m->cap_changes) {
        size_t cap = m->cap_changes ? 2 * m->cap_changes : 64;
        param_change *grown = realloc(m->changes, cap * sizeof *grown);
        if (!grown) {
            m->changes_failed = true;
            return;
        }
        m->changes = grown;
        m->cap_changes = cap;
    }
    m->changes[m->nchanges++] = (param_change){.row = m->rows, .param = param, .value = value};
}

void mat_stream_put(mat_stream *m, uint8_t *rec, rtcosim_time_ns t, const rtcosim_value *values,
                    const _Atomic uint64_t *omit_from, uint64_t row)
{
    double seconds = (double)t / 1e9;
    memcpy(rec, &seconds, sizeof seconds);
    for (size_t i = 0; i < m->n; i++) {
        const stream_col *c = &m->cols[i];
        if (c->kind == KIND_TEXT)
            continue;
        double v = row >= atomic_load_explicit(&omit_from[i], memory_order_relaxed)
                       ? NAN
                       : value_of(c, &values[i]);
        if (!c->parameter) {
            memcpy(rec + c->at * sizeof(double), &v, sizeof v);
        } else if (m->rows == 0) {
            m->held[c->at] = m->data1[1 + c->at] = m->data1[m->n1 + 1 + c->at] = v;
        } else {
            double h = m->held[c->at];
            if (!(v == h || (v != v && h != h)))
                note_change(m, c->at, v);
        }
    }
    if (m->rows == 0)
        m->data1[0] = seconds;
    m->data1[m->n1] = seconds;
    m->rows++;
}

/* The counts written in place; an errno, or 0. */
static int patch(const mat_stream *m, int fd, uint64_t rows)
{
    int32_t ncols = (int32_t)rows;
    size_t bytes = 2 * m->n1 * sizeof(double);
    if (pwrite(fd, &ncols, sizeof ncols, m->ncols_at) != (ssize_t)sizeof ncols ||
        pwrite(fd, m->data1, bytes, m->data1_at) != (ssize_t)bytes)
        return errno ? errno : EIO;
    return 0;
}

void mat_stream_patch(const mat_stream *m, int fd, uint64_t rows)
{
    int saved = errno; /* (called from a signal handler too) */
    (void)patch(m, fd, rows);
    errno = saved;
}

/* The file again at path (through path.part, renamed over it) with each
 * parameter that changed among data_2's trajectories, its value held from
 * change to change, in the conversion's order: columns in the recorder's
 * order, data_1 for those that stayed constant. */
static rtcosim_status rewrite(const mat_stream *m, int fd, const char *path, uint64_t rows,
                              rtcosim_error *err)
{
    /* (a symbolic link at path: its target is rewritten, the link stays) */
    char *target = util_write_target(path);
    if (target && !util_target_replaceable(target)) {
        free(target); /* (a device, /dev/null: what was written in place stays) */
        return RTCOSIM_OK;
    }
    size_t len = (target ? strlen(target) : 0) + sizeof ".part";
    char *part = target ? malloc(len) : NULL;
    mat_entry *entries = calloc(m->n + 1, sizeof *entries);
    /* per data_2 row: >= 0 its place in the old rows, < 0 a parameter's */
    long *source = calloc(m->n + 2, sizeof *source);
    double *data1 = calloc(2 * m->n1, sizeof *data1);
    double *held = calloc(m->nparams + 1, sizeof *held);
    enum { CHUNK = 4096 };
    size_t old_bytes = m->n2 * sizeof(double);
    double *in = malloc(CHUNK * old_bytes), *out = malloc(CHUNK * (m->n + 1) * sizeof(double));
    rtcosim_status st = RTCOSIM_OK;
    if (!part || !entries || !source || !data1 || !held || !in || !out)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory rewriting the MAT file",
                               path);
    size_t ne = 0, n1 = 1, n2 = 1;
    for (size_t i = 0; st == RTCOSIM_OK && i < m->n; i++) {
        const stream_col *c = &m->cols[i];
        if (c->kind == KIND_TEXT)
            continue;
        bool constant = c->parameter && !m->varied[c->at];
        entries[ne++] = (mat_entry){.name = m->columns[i].name, .meta = &m->columns[i],
                                    .matrix = constant ? 1 : 2,
                                    .row = constant ? (int)++n1 : (int)++n2};
        if (constant)
            data1[n1 - 1] = m->data1[1 + c->at];
        else
            source[n2 - 1] = c->parameter ? -1 - (long)c->at : (long)c->at;
    }
    if (st == RTCOSIM_OK) {
        data1[0] = m->data1[0];
        memcpy(data1 + n1, data1, n1 * sizeof *data1);
        data1[n1] = m->data1[m->n1];
        for (size_t p = 0; p < m->nparams; p++)
            held[p] = m->data1[1 + p];
        snprintf(part, len, "%s.part", target);
    }
    /* (a second Ctrl-C removes it) */
    int slot = st == RTCOSIM_OK ? result_part_register(part) : -1;
    mat_t *mat = st == RTCOSIM_OK ? mat_write_meta(part, entries, ne, data1, n1, err) : NULL;
    if (st == RTCOSIM_OK && (!mat || Mat_Close(mat) != 0))
        st = mat ? rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the MAT file failed", part)
                 : err->status;
    int to = st == RTCOSIM_OK ? open(part, O_WRONLY | O_CLOEXEC) : -1;
    uint8_t head[MAT4_HEADER + DATA2_NAME];
    data2_header(head, n2, rows);
    if (st == RTCOSIM_OK && (to < 0 || lseek(to, 0, SEEK_END) < 0 ||
                             write(to, head, sizeof head) != (ssize_t)sizeof head))
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", part, strerror(errno));
    size_t next_change = 0;
    for (uint64_t r = 0; st == RTCOSIM_OK && r < rows;) {
        size_t k = rows - r < CHUNK ? (size_t)(rows - r) : CHUNK;
        size_t want = k * old_bytes;
        ssize_t got = pread(fd, in, want, m->data2_at + (off_t)(r * old_bytes));
        if (got != (ssize_t)want) {
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read back the time points: %s",
                                   path, got < 0 ? strerror(errno) : "the file is shorter");
            break;
        }
        for (size_t j = 0; j < k; j++, r++) {
            while (next_change < m->nchanges && m->changes[next_change].row == r) {
                held[m->changes[next_change].param] = m->changes[next_change].value;
                next_change++;
            }
            const double *from = in + j * m->n2;
            double *to_row = out + j * n2;
            to_row[0] = from[0];
            for (size_t q = 1; q < n2; q++)
                to_row[q] = source[q] >= 0 ? from[source[q]] : held[-1 - source[q]];
        }
        size_t bytes = k * n2 * sizeof(double);
        if (write(to, out, bytes) != (ssize_t)bytes)
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", part,
                                   strerror(errno ? errno : ENOSPC));
    }
    if (to >= 0 && close(to) != 0 && st == RTCOSIM_OK)
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", part, strerror(errno));
    if (st == RTCOSIM_OK && rename(part, target) != 0)
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot rename to %s: %s", part, target,
                               strerror(errno));
    if (st != RTCOSIM_OK && mat)
        (void)unlink(part); /* (made: the file's first matrices were written) */
    result_part_unregister(slot);
    free(part);
    free(target);
    free(entries);
    free(source);
    free(data1);
    free(held);
    free(in);
    free(out);
    return st;
}

rtcosim_status mat_stream_finish(mat_stream *m, int fd, const char *path, uint64_t rows,
                                 rtcosim_error *err)
{
    int e = patch(m, fd, rows);
    if (e)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing results failed: %s", path,
                                 strerror(e));
    if (m->rows_over)
        rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                    "%s: the last %llu rows are not written: a MAT v4 matrix holds at most "
                    "%llu time points (an .mf4 results file holds any number)",
                    path, (unsigned long long)m->rows_over, (unsigned long long)m->max_rows);
    if (m->changes_failed)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory keeping a parameter's "
                                 "changes; the file holds its first value only", path);
    for (size_t p = 0; p < m->nparams; p++)
        if (m->varied[p])
            return rewrite(m, fd, path, rows, err);
    return RTCOSIM_OK;
}
