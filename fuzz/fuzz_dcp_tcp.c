/* libFuzzer target for the DCP TCP/IPv4 stream framing: any byte stream is
 * split into length-prefixed frames until a length is refused or the bytes
 * run out, never reading outside the input; every whole frame goes through
 * the PDU decoder as the slave's receive loop does. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* ASan sees a read past the end */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    size_t at = 0, pdu = 0;
    int r;
    while ((r = rtcosim_dcp_tcp_frame(copy + at, size - at, RTCOSIM_DCP_MAX_PDU, &pdu)) == 1) {
        if (pdu == 0 || pdu > size - at - RTCOSIM_DCP_TCP_PREFIX)
            abort(); /* a whole frame lies inside the input */
        rtcosim_dcp_pdu p;
        uint16_t code;
        (void)rtcosim_dcp_pdu_decode(copy + at + RTCOSIM_DCP_TCP_PREFIX, pdu, &p, &code, NULL);
        at += RTCOSIM_DCP_TCP_PREFIX + pdu;
    }
    /* Waiting for more: the announced PDU must be longer than what is left. */
    if (r == 0 && size - at >= RTCOSIM_DCP_TCP_PREFIX && pdu <= size - at - RTCOSIM_DCP_TCP_PREFIX)
        abort();
    free(copy);
    return 0;
}
