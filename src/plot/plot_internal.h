/* What the plot layer's files share: result tables read for plotting (CSV
 * with an optional units row, or a Modelica/Dymola MAT file), units taken
 * from a model, and the engine that lays out and draws series in panels. */
#ifndef RTCOSIM_PLOT_INTERNAL_H
#define RTCOSIM_PLOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "plot/plot_layout.h"
#include "results/result_table.h"
#include "rtcosim/plot.h"
#include "rtcosim/status.h"

/* ---- result tables (plot_data.c) ---- */

typedef result_column plot_column;
typedef result_table plot_table;

/* A results file by its extension: ".mat" the Dymola layout (binTrans or
 * binNormal, MAT v4 or v5, via libmatio), anything else CSV whose second
 * row may be units (its first cell "s", "sec", "[s]" or empty, as
 * `--csv-units` writes it). Errors name the file. */
rtcosim_status plot_table_read(const char *path, plot_table **out, rtcosim_error *err);
/* plot_table_read keeping only the variables `s` names (result_table.h). */
rtcosim_status plot_table_read_select(const char *path, const result_select *s, plot_table **out,
                                      rtcosim_error *err);
static inline void plot_table_free(plot_table *t) { result_table_free(t); }
/* A results CSV read whole (the file into memory, then rtcosim_csv's general
 * table): the reader before plot_csv.c, kept as the reference that
 * fuzz_plot_results and the tests hold the streaming one to, and taken for
 * every CSV when the environment has RTCOSIM_CSV_WHOLE=1. */
rtcosim_status plot_table_read_csv_whole(const char *path, const result_select *s,
                                         plot_table **out, rtcosim_error *err);
/* The columns' names (and units) of a results file, no rows where it is a
 * CSV (its header alone is read): what "did you mean" looks among when a
 * plot's selection missed. */
rtcosim_status plot_table_read_names(const char *path, plot_table **out, rtcosim_error *err);
/* For "did you mean": the nearest to `name` of the files' column names,
 * copied into near (cut at size), "" when none is close. Tables read with a
 * selection (selected) lack the other columns: their files' headers are
 * read again for it (plot_table_read_names). */
void plot_nearest_column(const char *const *paths, plot_table *const *tables, size_t file_count,
                         bool selected, const char *name, char *near, size_t size);
/* Whether plot_table_read takes `path` for a CSV (not .mat, .mf4, .mdf nor
 * a zip archive). */
bool plot_path_is_csv(const char *path);

/* ---- results CSV read a line at a time (plot_csv.c) ---- */

/* Next field of a CSV line from *p to end (RFC 4180 quotes, for the units
 * row); *p advances past the comma. Writes the unquoted text into out (cut
 * at size). false at the line's end. */
bool plot_csv_field(const char **p, const char *end, char *out, size_t size);

/* A cell as the results readers take it: empty, a number (all of it read by
 * strtod in the C locale: "nan" and "inf" too), or text (NaN). */
typedef enum plot_cell { PLOT_CELL_EMPTY, PLOT_CELL_NUMBER, PLOT_CELL_WORD } plot_cell;
plot_cell plot_csv_number(const char *text, double *value);
/* Whether text is an integer literal of int64 or uint64 (an optional sign,
 * then digits only): its sign and magnitude (-2^63 .. 2^64 - 1). */
bool plot_csv_integer(const char *text, bool *negative, uint64_t *magnitude);

/* What a scan hands its reader: the header (the first column's name and the
 * `count` others' names), then each data row (its time in seconds, as the
 * tick it reads to, and its `count` cells, quotes removed), valid during the
 * call. A non-OK return ends the scan with it. */
typedef struct plot_csv_sink {
    void *context;
    rtcosim_status (*header)(void *context, const char *first, size_t count, char *const *names,
                             rtcosim_error *err);
    rtcosim_status (*row)(void *context, double time, char *const *cells, rtcosim_error *err);
    bool header_only; /* stop after the header */
} plot_csv_sink;
/* A results CSV read a line at a time (plot_table_read's rules and
 * messages: header, optional units row, quoting, time non-decreasing), never
 * more of it in memory than its longest line. *units_row: the units row as
 * written (malloc'd; NULL when there is none), for plot_csv_units; units_row
 * NULL: not wanted. */
rtcosim_status plot_csv_scan(const char *path, const plot_csv_sink *sink, char **units_row,
                             rtcosim_error *err);
