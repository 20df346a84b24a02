/* Real-time runs of an SSP system description: the results file (its
 * columns' variables, the recorder the paced thread fills). */
#include "realtime/system_rt_internal.h"

enum { RING_BYTES = 4 * 1024 * 1024, RING_ROWS_MAX = 65536, RING_ROWS_MIN = 1024 };

/* The variable behind result column i (unit and description for MAT files
 * and --csv-units): the real-time part's observed variable, or the
 * non-real-time output it records; NULL when unknown. */
static const rtcosim_variable *column_variable(const rtcosim_system_rt *srt, size_t i)
{
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
        cols[i] = rtcosim_column_of(srt->columns[i], column_variable(srt, i));
        if (srt->column_text[i] < 0)
            cols[i].type = RTCOSIM_TYPE_FLOAT64; /* sampled as doubles */
    }
    /* A writer thread formats and writes; the paced thread only fills the
     * ring and never waits for it on a real clock: a row that finds the ring
     * full is counted as dropped (reported after the run). A virtual run
     * has no deadline to protect and waits instead. */
    /* The ring: 65536 rows (a minute of 1 ms frames) for the writer's
     * stalls, within RING_BYTES (a slot holds a tag, the time and a value per
     * column, and 256 bytes of each String or Binary one: results.h), and
     * 1024 rows at least. The run's memory is locked (mlockall), which an
     * unprivileged user may do for 8 MiB only; a 100-column system's ring
     * was 53 MB. */
    size_t slot = (2 + srt->column_count) * sizeof(rtcosim_value);
    for (size_t i = 0; i < srt->column_count; i++)
        slot += srt->column_text[i] < 0 ? 0 : 256;
    size_t ring_rows = RING_BYTES / slot;
    ring_rows = ring_rows > RING_ROWS_MAX ? RING_ROWS_MAX
                : ring_rows < RING_ROWS_MIN ? RING_ROWS_MIN : ring_rows;
    rtcosim_recorder_options ro = {.path = o->output_file, .columns = cols,
                                   .column_count = srt->column_count, .record_every = every,
                                   .writer_thread = true, .csv_units = o->csv_units,
                                   .drop_when_full = !rtcosim_clock_is_virtual(o->rt.clock),
                                   .ring_rows = ring_rows};
    rtcosim_status st = rtcosim_recorder_open(&ro, &srt->recorder, err);
    free(cols);
    return st;
}
