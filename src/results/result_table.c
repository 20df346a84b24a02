/* Result tables (result_table.h): time, and per variable its name, unit and
 * values, as the readers of results files fill them (mat_read.c, mdf_read.c,
 * src/plot/plot_data.c); the selection of variables a reader keeps. */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/result_table.h"

void result_table_free(result_table *t)
{
    if (!t)
        return;
    for (size_t c = 0; t->columns && c < t->column_count; c++) {
        free(t->columns[c].name);
        free(t->columns[c].unit);
        free(t->columns[c].values);
        free(t->columns[c].own_time);
        free(t->columns[c].own_values);
    }
    free(t->columns);
    free(t->time);
    free(t->path);
    free(t->first_name);
    free(t);
}

ptrdiff_t result_table_find(const result_table *t, const char *name)
{
    for (size_t c = 0; c < t->column_count; c++)
        if (strcmp(t->columns[c].name, name) == 0)
            return (ptrdiff_t)c;
    return -1;
}

bool result_name_is_pattern(const char *name)
{
    return strpbrk(name, "*?[") != NULL;
}

bool result_select_matches(const char *want, const char *name)
{
    return strcmp(want, name) == 0 || (result_name_is_pattern(want) && fnmatch(want, name, 0) == 0);
}

bool result_select_has(const result_select *s, const char *name)
{
    if (!s || s->count == 0)
        return true;
    for (size_t i = 0; i < s->count; i++)
        if (s->names[i] && result_select_matches(s->names[i], name))
            return true;
    return false;
}

bool result_names_have(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

typedef struct named_column {
    const char *name;
    size_t index; /* over the tables' columns, one after another */
} named_column;

static int by_name_then_index(const void *a, const void *b)
{
    const named_column *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

rtcosim_status result_select_expand(const result_table *const *tables, size_t table_count,
                                    const char *const *names, size_t count, const char ***out,
                                    size_t *out_count, rtcosim_error *err)
{
    *out = NULL;
    *out_count = 0;
    /* every column once, by name (the same name in several files, or in
     * two groups of one measurement, is one): each column's first column of
     * its name, from the names sorted, and a flag per name */
    size_t columns = 0;
    for (size_t f = 0; f < table_count; f++)
        columns += tables[f]->column_count;
    const char **list = malloc((count + columns + 1) * sizeof *list);
    named_column *by_name = malloc((columns + 1) * sizeof *by_name);
    size_t *first = malloc((columns + 1) * sizeof *first);
    bool *taken = calloc(columns + 1, sizeof *taken);
    if (!list || !by_name || !first || !taken) {
        free(list);
        free(by_name);
        free(first);
        free(taken);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    for (size_t f = 0, k = 0; f < table_count; f++)
        for (size_t c = 0; c < tables[f]->column_count; c++, k++)
            by_name[k] = (named_column){tables[f]->columns[c].name, k};
    qsort(by_name, columns, sizeof *by_name, by_name_then_index);
    for (size_t k = 0; k < columns; k++)
        first[by_name[k].index] = k > 0 && strcmp(by_name[k - 1].name, by_name[k].name) == 0
                                      ? first[by_name[k - 1].index]
                                      : by_name[k].index;
    free(by_name);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        bool column = false, matched = false;
        for (size_t f = 0; f < table_count && !column; f++)
            column = result_table_find(tables[f], names[i]) >= 0;
        bool pattern = !column && result_name_is_pattern(names[i]);
        for (size_t f = 0, k = 0; f < table_count; f++)
            for (size_t c = 0; c < tables[f]->column_count; c++, k++) {
                const char *name = tables[f]->columns[c].name;
                if (pattern ? fnmatch(names[i], name, 0) != 0 : strcmp(names[i], name) != 0)
                    continue;
                matched = true;
                if (!taken[first[k]])
                    list[n++] = name;
                taken[first[k]] = true;
            }
        if (!matched && !result_names_have(list, n, names[i]))
            list[n++] = names[i]; /* for the caller to say no column has it */
    }
    free(first);
    free(taken);
    *out = list;
    *out_count = n;
    return RTCOSIM_OK;
}

/* Keeps the columns `keep` says yes to, in their order; frees the others. */
static void keep_where(result_table *t, bool (*keep)(const void *context, const char *name),
                       const void *context)
{
    size_t kept = 0;
    for (size_t c = 0; c < t->column_count; c++) {
        result_column *col = &t->columns[c];
        if (keep(context, col->name)) {
            t->columns[kept++] = *col;
            continue;
        }
        free(col->name);
        free(col->unit);
        free(col->values);
        free(col->own_time);
        free(col->own_values);
    }
    t->column_count = kept;
}

static bool selected(const void *s, const char *name)
{
    return result_select_has(s, name);
}

void result_table_keep(result_table *t, const result_select *s)
{
    if (t && s && s->count)
        keep_where(t, selected, s);
}

static bool listed(const void *s, const char *name)
{
    const result_select *list = s;
    return result_names_have(list->names, list->count, name);
}

void result_table_keep_listed(result_table *t, const char *const *names, size_t count)
{
    result_select list = {names, count};
    keep_where(t, listed, &list);
}

result_table *result_table_new(const char *path, size_t rows, size_t columns)
{
    result_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->rows = rows;
    t->column_count = columns;
    t->path = strdup(path);
    t->time = calloc(rows ? rows : 1, sizeof *t->time);
    t->columns = calloc(columns ? columns : 1, sizeof *t->columns);
    bool ok = t->path && t->time && t->columns;
    for (size_t c = 0; ok && c < columns; c++)
        ok = (t->columns[c].values = calloc(rows ? rows : 1, sizeof(double))) != NULL;
    if (!ok) {
        result_table_free(t);
        return NULL;
    }
    return t;
}
