/* libFuzzer target for the DBC reader (src/can/dbc.c): any bytes give a
 * database or a one-line error, never a crash, an overread or a leak; a
 * database read is then looked up by id and name and decoded from the
 * input's bytes (a frame as short as the input). */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/dbc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse((const char *)data, size, "fuzz.dbc", &d, &err) != RTCOSIM_OK)
        return 0;
    for (size_t i = 0; i < rtcosim_dbc_message_count(d); i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(d, i);
        /* The id and name indexes find every message. */
        if (rtcosim_dbc_find_id(d, m->id, m->extended) != m || rtcosim_dbc_find_message(d, m->name) != m)
            __builtin_trap();
        for (size_t k = 0; k < m->signal_count; k++) {
            uint8_t frame[RTCOSIM_DBC_MESSAGE_MAX] = {0};
            size_t n = size < m->dlc ? size : m->dlc;
            for (size_t b = 0; b < n; b++)
                frame[b] = data[b];
            if (rtcosim_dbc_signal_fits(&m->signals[k], n) &&
                rtcosim_dbc_signal_present(m, &m->signals[k], frame, n))
                (void)rtcosim_dbc_decode(&m->signals[k], frame, m->dlc);
            (void)rtcosim_dbc_encode(&m->signals[k], m->signals[k].maximum, frame, m->dlc, &err);
        }
    }
    rtcosim_dbc_free(d);
    return 0;
}
