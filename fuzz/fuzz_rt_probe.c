/* Fuzz target for rt-check's parser of kernel CPU lists
 * (/sys/devices/system/cpu/isolated): arbitrary text gives a count or -1,
 * without a crash or hang. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    bool in;
    int n = rt_probe_cpulist_count(text, 3, &in);
    if (n == 0 && in)
        abort(); /* an empty list contains no CPU */
    free(text);
    return 0;
}
