/* Inputs of a model-exchange FMU. In Continuous-Time Mode only continuous
 * inputs may be set (FMI 2.0 section 3.2.3, FMI 3.0 section 3.2.3: the
 * Reference FMUs refuse a discrete one: "can only be set ... in event
 * mode"); a discrete input or tunable parameter changes at an event. So
 * when a set in Continuous-Time Mode changes a discrete value (against the
 * value last set, which is kept) the integrator opens an input event: the
 * observer's row before, Event Mode, the set. Further sets at that instant
 * (the inputs of other types) join it; the next call that needs the values
 * after it (a get, a step, a snapshot, terminate) closes it: the event
 * iteration, Continuous-Time Mode, the observer's row after. That is one
 * event for all inputs that change at one time, as fmusim handles an input
 * event. Setting an unchanged discrete value is no event (importers set
 * every input at every step): only the continuous variables of it are set. */
#include <stdlib.h>
#include <string.h>

#include "fmi/me_internal.h"

typedef struct me_discrete {
    uint64_t key; /* type << 32 | value reference */
    bool known;   /* value holds what was last set */
    union {
        unsigned char bytes[8]; /* numbers and Booleans, as the set passed them */
        char *s;                /* own copy */
        struct {
            uint8_t *data;      /* own copy */
            size_t size;
        } bin;
    } value;
} me_discrete;

static uint64_t key_of(rtcosim_type type, uint32_t vr) { return (uint64_t)type << 32 | vr; }

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const me_discrete *)a)->key, y = ((const me_discrete *)b)->key;
    return x < y ? -1 : x > y;
}

static me_discrete *find(struct rtcosim_me *me, rtcosim_type type, uint32_t vr)
{
    me_discrete probe = {.key = key_of(type, vr)};
    return bsearch(&probe, me->discrete, me->discrete_count, sizeof probe, by_key);
}

rtcosim_status me_inputs_init(struct rtcosim_me *me, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = me->f->md;
    if (md->variable_count == 0)
        return RTCOSIM_OK;
    if (!(me->discrete = calloc(md->variable_count, sizeof *me->discrete)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me->f->archive_path);
    size_t n = 0;
    for (size_t i = 0; i < md->variable_count; i++) {
        const rtcosim_variable *v = &md->variables[i];
        bool discrete_input = v->causality == RTCOSIM_CAUSALITY_INPUT &&
                              v->variability != RTCOSIM_VARIABILITY_CONTINUOUS;
        bool tunable = v->causality == RTCOSIM_CAUSALITY_PARAMETER &&
                       v->variability == RTCOSIM_VARIABILITY_TUNABLE;
        if ((discrete_input || tunable) && v->type != RTCOSIM_TYPE_CLOCK)
            me->discrete[n++] = (me_discrete){.key = key_of(v->type, v->value_reference)};
    }
    qsort(me->discrete, n, sizeof *me->discrete, by_key);
    /* Aliases share a reference: one entry each. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || me->discrete[kept - 1].key != me->discrete[i].key)
            me->discrete[kept++] = me->discrete[i];
    me->discrete_count = kept;
    return RTCOSIM_OK;
}

static rtcosim_status remember(struct rtcosim_me *me, rtcosim_type type, me_discrete *d,
                               const void *slot, size_t size, rtcosim_error *err);

static void drop_value(rtcosim_type type, me_discrete *d)
{
    if (d->known && type == RTCOSIM_TYPE_STRING)
        free(d->value.s);
    else if (d->known && type == RTCOSIM_TYPE_BINARY)
        free(d->value.bin.data);
    d->known = false;
}

void me_inputs_forget(struct rtcosim_me *me)
{
    for (size_t i = 0; i < me->discrete_count; i++)
        drop_value((rtcosim_type)(me->discrete[i].key >> 32), &me->discrete[i]);
}

void me_inputs_reload(struct rtcosim_me *me)
{
    for (size_t i = 0; i < me->discrete_count; i++) {
        me_discrete *d = &me->discrete[i];
        rtcosim_type type = (rtcosim_type)(d->key >> 32);
        uint32_t vr = (uint32_t)d->key;
        drop_value(type, d);
        union {
            unsigned char bytes[8];
            const char *s;
            rtcosim_binary bin;
        } slot;
        memset(&slot, 0, sizeof slot);
        rtcosim_error ignored;
        if (me->base.get(me->f, type, &vr, 1, &slot, &ignored) == RTCOSIM_OK)
            (void)remember(me, type, d, &slot, rtcosim_type_size(type), &ignored);
    }
}

void me_inputs_free(struct rtcosim_me *me)
{
    me_inputs_forget(me);
    free(me->discrete);
    free(me->split_vrs);
    free(me->split_entries);
    free(me->split_values);
}

/* Whether the value differs from the one last set (or none is known). */
static bool differs(rtcosim_type type, const me_discrete *d, const void *slot, size_t size)
{
    if (!d->known)
        return true;
    if (type == RTCOSIM_TYPE_STRING) {
        const char *s = *(const char *const *)slot;
        return strcmp(d->value.s, s ? s : "") != 0;
    }
    if (type == RTCOSIM_TYPE_BINARY) {
        const rtcosim_binary *b = slot;
        return b->size != d->value.bin.size ||
               (b->size && memcmp(b->data, d->value.bin.data, b->size) != 0);
    }
    return memcmp(d->value.bytes, slot, size) != 0;
}

/* Keep the value set. Strings and binaries are copied (only when they
 * changed, i.e. at events). */
static rtcosim_status remember(struct rtcosim_me *me, rtcosim_type type, me_discrete *d,
                               const void *slot, size_t size, rtcosim_error *err)
{
    if (!differs(type, d, slot, size))
        return RTCOSIM_OK;
    drop_value(type, d);
    if (type == RTCOSIM_TYPE_STRING) {
        const char *s = *(const char *const *)slot;
        if (!(d->value.s = strdup(s ? s : "")))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me_who(me));
    } else if (type == RTCOSIM_TYPE_BINARY) {
        const rtcosim_binary *b = slot;
        d->value.bin.size = b->size;
        d->value.bin.data = malloc(b->size ? b->size : 1);
        if (!d->value.bin.data)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me_who(me));
        if (b->size)
            memcpy(d->value.bin.data, b->data, b->size);
    } else {
        memcpy(d->value.bytes, slot, size);
    }
    d->known = true;
    return RTCOSIM_OK;
}

