/* Setup of the real-time executor's parts: which components are real-time
 * and which are not, every connection resolved to batched get/set lists per
 * component and to the signals that cross between the parts; and the part
 * helpers the loops call (read outputs, write inputs, step). */
#include <stdlib.h>
#include <string.h>

#include "realtime/rt_internal.h"

const char *rtcosim_rt_component_label(const rtcosim_component *c)
{
    const char *n = rtcosim_component_instance_name(c);
    return n ? n : rtcosim_component_model_name(c);
}

static const rtcosim_variable *find_by_vr(const rtcosim_component *c, uint32_t vr)
{
    size_t n = rtcosim_component_variable_count(c);
    for (size_t i = 0; i < n; i++) {
        const rtcosim_variable *v = rtcosim_component_variable(c, i);
        if (v->value_reference == vr && v->type == RTCOSIM_TYPE_FLOAT64)
            return v;
    }
    return NULL;
}

/* --- Building the parts ---------------------------------------------------- */

/* Growable setup-time lists (freed before the run). */
typedef struct pair_list {
    size_t *owner;
    uint32_t *vr;
    size_t *source; /* inputs only */
    size_t n, cap;
} pair_list;

static int pair_add(pair_list *l, size_t owner, uint32_t vr, size_t source)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        size_t *o = realloc(l->owner, cap * sizeof *o);
        if (!o)
            return -1;
        l->owner = o;
        uint32_t *v = realloc(l->vr, cap * sizeof *v);
        if (!v)
            return -1;
        l->vr = v;
        size_t *s = realloc(l->source, cap * sizeof *s);
        if (!s)
            return -1;
        l->source = s;
        l->cap = cap;
    }
    l->owner[l->n] = owner;
    l->vr[l->n] = vr;
    l->source[l->n] = source;
    return (int)l->n++;
}

static void pair_free(pair_list *l)
{
    free(l->owner);
    free(l->vr);
    free(l->source);
}

/* Index of (owner, vr) among the part's output slots, added when new. */
static long slot_of(pair_list *slots, size_t owner, uint32_t vr)
{
    for (size_t i = 0; i < slots->n; i++)
        if (slots->owner[i] == owner && slots->vr[i] == vr)
            return (long)i;
    return pair_add(slots, owner, vr, 0);
}

typedef struct part_builder {
    pair_list slots, inputs;
    size_t *send_temp; /* signal -> temporary slot */
    size_t send_n, send_cap;
} part_builder;

static long send_signal(part_builder *b, size_t temp_slot)
{
    for (size_t i = 0; i < b->send_n; i++)
        if (b->send_temp[i] == temp_slot)
            return (long)i;
    if (b->send_n == b->send_cap) {
        size_t cap = b->send_cap ? b->send_cap * 2 : 8;
        size_t *s = realloc(b->send_temp, cap * sizeof *s);
        if (!s)
            return -1;
        b->send_temp = s;
        b->send_cap = cap;
    }
    b->send_temp[b->send_n] = temp_slot;
    return (long)b->send_n++;
}

static void builder_free(part_builder *b)
{
    pair_free(&b->slots);
    pair_free(&b->inputs);
    free(b->send_temp);
}

void rtcosim_rt_part_free(part *p)
{
    free(p->members);
    free(p->out_vrs);
    free(p->out_owner);
    free(p->slot_values);
    free(p->in_vrs);
    free(p->in_source);
    free(p->in_values);
    free(p->remote_values);
    free(p->send_slots);
    memset(p, 0, sizeof *p);
}

/* Lay the builder's lists out per member (so each component's outputs and
 * inputs are contiguous: one get and one set call per step). temp_to_slot
 * receives the final slot index of every temporary slot. */
