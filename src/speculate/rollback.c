/* Rollback table of one logical process: a ring of step records (state at the
 * start of the step, inputs, outputs) that a speculating LP rewinds to and
 * commits from. Sized at create; pushing a step never allocates (component
 * snapshots are taken once at create and overwritten in place). */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/speculate.h"

struct rtcosim_rollback_table {
    rtcosim_rollback_config config;
    size_t head;  /* slot of the oldest record */
    size_t count; /* records held */
    rtcosim_rollback_record *records; /* [capacity], pointers fixed at create */
    double *inputs, *outputs;
    rtcosim_time_ns *input_times;
    unsigned char *states;   /* [capacity][state_size] in callback mode */
    rtcosim_state *snapshots; /* [capacity] in component mode */
};

void rtcosim_rollback_free(rtcosim_rollback_table *t)
{
    if (!t)
        return;
    if (t->snapshots)
        for (size_t i = 0; i < t->config.capacity; i++)
            rtcosim_component_free_state(t->config.component, t->snapshots[i]);
    free(t->snapshots);
    free(t->states);
    free(t->inputs);
    free(t->outputs);
    free(t->input_times);
    free(t->records);
    free(t);
}

rtcosim_status rtcosim_rollback_create(const rtcosim_rollback_config *config,
                                       rtcosim_rollback_table **out, rtcosim_error *err)
{
    *out = NULL;
    if (!config || config->capacity == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rollback table: capacity must be at least 1");
    if (config->component && (config->save || config->restore))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "rollback table: give either a component or save/restore, not both");
    if (!config->component && (!config->save != !config->restore ||
                               (config->save && config->state_size == 0)))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "rollback table: save and restore need each other and a state_size > 0");
    if (config->component &&
        !rtcosim_component_capabilities(config->component)->can_get_set_state) {
        const char *name = rtcosim_component_instance_name(config->component);
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: cannot get and set its state, so it cannot be rolled back",
                                 name ? name : rtcosim_component_model_name(config->component));
    }
    rtcosim_rollback_table *t = calloc(1, sizeof *t);
    if (!t)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "rollback table: out of memory");
    t->config = *config;
    const size_t cap = config->capacity;
    t->records = calloc(cap, sizeof *t->records);
    /* +1 keeps calloc from returning NULL for zero counts. */
    t->inputs = calloc(cap * config->input_count + 1, sizeof(double));
    t->outputs = calloc(cap * config->output_count + 1, sizeof(double));
    t->input_times = calloc(cap * config->input_time_count + 1, sizeof(rtcosim_time_ns));
    if (config->save)
        t->states = malloc(cap * config->state_size);
    if (config->component)
        t->snapshots = calloc(cap, sizeof *t->snapshots);
    if (!t->records || !t->inputs || !t->outputs || !t->input_times ||
        (config->save && !t->states) || (config->component && !t->snapshots)) {
        rtcosim_rollback_free(t);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "rollback table: out of memory");
    }
    for (size_t i = 0; i < cap; i++) {
        t->records[i].inputs = t->inputs + i * config->input_count;
        t->records[i].outputs = t->outputs + i * config->output_count;
        t->records[i].input_times = t->input_times + i * config->input_time_count;
    }
    if (config->component)
        for (size_t i = 0; i < cap; i++) {
            rtcosim_status st = rtcosim_component_get_state(config->component, &t->snapshots[i], err);
            if (st != RTCOSIM_OK) {
                rtcosim_rollback_free(t);
                return rtcosim_error_prefix(err, "rollback table: ");
            }
        }
    *out = t;
    return RTCOSIM_OK;
}

size_t rtcosim_rollback_count(const rtcosim_rollback_table *t) { return t->count; }
size_t rtcosim_rollback_capacity(const rtcosim_rollback_table *t) { return t->config.capacity; }

static size_t slot_of(const rtcosim_rollback_table *t, size_t age)
{
    return (t->head + age) % t->config.capacity;
}

/* Position (0 = oldest) of `step`, or SIZE_MAX when not held. Steps are
 * consecutive, so this is arithmetic. */
static size_t age_of(const rtcosim_rollback_table *t, uint64_t step)
{
    if (t->count == 0)
        return SIZE_MAX;
    const uint64_t first = t->records[t->head].step;
    if (step < first || step - first >= t->count)
        return SIZE_MAX;
    return (size_t)(step - first);
}

