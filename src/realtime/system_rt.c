/* Real-time runs of an SSP system description: splits the components into
 * a real-time part and non-real-time parts, builds one master per part, wraps
 * each master as a group component for the real-time executor, records the
 * results from the paced thread and calibrates the real-time part before the
 * run. See include/rtcosim/system_rt.h for the semantics. This file: the
 * setup (split, parts, crossing connections, results columns; the results
 * file in system_rt_results.c). */
#include "realtime/system_rt_internal.h"
#include "results/result_table.h"

/* --- Delay injection (parsed in system_rt_delay.c) -------------------------- */

typedef struct wrap_context {
    rtcosim_system_rt *srt;
    int part;
} wrap_context;

static rtcosim_status wrap_delayed(void *context, const char *name, rtcosim_component *component,
                                   rtcosim_component **out, rtcosim_error *err)
{
    wrap_context *w = context;
    const rtcosim_system_rt_options *o = &w->srt->options;
    /* The caller's wraps, inside the delay: build.wrap everywhere (e.g.
     * isolation), partner_wrap (e.g. a remote DCP slave) on the
     * non-real-time part only: the paced thread must never wait on it. */
    if (o->build.wrap) {
        rtcosim_status st = o->build.wrap(o->build.wrap_context, name, component, &component, err);
        if (st != RTCOSIM_OK) {
            *out = NULL; /* the wrap owned and freed the component */
            return st;
        }
    }
    if (w->part >= 1 && o->partner_wrap) {
        rtcosim_status st = o->partner_wrap(o->partner_wrap_context, name, component, &component, err);
        if (st != RTCOSIM_OK) {
            *out = NULL;
            return st;
        }
    }
    for (size_t i = 0; i < o->delay_count; i++)
        if (strcmp(o->delays[i].component, name) == 0) {
            rtcosim_delay_options d = o->delays[i].delay;
            d.clock = w->srt->delay_clocks[w->part];
            return rtcosim_delay_wrap(component, &d, out, err);
        }
    *out = component;
    return RTCOSIM_OK;
}

/* --- Setup ------------------------------------------------------------------- */

void rtcosim_system_rt_options_init(rtcosim_system_rt_options *o)
{
    memset(o, 0, sizeof *o);
    rtcosim_rt_options_init(&o->rt);
    o->rt.calibrate = true;
}

/* The component of "comp.var": the longest component name that the text
 * starts with, followed by a dot. Flattened nested SSP systems give component
 * names with dots ("back.inner.mass2"), so the first dot is not the split. */
static int component_index_of(const rtcosim_system_desc *d, const char *name)
{
    char buf[NAME_LEN];
    int best = -1;
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        size_t n = (size_t)(dot - name);
        if (n >= sizeof buf)
            break;
        memcpy(buf, name, n);
        buf[n] = '\0';
        int i = rtcosim_system_desc_find_component(d, buf);
        if (i >= 0)
            best = i;
    }
    return best;
}

/* The component part of name for messages: its component's name, else the
 * text before the first dot. */
static const char *component_of(const rtcosim_system_desc *d, const char *name, char *buf,
                                size_t size)
{
    int i = component_index_of(d, name);
    if (i >= 0)
        return rtcosim_system_desc_component(d, (size_t)i)->name;
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), name);
    return buf;
}

/* The components of part `part` (-1: of every non-real-time part, parts
 * separated by " | "), joined with sep. */
static char *join_list(const rtcosim_system_desc *d, const int *part_of, int part,
                       const char *sep)
{
    size_t len = 1;
    for (size_t i = 0; i < rtcosim_system_desc_component_count(d); i++)
        len += strlen(rtcosim_system_desc_component(d, i)->name) + 3;
    char *s = calloc(len, 1);
    int last = 0;
    for (int p = part < 0 ? 1 : part; s && p <= (part < 0 ? SRT_PARTS - 1 : part); p++)
        for (size_t i = 0; i < rtcosim_system_desc_component_count(d); i++) {
            if (part_of[i] != p)
                continue;
            if (*s)
                strcat(s, last == p ? sep : " | ");
            last = p;
            strcat(s, rtcosim_system_desc_component(d, i)->name);
        }
    return s;
}

