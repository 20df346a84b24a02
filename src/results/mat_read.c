/* A MAT file in the Modelica/Dymola result layout (binTrans or binNormal,
 * MAT v4 or v5, via libmatio loaded when first needed) read into a result
 * table: time, names, units and values. Read by `rtcosim plot`, `convert`,
 * `info`, Python's read_result and the table component (a .mat stimulus, as
 * OMSimulator's table reads result files). data_2, the trajectories, is read
 * a slab at a time when it is stored uncompressed (MAT v4, as Dymola,
 * OpenModelica and rtcosim write it; v5 without compression): a block of
 * time points of binTrans, or the needed columns of binNormal, so that the
 * memory is the table of the variables asked for, not the file; `convert`
 * takes binTrans slabs' rows as they are read (result_mat_stream_select),
 * holding no table. */
#include <errno.h>
#include <math.h>
#include <matio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "results/matio_dl.h"
#include "results/result_table.h"

static double mat_number(const matvar_t *v, size_t i)
{
    switch (v->data_type) {
    case MAT_T_DOUBLE: return ((const double *)v->data)[i];
    case MAT_T_SINGLE: return ((const float *)v->data)[i];
    case MAT_T_INT32: return ((const int32_t *)v->data)[i];
    case MAT_T_UINT32: return ((const uint32_t *)v->data)[i];
    case MAT_T_INT16: return ((const int16_t *)v->data)[i];
    case MAT_T_UINT16: return ((const uint16_t *)v->data)[i];
    case MAT_T_INT8: return ((const int8_t *)v->data)[i];
    case MAT_T_UINT8: return ((const uint8_t *)v->data)[i];
    default: return NAN;
    }
}

static int mat_char(const matvar_t *v, size_t i)
{
    switch (v->data_type) {
    case MAT_T_UINT8:
    case MAT_T_INT8:
    case MAT_T_UTF8: return ((const unsigned char *)v->data)[i];
    case MAT_T_UINT16:
    case MAT_T_UTF16: return ((const uint16_t *)v->data)[i] & 0x7F;
    default: return (int)mat_number(v, i);
    }
}

static size_t mat_count(const matvar_t *v)
{
    return v && v->rank == 2 ? v->dims[0] * v->dims[1] : 0;
}

/* The data holds every element its dimensions count, of the size its type
 * says (a header and its data can disagree: fuzz_mat_results). */
static bool mat_data_fits(const matvar_t *v)
{
    size_t size;
    switch (v->data_type) {
    case MAT_T_UINT8: case MAT_T_INT8: case MAT_T_UTF8: size = 1; break;
    case MAT_T_UINT16: case MAT_T_INT16: case MAT_T_UTF16: size = 2; break;
    case MAT_T_UINT32: case MAT_T_INT32: case MAT_T_SINGLE: size = 4; break;
    case MAT_T_DOUBLE: size = 8; break;
    default: return false;
    }
    return v->data && v->nbytes / size >= mat_count(v);
}

/* A char matrix whose data can be read as its dimensions say. */
static bool mat_chars(const matvar_t *v)
{
    return v && v->data && v->rank == 2 && v->class_type == MAT_C_CHAR && mat_data_fits(v);
}

static bool mat_numeric(const matvar_t *v)
{
    return v && v->data && v->rank == 2 && !v->isComplex && mat_data_fits(v) &&
           (v->class_type == MAT_C_DOUBLE || v->class_type == MAT_C_SINGLE ||
            v->class_type == MAT_C_INT32 || v->class_type == MAT_C_UINT32 ||
            v->class_type == MAT_C_INT16 || v->class_type == MAT_C_UINT16 ||
            v->class_type == MAT_C_INT8 || v->class_type == MAT_C_UINT8);
}

/* String k of a char matrix: a column (transposed) or a row. */
static char *mat_string(const matvar_t *v, size_t k, bool transposed)
{
    size_t len = transposed ? v->dims[0] : v->dims[1];
    size_t count = transposed ? v->dims[1] : v->dims[0];
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        int c = mat_char(v, transposed ? k * len + i : i * count + k);
        /* control characters (a newline in a name would break a one-line
         * message, found by fuzz_mat_results) and NULs become blanks */
        s[i] = c >= 32 && c < 256 && c != 127 ? (char)c : ' ';
    }
    while (len > 0 && s[len - 1] == ' ')
        len--;
    s[len] = '\0';
    return s;
}

