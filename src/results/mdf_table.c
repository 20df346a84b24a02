/* An MDF measurement's result table (mdf_read.c says what is read): the
 * channel groups' layout first (mdf4_read.c, mdf3_read.c), then the records
 * of the groups that hold a channel asked for walked a data block at a time
 * (mdf_records.c), keeping the master's times and the channels asked for,
 * then the table of them. Memory is the kept columns (and the table made of
 * them) plus a data block, whatever the data groups hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_read_internal.h"
#include "results/result_table.h"
#include "rtcosim/log.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A column of the table: channel i of group k. */
typedef struct column_plan {
    size_t k, i;
    char *name;
} column_plan;

/* Every numeric channel's column name, as the whole table names it (a name
 * that an earlier group's channel has gets " (group N)"), into plan[0..*n);
 * the channels `sel` names marked wanted and their groups read (no
 * selection: every group with a master, even one of no other channel, so
 * that its times are rows). *kept: the wanted ones, first in plan. */
static rtcosim_status plan_columns(rd *r, group *g, size_t ng, const result_select *sel,
                                   column_plan *plan, size_t *kept)
{
    size_t n = 0;
    char **names = NULL;
    size_t all = 0;
    for (size_t k = 0; k < ng; k++)
        all += g[k].master >= 0 ? g[k].nchan - 1 : 0;
    if (!(names = calloc(all ? all : 1, sizeof *names)))
        return mdf_oom(r);
    bool every = !sel || sel->count == 0;
    *kept = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (size_t k = 0; st == RTCOSIM_OK && k < ng; k++) {
        if (g[k].master < 0)
            continue;
        g[k].read = every;
        for (size_t i = 0; st == RTCOSIM_OK && i < g[k].nchan; i++) {
            if ((ptrdiff_t)i == g[k].master)
                continue;
            const chan *ch = &g[k].chans[i];
            bool taken = false;
            for (size_t e = 0; e < n && !taken; e++)
                taken = strcmp(names[e], ch->name) == 0;
            size_t len = strlen(ch->name) + 24;
            if (!(names[n] = malloc(len))) {
                st = mdf_oom(r);
                break;
            }
            snprintf(names[n], len, taken ? "%s (group %zu)" : "%s", ch->name, k + 1);
            if (result_select_has(sel, names[n])) {
                g[k].chans[i].want = g[k].read = true;
                plan[(*kept)++] = (column_plan){k, i, names[n]};
            }
            n++;
        }
    }
    /* (the kept names are the plan's) */
    for (size_t e = 0, c = 0; e < n; e++) {
        if (c < *kept && plan[c].name == names[e])
            c++;
        else
            free(names[e]);
    }
    free(names);
    return st;
}

/* A record of a group by its time, the file's order breaking ties. */
typedef struct by_time {
    double t;
    size_t k;
} by_time;

static int compare_by_time(const void *a, const void *b)
{
    const by_time *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : (x->k > y->k) - (x->k < y->k);
}

/* A group's records read (time and the wanted values) put in time order,
 * those of a NaN time dropped: a logger's group is in order already, and
 * the values held on the union of times (and a plot of its own samples)
 * need it so. */
static rtcosim_status time_order(rd *r, group *h)
{
    bool ordered = true;
    for (size_t i = 0; ordered && i < h->count; i++)
        ordered = !isnan(h->time[i]) && (i == 0 || h->time[i - 1] <= h->time[i]);
    if (ordered)
        return RTCOSIM_OK;
    by_time *order = malloc((h->count ? h->count : 1) * sizeof *order);
    double *tmp = malloc((h->count ? h->count : 1) * sizeof *tmp);
    if (!order || !tmp) {
        free(order);
        free(tmp);
        return mdf_oom(r);
    }
    size_t n = 0;
    for (size_t i = 0; i < h->count; i++)
        if (!isnan(h->time[i]))
            order[n++] = (by_time){h->time[i], i};
    qsort(order, n, sizeof *order, compare_by_time);
    for (size_t i = 0; i < n; i++)
        h->time[i] = order[i].t;
    for (size_t c = 0; c < h->nchan; c++) {
        if (!h->values || !h->values[c])
            continue;
        for (size_t i = 0; i < n; i++)
            tmp[i] = h->values[c][order[i].k];
        memcpy(h->values[c], tmp, n * sizeof *tmp);
    }
    h->count = n;
    free(order);
    free(tmp);
    return RTCOSIM_OK;
}

