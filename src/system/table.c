/* A table of signals over time as a component (system.h,
 * rtcosim_table_component_load): OMSimulator's table component, which SSP
 * files name with the MIME type "text/csv" (the proposed MA-CSV stimuli
 * format) or, written by OMSimulator before 2.1, "application/table". Each
 * column of an input table in fmusim's CSV format becomes an output: Float64
 * linearly interpolated between rows unless the loader gives it a type and
 * hold (rtcosim_table_component_load_columns: what a system's connections
 * from it drive); equal times mark a jump (from that instant on the later
 * row applies, as fmusim reads input files). An Int64 or UInt64 column of a
 * CSV is read as text and decoded exactly once at load (a double rounds
 * past 2^53 and has no 2^63 - 1), so a step only copies the held row's
 * value. The state is the time alone, so speculation and rollback need
 * nothing else. */
#include <stdlib.h>
#include <string.h>

#include "csv/csv_values.h"
#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "rtcosim/system.h"
#include "system/table_map.h"
#include "util/text.h"

enum { TABLE_STATE_MAGIC = 0x7461626c }; /* "tabl" */

typedef struct table_snapshot {
    uint32_t magic;
    uint32_t columns;
    rtcosim_time_ns time;
} table_snapshot;

typedef struct table_impl {
    rtcosim_csv *csv;
    rtcosim_csv_cursor cursor;
    rtcosim_variable *vars;
    bool *hold; /* per column: the last row at or before t, not linear */
    uint64_t **exact; /* per column: an Int64/UInt64 column's cells read exactly, or NULL */
    size_t count;
    rtcosim_time_ns time;
} table_impl;

static const char *table_name(const table_impl *t) { return rtcosim_csv_name(t->csv); }

static rtcosim_status table_instantiate(void *self, const char *name, rtcosim_error *err)
{
    (void)self, (void)name, (void)err;
    return RTCOSIM_OK;
}

/* A run that starts before the first row or ends after the last holds the
 * row at that end: said once, since a stimulus that stops early is more
 * often a mistake than a plan. */
static rtcosim_status table_setup(void *self, double tolerance, rtcosim_time_ns start,
                                  rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)tolerance, (void)err;
    table_impl *t = self;
    t->time = start;
    rtcosim_time_ns first = rtcosim_csv_time(t->csv, 0);
    rtcosim_time_ns last = rtcosim_csv_time(t->csv, rtcosim_csv_row_count(t->csv) - 1);
    if (start < first)
        rtcosim_log(RTCOSIM_LOG_WARNING, "system", "%s: the table starts at %.9g s, after the run's"
                    " start at %.9g s: its first row applies until then", table_name(t),
                    rtcosim_time_to_seconds(first), rtcosim_time_to_seconds(start));
    if (stop >= 0 && stop > last)
        rtcosim_log(RTCOSIM_LOG_WARNING, "system", "%s: the table ends at %.9g s, before the run's"
                    " stop at %.9g s: its last row is held from then on", table_name(t),
                    rtcosim_time_to_seconds(last), rtcosim_time_to_seconds(stop));
    return RTCOSIM_OK;
}

static rtcosim_status table_no_op(void *self, rtcosim_error *err)
{
    (void)self, (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status table_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_step_result *result, rtcosim_error *err)
{
    (void)err;
    table_impl *impl = self;
    impl->time = t + h;
    if (result)
        result->last_successful_time = t + h;
    return RTCOSIM_OK;
}

static rtcosim_status table_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err)
{
    table_impl *t = self;
    rtcosim_csv_cursor_seek(&t->cursor, t->time);
    size_t size = rtcosim_type_size(type);
    for (size_t i = 0; i < n; i++) {
        if (vrs[i] >= t->count)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variable with value reference "
                                     "%u", table_name(t), vrs[i]);
        if (t->vars[vrs[i]].type != type)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s' is %s, not %s",
                                     table_name(t), t->vars[vrs[i]].name,
                                     rtcosim_type_name(t->vars[vrs[i]].type),
                                     rtcosim_type_name(type));
        if (t->exact[vrs[i]]) { /* (held: integers are never interpolated) */
            memcpy((unsigned char *)values + i * size, &t->exact[vrs[i]][t->cursor.row], size);
            continue;
        }
        double x = t->hold[vrs[i]] ? rtcosim_csv_cursor_hold(&t->cursor, vrs[i])
                                   : rtcosim_csv_cursor_linear(&t->cursor, vrs[i]);
        if (type == RTCOSIM_TYPE_FLOAT64)
            ((double *)values)[i] = x;
        else
            csv_store_number(type, x, (unsigned char *)values + i * size);
    }
    return RTCOSIM_OK;
}

static rtcosim_status table_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, rtcosim_error *err)
{
    (void)type, (void)vrs, (void)values;
    return n ? rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: a table's variables are outputs: "
                                 "they cannot be set", table_name(self))
             : RTCOSIM_OK;
}

