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

/* A growable list of indices, each once (setup time only). */
typedef struct index_list {
    size_t *v;
    size_t n, cap;
} index_list;

/* Position of x in the list, appended when new; -1: out of memory. */
static long index_of(index_list *l, size_t x)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == x)
            return (long)i;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        size_t *grown = realloc(l->v, cap * sizeof *grown);
        if (!grown)
            return -1;
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n] = x;
    return (long)l->n++;
}

typedef struct part_builder {
    pair_list slots, inputs;
    index_list sends;    /* signal to another part -> temporary slot */
    index_list received; /* partners: value received -> hub source */
} part_builder;

static void builder_free(part_builder *b)
{
    pair_free(&b->slots);
    pair_free(&b->inputs);
    free(b->sends.v);
    free(b->received.v);
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
static int part_finish(rtcosim_rt *rt, part *p, part_builder *b, size_t which,
                       size_t remote_count, size_t *temp_to_slot)
{
    size_t members = 0;
    for (size_t c = 0; c < rt->component_count; c++)
        members += rt->part_of[c] == which;
    p->members = calloc(members ? members : 1, sizeof *p->members);
    p->out_vrs = calloc(b->slots.n + 1, sizeof *p->out_vrs);
    p->out_owner = calloc(b->slots.n + 1, sizeof *p->out_owner);
    p->slot_values = calloc(b->slots.n + 1, sizeof *p->slot_values);
    p->in_vrs = calloc(b->inputs.n + 1, sizeof *p->in_vrs);
    p->in_source = calloc(b->inputs.n + 1, sizeof *p->in_source);
    p->in_values = calloc(b->inputs.n + 1, sizeof *p->in_values);
    p->remote_values = calloc(remote_count + 1, sizeof *p->remote_values);
    p->send_slots = calloc(b->sends.n + 1, sizeof *p->send_slots);
    if (!p->members || !p->out_vrs || !p->out_owner || !p->slot_values || !p->in_vrs ||
        !p->in_source || !p->in_values || !p->remote_values || !p->send_slots)
        return -1;
    p->remote_count = remote_count;
    size_t slot = 0, input = 0;
    for (size_t c = 0; c < rt->component_count; c++) {
        if (rt->part_of[c] != which)
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
    p->send_count = b->sends.n;
    for (size_t i = 0; i < b->sends.n; i++)
        p->send_slots[i] = temp_to_slot[b->sends.v[i]];
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
        if (rt->part_of[c])
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

/* The non-real-time parts: "a,b;c" is part 1 of a and b, part 2 of c. */
rtcosim_status rtcosim_rt_split_parts(rtcosim_rt *rt, const char *list, rtcosim_error *err)
{
    size_t parts = 0;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ";");
        bool any = false;
        for (const char *q = p; q < p + len;) {
            size_t n = strcspn(q, ",;");
            if (n > (size_t)(p + len - q))
                n = (size_t)(p + len - q);
            bool found = false;
            for (size_t c = 0; c < rt->component_count && n; c++) {
                const char *name = rtcosim_rt_component_label(rt->components[c]);
                if (strlen(name) != n || strncmp(name, q, n) != 0)
                    continue;
                if (rt->part_of[c])
                    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                             "real-time: non-real-time component '%.*s' is named "
                                             "twice",
                                             (int)n, q);
                rt->part_of[c] = parts + 1;
                found = any = true;
            }
            if (!found && n)
                return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                         "real-time: non-real-time component '%.*s' is not in the "
                                         "system",
                                         (int)n, q);
            q += n + (q[n] == ',');
        }
        parts += any;
        p += len + (p[len] == ';');
    }
    rt->partner_count = parts;
    return RTCOSIM_OK;
}

/* Temporary slot of a connection's source in its part (added when new). */
static long source_slot(part_builder *b, const rtcosim_rt_connection *c)
{
    for (size_t i = 0; i < b->slots.n; i++)
        if (b->slots.owner[i] == c->from_component && b->slots.vr[i] == c->from_vr)
            return (long)i;
    return pair_add(&b->slots, c->from_component, c->from_vr, 0);
}