/* "Height of the ball [m]" -> "m"; Dymola's "[m|mm]" (unit|display unit) -> "m". */
static char *unit_of_description(const char *d)
{
    size_t n = strlen(d);
    if (n < 2 || d[n - 1] != ']')
        return NULL;
    const char *open = strrchr(d, '[');
    if (!open)
        return NULL;
    size_t len = (size_t)(d + n - 1 - (open + 1));
    const char *bar = memchr(open + 1, '|', len);
    if (bar)
        len = (size_t)(bar - (open + 1));
    return len ? strndup(open + 1, len) : NULL;
}

/* A variable's header (no data) when it claims no more data than the file
 * can hold (a byte an element at least, up to zlib's ratio of about 1000:1
 * when compressed): libmatio allocates what a header says before reading,
 * 2 GB for a 530-byte file found by fuzz_mat_results. *big is set when that
 * is why it is not given. */
static matvar_t *read_head(mat_t *mat, const char *name, uint64_t file_size, bool *big)
{
    matvar_t *head = Mat_VarReadInfo(mat, name);
    if (!head)
        return NULL;
    uint64_t elements = 1, limit = head->compression ? file_size * 1100 : file_size;
    bool fits = head->rank >= 0 && head->rank <= 8;
    for (int i = 0; fits && i < head->rank; i++)
        fits = head->dims[i] == 0 || elements <= UINT64_MAX / head->dims[i]
                   ? (elements *= head->dims[i], elements <= limit)
                   : false;
    if (!fits) {
        Mat_VarFree(head);
        *big = true;
        return NULL;
    }
    return head;
}

/* The same variable with its data. */
static matvar_t *read_var(mat_t *mat, const char *name, uint64_t file_size, bool *big)
{
    matvar_t *head = read_head(mat, name, file_size, big);
    if (!head)
        return NULL;
    Mat_VarFree(head);
    return Mat_VarRead(mat, name);
}

/* data_2 read a slab at a time (Mat_VarReadDataLinear): a real 2-D matrix of
 * doubles or singles of a MAT v4 file, whose data's size its dimensions
 * give (v5 states it apart, and libmatio's slab reads do not check it:
 * fuzz_mat_results); the slab holds its class. */
static bool slab_readable(const matvar_t *head)
{
    return head && head->rank == 2 && !head->isComplex && !head->compression &&
           (head->class_type == MAT_C_DOUBLE || head->class_type == MAT_C_SINGLE) &&
           head->dims[0] > 0 && head->dims[1] > 0 &&
           head->dims[0] <= INT32_MAX / head->dims[1]; /* (linear offsets are ints) */
}

static double slab_at(const matvar_t *head, const void *slab, size_t i)
{
    return head->class_type == MAT_C_SINGLE ? ((const float *)slab)[i]
                                            : ((const double *)slab)[i];
}

enum { SLAB_BYTES = 4 << 20 };

static uint32_t swap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static uint32_t word(const unsigned char *p, bool swapped)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return swapped ? swap32(w) : w;
}

/* An array element (miMATRIX: its tag, then array flags, dimensions, name
 * and data subelements) of n bytes whose first `have` bytes are at p:
 * whether what its subelements claim fits in those n bytes. libmatio allocates the
 * dimensions and name a header states, and inside a compressed variable
 * read_head's bound does not see them: 883 bytes that took 1.9 GB were
 * found by fuzz_mat_results. */
static bool mat_v5_array_fits(const unsigned char *p, size_t have, uint64_t n, bool swapped)
{
    size_t at = 0;
    uint64_t elements = 1;
    uint32_t cls = 0;
    for (int sub = 0; sub < 4; sub++) { /* flags, dimensions, name, the (real) data */
        if (have - at < 8)
            return true; /* (past what was inflated: libmatio checks the rest) */
        uint32_t type = word(p + at, swapped), nb;
        const unsigned char *data;
        size_t next;
        if (type >> 16) { /* small element: its size in the upper half, data in the tag */
            nb = type >> 16;
            type &= 0xFFFF;
            data = p + at + 4;
            next = at + 8;
            if (nb > 4)
                return false;
        } else {
            nb = word(p + at + 4, swapped);
            data = p + at + 8;
            if (at + 8 > n || nb > n - at - 8)
                return false; /* more than the element holds */
            next = at + 8 + ((size_t)nb + 7) / 8 * 8;
        }
        if (sub == 0 && nb >= 4 && (size_t)(data - p) + 4 <= have)
            cls = word(data, swapped) & 0xFF; /* array flags: the class in the low byte */
        if (sub == 1) {
            if (nb % 4 != 0 || nb / 4 > 32)
                return false; /* rank over 32 */
            for (uint32_t k = 0; k < nb / 4; k++) {
                if ((size_t)(data - p) + 4 * (k + 1) > have)
                    return true;
                uint64_t d = word(data + 4 * k, swapped);
                elements = d == 0 || elements <= UINT64_MAX / d ? elements * d : UINT64_MAX;
            }
            /* every element of a full array takes a byte at least (sparse ones
             * hold only their nonzeros) */
            if (cls != 5 && elements > n)
                return false;
        }
        if (next > have)
            return true;
        at = next;
    }
    return true;
}