static rtcosim_status table_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    table_impl *t = self;
    if (!*state && !(*state = malloc(sizeof(table_snapshot))))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for a state",
                                 table_name(t));
    *(table_snapshot *)*state = (table_snapshot){TABLE_STATE_MAGIC, (uint32_t)t->count, t->time};
    return RTCOSIM_OK;
}

static bool snapshot_fits(const table_impl *t, const table_snapshot *s)
{
    return s->magic == TABLE_STATE_MAGIC && s->columns == (uint32_t)t->count;
}

static rtcosim_status table_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    table_impl *t = self;
    if (!state || !snapshot_fits(t, state))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: state snapshot belongs to another "
                                 "component", table_name(t));
    t->time = ((const table_snapshot *)state)->time;
    return RTCOSIM_OK;
}

static void table_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static rtcosim_status table_serialized_size(void *self, rtcosim_state state, size_t *size,
                                            rtcosim_error *err)
{
    (void)self, (void)state, (void)err;
    *size = sizeof(table_snapshot);
    return RTCOSIM_OK;
}

static rtcosim_status table_serialize(void *self, rtcosim_state state, uint8_t *buffer,
                                      size_t size, rtcosim_error *err)
{
    table_impl *t = self;
    if (size < sizeof(table_snapshot) || !state || !snapshot_fits(t, state))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no state of this table, or a buffer "
                                 "of %zu bytes", table_name(t), size);
    memcpy(buffer, state, sizeof(table_snapshot));
    return RTCOSIM_OK;
}

static rtcosim_status table_deserialize(void *self, const uint8_t *buffer, size_t size,
                                        rtcosim_state *state, rtcosim_error *err)
{
    table_impl *t = self;
    table_snapshot s;
    if (size != sizeof s)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: serialized state has %zu bytes, "
                                 "expected %zu", table_name(t), size, sizeof s);
    memcpy(&s, buffer, sizeof s);
    if (!snapshot_fits(t, &s))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: serialized state belongs to another "
                                 "component", table_name(t));
    if (!*state && !(*state = malloc(sizeof s)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for a state",
                                 table_name(t));
    memcpy(*state, &s, sizeof s);
    return RTCOSIM_OK;
}

static void table_destroy(void *self)
{
    table_impl *t = self;
    if (!t)
        return;
    for (size_t k = 0; t->exact && k < t->count; k++)
        free(t->exact[k]);
    free(t->exact);
    rtcosim_csv_free(t->csv);
    free(t->vars);
    free(t->hold);
    free(t);
}

static const rtcosim_component_ops table_ops = {
    .kind = "table",
    .instantiate = table_instantiate,
    .setup = table_setup,
    .enter_init = table_no_op,
    .exit_init = table_no_op,
    .do_step = table_do_step,
    .get = table_get,
    .set = table_set,
    .get_state = table_get_state,
    .set_state = table_set_state,
    .free_state = table_free_state,
    .serialized_state_size = table_serialized_size,
    .serialize_state = table_serialize,
    .deserialize_state = table_deserialize,
    .terminate = table_no_op,
    .destroy = table_destroy,
};

rtcosim_status rtcosim_table_component_load(const char *path, rtcosim_component **out,
                                            rtcosim_error *err)
{
    return rtcosim_table_component_load_columns(path, NULL, 0, out, err);
}