static rtcosim_status check_connection(rtcosim_rt *rt, const rtcosim_rt_connection *conns,
                                       size_t i, rtcosim_error *err)
{
    const rtcosim_rt_connection *c = &conns[i];
    if (c->from_component >= rt->component_count || c->to_component >= rt->component_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: connection %zu names component %zu of %zu", i + 1,
                                 c->from_component >= rt->component_count ? c->from_component
                                                                          : c->to_component,
                                 rt->component_count);
    rtcosim_component *from = rt->components[c->from_component];
    rtcosim_component *to = rt->components[c->to_component];
    const rtcosim_variable *fv = find_by_vr(from, c->from_vr);
    const rtcosim_variable *tv = find_by_vr(to, c->to_vr);
    if (!fv || !tv)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                 "real-time: connection %zu: %s has no Float64 variable with "
                                 "value reference %u",
                                 i + 1, rtcosim_rt_component_label(fv ? to : from),
                                 fv ? c->to_vr : c->from_vr);
    if (fv->causality != RTCOSIM_CAUSALITY_OUTPUT || tv->causality != RTCOSIM_CAUSALITY_INPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "real-time: connection %s.%s -> %s.%s must go from an output "
                                 "to an input",
                                 rtcosim_rt_component_label(from), fv->name,
                                 rtcosim_rt_component_label(to), tv->name);
    for (size_t j = 0; j < i; j++)
        if (conns[j].to_component == c->to_component && conns[j].to_vr == c->to_vr)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "real-time: input %s.%s is connected twice",
                                     rtcosim_rt_component_label(to), tv->name);
    return RTCOSIM_OK;
}

/* Part 0 is the real-time part, part 1 + i partner i. A signal leaving a
 * partner goes to the paced thread (a to_rt signal, numbered partner by
 * partner); a partner receives real-time outputs and other partners'
 * signals from the paced thread as they stand at the exchange. */
