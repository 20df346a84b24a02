/* Vector BLF logs (src/can/log_blf_*.c). Truth: files built here byte by
 * byte from the layout python-can's blf.py and Wireshark's wiretap/blf.h
 * document (header fields, object headers, the frame objects' fields at
 * their offsets; containers stored or deflated with zlib here), read frame
 * by frame; files rtcosim writes, inflated here with zlib and checked at
 * those offsets; frame bit counts by hand (tests/can/test_can.c and
 * test_can_fd.c: 0x0C8 without data 50 bits, extended 0x18FEF100 with 01..08
 * 143, CAN FD 0x0C8 BRS 12 x 0x55 159, CAN XL 0x555 3 bytes 186). python-can
 * and the CLI: tests/python/test_can_logs.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "util/test_util.h"

/* ---- a BLF file built byte by byte ---- */

typedef struct bytes {
    uint8_t b[65536];
    size_t n;
} bytes;

static void put(bytes *o, const void *p, size_t n)
{
    assert_true(o->n + n <= sizeof o->b);
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void le(bytes *o, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        o->b[o->n++] = (uint8_t)(v >> (8 * i));
}
static void zeros(bytes *o, size_t n)
{
    memset(o->b + o->n, 0, n);
    o->n += n;
}

static void file_header(bytes *o)
{
    put(o, "LOGG", 4);
    le(o, 144, 4);
    zeros(o, 136); /* nothing else is read */
}

/* An object: base header, a version-1 (or 2) header with timestamp units
 * flags (1: 10 us, 2: 1 ns), body; then (size % 4) zero bytes. */
static void object(bytes *o, uint32_t type, int version, uint32_t flags, uint64_t stamp,
                   const bytes *body)
{
    uint32_t size = 32 + (uint32_t)body->n;
    put(o, "LOBJ", 4);
    le(o, 32, 2);
    le(o, (uint64_t)version, 2);
    le(o, size, 4);
    le(o, type, 4);
    le(o, flags, 4);
    zeros(o, 4);
    le(o, stamp, 8);
    put(o, body->b, body->n);
    zeros(o, size % 4);
}

/* A log container holding data[0..n), stored or deflated. */
static void container(bytes *o, const uint8_t *data, size_t n, bool deflate)
{
    static uint8_t z[70000];
    uLongf zn = sizeof z;
    const uint8_t *payload = data;
    if (deflate) {
        assert_int_equal(compress(z, &zn, data, (uLong)n), Z_OK);
        payload = z;
    } else {
        zn = n;
    }
    uint32_t size = 32 + (uint32_t)zn;
    put(o, "LOBJ", 4);
    le(o, 16, 2);
    le(o, 1, 2);
    le(o, size, 4);
    le(o, 10, 4);
    le(o, deflate ? 2 : 0, 2);
    zeros(o, 6);
    le(o, n, 4);
    zeros(o, 4);
    put(o, payload, zn);
    zeros(o, size % 4);
}

static bytes objects_a, objects_b, file_;

/* A CAN_FD_MESSAGE (100) on channel 1 with 3 data bytes (DLC 3) of its 64. */
static void fd_message(bytes *o, uint32_t id, uint8_t fd_flags, const char data[3], uint64_t ns)
{
    bytes body = {.n = 0};
    le(&body, 1, 2), le(&body, 0, 1), le(&body, 3, 1), le(&body, id, 4), le(&body, 0, 4);
    le(&body, 0, 1), le(&body, fd_flags, 1), le(&body, 3, 1), zeros(&body, 5);
    put(&body, data, 3);
    zeros(&body, 61);
    object(o, 100, 1, 2, ns, &body);
}

static void build_objects(void)
{
    bytes body;
    objects_a.n = objects_b.n = 0;
    /* 1. CAN_MESSAGE, 10 us units: 1.5 ms, channel 1, 0x0C8, AB 01 */
    body.n = 0;
    le(&body, 1, 2), le(&body, 0, 1), le(&body, 2, 1), le(&body, 0x0C8, 4);
    put(&body, "\xAB\x01\0\0\0\0\0\0", 8);
    object(&objects_a, 1, 1, 1, 150, &body);
    /* 2. CAN_FD_MESSAGE_64, ns: 2 ms, channel 2, extended 0x1234567, DLC 9
     * (12 bytes), EDL | BRS, data 0..11 (split across the two containers) */
    body.n = 0;
    le(&body, 2, 1), le(&body, 9, 1), le(&body, 12, 1), le(&body, 0, 1);
    le(&body, 0x80000000u | 0x1234567u, 4), le(&body, 0, 4), le(&body, 0x3000, 4);
    zeros(&body, 24);
    for (int i = 0; i < 12; i++)
        le(&body, (uint64_t)i, 1);
    bytes fd64 = {.n = 0};
    object(&fd64, 101, 1, 2, 2000000, &body);
    put(&objects_a, fd64.b, 50);
    put(&objects_b, fd64.b + 50, fd64.n - 50);
    /* 3. CAN_ERROR_EXT (73): read over */
    body.n = 0;
    zeros(&body, 32);
    object(&objects_b, 73, 1, 2, 2100000, &body);
    /* 4. CAN_MESSAGE2, header version 2, remote 0x7FF DLC 4 on channel 1 */
    body.n = 0;
    le(&body, 1, 2), le(&body, 0x80, 1), le(&body, 4, 1), le(&body, 0x7FF, 4);
    zeros(&body, 8 + 8);
    object(&objects_b, 86, 2, 2, 3000000, &body);
    /* 5. CAN_FD_MESSAGE (100) without EDL: classic 0x100, DLC 3, 3 valid bytes */
    fd_message(&objects_b, 0x100, 0, "\x07\x08\x09", 4000000);
    /* 6. CAN_FD_MESSAGE with EDL | ESI: 0x101, 3 bytes */
    fd_message(&objects_b, 0x101, 0x5, "\x0A\x0B\x0C", 5000000);
    /* 7. CAN_XL_CHANNEL_FRAME, XLF: 100 bytes on channel 1 (counted, left out) */
    body.n = 0;
    le(&body, 1, 1), zeros(&body, 11), le(&body, 0x555, 4), le(&body, 3, 1), zeros(&body, 1);
    le(&body, 99, 2), le(&body, 100, 2), zeros(&body, 26), le(&body, 0x401000, 4);
    zeros(&body, 52);
    zeros(&body, 100);
    object(&objects_b, 139, 1, 2, 6000000, &body);
}

static void build_file(bool deflate_second)
{
    build_objects();
    file_.n = 0;
    file_header(&file_);
    container(&file_, objects_a.b, objects_a.n, false);
    container(&file_, objects_b.b, objects_b.n, deflate_second);
}

static rtcosim_can_log *parse(const bytes *b, rtcosim_error *err)
{
    rtcosim_can_log *log = NULL;
    rtcosim_status st = rtcosim_can_log_parse((const char *)b->b, b->n, "t.blf", &log, err);
    return st == RTCOSIM_OK ? log : NULL;
}

static void a_hand_built_blf_is_read_frame_by_frame(void **state)
{
    (void)state;
    for (int deflate = 0; deflate < 2; deflate++) {
        build_file(deflate);
        rtcosim_error err;
        rtcosim_can_log *log = parse(&file_, &err);
        if (!log)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_can_log_count(log), 5);
        assert_int_equal(rtcosim_can_log_xl_count(log), 1);
        assert_int_equal(rtcosim_can_log_bus_count(log), 2);
        assert_string_equal(rtcosim_can_log_bus_name(log, 0), "can0");
        assert_string_equal(rtcosim_can_log_bus_name(log, 1), "can1");
        const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
        /* 1: 150 x 10 us */
        assert_int_equal(r[0].time, 1500000);
        assert_int_equal(r[0].id, 0x0C8);
        assert_false(r[0].extended);
        assert_int_equal(r[0].size, 2);
        assert_int_equal(r[0].data[0], 0xAB);
        assert_int_equal(r[0].data[1], 0x01);
        assert_int_equal(r[0].format, RTCOSIM_CAN_FORMAT_CLASSIC);
        assert_int_equal(r[0].line, 1);
        /* 2: across the containers */
        assert_int_equal(r[1].time, 2000000);
        assert_int_equal(r[1].bus, 1);
        assert_int_equal(r[1].id, 0x1234567);
        assert_true(r[1].extended);
        assert_int_equal(r[1].format, RTCOSIM_CAN_FORMAT_FD);
        assert_int_equal(r[1].flags, RTCOSIM_CAN_FD_BRS);
        assert_int_equal(r[1].size, 12);
        for (int i = 0; i < 12; i++)
            assert_int_equal(r[1].data[i], i);
        /* 3 (error frame) skipped; 4: remote, no data */
        assert_int_equal(r[2].time, 3000000);
        assert_int_equal(r[2].id, 0x7FF);
        assert_true(r[2].remote);
        assert_int_equal(r[2].size, 0);
        assert_int_equal(r[2].line, 4);
        /* 5: a classic frame in an FD object */
        assert_int_equal(r[3].format, RTCOSIM_CAN_FORMAT_CLASSIC);
        assert_int_equal(r[3].size, 3);
        assert_int_equal(r[3].data[2], 9);
        /* 6: CAN FD with ESI */
        assert_int_equal(r[4].format, RTCOSIM_CAN_FORMAT_FD);
        assert_int_equal(r[4].flags, RTCOSIM_CAN_FD_ESI);
        assert_int_equal(r[4].size, 3);
        assert_int_equal(r[4].data[0], 0x0A);
        assert_int_equal(r[4].time, 5000000);
        rtcosim_can_log_free(log);
    }
    /* objects outside any container are read too */
    build_objects();
    file_.n = 0;
    file_header(&file_);
    put(&file_, objects_a.b, 48); /* the CAN_MESSAGE */
    rtcosim_error err;
    rtcosim_can_log *log = parse(&file_, &err);
    assert_non_null(log);
    assert_int_equal(rtcosim_can_log_count(log), 1);
    rtcosim_can_log_free(log);
}

