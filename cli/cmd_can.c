/* `rtcosim can decode LOG --dbc FILE [-o CSV]`: the signals of a candump -l
 * or Vector ASC log decoded through a DBC database, one CSV row per decoded
 * frame with every signal's latest value in columns bus.MESSAGE.SIGNAL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/can_log.h"
#include "rtcosim/dbc.h"
#include "rtcosim/results.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim can decode LOG --dbc FILE [-o CSV]\n"
            "\n"
            "Decode the frames of a CAN log (candump -l, or Vector ASC) with a DBC database.\n"
            "Writes CSV: column \"time\" (s), then one column bus.MESSAGE.SIGNAL per signal of\n"
            "each DBC message seen on each bus; one row per decoded frame, each cell the\n"
            "signal's latest value (empty before its first frame; multiplexed signals when\n"
            "present). Frames whose id the DBC does not define are counted, not decoded.\n"
            "\n"
            "  --dbc FILE       the CAN database\n"
            "  -o, --output CSV write here (default: standard output)\n"
            "  --help           this text\n");
}

/* A column block: one DBC message on one bus. */
typedef struct block {
    uint32_t bus;
    const rtcosim_dbc_message *message;
    size_t first; /* first column of its signals */
} block;

static int decode(const char *log_path, const char *dbc_path, const char *out_path)
{
    rtcosim_error err;
    rtcosim_dbc *dbc = NULL;
    rtcosim_can_log *log = NULL;
    block *blocks = NULL;
    double *values = NULL;
    bool *have = NULL;
    FILE *out = NULL;
    int rc = 1;
    if (rtcosim_dbc_load(dbc_path, &dbc, &err) != RTCOSIM_OK ||
        rtcosim_can_log_read(log_path, &log, &err) != RTCOSIM_OK) {
        cli_fail_error(&err);
        goto done;
    }
    size_t n = rtcosim_can_log_count(log), block_count = 0, columns = 0;
    const rtcosim_can_log_record *recs = rtcosim_can_log_records(log);
    blocks = calloc(rtcosim_can_log_bus_count(log) * rtcosim_dbc_message_count(dbc) + 1,
                    sizeof *blocks);
    if (!blocks) {
        cli_fail("out of memory");
        goto done;
    }
    /* Blocks in order of first appearance. */
    size_t *block_of = calloc(n + 1, sizeof *block_of);
    if (!block_of) {
        cli_fail("out of memory");
        goto done;
    }
    uint64_t unknown = 0;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_find_id(dbc, recs[i].id, recs[i].extended);
        block_of[i] = SIZE_MAX;
        if (!m || recs[i].remote) {
            unknown += !m;
            continue;
        }
        size_t b = 0;
        while (b < block_count && !(blocks[b].bus == recs[i].bus && blocks[b].message == m))
            b++;
        if (b == block_count) {
            blocks[block_count++] = (block){recs[i].bus, m, columns};
            columns += m->signal_count;
        }
        block_of[i] = b;
    }
    values = calloc(columns + 1, sizeof *values);
    have = calloc(columns + 1, sizeof *have);
    out = out_path ? fopen(out_path, "w") : stdout;
    if (!values || !have || !out) {
        free(block_of);
        cli_fail(out ? "out of memory" : "%s: cannot write the CSV file", out_path);
        goto done;
    }
    fprintf(out, "\"time\"");
    for (size_t b = 0; b < block_count; b++)
        for (size_t k = 0; k < blocks[b].message->signal_count; k++)
            fprintf(out, ",\"%s.%s.%s\"", rtcosim_can_log_bus_name(log, blocks[b].bus),
                    blocks[b].message->name, blocks[b].message->signals[k].name);
    fputc('\n', out);
    char text[RTCOSIM_FORMAT_MAX];
    for (size_t i = 0; i < n; i++) {
        if (block_of[i] == SIZE_MAX)
            continue;
        const block *bl = &blocks[block_of[i]];
        for (size_t k = 0; k < bl->message->signal_count; k++) {
            const rtcosim_dbc_signal *s = &bl->message->signals[k];
            if (rtcosim_dbc_signal_present(bl->message, s, recs[i].data, recs[i].size)) {
                values[bl->first + k] = rtcosim_dbc_decode(s, recs[i].data, recs[i].size);
                have[bl->first + k] = true;
            }
        }
        rtcosim_format_time(recs[i].time, text);
        fputs(text, out);
        for (size_t c = 0; c < columns; c++) {
            fputc(',', out);
            if (have[c]) {
                rtcosim_format_double(values[c], text);
                fputs(text, out);
            }
        }
        fputc('\n', out);
    }
    free(block_of);
    if (unknown)
        fprintf(stderr, "rtcosim: %s: %llu frames with ids %s does not define were not decoded\n",
                log_path, (unsigned long long)unknown, dbc_path);
    rc = 0;
done:
    if (out && out != stdout && fclose(out) != 0 && rc == 0)
        rc = cli_fail("%s: writing the CSV file failed", out_path);
    else if (out == stdout && fflush(stdout) != 0 && rc == 0)
        rc = cli_fail("writing standard output failed");
    free(blocks);
    free(values);
    free(have);
    rtcosim_can_log_free(log);
    rtcosim_dbc_free(dbc);
    return rc;
}

static int run_can(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    if (strcmp(argv[1], "decode") != 0)
        return cli_fail("can: unknown subcommand '%s' (see rtcosim can --help)", argv[1]);
    const char *log = NULL, *dbc = NULL, *out = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--dbc") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc)
                return cli_fail("can decode: option %s needs a file name", a);
            *(strcmp(a, "--dbc") == 0 ? &dbc : &out) = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_fail("can decode: unknown option '%s' (see rtcosim can --help)", a);
        } else if (log) {
            return cli_fail("can decode: more than one log given ('%s' and '%s')", log, a);
        } else {
            log = a;
        }
    }
    if (!log || !dbc)
        return cli_fail("can decode: give a LOG and --dbc FILE (usage: rtcosim can decode LOG "
                        "--dbc FILE [-o CSV])");
    return decode(log, dbc, out);
}

const rtcosim_cli_command rtcosim_cli_cmd_can = {
    "can", "decode a candump/ASC CAN log with a DBC database into CSV signals", run_can};
