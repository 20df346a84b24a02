/* `rtcosim_plot_files` / `rtcosim_plot_csv`: result files (CSV or MAT) to
 * named series with units (from the file, else from a model the user
 * names), one per variable and file, handed to the engine (plot_draw.c).
 * Several files compare runs: a variable keeps its colour, each file its
 * line style, and the legend names the file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot_internal.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

rtcosim_status plot_files_layout(const char *const *paths, size_t file_count,
                                 const char *const *variables, size_t n, const char *output,
                                 const rtcosim_plot_options *opts, plot_layout *layout,
                                 rtcosim_plot_stats *stats, rtcosim_error *err)
{
    static const rtcosim_plot_options defaults = {0};
    if (!paths || file_count == 0 || !output || (n && !variables))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_plot_files: NULL argument");
    for (size_t f = 0; f < file_count; f++)
        if (!paths[f])
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_plot_files: NULL argument");
    if (!opts)
        opts = &defaults;

    rtcosim_status st = RTCOSIM_OK;
    plot_table **tables = calloc(file_count, sizeof *tables);
    ptrdiff_t *x_cols = calloc(file_count, sizeof *x_cols);
    plot_unit_map *units = NULL;
    plot_series *series = NULL;
    char **labels = NULL;
    size_t series_count = 0, var_count = 0;
    char title[200] = "", x_label[160] = "";
    const char **wanted = NULL, **names = NULL;
    size_t name_count = 0;
    if (!tables || !x_cols) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
        goto done;
    }
    if (opts->units_from && (st = plot_unit_map_load(opts->units_from, &units, err)) != RTCOSIM_OK)
        goto done;
    bool x_is_time = !opts->x || strcmp(opts->x, "time") == 0;
    /* variables named: each file read for those and the x axis only (a CSV
     * then holds just their columns, not the run's); none: every column */
    wanted = calloc(n + 2, sizeof *wanted);
    if (!wanted) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        wanted[i] = variables[i];
    wanted[n] = opts->x;
    result_select selection = {wanted, n + (opts->x != NULL)};
    const result_select *select = n ? &selection : NULL;
    char near[200];
    for (size_t f = 0; f < file_count; f++) {
        if ((st = plot_table_read_select(paths[f], select, &tables[f], err)) != RTCOSIM_OK)
            goto done;
        plot_table *t = tables[f];
        for (size_t c = 0; units && c < t->column_count; c++) {
            const char *u = t->columns[c].unit ? NULL : plot_unit_map_find(units, t->columns[c].name);
            if (u && !(t->columns[c].unit = strdup(u))) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
                goto done;
            }
        }
        x_cols[f] = -1;
        if (opts->x && !x_is_time && strcmp(opts->x, t->first_name) != 0) {
            x_cols[f] = plot_table_find(t, opts->x);
            if (x_cols[f] < 0) {
                plot_nearest_column(&paths[f], &tables[f], 1, select, opts->x, near, sizeof near);
                st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                       "%s: no column '%s' for the x axis%s%s%s", paths[f], opts->x,
                                       near[0] ? "; did you mean '" : "", near,
                                       near[0] ? "'?" : "");
                goto done;
            }
        }
    }

    /* variables: as named (a pattern: the columns it matches, in the files'
     * order), else every column of the first file */
    if ((st = result_select_expand((const result_table *const *)tables, file_count, variables, n,
                                   &names, &name_count, err)) != RTCOSIM_OK)
        goto done;
    var_count = n ? name_count : tables[0]->column_count - (x_cols[0] >= 0);
    series = calloc(var_count * file_count + 1, sizeof *series);
    labels = calloc(var_count * file_count + 1, sizeof *labels);
    if (!series || !labels) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
        goto done;
    }
    if (var_count == 0) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variables to plot", paths[0]);
        goto done;
    }
    /* file names in the legend: the base name, the path when two share it */
    bool full_paths = false;
    for (size_t f = 0; f < file_count; f++)
        for (size_t g = f + 1; g < file_count; g++)
            full_paths |= strcmp(base_name(paths[f]), base_name(paths[g])) == 0;
    size_t text_skipped = 0;
    const char *text_named = NULL;
    for (size_t v = 0, k = 0; v < var_count; v++) {
        const char *name;
        if (n) {
            name = names[v];
        } else {
            if ((ptrdiff_t)k == x_cols[0])
                k++;
            name = tables[0]->columns[k++].name;
        }
        size_t found = 0;
        for (size_t f = 0; f < file_count; f++) {
            plot_table *t = tables[f];
            ptrdiff_t c = plot_table_find(t, name);
            if (c < 0)
                continue;
            found++;
            /* String and Binary columns (fmusim's CSV writes them as text)
             * have no curve: asked for, refused by name; among every column,
             * left out and said */
            if (t->columns[c].text) {
                if (n && result_names_have(variables, n, name)) { /* (not by a pattern only) */
                    st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                           "%s: '%s' holds text (String or Binary values), "
                                           "which a plot cannot draw",
                                           paths[f], name);
                    goto done;
                }
                text_skipped++;
                text_named = name;
                continue;
            }
            /* a CSV's column without a value in any row (a String output
             * that stayed ""): no curve, no legend entry */
            if (t->columns[c].empty) {
                if (n && result_names_have(variables, n, name)) {
                    st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' has no value in any "
                                           "row: nothing to draw", paths[f], name);
                    goto done;
                }
                continue;
            }
            plot_series *s = &series[series_count];
            s->unit = t->columns[c].unit;
            s->name = t->columns[c].name;
            s->y = t->columns[c].values;
            s->x = x_cols[f] >= 0 ? t->columns[x_cols[f]].values : t->time;
            s->n = t->rows;
            if (x_cols[f] < 0 && t->columns[c].own_time) {
                /* a multi-rate measurement's channel: its own samples */
                s->y = t->columns[c].own_values;
                s->x = t->columns[c].own_time;
                s->n = t->columns[c].own_rows;
            }
            s->color = (int)v;
            /* a file's line style; with one file, past the palette's colours
             * the next variables are dashed, so that no two lines look alike */
            s->line_style = file_count > 1 ? (int)(f % 4) + 1 : (int)((v / PLOT_PALETTE_SIZE) % 4) + 1;
            if (file_count > 1) {
                const char *file = full_paths ? paths[f] : base_name(paths[f]);
                size_t len = strlen(name) + strlen(file) + 4;
                if ((labels[series_count] = malloc(len)))
                    snprintf(labels[series_count], len, "%s (%s)", name, file);
            } else {
                labels[series_count] = strdup(name);
            }
            if (!labels[series_count]) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", output);
                goto done;
            }
            s->label = labels[series_count++];
        }
        if (found == 0 && result_name_is_pattern(name)) {
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no variable matches '%s' in the "
                                   "results", file_count == 1 ? paths[0] : "plot", name);
            goto done;
        }
        if (found == 0) {
            plot_nearest_column(paths, tables, file_count, select, name, near, sizeof near);
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no variable '%s' in the results%s%s%s",
                                   file_count == 1 ? paths[0] : "plot", name,
                                   near[0] ? "; did you mean '" : "", near,
                                   near[0] ? "'?" : "");
            goto done;
        }
    }

    /* A variable one file gives no unit (a CSV without a units row) takes
     * the unit another file gives it, so that the runs of one variable share
     * its panel (`plot run.csv reference.mat h`, `compare --plot`). */
    for (size_t i = 0; i < series_count; i++)
        for (size_t j = 0; j < series_count && !(series[i].unit && *series[i].unit); j++)
            if (j != i && series[j].unit && *series[j].unit &&
                strcmp(series[i].name, series[j].name) == 0)
                series[i].unit = series[j].unit;
    if (text_skipped && series_count == 0) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: nothing to plot: the columns hold text (String or Binary "
                               "values, such as '%s')",
                               paths[0], text_named);
        goto done;
    }
    if (opts->title) {
        snprintf(title, sizeof title, "%s", opts->title);
    } else {
        for (size_t f = 0; f < file_count; f++) {
            size_t used = strlen(title);
            snprintf(title + used, sizeof title - used, "%s%s", f ? " vs " : "", base_name(paths[f]));
        }
    }
    if (opts->x_label) {
        snprintf(x_label, sizeof x_label, "%s", opts->x_label);
    } else if (x_cols[0] >= 0) {
        const plot_column *xc = &tables[0]->columns[x_cols[0]];
        snprintf(x_label, sizeof x_label, xc->unit ? "%s [%s]" : "%s", xc->name, xc->unit);
    } else {
        snprintf(x_label, sizeof x_label, strcmp(tables[0]->first_name, "time") == 0 ? "time [s]" : "%s",
                 tables[0]->first_name);
    }
    plot_request req = {
        .title = title, .x_label = x_label, .y_label = opts->y_label,
        .log_x = opts->log_x, .log_y = opts->log_y,
        .x_is_time = x_cols[0] < 0 && strcmp(tables[0]->first_name, "time") == 0,
        .panels = opts->panels, .has_from = opts->has_from, .has_to = opts->has_to,
        .from = opts->from, .to = opts->to, .width = opts->width, .height = opts->height,
        .series = series, .series_count = series_count, .always_legend = file_count > 1,
    };
    st = plot_render(&req, output, layout, stats, err);
    if (st == RTCOSIM_OK && stats)
        stats->text_columns_left_out = text_skipped;

done:
    for (size_t i = 0; labels && i < series_count; i++)
        free(labels[i]);
    free(labels);
    free(series);
    for (size_t f = 0; tables && f < file_count; f++)
        plot_table_free(tables[f]);
    free(tables);
    free(x_cols);
    free(wanted);
    free(names);
    plot_unit_map_free(units);
    return st;
}

rtcosim_status rtcosim_plot_files(const char *const *paths, size_t file_count,
                                  const char *const *variables, size_t n, const char *output,
                                  const rtcosim_plot_options *opts, rtcosim_plot_stats *stats,
                                  rtcosim_error *err)
{
    return plot_files_layout(paths, file_count, variables, n, output, opts, NULL, stats, err);
}

rtcosim_status rtcosim_plot_csv(const char *csv_path, const char *const *variables, size_t n,
                                const char *output, const rtcosim_plot_options *opts,
                                rtcosim_error *err)
{
    if (!csv_path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_plot_csv: NULL argument");
    return plot_files_layout(&csv_path, 1, variables, n, output, opts, NULL, NULL, err);
}
