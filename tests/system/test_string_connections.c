/* String connections in a system (SSP 1.0 allows String connectors; libcosim
 * connects string variables too). The producer is the project's Strings FMU,
 * whose Steps_output grows by "ab" on every step up to 200 bytes; the
 * consumer is a Strings FMU whose Length_output is the length of its
 * String_input. So after step k (time k H) the consumer's length is known by
 * hand: Jacobi gives it the producer's output of the step before, 2 (k - 1),
 * Gauss-Seidel that of the same step, 2 k, each at most 200. The FMI 1.0
 * build frees each returned string at its next fmiGetString (and returns ""
 * as NULL), so a master that kept the FMU's pointer instead of a copy reads
 * freed memory (ASan says so) or passes garbage. Both directions (FMI 1.0 to
 * 2.0 and 2.0 to 1.0), both orders, and two threads (the same rows).
 * Into an FMI 3.0 FMU with Event Mode (the project's Notes FMU, which counts
 * the distinct values its String input took at events), a changed String is
 * an input event: a row before it and one after, with one more change; an
 * unchanged one (once the producer stops growing) no event at all.
 * Binary values the same way without Event Mode (FMI 3.0 lets an FMU without
 * it take any input in Step Mode): Notes' `trail` gains the byte k mod 256 at
 * step k up to 300 bytes (NUL bytes from step 256 on), another Notes' `blob`
 * takes it, and its `blob_size` and `blob_sum` follow by hand. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

enum { STEPS = 120, CAP = 200, MAX_ROWS = 2 * STEPS + 1 };
enum { BINARY_STEPS = 400, TRAIL = 300 }; /* Notes' trail stops growing at 300 bytes */

typedef struct rows {
    rtcosim_master *m; /* its text observed are read per row, as the CLI's recorder does */
    char last[CAP + 8];
    size_t n;
    rtcosim_time_ns t[MAX_ROWS];
    double value[MAX_ROWS];
} rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const double *values,
                               size_t count, rtcosim_error *err)
{
    rows *r = context;
    assert_int_equal(count, 1);
    assert_true(r->n < MAX_ROWS);
    rtcosim_value text[2];
    rtcosim_status st = rtcosim_master_text_observed_values(r->m, text, err);
    if (st != RTCOSIM_OK)
        return st;
    snprintf(r->last, sizeof r->last, "%s", text[0].s ? text[0].s : "");
    r->t[r->n] = t;
    r->value[r->n++] = values[0];
    return RTCOSIM_OK;
}

/* A system file of two components, a (producer) and b (consumer), joined
 * a.from -> b.to; each with its ssd:Connectors' content when given (else the
 * model's), the master's order and threads. */
static const char *write_pair(const char *file, const char *producer, const char *a_connectors,
                              const char *from, const char *consumer, const char *b_connectors,
                              const char *to, const char *order, int threads)
{
    char a[1024], b[1024], text[4096];
    snprintf(a, sizeof a, a_connectors ? "><ssd:Connectors>%s</ssd:Connectors></ssd:Component>"
                                       : "/>%s",
             a_connectors ? a_connectors : "");
    snprintf(b, sizeof b, b_connectors ? "><ssd:Connectors>%s</ssd:Connectors></ssd:Component>"
                                       : "/>%s",
             b_connectors ? b_connectors : "");
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"s\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
             " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
             " <ssd:System name=\"s\">\n"
             "  <ssd:Elements>\n"
             "   <ssd:Component name=\"a\" source=\"%s\"%s\n"
             "   <ssd:Component name=\"b\" source=\"%s\"%s\n"
             "  </ssd:Elements>\n"
             "  <ssd:Connections>\n"
             "   <ssd:Connection startElement=\"a\" startConnector=\"%s\"\n"
             "                   endElement=\"b\" endConnector=\"%s\"/>\n"
             "  </ssd:Connections>\n"
             "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">\n"
             "   <rc:Master stepSize=\"0.01\" order=\"%s\" threads=\"%d\"/></ssc:Annotation>\n"
             "  </ssd:Annotations>\n"
             " </ssd:System>\n"
             "</ssd:SystemStructureDescription>\n",
             producer, a, consumer, b, from, to, order, threads);
    const char *path = tu_scratch(file);
    tu_write_file(path, text);
    return path;
}

/* Strings' Steps_output into the consumer's String input `input`, its
 * Integer output `output` declared (the SSD's typed connectors). */
