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

/* The table of the kept columns: the one group read's times as they are
 * when they do not decrease, else the union of the read groups' times
 * (each channel holding its last sample, its own samples kept beside). The
 * groups' arrays are taken over where they can be. */
static rtcosim_status make_table(rd *r, group *g, size_t ng, column_plan *plan, size_t kept,
                                 result_table **out)
{
    size_t total = 0, read = 0;
    for (size_t k = 0; k < ng; k++) {
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

/* The table of the channels sel names (NULL: all) from the file's groups. */
static rtcosim_status build_table(rd *r, group *g, size_t ng, const result_select *sel,
                                  result_table **out)
{
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
    column_plan *plan = calloc(columns ? columns : 1, sizeof *plan);
    size_t kept = 0;
    rtcosim_status st = plan ? plan_columns(r, g, ng, sel, plan, &kept) : mdf_oom(r);
    if (st == RTCOSIM_OK)
        st = mdf_walk_values(r, g, ng);
    if (st == RTCOSIM_OK)
        st = make_table(r, g, ng, plan, kept, out);
    for (size_t c = 0; c < kept; c++)
        free(plan[c].name);
    free(plan);
    return st;
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
        mdf_warn_unfinalized(&r);
    if (st == RTCOSIM_OK && (r.skipped || r.raw_conversions || r.masterless))
        rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                    "%s: %zu channels left out (not numbers: strings, byte arrays, structures), "
                    "%zu with a value-table, formula or text conversion read as raw values, %zu "
                    "channel groups without a master channel left out",
                    path, r.skipped, r.raw_conversions, r.masterless);
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
