/* String connections: the values a String batch holds are pointers, and an
 * FMU's pointers last only until its next call (FMI 2.0 section 2.1.7, FMI
 * 3.0 section 2.2.6.2; an FMI 1.0 FMU may free them at the next get). So the
 * master keeps its own copy of every String it reads (a producer's out
 * batch) and of every String it last gave a consumer (an in batch), each in
 * a buffer per slot that only grows: a run whose Strings keep their length
 * allocates nothing after the first exchange. */
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"

/* Make slot i's own buffer hold `text` (NULL reads as "", as FMI 1.0 gives
 * the empty string), and the batch's value point at it. */
static bool keep(typed_batch *b, size_t i, const char *text)
{
    if (!text)
        text = "";
    size_t need = strlen(text) + 1;
    if (!b->text) {
        b->text = calloc(b->cap ? b->cap : 1, sizeof *b->text);
        b->text_cap = calloc(b->cap ? b->cap : 1, sizeof *b->text_cap);
        if (!b->text || !b->text_cap)
            return false;
    }
    if (need > b->text_cap[i]) {
        size_t cap = need < 32 ? 32 : need + need / 2;
        char *p = realloc(b->text[i], cap);
        if (!p)
            return false;
        b->text[i] = p;
        b->text_cap[i] = cap;
    }
    memmove(b->text[i], text, need); /* text may be this very buffer */
    const char *value = b->text[i];
    memcpy(b->values + i * sizeof value, &value, sizeof value);
    return true;
}

rtcosim_status master_text_keep_all(typed_batch *b, const char *component, rtcosim_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        const char *text;
        memcpy(&text, b->values + i * sizeof text, sizeof text);
        if (!keep(b, i, text))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                     "master: out of memory keeping the String outputs of '%s'",
                                     component);
    }
    return RTCOSIM_OK;
}

int master_text_deliver(typed_batch *in, size_t slot, const char *text, bool compare)
{
    const char *now = in->text ? in->text[slot] : NULL;
    if (now && strcmp(now, text ? text : "") == 0)
        return 0;
    if (compare)
        return 1;
    return keep(in, slot, text) ? 1 : -1;
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
