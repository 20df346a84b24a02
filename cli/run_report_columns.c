/* What the anytime variants (run_variants.c) and the CAN buses
 * (run_can_bus.c) add to a real-time report after the run: rows appended to
 * summary.csv, and columns joined onto frames.csv by the frame's time (first
 * column: the delivered variant and miss, each bus's work in the frame),
 * frames.csv rewritten through a temporary next to it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "run_report_columns.h"

int cli_frames_csv_add_columns(const char *dir, const char *what, cli_frames_cells cells,
                               void *context)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    snprintf(tmp, sizeof tmp, "%s/frames.csv.columns", dir);
    FILE *in = fopen(path, "r");
    if (!in)
        return cli_fail("%s: cannot read it to add the %s columns", path, what);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fclose(in);
        return cli_fail("%s: cannot be written", tmp);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool header = true;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        fputs(line, out);
        cells(context, out, header, header ? 0 : strtod(line, NULL));
        fputc('\n', out);
        header = false;
    }
    free(line);
    fclose(in);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return cli_fail("%s: cannot be rewritten with the %s columns", path, what);
    }
    return 0;
}

int cli_summary_csv_open(const char *dir, const char *what, FILE **f)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    *f = fopen(path, "a");
    return *f ? 0 : cli_fail("%s: cannot append the %s figures", path, what);
}

int cli_summary_csv_close(FILE *f, const char *dir, const char *what)
{
    if (fclose(f) == 0)
        return 0;
    return cli_fail("%s/summary.csv: cannot append the %s figures", dir, what);
}