rtcosim_status rtcosim_rt_build(rtcosim_rt *rt, const rtcosim_rt_connection *conns, size_t n,
                                rtcosim_error *err)
{
    size_t np = rt->partner_count + 1;
    part_builder *b = calloc(np, sizeof *b);
    size_t **temp_to_slot = calloc(np, sizeof *temp_to_slot);
    size_t *sig_first = calloc(np + 1, sizeof *sig_first);
    long *est_temp = calloc(rt->est_name_count + 1, sizeof *est_temp);
    rtcosim_status st = RTCOSIM_OK;
    if (!b || !temp_to_slot || !sig_first || !est_temp)
        goto oom;
    /* Pass 1: output slots and the signals each part sends, in connection order. */
    for (size_t i = 0; i < n; i++) {
        st = check_connection(rt, conns, i, err);
        if (st != RTCOSIM_OK)
            goto done;
        size_t f = rt->part_of[conns[i].from_component], t = rt->part_of[conns[i].to_component];
        long slot = source_slot(&b[f], &conns[i]);
        if (slot < 0 || (f != t && index_of(&b[f].sends, (size_t)slot) < 0))
            goto oom;
    }
    for (size_t p = 1; p < np; p++)
        sig_first[p + 1] = sig_first[p] + b[p].sends.n;
    rt->to_rt_count = sig_first[np];
    /* Pass 2: every input's source. */
    for (size_t i = 0; i < n; i++) {
        size_t f = rt->part_of[conns[i].from_component], t = rt->part_of[conns[i].to_component];
        size_t slot = (size_t)source_slot(&b[f], &conns[i]);
        size_t source = slot;
        if (f != t) {
            size_t sig = (size_t)index_of(&b[f].sends, slot);
            size_t hub = f == 0 ? sig : SOURCE_REMOTE | (sig_first[f] + sig);
            long k = t == 0 ? (long)(hub & ~SOURCE_REMOTE) : index_of(&b[t].received, hub);
            if (k < 0)
                goto oom;
            source = SOURCE_REMOTE | (size_t)k;
        }
        if (pair_add(&b[t].inputs, conns[i].to_component, conns[i].to_vr, source) < 0)
            goto oom;
    }
    /* Estimator inputs that are real-time outputs are read at each exchange
     * (rt_estimators.c resolves the others, and reports the unknown). */
    for (size_t i = 0; i < rt->est_name_count; i++) {
        uint32_t vr;
        long owner = find_rt_output(rt, rt->est_names[i], &vr);
        rtcosim_rt_connection c = {.from_component = (size_t)owner, .from_vr = vr};
        est_temp[i] = owner < 0 ? -1 : source_slot(&b[0], &c);
        if (owner >= 0 && est_temp[i] < 0)
            goto oom;
    }
    for (size_t p = 0; p < np; p++)
        if (!(temp_to_slot[p] = calloc(b[p].slots.n + 1, sizeof(size_t))))
            goto oom;
    if (part_finish(rt, &rt->rt_part, &b[0], 0, rt->to_rt_count, temp_to_slot[0]))
        goto oom;
    for (size_t p = 1; p < np; p++) {
        rt_partner *pa = &rt->partners[p - 1];
        if (part_finish(rt, &pa->part, &b[p], p, b[p].received.n, temp_to_slot[p]))
            goto oom;
        pa->sig_first = sig_first[p];
        pa->sig_count = b[p].sends.n;
        pa->in_hub = calloc(b[p].received.n + 1, sizeof *pa->in_hub);
        if (!pa->in_hub)
            goto oom;
        if (b[p].received.n) /* a part that receives nothing has no list (NULL) */
            memcpy(pa->in_hub, b[p].received.v, b[p].received.n * sizeof *pa->in_hub);
        pa->summary.signals_to_rt = pa->sig_count;
        pa->summary.signals_to_part = b[p].received.n;
        /* Its name: its components' names joined with '+'. */
        size_t used = 0;
        for (size_t m = 0; m < pa->part.member_count; m++)
            used += (size_t)snprintf(pa->name + used, used < sizeof pa->name ? sizeof pa->name - used : 0,
                                     "%s%s", m ? "+" : "",
                                     rtcosim_rt_component_label(pa->part.members[m].component));
        snprintf(pa->summary.name, sizeof pa->summary.name, "%s", pa->name);
    }
    for (size_t i = 0; i < rt->est_name_count; i++)
        if (est_temp[i] >= 0)
            rt->est_name_slot[i] = temp_to_slot[0][est_temp[i]];
    /* Signal names: to_rt signals first (partner by partner), then the
     * real-time outputs sent to partners. */
    rt->signal_count = rt->to_rt_count + rt->rt_part.send_count;
    rt->signal_names = calloc(rt->signal_count + 1, sizeof(char *));
    if (!rt->signal_names)
        goto oom;
    for (size_t s = 0; s < rt->signal_count; s++) {
        const part *src = &rt->rt_part;
        size_t idx = s - rt->to_rt_count;
        for (size_t p = 0; s < rt->to_rt_count && p < rt->partner_count; p++)
            if (s < rt->partners[p].sig_first + rt->partners[p].sig_count) {
                src = &rt->partners[p].part;
                idx = s - rt->partners[p].sig_first;
                break;
            }
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
    for (size_t p = 0; b && p < np; p++)
        builder_free(&b[p]);
    for (size_t p = 0; temp_to_slot && p < np; p++)
        free(temp_to_slot[p]);
    free(b);
    free(temp_to_slot);
    free(sig_first);
    free(est_temp);
    return st;
}

double rtcosim_rt_hub_value(const rtcosim_rt *rt, size_t source)
{
    return (source & SOURCE_REMOTE) ? rt->rt_part.remote_values[source & ~SOURCE_REMOTE]
                                    : rt->rt_part.slot_values[rt->rt_part.send_slots[source]];
}

bool rtcosim_rt_sent_value(const rtcosim_rt *rt, size_t component, uint32_t vr, double *value)
{
    if (component >= rt->component_count || !rt->part_of[component])
        return false;
    const rt_partner *pa = &rt->partners[rt->part_of[component] - 1];
    for (size_t m = 0; m < pa->part.member_count; m++) {
        const part_member *mb = &pa->part.members[m];
        if (mb->component != rt->components[component])
            continue;
        for (size_t i = mb->in_first; i < mb->in_first + mb->in_count; i++)
            if (pa->part.in_vrs[i] == vr && (pa->part.in_source[i] & SOURCE_REMOTE)) {
                *value = pa->last_sent->values[pa->part.in_source[i] & ~SOURCE_REMOTE];
                return true;
            }
    }
    return false;
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
