// Shortest round-trip formatting of doubles with libdouble-conversion
// (Grisu3 with a bignum fallback): exact, allocation-free and several times
// faster than printf("%.17g"). Format: plain decimal for 1e-6 <= |v| < 1e21,
// else ECMAScript-style exponent form ("1e-7", "1.5e+300"); "-0" keeps its
// sign; non-finite values print as inf, -inf, nan (strtod reads them back).
#include "results/shortest.h"

#include <double-conversion/double-to-string.h>
#include <double-conversion/utils.h>

namespace {

const double_conversion::DoubleToStringConverter &converter()
{
    // Flags: '+' on positive exponents for readability; no UNIQUE_ZERO so that
    // -0.0 round-trips bit for bit. decimal_in_shortest_low/high = -6/21 as in
    // ECMAScript Number.prototype.toString.
    static const double_conversion::DoubleToStringConverter conv(
        double_conversion::DoubleToStringConverter::EMIT_POSITIVE_EXPONENT_SIGN, "inf", "nan",
        'e', -6, 21, 6, 0);
    return conv;
}

} // namespace

extern "C" size_t rtcosim_shortest_double(double value, char *buf)
{
    double_conversion::StringBuilder builder(buf, RTCOSIM_SHORTEST_MAX);
    converter().ToShortest(value, &builder);
    return (size_t)builder.position(); // the destructor writes the terminating NUL
}

extern "C" size_t rtcosim_shortest_float(float value, char *buf)
{
    double_conversion::StringBuilder builder(buf, RTCOSIM_SHORTEST_MAX);
    converter().ToShortestSingle(value, &builder);
    return (size_t)builder.position();
}
