/* Stored-entry zip writer for archives libzip will not write (see raw_zip.h). */
#include "util/raw_zip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CRC-32 of APPNOTE 4.4.7 (reflected polynomial 0xEDB88320), bit by bit. */
static uint32_t crc32_of(const unsigned char *data, size_t size)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put16(FILE *f, unsigned v)
{
    fputc((int)(v & 0xFF), f);
    fputc((int)((v >> 8) & 0xFF), f);
}

static void put32(FILE *f, uint32_t v)
{
    put16(f, v & 0xFFFF);
    put16(f, v >> 16);
}

/* The fields local and central headers share (APPNOTE 4.3.7 / 4.3.12). */
static void put_common(FILE *f, uint32_t crc, uint32_t size, size_t name_len)
{
    put16(f, 0);    /* flags */
    put16(f, 0);    /* stored */
    put16(f, 0);    /* time */
    put16(f, 0x21); /* date 1980-01-01 */
    put32(f, crc);
    put32(f, size); /* compressed */
    put32(f, size);
    put16(f, (unsigned)name_len);
    put16(f, 0); /* extra field */
}

bool raw_zip_write(const char *path, const raw_zip_entry *entries, size_t n)
{
    if (n > 0xFFFF)
        return false;
    uint32_t *offsets = calloc(n ? n : 1, sizeof *offsets);
    uint32_t *crcs = calloc(n ? n : 1, sizeof *crcs);
    FILE *f = fopen(path, "wb");
    bool ok = offsets && crcs && f;
    for (size_t i = 0; ok && i < n; i++) {
        const raw_zip_entry *e = &entries[i];
        size_t len = strlen(e->name);
        if (e->size > 0x7FFFFFFF || len > 0xFFFF) {
            ok = false;
            break;
        }
        offsets[i] = (uint32_t)ftell(f);
        crcs[i] = crc32_of(e->data, e->size);
        put32(f, 0x04034b50u); /* local file header */
        put16(f, 20);          /* version needed */
        put_common(f, crcs[i], (uint32_t)e->size, len);
        fwrite(e->name, 1, len, f);
        if (e->size)
            fwrite(e->data, 1, e->size, f);
    }
    uint32_t central = ok ? (uint32_t)ftell(f) : 0;
    for (size_t i = 0; ok && i < n; i++) {
        const raw_zip_entry *e = &entries[i];
        size_t len = strlen(e->name);
        put32(f, 0x02014b50u); /* central directory header */
        put16(f, e->unix_mode ? (3u << 8) | 20u : 20u); /* made by Unix when a mode is given */
        put16(f, 20);
        put_common(f, crcs[i], (uint32_t)e->size, len);
        put16(f, 0); /* comment */
        put16(f, 0); /* disk */
        put16(f, 0); /* internal attributes */
        put32(f, e->unix_mode << 16);
        put32(f, offsets[i]);
        fwrite(e->name, 1, len, f);
    }
    if (ok) {
        uint32_t end = (uint32_t)ftell(f);
        put32(f, 0x06054b50u); /* end of central directory */
        put16(f, 0);
        put16(f, 0);
        put16(f, (unsigned)n);
        put16(f, (unsigned)n);
        put32(f, end - central);
        put32(f, central);
        put16(f, 0);
    }
    if (f && fclose(f) != 0)
        ok = false;
    free(offsets);
    free(crcs);
    return ok;
}
