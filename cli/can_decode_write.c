/* `rtcosim can decode`'s second pass (can_decode.h): each decoded frame's
 * row, written as CSV (or as MAT, MDF through the results recorder), and
 * the plot of the selected signals. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "can_decode.h"
#include "cli.h"
#include "signals.h"
#include "rtcosim/log.h"
#include "rtcosim/plot.h"
#include "rtcosim/results.h"

/* Once per DBC message: its frames in the log are shorter than it. */
static void warn_short_frame(decoder *d, block *bl, const rtcosim_can_log_record *rec,
                             size_t size)
{
    bl->warned = true;
    for (size_t b = 0; b < d->block_count; b++)
        if (&d->blocks[b] != bl && d->blocks[b].message == bl->message && d->blocks[b].warned)
            return;
    /* a message longer than a classic frame, in frames that look like ISO-TP's
     * (a Single, First or Consecutive Frame's PCI): a transport the user may
     * not have named */
    char hint[96] = "";
    if (!d->tr.iso_on && bl->message->dlc > 8 && rec->size <= 8 && rec->size &&
        rec->data[0] >> 4 <= 2)
        snprintf(hint, sizeof hint, "; if the id carries ISO-TP (UDS, OBD), give --isotp 0x%X%s",
                 (unsigned)rec->id, rec->extended && rec->id <= 0x7FF ? "x" : "");
    fprintf(stderr,
            "rtcosim: warning: %s:%d: a frame of %s (id 0x%X) has %u of its %u bytes; signals in "
            "the missing bytes are left empty (said once per message)%s\n",
            d->log_path, rec->line, bl->message->name, (unsigned)rec->id, (unsigned)size,
            (unsigned)bl->message->dlc, hint);
}

/* A cell's text: the signal's VAL_ text for its raw value (value_text, when
 * listed; quoted as RFC 4180 when it needs to be), else the decimal value. */
static void cell_set(cell *cl, const rtcosim_dbc_signal *s, const uint8_t *data, size_t size,
                     bool value_text)
{
    const char *label = value_text && s->value_count && s->value_type == RTCOSIM_DBC_INTEGER
                            ? rtcosim_dbc_value_text_of(
                                  s, (int64_t)rtcosim_dbc_raw_get(s, data, size))
                            : NULL;
    if (!label) {
        cl->value = rtcosim_dbc_decode_decimal(s, data, size);
        cl->length = rtcosim_format_double(cl->value, cl->text);
        return;
    }
    bool quote = strpbrk(label, ",\"\r\n") != NULL;
    size_t n = 0;
    if (quote)
        cl->text[n++] = '"';
    for (const char *p = label; *p && n + 3 < sizeof cl->text; p++) {
        if (*p == '"' && quote)
            cl->text[n++] = '"';
        cl->text[n++] = *p;
    }
    if (quote)
        cl->text[n++] = '"';
    cl->length = n;
}

/* A pass writing rows: the latest text of every column, the selected ones;
 * as CSV text to out, or (rec) as numbers to a results recorder. */
typedef struct rows {
    FILE *out;
    rtcosim_recorder *rec;
    rtcosim_value *values; /* rec: a row's values */
    bool complete_only, value_text;
    cell *cells;
    size_t *chosen, chosen_count, missing;
} rows;

/* The row of record i (r, of block b, SIZE_MAX: none) when it carries a
 * selected column; complete_only: from the first frame at which every
 * selected column has a value. A frame costs its message's signals present
 * (multiplexing), a container frame its contained PDUs', and one write per
 * column. */