/* ---- files rtcosim writes ---- */

static uint8_t d55[12], d3[3] = {1, 2, 3};

static void written_blf_has_the_layout_readers_expect(void **state)
{
    (void)state;
    memset(d55, 0x55, sizeof d55);
    const rtcosim_can_log_entry e[4] = {
        {.start = 0, .end = 100000, .frame = {.id = 0x0C8}},
        {.start = 100000, .end = 386000, .frame = {.id = 0x18FEF100, .extended = true, .dlc = 8,
                                                   .data = {1, 2, 3, 4, 5, 6, 7, 8}}},
        {.start = 400000, .end = 526000, .frame = {.id = 0x0C8}, .format = RTCOSIM_CAN_FORMAT_FD,
         .flags = RTCOSIM_CAN_FD_BRS, .length = 12, .data = d55},
        {.start = 600000, .end = 683200, .frame = {.id = 0x555}, .format = RTCOSIM_CAN_FORMAT_XL,
         .flags = RTCOSIM_CAN_XL_SEC, .sdt = 0x03, .vcid = 0x45, .af = 0x12345678, .length = 3,
         .data = d3},
    };
    const char *path = tu_scratch("w.blf");
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_format_of(path), RTCOSIM_CAN_LOG_BLF);
    assert_int_equal(rtcosim_can_log_format_of("X.BLF"), RTCOSIM_CAN_LOG_BLF);
    assert_int_equal(rtcosim_can_log_write(e, 4, "can0", RTCOSIM_CAN_LOG_BLF, path, &err),
                     RTCOSIM_OK);
    size_t n;
    const uint8_t *f = (const uint8_t *)tu_read_file(path, &n);