/* The table of the kept columns: the one group read's times (in time
 * order, time_order), else the union of the read groups' times
 * (each channel holding its last sample, its own samples kept beside). The
 * groups' arrays are taken over where they can be. */
static rtcosim_status make_table(rd *r, group *g, size_t ng, column_plan *plan, size_t kept,
                                 result_table **out)
{
    size_t total = 0, read = 0;
    for (size_t k = 0; k < ng; k++) {
        rtcosim_status st = g[k].read && g[k].master >= 0 ? time_order(r, &g[k]) : RTCOSIM_OK;
        if (st != RTCOSIM_OK)
            return st;
        if (g[k].read && g[k].master >= 0) {
            read++;
            total += g[k].count;
        }
    }
    double *times = malloc((total ? total : 1) * sizeof *times);
    if (!times)
        return mdf_oom(r);
    size_t rows = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; g[k].read && g[k].master >= 0 && i < g[k].count; i++)
            if (!isnan(g[k].time[i]))
                times[rows++] = g[k].time[i];
    bool sorted = read == 1;
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
    if (kept && rows > MDF_MAX_BYTES / sizeof(double) / kept) {
        free(times);
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: %zu channels x %zu time stamps"
                                 " make a table of over 1 GiB", r->path, kept, rows);
    }
    result_table *t = result_table_new(r->path, 0, kept);
    if (!t) {
        free(times);
        return mdf_oom(r);
    }
    double *shrunk = realloc(times, (rows ? rows : 1) * sizeof *times);
    free(t->time);
    t->time = shrunk ? shrunk : times;
    t->rows = rows;
    bool ok = true;
    for (size_t k = 0; ok && k < ng && !t->first_name; k++)
        if (g[k].master >= 0)
            ok = (t->first_name = strdup(g[k].chans[g[k].master].name)) != NULL;
    for (size_t c = 0; ok && c < kept; c++) {
        result_column *col = &t->columns[c];
        group *h = &g[plan[c].k];
        const chan *ch = &h->chans[plan[c].i];
        col->name = plan[c].name;
        plan[c].name = NULL;
        ok = !ch->unit || (col->unit = strdup(ch->unit)) != NULL;
        /* the group's values, sized to its records */
        size_t own = h->count ? h->count : 1;
        double *v = h->values[plan[c].i], *fit = realloc(v, own * sizeof *v);
        h->values[plan[c].i] = NULL;
        if (fit)
            v = fit;
        free(col->values);
        if (direct) { /* the one group's rows as they are */
            col->values = v;
            continue;
        }
        /* its own samples (for a plot), then the group's last sample at or
         * before each time held */
        col->own_values = v;
        ok = ok && (col->own_time = malloc(own * sizeof(double))) != NULL &&
             (col->values = malloc((rows ? rows : 1) * sizeof(double))) != NULL;
        if (!ok)
            break;
        memcpy(col->own_time, h->time, h->count * sizeof(double));
        col->own_rows = h->count;
        size_t j = 0;
        for (size_t row = 0; row < rows; row++) {
            while (j < h->count && !(h->time[j] > t->time[row]))
                j++;
            col->values[row] = j ? v[j - 1] : NAN;
        }
    }
    if (!ok) {
        result_table_free(t);
        return mdf_oom(r);
    }
    *out = t;
    return RTCOSIM_OK;
}

/* The columns of the channels sel names (NULL: all) from the file's groups
 * planned (*plan, *kept; the groups to read marked): the refusals a table
 * of them gets. */
static rtcosim_status plan_table(rd *r, group *g, size_t ng, const result_select *sel,
                                 column_plan **plan, size_t *kept)
{
    *plan = NULL;
    *kept = 0;
    size_t columns = 0, with_master = 0;
    for (size_t k = 0; k < ng; k++) {
        if (g[k].master < 0) {
            r->masterless += g[k].nchan > 0;
            continue;
        }
        with_master++;
        columns += g[k].nchan - 1;
    }
    if (!with_master)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: no channel group of numeric"
                                 " channels with a master (time) channel", r->path);
    if (!columns && r->can_frames)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: a CAN bus log (CAN_DataFrame "
                                 "records), no measured signals: decode its frames with a DBC "
                                 "(rtcosim can decode %s --dbc F.dbc -o F.mf4)", r->path, r->path);
    if (!(*plan = calloc(columns ? columns : 1, sizeof **plan)))
        return mdf_oom(r);
    return plan_columns(r, g, ng, sel, *plan, kept);
}

