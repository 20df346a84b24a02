/* libFuzzer target for the BLF reader's objects (src/can/log_blf_read.c):
 * the input, after a first byte that picks the wrapping, is a stream of
 * objects put into valid log containers (stored, or deflated here, split in
 * two at a point the second byte picks), so that mutations reach the objects
 * inside compressed containers, which whole-file fuzzing (fuzz_can_log.c)
 * rarely gets past. Any bytes give frames or a one-line error, never a
 * crash, an overread or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rtcosim/can_log.h"

static size_t put_container(uint8_t *out, const uint8_t *data, size_t n, int deflate)
{
    uLongf zn = compressBound((uLong)n);
    uint8_t *p = out + 32;
    if (deflate) {
        if (compress(p, &zn, data, (uLong)n) != Z_OK)
            return 0;
    } else {
        memcpy(p, data, n);
        zn = n;
    }
    uint32_t size = (uint32_t)(32 + zn);
    memset(out, 0, 32);
    memcpy(out, "LOBJ", 4);
    out[4] = 16, out[6] = 1;
    out[8] = (uint8_t)size, out[9] = (uint8_t)(size >> 8), out[10] = (uint8_t)(size >> 16),
    out[11] = (uint8_t)(size >> 24);
    out[12] = 10;
    out[16] = deflate ? 2 : 0;
    out[24] = (uint8_t)n, out[25] = (uint8_t)(n >> 8), out[26] = (uint8_t)(n >> 16),
    out[27] = (uint8_t)(n >> 24);
    memset(out + size, 0, size % 4);
    return size + size % 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > (1u << 20))
        return 0;
    int deflate = data[0] & 1;
    size_t n = size - 2, split = n ? data[1] % (n + 1) : 0;
    const uint8_t *objects = data + 2;
    uint8_t *file = malloc(144 + 2 * (64 + compressBound((uLong)n)));
    if (!file)
        return 0;
    memset(file, 0, 144);
    memcpy(file, "LOGG", 4);
    file[4] = 144;
    size_t len = 144;
    len += put_container(file + len, objects, split, deflate);
    len += put_container(file + len, objects + split, n - split, deflate);
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse((const char *)file, len, "fuzz.blf", &log, &err) == RTCOSIM_OK)
        rtcosim_can_log_free(log);
    free(file);
    return 0;
}
