/* Fuzz target for the benchmarks' parser of cyclictest's output: arbitrary
 * bytes give a result or -1, without a crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>

#include "cyclictest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bench_cyclictest ct;
    (void)bench_cyclictest_parse((const char *)data, size, 1000, &ct);
    return 0;
}
