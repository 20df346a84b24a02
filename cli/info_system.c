/* `rtcosim info SYSTEM.ssd|.ssp|OspSystemStructure.xml`: the system as rtcosim
 * understood it (what OMSimulator users check in its GUI): components with
 * their connectors (declared or taken from the model), connections with
 * their transformations, parameter bindings with their origin, the macro
 * step and where it came from, and the execution order the master derives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "info_system.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/results.h"
#include "rtcosim/system.h"

bool cli_info_is_system(const char *path)
{
    size_t len = strlen(path);
    static const char *const endings[] = {".ssd", ".ssp", ".xml"};
    for (size_t i = 0; i < 3; i++)
        if (len >= 4 && strcasecmp(path + len - 4, endings[i]) == 0)
            return true;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return false;
    char file[4096];
    snprintf(file, sizeof file, "%s/OspSystemStructure.xml", path);
    if (access(file, R_OK) == 0)
        return true;
    snprintf(file, sizeof file, "%s/SystemStructure.ssd", path);
    return access(file, R_OK) == 0;
}

static void print_value(const rtcosim_ssd_parameter *p)
{
    char num[RTCOSIM_FORMAT_MAX];
    switch (p->type) {
    case RTCOSIM_SSP_REAL:
        rtcosim_format_double(p->value.r, num);
        printf("%s%s%s", num, p->unit ? " " : "", p->unit ? p->unit : "");
        break;
    case RTCOSIM_SSP_INTEGER: rtcosim_format_int64(p->value.i, num); printf("%s", num); break;
    case RTCOSIM_SSP_BOOLEAN: printf("%s", p->value.b ? "true" : "false"); break;
    case RTCOSIM_SSP_STRING: printf("\"%s\"", p->value.s ? p->value.s : ""); break;
    default: printf("%s", p->value.s ? p->value.s : ""); break;
    }
}

static void print_parameters(const char *indent, const rtcosim_ssd_parameter *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        printf("%s%s = ", indent, list[i].name);
        print_value(&list[i]);
        printf("  (%s:%d)\n", list[i].origin ? list[i].origin : "?", list[i].line);
    }
}

static void print_component(const rtcosim_system_desc *d, const rtcosim_ssd_component *c,
                            rtcosim_time_ns macro)
{
    char num[RTCOSIM_FORMAT_MAX];
    printf("  %s  %s", c->name, c->source);
    if (c->step_size_hint_ns > 0 && macro > 0) {
        rtcosim_format_time(c->step_size_hint_ns, num);
        int64_t every = c->step_size_hint_ns / macro;
        printf("  (step size hint %s s: every %lld macro steps)", num,
               (long long)(every < 1 ? 1 : every));
    }
    const rtcosim_ssd_master_settings *m = rtcosim_system_desc_master(d);
    for (size_t i = 0; i < m->rate_count; i++)
        if (m->rates[i].component_index >= 0 &&
            strcmp(m->rates[i].component, c->name) == 0) {
            if (m->rates[i].step_ns > 0) {
                rtcosim_format_time(m->rates[i].step_ns, num);
                printf("  (step %s s)", num);
            } else {
                printf("  (every %lld macro steps)", (long long)m->rates[i].multiple);
            }
        }
    if (c->ecu) {
        printf("\n    ECU code as a shared object, tasks (%zu):", c->ecu->task_count);
        for (size_t k = 0; k < c->ecu->task_count; k++) {
            const rtcosim_ssd_ecu_task *t = &c->ecu->tasks[k];
            rtcosim_format_time(t->period, num);
            printf("%s %s every %s s", k ? "," : "", t->entry, num);
            if (t->offset > 0) {
                rtcosim_format_time(t->offset, num);
                printf(" from %s s", num);
            }
            if (t->execution > 0) {
                rtcosim_format_time(t->execution, num);
                printf(" taking %s s", num);
            }
            printf(" (priority %d)", t->priority);
        }
    }
    printf("\n    connectors (%zu%s):\n", c->connector_count,
           c->connectors_from_model ? ", from the model" : "");
    for (size_t k = 0; k < c->connector_count; k++) {
        const rtcosim_ssd_connector *cn = &c->connectors[k];
        printf("      %-24s %-19s %s%s%s\n", cn->name, rtcosim_connector_kind_name(cn->kind),
               rtcosim_ssp_type_name(cn->type), cn->unit ? " " : "", cn->unit ? cn->unit : "");
    }
    if (c->parameter_count) {
        printf("    parameters (%zu):\n", c->parameter_count);
        print_parameters("      ", c->parameters, c->parameter_count);
    }
}

static void print_connection(const rtcosim_ssd_connection *cn)
{
    char f[RTCOSIM_FORMAT_MAX], o[RTCOSIM_FORMAT_MAX];
    printf("  %s%s%s -> %s%s%s", cn->start.component ? cn->start.component : "",
           cn->start.component ? "." : "", cn->start.connector,
           cn->end.component ? cn->end.component : "", cn->end.component ? "." : "",
           cn->end.connector);
    if (cn->has_linear_transformation || cn->has_unit_conversion) {
        rtcosim_format_double(cn->factor, f);
        rtcosim_format_double(cn->offset, o);
        printf("  = %s * x + %s (%s)", f, o,
               cn->has_linear_transformation ? "linear transformation" : "unit conversion");
    }
    if (cn->map_count)
        printf("  mapped (%zu entries)", cn->map_count);
    printf("  [line %d]\n", cn->line);
}

/* Whether the system's FMUs can run here: each FMU component's binary for
 * this platform loaded (nothing instantiated). Each component that cannot
 * is a warning naming it and why (as `info FMU` describes an FMU built for
 * another platform), the first an error with --strict. 0 or an exit code. */
