/* Fuzz target for the real-time layer's text inputs: the characteristic map
 * CSV (looked up at its breakpoints and outside them) and the option strings
 * (estimator spec, per signal too, exchange pattern, overrun policy). Arbitrary bytes must give
 * a value or a clean error: no crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/estimate.h"
#include "rtcosim/realtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_error err;
    rtcosim_map *map = NULL;
    if (rtcosim_map_parse_csv((const char *)data, size, "fuzz.csv", &map, &err) == RTCOSIM_OK) {
        const double probes[] = {-1e300, -1, 0, 0.5, 1, 1e300, __builtin_nan("")};
        for (size_t i = 0; i < 7; i++)
            for (size_t j = 0; j < 7; j++) {
                double in[2] = {probes[i], probes[j]}, out;
                rtcosim_map_lookup(map, in, RTCOSIM_MAP_RANGE_CLAMP, &out, NULL, NULL);
                rtcosim_map_lookup(map, in, RTCOSIM_MAP_RANGE_ERROR, &out, NULL, &err);
            }
        rtcosim_map_free(map);
    }
    /* The same bytes as option strings (NUL-terminated copy). */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    rtcosim_estimator_spec spec;
    rtcosim_estimator_spec_parse(text, &spec, &err);
    /* "SIGNAL=SPEC" (--estimator per signal) and a linear spec's estimator. */
    rtcosim_rt_signal_estimator se;
    bool per_signal;
    if (rtcosim_rt_signal_estimator_parse(text, &se, &per_signal, &err) == RTCOSIM_OK &&
        se.spec.kind != RTCOSIM_ESTIMATOR_MAP) {
        rtcosim_estimator *e = NULL;
        if (rtcosim_estimator_create("fuzz", &se.spec, 4, &e, &err) == RTCOSIM_OK) {
            double in[RTCOSIM_ESTIMATOR_LINEAR_MAX] = {1, -2, 3, 0, 5, 1e300, -1, 2}, v;
            rtcosim_estimator_fit(e, in, 1.5);
            rtcosim_estimator_estimate(e, 1000, 0, 1000, in, &v, NULL);
            rtcosim_estimator_resolve(e, 1000, 2.5, NULL);
            rtcosim_estimator_free(e);
        }
    }
    rtcosim_exchange_pattern pattern;
    rtcosim_exchange_pattern_parse(text, &pattern, &err);
    rtcosim_overrun_policy policy;
    rtcosim_overrun_policy_parse(text, &policy, &err);
    rtcosim_rt_options options;
    rtcosim_rt_options_init(&options);
    rtcosim_rt_option_set(&options, "estimator", text, &err);
    rtcosim_rt_option_set(&options, "step", text, &err);
    free(text);
    return 0;
}
