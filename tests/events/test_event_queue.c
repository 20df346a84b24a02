/* The kernel's event heap: the order it pops events in must be the total
 * order (time, tie, seq) that makes every scheduler deterministic. Checked
 * against an independent reference (qsort, and a linear scan for the
 * minimum) on keys with many ties in every field, as the vehicle has. The
 * sequential scheduler's calendar queue must pop in the same order as the
 * heap so checked, through its resizes, jumps, far events and times up to
 * the largest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "events/event_calendar.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) /* xorshift64 */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The reference order, written out field by field. */
static int reference_cmp(const void *pa, const void *pb)
{
    const rtcosim_event *a = *(rtcosim_event *const *)pa, *b = *(rtcosim_event *const *)pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->tie != b->tie)
        return a->tie < b->tie ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

/* Few distinct values per field, so that most comparisons go to the next
 * field; extremes of each field included (negative times, the top bit of the
 * tie and the sequence number). */
static void random_key(rtcosim_event *ev)
{
    static const rtcosim_time_ns times[] = {INT64_MIN, -5, 0, 1, 1000000, INT64_MAX};
    static const uint64_t ties[] = {0, 3, (uint64_t)1 << 32, (uint64_t)7 << 48, UINT64_MAX};
    static const uint64_t seqs[] = {0, 1, 2, (uint64_t)1 << 63, UINT64_MAX};
    ev->time = times[next_random() % 6];
    ev->tie = ties[next_random() % 5];
    ev->seq = seqs[next_random() % 5];
}

static void test_pop_order_equals_sort(void **state)
{
    (void)state;
    enum { N = 3000 }; /* past the initial capacity: the heap grows */
    rtcosim_event *evs = calloc(N, sizeof *evs);
    rtcosim_event **sorted = calloc(N, sizeof *sorted);
    assert_non_null(evs);
    assert_non_null(sorted);
    event_heap h = {0};
    for (size_t i = 0; i < N; i++) {
        random_key(&evs[i]);
        sorted[i] = &evs[i];
        assert_true(event_heap_push(&h, &evs[i]));
    }
    qsort(sorted, N, sizeof *sorted, reference_cmp);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(event_heap_min_time(&h), sorted[i]->time);
        rtcosim_event *ev = event_heap_pop(&h);
        /* equal keys are interchangeable; the key must be the reference's */
        assert_int_equal(reference_cmp(&ev, &sorted[i]), 0);
    }
    assert_null(event_heap_pop(&h));
    assert_int_equal(event_heap_min_time(&h), RTCOSIM_TIME_MAX);
    event_heap_free(&h);
    free(sorted);
    free(evs);
}

/* Pushes and pops interleaved as in a run (heap sizes from 0 to ~200, every
 * shape of the last level): each pop is the minimum of what is pending. */
static void test_interleaved_pops_are_minimal(void **state)
{
    (void)state;
    enum { N = 20000, MAX_PENDING = 256 };
    rtcosim_event *evs = calloc(N, sizeof *evs);
    rtcosim_event *pending[MAX_PENDING];
    size_t count = 0, used = 0;
    assert_non_null(evs);
    event_heap h = {0};
    for (size_t step = 0; step < 2 * N; step++) {
        bool push = used < N && count < MAX_PENDING && (count == 0 || next_random() % 5 < 3);
        if (push) {
            rtcosim_event *ev = &evs[used++];
            random_key(ev);
            pending[count++] = ev;
            assert_true(event_heap_push(&h, ev));
        } else if (count) {
            size_t min = 0;
            for (size_t i = 1; i < count; i++)
                if (reference_cmp(&pending[i], &pending[min]) < 0)
                    min = i;
            rtcosim_event *ev = event_heap_pop(&h);
            assert_non_null(ev);
            assert_int_equal(reference_cmp(&ev, &pending[min]), 0);
            /* remove the popped event itself (equal keys may differ) */
            size_t at = 0;
            while (at < count && pending[at] != ev)
                at++;
            assert_true(at < count);
            pending[at] = pending[--count];
        }
        assert_int_equal(h.count, count);
    }
    event_heap_free(&h);
    free(evs);
}

/* A time `delay` after now, saturating at the largest time. */
static rtcosim_time_ns after(rtcosim_time_ns now, rtcosim_time_ns delay)
{
    rtcosim_time_ns t;
    return __builtin_add_overflow(now, delay, &t) ? INT64_MAX : t;
}

static void test_calendar_pops_as_the_heap(void **state)
{
    (void)state;
    enum { N = 400000, MAX_PENDING = 20000 };
    rtcosim_event *evs = calloc(N, sizeof *evs);
    assert_non_null(evs);
    event_heap reference = {0};
    event_calendar cal = {0};
    rtcosim_time_ns now = -1000000; /* the last popped time */
    size_t used = 0, count = 0, pops = 0, phase_pending = 16;
    for (size_t step = 0; used < N || count; step++) {
        /* phases: fill to a level, then hold it (one push per pop, as
         * PHOLD), then drain; levels from a few events to thousands */
        if (step % 50000 == 0)
            phase_pending = (size_t)1 << (next_random() % 15);
        bool push = used < N && count < MAX_PENDING &&
                    (count == 0 || count < phase_pending ? next_random() % 4 != 0
                                                         : next_random() % 2 == 0);
        if (push) {
            rtcosim_event *ev = &evs[used++];
            random_key(ev);
            uint64_t r = next_random() % 100;
            rtcosim_time_ns delay = r < 20   ? 0                                      /* ties */
                                    : r < 45 ? (rtcosim_time_ns)(next_random() % 1000)
                                    : r < 88 ? (rtcosim_time_ns)(next_random() % 1000000000)
                                    : r < 93 ? (rtcosim_time_ns)(next_random() % 1000000000000000)
                                    : r < 98 ? -(rtcosim_time_ns)(next_random() % 5000) /* early */
                                             : INT64_MAX - (rtcosim_time_ns)(next_random() % 3);
            ev->time = r >= 98 ? delay : after(now, delay);
            assert_true(event_heap_push(&reference, ev));
            assert_true(event_calendar_push(&cal, ev));
            count++;
        } else {
            rtcosim_event *want = event_heap_pop(&reference), *got = event_calendar_pop(&cal);
            assert_non_null(got);
            assert_int_equal(reference_cmp(&got, &want), 0);
            /* a popped event leaves the calendar's lists: the look-ahead that
             * walks the next buckets' lists must never follow it again (it
             * would fault here) */
            got->link = (rtcosim_event *)(uintptr_t)0xdead000000000000u;
            now = got->time;
            count--;
            pops++;
        }
        assert_int_equal(event_calendar_count(&cal), count);
    }
    assert_null(event_calendar_pop(&cal));
    assert_false(cal.failed);
    assert_true(pops == N);
    event_heap_free(&reference);
    event_calendar_free(&cal);
    free(evs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pop_order_equals_sort),
        cmocka_unit_test(test_interleaved_pops_are_minimal),
        cmocka_unit_test(test_calendar_pops_as_the_heap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
