/* ECU code compiled for the host as a shared object as an SSD component: its
 * org.rtcosim.ecu annotation (rc:Ecu with sensors, actuators and rc:Task
 * children; system.h) read and checked so that a bad one names its line,
 * and the rule that a .so source and the annotation come together. */
#include <string.h>

#include "system/ssd_internal.h"

/* "a, b,c" into arena strings; empty items are refused. */
static rtcosim_status read_names(parse_ctx *ctx, const xmlNode *n, const char *attr,
                                 const char *const **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    const char *text = system_attr(ctx->d, n, attr);
    if (!text || !*text)
        return RTCOSIM_OK;
    size_t items = 1;
    for (const char *p = text; *p; p++)
        items += *p == ',';
    const char **names = system_alloc(ctx->d, items * sizeof *names);
    if (!names)
        return NOMEM(ctx);
    for (const char *p = text;; p++) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strcspn(p, ",");
        size_t trimmed = len;
        while (trimmed && (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t'))
            trimmed--;
        if (!trimmed)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim ecu: %s \"%s\" has an empty name", attr,
                        text);
        if (!(names[(*count)++] = system_strndup(ctx->d, p, trimmed)))
            return NOMEM(ctx);
        p += len;
        if (!*p)
            break;
    }
    *out = names;
    return RTCOSIM_OK;
}

static rtcosim_status read_task_time(parse_ctx *ctx, const xmlNode *t, const char *attr,
                                     bool positive, rtcosim_time_ns *out)
{
    const char *text = system_attr(ctx->d, t, attr);
    if (!text)
        return positive ? FAIL(ctx, t, RTCOSIM_EFORMAT, "rtcosim ecu: task without a %s", attr)
                        : RTCOSIM_OK;
    rtcosim_error e;
    if (rtcosim_time_parse_seconds(text, out, &e) != RTCOSIM_OK)
        return FAIL(ctx, t, RTCOSIM_EFORMAT, "rtcosim ecu: bad task %s \"%s\": %s", attr, text,
                    e.message);
    if (positive ? *out <= 0 : *out < 0)
        return FAIL(ctx, t, RTCOSIM_EFORMAT, "rtcosim ecu: task %s must be %s, got \"%s\"", attr,
                    positive ? "positive" : ">= 0", text);
    return RTCOSIM_OK;
}

static rtcosim_status read_task(parse_ctx *ctx, const xmlNode *t, int position,
                                rtcosim_ssd_ecu_task *task)
{
    static const char *const known[] = {"entry", "period", "offset", "priority", "execution"};
    for (const xmlAttr *at = t->properties; at; at = at->next) {
        bool ok = at->ns != NULL;
        for (size_t i = 0; i < sizeof known / sizeof *known && !ok; i++)
            ok = strcmp((const char *)at->name, known[i]) == 0;
        if (!ok)
            return FAIL(ctx, t, RTCOSIM_EFORMAT, "rtcosim ecu: unknown task attribute '%s' "
                        "(entry, period, offset, priority, execution)", (const char *)at->name);
    }
    *task = (rtcosim_ssd_ecu_task){.entry = system_attr(ctx->d, t, "entry"),
                                   .priority = position, .line = (int)xmlGetLineNo(t)};
    if (!task->entry || !*task->entry)
        return FAIL(ctx, t, RTCOSIM_EFORMAT, "rtcosim ecu: task without an entry point (entry)");
    rtcosim_status st = read_task_time(ctx, t, "period", true, &task->period);
    if (st == RTCOSIM_OK)
        st = read_task_time(ctx, t, "offset", false, &task->offset);
    if (st == RTCOSIM_OK)
        st = read_task_time(ctx, t, "execution", false, &task->execution);
    const char *prio = system_attr(ctx->d, t, "priority");
    int64_t p = 0;
    if (st == RTCOSIM_OK && prio) {
        if (!system_parse_int64(prio, &p) || p < -1000000 || p > 1000000)
            return FAIL(ctx, t, RTCOSIM_EFORMAT, "rtcosim ecu: bad task priority \"%s\" (an"
                        " integer, lower runs first)", prio);
        task->priority = (int)p;
    }
    return st;
}

