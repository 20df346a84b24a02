/* String and Binary values cross the --isolate channel as records (channel.h):
 * a u64 size, the bytes (a String's with its NUL), padded to 8 bytes. The
 * layout is checked against bytes written out by hand, and the unpacking of
 * what a host answered refuses every malformed record with a reason instead
 * of reading past the records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "isolate/channel.h"

static void put_u64(unsigned char *at, uint64_t v) { memcpy(at, &v, sizeof v); }

static void strings_are_size_bytes_nul_and_padding(void **state)
{
    (void)state;
    const char *values[] = {"ab", "", NULL, "12345678"};
    /* "ab": 8 + 3 -> 8 + 8; "": 8 + 1 -> 8 + 8; NULL: 8; "12345678": 8 + 9 -> 8 + 16 */
    size_t size = channel_records_size(RTCOSIM_TYPE_STRING, values, 4, 1 << 20);
    assert_int_equal(size, 16 + 16 + 8 + 24);
    unsigned char got[64], want[64] = {0};
    memset(got, 0xAA, sizeof got);
    channel_records_pack(got, RTCOSIM_TYPE_STRING, values, 4);
    put_u64(want + 0, 3);
    memcpy(want + 8, "ab", 3);
    put_u64(want + 16, 1);
    put_u64(want + 32, UINT64_MAX);
    put_u64(want + 40, 9);
    memcpy(want + 48, "12345678", 9);
    assert_memory_equal(got, want, size);

    const char *back[4] = {"x", "x", "x", "x"};
    char why[128];
    assert_true(channel_records_unpack(got, size, RTCOSIM_TYPE_STRING, 4, back, why, sizeof why));
    assert_string_equal(back[0], "ab");
    assert_string_equal(back[1], "");
    assert_null(back[2]);
    assert_string_equal(back[3], "12345678");
}

static void binaries_keep_zero_bytes_and_empty_values(void **state)
{
    (void)state;
    static const uint8_t bytes[] = {0x00, 0xff, 0x00};
    rtcosim_binary values[] = {{bytes, 3}, {NULL, 0}};
    size_t size = channel_records_size(RTCOSIM_TYPE_BINARY, values, 2, 1 << 20);
    assert_int_equal(size, 16 + 8);
    unsigned char got[24], want[24] = {0};
    channel_records_pack(got, RTCOSIM_TYPE_BINARY, values, 2);
    put_u64(want, 3);
    memcpy(want + 8, bytes, 3);
    put_u64(want + 16, 0);
    assert_memory_equal(got, want, sizeof want);
    rtcosim_binary back[2];
    char why[128];
    assert_true(channel_records_unpack(got, size, RTCOSIM_TYPE_BINARY, 2, back, why, sizeof why));
    assert_int_equal(back[0].size, 3);
    assert_memory_equal(back[0].data, bytes, 3);
    assert_int_equal(back[1].size, 0);
}

static void values_past_the_limit_do_not_fit(void **state)
{
    (void)state;
    const char *values[] = {"0123456789abcdef"}; /* 8 + 17 -> 8 + 24 = 32 bytes */
    assert_int_equal(channel_records_size(RTCOSIM_TYPE_STRING, values, 1, 32), 32);
    assert_int_equal(channel_records_size(RTCOSIM_TYPE_STRING, values, 1, 31), SIZE_MAX);
    rtcosim_binary huge = {(const uint8_t *)"", SIZE_MAX - 3};
    assert_int_equal(channel_records_size(RTCOSIM_TYPE_BINARY, &huge, 1, 1 << 20), SIZE_MAX);
}

static void malformed_records_are_refused_with_a_reason(void **state)
{
    (void)state;
    unsigned char buf[32] = {0};
    const char *s[2];
    rtcosim_binary b[1];
    char why[128];
    /* a size past the records */
    put_u64(buf, 100);
    assert_false(channel_records_unpack(buf, 32, RTCOSIM_TYPE_STRING, 1, s, why, sizeof why));
    assert_non_null(strstr(why, "claims 100 bytes"));
    assert_false(channel_records_unpack(buf, 32, RTCOSIM_TYPE_BINARY, 1, b, why, sizeof why));
    /* a size whose padding passes the end: 17 bytes -> 24, 16 left */
    put_u64(buf, 17);
    assert_false(channel_records_unpack(buf, 24, RTCOSIM_TYPE_BINARY, 1, b, why, sizeof why));
    /* a String without its NUL, and an empty record (a String has at least its NUL) */
    put_u64(buf, 3);
    memcpy(buf + 8, "abc", 3);
    assert_false(channel_records_unpack(buf, 16, RTCOSIM_TYPE_STRING, 1, s, why, sizeof why));
    assert_non_null(strstr(why, "not terminated"));
    put_u64(buf, 0);
    assert_false(channel_records_unpack(buf, 16, RTCOSIM_TYPE_STRING, 1, s, why, sizeof why));
    /* fewer records than values */
    put_u64(buf, 1);
    buf[8] = '\0';
    assert_false(channel_records_unpack(buf, 16, RTCOSIM_TYPE_STRING, 2, s, why, sizeof why));
    assert_non_null(strstr(why, "value 2 of 2 is missing"));
    /* a NULL string is a String's only: for a Binary it is a size past the end */
    put_u64(buf, UINT64_MAX);
    assert_true(channel_records_unpack(buf, 8, RTCOSIM_TYPE_STRING, 1, s, why, sizeof why));
    assert_null(s[0]);
    assert_false(channel_records_unpack(buf, 8, RTCOSIM_TYPE_BINARY, 1, b, why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_are_size_bytes_nul_and_padding),
        cmocka_unit_test(binaries_keep_zero_bytes_and_empty_values),
        cmocka_unit_test(values_past_the_limit_do_not_fit),
        cmocka_unit_test(malformed_records_are_refused_with_a_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