/* MAT v5: its top-level elements fill the file, and each variable's array
 * header (inflated, for a compressed one: its first 512 bytes) claims no
 * more than its element holds. */
static bool mat_v5_fits(FILE *f, uint64_t size, bool swapped, uint64_t *bad_at)
{
    uint64_t at = 128;
    unsigned char in[4096], out[512];
    while (at < size) {
        unsigned char tag[8];
        if (size - at < 8 || fseek(f, (long)at, SEEK_SET) != 0 || fread(tag, 8, 1, f) != 1)
            break;
        uint32_t type = word(tag, swapped), nb = word(tag + 4, swapped);
        if (type >> 16) { /* a small element at the top level: 8 bytes */
            at += 8;
            continue;
        }
        if (nb > size - at - 8)
            break;
        if (type == 14) { /* miMATRIX, stored as it is */
            size_t have = nb < sizeof out ? nb : sizeof out;
            if (fread(out, 1, have, f) != have || !mat_v5_array_fits(out, have, nb, swapped))
                break;
        } else if (type == 15) { /* miCOMPRESSED: deflate of a miMATRIX element */
            z_stream z = {0};
            if (inflateInit(&z) != Z_OK)
                break;
            z.next_out = out;
            z.avail_out = sizeof out;
            uint64_t left = nb;
            int zr = Z_OK;
            while (left && z.avail_out && zr == Z_OK) {
                size_t take = left < sizeof in ? (size_t)left : sizeof in;
                if (fread(in, 1, take, f) != take)
                    break;
                left -= take;
                z.next_in = in;
                z.avail_in = (uInt)take;
                zr = inflate(&z, Z_NO_FLUSH);
            }
            size_t have = sizeof out - z.avail_out;
            inflateEnd(&z);
            /* deflate packs at most about 1032:1 */
            if (have >= 8) {
                uint32_t inner = word(out + 4, swapped);
                if (word(out, swapped) == 14 &&
                    ((uint64_t)inner > (uint64_t)nb * 1100 + 64 ||
                     !mat_v5_array_fits(out + 8, have - 8, inner, swapped)))
                    break;
            }
        }
        at += 8 + (uint64_t)nb; /* (a matrix's size counts its padding; compressed: none) */
    }
    *bad_at = at;
    return at == size;
}

/* A file without MAT v5's 128-byte header (version 0x0100 and "IM"/"MI" at
 * 124..127) is MAT v4: its matrices, each a 20-byte header (type MOPT,
 * mrows, ncols, imagf, namelen), the name and the data, must fill the file
 * exactly. libmatio trusts namelen: a 184-byte file whose header says 1.9 GB
 * took that much memory and 2.5 s in Mat_Open (found by fuzz_mat_results).
 * Returns false, with the offset of the first header that does not fit. */
static bool mat_v4_fits(FILE *f, uint64_t size, uint64_t *bad_at)
{
    unsigned char head[128];
    if (size >= 128 && fread(head, 1, 128, f) == 128 &&
        ((head[124] == 0 && head[125] == 1 && head[126] == 'I' && head[127] == 'M') ||
         (head[124] == 1 && head[125] == 0 && head[126] == 'M' && head[127] == 'I')))
        return mat_v5_fits(f, size, head[126] == 'M', bad_at);
    uint64_t at = 0;
    while (at < size) {
        uint32_t h[5];
        if (size - at < sizeof h || fseek(f, (long)at, SEEK_SET) != 0 ||
            fread(h, sizeof h, 1, f) != 1)
            break;
        if (h[0] > 4052) /* M = 1: written big-endian */
            for (int i = 0; i < 5; i++)
                h[i] = swap32(h[i]);
        static const unsigned sizes[] = {8, 4, 4, 2, 2, 1};
        unsigned type = h[0], p = type / 10 % 10;
        if (type > 1052 || type / 100 % 10 != 0 || p > 5 || type % 10 > 2 || h[3] > 1 ||
            h[4] == 0)
            break;
        uint64_t data = (uint64_t)h[1] * h[2] * sizes[p] * (h[3] + 1u);
        uint64_t left = size - at - sizeof h;
        if (h[4] > left || data > left - h[4])
            break;
        at += sizeof h + h[4] + data;
    }
    *bad_at = at;
    return at == size;
}

