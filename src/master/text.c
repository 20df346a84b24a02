/* String and Binary connections: the values such a batch holds point into
 * memory of the FMU's, which lasts only until its next call (FMI 2.0 section
 * 2.1.7, FMI 3.0 section 2.2.6.2; an FMI 1.0 FMU may free it at the next
 * get). So the master keeps its own copy of every value it reads (a
 * producer's out batch) and of every value it last gave a consumer (an in
 * batch), each in a buffer per slot that only grows: a run whose values keep
 * their length allocates nothing after the first exchange. */
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"

/* The bytes of the value at p (a String: with its NUL; NULL reads as "", as
 * FMI 1.0 gives the empty string). */
static const void *bytes_of(rtcosim_type type, const unsigned char *p, size_t *size)
{
    if (type == RTCOSIM_TYPE_BINARY) {
        rtcosim_binary v;
        memcpy(&v, p, sizeof v);
        *size = v.size;
        return v.size ? v.data : NULL;
    }
    const char *text;
    memcpy(&text, p, sizeof text);
    if (!text)
        text = "";
    *size = strlen(text) + 1;
    return text;
}

/* Make slot i's own buffer (in o) hold the value at p, and batch b's value
 * point at it. */
static bool keep(typed_batch *b, owned_values *o, rtcosim_type type, size_t i,
                 const unsigned char *p)
{
    size_t size;
    const void *data = bytes_of(type, p, &size);
    if (!o->buf) {
        o->buf = calloc(b->cap ? b->cap : 1, sizeof *o->buf);
        o->cap = calloc(b->cap ? b->cap : 1, sizeof *o->cap);
        if (!o->buf || !o->cap)
            return false;
    }
    if (!o->buf[i] || size > o->cap[i]) {
        size_t cap = size < 32 ? 32 : size + size / 2;
        char *grown = realloc(o->buf[i], cap);
        if (!grown)
            return false;
        o->buf[i] = grown;
        o->cap[i] = cap;
    }
    if (size) /* (a value the FMU or the producer's copy holds, never this buffer) */
        memcpy(o->buf[i], data, size);
    unsigned char *slot = b->values + i * rtcosim_type_size(type);
    if (type == RTCOSIM_TYPE_BINARY) {
        rtcosim_binary v = {.data = (const uint8_t *)o->buf[i], .size = size};
        memcpy(slot, &v, sizeof v);
    } else {
        const char *text = o->buf[i];
        memcpy(slot, &text, sizeof text);
    }
    return true;
}

static size_t which(rtcosim_type type) { return type == RTCOSIM_TYPE_BINARY; }

static bool have_owned(master_component *mc)
{
    return mc->owned || (mc->owned = calloc(1, sizeof *mc->owned)) != NULL;
}

rtcosim_status master_text_keep_all(master_component *mc, rtcosim_type type, rtcosim_error *err)
{
    typed_batch *b = &mc->out[type];
    for (size_t i = 0; i < b->n; i++)
        if (!have_owned(mc) ||
            !keep(b, &mc->owned->out[which(type)], type, i, b->values + i * rtcosim_type_size(type)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                     "master: out of memory keeping the %s outputs of '%s'",
                                     rtcosim_type_name(type), mc->name);
    return RTCOSIM_OK;
}

int master_text_deliver(master_component *mc, rtcosim_type type, size_t slot,
                        const unsigned char *src)
{
    if (!have_owned(mc))
        return -1;
    typed_batch *in = &mc->in[type];
    owned_values *o = &mc->owned->in[which(type)];
    if (o->buf && o->buf[slot]) { /* delivered before: compare */
        size_t now_size, size;
        const void *now = bytes_of(type, in->values + slot * rtcosim_type_size(type), &now_size);
        const void *data = bytes_of(type, src, &size);
        if (size == now_size && (size == 0 || memcmp(now, data, size) == 0))
            return 0;
    }
    return keep(in, o, type, slot, src) ? 1 : -1;
}

static void drop(owned_values *o, size_t n)
{
    if (o->buf)
        for (size_t i = 0; i < n; i++)
            free(o->buf[i]);
    free(o->buf);
    free(o->cap);
    o->buf = NULL;
    o->cap = NULL;
}

void master_text_free(master_component *mc)
{
    static const rtcosim_type owned[2] = {RTCOSIM_TYPE_STRING, RTCOSIM_TYPE_BINARY};
    for (size_t k = 0; mc->owned && k < 2; k++) {
        drop(&mc->owned->out[k], mc->out[owned[k]].cap);
        drop(&mc->owned->in[k], mc->in[owned[k]].cap);
    }
    free(mc->owned);
    mc->owned = NULL;
}
