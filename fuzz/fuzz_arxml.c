/* libFuzzer target for the AUTOSAR 4 ARXML reader (src/can/arxml.c): any
 * bytes give a CAN database or a one-line error, never a crash, an overread
 * or a leak. A database read is then looked up by id and name (a contained
 * PDU by name only) and every message decoded from the input's first bytes
 * as a frame: a container frame walked header by header
 * (rtcosim_dbc_container_next), every part's signals that are present
 * decoded. Seeds: the matrices of tests/can/test_arxml.c. */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/dbc.h"

static void decode_all(const rtcosim_dbc_message *m, const uint8_t *frame, size_t n)
{
    for (size_t k = 0; k < m->signal_count; k++)
        if (rtcosim_dbc_signal_fits(&m->signals[k], n) &&
            rtcosim_dbc_signal_present(m, &m->signals[k], frame, n))
            (void)rtcosim_dbc_decode(&m->signals[k], frame, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_dbc *dbc = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse_arxml((const char *)data, size, "fuzz.arxml", &dbc, &err) != RTCOSIM_OK)
        return 0;
    uint8_t frame[64] = {0};
    size_t n = size < sizeof frame ? size : sizeof frame;
    for (size_t b = 0; b < n; b++)
        frame[b] = data[b];
    for (size_t i = 0; i < rtcosim_dbc_message_count(dbc); i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(dbc, i);
        if (rtcosim_dbc_find_message(dbc, m->name) != m ||
            (rtcosim_dbc_find_id(dbc, m->id, m->extended) == m) == (m->contained_in != NULL))
            __builtin_trap();
        size_t len = n < m->dlc ? n : m->dlc;
        if (!m->header_bytes) {
            decode_all(m, frame, len);
            continue;
        }
        size_t offset = 0, parts = 0;
        rtcosim_dbc_container_part part;
        while (rtcosim_dbc_container_next(dbc, m, frame, len, &offset, &part) == 1) {
            if (offset > len || part.data + part.size > frame + len || ++parts > len)
                __builtin_trap(); /* every part inside the frame, and progress made */
            if (part.pdu)
                decode_all(part.pdu, part.data, part.size);
        }
    }
    rtcosim_dbc_free(dbc);
    return 0;
}
