/* Per-period records of an anytime run: a ring preallocated at create (no
 * I/O or allocation while running), the summary (share of periods per
 * variant, misses, margins) and the CSV written after the run. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anytime/anytime_private.h"

void record_period(rtcosim_anytime *set, const rtcosim_anytime_period *rec)
{
    set->periods++;
    set->misses += rec->missed;
    set->late_starts += rec->miss == RTCOSIM_ANYTIME_MISS_LATE_START;
    set->misses_stalled += rec->miss == RTCOSIM_ANYTIME_MISS_STALLED;
    set->misses_strategy += rec->miss == RTCOSIM_ANYTIME_MISS_STRATEGY;
    set->repairs += rec->repaired >= 0;
    double margin = (double)rec->margin_ns;
    set->margin_sum += margin;
    if (margin < set->margin_min)
        set->margin_min = margin;
    if (margin > set->margin_max)
        set->margin_max = margin;
    size_t cap = set->cfg.record_capacity;
    if (cap == 0)
        return;
    set->records[set->record_next] = *rec;
    memcpy(set->record_outputs + set->record_next * set->cfg.output_count, set->outputs,
           set->cfg.output_count * sizeof(double));
    set->record_next = (set->record_next + 1) % cap;
    if (set->record_len < cap)
        set->record_len++;
}

size_t rtcosim_anytime_record_count(const rtcosim_anytime *set)
{
    return set ? set->record_len : 0;
}

/* Ring slot of the i-th kept record, oldest first. */
static size_t slot(const rtcosim_anytime *set, size_t i)
{
    size_t cap = set->cfg.record_capacity;
    return (set->record_next + cap - set->record_len + i) % cap;
}

const rtcosim_anytime_period *rtcosim_anytime_record(const rtcosim_anytime *set, size_t i)
{
    return set && i < set->record_len ? &set->records[slot(set, i)] : NULL;
}

