/* `rtcosim bench isolate`: the cost of hosting an FMU out of process
 * (--isolate): the round trip of an empty request from rtcosim to its
 * host child and back over the shared-memory channel (futex handshake, both
 * sides spinning briefly before sleeping). Target: median < 5 us. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "rtcosim/isolate.h"

static int run(int argc, char **argv)
{
    size_t iterations = 100000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
            unsigned long n;
            if (!bench_parse_count(argv[++i], 1, 100000000, &n)) {
                fprintf(stderr, "rtcosim: bench isolate: --iterations must be a whole number"
                        " from 1 to 100000000, not '%s'\n", argv[i]);
                return 2;
            }
            iterations = (size_t)n;
        } else {
            fprintf(stderr, "usage: rtcosim bench isolate [--iterations N]\n");
            return 2;
        }
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "rtcosim: bench isolate: cannot find the rtcosim executable\n");
        return 1;
    }
    exe[n] = '\0';
    double median = 0, p99 = 0;
    rtcosim_error err;
    if (rtcosim_isolate_roundtrip(exe, iterations, &median, &p99, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: bench isolate: %s\n", err.message);
        return 1;
    }
    printf("isolate: %zu empty requests to the host child and back\n", iterations);
    printf("  round trip median %.2f us, p99 %.2f us (target: median < 5 us)\n", median, p99);
    bench_figure("isolate.roundtrip_us", median, "us");
    bench_figure("isolate.roundtrip_p99_us", p99, "us");
    return 0;
}

const rtcosim_bench rtcosim_bench_isolate = {
    "isolate", "round trip to an FMU host child process (--isolate)", run};
