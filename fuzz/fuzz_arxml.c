/* libFuzzer target for the AUTOSAR 4 ARXML reader (src/can/arxml.c): any
 * bytes give a CAN database or a one-line error, never a crash, an overread
 * or a leak. Seed: the matrix of tests/can/test_arxml.c. */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/dbc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_dbc *dbc = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse_arxml((const char *)data, size, "fuzz.arxml", &dbc, &err) == RTCOSIM_OK)
        rtcosim_dbc_free(dbc);
    return 0;
}
