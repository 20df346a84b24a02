// Shortest round-trip formatting of doubles and floats. The digits come
// from Dragonbox (Jeon 2020, a Schubfach derivative: the shortest digits that
// read back to the value, the closest to it among those, exact, no
// allocation), as Debian's libfmt 9 implements it (fmt::detail::dragonbox,
// compiled in header-only so that it inlines). It replaced libdouble-
// conversion's Grisu3 with bignum fallback, which cost about 5x more per number
// (callgrind, B1) and now serves as the test's reference: the text must be
// byte-identical to its ECMAScript ToShortest (tests/results). The text around
// the digits is laid out here. Format (ECMAScript Number.prototype.toString
// rules): plain decimal when the decimal exponent e of the first digit is in
// [-6, 21), else "d.ddde-7" / "de+21"; "-0" keeps its sign so that it
// round-trips; inf, -inf, nan for non-finite values.
#include "results/shortest.h"
#include "results/digits8.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#define FMT_HEADER_ONLY
#include <fmt/format.h>

namespace {

const int kPlainLow = -6;  // smallest decimal exponent written in plain notation
const int kPlainHigh = 21; // first decimal exponent written in exponent notation

// A word of digits8 stored so that its lowest byte comes first.
inline void store8(uint64_t w, char *p)
{
    w = rtcosim_digits8_memory_order(w);
    std::memcpy(p, &w, 8);
}

// Exactly eight digits of v (leading zeros included) at p.
inline void put8(uint32_t v, char *p)
{
    store8(rtcosim_digits8(v), p);
}

// The digits of v < 10^8 (no leading zeros) at p, which has room for
// eight; their count.
inline int put_small(uint32_t v, char *p)
{
    if (v < 10) { // the first chunk of 17 digits
        *p = (char)('0' + v);
        return 1;
    }
    uint64_t w = rtcosim_digits8(v);
    // the leading zeros: the bytes below the first digit value other than 0
    int zeros = __builtin_ctzll(w - 0x3030303030303030u) / 8;
    store8(w >> (8 * zeros), p); // (zero bytes after the digits: ignored)
    return 8 - zeros;
}

// The decimal digits of v (a significand: at most 17 digits, and less
// than 10^20) at the start of digits (room for 24); their count. In
// chunks of eight so that the divisions are by constants on 32 bits.
int put_digits(uint64_t v, char *digits)
{
    if (v < 100000000)
        return put_small((uint32_t)v, digits);
    uint64_t high = v / 100000000;
    int n;
    if (high < 100000000) {
        n = put_small((uint32_t)high, digits);
    } else {
        n = put_small((uint32_t)(high / 100000000), digits);
        put8((uint32_t)(high % 100000000), digits + n);
        n += 8;
    }
    put8((uint32_t)(v % 100000000), digits + n);
    return n + 8;
}

template <typename Float> size_t shortest(Float value, char *buf)
{
    size_t n = 0;
    if (std::isnan(value)) {
        std::memcpy(buf, "nan", 4);
        return 3;
    }
    if (std::signbit(value))
        buf[n++] = '-';
    if (std::isinf(value)) {
        std::memcpy(buf + n, "inf", 4);
        return n + 3;
    }
    // value = 0.d1 d2 ... d_len * 10^point; 0 gives "0" with point 1.
    // The text is laid out in `out` by copies of fixed sizes (no calls for
    // short variable lengths: what lies past the length is overwritten or
    // ignored), then its 32 bytes, the terminator among them, go to buf.
    char digits[32];
    int len = 1, point = 1;
    if (value == 0) {
        digits[0] = '0';
    } else {
        // significand * 10^exponent, the significand without trailing zeros
        auto decimal = fmt::detail::dragonbox::to_decimal(value);
        len = put_digits(decimal.significand, digits);
        point = len + decimal.exponent;
    }
    int exponent = point - 1;
    char out[64];
    out[0] = '-';
    char *p = out + n;
    if (exponent >= kPlainLow && exponent < kPlainHigh) {
        if (point <= 0) { // 0.000ddd, at most five zeros
            std::memcpy(p, "0.000000", 8);
            p += 2 - point;
            std::memcpy(p, digits, 24);
            p += len;
        } else if (point >= len) { // ddd000, at most 21 digits
            std::memcpy(p, digits, 24);
            p += len;
            if (point > len) {
                std::memset(p, '0', 24);
                p += point - len;
            }
        } else { // dd.ddd, point < len <= 17
            std::memcpy(p, digits, 16);
            p[point] = '.';
            std::memcpy(p + point + 1, digits + point, 16);
            p += len + 1;
        }
        *p = '\0';
        std::memcpy(buf, out, RTCOSIM_SHORTEST_MAX);
        return (size_t)(p - out);
    }
    p = buf + n;
    {
        *p++ = digits[0];
        if (len > 1) { // (16 bytes copied whatever len: at most 17 digits, buf has 32)
            *p++ = '.';
            std::memcpy(p, digits + 1, 16);
            p += len - 1;
        }
        *p++ = 'e';
        *p++ = exponent < 0 ? '-' : '+';
        int magnitude = exponent < 0 ? -exponent : exponent; // at most 324
        if (magnitude >= 100)
            *p++ = (char)('0' + magnitude / 100);
        if (magnitude >= 10)
            *p++ = (char)('0' + magnitude / 10 % 10);
        *p++ = (char)('0' + magnitude % 10);
    }
    *p = '\0';
    return (size_t)(p - buf);
}

} // namespace

extern "C" size_t rtcosim_shortest_double(double value, char *buf)
{
    return shortest(value, buf);
}

extern "C" size_t rtcosim_shortest_float(float value, char *buf)
{
    return shortest(value, buf);
}
