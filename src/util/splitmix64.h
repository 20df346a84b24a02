/* splitmix64 (Steele, Lea, Flood 2014): a tiny, well-mixed, seedable 64-bit
 * generator, shared by everything that draws seeded random numbers (delay
 * injection, event-kernel stream seeding, benchmark loads) so that the same
 * seed gives the same sequence on every machine. Internal to the project. */
#ifndef RTCOSIM_UTIL_SPLITMIX64_H
#define RTCOSIM_UTIL_SPLITMIX64_H

#include <stdint.h>

static inline uint64_t util_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1) from the top 53 bits. */
static inline double util_splitmix64_uniform(uint64_t *state)
{
    return (double)(util_splitmix64(state) >> 11) * 0x1.0p-53;
}

#endif