rtcosim_status result_table_read_mat(const char *path, result_table **out, rtcosim_error *err)
{
    return result_table_read_mat_select(path, NULL, out, err);
}

static rtcosim_status read_mat(const char *path, const result_select *sel,
                               const result_row_sink *sink, result_stream_outcome *outcome,
                               result_table **out, rtcosim_error *err);

rtcosim_status result_table_read_mat_select(const char *path, const result_select *sel,
                                            result_table **out, rtcosim_error *err)
{
    return read_mat(path, sel, NULL, NULL, out, err);
}

rtcosim_status result_mat_stream_select(const char *path, const result_select *sel,
                                        const result_row_sink *sink,
                                        result_stream_outcome *outcome, rtcosim_error *err)
{
    *outcome = RESULT_NOT_STREAMABLE;
    return read_mat(path, sel, sink, outcome, NULL, err);
}

/* Where a kept variable's values are (dataInfo): data_2 column `index`
 * (from 1), or data_1 (constant over the run); `sign` -1 for a negated alias. */
typedef struct mat_source {
    bool in_d2;
    size_t index;
    double sign;
} mat_source;

/* A data_1 variable's value (its first, the run's constant). */
static double d1_value(const matvar_t *d1, const mat_source *src, bool transposed, size_t d1_rows)
{
    return src->sign * mat_number(d1, transposed ? src->index - 1 : (src->index - 1) * d1_rows);
}

/* The table of the variables sel names (out), or, with a sink, their rows
 * handed over a slab of time points at a time when data_2 is binTrans and
 * read in slabs (else *outcome RESULT_NOT_STREAMABLE, nothing read). */