/* The parts from rt.non_realtime ("a,b;c": parts separated by ';'). */
static rtcosim_status split(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_system_desc *d = srt->desc;
    const char *file = rtcosim_system_desc_file(d);
    size_t n = rtcosim_system_desc_component_count(d);
    const char *list = srt->options.rt.non_realtime;
    char name[NAME_LEN];
    int part = 1;
    while (list && *list) {
        size_t len = strcspn(list, ",;");
        snprintf(name, sizeof name, "%.*s", (int)len, list);
        if (len) {
            int idx = rtcosim_system_desc_find_component(d, name);
            if (idx < 0) {
                for (size_t i = 0; i < n; i++)
                    srt->part_of[i] = 0;
                char *all = join_list(d, srt->part_of, 0, ", ");
                rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                  "%s: non-real-time component '%s' is not in the system "
                                  "(components: %s)",
                                  file, name, all ? all : "");
                free(all);
                return RTCOSIM_ENOTFOUND;
            }
            if (srt->part_of[idx])
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s: non-real-time component '%s' is named twice (each "
                                         "component belongs to one part)",
                                         file, name);
            if (part > RTCOSIM_SYSTEM_RT_PARTS_MAX)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s: more than %d non-real-time parts", file,
                                         RTCOSIM_SYSTEM_RT_PARTS_MAX);
            srt->part_of[idx] = part;
            srt->part_count = part + 1;
        }
        if (list[len] == ';' && srt->part_count == part + 1)
            part++;
        list = list[len] ? list + len + 1 : NULL;
    }
    if (srt->part_count < 1)
        srt->part_count = 1;
    size_t partners = 0;
    for (size_t i = 0; i < n; i++)
        partners += srt->part_of[i] != 0;
    if (partners == n)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: every component is non-real-time; nothing to pace", file);
    for (size_t i = 0; i < srt->options.delay_count; i++)
        if (rtcosim_system_desc_find_component(d, srt->options.delays[i].component) < 0)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "%s: delay injection for '%s': no such component", file,
                                     srt->options.delays[i].component);
    for (int p = 0; p < srt->part_count; p++) {
        srt->part_names[p] = join_list(d, srt->part_of, p, ", ");
        srt->group_labels[p] = p ? join_list(d, srt->part_of, p, "+") : strdup("realtime");
        if (!srt->part_names[p] || !srt->group_labels[p])
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    srt->nonrt_names = join_list(d, srt->part_of, -1, ", ");
    if (!srt->nonrt_names)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    return RTCOSIM_OK;
}

static bool crosses(const rtcosim_system_rt *srt, const rtcosim_ssd_connection *cn)
{
    return cn->start.component_index >= 0 && cn->end.component_index >= 0 &&
           srt->part_of[cn->start.component_index] != srt->part_of[cn->end.component_index];
}

