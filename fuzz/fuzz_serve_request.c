/* Fuzz target for the live view's request parser (src/serve/serve_json.c):
 * any bytes give a parsed flat object or a reason, without a crash, hang or
 * leak; what parses is NUL-terminated within its bounds, and a set request
 * that parses names a non-empty variable. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    serve_json_member members[SERVE_JSON_MAX_MEMBERS];
    size_t count = 0;
    char why[256];
    if (serve_json_parse_object((const char *)data, size, members, &count, why, sizeof why)) {
        if (count > SERVE_JSON_MAX_MEMBERS)
            abort();
        for (size_t i = 0; i < count; i++)
            if (strlen(members[i].key) >= sizeof members[i].key ||
                strlen(members[i].text) >= sizeof members[i].text)
                abort();
    } else if (!why[0]) {
        abort(); /* a refusal always says why */
    }
    char name[512];
    double value;
    if (serve_json_parse_set((const char *)data, size, name, sizeof name, &value, why, sizeof why) &&
        !name[0])
        abort();
    /* The writer escapes whatever a name holds into valid JSON text. */
    char out[4096];
    size_t len = 0;
    char text[600];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    if (serve_json_append_string(out, sizeof out, &len, text)) {
        char doc[4200];
        size_t dl = 0;
        serve_json_appendf(doc, sizeof doc, &dl, "{\"k\":%s}", out);
        if (strlen(text) == n && !serve_json_parse_object(doc, dl, members, &count, why, sizeof why) &&
            strlen(text) < SERVE_JSON_MAX_STRING)
            abort(); /* our own output reads back */
    }
    return 0;
}
