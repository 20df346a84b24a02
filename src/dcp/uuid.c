/* slave_uuid of STC_register (DCP 1.0 section 3.3.3.22): 16 bytes whose
 * string form is RFC 4122's. The bytes travel in the order the string shows
 * them (RFC 4122 section 4.1.2 puts every field most significant byte first;
 * a byte array has no little-endian form, 3.1.11 concerns numbers), which is
 * also how the reference implementation (DCPLib, convertToUUID) fills them. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "rtcosim/dcp.h"

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool rtcosim_dcp_uuid_parse(const char *text, uint8_t uuid[16])
{
    /* 8-4-4-4-12 hex digits: dashes after bytes 4, 6, 8 and 10 only. */
    if (!text || strlen(text) != 36)
        return false;
    size_t at = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            if (text[at] != '-')
                return false;
            at++;
        }
        int hi = hex_digit(text[at]), lo = hex_digit(text[at + 1]);
        if (hi < 0 || lo < 0)
            return false;
        uuid[i] = (uint8_t)(hi << 4 | lo);
        at += 2;
    }
    return true;
}

void rtcosim_dcp_uuid_format(const uint8_t uuid[16], char text[37])
{
    size_t at = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            text[at++] = '-';
        snprintf(text + at, 3, "%02x", uuid[i]);
        at += 2;
    }
    text[at] = '\0';
}

bool rtcosim_dcp_uuid_is_nil(const uint8_t uuid[16])
{
    for (int i = 0; i < 16; i++)
        if (uuid[i])
            return false;
    return true;
}

/* A fixed fingerprint of the slave's name (FNV-1a, 64 bits, spread over the
 * version 4 layout): the same name gives the same uuid in the DCPX written
 * and in the check of STC_register. */
void rtcosim_dcp_uuid_of_name(const char *name, uint8_t uuid[16])
{
    uint64_t hash = 1469598103934665603u;
    for (const char *c = name; c && *c; c++)
        hash = (hash ^ (uint8_t)*c) * 1099511628211u;
    char text[40];
    snprintf(text, sizeof text, "%08x-%04x-4%03x-8%03x-%012llx", (unsigned)(hash >> 32),
             (unsigned)(hash >> 16) & 0xFFFF, (unsigned)(hash >> 4) & 0xFFF, (unsigned)hash & 0xFFF,
             (unsigned long long)(hash & 0xFFFFFFFFFFFFull));
    rtcosim_dcp_uuid_parse(text, uuid);
}
