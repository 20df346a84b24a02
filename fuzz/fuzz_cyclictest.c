/* Fuzz target for the benchmarks' parsers of cyclictest's output: the
 * histogram summary and the time-stamped late wake-ups (--spike lines, with
 * the machine time of the parsed stalls over a window and the attribution
 * of an event against them): arbitrary bytes give a result or -1, without a
 * crash, leak, overflow or hang. */
#include <stddef.h>
#include <stdint.h>

#include "cyclictest.h"
#include "rt_floor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bench_cyclictest ct;
    (void)bench_cyclictest_parse((const char *)data, size, 1000, &ct);
    floor_spikes s;
    if (floor_parse_spikes((const char *)data, size, &s) == 0) {
        if (s.count) {
            int64_t a = s.spike[0].expected_ns, b = s.spike[s.count - 1].expected_ns + 1000000;
            (void)floor_machine_ns(&s, a, b);
            floor_event e = {a, b, a + 1000000, FLOOR_CAUSE_WAKEUP};
            floor_tally t = {0};
            floor_tally_add(&t, &s, &e);
        }
        floor_spikes_free(&s);
    }
    return 0;
}