static const char *write_ssd(const char *producer, const char *consumer, const char *order,
                             int threads, const char *input, const char *output)
{
    char b[512];
    snprintf(b, sizeof b,
             "<ssd:Connector name=\"%s\" kind=\"input\"><ssc:String/></ssd:Connector>"
             "<ssd:Connector name=\"%s\" kind=\"output\"><ssc:Integer/></ssd:Connector>",
             input, output);
    return write_pair("strings.ssd", producer,
                      "<ssd:Connector name=\"Steps_output\" kind=\"output\"><ssc:String/>"
                      "</ssd:Connector>",
                      "Steps_output", consumer, b, input, order, threads);
}

/* Runs the system, returns the numeric output (b.Length_output, b.changes)
 * per row and the String one's last value (observed as text) in *last. */
static void run_system(const char *path, const char *const observe[3],
                       const rtcosim_fmu_options *fo, rows *r, char *last, size_t last_size)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_system_build_options opts = {.fmu = fo, .observe = observe, .observe_count = 3};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* always the threads set, however cheap the steps (no fallback to one) */
    if (rtcosim_master_set_thread_fallback(m, false, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    memset(r, 0, sizeof *r);
    r->m = m;
    const rtcosim_time_ns stop = STEPS * RTCOSIM_NS_PER_S / 100;
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, stop, keep_row, r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_text_observed_count(m), 2);
    snprintf(last, last_size, "%s", r->last);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

static const char *ab_times(size_t n)
{
    static char text[CAP + 1];
    for (size_t i = 0; i < n; i++)
        memcpy(text + 2 * i, "ab", 2);
    text[2 * n] = '\0';
    return text;
}

static void check(const char *producer, const char *consumer, const char *order, int threads)
{
    rows r;
    char last[CAP + 8];
    /* a.Steps_output read for the rows too: an FMI 1.0 producer frees the
     * string of the connection's get at that get (kept pointers dangle) */
    const char *observe[] = {"b.Length_output", "b.String_output", "a.Steps_output"};
    run_system(write_ssd(producer, consumer, order, threads, "String_input", "Length_output"),
               observe, NULL, &r, last, sizeof last);
    bool gs = strcmp(order, "gauss-seidel") == 0;
    assert_int_equal(r.n, STEPS + 1);
    for (size_t k = 0; k <= STEPS; k++) {
        long steps_seen = gs ? (long)k : (long)k - 1;
        long want = steps_seen < 0 ? 0 : 2 * steps_seen;
        if (want > CAP)
            want = CAP;
        if (r.value[k] != (double)want || r.t[k] != (rtcosim_time_ns)k * 10000000)
            fail_msg("%s -> %s, %s, %d thread(s): row %zu: length %g at %lld ns, expected %ld",
                     producer, consumer, order, threads, k, r.value[k], (long long)r.t[k], want);
    }
    /* the consumer copies its input to String_output: 100 times "ab" */
    assert_string_equal(last, ab_times(CAP / 2));
}

/* Into an event-mode FMU: step k (k = 1..100) brings "ab" k times, a change
 * at t = k H taken in an input event (a row with k - 1 changes, then one
 * with k); from step 101 the producer's output stays "ab" 100 times: no
 * event, one row each. The same in both orders: a discrete input reaches an
 * event-mode FMU at the instant, through the event (Gauss-Seidel's step used
 * to copy the new value into the consumer's slot without setting it in Step
 * Mode, which FMI 3.0 forbids, so that the event check saw no change and the
 * FMU never got it). */

static void input_events(const char *order)
{
    rows r;
    char last[CAP + 8];
    const char *observe[] = {"b.changes", "b.echo", "a.Steps_output"};
    rtcosim_fmu_options fo = {.event_mode_where_declared = true};
    run_system(write_ssd(RTCOSIM_FMU_STRINGS_FMI2, RTCOSIM_FMU_NOTES_FMI3, order, 1, "note",
                         "changes"),
               observe, &fo, &r, last, sizeof last);
    size_t row = 0;
    for (long k = 0; k <= STEPS; k++) {
        long before = k <= CAP / 2 ? k - 1 : CAP / 2, after = k <= CAP / 2 ? k : CAP / 2;
        for (int event = k >= 1 && k <= CAP / 2 ? 0 : 1; event < 2; event++, row++) {
            long want = event ? after : before;
            assert_true(row < r.n);
            if (r.value[row] != (double)want || r.t[row] != (rtcosim_time_ns)k * 10000000)
                fail_msg("row %zu: %g changes at %lld ns, expected %ld at step %ld", row,
                         r.value[row], (long long)r.t[row], want, k);
        }
    }
    assert_int_equal(r.n, row);
    assert_string_equal(last, ab_times(CAP / 2));
}

/* FMI 1.0 to 2.0 and 2.0 to 1.0, one thread, and FMI 1.0 to 1.0 on two;
 * each in both orders. */
static void strings_both_ways_both_orders(void **state)
{
    (void)state;
    static const struct {
        const char *producer, *consumer;
        int threads;
    } cases[] = {{RTCOSIM_FMU_STRINGS_FMI1, RTCOSIM_FMU_STRINGS_FMI2, 1},
                 {RTCOSIM_FMU_STRINGS_FMI2, RTCOSIM_FMU_STRINGS_FMI1, 1},
                 {RTCOSIM_FMU_STRINGS_FMI1, RTCOSIM_FMU_STRINGS_FMI1, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check(cases[i].producer, cases[i].consumer, "jacobi", cases[i].threads);
        check(cases[i].producer, cases[i].consumer, "gauss-seidel", cases[i].threads);
    }
}

static void input_events_of_a_changed_string_jacobi(void **state)
{
    (void)state;
    input_events("jacobi");
}

static void input_events_of_a_changed_string_gauss_seidel(void **state)
{
    (void)state;
    input_events("gauss-seidel");
}

typedef struct binary_rows {
    rtcosim_master *m;
    size_t n;
    double size[BINARY_STEPS + 1], sum[BINARY_STEPS + 1];
    size_t blob_size; /* b.blob read as the CLI's recorder reads it */
} binary_rows;

static rtcosim_status keep_binary_row(void *context, rtcosim_time_ns t, const double *values,
                                      size_t count, rtcosim_error *err)
{
    binary_rows *r = context;
    assert_int_equal(count, 2);
    assert_true(r->n <= BINARY_STEPS);
    assert_int_equal(t, (rtcosim_time_ns)r->n * 10000000);
    rtcosim_value blob;
    rtcosim_status st = rtcosim_master_text_observed_values(r->m, &blob, err);
    if (st != RTCOSIM_OK)
        return st;
    r->blob_size = blob.bin.size;
    r->size[r->n] = values[0];
    r->sum[r->n++] = values[1];
    return RTCOSIM_OK;
}

static void run_binary(const char *order, int threads)
{
    const char *path = write_pair("binary.ssd", RTCOSIM_FMU_NOTES_FMI3, NULL, "trail",
                                  RTCOSIM_FMU_NOTES_FMI3, NULL, "blob", order, threads);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"b.blob_size", "b.blob_sum", "b.blob"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 3};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_set_thread_fallback(m, false, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    static binary_rows r;
    memset(&r, 0, sizeof r);
    r.m = m;
    const rtcosim_time_ns stop = BINARY_STEPS * RTCOSIM_NS_PER_S / 100;
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, stop, keep_binary_row, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    assert_int_equal(r.n, BINARY_STEPS + 1);
    bool gs = strcmp(order, "gauss-seidel") == 0;
    for (long k = 0; k <= BINARY_STEPS; k++) {
        long seen = gs ? k : k - 1, size = seen < 0 ? 0 : (seen > TRAIL ? TRAIL : seen), sum = 0;
        for (long j = 1; j <= size; j++)
            sum += j % 256;
        if (r.size[k] != (double)size || r.sum[k] != (double)sum)
            fail_msg("%s, %d thread(s): row %ld: blob_size %g, blob_sum %g; expected %ld, %ld",
                     order, threads, k, r.size[k], r.sum[k], size, sum);
    }
    assert_int_equal(r.blob_size, TRAIL);
}

static void binary_without_event_mode(void **state)
{
    (void)state;
    run_binary("jacobi", 1);
    run_binary("gauss-seidel", 1);
    run_binary("jacobi", 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_both_ways_both_orders),
        cmocka_unit_test(input_events_of_a_changed_string_jacobi),
        cmocka_unit_test(input_events_of_a_changed_string_gauss_seidel),
        cmocka_unit_test(binary_without_event_mode),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