static void plan_free(column_plan *plan, size_t kept)
{
    for (size_t c = 0; plan && c < kept; c++)
        free(plan[c].name);
    free(plan);
}

/* The table of the channels sel names (NULL: all) from the file's groups. */
static rtcosim_status build_table(rd *r, group *g, size_t ng, const result_select *sel,
                                  result_table **out)
{
    column_plan *plan;
    size_t kept;
    rtcosim_status st = plan_table(r, g, ng, sel, &plan, &kept);
    if (st == RTCOSIM_OK)
        st = mdf_walk_values(r, g, ng);
    if (st == RTCOSIM_OK)
        st = make_table(r, g, ng, plan, kept, out);
    plan_free(plan, kept);
    return st;
}

/* ---- one channel group's rows handed over as its records are read ---- */

/* The table's columns without rows (names, units, the master's name). */
static result_table *column_table(rd *r, const group *g, size_t ng, column_plan *plan,
                                  size_t kept)
{
    result_table *t = result_table_new(r->path, 0, kept);
    bool ok = t != NULL;
    for (size_t k = 0; ok && k < ng && !t->first_name; k++)
        if (g[k].master >= 0)
            ok = (t->first_name = strdup(g[k].chans[g[k].master].name)) != NULL;
    for (size_t c = 0; ok && c < kept; c++) {
        const chan *ch = &g[plan[c].k].chans[plan[c].i];
        t->columns[c].name = plan[c].name;
        plan[c].name = NULL;
        ok = !ch->unit || (t->columns[c].unit = strdup(ch->unit)) != NULL;
    }
    if (!ok)
        result_table_free(t);
    return ok ? t : NULL;
}

/* The data group of group k: its channel groups g[*first .. *last). */
static void data_group_of(const group *g, size_t ng, size_t k, size_t *first, size_t *last)
{
    *first = *last = k;
    while (*first > 0 && g[*first - 1].dg_at == g[k].dg_at)
        (*first)--;
    while (*last < ng && g[*last].dg_at == g[k].dg_at)
        (*last)++;
}

/* Whether column c of a stream of nk groups is carried exactly: only a
 * group streamed alone (merged, a column holds NaN before its group's first
 * record, which no integer type can). */
static result_exact column_exact(const group *g, const column_plan *plan, size_t c, size_t nk)
{
    return nk == 1 ? mdf_exact_kind(&g[plan[c].k].chans[plan[c].i]) : RESULT_EXACT_NONE;
}

/* One read group's records in the merge of several: its own walk of its
 * data group, its head record (time and bytes, valid until it moves on)
 * and the kept columns that are its channels. */
typedef struct cursor {
    const group *g;
    mdf_recs recs;
    bool open, done;     /* done: past its last record */
    size_t n;            /* its records taken */
    double t;            /* the head's time (a record may say +inf) */
    const uint8_t *rec;  /* the head's bytes */
    size_t *cols, ncols; /* kept columns of this group */
} cursor;

/* The cursor's next record of its group; false when a time is NaN or goes
 * back (the table puts that right). */
static bool cursor_next(cursor *c, rtcosim_status *st)
{
    const group *h;
    size_t size;
    double before = c->t;
    for (;;) {
        if (mdf_recs_next(&c->recs, &h, &c->rec, &size, st) <= 0) {
            c->done = true;
            return *st == RTCOSIM_OK;
        }
        if (h == c->g)
            break;
    }
    const uint8_t *inval = c->g->inval_bytes ? c->rec + c->g->data_bytes : NULL;
    c->t = mdf_value(&c->g->chans[c->g->master], c->rec, inval, c->n);
    return c->t >= before; /* (false for NaN) */
}

/* The read groups g[ks[0..nk)]'s records as rows, as the table makes
 * them: one group's records as they are (a row each, repeated times too);
 * several merged by time on the union of their times, each column holding
 * its group's last value at or before a row's time (NaN before its first),
 * a group's records at one time taken together, the last one's values
 * held. A time that is NaN or goes back ends it: RESULT_OUT_OF_ORDER. */
