/* `rtcosim info` of an MDF measurement (rtcosim_results_print_mdf): per
 * channel group and numeric channel its records, the master's first and
 * last value, the channel's unit, extremes and invalid values. The records
 * of an MDF 4 or MDF 3 file are walked a data block at a time
 * (mdf_records.c; an MDF 3 data group's records as one piece of the mapped
 * file), so a measurement of any size is summed up in the memory of a few
 * blocks, no value kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_read_internal.h"
#include "rtcosim/results.h"

/* What is said of a group: its records, its master's first and last value,
 * and per channel the extremes (NaN left out) and the invalid values. */
typedef struct summary {
    size_t count;
    double first, last;
    double *lo, *hi;
    size_t *invalid;
} summary;

static void summaries_free(summary *s, size_t ng)
{
    for (size_t k = 0; s && k < ng; k++) {
        free(s[k].lo);
        free(s[k].hi);
        free(s[k].invalid);
    }
    free(s);
}

static rtcosim_status summaries_new(rd *r, const group *g, size_t ng, summary **out)
{
    summary *s = *out = calloc(ng ? ng : 1, sizeof *s);
    if (!s)
        return mdf_oom(r);
    for (size_t k = 0; k < ng; k++) {
        size_t n = g[k].nchan ? g[k].nchan : 1;
        s[k].first = s[k].last = NAN;
        if (!(s[k].lo = malloc(n * sizeof(double))) || !(s[k].hi = malloc(n * sizeof(double))) ||
            !(s[k].invalid = calloc(n, sizeof(size_t))))
            return mdf_oom(r);
        for (size_t i = 0; i < g[k].nchan; i++) {
            s[k].lo[i] = INFINITY;
            s[k].hi[i] = -INFINITY;
        }
    }
    return RTCOSIM_OK;
}

/* One more value of channel i of a group. */
static inline void take(summary *s, size_t i, double v)
{
    s->invalid[i] += isnan(v);
    s->lo[i] = v < s->lo[i] ? v : s->lo[i];
    s->hi[i] = v > s->hi[i] ? v : s->hi[i];
}

/* The groups' values read (RTCOSIM_MDF_INFO_WHOLE=1). */
static void summed_whole(const group *g, size_t ng, summary *s)
{
    for (size_t k = 0; k < ng; k++) {
        s[k].count = g[k].count;
        if (g[k].master >= 0 && g[k].count) {
            s[k].first = g[k].time[0];
            s[k].last = g[k].time[g[k].count - 1];
        }
        for (size_t i = 0; i < g[k].nchan; i++)
            for (size_t n = 0; (ptrdiff_t)i != g[k].master && n < g[k].count; n++)
                take(&s[k], i, g[k].values[i][n]);
    }
}

/* A file's groups (their layout only) summed up a record at a time,
 * one walk per data group; with channels_only the data groups without a
 * channel besides their masters are not walked. */
static rtcosim_status summed_streaming(rd *r, const group *g, size_t ng, summary *s)
{
    rtcosim_status st = RTCOSIM_OK;
    for (size_t first = 0, last; st == RTCOSIM_OK && first < ng; first = last) {
        bool channels = false;
        for (last = first; last < ng && g[last].dg_at == g[first].dg_at; last++)
            channels = channels || g[last].nchan > (g[last].master >= 0);
        if (r->channels_only && !channels)
            continue;
        mdf_recs c;
        if ((st = mdf_recs_open(&c, r, g + first, last - first)) != RTCOSIM_OK) {
            mdf_seq_free(&c.s);
            break;
        }
        const group *h;
        const uint8_t *rec;
        size_t size;
        while (mdf_recs_next(&c, &h, &rec, &size, &st) > 0) {
            if (h->vlsd)
                continue;
            summary *sum = &s[h - g];
            const uint8_t *inval = h->inval_bytes ? rec + h->data_bytes : NULL;
            for (size_t i = 0; i < h->nchan; i++) {
                double v = mdf_value(&h->chans[i], rec, inval, sum->count);
                if ((ptrdiff_t)i != h->master)
                    take(sum, i, v);
                else
                    sum->last = sum->count ? v : (sum->first = v);
            }
            sum->count++;
        }
        mdf_seq_free(&c.s);
    }
    return st;
}