static int part_finish(rtcosim_rt *rt, part *p, part_builder *b, bool partner,
                       size_t remote_count, size_t *temp_to_slot)
{
    size_t members = 0;
    for (size_t c = 0; c < rt->component_count; c++)
        members += rt->is_partner[c] == partner;
    p->members = calloc(members ? members : 1, sizeof *p->members);
    p->out_vrs = calloc(b->slots.n + 1, sizeof *p->out_vrs);
    p->out_owner = calloc(b->slots.n + 1, sizeof *p->out_owner);
    p->slot_values = calloc(b->slots.n + 1, sizeof *p->slot_values);
    p->in_vrs = calloc(b->inputs.n + 1, sizeof *p->in_vrs);
    p->in_source = calloc(b->inputs.n + 1, sizeof *p->in_source);
    p->in_values = calloc(b->inputs.n + 1, sizeof *p->in_values);
    p->remote_values = calloc(remote_count + 1, sizeof *p->remote_values);
    p->send_slots = calloc(b->send_n + 1, sizeof *p->send_slots);
    if (!p->members || !p->out_vrs || !p->out_owner || !p->slot_values || !p->in_vrs ||
        !p->in_source || !p->in_values || !p->remote_values || !p->send_slots)
        return -1;
    p->remote_count = remote_count;
    size_t slot = 0, input = 0;
    for (size_t c = 0; c < rt->component_count; c++) {
        if (rt->is_partner[c] != partner)
            continue;
        part_member *m = &p->members[p->member_count++];
        m->component = rt->components[c];
        m->out_first = slot;
        for (size_t i = 0; i < b->slots.n; i++)
            if (b->slots.owner[i] == c) {
                temp_to_slot[i] = slot;
                p->out_vrs[slot] = b->slots.vr[i];
                p->out_owner[slot] = c;
                slot++;
            }
        m->out_count = slot - m->out_first;
        m->in_first = input;
        for (size_t i = 0; i < b->inputs.n; i++)
            if (b->inputs.owner[i] == c) {
                p->in_vrs[input] = b->inputs.vr[i];
                p->in_source[input] = b->inputs.source[i];
                input++;
            }
        m->in_count = input - m->in_first;
    }
    p->slot_count = slot;
    p->in_count = input;
    for (size_t i = 0; i < p->in_count; i++)
        if (!(p->in_source[i] & SOURCE_REMOTE))
            p->in_source[i] = temp_to_slot[p->in_source[i]];
    p->send_count = b->send_n;
    for (size_t i = 0; i < b->send_n; i++)
        p->send_slots[i] = temp_to_slot[b->send_temp[i]];
    return 0;
}

/* "instance.variable"; just the variable's name when the components are
 * groups whose variables are named that way already (options.group_names). */
static char *join_name(const rtcosim_rt *rt, const rtcosim_component *c, const rtcosim_variable *v)
{
    if (rt->options.group_names)
        return strdup(v->name);
    const char *inst = rtcosim_rt_component_label(c);
    size_t n = strlen(inst) + strlen(v->name) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s.%s", inst, v->name);
    return s;
}

/* Find "instance.variable" among the real-time components' Float64 outputs. */
static long find_rt_output(rtcosim_rt *rt, const char *name, uint32_t *vr)
{
    for (size_t c = 0; c < rt->component_count; c++) {
        if (rt->is_partner[c])
            continue;
        if (rt->options.group_names) {
            const rtcosim_variable *v = rtcosim_component_find_variable(rt->components[c], name);
            if (v && v->type == RTCOSIM_TYPE_FLOAT64) {
                *vr = v->value_reference;
                return (long)c;
            }
            continue;
        }
        const char *inst = rtcosim_rt_component_label(rt->components[c]);
        size_t len = strlen(inst);
        if (strncmp(name, inst, len) != 0 || name[len] != '.')
            continue;
        const rtcosim_variable *v = rtcosim_component_find_variable(rt->components[c],
                                                                    name + len + 1);
        if (v && v->type == RTCOSIM_TYPE_FLOAT64) {
            *vr = v->value_reference;
            return (long)c;
        }
    }
    return -1;
}

