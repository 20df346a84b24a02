/* Shortest round-trip decimal text for doubles and floats (the digits that
 * strtod reads back to the identical value), through Debian's
 * libdouble-conversion behind a C shim so that the rest of the library stays C. */
#ifndef RTCOSIM_RESULTS_SHORTEST_H
#define RTCOSIM_RESULTS_SHORTEST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer size either function needs: the longest text (25 characters,
 * "-2.2250738585072014e-308") plus a terminator, with room to spare. */
#define RTCOSIM_SHORTEST_MAX 32

/* Write the shortest text of value to buf (RTCOSIM_SHORTEST_MAX bytes),
 * NUL-terminate it and return its length. */
size_t rtcosim_shortest_double(double value, char *buf);
size_t rtcosim_shortest_float(float value, char *buf);

#ifdef __cplusplus
}
#endif
#endif