static rtcosim_status stream_records(rd *r, group *g, size_t ng, const size_t *ks, size_t nk,
                                     const column_plan *plan, size_t kept,
                                     const result_row_sink *sink, result_stream_outcome *outcome)
{
    cursor *cs = calloc(nk, sizeof *cs);
    double *held = malloc((kept ? kept : 1) * sizeof *held);
    size_t *cols = malloc((kept ? kept : 1) * sizeof *cols);
    /* the exact columns' bits (a group streamed alone: column_exact) */
    bool *is_exact = calloc(kept ? kept : 1, sizeof *is_exact), exact = false;
    for (size_t c = 0; is_exact && c < kept; c++)
        exact |= is_exact[c] = column_exact(g, plan, c, nk) != RESULT_EXACT_NONE;
    uint64_t *bits = exact ? calloc(kept, sizeof *bits) : NULL;
    rtcosim_status st = cs && held && cols && is_exact && (!exact || bits) ? RTCOSIM_OK
                                                                            : mdf_oom(r);
    for (size_t c = 0; st == RTCOSIM_OK && c < kept; c++)
        held[c] = NAN;
    size_t used = 0;
    for (size_t j = 0; st == RTCOSIM_OK && j < nk; j++) {
        size_t first, last;
        data_group_of(g, ng, ks[j], &first, &last);
        cs[j].g = &g[ks[j]];
        cs[j].t = -INFINITY;
        cs[j].cols = cols + used;
        for (size_t c = 0; c < kept; c++)
            if (plan[c].k == ks[j])
                cols[used++] = c, cs[j].ncols++;
        cs[j].open = (st = mdf_recs_open(&cs[j].recs, r, g + first, last - first)) == RTCOSIM_OK;
    }
    *outcome = RESULT_STREAMED;
    for (size_t j = 0; st == RTCOSIM_OK && j < nk; j++)
        if (!cursor_next(&cs[j], &st) && st == RTCOSIM_OK)
            *outcome = RESULT_OUT_OF_ORDER;
    while (st == RTCOSIM_OK && *outcome == RESULT_STREAMED) {
        double t = INFINITY;
        bool any = false;
        for (size_t j = 0; j < nk; j++)
            if (!cs[j].done) {
                t = any && cs[j].t >= t ? t : cs[j].t;
                any = true;
            }
        if (!any)
            break;
        for (size_t j = 0; j < nk && *outcome == RESULT_STREAMED; j++) {
            cursor *c = &cs[j];
            while (!c->done && c->t == t) {
                const uint8_t *inval = c->g->inval_bytes ? c->rec + c->g->data_bytes : NULL;
                for (size_t m = 0; m < c->ncols; m++) {
                    const chan *ch = &c->g->chans[plan[c->cols[m]].i];
                    held[c->cols[m]] = mdf_value(ch, c->rec, inval, c->n);
                    if (bits && is_exact[c->cols[m]])
                        bits[c->cols[m]] = mdf_raw_bits(ch, c->rec);
                }
                c->n++;
                if (!cursor_next(c, &st)) {
                    if (st == RTCOSIM_OK)
                        *outcome = RESULT_OUT_OF_ORDER;
                    break;
                }
                if (nk == 1)
                    break; /* (a row each) */
            }
        }
        if (st == RTCOSIM_OK && *outcome == RESULT_STREAMED)
            st = sink->row(sink->context, t, held, bits, r->err);
    }
    for (size_t j = 0; cs && j < nk; j++)
        if (cs[j].open)
            mdf_seq_free(&cs[j].recs.s);
    free(cs);
    free(held);
    free(cols);
    free(bits);
    free(is_exact);
    return st;
}

static rtcosim_status stream_table(rd *r, group *g, size_t ng, const result_select *sel,
                                   const result_row_sink *sink, result_stream_outcome *outcome)
{
    *outcome = RESULT_NOT_STREAMABLE;
    column_plan *plan;
    size_t kept, read = 0;
    rtcosim_status st = plan_table(r, g, ng, sel, &plan, &kept);
    size_t *ks = st == RTCOSIM_OK ? malloc((ng ? ng : 1) * sizeof *ks) : NULL;
    if (st == RTCOSIM_OK && !ks)
        st = mdf_oom(r);
    bool vlsd = false;
    for (size_t k = 0; st == RTCOSIM_OK && k < ng; k++)
        if (g[k].read && g[k].master >= 0) {
            ks[read++] = k;
            vlsd = vlsd || g[k].vlsd;
        }
    if (st == RTCOSIM_OK && read >= 1 && !vlsd) {
        result_table *t = column_table(r, g, ng, plan, kept);
        for (size_t c = 0; t && c < kept; c++)
            t->columns[c].exact = column_exact(g, plan, c, read);
        st = t ? sink->columns(sink->context, t, r->err) : mdf_oom(r); /* (t is the sink's) */
        if (st != RTCOSIM_OK)
            *outcome = RESULT_STREAMED; /* (the sink's refusal stands) */
        else
            st = stream_records(r, g, ng, ks, read, plan, kept, sink, outcome);
    }
    free(ks);
    plan_free(plan, kept);
    return st;
}

