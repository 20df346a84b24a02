/* Eight decimal digits at once, for the results' number formatting
 * (format.c, shortest.cc). Not public. */
#ifndef RTCOSIM_RESULTS_DIGITS8_H
#define RTCOSIM_RESULTS_DIGITS8_H

#include <stdint.h>

/* The eight digits of v < 10^8 (leading zeros included) as text in one
 * word, the first digit in its lowest byte: v split into two halves of four
 * digits, each half into two pairs, each pair into two digits, all lanes at
 * once by multiplying with a reciprocal (h * 10486 >> 20 is h / 100 for
 * h < 10^4, g * 103 >> 10 is g / 10 for g < 100), then '0' added to each
 * byte: about a third of the instructions of four two-digit table lookups,
 * and nothing stored to be read back. */
static inline uint64_t rtcosim_digits8(uint32_t v)
{
    uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32;
    uint64_t hundreds = (x * 10486) >> 20 & 0x0000007F0000007Fu;
    x = hundreds | (x - hundreds * 100) << 16;
    uint64_t tens = (x * 103) >> 10 & 0x000F000F000F000Fu;
    x = tens | (x - tens * 10) << 8;
    return x | 0x3030303030303030u;
}

/* A word's bytes in memory order, its lowest byte first. */
static inline uint64_t rtcosim_digits8_memory_order(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

#endif