static int check_runs_here(const char *path, const rtcosim_system_desc *d, bool strict)
{
    for (size_t i = 0; i < rtcosim_system_desc_component_count(d); i++) {
        const rtcosim_ssd_component *c = rtcosim_system_desc_component(d, i);
        size_t len = c->path ? strlen(c->path) : 0;
        if (c->native_type || len < 4 || strcasecmp(c->path + len - 4, ".fmu") != 0)
            continue;
        rtcosim_fmu_options fo = {.model_exchange_fallback = true};
        rtcosim_component *comp = NULL;
        rtcosim_error err;
        rtcosim_log_level level = rtcosim_log_get_level();
        rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* (the description's warnings came once) */
        rtcosim_status st = rtcosim_fmu_load(c->path, &fo, &comp, &err);
        rtcosim_log_set_level(level);
        rtcosim_component_free(comp);
        if (st == RTCOSIM_OK)
            continue;
        rtcosim_error_prefix(&err, "%s:%d: component '%s': ", path, c->line, c->name);
        if (strict)
            return cli_fail_error(&err);
        rtcosim_log(RTCOSIM_LOG_WARNING, "info", "cannot run here: %s", err.message);
    }
    return 0;
}

/* The order the master steps the components in, from a master built for it
 * of the FMUs' descriptions (no binary loaded, nothing instantiated: FMUs
 * for another platform too). */
static void print_order(const rtcosim_system_desc *d)
{
    rtcosim_error err;
    rtcosim_master *m = NULL;
    rtcosim_system_build_options o = {.describe_only = true};
    rtcosim_time_ns step;
    rtcosim_ssd_step_origin origin;
    rtcosim_status st = rtcosim_system_build_master(d, &o, &m, &err);
    if (st != RTCOSIM_OK && !rtcosim_system_desc_macro_step(d, &step, &origin)) {
        /* no macro step anywhere (a run takes it from the command line): the
         * order does not depend on it, any step that divides every rate will do */
        o.overrides.has_step_size = true;
        o.overrides.step_size_ns = 1;
        st = rtcosim_system_build_master(d, &o, &m, &err);
    }
    if (st != RTCOSIM_OK || rtcosim_master_plan_order(m, &err) != RTCOSIM_OK) {
        printf("\nexecution order: not available (%s)\n", err.message);
        rtcosim_master_free(m);
        return;
    }
    bool gs = rtcosim_system_desc_master(d)->order == RTCOSIM_SSD_ORDER_GAUSS_SEIDEL;
    printf("\nexecution order (%s):\n",
           gs ? "Gauss-Seidel: each component steps after those it reads, in this order"
              : "Jacobi: every component steps from the previous exchange; initialized in "
                "this data-flow order");
    for (size_t i = 0; i < rtcosim_master_component_count(m); i++)
        printf("  %zu. %s\n", i + 1, rtcosim_master_order_name(m, i));
    rtcosim_master_free(m);
}

int cli_info_system(const char *path, const char *parameter_set, bool strict)
{
    rtcosim_error err;
    rtcosim_system_desc *d = NULL;
    const rtcosim_system_load_options load = {.parameter_set = parameter_set};
    if (rtcosim_system_desc_load_with(path, &load, &d, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    for (size_t i = 0; i < rtcosim_system_desc_info_count(d); i++)
        fprintf(stderr, "info: %s\n", rtcosim_system_desc_info(d, i));
    char num[RTCOSIM_FORMAT_MAX];
    printf("%-20s %s (%s)\n", "system", rtcosim_system_desc_name(d), rtcosim_system_desc_format(d));
    printf("%-20s %s\n", "file", path);
    rtcosim_time_ns start = 0, stop = 0, macro = 0;
    if (rtcosim_system_desc_start_time(d, &start)) {
        rtcosim_format_time(start, num);
        printf("%-20s %s s\n", "start time", num);
    }
    if (rtcosim_system_desc_stop_time(d, &stop)) {
        rtcosim_format_time(stop, num);
        printf("%-20s %s s\n", "stop time", num);
    }
    rtcosim_ssd_step_origin origin;
    if (rtcosim_system_desc_macro_step(d, &macro, &origin)) {
        rtcosim_format_time(macro, num);
        printf("%-20s %s s (from %s)\n", "macro step", num, rtcosim_ssd_step_origin_name(origin));
    } else {
        printf("%-20s %s\n", "macro step", "from the components' default experiments");
    }
    const rtcosim_ssd_master_settings *ms = rtcosim_system_desc_master(d);
    if (ms->has_step_control && ms->step_control)
        printf("%-20s %s\n", "step control", "adaptive macro step");
    if (ms->threads > 0)
        printf("%-20s %d\n", "threads", ms->threads);

    size_t n = rtcosim_system_desc_component_count(d);
    printf("\ncomponents (%zu):\n", n);
    for (size_t i = 0; i < n; i++)
        print_component(d, rtcosim_system_desc_component(d, i), macro);
    size_t sc = rtcosim_system_desc_connector_count(d);
    if (sc) {
        printf("\nsystem connectors (%zu):\n", sc);
        for (size_t i = 0; i < sc; i++) {
            const rtcosim_ssd_connector *cn = rtcosim_system_desc_connector(d, i);
            printf("  %-24s %-19s %s\n", cn->name, rtcosim_connector_kind_name(cn->kind),
                   rtcosim_ssp_type_name(cn->type));
        }
    }
    size_t sp = rtcosim_system_desc_parameter_count(d);
    if (sp) {
        printf("\nsystem parameters (%zu):\n", sp);
        for (size_t i = 0; i < sp; i++)
            print_parameters("  ", rtcosim_system_desc_parameter(d, i), 1);
    }
    size_t nc = rtcosim_system_desc_connection_count(d);
    printf("\nconnections (%zu):\n", nc);
    for (size_t i = 0; i < nc; i++)
        print_connection(rtcosim_system_desc_connection(d, i));
    print_order(d);
    int rc = check_runs_here(path, d, strict);
    rtcosim_system_desc_free(d);
    return rc;
}
