/* "Did you mean": the edit distance behind every suggestion counts an
 * insertion, deletion, substitution or a swap of two neighbouring
 * characters as one edit (the optimal string alignment distance); values
 * worked out by hand from that definition, Levenshtein's textbook pair
 * among them. */
#include <setjmp.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rtcosim/component.h"

static void edits_are_counted_as_a_typist_makes_them(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        size_t d;
    } cases[] = {
        {"", "", 0},           {"abc", "", 3},           {"", "ab", 2},
        {"h", "h", 0},         {"hh", "h", 1},            {"kitten", "sitting", 3},
        {"fsat0", "fast0", 1}, {"ab", "ba", 1},           {"abcdef", "abdcef", 1},
        {"aab", "aba", 1},     {"stop-tmie", "stop-time", 1},
        {"ca", "abc", 3}, /* (a swap, then an insertion between: not one alignment) */
        {"abcd", "badc", 2},   {"x1", "1x2", 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t d = rtcosim_edit_distance(cases[k].a, cases[k].b);
        if (d != cases[k].d)
            fail_msg("'%s' to '%s': %zu edits, not %zu", cases[k].a, cases[k].b, d, cases[k].d);
        /* the same both ways */
        assert_int_equal(rtcosim_edit_distance(cases[k].b, cases[k].a), cases[k].d);
    }
}

static void a_swapped_pair_is_close_enough_to_suggest(void **state)
{
    (void)state;
    assert_true(rtcosim_name_is_close("fsat0", "fast0", rtcosim_edit_distance("fsat0", "fast0")));
    assert_false(rtcosim_name_is_close("xyz", "fast0", rtcosim_edit_distance("xyz", "fast0")));
}

/* A name past 255 bytes on either side is no typo to look for: (size_t)-1
 * at once, which no closeness accepts (a 3 MB column name once spent 28 s
 * here); 255 bytes still count. */
static void names_past_255_bytes_are_not_compared(void **state)
{
    (void)state;
    static char longer[4096], edge[256];
    memset(longer, 'a', sizeof longer - 1);
    memset(edge, 'a', sizeof edge - 1);
    assert_true(rtcosim_edit_distance(longer, "a") == (size_t)-1);
    assert_true(rtcosim_edit_distance("a", longer) == (size_t)-1);
    assert_false(rtcosim_name_is_close(longer, "a", rtcosim_edit_distance(longer, "a")));
    assert_int_equal(rtcosim_edit_distance(edge, "a"), 254);
    assert_int_equal(rtcosim_edit_distance("a", edge), 254);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edits_are_counted_as_a_typist_makes_them),
        cmocka_unit_test(a_swapped_pair_is_close_enough_to_suggest),
        cmocka_unit_test(names_past_255_bytes_are_not_compared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
