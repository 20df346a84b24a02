/* Error messages stay one printable line whatever they quote: a file's bytes
 * (a binary file read as a CAN log or CSV) come out as "\xNN", line breaks as
 * spaces, UTF-8 text as it is (RFC 3629's rules decide what is UTF-8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/status.h"

static const char *message_of(const char *quoted)
{
    static rtcosim_error err;
    rtcosim_error_set(&err, RTCOSIM_EFORMAT, "f:1: reads '%s'", quoted);
    return err.message;
}

static void quotes_become_printable(void **state)
{
    (void)state;
    assert_string_equal(message_of("plain"), "f:1: reads 'plain'");
    /* ESC [ 2 J (clear screen), BEL, DEL: escaped */
    assert_string_equal(message_of("\x1b[2J\x07x\x7f"), "f:1: reads '\\x1B[2J\\x07x\\x7F'");
    /* line breaks and tabs: spaces */
    assert_string_equal(message_of("a\nb\r\tc"), "f:1: reads 'a b  c'");
    /* UTF-8 kept: "Grüße", a 3-byte and a 4-byte character */
    assert_string_equal(message_of("Gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x9a\x97"),
                        "f:1: reads 'Gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x9a\x97'");
    /* not UTF-8: a lone continuation byte, an overlong '/', a surrogate, a
     * code point past U+10FFFF, a sequence cut short */
    assert_string_equal(message_of("\x80"), "f:1: reads '\\x80'");
    assert_string_equal(message_of("\xc0\xaf"), "f:1: reads '\\xC0\\xAF'");
    assert_string_equal(message_of("\xed\xa0\x80"), "f:1: reads '\\xED\\xA0\\x80'");
    assert_string_equal(message_of("\xf4\x90\x80\x80"), "f:1: reads '\\xF4\\x90\\x80\\x80'");
    assert_string_equal(message_of("\xe2\x82"), "f:1: reads '\\xE2\\x82'");
    /* a C1 control (U+009B, CSI in some terminals) though valid UTF-8 */
    assert_string_equal(message_of("\xc2\x9b" "1m"), "f:1: reads '\\xC2\\x9B1m'");
}

static void long_binary_quotes_stay_bounded(void **state)
{
    (void)state;
    char bytes[600];
    memset(bytes, 0x01, sizeof bytes - 1);
    bytes[sizeof bytes - 1] = '\0';
    const char *m = message_of(bytes);
    assert_true(strlen(m) < RTCOSIM_ERROR_MESSAGE_MAX);
    assert_memory_equal(m, "f:1: reads '\\x01\\x01", 19);
    for (const char *p = m; *p; p++)
        assert_true(*p >= 0x20 && *p < 0x7F);
}

static void prefixed_messages_too(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_error_set(&err, RTCOSIM_EIO, "cannot read");
    rtcosim_error_prefix(&err, "%s: ", "dir\x1b]0;title\x07/x.csv");
    assert_string_equal(err.message, "dir\\x1B]0;title\\x07/x.csv: cannot read");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quotes_become_printable),
        cmocka_unit_test(long_binary_quotes_stay_bounded),
        cmocka_unit_test(prefixed_messages_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