/* The units of the `count` columns after the first from a units row
 * (units[c] malloc'd, NULL where the cell is empty or missing). */
rtcosim_status plot_csv_units(const char *path, const char *units_row, size_t count,
                              char **units, rtcosim_error *err);
/* The table of a results CSV, only the columns `s` names (all: NULL), by a
 * scan; plot_csv_read_names: the header's columns, no rows. */
rtcosim_status plot_csv_read(const char *path, const result_select *s, plot_table **out,
                             rtcosim_error *err);
rtcosim_status plot_csv_read_names(const char *path, plot_table **out, rtcosim_error *err);
/* The columns `s` names (all: NULL) of a results CSV as plot_csv_read gives
 * them (names, units, which are text) and how many rows it has, by a scan
 * that keeps no value: `rows` is the count, `time` and every `values` NULL
 * (for a reader that takes the rows in a second scan: rtcosim convert). stop
 * (NULL: never) is asked every 4096 rows: true ends the scan with
 * RTCOSIM_ECANCELED and no table. */
rtcosim_status plot_csv_read_kinds(const char *path, const result_select *s,
                                   bool (*stop)(void *context), void *stop_context,
                                   plot_table **out, rtcosim_error *err);
/* Whether `path` is read as a CSV a line at a time (plot_path_is_csv, and
 * RTCOSIM_CSV_WHOLE=1 not asking for the whole-file reference reader). */
bool plot_csv_streams(const char *path);
static inline ptrdiff_t plot_table_find(const plot_table *t, const char *name)
{
    return result_table_find(t, name);
}

/* Units for the columns a table leaves without one, from a model: an FMU's
 * variables, an SSD/SSP's connectors ("component.connector"), or a DBC's
 * signals ("Message.Signal", also matching "bus.Message.Signal"). A name
 * matches exactly or as the last dot-separated part of a column's name. */
typedef struct plot_unit_map plot_unit_map;
rtcosim_status plot_unit_map_load(const char *path, plot_unit_map **out, rtcosim_error *err);
const char *plot_unit_map_find(const plot_unit_map *m, const char *column);
void plot_unit_map_free(plot_unit_map *m);

/* ---- the engine (plot_draw.c) ---- */

enum { PLOT_PALETTE_SIZE = 10 }; /* colours before they repeat */

typedef struct plot_series {
    const char *label;    /* legend text (unescaped) */
    const char *name;     /* the variable (for the axis label); NULL: label */
    const char *unit;     /* NULL or "": none */
    const double *x, *y;  /* n points, x non-decreasing when `reduce` */
    size_t n;
    bool markers_only;    /* points, no line (e.g. overrun frames) */
    int color;            /* palette index */
    int line_style;       /* PLplot pllsty 1 (solid) .. 8; 0: solid */
} plot_series;

typedef struct plot_hline {
    double y;             /* in the unit below */
    const char *unit;     /* panel it belongs to */
    const char *label;    /* legend text */
} plot_hline;

typedef struct plot_request {
    const char *title;
    const char *x_label;
    const char *y_label;  /* NULL: from the panel's unit and names */
    bool log_x, log_y;
    bool x_is_time;       /* long series reduced per pixel column */
    bool always_legend;   /* e.g. several files: the legend says which is which */
    rtcosim_plot_panels panels;
    bool has_from, has_to;
    double from, to;      /* x window */
    int width, height;
    const plot_series *series;
    size_t series_count;
    const plot_hline *hlines;
    size_t hline_count;
} plot_request;

/* Lay out and draw into `output` (.svg or .png). layout (may be NULL)
 * receives every box placed; stats (may be NULL) the counts. */
rtcosim_status plot_render(const plot_request *req, const char *output, plot_layout *layout,
                           rtcosim_plot_stats *stats, rtcosim_error *err);

/* rtcosim_plot_files with the layout handed back (tests measure it). */
rtcosim_status plot_files_layout(const char *const *paths, size_t file_count,
                                 const char *const *variables, size_t n, const char *output,
                                 const rtcosim_plot_options *opts, plot_layout *layout,
                                 rtcosim_plot_stats *stats, rtcosim_error *err);

/* rtcosim_plot_rt_timing with the layout handed back. */
rtcosim_status plot_rt_timing_layout(const char *frames_csv, const char *output, double period_us,
                                     bool mixed, const char *title, plot_layout *layout,
                                     rtcosim_error *err);

#endif