/* The warnings of a read: unfinalized, channels left out. */
static void read_warnings(const rd *r)
{
    mdf_warn_unfinalized(r);
    if (r->skipped || r->raw_conversions || r->masterless)
        rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                    "%s: %zu channels left out (not numbers: strings, byte arrays, structures), "
                    "%zu with a value-table, formula or text conversion read as raw values, %zu "
                    "channel groups without a master channel left out",
                    r->path, r->skipped, r->raw_conversions, r->masterless);
}

/* The table of the channels sel names from an MDF file's bytes (mapped:
 * a mapping of the file, whose pages walked past may be given back). */
static rtcosim_status read_table(const uint8_t *data, size_t size, const char *path,
                                 const result_select *sel, bool mapped, result_table **out,
                                 rtcosim_error *err)
{
    *out = NULL;
    rd r = {.d = data, .n = size, .path = path, .err = err, .layout = true, .mapped = mapped};
    group *groups = NULL;
    size_t ng = 0;
    rtcosim_status st = mdf_read_groups(&r, &groups, &ng);
    if (st == RTCOSIM_OK)
        st = build_table(&r, groups, ng, sel, out);
    mdf_groups_free(groups, ng);
    if (st == RTCOSIM_OK)
        read_warnings(&r);
    return st;
}

rtcosim_status result_table_read_mdf_bytes(const uint8_t *data, size_t size, const char *path,
                                           result_table **out, rtcosim_error *err)
{
    return read_table(data, size, path, NULL, false, out, err);
}

rtcosim_status result_table_read_mdf_bytes_select(const uint8_t *data, size_t size,
                                                  const char *path, const result_select *sel,
                                                  result_table **out, rtcosim_error *err)
{
    return read_table(data, size, path, sel, false, out, err);
}

typedef struct table_job {
    const char *path;
    const result_select *sel;
    result_table **out;
    rtcosim_error *err;
} table_job;

static rtcosim_status table_of(const uint8_t *data, size_t size, void *context)
{
    table_job *j = context;
    return read_table(data, size, j->path, j->sel, true, j->out, j->err);
}

rtcosim_status result_table_read_mdf(const char *path, result_table **out, rtcosim_error *err)
{
    return result_table_read_mdf_select(path, NULL, out, err);
}

rtcosim_status result_table_read_mdf_select(const char *path, const result_select *sel,
                                            result_table **out, rtcosim_error *err)
{
    *out = NULL;
    table_job j = {path, sel, out, err};
    return mdf_with_file(path, table_of, &j, err);
}

typedef struct stream_job {
    const char *path;
    const result_select *sel;
    const result_row_sink *sink;
    result_stream_outcome *outcome;
    rtcosim_error *err;
} stream_job;

static rtcosim_status stream_bytes(const uint8_t *data, size_t size, stream_job *j, bool mapped)
{
    rd r = {.d = data, .n = size, .path = j->path, .err = j->err, .layout = true,
            .mapped = mapped};
    group *groups = NULL;
    size_t ng = 0;
    rtcosim_status st = mdf_read_groups(&r, &groups, &ng);
    if (st == RTCOSIM_OK)
        st = stream_table(&r, groups, ng, j->sel, j->sink, j->outcome);
    mdf_groups_free(groups, ng);
    if (st == RTCOSIM_OK && *j->outcome == RESULT_STREAMED)
        read_warnings(&r);
    return st;
}

static rtcosim_status stream_of(const uint8_t *data, size_t size, void *context)
{
    return stream_bytes(data, size, context, true);
}

rtcosim_status result_mdf_stream_bytes_select(const uint8_t *data, size_t size, const char *path,
                                              const result_select *sel,
                                              const result_row_sink *sink,
                                              result_stream_outcome *outcome, rtcosim_error *err)
{
    *outcome = RESULT_NOT_STREAMABLE;
    stream_job j = {path, sel, sink, outcome, err};
    return stream_bytes(data, size, &j, false);
}

rtcosim_status result_mdf_stream_select(const char *path, const result_select *sel,
                                        const result_row_sink *sink,
                                        result_stream_outcome *outcome, rtcosim_error *err)
{
    *outcome = RESULT_NOT_STREAMABLE;
    stream_job j = {path, sel, sink, outcome, err};
    return mdf_with_file(path, stream_of, &j, err);
}
