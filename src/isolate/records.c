/* String and Binary values in the --isolate channel (channel.h): a record
 * per value, its size and its bytes. The parent unpacks what the host wrote
 * from its own copy and checks every size, since the host runs an FMU that
 * may have written anywhere in the shared mapping. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "isolate/channel.h"

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

/* The value's bytes and their count (a String's NUL included); false for a
 * NULL string. */
static bool value_bytes(rtcosim_type type, const void *values, size_t k, const void **data,
                        size_t *size)
{
    if (type == RTCOSIM_TYPE_STRING) {
        const char *s = ((const char *const *)values)[k];
        if (!s)
            return false;
        *data = s;
        *size = strlen(s) + 1;
    } else {
        const rtcosim_binary *b = &((const rtcosim_binary *)values)[k];
        *data = b->data;
        *size = b->data ? b->size : 0;
    }
    return true;
}

size_t channel_records_size(rtcosim_type type, const void *values, size_t n, size_t limit)
{
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        const void *data;
        size_t size = 0;
        if (!value_bytes(type, values, k, &data, &size))
            size = 0;
        if (size > limit) /* (so that the padding cannot overflow) */
            return SIZE_MAX;
        size_t need = 8 + pad8(size);
        if (need > limit - total) /* (total <= limit throughout) */
            return SIZE_MAX;
        total += need;
    }
    return total;
}

void channel_records_pack(unsigned char *out, rtcosim_type type, const void *values, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const void *data = NULL;
        size_t size = 0;
        uint64_t head = CHANNEL_NULL_STRING;
        if (value_bytes(type, values, k, &data, &size))
            head = size;
        memcpy(out, &head, sizeof head);
        out += 8;
        if (size)
            memcpy(out, data, size);
        memset(out + size, 0, pad8(size) - size);
        out += pad8(size);
    }
}

bool channel_records_unpack(const unsigned char *buf, size_t bytes, rtcosim_type type, size_t n,
                            void *values, char *why, size_t why_size)
{
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t size;
        if (bytes - at < 8) {
            snprintf(why, why_size, "value %zu of %zu is missing", k + 1, n);
            return false;
        }
        memcpy(&size, buf + at, sizeof size);
        at += 8;
        const unsigned char *data = buf + at;
        if (type == RTCOSIM_TYPE_STRING && size == CHANNEL_NULL_STRING) {
            ((const char **)values)[k] = NULL;
            continue;
        }
        if (size > bytes - at || pad8((size_t)size) > bytes - at) {
            snprintf(why, why_size, "value %zu of %zu claims %llu bytes, %zu are left", k + 1, n,
                     (unsigned long long)size, bytes - at);
            return false;
        }
        if (type == RTCOSIM_TYPE_STRING) {
            if (size == 0 || data[size - 1] != '\0') {
                snprintf(why, why_size, "string %zu of %zu is not terminated", k + 1, n);
                return false;
            }
            ((const char **)values)[k] = (const char *)data;
        } else {
            ((rtcosim_binary *)values)[k] =
                (rtcosim_binary){.data = size ? data : NULL, .size = (size_t)size};
        }
        at += pad8((size_t)size);
    }
    return true;
}