static rtcosim_status set_start_values(rtcosim_system_rt *srt, rtcosim_master *m, int part,
                                       rtcosim_error *err)
{
    const rtcosim_system_rt_options *o = &srt->options;
    for (size_t i = 0; i < o->start_count; i++) {
        int idx = component_index_of(srt->desc, o->start_names[i]);
        if (part >= 0 && idx >= 0 && srt->part_of[idx] != part)
            continue;
        rtcosim_status st = rtcosim_master_set_start_value(m, o->start_names[i],
                                                           o->start_values[i], err);
        if (st != RTCOSIM_OK)
            return st; /* the master's message says "start value" and names it */
    }
    for (size_t i = 0; part >= 0 && i < srt->cross_count; i++) {
        int idx = component_index_of(srt->desc, srt->cross_names[i]);
        if (idx < 0 || srt->part_of[idx] != part)
            continue;
        rtcosim_status st = rtcosim_master_set_start_value(m, srt->cross_names[i],
                                                           srt->cross_values[i], err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static char *dup_checked(const char *s, rtcosim_status *st, rtcosim_error *err)
{
    char *c = strdup(s);
    if (!c && *st == RTCOSIM_OK)
        *st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    return c;
}

/* Initialize the whole system once: the values that cross between the parts
 * at the start time, and the default result columns. */
static rtcosim_status initialize_whole(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_system_desc *d = srt->desc;
    rtcosim_system_build_options b = srt->options.build;
    b.members = NULL;
    /* The caller's wrap (isolation) stays: the initialization runs them too. */
    rtcosim_master *m = NULL;
    rtcosim_status st = rtcosim_system_build_master(d, &b, &m, err);
    if (st == RTCOSIM_OK)
        st = set_start_values(srt, m, -1, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_master_initialize(m, srt->options.rt.start_time, srt->options.rt.stop_time,
                                       err);
    if (st == RTCOSIM_OK && rtcosim_master_time(m) != srt->options.rt.start_time)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: unexpected start time",
                               rtcosim_system_desc_file(d));
    if (st == RTCOSIM_OK)
        srt->macro_step = rtcosim_master_next_step(m);
    size_t nconn = rtcosim_system_desc_connection_count(d);
    srt->cross_names = calloc(nconn + 1, sizeof *srt->cross_names);
    srt->cross_values = calloc(nconn + 1, sizeof *srt->cross_values);
    if (st == RTCOSIM_OK && (!srt->cross_names || !srt->cross_values))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    char name[NAME_LEN], value[64];
    for (size_t i = 0; st == RTCOSIM_OK && i < nconn; i++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(d, i);
        if (!crosses(srt, cn))
            continue;
        rtcosim_component *c = rtcosim_master_component(m, cn->end.component);
        const rtcosim_variable *v = rtcosim_component_find_variable(c, cn->end.connector);
        double x = 0;
        if (!v || v->type != RTCOSIM_TYPE_FLOAT64) {
            st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                   "%s:%d: '%s.%s' is not Real: only Real (Float64) signals can "
                                   "cross between the real-time and the non-real-time part",
                                   rtcosim_system_desc_file(d), cn->line, cn->end.component,
                                   cn->end.connector);
            break;
        }
        st = rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1, &x, err);
        snprintf(name, sizeof name, "%s.%s", cn->end.component, cn->end.connector);
        snprintf(value, sizeof value, "%.17g", x);
        size_t k = srt->cross_count++;
        srt->cross_names[k] = dup_checked(name, &st, err);
        srt->cross_values[k] = dup_checked(value, &st, err);
    }
    /* Result columns: the caller's as the whole system resolved them (an
     * array's elements, a pattern's matches, each once; String and Binary
     * ones after), else the whole system's default. */
    size_t numeric = m ? rtcosim_master_observed_count(m) : 0;
    size_t text = b.observe_count && m ? rtcosim_master_text_observed_count(m) : 0;
    srt->columns = calloc(numeric + text + 1, sizeof *srt->columns);
    if (st == RTCOSIM_OK && !srt->columns)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    for (size_t i = 0; st == RTCOSIM_OK && i < numeric + text; i++)
        srt->columns[srt->column_count++] =
            dup_checked(i < numeric ? rtcosim_master_observed_name(m, i)
                                    : rtcosim_master_text_observed_name(m, i - numeric),
                        &st, err);
    rtcosim_master_free(m);
    return st;
}

/* The numeric outputs of the components the attach hook added (a CAN bus
 * of DBC signals: its rx.MSG.SIG), observed and recorded after the system's
 * default columns, as an offline run records every component's outputs. */
static rtcosim_status observe_attached(rtcosim_system_rt *srt, rtcosim_master *m,
                                       rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; st == RTCOSIM_OK && i < rtcosim_master_component_count(m); i++) {
        const char *name = rtcosim_master_component_name_at(m, i);
        const rtcosim_component *c = rtcosim_master_component_at(m, i);
        if (rtcosim_system_desc_find_component(srt->desc, name) >= 0)
            continue;
        for (size_t k = 0; st == RTCOSIM_OK && k < rtcosim_component_variable_count(c); k++) {
            const rtcosim_variable *v = rtcosim_component_variable(c, k);
            if (v->causality != RTCOSIM_CAUSALITY_OUTPUT || v->type == RTCOSIM_TYPE_STRING ||
                v->type == RTCOSIM_TYPE_BINARY || v->type == RTCOSIM_TYPE_CLOCK)
                continue;
            char column[NAME_LEN];
            snprintf(column, sizeof column, "%s.%s", name, v->name);
            char **grown = realloc(srt->columns, (srt->column_count + 2) * sizeof *grown);
            if (!grown)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
            srt->columns = grown;
            st = rtcosim_master_observe(m, column, err);
            if (st == RTCOSIM_OK)
                srt->columns[srt->column_count++] = dup_checked(column, &st, err);
        }
    }
    return st;
}