rtcosim_status ssd_read_ecu(parse_ctx *ctx, const xmlNode *a, rtcosim_ssd_component *c)
{
    const xmlNode *n = ssd_child(a, RTCOSIM_MASTER_NS, "Ecu");
    if (!n)
        return FAIL(ctx, a, RTCOSIM_EFORMAT,
                    "org.rtcosim.ecu annotation without an Ecu element in namespace %s",
                    RTCOSIM_MASTER_NS);
    if (c->ecu)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "component '%s': second ecu annotation", c->name);
    for (const xmlAttr *at = n->properties; at; at = at->next)
        if (!at->ns && strcmp((const char *)at->name, "sensors") != 0 &&
            strcmp((const char *)at->name, "actuators") != 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT,
                        "rtcosim ecu: unknown attribute '%s' (sensors, actuators)",
                        (const char *)at->name);
    rtcosim_ssd_ecu *ecu = system_alloc(ctx->d, sizeof *ecu);
    if (!ecu)
        return NOMEM(ctx);
    memset(ecu, 0, sizeof *ecu);
    ecu->line = (int)xmlGetLineNo(n);
    rtcosim_status st = read_names(ctx, n, "sensors", &ecu->sensors, &ecu->sensor_count);
    if (st == RTCOSIM_OK)
        st = read_names(ctx, n, "actuators", &ecu->actuators, &ecu->actuator_count);
    if (st != RTCOSIM_OK)
        return st;
    for (size_t i = 0; i < ecu->sensor_count + ecu->actuator_count; i++)
        for (size_t j = 0; j < i; j++) {
            const char *a = i < ecu->sensor_count ? ecu->sensors[i]
                                                  : ecu->actuators[i - ecu->sensor_count];
            const char *b = j < ecu->sensor_count ? ecu->sensors[j]
                                                  : ecu->actuators[j - ecu->sensor_count];
            if (strcmp(a, b) == 0)
                return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim ecu: '%s' is named twice among"
                            " the sensors and actuators", a);
        }
    size_t tasks = 0;
    for (const xmlNode *t = n->children; t; t = t->next)
        tasks += system_is(t, RTCOSIM_MASTER_NS, "Task");
    if (tasks == 0)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim ecu: no rc:Task (entry, period)");
    rtcosim_ssd_ecu_task *list = system_alloc(ctx->d, tasks * sizeof *list);
    if (!list)
        return NOMEM(ctx);
    size_t k = 0;
    for (const xmlNode *t = n->children; t; t = t->next) {
        if (!system_is(t, RTCOSIM_MASTER_NS, "Task"))
            continue;
        if ((st = read_task(ctx, t, (int)k, &list[k])) != RTCOSIM_OK)
            return st;
        k++;
    }
    ecu->tasks = list;
    ecu->task_count = tasks;
    c->ecu = ecu;
    return RTCOSIM_OK;
}

bool ssd_is_shared_object(const rtcosim_ssd_component *c)
{
    size_t len = c->path ? strlen(c->path) : 0;
    return (len > 3 && strcmp(c->path + len - 3, ".so") == 0) ||
           (c->path && c->mime_type && strcmp(c->mime_type, "application/x-sharedlib") == 0);
}

rtcosim_status ssd_check_ecu(parse_ctx *ctx, const xmlNode *n, const rtcosim_ssd_component *c)
{
    bool so = ssd_is_shared_object(c);
    if (so && !c->ecu)
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "component '%s': source '%s' is ECU code as a shared object and needs the "
                    "org.rtcosim.ecu annotation (rc:Ecu with its sensors, actuators and tasks)",
                    c->name, c->source);
    if (!so && c->ecu)
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "component '%s': the org.rtcosim.ecu annotation needs a shared object (.so)"
                    " as its source, not '%s'", c->name, c->source);
    return RTCOSIM_OK;
}