static rtcosim_status reserve_split(struct rtcosim_me *me, size_t n, rtcosim_error *err)
{
    if (n <= me->split_capacity)
        return RTCOSIM_OK;
    uint32_t *vrs = realloc(me->split_vrs, n * sizeof *vrs);
    if (vrs)
        me->split_vrs = vrs;
    me_discrete **entries = vrs ? realloc(me->split_entries, n * sizeof *entries) : NULL;
    if (entries)
        me->split_entries = entries;
    /* Room for n values of the widest type (Binary). */
    unsigned char *values = entries ? realloc(me->split_values, n * sizeof(rtcosim_binary)) : NULL;
    if (!values)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", me_who(me));
    me->split_values = values;
    me->split_capacity = n;
    return RTCOSIM_OK;
}

/* Set the variables of vrs that are not discrete (no entry in d). */
static rtcosim_status set_continuous(struct rtcosim_me *me, rtcosim_type type,
                                     const uint32_t *vrs, size_t n, const unsigned char *values,
                                     size_t size, me_discrete *const *d, rtcosim_error *err)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i])
            continue;
        me->split_vrs[m] = vrs[i];
        memcpy(me->split_values + m * size, values + i * size, size);
        m++;
    }
    if (m == 0)
        return RTCOSIM_OK;
    return me->base.set(me->f, type, me->split_vrs, m, me->split_values, err);
}

/* A discrete value changed: open the event at the current time. */
static rtcosim_status open_input_event(struct rtcosim_me *me, rtcosim_error *err)
{
    rtcosim_status st = me_begin_event(me, &me->stats.input_events, err);
    me->input_event_open = st == RTCOSIM_OK;
    return st;
}

rtcosim_status rtcosim_fmu_me_enter_input_event(rtcosim_component *c, rtcosim_error *err)
{
    struct rtcosim_me *me = me_of(c, err);
    if (!me)
        return RTCOSIM_EINVAL;
    if (!me->in_continuous_time || me->input_event_open)
        return RTCOSIM_OK;
    return open_input_event(me, err);
}

rtcosim_status me_close_input_event(struct rtcosim_me *me, rtcosim_error *err)
{
    if (!me->input_event_open)
        return RTCOSIM_OK;
    me->input_event_open = false;
    return me_end_event(me, err);
}

/* Set and keep the values of the discrete ones among them. */
static rtcosim_status set_all(struct rtcosim_me *me, rtcosim_type type, const uint32_t *vrs,
                              size_t n, const void *values, rtcosim_error *err)
{
    rtcosim_status st = me->base.set(me->f, type, vrs, n, values, err);
    const size_t size = rtcosim_type_size(type);
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        me_discrete *d = find(me, type, vrs[i]);
        if (d)
            st = remember(me, type, d, (const unsigned char *)values + i * size, size, err);
    }
    return st;
}

rtcosim_status me_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                      const void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    rtcosim_status st;
    if (me->discrete_count == 0) {
        st = me->base.set(self, type, vrs, n, values, err);
    } else if (!me->in_continuous_time || me->input_event_open) {
        /* Initialization or an open event: any variable may be set. */
        st = set_all(me, type, vrs, n, values, err);
    } else {
        /* Which variables are discrete, and whether one changed. */
        const size_t size = rtcosim_type_size(type);
        const unsigned char *bytes = values;
        if ((st = reserve_split(me, n, err)) != RTCOSIM_OK)
            return st;
        me_discrete **d = me->split_entries;
        bool any_discrete = false, changed = false;
        for (size_t i = 0; i < n; i++) {
            d[i] = find(me, type, vrs[i]);
            any_discrete |= d[i] != NULL;
            changed |= d[i] && differs(type, d[i], bytes + i * size, size);
        }
        if (!any_discrete)
            st = me->base.set(self, type, vrs, n, values, err);
        else if (changed)
            st = (st = open_input_event(me, err)) == RTCOSIM_OK
                     ? set_all(me, type, vrs, n, values, err)
                     : st;
        else /* only the continuous ones; the unchanged discrete ones stand */
            st = set_continuous(me, type, vrs, n, bytes, size, d, err);
    }
    if (st == RTCOSIM_OK && !me->in_input_source)
        me->needs_reinit = true;
    return st;
}

/* Calls that need the values after an open input event close it first. */
rtcosim_status me_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n, void *values,
                      rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    rtcosim_status st = me_close_input_event(me, err);
    return st == RTCOSIM_OK ? me->base.get(self, type, vrs, n, values, err) : st;
}

rtcosim_status me_terminate(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    struct rtcosim_me *me = f->me;
    rtcosim_status st = me_close_input_event(me, err);
    me->in_continuous_time = false;
    return st == RTCOSIM_OK ? me->base.terminate(self, err) : st;
}