static rtcosim_status read_mat(const char *path, const result_select *sel,
                               const result_row_sink *sink, result_stream_outcome *outcome,
                               result_table **out, rtcosim_error *err)
{
    if (out)
        *out = NULL;
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: cannot open: %s", path,
                                 strerror(errno));
    long file_size = fseek(probe, 0, SEEK_END) == 0 ? ftell(probe) : -1;
    uint64_t bad_at = 0;
    bool fits = file_size >= 0 && fseek(probe, 0, SEEK_SET) == 0 &&
                mat_v4_fits(probe, (uint64_t)file_size, &bad_at);
    unsigned char magic[128];
    bool v5 = file_size >= 128 && fseek(probe, 0, SEEK_SET) == 0 &&
              fread(magic, 1, 128, probe) == 128 &&
              ((magic[126] == 'I' && magic[127] == 'M') || (magic[126] == 'M' && magic[127] == 'I'));
    fclose(probe);
    if (file_size < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read: %s", path, strerror(errno));
    if (!fits)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a MAT file (the matrix at byte "
                                 "%llu does not fit in the file's %ld bytes, or claims more "
                                 "than it holds)", path, (unsigned long long)bad_at, file_size);
    rtcosim_status st = rtcosim_matio_load(err);
    if (st != RTCOSIM_OK)
        return st;
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a MAT file libmatio can open", path);
    bool big = false;
    uint64_t size = (uint64_t)file_size;
    matvar_t *aclass = read_var(mat, "Aclass", size, &big);
    matvar_t *name = read_var(mat, "name", size, &big);
    matvar_t *desc = read_var(mat, "description", size, &big);
    matvar_t *info = read_var(mat, "dataInfo", size, &big);
    matvar_t *d1 = read_var(mat, "data_1", size, &big);
    /* data_2: its header, then a slab at a time, or whole when libmatio can
     * only read it so (compressed, another class) */
    matvar_t *d2 = read_head(mat, "data_2", size, &big);
    /* (RTCOSIM_MAT_WHOLE=1: read whole, the reference fuzz_mat_results and
     * the tests compare the slabs with) */
    const char *whole = getenv("RTCOSIM_MAT_WHOLE");
    bool slabs = !v5 && slab_readable(d2) && !(whole && strcmp(whole, "1") == 0);
    result_table *t = NULL;
    mat_source *src = NULL;
    void *slab = NULL;
    double *row = NULL; /* a streamed row */
    bool transposed = false;
    if (mat_chars(aclass) && aclass->dims[0] >= 4) {
        char *kind = mat_string(aclass, 3, false);
        transposed = kind && strcmp(kind, "binTrans") == 0;
        free(kind);
    }
    if (sink && !(slabs && transposed))
        goto done; /* (not streamed: the caller reads the table) */
    if (sink)
        *outcome = RESULT_STREAMED;
    if (d2 && !slabs) {
        Mat_VarFree(d2);
        d2 = Mat_VarRead(mat, "data_2");
    }
    if (d1 && !mat_numeric(d1)) {
        Mat_VarFree(d1);
        d1 = NULL;
    }
    if (big) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: a matrix header claims more data than "
                               "the file holds (%ld bytes)", path, file_size);
        goto done;
    }
    if (!mat_chars(name) ||
        !mat_numeric(info) || !(slabs || mat_numeric(d2)) || mat_count(info) == 0) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                               "%s: not a Modelica/Dymola result file (needs Aclass, name, "
                               "dataInfo and data_2)", path);
        goto done;
    }
    size_t names = transposed ? name->dims[1] : name->dims[0];
    size_t info_rows = transposed ? info->dims[0] : info->dims[1];
    size_t info_n = transposed ? info->dims[1] : info->dims[0];
    size_t d2_vars = transposed ? d2->dims[0] : d2->dims[1];
    size_t rows = transposed ? d2->dims[1] : d2->dims[0];
    size_t d1_vars = d1 ? (transposed ? d1->dims[0] : d1->dims[1]) : 0;
    size_t d1_rows = d1 ? (transposed ? d1->dims[1] : d1->dims[0]) : 0;
    if (info_rows < 2 || info_n != names || names < 1 || d2_vars < 1 || rows < 1) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: name, dataInfo and data_2 do not agree "
                               "in size", path);
        goto done;
    }
    /* the variables kept: names, units and where their values are; then
     * the table of those */
    size_t kept = 0;
    char **labels = calloc(2 * names, sizeof *labels); /* name and unit of each kept one */
    if (!labels || !(src = calloc(names, sizeof *src))) {
        free(labels);
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t k = 1; k < names && st == RTCOSIM_OK; k++) {
        char *n = mat_string(name, k, transposed);
        if (!n) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
            break;
        }
        if (!result_select_has(sel, n)) {
            free(n);
            continue;
        }
        labels[2 * kept] = n;
        char *d = mat_chars(desc) && (transposed ? desc->dims[1] : desc->dims[0]) == names
                      ? mat_string(desc, k, transposed)
                      : NULL;
        labels[2 * kept + 1] = d ? unit_of_description(d) : NULL;
        free(d);
        double matrix = mat_number(info, transposed ? k * info_rows : k);
        double where = mat_number(info, transposed ? k * info_rows + 1 : k + info_n);
        /* negative: the negated variable; not an integer in range: none */
        size_t index = fabs(where) < 0x1p31 && where == floor(where) ? (size_t)fabs(where) : 0;
        src[kept].sign = where < 0 ? -1 : 1;
        src[kept].index = index;
        if (matrix == 2 && index >= 1 && index <= d2_vars)
            src[kept].in_d2 = true;
        else if (!((matrix == 1 || matrix == 0) && index >= 1 && index <= d1_vars && d1_rows >= 1))
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                   "%s: dataInfo of '%s' points outside data_1/data_2", path, n);
        kept++;
    }
    if (st == RTCOSIM_OK && (!(t = result_table_new(path, sink ? 0 : rows, kept)) ||
                             !(t->first_name = strdup("time"))))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    for (size_t c = 0; c < kept; c++) {
        if (t) { /* (the table owns them from here) */
            t->columns[c].name = labels[2 * c];
            t->columns[c].unit = labels[2 * c + 1];
        } else {
            free(labels[2 * c]);
            free(labels[2 * c + 1]);
        }
    }
    free(labels);
    if (st != RTCOSIM_OK)
        goto done;
    size_t esize = !slabs ? 0 : d2->class_type == MAT_C_SINGLE ? sizeof(float) : sizeof(double);
    if (!slabs) {
        for (size_t r = 0; r < rows; r++)
            t->time[r] = mat_number(d2, transposed ? r * d2_vars : r);
        for (size_t c = 0; c < kept; c++)
            for (size_t r = 0; src[c].in_d2 && r < rows; r++)
                t->columns[c].values[r] =
                    src[c].sign * mat_number(d2, transposed ? r * d2_vars + src[c].index - 1
                                                           : (src[c].index - 1) * rows + r);
    } else if (transposed) {
        /* binTrans: a variable a row, a time point a column; blocks of time
         * points, every variable of each */
        size_t block = SLAB_BYTES / (d2_vars * esize);
        block = block ? (block < rows ? block : rows) : 1;
        if (!(slab = malloc(block * d2_vars * esize))) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
            goto done;
        }
        if (sink) { /* the columns handed over; data_1's constants set in the row once */
            result_table *cols = t;
            t = NULL;
            if (!(row = calloc(kept + 1, sizeof *row))) {
                result_table_free(cols);
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
                goto done;
            }
            for (size_t c = 0; c < kept; c++)
                if (!src[c].in_d2)
                    row[c] = d1_value(d1, &src[c], transposed, d1_rows);
            if ((st = sink->columns(sink->context, cols, err)) != RTCOSIM_OK)
                goto done;
        }
        double before = -INFINITY;
        for (size_t r0 = 0; r0 < rows && st == RTCOSIM_OK; r0 += block) {
            size_t n = rows - r0 < block ? rows - r0 : block;
            /* (linear: libmatio 1.5.23's 2-D slab of whole columns of a MAT v4
             * matrix starts at its first column, whatever the start asked) */
            if (Mat_VarReadDataLinear(mat, d2, slab, (int)(r0 * d2_vars), 1,
                                      (int)(n * d2_vars)) != 0) {
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: data_2: time points %zu.. cannot "
                                       "be read", path, r0 + 1);
                break;
            }
            for (size_t r = 0; sink && r < n && st == RTCOSIM_OK; r++) {
                double time = slab_at(d2, slab, r * d2_vars);
                if (!(time >= before)) {
                    st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: data_2: time decreases at "
                                           "point %zu", path, r0 + r + 1);
                    break;
                }
                before = time;
                for (size_t c = 0; c < kept; c++)
                    if (src[c].in_d2)
                        row[c] = src[c].sign * slab_at(d2, slab, r * d2_vars + src[c].index - 1);
                st = sink->row(sink->context, time, row, NULL, err);
            }
            for (size_t r = 0; !sink && r < n; r++) {
                t->time[r0 + r] = slab_at(d2, slab, r * d2_vars);
                for (size_t c = 0; c < kept; c++)
                    if (src[c].in_d2)
                        t->columns[c].values[r0 + r] =
                            src[c].sign * slab_at(d2, slab, r * d2_vars + src[c].index - 1);
            }
        }
    } else {
        /* binNormal: a variable a column; the time column and each kept one */
        if (esize != sizeof(double) && !(slab = malloc(rows * esize))) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
            goto done;
        }
        for (size_t c = 0; c <= kept && st == RTCOSIM_OK; c++) {
            if (c < kept && !src[c].in_d2)
                continue;
            size_t index = c < kept ? src[c].index : 1;
            double *to = c < kept ? t->columns[c].values : t->time;
            if (Mat_VarReadDataLinear(mat, d2, slab ? slab : to, (int)((index - 1) * rows), 1,
                                      (int)rows) != 0) {
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: data_2: column %zu cannot be "
                                       "read", path, index);
                break;
            }
            double sign = c < kept ? src[c].sign : 1;
            for (size_t r = 0; r < rows; r++)
                to[r] = sign * (slab ? slab_at(d2, slab, r) : to[r]);
        }
    }
    if (st != RTCOSIM_OK || sink)
        goto done;
    for (size_t r = 1; r < rows; r++)
        if (!(t->time[r] >= t->time[r - 1])) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: data_2: time decreases at point %zu",
                                   path, r + 1);
            goto done;
        }
    for (size_t c = 0; c < kept; c++) {
        if (src[c].in_d2)
            continue;
        /* data_1: constant over the run (its first value) */
        double v = d1_value(d1, &src[c], transposed, d1_rows);
        for (size_t r = 0; r < rows; r++)
            t->columns[c].values[r] = v;
    }
done:
    free(src);
    free(slab);
    free(row);
    Mat_VarFree(aclass);
    Mat_VarFree(name);
    Mat_VarFree(desc);
    Mat_VarFree(info);
    Mat_VarFree(d1);
    Mat_VarFree(d2);
    Mat_Close(mat);
    if (st != RTCOSIM_OK || !out) {
        result_table_free(t);
        return st;
    }
    *out = t;
    return RTCOSIM_OK;
}