typedef struct print_job {
    const char *path;
    FILE *out;
    rtcosim_error *err;
    bool signals_only; /* nothing printed when no numeric channel is there */
} print_job;

static rtcosim_status print_of(const uint8_t *data, size_t size, void *context)
{
    print_job *j = context;
    /* (RTCOSIM_MDF_INFO_WHOLE=1: every value read first, as a table's are,
     * then summed: for the fuzz target that compares the two) */
    const char *whole = getenv("RTCOSIM_MDF_INFO_WHOLE");
    bool streaming = !(whole && strcmp(whole, "1") == 0);
    rd r = {.d = data, .n = size, .path = j->path, .err = j->err,
            .channels_only = j->signals_only, .layout = streaming, .mapped = true};
    group *g = NULL;
    summary *s = NULL;
    size_t ng = 0, channels = 0;
    rtcosim_status st = mdf_read_groups(&r, &g, &ng);
    for (size_t k = 0; st == RTCOSIM_OK && k < ng; k++)
        channels += g[k].nchan - (g[k].master >= 0);
    if (st != RTCOSIM_OK || (j->signals_only && !channels)) {
        mdf_groups_free(g, ng);
        return st;
    }
    if ((st = summaries_new(&r, g, ng, &s)) == RTCOSIM_OK) {
        if (streaming)
            st = summed_streaming(&r, g, ng, s);
        else
            summed_whole(g, ng, s);
    }
    if (st != RTCOSIM_OK) {
        summaries_free(s, ng);
        mdf_groups_free(g, ng);
        return st;
    }
    if (!j->signals_only) /* (the bus log's reading said it) */
        mdf_warn_unfinalized(&r);
    if (j->signals_only)
        fputc('\n', j->out);
    char program[9] = "";
    for (size_t i = 0; i < 8 && data[16 + i] >= ' ' && data[16 + i] < 127; i++)
        program[i] = (char)data[16 + i];
    for (size_t i = strlen(program); i > 0 && program[i - 1] == ' '; i--)
        program[i - 1] = '\0';
    fprintf(j->out, "%-20s %s (MDF %.4s, written by %s)\n%-20s %s\n%-20s %zu, %zu numeric "
            "channels", "measurement", j->path, (const char *)data + 8, program, "start", r.start,
            "channel groups", ng, channels);
    if (r.skipped || r.raw_conversions)
        fprintf(j->out, " (%zu more left out: not numbers; %zu with raw values: a conversion"
                " not read: a value table, formula or text)", r.skipped, r.raw_conversions);
    fprintf(j->out, "\n\n%-5s %8s %-25s %-32s %-8s %12s %12s %s\n", "group", "records",
            "master: from .. to", "channel", "unit", "min", "max", "invalid");
    for (size_t k = 0; k < ng; k++) {
        char span[64] = "(no master: left out)";
        if (g[k].master >= 0 && s[k].count)
            snprintf(span, sizeof span, "%.6g .. %.6g %s", s[k].first, s[k].last,
                     g[k].chans[g[k].master].unit ? g[k].chans[g[k].master].unit : "");
        for (size_t i = 0; i < g[k].nchan; i++) {
            if ((ptrdiff_t)i == g[k].master)
                continue;
            fprintf(j->out, "%-5zu %8zu %-25s %-32s %-8s %12.6g %12.6g %zu\n", k + 1, s[k].count,
                    span, g[k].chans[i].name, g[k].chans[i].unit ? g[k].chans[i].unit : "-",
                    s[k].lo[i], s[k].hi[i], s[k].invalid[i]);
        }
    }
    summaries_free(s, ng);
    mdf_groups_free(g, ng);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_results_print_mdf(const char *path, FILE *out, rtcosim_error *err)
{
    print_job j = {path, out, err, false};
    return mdf_with_file(path, print_of, &j, err);
}

rtcosim_status rtcosim_results_print_mdf_signals(const char *path, FILE *out, rtcosim_error *err)
{
    print_job j = {path, out, err, true};
    return mdf_with_file(path, print_of, &j, err);
}
