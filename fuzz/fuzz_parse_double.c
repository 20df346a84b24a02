/* Fuzz target for util_parse_double (fast_float, strtod for the rest):
 * any bytes up to their first NUL give strtod's verdict and bits, or the
 * target traps; no read past the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse_double.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t len = strlen(text);
    char *end = NULL;
    double want = strtod(text, &end);
    int whole = len && end == text + len;
    /* (its own copy of exactly len bytes: a read past them is ASan's) */
    char *exact = malloc(len ? len : 1);
    if (exact) {
        memcpy(exact, text, len);
        double got = 0;
        int ok = util_parse_double(exact, len, &got);
        if (ok != whole || (ok && memcmp(&got, &want, sizeof got) != 0 && !(got != got && want != want)))
            __builtin_trap();
        free(exact);
    }
    free(text);
    return 0;
}
