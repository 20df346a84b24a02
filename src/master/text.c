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

bool master_type_owned(rtcosim_type type)
{
    return type == RTCOSIM_TYPE_STRING || type == RTCOSIM_TYPE_BINARY;
}

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

/* Make slot i's own buffer hold the value at p, and the batch's value point
 * at it. */
static bool keep(typed_batch *b, rtcosim_type type, size_t i, const unsigned char *p)
{
    size_t size;
    const void *data = bytes_of(type, p, &size);
    if (!b->text) {
        b->text = calloc(b->cap ? b->cap : 1, sizeof *b->text);
        b->text_cap = calloc(b->cap ? b->cap : 1, sizeof *b->text_cap);
        if (!b->text || !b->text_cap)
            return false;
    }
    if (!b->text[i] || size > b->text_cap[i]) {
        size_t cap = size < 32 ? 32 : size + size / 2;
        char *grown = realloc(b->text[i], cap);
        if (!grown)
            return false;
        b->text[i] = grown;
        b->text_cap[i] = cap;
    }
    if (size)
        memmove(b->text[i], data, size); /* data may be this very buffer */
    unsigned char *slot = b->values + i * rtcosim_type_size(type);
    if (type == RTCOSIM_TYPE_BINARY) {
        rtcosim_binary v = {.data = (const uint8_t *)b->text[i], .size = size};
        memcpy(slot, &v, sizeof v);
    } else {
        const char *text = b->text[i];
        memcpy(slot, &text, sizeof text);
    }
    return true;
}

rtcosim_status master_text_keep_all(typed_batch *b, rtcosim_type type, const char *component,
                                    rtcosim_error *err)
{
    for (size_t i = 0; i < b->n; i++)
        if (!keep(b, type, i, b->values + i * rtcosim_type_size(type)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                     "master: out of memory keeping the %s outputs of '%s'",
                                     rtcosim_type_name(type), component);
    return RTCOSIM_OK;
}

int master_text_deliver(typed_batch *in, rtcosim_type type, size_t slot, const unsigned char *src)
{
    if (in->text && in->text[slot]) { /* delivered before: compare */
        size_t now_size, size;
        const void *now = bytes_of(type, in->values + slot * rtcosim_type_size(type), &now_size);
        const void *data = bytes_of(type, src, &size);
        if (size == now_size && (size == 0 || memcmp(now, data, size) == 0))
            return 0;
    }
    return keep(in, type, slot, src) ? 1 : -1;
}

void master_text_free(typed_batch *b)
{
    if (b->text)
        for (size_t i = 0; i < b->cap; i++)
            free(b->text[i]);
    free(b->text);
    free(b->text_cap);
    b->text = NULL;
    b->text_cap = NULL;
}