/* Mark the components named in the comma-separated list as non-real-time. */
rtcosim_status rtcosim_rt_split_parts(rtcosim_rt *rt, const char *list, rtcosim_error *err)
{
    if (!list)
        return RTCOSIM_OK;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        bool found = false;
        for (size_t c = 0; c < rt->component_count && len; c++) {
            const char *name = rtcosim_rt_component_label(rt->components[c]);
            if (strlen(name) == len && strncmp(name, p, len) == 0) {
                rt->is_partner[c] = true;
                found = true;
            }
        }
        if (!found && len)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "real-time: non-real-time component '%.*s' is not in the "
                                     "system",
                                     (int)len, p);
        if (!comma)
            break;
        p = comma + 1;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rt_build(rtcosim_rt *rt, const rtcosim_rt_connection *conns, size_t n,
                            rtcosim_error *err)
{
    part_builder b[2] = {0}; /* 0: real-time, 1: partner */
    size_t *temp_to_slot[2] = {NULL, NULL};
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_rt_connection *c = &conns[i];
        if (c->from_component >= rt->component_count || c->to_component >= rt->component_count) {
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "real-time: connection %zu names component %zu of %zu", i + 1,
                                   c->from_component >= rt->component_count ? c->from_component
                                                                            : c->to_component,
                                   rt->component_count);
            goto done;
        }
        rtcosim_component *from = rt->components[c->from_component];
        rtcosim_component *to = rt->components[c->to_component];
        const rtcosim_variable *fv = find_by_vr(from, c->from_vr);
        const rtcosim_variable *tv = find_by_vr(to, c->to_vr);
        if (!fv || !tv) {
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                   "real-time: connection %zu: %s has no Float64 variable with "
                                   "value reference %u",
                                   i + 1, rtcosim_rt_component_label(fv ? to : from),
                                   fv ? c->to_vr : c->from_vr);
            goto done;
        }
        if (fv->causality != RTCOSIM_CAUSALITY_OUTPUT || tv->causality != RTCOSIM_CAUSALITY_INPUT) {
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "real-time: connection %s.%s -> %s.%s must go from an output "
                                   "to an input",
                                   rtcosim_rt_component_label(from), fv->name, rtcosim_rt_component_label(to), tv->name);
            goto done;
        }
        for (size_t j = 0; j < i; j++)
            if (conns[j].to_component == c->to_component && conns[j].to_vr == c->to_vr) {
                st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                       "real-time: input %s.%s is connected twice",
                                       rtcosim_rt_component_label(to), tv->name);
                goto done;
            }
        int fp = rt->is_partner[c->from_component], tp = rt->is_partner[c->to_component];
        long slot = slot_of(&b[fp].slots, c->from_component, c->from_vr);
        if (slot < 0)
            goto oom;
        size_t source = (size_t)slot;
        if (fp != tp) {
            long sig = send_signal(&b[fp], (size_t)slot);
            if (sig < 0)
                goto oom;
            source = SOURCE_REMOTE | (size_t)sig;
        }
        if (pair_add(&b[tp].inputs, c->to_component, c->to_vr, source) < 0)
            goto oom;
    }
    /* Estimator inputs that are real-time outputs are read at each exchange
     * (rt_estimators.c resolves the others, and reports the unknown). */
    long *est_temp = calloc(rt->est_name_count + 1, sizeof *est_temp);
    if (!est_temp)
        goto oom;
    for (size_t i = 0; i < rt->est_name_count; i++) {
        uint32_t vr;
        long owner = find_rt_output(rt, rt->est_names[i], &vr);
        est_temp[i] = owner < 0 ? -1 : slot_of(&b[0].slots, (size_t)owner, vr);
        if (owner >= 0 && est_temp[i] < 0) {
            free(est_temp);
            goto oom;
        }
    }
    for (int p = 0; p < 2; p++) {
        temp_to_slot[p] = calloc(b[p].slots.n + 1, sizeof(size_t));
        if (!temp_to_slot[p])
            goto oom;
    }
    if (part_finish(rt, &rt->rt_part, &b[0], false, b[1].send_n, temp_to_slot[0]) ||
        part_finish(rt, &rt->partner_part, &b[1], true, b[0].send_n, temp_to_slot[1])) {
        free(est_temp);
        goto oom;
    }
    for (size_t i = 0; i < rt->est_name_count; i++)
        if (est_temp[i] >= 0)
            rt->est_name_slot[i] = temp_to_slot[0][est_temp[i]];
    free(est_temp);
    /* Signal names: partner -> real-time first, then real-time -> partner. */
    rt->signal_count = rt->partner_part.send_count + rt->rt_part.send_count;
    rt->signal_names = calloc(rt->signal_count + 1, sizeof(char *));
    if (!rt->signal_names)
        goto oom;
    for (size_t s = 0; s < rt->signal_count; s++) {
        part *src = s < rt->partner_part.send_count ? &rt->partner_part : &rt->rt_part;
        size_t idx = s < rt->partner_part.send_count ? s : s - rt->partner_part.send_count;
        size_t slot = src->send_slots[idx];
        rtcosim_component *owner = rt->components[src->out_owner[slot]];
        rt->signal_names[s] = join_name(rt, owner, find_by_vr(owner, src->out_vrs[slot]));
        if (!rt->signal_names[s])
            goto oom;
    }
    goto done;
oom:
    st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "real-time: out of memory");
done:
    builder_free(&b[0]);
    builder_free(&b[1]);
    free(temp_to_slot[0]);
    free(temp_to_slot[1]);
    return st;
}

/* --- Part helpers used by the loop ----------------------------------------- */

rtcosim_status rtcosim_rt_part_read(part *p, rtcosim_error *err)
{
    for (size_t i = 0; i < p->member_count; i++) {
        part_member *m = &p->members[i];
        if (!m->out_count)
            continue;
        rtcosim_status st = rtcosim_component_get(m->component, RTCOSIM_TYPE_FLOAT64,
                                                  p->out_vrs + m->out_first, m->out_count,
                                                  p->slot_values + m->out_first, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rt_part_write(part *p, rtcosim_error *err)
{
    for (size_t i = 0; i < p->in_count; i++) {
        size_t s = p->in_source[i];
        p->in_values[i] = (s & SOURCE_REMOTE) ? p->remote_values[s & ~SOURCE_REMOTE]
                                              : p->slot_values[s];
    }
    for (size_t i = 0; i < p->member_count; i++) {
        part_member *m = &p->members[i];
        if (!m->in_count)
            continue;
        rtcosim_status st = rtcosim_component_set(m->component, RTCOSIM_TYPE_FLOAT64,
                                                  p->in_vrs + m->in_first, m->in_count,
                                                  p->in_values + m->in_first, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rt_part_step(part *p, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_error *err)
{
    for (size_t i = 0; i < p->member_count; i++) {
        rtcosim_status st = rtcosim_component_do_step(p->members[i].component, t, h, NULL, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}
