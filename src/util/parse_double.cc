/* util_parse_double (parse_double.h): fast_float's from_chars, strtod for
 * the rest. */
#include "util/parse_double.h"

#include <clocale>
#include <cstdlib>
#include <locale.h>
#include <cstring>
#include <string>
#include <system_error>

#include <fast_float/fast_float.h>

extern "C" double util_strtod_c(const char *text, char **end)
{
    static locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); /* (once, thread-safe) */
    return c_locale ? strtod_l(text, end, c_locale) : std::strtod(text, end);
}

extern "C" bool util_parse_double(const char *text, size_t len, double *out)
{
    if (len == 0)
        return false;
    double v;
    fast_float::from_chars_result r = fast_float::from_chars(text, text + len, v);
    if (r.ec == std::errc() && r.ptr == text + len) {
        *out = v;
        return true;
    }
    /* what strtod reads and from_chars does not ('+1', ' 1', '0x1p3', out
     * of range), or not a number at all: strtod decides, on a copy that ends */
    std::string copy(text, len);
    char *end = nullptr;
    v = util_strtod_c(copy.c_str(), &end);
    if (end != copy.c_str() + len)
        return false;
    *out = v;
    return true;
}
