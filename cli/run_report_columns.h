/* What --variants and --can-bus add to a real-time report after the run
 * (run_report_columns.c): rows of summary.csv, columns of frames.csv. */
#ifndef RTCOSIM_CLI_RUN_REPORT_COLUMNS_H
#define RTCOSIM_CLI_RUN_REPORT_COLUMNS_H

#include <stdio.h>

/* Writes the added cells of one line, each starting with ',': the header's
 * names when header is true, else those of the frame at time t (s). */
typedef void (*cli_frames_cells)(void *context, FILE *out, bool header, double t);

/* DIR/frames.csv rewritten with the cells appended to each line; `what`
 * names them in a failure's one-line message. 0 or an exit code. */
int cli_frames_csv_add_columns(const char *dir, const char *what, cli_frames_cells cells,
                               void *context);

/* DIR/summary.csv opened to append `what`'s figures (name,value,unit rows),
 * and closed; a failure is one line naming the file. 0 or an exit code. */
int cli_summary_csv_open(const char *dir, const char *what, FILE **f);
int cli_summary_csv_close(FILE *f, const char *dir, const char *what);

#endif