bool rtcosim_rollback_first(const rtcosim_rollback_table *t, uint64_t *step)
{
    if (t->count == 0)
        return false;
    *step = t->records[t->head].step;
    return true;
}

bool rtcosim_rollback_last(const rtcosim_rollback_table *t, uint64_t *step)
{
    if (t->count == 0)
        return false;
    *step = t->records[slot_of(t, t->count - 1)].step;
    return true;
}

const rtcosim_rollback_record *rtcosim_rollback_get(const rtcosim_rollback_table *t, uint64_t step)
{
    const size_t age = age_of(t, step);
    return age == SIZE_MAX ? NULL : &t->records[slot_of(t, age)];
}

rtcosim_status rtcosim_rollback_push(rtcosim_rollback_table *t, uint64_t step,
                                     rtcosim_time_ns time, const double *inputs,
                                     const rtcosim_time_ns *input_times, rtcosim_error *err)
{
    const rtcosim_rollback_config *c = &t->config;
    if (t->count == c->capacity)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "rollback table full: %zu uncommitted steps", c->capacity);
    uint64_t last;
    if (rtcosim_rollback_last(t, &last) && step != last + 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "rollback table: step %llu pushed after step %llu",
                                 (unsigned long long)step, (unsigned long long)last);
    const size_t slot = slot_of(t, t->count);
    rtcosim_status st = RTCOSIM_OK;
    if (c->component)
        st = rtcosim_component_get_state(c->component, &t->snapshots[slot], err);
    else if (c->save)
        st = c->save(c->user, t->states + slot * c->state_size, c->state_size, err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_rollback_record *r = &t->records[slot];
    r->step = step;
    r->time = time;
    r->has_outputs = false;
    if (c->input_count)
        memcpy((double *)r->inputs, inputs, c->input_count * sizeof(double));
    if (c->input_time_count)
        memcpy((rtcosim_time_ns *)r->input_times, input_times,
               c->input_time_count * sizeof(rtcosim_time_ns));
    t->count++;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rollback_set_outputs(rtcosim_rollback_table *t, uint64_t step,
                                            const double *outputs, rtcosim_error *err)
{
    const size_t age = age_of(t, step);
    if (age == SIZE_MAX)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "rollback table: step %llu is not held",
                                 (unsigned long long)step);
    rtcosim_rollback_record *r = &t->records[slot_of(t, age)];
    if (t->config.output_count)
        memcpy((double *)r->outputs, outputs, t->config.output_count * sizeof(double));
    r->has_outputs = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rollback_restore(rtcosim_rollback_table *t, uint64_t step,
                                        rtcosim_error *err)
{
    const rtcosim_rollback_config *c = &t->config;
    const size_t age = age_of(t, step);
    if (age == SIZE_MAX)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                 "rollback table: cannot roll back to step %llu, it is not held",
                                 (unsigned long long)step);
    const size_t slot = slot_of(t, age);
    rtcosim_status st = RTCOSIM_OK;
    if (c->component)
        st = rtcosim_component_set_state(c->component, t->snapshots[slot], err);
    else if (c->restore)
        st = c->restore(c->user, t->states + slot * c->state_size, c->state_size, err);
    if (st != RTCOSIM_OK)
        return st;
    t->count = age;
    return RTCOSIM_OK;
}

static void commit_oldest(rtcosim_rollback_table *t)
{
    if (t->config.commit)
        t->config.commit(t->config.user, &t->records[t->head]);
    t->head = (t->head + 1) % t->config.capacity;
    t->count--;
}

size_t rtcosim_rollback_collect(rtcosim_rollback_table *t, rtcosim_time_ns gvt)
{
    size_t dropped = 0;
    while (t->count >= 2 && t->records[slot_of(t, 1)].time <= gvt) {
        commit_oldest(t);
        dropped++;
    }
    return dropped;
}

size_t rtcosim_rollback_commit_before(rtcosim_rollback_table *t, uint64_t step)
{
    size_t dropped = 0;
    while (t->count > 0 && t->records[t->head].step < step) {
        commit_oldest(t);
        dropped++;
    }
    return dropped;
}
