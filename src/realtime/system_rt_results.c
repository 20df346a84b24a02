/* Real-time runs of an SSP system description: the results file (its
 * columns' variables, the recorder the paced thread fills). */
#include "realtime/system_rt_internal.h"

/* The variable behind result column i: the real-time part's observed
 * variable, or the non-real-time output it records. */
const rtcosim_variable *rtcosim_system_rt_column_variable(const rtcosim_system_rt *srt, size_t i)
{
    if (i >= srt->column_count)
        return NULL;
    if (srt->column_text[i] >= 0)
        return rtcosim_master_text_observed_variable(srt->parts[0], (size_t)srt->column_text[i]);
    if (srt->column_rt_index[i] >= 0)
        return rtcosim_master_observed_variable(srt->parts[0], (size_t)srt->column_rt_index[i]);
    const char *name = srt->columns[i], *dot = strchr(name, '.');
    char comp[NAME_LEN];
    if (!dot || (size_t)(dot - name) >= sizeof comp || !srt->parts[1])
        return NULL;
    snprintf(comp, sizeof comp, "%.*s", (int)(dot - name), name);
    const rtcosim_component *c = rtcosim_master_component(srt->parts[1], comp);
    return c ? rtcosim_component_find_variable(c, dot + 1) : NULL;
}

rtcosim_status system_rt_open_results(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_system_rt_options *o = &srt->options;
    if (!o->output_file)
        return RTCOSIM_OK;
    uint32_t every = 1;
    if (o->output_interval > 0) {
        if (o->output_interval % srt->macro_step != 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "--output-interval %.9g s is not a multiple of the macro "
                                     "step %.9g s",
                                     rtcosim_time_to_seconds(o->output_interval),
                                     rtcosim_time_to_seconds(srt->macro_step));
        every = (uint32_t)(o->output_interval / srt->macro_step);
    }
    rtcosim_column *cols = calloc(srt->column_count + 1, sizeof *cols);
    if (!cols)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    for (size_t i = 0; i < srt->column_count; i++) {
        const rtcosim_variable *v = rtcosim_system_rt_column_variable(srt, i);
        cols[i] = rtcosim_column_of(srt->columns[i], v);
        if (srt->column_text[i] < 0) /* sampled as doubles, Int64 and UInt64 exactly */
            cols[i].type = srt->column_exact[i] ? v->type : RTCOSIM_TYPE_FLOAT64;
    }
    /* A writer thread formats and writes; the paced thread only fills the
     * ring and never waits for it on a real clock: a row that finds the ring
     * full is counted as dropped (reported after the run). A virtual run
     * has no deadline to protect and waits instead. */
    /* The ring: a minute of 1 ms frames for the writer's stalls, as many as
     * fit in the recorder's budget (results.h: the run's memory is locked). */
    rtcosim_recorder_options ro = {.path = o->output_file, .columns = cols,
                                   .column_count = srt->column_count, .record_every = every,
                                   .writer_thread = true, .csv_units = o->csv_units,
                                   .drop_when_full = !rtcosim_clock_is_virtual(o->rt.clock),
                                   .ring_rows = 65536};
    rtcosim_status st = rtcosim_recorder_open(&ro, &srt->recorder, err);
    free(cols);
    return st;
}
