/* libFuzzer target for the DCP PDU decoder: any datagram must decode or be
 * refused with an error code, never read outside the input; what decodes
 * must encode again to the same bytes (fields the decoder keeps are the
 * whole PDU). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy, so that ASan catches a read one past the datagram. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    rtcosim_dcp_pdu pdu;
    uint16_t code;
    if (rtcosim_dcp_pdu_decode(copy, size, &pdu, &code, NULL) == RTCOSIM_OK) {
        static uint8_t again[RTCOSIM_DCP_MAX_PDU];
        size_t n = 0;
        if (rtcosim_dcp_pdu_encode(&pdu, again, sizeof again, &n, NULL) != RTCOSIM_OK)
            abort();
        /* Byte for byte, except network information of a protocol without
         * a known layout (kept as payload, encoded as IPv4). */
        bool network = pdu.type == RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION ||
                       pdu.type == RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION ||
                       pdu.type == RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION;
        bool ipv4 = pdu.transport_protocol == RTCOSIM_DCP_UDP_IPV4 ||
                    pdu.transport_protocol == RTCOSIM_DCP_TCP_IPV4;
        if ((!network || ipv4) && (n != size || memcmp(again, copy, size) != 0))
            abort();
        (void)rtcosim_dcp_request_allowed(pdu.state_id, pdu.type, pdu.op_mode);
    } else if (code == 0) {
        abort(); /* a refusal always names the spec's error code */
    }
    free(copy);
    return 0;
}