static void emit(decoder *d, rows *w, const rtcosim_can_log_record *rec, size_t i, size_t b)
{
    if (b == SIZE_MAX)
        return;
    block *bl = &d->blocks[b];
    const rtcosim_dbc_message *m = bl->message;
    cell *cells = w->cells;
    bool carries = false;
    can_message_view v;
    can_transport_at(&d->tr, rec, i, &v);
    const uint8_t *data = v.data;
    size_t size = v.size;
    rtcosim_dbc_container_part part = {.data = data, .size = size, .pdu = m};
    size_t offset = 0, base = bl->first;
    int more = 1;
    if (m->header_bytes) { /* the contained PDUs one after the other */
        more = rtcosim_dbc_container_next(d->dbc, m, data, size, &offset, &part);
        base = part.pdu ? bl->first + bl->part_first[part.index] : 0;
    }
    while (more == 1) {
        const rtcosim_dbc_message *pm = part.pdu;
        d->unknown_parts += !pm;
        for (size_t k = 0; pm && k < pm->signal_count; k++) {
            const rtcosim_dbc_signal *s = &pm->signals[k];
            if (!rtcosim_dbc_signal_present(pm, s, part.data, part.size))
                continue;
            cell *cl = &cells[base + k];
            bool had = cl->length != 0, selected = d->selected[base + k];
            if (part.size >= pm->dlc || rtcosim_dbc_signal_fits(s, part.size)) {
                cell_set(cl, s, part.data, part.size, w->value_text);
                w->missing -= selected && !had;
            } else {
                if (!bl->warned)
                    warn_short_frame(d, bl, rec, size);
                cl->length = 0; /* not in this frame: unknown, not zero */
                w->missing += selected && had;
            }
            carries = carries || selected;
        }
        if (!m->header_bytes)
            break;
        more = rtcosim_dbc_container_next(d->dbc, m, data, size, &offset, &part);
        base = more == 1 && part.pdu ? bl->first + bl->part_first[part.index] : 0;
    }
    if (more < 0 && !d->container_overrun) {
        d->container_overrun = true;
        fprintf(stderr, "rtcosim: warning: %s:%d: a header in container frame %s (id 0x%X)"
                " gives more bytes than the frame has; the rest of the frame is not read"
                " (said once)\n", d->log_path, rec->line, m->name, (unsigned)rec->id);
    }
    if (!carries || (w->complete_only && w->missing))
        return;
    d->rows_written++;
    if (w->rec) { /* (complete rows of numbers: every chosen cell has its value) */
        for (size_t j = 0; j < w->chosen_count; j++)
            w->values[j].f64 = cells[w->chosen[j]].value;
        rtcosim_error ignored; /* (a write error is kept until close) */
        (void)rtcosim_recorder_push_row_always(w->rec, rec->time - d->time_origin, w->values,
                                               &ignored);
        return;
    }
    char text[RTCOSIM_FORMAT_MAX];
    rtcosim_format_time(rec->time - d->time_origin, text);
    fputs(text, w->out);
    for (size_t j = 0; j < w->chosen_count; j++) {
        const cell *cl = &cells[w->chosen[j]];
        fputc(',', w->out);
        fwrite(cl->text, 1, cl->length, w->out);
    }
    fputc('\n', w->out);
}

/* A streaming pass's frame: its block found again (the first pass made
 * them all), its row written. */
static rtcosim_status emit_frame(void *context, const rtcosim_can_log *log,
                                 const rtcosim_can_log_record *r, rtcosim_error *err)
{
    decoder *d = context;
    (void)err;
    if (can_decode_stop_asked(d))
        return RTCOSIM_ECANCELED; /* (the rows so far stand) */
    size_t b = SIZE_MAX, i = rtcosim_can_log_count(log) - 1;
    can_message_view v;
    if (can_transport_at(&d->tr, r, i, &v) >= 0 && !r->remote) {
        const rtcosim_dbc_message *m = rtcosim_dbc_find_frame(d->dbc, v.id, v.extended);
        b = m ? key_index_find(&d->by_message, can_decode_block_key(r->bus, m)) : SIZE_MAX;
        if (m && b == SIZE_MAX)
            return (d->rc = cli_fail("can decode: %s changed while it was read (a frame of %s "
                                     "the first pass did not see)", d->log_path, m->name)),
                   RTCOSIM_ECANCELED;
    }
    emit(d, d->rows, r, i, b);
    return RTCOSIM_OK;
}

/* The rows: all decoded frames carrying a selected column (emit), as CSV
 * to out, or to rec. */
static int write_rows(decoder *d, FILE *out, rtcosim_recorder *rec, bool complete_only,
                      bool value_text)
{
    rows w = {.out = out, .rec = rec, .complete_only = complete_only, .value_text = value_text};
    w.cells = calloc(d->columns + 1, sizeof *w.cells);
    w.chosen = calloc(d->columns + 1, sizeof *w.chosen);
    w.values = calloc(d->columns + 1, sizeof *w.values);
    if (!w.cells || !w.chosen || !w.values) {
        free(w.cells);
        free(w.chosen);
        free(w.values);
        return cli_fail("out of memory");
    }
    if (out)
        cli_put_csv_quoted("time", out);
    for (size_t c = 0; c < d->columns; c++)
        if (d->selected[c]) {
            if (out) {
                fputc(',', out);
                cli_put_csv_quoted(d->names[c], out);
            }
            w.chosen[w.chosen_count++] = c;
        }
    w.missing = w.chosen_count;
    if (out)
        fputc('\n', out);
    int rc = 0;
    can_transport_rewind(&d->tr);
    if (d->streaming) {
        rtcosim_can_log *meta = NULL;
        rtcosim_error err;
        d->rows = &w;
        d->rc = 0;
        /* (what the reader warns of, the first pass said) */
        rtcosim_log_level level = rtcosim_log_get_level();
        if (level > RTCOSIM_LOG_ERROR)
            rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
        if (rtcosim_can_log_scan(d->log_path, emit_frame, d, &meta, &err) != RTCOSIM_OK &&
            !d->interrupted)
            rc = d->rc ? d->rc : cli_fail_error(&err);
        rtcosim_log_set_level(level);
        d->rows = NULL;
        rtcosim_can_log_free(meta);
    } else {
        const rtcosim_can_log_record *recs = rtcosim_can_log_records(d->log);
        for (size_t i = 0; i < rtcosim_can_log_count(d->log) && !can_decode_stop_asked(d); i++)
            emit(d, &w, &recs[i], i, d->block_of[i]);
    }
    free(w.cells);
    free(w.chosen);
    free(w.values);
    return rc;
}