#define U16(p) ((uint32_t)(p)[0] | (uint32_t)(p)[1] << 8)
#define U32(p) (U16(p) | U16((p) + 2) << 16)
    assert_memory_equal(f, "LOGG", 4);
    assert_int_equal(U32(f + 4), 144);
    assert_int_equal(U32(f + 16), n); /* file size (low half) */
    assert_int_equal(U32(f + 20), 0);
    /* objects: 32 + 24, 32 + 24, 32 + 40 + 12, 32 + 104 + 3 (+ 3 padding) */
    uint32_t objects_bytes = 56 + 56 + 84 + 142;
    assert_int_equal(U32(f + 24), 144 + 32 + objects_bytes); /* uncompressed size */
    assert_int_equal(U32(f + 32), 4);                       /* objects */
    for (int k = 40; k < 72; k++)
        assert_int_equal(f[k], 0); /* start and stop SYSTEMTIME: none */
    const uint8_t *c = f + 144;
    assert_memory_equal(c, "LOBJ", 4);
    assert_int_equal(U32(c + 12), 10); /* LOG_CONTAINER */
    assert_int_equal(U16(c + 16), 2);  /* zlib */
    assert_int_equal(U32(c + 24), objects_bytes);
    uint32_t size = U32(c + 8);
    assert_int_equal(144 + size + size % 4, n);
    static uint8_t o[4096];
    uLongf got = sizeof o;
    assert_int_equal(uncompress(o, &got, c + 32, size - 32), Z_OK);
    assert_int_equal(got, objects_bytes);
    /* CAN_MESSAGE2: 0x0C8 without data, 50 bits, 100 us, at 100 us */
    const uint8_t *p = o;
    assert_memory_equal(p, "LOBJ", 4);
    assert_int_equal(U16(p + 4), 32);
    assert_int_equal(U16(p + 6), 1);
    assert_int_equal(U32(p + 8), 56);
    assert_int_equal(U32(p + 12), 86);
    assert_int_equal(U32(p + 16), 2); /* TIME_ONE_NANS */
    assert_int_equal(U32(p + 24), 100000);
    assert_int_equal(U16(p + 32), 1); /* channel */
    assert_int_equal(p[35], 0);       /* DLC */
    assert_int_equal(U32(p + 36), 0x0C8);
    assert_int_equal(U32(p + 48), 100000); /* frame length [ns] */
    assert_int_equal(p[52], 50);           /* bits */
    /* extended 0x18FEF100 with 01..08: 143 bits */
    p += 56;
    assert_int_equal(U32(p + 36), 0x80000000u | 0x18FEF100u);
    assert_int_equal(p[35], 8);
    assert_memory_equal(p + 40, "\1\2\3\4\5\6\7\10", 8);
    assert_int_equal(p[52], 143);
    /* CAN_FD_MESSAGE_64: DLC 9, 12 valid bytes, EDL | BRS, 159 bits */
    p += 56;
    assert_int_equal(U32(p + 8), 84);
    assert_int_equal(U32(p + 12), 101);
    assert_int_equal(p[32], 1);
    assert_int_equal(p[33], 9);
    assert_int_equal(p[34], 12);
    assert_int_equal(U32(p + 36), 0x0C8);
    assert_int_equal(U32(p + 40), 126000);
    assert_int_equal(U32(p + 44), 0x3000);
    assert_int_equal(U16(p + 64), 159);
    assert_memory_equal(p + 72, d55, 12);
    /* CAN_XL_CHANNEL_FRAME: 139 bytes and 3 of padding */
    p += 84;
    assert_int_equal(U32(p + 8), 139);
    assert_int_equal(U32(p + 12), 139);
    const uint8_t *x = p + 32;
    assert_int_equal(x[0], 1);
    assert_int_equal(U32(x + 4), 83200);
    assert_int_equal(U16(x + 8), 186);
    assert_int_equal(U32(x + 12), 0x555);
    assert_int_equal(x[16], 0x03);
    assert_int_equal(U16(x + 18), 2);
    assert_int_equal(U16(x + 20), 3);
    assert_int_equal(x[26], 0x45);
    assert_int_equal(U32(x + 28), 0x12345678);
    assert_int_equal(U32(x + 48), 0x400000u | 0x1000u | 0x2000u | 0x1000000u);
    assert_memory_equal(x + 104, d3, 3);
    assert_memory_equal(x + 107, "\0\0\0", 3);
    /* and back */
    rtcosim_can_log *log = NULL;
    assert_int_equal(rtcosim_can_log_read(path, &log, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_count(log), 3);
    assert_int_equal(rtcosim_can_log_xl_count(log), 1);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    assert_int_equal(r[1].time, 386000);
    assert_true(r[1].extended);
    assert_int_equal(r[2].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(r[2].flags, RTCOSIM_CAN_FD_BRS);
    assert_memory_equal(r[2].data, d55, 12);
    assert_string_equal(rtcosim_can_log_bus_name(log, 0), "can0");
    rtcosim_can_log_free(log);
}

/* 20 000 frames: containers of at most 128 KiB of objects, none split. */
static void a_long_log_spans_containers(void **state)
{
    (void)state;
    enum { N = 20000 };
    rtcosim_can_log_entry *e = calloc(N, sizeof *e);
    assert_non_null(e);
    for (int i = 0; i < N; i++)
        e[i] = (rtcosim_can_log_entry){.start = i * 1000LL, .end = i * 1000LL + 230,
                                       .frame = {.id = (uint32_t)(i % 0x800), .dlc = 8,
                                                 .data = {(uint8_t)i, (uint8_t)(i >> 8)}}};
    const char *path = tu_scratch("long.blf");
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_write(e, N, "can0", RTCOSIM_CAN_LOG_BLF, path, &err),
                     RTCOSIM_OK);
    size_t n;
    const uint8_t *f = (const uint8_t *)tu_read_file(path, &n);
    size_t containers = 0;
    for (size_t at = 144; at < n; containers++) {
        assert_memory_equal(f + at, "LOBJ", 4);
        assert_true(U32(f + at + 24) <= 131072);
        assert_int_equal(U32(f + at + 24) % 56, 0); /* whole objects only */
        at += U32(f + at + 8) + U32(f + at + 8) % 4;
    }
    size_t per = 131072 / 56; /* whole 56-byte objects in a container */
    assert_int_equal(containers, (N + per - 1) / per);
    rtcosim_can_log *log = NULL;
    assert_int_equal(rtcosim_can_log_read(path, &log, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_count(log), N);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].time, i * 1000LL + 230);
        assert_int_equal(r[i].id, (uint32_t)(i % 0x800));
        assert_int_equal(r[i].data[1], (uint8_t)(i >> 8));
    }
    rtcosim_can_log_free(log);
    free(e);
}

