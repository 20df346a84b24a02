/* `rtcosim info RESULT.csv|.mat` (rtcosim_results_print_table): a results
 * file read as `plot` reads it (plot_data.c), summed up as `info` sums up an
 * MDF measurement: its rows, time span and step, and per column its unit,
 * minimum, maximum and cells that are no number. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "plot_internal.h"
#include "rtcosim/results.h"

rtcosim_status rtcosim_results_print_table(const char *path, FILE *out, rtcosim_error *err)
{
    plot_table *t = NULL;
    rtcosim_status st = plot_table_read(path, &t, err);
    if (st != RTCOSIM_OK)
        return st;
    const char *dot = strrchr(path, '.');
    bool mat = dot && strcasecmp(dot, ".mat") == 0;
    size_t text = 0;
    for (size_t c = 0; c < t->column_count; c++)
        text += t->columns[c].text;
    fprintf(out, "%-20s %s (%s)\n%-20s %zu", "results", path,
            mat ? "Modelica/Dymola MAT" : "CSV", "rows", t->rows);
    if (t->rows) {
        fprintf(out, ", %s %.9g .. %.9g", t->first_name ? t->first_name : "time", t->time[0],
                t->time[t->rows - 1]);
        double lo = INFINITY, hi = 0;
        for (size_t k = 1; k < t->rows; k++) {
            double d = t->time[k] - t->time[k - 1];
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        if (t->rows > 1 && hi - lo <= 1e-9 * hi)
            fprintf(out, ", step %.9g", hi);
        else if (t->rows > 1)
            fprintf(out, ", steps %.9g .. %.9g (events, variable steps)", lo, hi);
    }
    fprintf(out, "\n%-20s %zu numeric", "columns", t->column_count - text);
    if (text)
        fprintf(out, ", %zu text (String, Binary)", text);
    fprintf(out, "\n\n%-40s %-10s %14s %14s %s\n", "column", "unit", "min", "max", "no number");
    for (size_t c = 0; c < t->column_count; c++) {
        const result_column *col = &t->columns[c];
        if (col->text) {
            fprintf(out, "%-40s %-10s %14s\n", col->name, col->unit ? col->unit : "-", "(text)");
            continue;
        }
        double lo = INFINITY, hi = -INFINITY;
        size_t missing = 0;
        for (size_t k = 0; k < t->rows; k++) {
            double v = col->values[k];
            if (isnan(v)) {
                missing++;
                continue;
            }
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        if (missing == t->rows)
            fprintf(out, "%-40s %-10s %14s %14s %zu\n", col->name, col->unit ? col->unit : "-",
                    "-", "-", missing);
        else
            fprintf(out, "%-40s %-10s %14.6g %14.6g %zu\n", col->name,
                    col->unit ? col->unit : "-", lo, hi, missing);
    }
    plot_table_free(t);
    return RTCOSIM_OK;
}