static int write_csv_plain(decoder *d, const char *path, bool complete_only, bool value_text);

int can_decode_write(decoder *d, const char *path, bool complete_only)
{
    rtcosim_results_format format = RTCOSIM_RESULTS_CSV;
    rtcosim_error ferr;
    if (path && rtcosim_results_format_of(path, &format, &ferr) != RTCOSIM_OK)
        return cli_fail_error(&ferr);
    if (format != RTCOSIM_RESULTS_CSV) {
        /* MAT or MDF: the complete rows (a matrix or record has no empty
         * cells) of numbers, through the results recorder, which writes
         * them as they come (src/results/mat_stream.c, mdf_stream.c); the
         * signals' units from the database */
        rtcosim_column *cols = calloc(d->columns + 1, sizeof *cols);
        if (!cols)
            return cli_fail("out of memory");
        size_t n = 0;
        for (size_t c = 0; c < d->columns; c++)
            if (d->selected[c])
                cols[n++] = (rtcosim_column){.name = d->names[c], .type = RTCOSIM_TYPE_FLOAT64,
                                             .unit = d->units[c] && *d->units[c] ? d->units[c]
                                                                                 : NULL};
        /* MDF: a log of wall-clock times (candump -l: since 1970; from 2000
         * on) starts the measurement at its first frame, the time channel
         * from 0 there, as measurement tools record */
        int64_t start_ns = 0;
        rtcosim_time_ns origin = d->time_origin;
        if (format == RTCOSIM_RESULTS_MDF && d->have_first &&
            d->first_time >= (rtcosim_time_ns)946684800 * 1000000000) {
            start_ns = d->first_time;
            d->time_origin = start_ns;
        }
        rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = n,
                                      .start_ns = start_ns};
        rtcosim_recorder *rec;
        int rc = rtcosim_recorder_open(&o, &rec, &ferr) == RTCOSIM_OK ? 0 : cli_fail_error(&ferr);
        free(cols); /* (copied at open) */
        if (rc == 0) {
            rc = write_rows(d, NULL, rec, true, false); /* numbers only */
            if (rtcosim_recorder_close(rec, NULL, &ferr) != RTCOSIM_OK && rc == 0)
                rc = cli_fail_error(&ferr);
        }
        d->time_origin = origin;
        return rc;
    }
    return write_csv_plain(d, path, complete_only, d->value_text);
}

static int write_csv_plain(decoder *d, const char *path, bool complete_only, bool value_text)
{
    FILE *out = path ? fopen(path, "w") : stdout;
    if (!out)
        return cli_fail("%s: cannot write the CSV file", path);
    int rc = write_rows(d, out, NULL, complete_only, value_text);
    if (out == stdout)
        return rc == 0 && fflush(stdout) != 0 ? cli_fail("writing standard output failed") : rc;
    if (fclose(out) != 0 && rc == 0)
        rc = cli_fail("%s: writing the CSV file failed", path);
    return rc;
}

/* The plot's temporary directory, for the SIGINT/SIGTERM handler. */
static char plot_dir[4096], plot_csv[4200];

/* Interrupted while plotting: remove what the plot made (unlink and rmdir
 * are async-signal-safe, POSIX.1-2017 2.4.3), then end as a signal would. */
static void on_plot_signal(int signo)
{
    if (plot_csv[0])
        unlink(plot_csv);
    if (plot_dir[0])
        rmdir(plot_dir);
    static const char message[] = "rtcosim: can decode: plot interrupted\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(128 + signo);
}

/* Plot through a private temporary CSV of the complete rows. */
int can_decode_plot(decoder *d, const char *output, const char *log_path)
{
    const char *tmp = getenv("TMPDIR");
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_plot_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    /* Blocked while the names are set: the handler never sees half of one. */
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    cli_sigaction_unless_ignored(SIGINT, &sa, &old_int);
    cli_sigaction_unless_ignored(SIGTERM, &sa, &old_term);
    snprintf(plot_dir, sizeof plot_dir, "%s/rtcosim-can-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(plot_dir)) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        return cli_fail("%s: cannot create a temporary directory", plot_dir);
    }
    snprintf(plot_csv, sizeof plot_csv, "%s/decoded.csv", plot_dir);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    int rc = write_csv_plain(d, plot_csv, true, false); /* numbers to plot */
    rtcosim_error err;
    rtcosim_plot_options po = {.title = log_path};
    if (rc == 0 && rtcosim_plot_csv(plot_csv, NULL, 0, output, &po, &err) != RTCOSIM_OK)
        rc = cli_fail_error(&err);
    sigprocmask(SIG_BLOCK, &block, NULL);
    remove(plot_csv);
    rmdir(plot_dir);
    plot_csv[0] = plot_dir[0] = '\0';
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}