/* ---- bad input: one line naming the file and the byte ---- */

static void expect_error(const bytes *b, const char *want)
{
    rtcosim_error err;
    rtcosim_can_log *log = parse(b, &err);
    if (log)
        fail_msg("accepted; expected '%s'", want);
    if (!strstr(err.message, want) || strncmp(err.message, "t.blf: ", 7) != 0 ||
        strchr(err.message, '\n'))
        fail_msg("'%s' does not say '%s'", err.message, want);
}

static void bad_blf_files_get_one_line_errors(void **state)
{
    (void)state;
    bytes b;
    /* a header cut short */
    b.n = 0;
    put(&b, "LOGG\x90\0\0\0", 8);
    expect_error(&b, "cut short in its header");
    /* no LOBJ where the first object starts */
    b.n = 0;
    file_header(&b);
    put(&b, "LOBX\x20\0\1\0\x20\0\0\0\x0A\0\0\0", 16);
    expect_error(&b, "byte 144: no object (LOBJ)");
    /* an object larger than the rest of the file */
    build_file(true);
    b = file_;
    b.n -= 10;
    expect_error(&b, "the file ends");
    /* an unknown compression method */
    build_file(false);
    b = file_;
    b.b[144 + 16] = 5;
    expect_error(&b, "byte 144: a log container with compression method 5");
    /* zlib data corrupted (the second container) */
    build_file(true);
    b = file_;
    size_t second = 144 + 32 + objects_a.n + (32 + objects_a.n) % 4;
    for (size_t k = second + 40; k < second + 60; k++)
        b.b[k] ^= 0x5A;
    expect_error(&b, "zlib data are corrupt");
    /* a container that inflates to more than it declares */
    build_file(true);
    b = file_;
    b.b[second + 24] = 8;
    b.b[second + 25] = 0;
    expect_error(&b, "inflates to more than the 8 bytes it declares");
    /* ... or declares 1 GiB */
    b = file_;
    b.b[second + 24] = b.b[second + 25] = b.b[second + 26] = 0;
    b.b[second + 27] = 0x40;
    expect_error(&b, "declares 1073741824 bytes uncompressed");
    /* a CAN message with DLC 16, a standard id over 0x7FF, an FD frame of
     * 70 bytes, an object header of version 7: the object named */
    struct {
        size_t at;
        uint8_t value;
        const char *want;
    } edits[] = {
        {35, 16, "object 1: DLC 16 (at most 15)"},
        {37, 0x08, "object 1: standard id 0x8C8 over 0x7FF"},
        {6, 7, "object 1: object header version 7"},
        {8, 8, "object 1: object size 8 smaller than its header"},
        {0, 'X', "object 1 does not start with LOBJ"},
        {11, 0x02, "object 1: 33554480 bytes, over 16 MiB"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        build_file(false);
        b = file_;
        b.b[144 + 32 + edits[i].at] = edits[i].value;
        expect_error(&b, edits[i].want);
    }
    build_file(false);
    b = file_;
    b.b[144 + 32 + 48 + 32 + 2] = 70; /* the FD64 object's valid bytes */
    expect_error(&b, "object 2: a CAN FD message of 52 bytes, shorter than its data");
    /* the containers end inside an object */
    build_objects();
    b.n = 0;
    file_header(&b);
    container(&b, objects_a.b, objects_a.n, true);
    expect_error(&b, "the containers end 50 bytes into an object");
    /* bytes after the last object that are no padding */
    b.n = 0;
    file_header(&b);
    put(&b, "\0\0\x07", 3);
    expect_error(&b, "3 bytes after the last object");
    /* a file with no frames is a log without records, not an error */
    b.n = 0;
    file_header(&b);
    rtcosim_error err;
    rtcosim_can_log *log = parse(&b, &err);
    assert_non_null(log);
    assert_int_equal(rtcosim_can_log_count(log), 0);
    rtcosim_can_log_free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_hand_built_blf_is_read_frame_by_frame),
        cmocka_unit_test(written_blf_has_the_layout_readers_expect),
        cmocka_unit_test(a_long_log_spans_containers),
        cmocka_unit_test(bad_blf_files_get_one_line_errors),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
