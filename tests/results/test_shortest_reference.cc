// The shortest-text formatting (Dragonbox digits, src/results/shortest.cc)
// against an independent implementation: libdouble-conversion's ECMAScript
// ToShortest (Grisu3 with a bignum fallback), whose layout rules ours follows.
// Byte-identical text for random bit patterns of every exponent, the
// neighbours of powers of two and ten (asymmetric intervals, ties), subnormals
// and the extremes, doubles and floats: the CSV files stay what they were.
// (The two differ by design only for -0, inf and nan, checked by hand in
// test_format.c.)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include <double-conversion/double-to-string.h>

#include "rtcosim/results.h"

using double_conversion::DoubleToStringConverter;
using double_conversion::StringBuilder;

namespace {

unsigned long failures = 0, checked = 0;

template <typename Float> void check(Float v)
{
    if (!std::isfinite(v) || v == 0)
        return;
    char ours[RTCOSIM_FORMAT_MAX], theirs[64];
    StringBuilder builder(theirs, sizeof theirs);
    const DoubleToStringConverter &ecma = DoubleToStringConverter::EcmaScriptConverter();
    bool ok = sizeof(Float) == sizeof(float) ? ecma.ToShortestSingle((float)v, &builder)
                                             : ecma.ToShortest((double)v, &builder);
    builder.Finalize();
    size_t n = sizeof(Float) == sizeof(float) ? rtcosim_format_float((float)v, ours)
                                              : rtcosim_format_double((double)v, ours);
    checked++;
    if (!ok || n != std::strlen(ours) || std::strcmp(ours, theirs) != 0) {
        if (failures++ < 20)
            std::fprintf(stderr, "%a: ours %s, double-conversion %s\n", (double)v, ours, theirs);
    }
}

uint64_t state = 0x9E3779B97F4A7C15u;
uint64_t next_random()
{
    // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

template <typename Float, typename Bits> Float from_bits(Bits b)
{
    Float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

template <typename Float> void around(Float v)
{
    check(v);
    check(std::nextafter(v, (Float)0));
    check(std::nextafter(v, std::numeric_limits<Float>::infinity()));
}

} // namespace

int main()
{
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = next_random();
        check(from_bits<double>(r));                       // any exponent
        check(from_bits<float>((uint32_t)r));
        check(from_bits<float>((uint32_t)(r >> 32)));
        check((double)(r >> 11) * 0x1.0p-53);              // uniform in [0, 1)
        check((double)(r % 100000000) / 10000.0);          // short decimals
    }
    for (int e = -1074; e <= 1023; e++)
        around(std::ldexp(1.0, e));
    for (int e = -149; e <= 127; e++)
        around(std::ldexp(1.0f, e));
    for (int e = -323; e <= 308; e++) {
        around(std::pow(10.0, e));
        if (e >= -45 && e <= 38)
            around((float)std::pow(10.0, e));
    }
    around(std::numeric_limits<double>::max());
    around(std::numeric_limits<double>::min());
    around(std::numeric_limits<double>::denorm_min());
    around(std::numeric_limits<float>::max());
    around(std::numeric_limits<float>::min());
    around(std::numeric_limits<float>::denorm_min());
    for (int k = 1; k <= 100000; k++) { // the B1 grid and its Euler values
        check(k * 1e-4);
        check(std::pow(0.9999, k));
    }
    std::printf("%lu numbers checked, %lu differ\n", checked, failures);
    return failures == 0 && checked > 10000000 ? 0 : 1;
}
