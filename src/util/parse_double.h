/* Decimal numbers read fast: util_parse_double takes what strtod takes, with
 * strtod's correctly rounded value, about five times faster for the decimal
 * numbers results files hold (fast_float, Debian's libfast-float-dev;
 * anything it does not read whole, such as a leading '+' or hexadecimal,
 * goes to strtod_l in the C locale): the same whatever locale the host
 * program (a Python session, a GUI) has set. */
#ifndef RTCOSIM_UTIL_PARSE_DOUBLE_H
#define RTCOSIM_UTIL_PARSE_DOUBLE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether strtod reads text[0 .. len) as one number to its end (leading
 * space allowed, as strtod skips it), and then its value in *out. */
bool util_parse_double(const char *text, size_t len, double *out);
/* strtod in the C locale (strtod_l), whatever locale the program set. */
double util_strtod_c(const char *text, char **end);

#ifdef __cplusplus
}
#endif
#endif
