/* The live view's own JSON: a strict reader for the small request bodies
 * of its API (one flat object: strings, numbers, booleans, null) and the
 * escaping of names in what it answers. Outside data: fuzzed
 * (fuzz/fuzz_serve_request.c). */
#ifndef RTCOSIM_SERVE_JSON_H
#define RTCOSIM_SERVE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_JSON_MAX_MEMBERS 8
#define SERVE_JSON_MAX_STRING 512

typedef enum serve_json_kind {
    SERVE_JSON_STRING,
    SERVE_JSON_NUMBER,
    SERVE_JSON_BOOL,
    SERVE_JSON_NULL
} serve_json_kind;

typedef struct serve_json_member {
    char key[64];
    serve_json_kind kind;
    char text[SERVE_JSON_MAX_STRING]; /* a string's value, UTF-8, NUL-terminated */
    double number;                    /* a number's value; a boolean's 0 or 1 */
} serve_json_member;

/* Parse `size` bytes (no NUL needed) as one JSON object (RFC 8259) whose
 * members are scalars: at most SERVE_JSON_MAX_MEMBERS, keys shorter than
 * 64 bytes, strings shorter than SERVE_JSON_MAX_STRING, no key twice, no
 * NUL byte in a string. Nested arrays/objects, trailing text, bad escapes,
 * numbers outside the grammar or the double range: false with the reason
 * in `why` (one line). */
bool serve_json_parse_object(const char *text, size_t size, serve_json_member *members,
                             size_t *count, char *why, size_t why_size);

/* `{"name": "...", "value": number|true|false}` of POST /api/set (no other
 * member): the name (at most name_size - 1 bytes) and the value. */
bool serve_json_parse_set(const char *text, size_t size, char *name, size_t name_size,
                          double *value, char *why, size_t why_size);

/* Append `s` as a JSON string (quotes included) to buf at *len (capacity
 * size, always NUL-terminated); false when it does not fit. */
bool serve_json_append_string(char *buf, size_t size, size_t *len, const char *s);
/* Append a number in shortest round-trip form; NaN and infinities as null. */
bool serve_json_append_number(char *buf, size_t size, size_t *len, double v);
/* Append printf-formatted text. */
bool serve_json_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