/* Give a column the type and interpolation asked for it. */
static rtcosim_status apply_column(table_impl *t, const char *path,
                                   const rtcosim_table_column *c, rtcosim_error *err)
{
    ptrdiff_t k = c->name ? rtcosim_csv_find_column(t->csv, c->name) : -1;
    if (k < 0)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: the table has no column '%s'", path,
                                 c->name ? c->name : "(null)");
    if (!csv_type_is_number(c->type))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: column '%s': a table gives "
                                 "numbers and Booleans, not %s values", path, c->name,
                                 rtcosim_type_name(c->type));
    rtcosim_status st;
    if ((c->type == RTCOSIM_TYPE_INT64 || c->type == RTCOSIM_TYPE_UINT64) &&
        rtcosim_csv_text(t->csv, 0, (size_t)k)) { /* (read as text: exact_column) */
        if (!t->exact[k] &&
            !(t->exact[k] = malloc(rtcosim_csv_row_count(t->csv) * sizeof **t->exact)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        st = csv_column_read_integers(t->csv, (size_t)k, c->name, c->type, t->exact[k], err);
    } else
        st = csv_column_check_type(t->csv, (size_t)k, c->type, err);
    if (st != RTCOSIM_OK)
        return st;
    bool is_float = c->type == RTCOSIM_TYPE_FLOAT64 || c->type == RTCOSIM_TYPE_FLOAT32;
    t->vars[k].type = c->type;
    t->hold[k] = c->hold || !is_float; /* integers and Booleans are never interpolated */
    t->vars[k].variability =
        t->hold[k] ? RTCOSIM_VARIABILITY_DISCRETE : RTCOSIM_VARIABILITY_CONTINUOUS;
    return RTCOSIM_OK;
}

rtcosim_status table_map_read(const char *path, const table_map *map,
                              bool (*is_text)(void *context, const char *column), void *context,
                              rtcosim_csv **out, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_csv_read_input_file(path, is_text, context, out, err);
    if (st == RTCOSIM_OK && map && map->count &&
        (st = rtcosim_csv_select_columns(*out, map->count, map->column, map->input, err)) !=
            RTCOSIM_OK) {
        rtcosim_csv_free(*out);
        *out = NULL;
    }
    return st;
}

rtcosim_status rtcosim_table_component_load_columns(const char *path,
                                                    const rtcosim_table_column *columns,
                                                    size_t column_count, rtcosim_component **out,
                                                    rtcosim_error *err)
{
    return table_component_load_mapped(path, NULL, columns, column_count, out, err);
}

typedef struct exact_columns {
    const table_map *map;
    const rtcosim_table_column *columns;
    size_t count;
} exact_columns;

static bool is_wide_integer(const exact_columns *x, const char *name)
{
    for (size_t i = 0; i < x->count; i++)
        if (x->columns[i].name && strcmp(x->columns[i].name, name) == 0)
            return x->columns[i].type == RTCOSIM_TYPE_INT64 ||
                   x->columns[i].type == RTCOSIM_TYPE_UINT64;
    return false;
}

/* Is the file's column read as text, for apply_column to decode exactly: it
 * is given Int64 or UInt64, or (mapped) every input it drives is. (A column
 * that drives an Int64 input and a Real one stays a number, as before.) */
static bool exact_column(void *context, const char *column)
{
    const exact_columns *x = context;
    if (!x->map || !x->map->count)
        return is_wide_integer(x, column);
    bool any = false;
    for (size_t i = 0; i < x->map->count; i++)
        if (strcmp(x->map->column[i], column) == 0) {
            if (!is_wide_integer(x, x->map->input[i]))
                return false;
            any = true;
        }
    return any;
}

rtcosim_status table_component_load_mapped(const char *path, const table_map *map,
                                           const rtcosim_table_column *columns,
                                           size_t column_count, rtcosim_component **out,
                                           rtcosim_error *err)
{
    exact_columns exact = {map, columns, column_count};
    *out = NULL;
    table_impl *t = calloc(1, sizeof *t);
    if (!t)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    rtcosim_status st = table_map_read(path, map, column_count ? exact_column : NULL, &exact,
                                       &t->csv, err);
    if (st != RTCOSIM_OK) {
        table_destroy(t);
        return st;
    }
    t->count = rtcosim_csv_column_count(t->csv);
    if (t->count == 0) {
        table_destroy(t);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: the table has no column besides "
                                 "time", path);
    }
    if (!(t->vars = calloc(t->count, sizeof *t->vars)) ||
        !(t->hold = calloc(t->count, sizeof *t->hold)) ||
        !(t->exact = calloc(t->count, sizeof *t->exact))) {
        table_destroy(t);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0; i < t->count; i++)
        t->vars[i] = (rtcosim_variable){.name = rtcosim_csv_column_name(t->csv, i),
                                        .value_reference = (uint32_t)i,
                                        .type = RTCOSIM_TYPE_FLOAT64,
                                        .causality = RTCOSIM_CAUSALITY_OUTPUT,
                                        .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
                                        .derivative_of = -1};
    for (size_t i = 0; i < column_count; i++) {
        if ((st = apply_column(t, path, &columns[i], err)) != RTCOSIM_OK) {
            table_destroy(t);
            return st;
        }
    }
    rtcosim_csv_cursor_init(&t->cursor, t->csv);
    rtcosim_time_ns first = rtcosim_csv_time(t->csv, 0);
    rtcosim_time_ns last = rtcosim_csv_time(t->csv, rtcosim_csv_row_count(t->csv) - 1);
    const rtcosim_component_desc desc = {
        .model_name = rtcosim_csv_name(t->csv),
        .variables = t->vars,
        .variable_count = t->count,
        .capabilities = {.can_handle_variable_step = true, .can_get_set_state = true,
                         .can_serialize_state = true},
        .has_default_start = true,
        .default_start = first,
        .has_default_stop = last > first,
        .default_stop = last,
    };
    return rtcosim_component_create(&table_ops, t, &desc, out, err);
}

bool rtcosim_table_is_source(const char *mime_type, const char *path)
{
    if (mime_type)
        return strcmp(mime_type, "text/csv") == 0 || strcmp(mime_type, "application/table") == 0;
    return util_path_has_ending(path, ".csv") || util_path_has_ending(path, ".mat") ||
           util_path_is_mdf(path);
}
