/* util_parse_double against glibc's strtod, the truth it must equal: the
 * same verdict (a number to the end, or not) and the same bits for every
 * string here: shortest, %.17g and %g decimals of random doubles across the
 * exponent range, subnormals, and the forms strtod reads that fast_float
 * does not (a leading '+' or space, hexadecimal, out of range), words and
 * cut numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/parse_double.h"
#include "util/splitmix64.h"

static void same_as_strtod(const char *text)
{
    char *end = NULL;
    double want = strtod(text, &end);
    bool whole = *text && end && *end == '\0';
    double got = 12345.0;
    bool ok = util_parse_double(text, strlen(text), &got);
    if (ok != whole)
        fail_msg("'%s': util_parse_double says %s, strtod %s", text, ok ? "number" : "not",
                 whole ? "number" : "not");
    if (ok && memcmp(&got, &want, sizeof got) != 0 && !(isnan(got) && isnan(want)))
        fail_msg("'%s': %.17g against strtod's %.17g", text, got, want);
}

static void the_forms_agree(void **state)
{
    (void)state;
    static const char *forms[] = {
        "0", "-0", "1", "+1", " 1", "\t2.5", "1 ", "1.", ".5", "-.5e-3", "5e", "5e+", "1e400",
        "-1e400", "1e-400", "4.9406564584124654e-324", "2.2250738585072014e-308", "0x1p3",
        "0X1.8P-1", "inf", "-INF", "Infinity", "nan", "NaN", "nan(123)", "1.5x", "x1", "", "-",
        "+", ".", "e5", "1e5", "1E5", "1_000", "1,5", "--1", "0001.2500",
        "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589"
        "558632766878171540458953514382464234321326889464182768467546703537516986049910576551282"
        "076245490090389328944075868508455133942304583236903222948165808559332123348274797826204"
        "144723168738177180919299881250404026184124858368.0",
        "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
        "123456789012345678901234567890", "9007199254740993", "1.00000000000000011102230246251565"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        same_as_strtod(forms[i]);
}

static void random_decimals_agree(void **state)
{
    (void)state;
    uint64_t seed = 20261130;
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = util_splitmix64(&seed);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        static const char *formats[] = {"%.17g", "%g", "%.3e", "%.15g", "%a"};
        snprintf(buf, sizeof buf, formats[i % 5], v);
        same_as_strtod(buf);
        /* and values of everyday size */
        snprintf(buf, sizeof buf, "%.*f", (int)(bits % 12), (double)(int64_t)(bits >> 20) * 1e-6);
        same_as_strtod(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_forms_agree),
        cmocka_unit_test(random_decimals_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