rtcosim_status system_rt_build_part(rtcosim_system_rt *srt, int part, rtcosim_master **out,
                                    rtcosim_error *err)
{
    size_t n = rtcosim_system_desc_component_count(srt->desc);
    bool *members = calloc(n + 1, sizeof *members);
    size_t nconn = rtcosim_system_desc_connection_count(srt->desc);
    const char **observe = calloc(srt->column_count + nconn + 1, sizeof *observe);
    char (*outputs)[NAME_LEN] = calloc(nconn + 1, NAME_LEN);
    if (!members || !observe || !outputs) {
        free(members);
        free(observe);
        free(outputs);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        members[i] = srt->part_of[i] == part;
    size_t observe_count = 0;
    for (size_t i = 0; part == 0 && i < srt->column_count; i++) {
        int idx = component_index_of(srt->desc, srt->columns[i]);
        if (idx >= 0 && !srt->part_of[idx])
            observe[observe_count++] = srt->columns[i];
    }
    /* The outputs sent to the other part are observed too: their values are
     * read from the master's view (see group_get). */
    for (size_t c = 0; c < nconn; c++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(srt->desc, c);
        if (!crosses(srt, cn) || srt->part_of[cn->start.component_index] != part)
            continue;
        snprintf(outputs[c], NAME_LEN, "%s.%s", cn->start.component, cn->start.connector);
        bool seen = false;
        for (size_t k = 0; k < observe_count && !seen; k++)
            seen = strcmp(observe[k], outputs[c]) == 0;
        if (!seen)
            observe[observe_count++] = outputs[c];
    }
    wrap_context w = {srt, part};
    rtcosim_system_build_options b = srt->options.build;
    b.members = members;
    b.wrap = wrap_delayed;
    b.wrap_context = &w;
    b.observe = observe;
    b.observe_count = observe_count;
    rtcosim_master *m = NULL;
    rtcosim_status st = rtcosim_system_build_master(srt->desc, &b, &m, err);
    free(members);
    free(observe);
    free(outputs);
    /* The real-time part steps on the paced thread alone: a helper thread
     * would have slept through the rest of the frame (far longer than any
     * spin), and its wake-up would sit on the paced thread's critical path.
     * The non-real-time part's helpers run SCHED_IDLE: they take the paced
     * thread's slack and idle CPUs, and the paced thread preempts them. */
    if (st == RTCOSIM_OK && part == 0 && srt->options.attach)
        st = srt->options.attach(srt->options.attach_context, m, out != &srt->parts[part], err);
    if (st == RTCOSIM_OK && part == 0 && srt->options.attach && out == &srt->parts[part] &&
        !srt->options.build.observe_count)
        st = observe_attached(srt, m, err);
    if (st == RTCOSIM_OK && part == 0)
        st = rtcosim_master_set_threads(m, 1, err);
    if (st == RTCOSIM_OK && part >= 1 && srt->options.threads_auto)
        st = rtcosim_master_set_threads(m, RTCOSIM_MASTER_THREADS_AUTO, err);
    if (st == RTCOSIM_OK && part >= 1)
        st = rtcosim_master_set_idle_workers(m, true, err);
    if (st == RTCOSIM_OK)
        st = set_start_values(srt, m, part, err);
    /* The probe of the calibration has no stop time: it may step past it. */
    if (st == RTCOSIM_OK)
        st = rtcosim_master_initialize(m, srt->options.rt.start_time,
                                       out == &srt->parts[part] ? srt->options.rt.stop_time : -1,
                                       err);
    if (st != RTCOSIM_OK) {
        rtcosim_master_free(m);
        return part ? rtcosim_error_prefix(err, "non-real-time part %s: ", srt->part_names[part])
                    : rtcosim_error_prefix(err, "real-time part: ");
    }
    *out = m;
    return RTCOSIM_OK;
}

/* Group variables and executor connections for every connection that
 * crosses between the parts. */
static rtcosim_status connect_parts(rtcosim_system_rt *srt, int part_count,
                                    rtcosim_rt_connection *conns, size_t *conn_count,
                                    rtcosim_error *err)
{
    const rtcosim_system_desc *d = srt->desc;
    const char *file = rtcosim_system_desc_file(d);
    size_t n = rtcosim_system_desc_connection_count(d);
    for (int p = 0; p < part_count; p++) {
        srt->groups[p].vars = calloc(2 * n + 1, sizeof(rtcosim_variable));
        srt->groups[p].links = calloc(2 * n + 1, sizeof(group_var));
        srt->groups[p].master = srt->parts[p];
        srt->groups[p].time = srt->options.rt.start_time;
        if (!srt->groups[p].vars || !srt->groups[p].links)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    *conn_count = 0;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(d, i);
        if (!crosses(srt, cn))
            continue;
        int from = srt->part_of[cn->start.component_index];
        int to = srt->part_of[cn->end.component_index];
        bool transformed = cn->has_linear_transformation || cn->has_unit_conversion;
        long out = system_rt_group_add(&srt->groups[from], 2 * n, srt->parts[from],
                                       cn->start.component, cn->start.connector,
                                       RTCOSIM_CAUSALITY_OUTPUT, 1, 0, file, cn->line, err);
        if (out < 0)
            return err ? err->status : RTCOSIM_EINVAL;
        long in = system_rt_group_add(&srt->groups[to], 2 * n, srt->parts[to], cn->end.component,
                                      cn->end.connector, RTCOSIM_CAUSALITY_INPUT,
                                      transformed ? cn->factor : 1, transformed ? cn->offset : 0,
                                      file, cn->line, err);
        if (in < 0)
            return err ? err->status : RTCOSIM_EINVAL;
        conns[(*conn_count)++] = (rtcosim_rt_connection){(size_t)from, (uint32_t)out, (size_t)to,
                                                         (uint32_t)in};
    }
    for (int p = 0; p < part_count; p++) {
        group *g = &srt->groups[p];
        const char *label = srt->group_labels[p];
        rtcosim_component_desc cd = {.model_name = label, .variables = g->vars,
                                     .variable_count = g->count,
                                     .capabilities = {.can_handle_variable_step = true}};
        rtcosim_status st = rtcosim_component_create(&system_rt_group_ops, g, &cd,
                                                     &srt->group_components[p], err);
        rtcosim_component *c = srt->group_components[p];
        if (st == RTCOSIM_OK)
            st = rtcosim_component_instantiate(c, label, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_setup(c, 0, srt->options.rt.start_time,
                                         srt->options.rt.stop_time, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_enter_init(c, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_exit_init(c, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* Each results column: a real-time part's observed variable, or a
 * non-real-time output that feeds the real-time part. */
static rtcosim_status map_columns(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const char *file = rtcosim_system_desc_file(srt->desc);
    size_t n = srt->column_count;
    rtcosim_master *m = srt->parts[0];
    size_t n_text = rtcosim_master_text_observed_count(m);
    srt->column_rt_index = calloc(n + 1, sizeof *srt->column_rt_index);
    srt->column_input = calloc(n + 1, sizeof *srt->column_input);
    srt->column_text = calloc(n + 1, sizeof *srt->column_text);
    srt->row = calloc(n + 1, sizeof *srt->row);
    srt->last_values = calloc(n + 1, sizeof *srt->last_values);
    srt->last_text = calloc(n + 1, sizeof *srt->last_text);
    srt->text_values = calloc(n_text + 1, sizeof *srt->text_values);
    srt->column_exact = calloc(n + 1, sizeof *srt->column_exact);
    srt->exact_columns = calloc(n + 1, sizeof *srt->exact_columns);
    if (!srt->column_rt_index || !srt->column_input || !srt->column_text || !srt->row ||
        !srt->last_values || !srt->last_text || !srt->text_values || !srt->column_exact ||
        !srt->exact_columns)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    const group *g = &srt->groups[0];
    size_t kept = 0;
    char comp[NAME_LEN];
    for (size_t i = 0; i < n; i++) {
        const char *name = srt->columns[i];
        long rt_index = -1, input = -1, text = -1;
        /* A String or Binary output of the real-time part: read from its
         * component on the paced thread per recorded row, its bytes copied
         * into the recorder's ring (cut at the ring's 256 bytes, counted). */
        for (size_t k = 0; k < n_text && text < 0; k++)
            if (strcmp(rtcosim_master_text_observed_name(m, k), name) == 0)
                text = (long)k;
        for (size_t k = 0; k < rtcosim_master_observed_count(m) && rt_index < 0 && text < 0; k++)
            if (strcmp(rtcosim_master_observed_name(m, k), name) == 0)
                rt_index = (long)k;
        /* A non-real-time output reaches the real-time group's inputs as
         * their source: find one input it feeds. */
        for (size_t c = 0; rt_index < 0 && input < 0 && text < 0 &&
                           c < rtcosim_system_desc_connection_count(srt->desc);
             c++) {
            const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(srt->desc, c);
            char start[NAME_LEN], end[NAME_LEN];
            if (!crosses(srt, cn) || !srt->part_of[cn->start.component_index] ||
                srt->part_of[cn->end.component_index])
                continue;
            snprintf(start, sizeof start, "%s.%s", cn->start.component, cn->start.connector);
            if (strcmp(start, name) != 0)
                continue;
            snprintf(end, sizeof end, "%s.%s", cn->end.component, cn->end.connector);
            for (size_t v = 0; v < g->count; v++)
                if (g->vars[v].causality == RTCOSIM_CAUSALITY_INPUT &&
                    strcmp(g->vars[v].name, end) == 0)
                    input = (long)v;
        }
        if (rt_index < 0 && input < 0 && text < 0) {
            /* named: an error; matched by a pattern or by default: left out */
            if (result_names_have(srt->options.build.observe, srt->options.build.observe_count,
                                  name))
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s: output variable '%s' cannot be recorded in a "
                                         "real-time run: '%s' is non-real-time and the variable "
                                         "does not feed the real-time part",
                                         file, name, component_of(srt->desc, name, comp, sizeof comp));
            rtcosim_log(RTCOSIM_LOG_INFO, LOG_CATEGORY,
                        "%s: '%s' is not recorded (non-real-time, does not feed the real-time "
                        "part)", file, name);
            free(srt->columns[i]);
            continue;
        }
        srt->columns[kept] = srt->columns[i];
        srt->column_rt_index[kept] = rt_index;
        srt->column_input[kept] = input;
        srt->column_text[kept] = text;
        kept++;
    }
    srt->column_count = kept;
    /* String and Binary columns after the numbers, as in an offline run
     * (and so that the live view, which shows numbers, takes the first
     * numeric_column_count of a row) */
    size_t numeric = 0;
    for (size_t i = 0; i < kept; i++) {
        if (srt->column_text[i] >= 0)
            continue;
        char *name = srt->columns[i];
        long rt_index = srt->column_rt_index[i], input = srt->column_input[i];
        memmove(&srt->columns[numeric + 1], &srt->columns[numeric], (i - numeric) * sizeof *srt->columns);
        memmove(&srt->column_rt_index[numeric + 1], &srt->column_rt_index[numeric],
                (i - numeric) * sizeof *srt->column_rt_index);
        memmove(&srt->column_input[numeric + 1], &srt->column_input[numeric],
                (i - numeric) * sizeof *srt->column_input);
        memmove(&srt->column_text[numeric + 1], &srt->column_text[numeric],
                (i - numeric) * sizeof *srt->column_text);
        srt->columns[numeric] = name;
        srt->column_rt_index[numeric] = rt_index;
        srt->column_input[numeric] = input;
        srt->column_text[numeric] = -1;
        numeric++;
    }
    srt->numeric_column_count = numeric;
    for (size_t i = 0; i < numeric; i++) {
        if (srt->column_rt_index[i] >= 0 &&
            rtcosim_master_observed_type(srt->parts[0], (size_t)srt->column_rt_index[i]) !=
                RTCOSIM_TYPE_FLOAT64) {
            srt->column_exact[i] = true;
            srt->exact_columns[srt->exact_count++] = i;
        }
    }
    return RTCOSIM_OK;
}

/* An input's raw value at the start: its source's output at the start. */
static rtcosim_status initial_raw_values(rtcosim_system_rt *srt, const rtcosim_rt_connection *conns,
                                         size_t n, rtcosim_error *err)
{
    for (size_t i = 0; i < n; i++) {
        group *from = &srt->groups[conns[i].from_component];
        group *to = &srt->groups[conns[i].to_component];
        double x = 0;
        rtcosim_status st =
            system_rt_group_get(from, RTCOSIM_TYPE_FLOAT64, &conns[i].from_vr, 1, &x, err);
        if (st != RTCOSIM_OK)
            return st;
        to->links[conns[i].to_vr].raw = x;
    }
    return RTCOSIM_OK;
}

/* The time of the last exchange point before the stop (frame 0 is one; the
 * pattern repeats from there). */
static rtcosim_status plan_last_exchange(rtcosim_system_rt *srt, rtcosim_error *err)
{
    const rtcosim_rt_options *o = &srt->options.rt;
    uint64_t frames = (uint64_t)((o->stop_time - o->start_time) / srt->macro_step);
    uint64_t frame = 0, last = 0;
    for (size_t i = 0; frame < frames && o->exchange.length; i = (i + 1) % o->exchange.length) {
        last = frame;
        frame += o->exchange.frames[i] ? o->exchange.frames[i] : 1;
    }
    srt->last_exchange = o->start_time + (rtcosim_time_ns)last * srt->macro_step;
    (void)err;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_rt_create(const rtcosim_system_desc *desc,
                                        const rtcosim_system_rt_options *options,
                                        rtcosim_system_rt **out, rtcosim_error *err)
{
    if (!desc || !options || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_rt_create: NULL argument");
    *out = NULL;
    rtcosim_system_rt *srt = calloc(1, sizeof *srt);
    if (!srt)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    srt->desc = desc;
    srt->options = *options;
    size_t n = rtcosim_system_desc_component_count(desc);
    srt->part_of = calloc(n + 1, sizeof *srt->part_of);
    srt->part_count = 1;
    rtcosim_status st = srt->part_of ? RTCOSIM_OK
                                        : rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    if (st == RTCOSIM_OK && n == 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: the system has no components",
                               rtcosim_system_desc_file(desc));
    if (st == RTCOSIM_OK)
        st = split(srt, err);
    /* Frames are fixed: the executor's frame is the macro step. */
    const rtcosim_ssd_master_settings *ann = rtcosim_system_desc_master(desc);
    const rtcosim_ssd_master_settings *over = &options->build.overrides;
    bool adaptive = over->has_step_control ? over->step_control
                                           : ann->has_step_control && ann->step_control;
    if (st == RTCOSIM_OK && adaptive)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: a real-time run needs a fixed macro step (step control is on)",
                               rtcosim_system_desc_file(desc));
    rtcosim_rt_options *ro = &srt->options.rt;
    /* Clocks: the pacing clock paces the real-time part and times delays
     * injected into it; the partner's clock times delays of the other part. */
    if (st == RTCOSIM_OK && !ro->clock) {
        st = rtcosim_clock_create_monotonic(ro->busy_wait, &srt->owned_pacing, err);
        ro->clock = srt->owned_pacing;
    }
    /* One processor clock per non-real-time part: in a virtual run each is
     * a virtual clock of its own (the first the caller's), so that the parts
     * run as processors of their own; on the real clock one monotonic clock
     * serves them all. */
    bool is_virtual = ro->clock && rtcosim_clock_is_virtual(ro->clock);
    for (int p = 1; p < srt->part_count && st == RTCOSIM_OK; p++) {
        rtcosim_clock *given = ro->partner_clocks && (size_t)(p - 1) < ro->partner_clock_count
                                   ? ro->partner_clocks[p - 1]
                                   : p == 1 ? ro->partner_clock : NULL;
        if (!given && is_virtual)
            st = rtcosim_clock_create_virtual(0, &srt->owned_partner_clocks[p], err);
        else if (!given && p == 1)
            st = rtcosim_clock_create_monotonic(ro->busy_wait, &srt->owned_partner_clocks[p], err);
        else if (!given)
            given = srt->delay_clocks[1];
        srt->delay_clocks[p] = given ? given : srt->owned_partner_clocks[p];
    }
    srt->delay_clocks[0] = ro->clock;
    if (st == RTCOSIM_OK)
        st = initialize_whole(srt, err);
    int part_count = srt->part_count;
    if (st == RTCOSIM_OK && part_count >= 2 && options->partner_prepare)
        options->partner_prepare(options->partner_wrap_context, srt->macro_step,
                                 ro->partner_timeout);
    for (int p = 0; p < part_count && st == RTCOSIM_OK; p++)
        st = system_rt_build_part(srt, p, &srt->parts[p], err);
    size_t nconn = rtcosim_system_desc_connection_count(desc);
    rtcosim_rt_connection *conns = calloc(nconn + 1, sizeof *conns);
    size_t conn_count = 0;
    if (st == RTCOSIM_OK && !conns)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    if (st == RTCOSIM_OK)
        st = connect_parts(srt, part_count, conns, &conn_count, err);
    if (st == RTCOSIM_OK)
        st = initial_raw_values(srt, conns, conn_count, err);
    if (st == RTCOSIM_OK)
        st = map_columns(srt, err);
    if (st == RTCOSIM_OK) {
        srt->groups[0].srt = srt;
        srt->groups[1].srt = srt;
        srt->groups[0].records = true;
    }
    if (st == RTCOSIM_OK) {
        rtcosim_rt_options eo = *ro;
        eo.macro_step = srt->macro_step;
        eo.calibrate = false; /* done here, on a probe of the real-time part */
        eo.group_names = true;
        /* The executor's parts: one group each, named by its label. */
        char nonrt[4096] = "";
        for (int p = 1; p < part_count; p++)
            snprintf(nonrt + strlen(nonrt), sizeof nonrt - strlen(nonrt), "%s%s",
                     p > 1 ? ";" : "", srt->group_labels[p]);
        eo.non_realtime = part_count > 1 ? nonrt : NULL;
        size_t parts = (size_t)part_count;
        eo.partner_clocks = srt->delay_clocks + 1;
        eo.partner_clock_count = parts - 1;
        eo.partner_clock = NULL;
        st = rtcosim_rt_create(srt->group_components, parts, conns, conn_count, &eo, &srt->rt, err);
        if (st != RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s: ", rtcosim_system_desc_file(desc));
    }
    srt->conns = conns;
    srt->conn_count = conn_count;
    if (st == RTCOSIM_OK)
        st = plan_last_exchange(srt, err);
    if (st == RTCOSIM_OK)
        st = system_rt_open_results(srt, err);
    if (st != RTCOSIM_OK) {
        rtcosim_system_rt_free(srt);
        return st;
    }
    *out = srt;
    return RTCOSIM_OK;
}

void rtcosim_system_rt_free(rtcosim_system_rt *srt)
{
    if (!srt)
        return;
    if (srt->recorder)
        rtcosim_recorder_close(srt->recorder, NULL, NULL);
    /* A lost partner's thread still inside a component call: its components,
     * their libraries and the executor stay until the process exits. */
    if (srt->rt && rtcosim_rt_get_summary(srt->rt)->partner_abandoned)
        return;
    rtcosim_rt_free(srt->rt);
    for (int p = 0; p < SRT_PARTS; p++) {
        rtcosim_component_free(srt->group_components[p]);
        system_rt_group_free(&srt->groups[p]);
        rtcosim_master_free(srt->parts[p]);
        free(srt->part_names[p]);
        free(srt->group_labels[p]);
        rtcosim_clock_free(srt->owned_partner_clocks[p]);
    }
    free(srt->nonrt_names);
    for (size_t i = 0; i < srt->cross_count; i++) {
        free(srt->cross_names[i]);
        free(srt->cross_values[i]);
    }
    free(srt->cross_names);
    free(srt->cross_values);
    for (size_t i = 0; i < srt->column_count; i++)
        free(srt->columns[i]);
    free(srt->columns);
    free(srt->column_rt_index);
    free(srt->column_input);
    free(srt->column_text);
    free(srt->row);
    free(srt->column_exact);
    free(srt->exact_columns);
    free(srt->last_values);
    free(srt->last_text);
    free(srt->text_values);
    free(srt->conns);
    free(srt->part_of);
    rtcosim_clock_free(srt->owned_pacing);
    free(srt);
}
