/* FMI 1.0 String values copied out of the FMU: the standard does not promise
 * that a pointer fmiGetString returns outlives the next call into the FMU (an
 * FMU may reuse or free the buffer), and some FMUs return NULL for "". Each
 * String variable gets one buffer of rtcosim's own, made at load time and
 * grown only when a longer value comes, so that reading strings allocates
 * nothing per step. */
#include <stdlib.h>
#include <string.h>

#include "fmi/fmi1_internal.h"

/* Room kept for a value at load time, so that short values never grow it. */
enum { INITIAL_STRING_CAPACITY = 64 };

static int compare_slot(const void *a, const void *b)
{
    uint32_t x = ((const rtcosim_fmi1_string *)a)->vr, y = ((const rtcosim_fmi1_string *)b)->vr;
    return x < y ? -1 : x > y;
}

rtcosim_status rtcosim_fmi1_strings_prepare(rtcosim_fmu *f, rtcosim_error *err)
{
    rtcosim_fmi1 *x = f->fmi1x;
    const rtcosim_fmi_md *md = f->md;
    size_t n = 0;
    for (size_t i = 0; i < md->variable_count; i++)
        n += md->variables[i].type == RTCOSIM_TYPE_STRING;
    if (n == 0)
        return RTCOSIM_OK;
    x->strings = calloc(n, sizeof *x->strings);
    x->string_args = calloc(f->scratch_count, sizeof *x->string_args);
    if (!x->strings || !x->string_args)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    size_t k = 0;
    for (size_t i = 0; i < md->variable_count; i++)
        if (md->variables[i].type == RTCOSIM_TYPE_STRING)
            x->strings[k++].vr = md->variables[i].value_reference;
    qsort(x->strings, n, sizeof *x->strings, compare_slot);
    /* Aliases share a reference, and so one buffer. */
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || x->strings[unique - 1].vr != x->strings[i].vr)
            x->strings[unique++] = x->strings[i];
    x->string_count = unique;
    for (size_t i = 0; i < unique; i++) {
        x->strings[i].text = calloc(INITIAL_STRING_CAPACITY, 1);
        if (!x->strings[i].text)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
        x->strings[i].capacity = INITIAL_STRING_CAPACITY;
    }
    return RTCOSIM_OK;
}

void rtcosim_fmi1_strings_free(rtcosim_fmi1 *x)
{
    for (size_t i = 0; i < x->string_count; i++)
        free(x->strings[i].text);
    free(x->strings);
    free(x->string_args);
    x->strings = NULL;
    x->string_args = NULL;
    x->string_count = 0;
}

static rtcosim_fmi1_string *slot_of(rtcosim_fmi1 *x, uint32_t vr)
{
    size_t lo = 0, hi = x->string_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->strings[mid].vr < vr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->string_count && x->strings[lo].vr == vr ? &x->strings[lo] : NULL;
}

bool rtcosim_fmi1_strings_keep(rtcosim_fmi1 *x, const uint32_t *vrs, size_t n, const char **values)
{
    for (size_t i = 0; i < n; i++) {
        const char *text = values[i] ? values[i] : "";
        rtcosim_fmi1_string *slot = slot_of(x, vrs[i]);
        if (!slot) { /* not a String variable of the description: no copy to keep */
            values[i] = "";
            continue;
        }
        size_t len = strlen(text);
        if (len >= slot->capacity) {
            size_t capacity = slot->capacity;
            while (len >= capacity)
                capacity *= 2;
            char *grown = malloc(capacity); /* not realloc: text may point into the old one */
            if (!grown) {
                values[i] = slot->text;
                return false;
            }
            memcpy(grown, text, len + 1);
            free(slot->text);
            slot->text = grown;
            slot->capacity = capacity;
        } else if (text != slot->text) {
            memmove(slot->text, text, len + 1);
        }
        values[i] = slot->text;
    }
    return true;
}

const char *const *rtcosim_fmi1_strings_args(rtcosim_fmi1 *x, const char *const *values, size_t n)
{
    bool any_null = false;
    for (size_t i = 0; i < n && !any_null; i++)
        any_null = values[i] == NULL;
    if (!any_null || !x->string_args)
        return values;
    for (size_t i = 0; i < n; i++)
        x->string_args[i] = values[i] ? values[i] : "";
    return x->string_args;
}
