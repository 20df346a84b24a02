/* Line ends and byte-order marks of text inputs (text.h): one pass in place,
 * shared by the DBC and CAN log readers. */
#include "util/text.h"

#include <string.h>
#include <strings.h>

size_t util_text_unify_line_ends(char *text, size_t size)
{
    size_t from = 0, to = 0;
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        from = 3;
    for (; from < size; from++) {
        char ch = text[from];
        if (ch == '\r') {
            ch = '\n';
            if (from + 1 < size && text[from + 1] == '\n')
                from++;
        }
        text[to++] = ch;
    }
    text[to] = '\0';
    return to;
}

void util_xml_put_escaped(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        /* kept through attribute-value normalization (XML 1.0 section 3.3.3) */
        case '\t': fputs("&#9;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        default: fputc(*s, f);
        }
    }
}

void util_text_one_line(char *s)
{
    size_t n = 0;
    for (char *p = s; *p; p++, n++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    while (n && s[n - 1] == ' ')
        s[--n] = '\0';
}

bool util_path_has_ending(const char *path, const char *ending)
{
    size_t n = path ? strlen(path) : 0, k = strlen(ending);
    return n > k && strcasecmp(path + n - k, ending) == 0;
}

bool util_path_is_mdf(const char *path)
{
    return util_path_has_ending(path, ".mf4") || util_path_has_ending(path, ".mdf");
}

size_t util_text_utf8_length(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    if (p[0] == 0)
        return 0;
    if (p[0] < 0x80)
        return 1;
    size_t len = p[0] >= 0xC2 && p[0] <= 0xDF   ? 2
                 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4
                                                : 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    /* the second byte's range that rules out overlong forms, surrogates
     * and code points past U+10FFFF */
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) ||
        (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] > 0x8F))
        return 0;
    return len;
}

size_t util_text_utf8_repair(const char *text, char *out, bool controls)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        size_t len = util_text_utf8_length(p);
        unsigned char c = (unsigned char)*p;
        if (len == 0 || (controls && c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
            memcpy(out + n, "\xEF\xBF\xBD", 3);
            n += 3, p++;
            continue;
        }
        memcpy(out + n, p, len);
        n += len, p += len;
    }
    out[n] = '\0';
    return n;
}
