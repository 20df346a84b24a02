/* libFuzzer target for filling in DCP log templates (src/dcp/log.c) from an
 * NTF_log's arguments, which come from the network: the first byte is the
 * template's length, then the template, then the arguments. Never a read
 * past either, the text always terminated within its buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = data[0];
    if (size < 1 + n)
        return 0;
    char *msg = malloc(n + 1);
    size_t args_size = size - 1 - n;
    uint8_t *args = malloc(args_size ? args_size : 1); /* ASan sees a read past the end */
    if (!msg || !args) {
        free(msg);
        free(args);
        return 0;
    }
    memcpy(msg, data + 1, n);
    msg[n] = '\0';
    memcpy(args, data + 1 + n, args_size);
    char out[96];
    (void)rtcosim_dcp_log_format(msg, args, args_size, out, sizeof out);
    if (strnlen(out, sizeof out) == sizeof out)
        abort();
    free(msg);
    free(args);
    return 0;
}
