/* Fuzz target for the parent's reading of String and Binary values a host
 * answered on the --isolate channel (src/isolate/records.c): whatever bytes
 * an FMU left there give pointers inside them (a String NUL-terminated there)
 * or a refusal, never a read past them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isolate/channel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = data[0] % 16;
    rtcosim_type type = data[0] & 0x80 ? RTCOSIM_TYPE_BINARY : RTCOSIM_TYPE_STRING;
    size_t bytes = size - 1;
    unsigned char *copy = malloc(bytes ? bytes : 1); /* exact size: ASan sees any overread */
    if (!copy)
        return 0;
    memcpy(copy, data + 1, bytes);
    rtcosim_binary values[16];
    char why[128];
    if (channel_records_unpack(copy, bytes, type, n, values, why, sizeof why)) {
        for (size_t k = 0; k < n; k++) {
            if (type == RTCOSIM_TYPE_STRING) {
                const char *s = ((const char **)values)[k];
                if (s && (const unsigned char *)s + strlen(s) >= copy + bytes)
                    abort();
            } else if (values[k].size &&
                       (values[k].data < copy || values[k].data + values[k].size > copy + bytes)) {
                abort();
            }
        }
        /* packing what was read gives records of the same values */
        size_t again = channel_records_size(type, values, n, 1 << 20);
        if (again == SIZE_MAX || again > bytes)
            abort();
    }
    free(copy);
    return 0;
}