const double *rtcosim_anytime_record_outputs(const rtcosim_anytime *set, size_t i)
{
    return set && i < set->record_len
               ? set->record_outputs + slot(set, i) * set->cfg.output_count
               : NULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

rtcosim_status rtcosim_anytime_summary_get(const rtcosim_anytime *set, rtcosim_anytime_summary *out,
                                           rtcosim_error *err)
{
    if (!set || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: summary needs a set and a result");
    memset(out, 0, sizeof *out);
    out->periods = set->periods;
    out->misses = set->misses;
    out->variant_count = set->variant_count;
    out->learned_abort_ns = set->learned_abort_ns;
    out->late_starts = set->late_starts;
    out->misses_stalled = set->misses_stalled;
    out->misses_strategy = set->misses_strategy;
    out->repairs = set->repairs;
    out->repairs_aborted = set->repairs_aborted;
    out->idle_reserve = set->idle_reserve;
    out->wakeup_p50_ns = set->wakeup_p50_ns;
    out->wakeup_p99_ns = set->wakeup_p99_ns;
    out->wakeup_max_ns = set->wakeup_max_ns;
    out->wakeup_lead_ns = set->wakeup_lead_ns;
    out->idle_reserve_ns = anytime_idle_reserve_ns(set->idle_reserve, set->period_ns);
    for (size_t i = 0; i < set->variant_count; i++) {
        /* anytime_stats_quantile takes a plain pointer but only reads (the
         * sorted copy is kept by anytime_stats_add). */
        variant *v = (variant *)&set->variants[i];
        rtcosim_anytime_variant_stats *s = &out->variants[i];
        s->name = v->name;
        s->rank = v->rank;
        s->runs = v->runs;
        s->completed = v->completed;
        s->aborted = v->aborted;
        s->abandoned = v->abandoned;
        s->failed = v->failed;
        s->delivered = v->delivered;
        s->mean_ns = v->stats.count ? v->stats.mean : NAN;
        s->max_ns = v->stats.count ? v->stats.max : NAN;
        s->quantile_ns = anytime_stats_quantile(&v->stats, set->cfg.quantile);
        out->delivered_share[i] =
            set->periods ? (double)v->delivered / (double)set->periods : 0.0;
    }
    if (set->periods) {
        out->margin_min_ns = set->margin_min;
        out->margin_max_ns = set->margin_max;
        out->margin_mean_ns = set->margin_sum / (double)set->periods;
    } else {
        out->margin_min_ns = out->margin_max_ns = out->margin_mean_ns = NAN;
    }
    out->margin_p01_ns = NAN;
    if (set->record_len) {
        double *margins = malloc(set->record_len * sizeof *margins);
        if (!margins)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory",
                                     set->name);
        for (size_t i = 0; i < set->record_len; i++)
            margins[i] = (double)set->records[i].margin_ns;
        qsort(margins, set->record_len, sizeof *margins, compare_doubles);
        size_t rank = (size_t)ceil(0.01 * (double)set->record_len); /* nearest rank */
        out->margin_p01_ns = margins[rank ? rank - 1 : 0];
        free(margins);
    }
    return RTCOSIM_OK;
}

/* Print ticks / 10^digits exactly in decimal without trailing zeros (times
 * in s and us read as written: 0.001, 187.752), unlike %g of a double. */
static void print_exact(FILE *f, const char *separator, int64_t ticks, int digits)
{
    int64_t scale = 1;
    for (int i = 0; i < digits; i++)
        scale *= 10;
    uint64_t magnitude = ticks < 0 ? (uint64_t)0 - (uint64_t)ticks : (uint64_t)ticks;
    uint64_t whole = magnitude / (uint64_t)scale, fraction = magnitude % (uint64_t)scale;
    fprintf(f, "%s%s%" PRIu64, separator, ticks < 0 ? "-" : "", whole);
    if (fraction == 0)
        return;
    while (fraction % 10 == 0) {
        fraction /= 10;
        digits--;
    }
    fprintf(f, ".%0*" PRIu64, digits, fraction);
}

rtcosim_status rtcosim_anytime_write_csv(const rtcosim_anytime *set, const char *path,
                                         rtcosim_error *err)
{
    if (!set || !path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: write_csv needs a set and a path");
    FILE *f = fopen(path, "w");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "time,period_us,start_us,delivered,margin_us,missed");
    for (size_t o = 0; o < set->cfg.output_count; o++) {
        if (set->output_names && set->output_names[o][0])
            fprintf(f, ",%s", set->output_names[o]);
        else
            fprintf(f, ",y%zu", o);
    }
    for (size_t i = 0; i < set->variant_count; i++)
        fprintf(f, ",%s_exec_us,%s_outcome", set->variants[i].name, set->variants[i].name);
    fprintf(f, ",miss,stalled_us,repaired,check_gap_us\n");
    for (size_t r = 0; r < set->record_len; r++) {
        const rtcosim_anytime_period *rec = rtcosim_anytime_record(set, r);
        const double *y = rtcosim_anytime_record_outputs(set, r);
        print_exact(f, "", rec->sim_time, 9);
        print_exact(f, ",", rec->period_ns, 3);
        print_exact(f, ",", rec->started_at - rec->release, 3);
        fprintf(f, ",%d", rec->delivered);
        print_exact(f, ",", rec->margin_ns, 3);
        fprintf(f, ",%d", rec->missed ? 1 : 0);
        for (size_t o = 0; o < set->cfg.output_count; o++)
            fprintf(f, ",%.17g", y[o]); /* 17 digits: the value reads back exactly */
        for (size_t i = 0; i < set->variant_count; i++) {
            print_exact(f, ",", rec->exec_ns[i], 3);
            fprintf(f, ",%d", rec->outcome[i]);
        }
        fprintf(f, ",%d", (int)rec->miss);
        print_exact(f, ",", rec->stalled_ns, 3);
        fprintf(f, ",%d", rec->repaired);
        print_exact(f, ",", rec->check_gap_ns, 3);
        fputc('\n', f);
    }
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: write failed: %s", path, strerror(errno));
    return RTCOSIM_OK;
}
