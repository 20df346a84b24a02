/* Real-time runs of a system description (system_rt.h) on virtual clocks:
 * equality with the plain run, estimates at hand-computed frames when the
 * non-real-time part is late by an explicit schedule, a crashing and a
 * hanging partner, calibration refusal, bad names and maps, and threads
 * kept off the paced thread. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/results.h"
#include "rtcosim/system_rt.h"
#include "util/test_util.h"

#define MS 1000000LL

typedef struct fixture {
    rtcosim_system_desc *desc;
    rtcosim_clock *pacing, *partner;
    rtcosim_system_rt_options options;
    rtcosim_system_rt *srt;
    rtcosim_error err;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(rtcosim_system_desc_load(SPRINGS_SSD, &f->desc, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &f->pacing, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &f->partner, &f->err), RTCOSIM_OK);
    rtcosim_system_rt_options_init(&f->options);
    f->options.rt.clock = f->pacing;
    f->options.rt.partner_clock = f->partner;
    f->options.rt.start_time = 0;
    f->options.rt.stop_time = 100 * MS;
    f->options.rt.non_realtime = "b";
    f->options.rt.calibrate = false;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rtcosim_system_rt_free(f->srt);
    rtcosim_clock_free(f->pacing);
    rtcosim_clock_free(f->partner);
    rtcosim_system_desc_free(f->desc);
    free(f);
    return 0;
}

static char *read_text(const char *path)
{
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    fseek(file, 0, SEEK_END);
    long n = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, file), (size_t)n);
    fclose(file);
    return text;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* The plain master run of the same system, written by the same recorder. */
typedef struct plain_out {
    rtcosim_recorder *recorder;
    rtcosim_value row[8];
} plain_out;

static rtcosim_status plain_row(void *context, rtcosim_time_ns t, const double *values,
                                size_t count, rtcosim_error *err)
{
    plain_out *out = context;
    for (size_t i = 0; i < count; i++)
        out->row[i].f64 = values[i];
    return rtcosim_recorder_push_row(out->recorder, t, out->row, err);
}

/* The real-time run records every output of the real-time part (a) and the
 * non-real-time outputs that feed it (b.x); b.v stays on the partner's side. */
static const char *const rt_columns[] = {"a.x", "a.v", "b.x"};

static void run_plain_observing(const rtcosim_system_desc *desc, const char *path,
                                const char *const *observe, size_t observe_count)
{
    rtcosim_error err;
    rtcosim_master *m = NULL;
    rtcosim_system_build_options b = {.observe = observe, .observe_count = observe_count};
    assert_int_equal(rtcosim_system_build_master(desc, &b, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, 100 * MS, &err), RTCOSIM_OK);
    rtcosim_column columns[8];
    size_t n = rtcosim_master_observed_count(m);
    for (size_t i = 0; i < n; i++)
        columns[i] = (rtcosim_column){.name = rtcosim_master_observed_name(m, i), .type = RTCOSIM_TYPE_FLOAT64};
    plain_out out = {0};
    rtcosim_recorder_options ro = {.path = path, .columns = columns, .column_count = n};
    assert_int_equal(rtcosim_recorder_open(&ro, &out.recorder, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run(m, 100 * MS, plain_row, &out, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_recorder_close(out.recorder, NULL, &err), RTCOSIM_OK);
    rtcosim_master_free(m);
}

static void run_plain(const rtcosim_system_desc *desc, const char *path)
{
    run_plain_observing(desc, path, rt_columns, 3);
}

/* No output of the springs system has direct feedthrough, and the parts
 * exchange every frame: the real-time run must reproduce the plain Jacobi
 * run exactly, through the linear transformations on both crossings. */
static void test_on_time_real_time_run_equals_plain_run_bit_for_bit(void **state)
{
    fixture *f = *state;
    run_plain(f->desc, tu_scratch("plain.csv"));
    f->options.output_file = tu_scratch("realtime.csv");
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt));
    assert_int_equal(s->frames, 100);
    assert_int_equal(s->estimated_exchanges, 0);
    char *plain = read_text(tu_scratch("plain.csv")), *rt = read_text(tu_scratch("realtime.csv"));
    assert_int_equal(count_lines(plain), 102); /* header + t = 0 .. 0.1 s */
    assert_string_equal(plain, rt);
    free(plain);
    free(rt);
}

/* springs.ssd with b stepping 5 ms (five macro steps): the part holding b
 * alone has its next communication point 5 frames ahead. Runs it real-time
 * with b's or a's part non-real-time and returns the results text. */
static const char *const crossing_columns[] = {"a.x", "b.x"};

static char *run_multirate(fixture *f, const char *non_realtime, const char *name)
{
    rtcosim_system_desc_free(f->desc);
    f->desc = NULL;
    assert_int_equal(rtcosim_system_desc_load(MULTIRATE_SSD, &f->desc, &f->err), RTCOSIM_OK);
    f->options.rt.non_realtime = non_realtime;
    f->options.build.observe = crossing_columns;
    f->options.build.observe_count = 2;
    f->options.output_file = tu_scratch(name);
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt));
    assert_int_equal(s->frames, 100);
    assert_int_equal(s->estimated_exchanges, 0);
    return read_text(tu_scratch(name));
}

/* Regression: a part whose every component steps a multiple of the macro
 * step ran ahead of the frames and stopped in frame 1. Jacobi, no
 * feedthrough, exchange every frame: a reads b.x of b's latest communication
 * point (0, 5, 10 ms ...) and b reads a.x at its own, as in the plain run,
 * so the run equals the plain Jacobi run bit for bit. */
static void test_multirate_non_realtime_part_equals_plain_run_bit_for_bit(void **state)
{
    fixture *f = *state;
    char *rt = run_multirate(f, "b", "multirate_b.csv");
    run_plain_observing(f->desc, tu_scratch("multirate_plain.csv"), crossing_columns, 2);
    char *plain = read_text(tu_scratch("multirate_plain.csv"));
    assert_int_equal(count_lines(plain), 102);
    assert_string_equal(plain, rt);
    free(plain);
    free(rt);
}

/* The same with b in the real-time part: its master is ahead of the paced
 * frames. What a reads equals the plain run, so every row on b's grid (every
 * fifth) equals the plain run's; between them the recorded b.x is b's latest
 * step's value (as the master observes it in a plain Gauss-Seidel run). */
static void test_multirate_real_time_part_matches_plain_run_on_its_grid(void **state)
{
    fixture *f = *state;
    char *rt = run_multirate(f, "a", "multirate_a.csv");
    run_plain_observing(f->desc, tu_scratch("multirate_plain_a.csv"), crossing_columns, 2);
    char *plain = read_text(tu_scratch("multirate_plain_a.csv"));
    assert_int_equal(count_lines(rt), 102);
    char *save_p = NULL, *save_r = NULL;
    char *lp = strtok_r(plain, "\n", &save_p), *lr = strtok_r(rt, "\n", &save_r);
    size_t row = 0, compared = 0;
    for (; lp && lr; lp = strtok_r(NULL, "\n", &save_p), lr = strtok_r(NULL, "\n", &save_r), row++)
        if (row == 0 || (row - 1) % 5 == 0) {
            assert_string_equal(lp, lr);
            compared++;
        }
    assert_null(lp);
    assert_null(lr);
    assert_int_equal(compared, 1 + 21); /* header, t = 0, 5, ..., 100 ms */
    free(plain);
    free(rt);
}

/* Partner step n (stamp (n-1) H) takes 2.5 ms when n = 4 (mod 10), else no
 * time. Step 4 starts at 3 ms, ends at 5.5 ms: frames 4 and 5 (te = 4, 5 ms)
 * miss the data valid at te (lag 1 and 2 ms) and use estimates; at 6 ms the
 * partner has caught up (steps 5 and 6 take no time). Same every 10 frames. */
static void test_estimates_used_exactly_at_hand_computed_frames(void **state)
{
    fixture *f = *state;
    rtcosim_time_ns schedule[10] = {0, 0, 0, 2500000, 0, 0, 0, 0, 0, 0};
    rtcosim_system_rt_delay delay = {.component = "b",
                                     .delay = {.schedule = schedule, .schedule_length = 10}};
    f->options.delays = &delay;
    f->options.delay_count = 1;
    f->options.rt.frame_log = 1000;
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt *rt = rtcosim_system_rt_executor(f->srt);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rt);
    assert_int_equal(rtcosim_rt_frame_count(rt), 100);
    for (size_t k = 0; k < 100; k++) {
        const rtcosim_rt_frame *fr = rtcosim_rt_frame_at(rt, k);
        bool expected = k >= 4 && (k % 10 == 4 || k % 10 == 5);
        if (expected != ((fr->flags & RTCOSIM_FRAME_ESTIMATED) != 0))
            fail_msg("frame %zu: estimated %d, expected %d", k,
                     (fr->flags & RTCOSIM_FRAME_ESTIMATED) != 0, expected);
        if (expected)
            assert_int_equal(fr->lag, (rtcosim_time_ns)(k % 10 - 3) * MS);
    }
    assert_int_equal(s->estimated_exchanges, 20);
    assert_int_equal(s->late_episodes, 10);
    assert_int_equal(s->max_lag, 2 * MS);
    assert_int_equal(s->resync_frames_max, 2);
    assert_false(s->partner_lost);
    /* One signal (b.x) reaches the real-time part: one record per estimate,
     * each graded by the late data. The first estimate is ZOH's hold of b.x
     * at 3 ms, which the plain run computes identically (nothing was late
     * before), as it does the late value at 4 ms. */
    assert_int_equal(rtcosim_rt_record_count(rt), 20);
    const rtcosim_estimate_record *r = rtcosim_rt_record_at(rt, 0);
    assert_int_equal(r->te, 4 * MS);
    rtcosim_master *m = NULL;
    assert_int_equal(rtcosim_system_build_master(f->desc, NULL, &m, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, 100 * MS, &f->err), RTCOSIM_OK);
    double b_x[5];
    for (int k = 0; k <= 4; k++) {
        const double *v = rtcosim_master_observed_values(m);
        b_x[k] = v[2]; /* observed: every output, a.x, a.v, b.x, b.v */
        if (k < 4)
            assert_int_equal(rtcosim_master_step(m, &f->err), RTCOSIM_OK);
    }
    rtcosim_master_free(m);
    assert_true(r->estimate == b_x[3]);
    assert_true(r->late_value == b_x[4]);
    assert_true(r->error == b_x[4] - b_x[3]);
}

/* The partner's 50th step crashes: it is reported lost when the real-time
 * part receives the failure (frame 50), the real-time part runs to the stop
 * on estimates, and every results row is written. */
static void test_crashing_partner_is_lost_and_real_time_part_finishes(void **state)
{
    fixture *f = *state;
    rtcosim_system_rt_delay delay = {.component = "b", .delay = {.fail_at_step = 50}};
    f->options.delays = &delay;
    f->options.delay_count = 1;
    f->options.output_file = tu_scratch("crash.csv");
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt));
    assert_true(s->partner_lost);
    assert_int_equal(s->partner_lost_at, 50 * MS);
    assert_non_null(strstr(s->partner_lost_reason, "partner failed"));
    assert_int_equal(s->frames, 100);
    assert_int_equal(s->estimated_exchanges, 50); /* te = 50 .. 99 ms */
    char *text = read_text(tu_scratch("crash.csv"));
    assert_int_equal(count_lines(text), 102);
    free(text);
}

/* From step 20 on (stamp 19 ms) the partner takes 1 s per step: its newest
 * data stay valid at 19 ms, and with a 10 ms timeout it is declared lost at
 * the first exchange with a lag above 10 ms, te = 30 ms. */
static void test_hanging_partner_declared_lost_after_timeout(void **state)
{
    fixture *f = *state;
    rtcosim_system_rt_delay delay = {.component = "b",
                                     .delay = {.hang_at_step = 20, .hang_time = 1000 * MS}};
    f->options.delays = &delay;
    f->options.delay_count = 1;
    f->options.rt.partner_timeout = 10 * MS;
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt));
    assert_true(s->partner_lost);
    assert_int_equal(s->partner_lost_at, 30 * MS);
    assert_int_equal(s->frames, 100);
}

/* A real-time component that needs 2 ms per 1 ms frame: calibration refuses
 * the run before it starts, with the figures, and leaves no results file. */
static void test_calibration_refuses_real_time_part_that_cannot_keep_its_frame(void **state)
{
    fixture *f = *state;
    rtcosim_time_ns slow = 2 * MS;
    rtcosim_system_rt_delay delay = {.component = "a",
                                     .delay = {.schedule = &slow, .schedule_length = 1}};
    f->options.delays = &delay;
    f->options.delay_count = 1;
    f->options.rt.calibrate = true;
    f->options.output_file = tu_scratch("refused.csv");
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_ETIMEOUT);
    assert_non_null(strstr(f->err.message, "springs.ssd: the real-time part (a) cannot keep its "
                                           "frame"));
    assert_non_null(strstr(f->err.message, "took 2000.0 us per frame (median), 2000.0 us (99th "
                                           "percentile), over the budget of 900.0 us"));
    assert_non_null(strstr(f->err.message, "or run anyway with --no-calibrate"));
    assert_int_equal(rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt))->frames, 0);
    assert_null(fopen(tu_scratch("refused.csv"), "r"));
}

static void test_unknown_non_realtime_component_is_named(void **state)
{
    fixture *f = *state;
    f->options.rt.non_realtime = "b,gearbox";
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err),
                     RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(f->err.message, "springs.ssd: non-real-time component 'gearbox' is "
                                           "not in the system (components: a, b)"));
}

static void test_every_component_non_realtime_is_refused(void **state)
{
    fixture *f = *state;
    f->options.rt.non_realtime = "a,b";
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(f->err.message, "every component is non-real-time"));
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    fclose(file);
}

/* "map:" + the map file's path in the scratch directory + the rest of the spec. */
static const char *map_spec(const char *file, const char *rest)
{
    static char buf[4200];
    snprintf(buf, sizeof buf, "map:%s%s", tu_scratch(file), rest);
    return buf;
}

static void test_malformed_estimator_map_names_file_and_line(void **state)
{
    fixture *f = *state;
    write_text(tu_scratch("bad_map.csv"), "a.x,b.x\n-1,0\n1,zero\n");
    rtcosim_estimator_spec_parse(map_spec("bad_map.csv", ""), &f->options.rt.estimator, &f->err);
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(f->err.message, "bad_map.csv:3"));
}

/* The map covers a.x in [-0.1, 0.1]; the first estimate (frame 4, with the
 * schedule of the test above) is needed at a.x = 0.4 m (about 100 m/s * 4 ms)
 * and range=error stops the run there; the rows so far are kept. */
static void test_map_not_covering_signal_range_stops_run_keeping_results(void **state)
{
    fixture *f = *state;
    write_text(tu_scratch("narrow_map.csv"), "a.x,b.x\n-0.1,0\n0.1,0\n");
    assert_int_equal(rtcosim_estimator_spec_parse(map_spec("narrow_map.csv", ",range=error"),
                                                  &f->options.rt.estimator, &f->err),
                     RTCOSIM_OK);
    rtcosim_time_ns schedule[10] = {0, 0, 0, 2500000, 0, 0, 0, 0, 0, 0};
    rtcosim_system_rt_delay delay = {.component = "b",
                                     .delay = {.schedule = schedule, .schedule_length = 10}};
    f->options.delays = &delay;
    f->options.delay_count = 1;
    f->options.output_file = tu_scratch("narrow.csv");
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_EINVAL);
    assert_non_null(strstr(f->err.message, "a.x"));
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt));
    assert_true(s->failed);
    assert_int_equal(s->stopped_at, 4 * MS);
    char *text = read_text(tu_scratch("narrow.csv"));
    assert_int_equal(count_lines(text), 6); /* header + t = 0 .. 4 ms */
    free(text);
}

/* Threads in a real-time run: the real-time part stays on the paced thread
 * (one thread, whatever is asked), the non-real-time part gets the pool;
 * the results equal the run without threads bit for bit. */
static double *vehicle_final(unsigned threads, unsigned *rt_threads, unsigned *partner_threads)
{
    rtcosim_error err;
    rtcosim_system_desc *desc = NULL;
    rtcosim_clock *pacing = NULL, *partner = NULL;
    assert_int_equal(rtcosim_system_desc_load(VEHICLE_SSD, &desc, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &pacing, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &partner, &err), RTCOSIM_OK);
    rtcosim_system_rt_options o;
    rtcosim_system_rt_options_init(&o);
    o.rt.clock = pacing;
    o.rt.partner_clock = partner;
    o.rt.start_time = 0;
    o.rt.stop_time = 200 * MS;
    o.rt.non_realtime = "transmission,body";
    o.rt.calibrate = false;
    o.build.overrides.threads = (int)threads;
    rtcosim_system_rt *srt = NULL;
    if (rtcosim_system_rt_create(desc, &o, &srt, &err) != RTCOSIM_OK ||
        rtcosim_system_rt_run(srt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_rt_get_summary(rtcosim_system_rt_executor(srt))->frames, 200);
    rtcosim_master_parallel p;
    assert_int_equal(rtcosim_master_get_parallel(rtcosim_system_rt_part(srt, false), &p, &err),
                     RTCOSIM_OK);
    *rt_threads = p.threads;
    assert_int_equal(rtcosim_master_get_parallel(rtcosim_system_rt_part(srt, true), &p, &err),
                     RTCOSIM_OK);
    *partner_threads = p.threads;
    size_t n = rtcosim_system_rt_column_count(srt);
    double *values = calloc(n + 1, sizeof *values);
    assert_non_null(values);
    memcpy(values, rtcosim_system_rt_last_values(srt), n * sizeof *values);
    values[n] = NAN;
    rtcosim_system_rt_free(srt);
    rtcosim_clock_free(pacing);
    rtcosim_clock_free(partner);
    rtcosim_system_desc_free(desc);
    return values;
}

static void test_threads_go_to_the_non_realtime_part_only(void **state)
{
    (void)state;
    unsigned rt1, partner1, rt2, partner2;
    double *one = vehicle_final(1, &rt1, &partner1), *two = vehicle_final(2, &rt2, &partner2);
    assert_int_equal(rt1, 1);
    assert_int_equal(partner1, 1);
    assert_int_equal(rt2, 1);      /* the paced thread never hands off */
    assert_int_equal(partner2, 2); /* transmission and body may share out */
    size_t n = 0;
    while (!isnan(one[n]))
        n++;
    assert_true(n >= 3);
    assert_memory_equal(one, two, n * sizeof *one);
    free(one);
    free(two);
}

/* A nested SSP system: b lives in the sub-system "rear" and is flattened to
 * the component "rear.b". With rear.b non-real-time the parts split at that
 * name (not at the first dot of "rear.b.x"), and the on-time real-time run
 * gives the flat springs system's plain run bit for bit (header aside). */
static void test_nested_component_splits_at_its_full_name(void **state)
{
    fixture *f = *state;
    run_plain(f->desc, tu_scratch("flat_plain.csv"));
    rtcosim_system_desc_free(f->desc);
    f->desc = NULL;
    assert_int_equal(rtcosim_system_desc_load(NESTED_SSD, &f->desc, &f->err), RTCOSIM_OK);
    static const char *const nested_columns[] = {"a.x", "a.v", "rear.b.x"};
    f->options.rt.non_realtime = "rear.b";
    f->options.build.observe = nested_columns;
    f->options.build.observe_count = 3;
    f->options.output_file = tu_scratch("nested_rt.csv");
    if (rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err) != RTCOSIM_OK ||
        rtcosim_system_rt_run(f->srt, &f->err) != RTCOSIM_OK)
        fail_msg("%s", f->err.message);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rtcosim_system_rt_executor(f->srt));
    assert_int_equal(s->frames, 100);
    assert_int_equal(s->estimated_exchanges, 0);
    char *flat = read_text(tu_scratch("flat_plain.csv"));
    char *nested = read_text(tu_scratch("nested_rt.csv"));
    const char header[] = "\"time\",\"a.x\",\"a.v\",\"rear.b.x\"\n";
    assert_true(strncmp(nested, header, sizeof header - 1) == 0);
    assert_int_equal(count_lines(flat), 102);
    assert_string_equal(strchr(flat, '\n'), strchr(nested, '\n'));
    free(flat);
    free(nested);
}

/* chain.ssd: b and c each a non-real-time part of its own, b feeding c
 * through the exchange point. On time, Jacobi, no feedthrough: the run
 * equals the plain Jacobi run bit for bit, the final row included (each
 * part's last step finished with the inputs it was sent). */
static const char *const chain_columns[] = {"a.x", "b.x", "c.x", "d.x"};

static void load_chain(fixture *f)
{
    rtcosim_system_desc_free(f->desc);
    f->desc = NULL;
    assert_int_equal(rtcosim_system_desc_load(CHAIN_SSD, &f->desc, &f->err), RTCOSIM_OK);
    f->options.rt.non_realtime = "b;c";
    f->options.build.observe = chain_columns;
    f->options.build.observe_count = 4;
}

static void test_two_non_realtime_parts_on_time_equal_plain_run_bit_for_bit(void **state)
{
    fixture *f = *state;
    load_chain(f);
    run_plain_observing(f->desc, tu_scratch("chain_plain.csv"), chain_columns, 4);
    f->options.output_file = tu_scratch("chain_rt.csv");
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_nonrealtime_count(f->srt), 2);
    assert_string_equal(rtcosim_system_rt_part_names(f->srt, false), "a, d");
    assert_string_equal(rtcosim_system_rt_part_names(f->srt, true), "b | c");
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt *rt = rtcosim_system_rt_executor(f->srt);
    assert_int_equal(rtcosim_rt_part_count(rt), 2);
    assert_string_equal(rtcosim_rt_part_summary_at(rt, 0)->name, "b");
    assert_string_equal(rtcosim_rt_part_summary_at(rt, 1)->name, "c");
    assert_int_equal(rtcosim_rt_get_summary(rt)->estimated_exchanges, 0);
    char *plain = read_text(tu_scratch("chain_plain.csv"));
    char *real = read_text(tu_scratch("chain_rt.csv"));
    assert_int_equal(count_lines(plain), 102);
    assert_string_equal(plain, real);
    free(plain);
    free(real);
}

/* b's step 3 of every 10 takes 2.5 ms: frames 4 and 5 of every 10 estimate
 * b.x (one episode of 2); c's step 6 takes 1.5 ms: frame 7 estimates c.x
 * (one episode of 1). 99 exchanges after the first; b's last episode is at
 * 94-95, c's at 97 (resolved at 98). */
static void test_two_late_parts_estimate_and_resynchronize_each_on_its_own(void **state)
{
    fixture *f = *state;
    load_chain(f);
    rtcosim_system_rt_delay delays[2];
    rtcosim_time_ns *schedules[2];
    assert_int_equal(rtcosim_system_rt_delay_parse("b:schedule=0/0/0/0.0025/0/0/0/0/0/0",
                                                   &delays[0], &schedules[0], &f->err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_delay_parse("c:schedule=0/0/0/0/0/0/0.0015/0/0/0",
                                                   &delays[1], &schedules[1], &f->err),
                     RTCOSIM_OK);
    f->options.delays = delays;
    f->options.delay_count = 2;
    assert_int_equal(rtcosim_system_rt_create(f->desc, &f->options, &f->srt, &f->err), RTCOSIM_OK);
    assert_int_equal(rtcosim_system_rt_run(f->srt, &f->err), RTCOSIM_OK);
    const rtcosim_rt *rt = rtcosim_system_rt_executor(f->srt);
    const rtcosim_rt_part_summary *b = rtcosim_rt_part_summary_at(rt, 0);
    const rtcosim_rt_part_summary *c = rtcosim_rt_part_summary_at(rt, 1);
    assert_int_equal(b->estimated_exchanges, 20);
    assert_int_equal(b->late_episodes, 10);
    assert_int_equal(b->resync_frames_median, 2);
    assert_int_equal(b->resync_frames_max, 2);
    assert_int_equal(b->max_lag, 2 * MS);
    assert_int_equal(c->estimated_exchanges, 10);
    assert_int_equal(c->late_episodes, 10);
    assert_int_equal(c->resync_frames_max, 1);
    assert_int_equal(c->max_lag, 1 * MS);
    for (size_t k = 0; k < 100; k++) {
        assert_int_equal(rtcosim_rt_frame_part_at(rt, k, 0)->estimated, k % 10 == 4 || k % 10 == 5);
        assert_int_equal(rtcosim_rt_frame_part_at(rt, k, 1)->estimated, k % 10 == 7);
    }
    /* Steps 0..98 computed on each part's processor (the last exchange's
     * is finished after the run, off the clock): 10 of 2.5 ms and 10 of 1.5. */
    assert_int_equal(b->compute_max, 2500000);
    assert_true(fabs(b->load - 25.0 / 99) < 1e-9);
    assert_true(fabs(c->load - 15.0 / 99) < 1e-9);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rt);
    assert_int_equal(s->estimated_exchanges, 30);
    assert_int_equal(s->late_episodes, 20);
    assert_int_equal(s->resync_frames_median, 2);
    free(schedules[0]);
    free(schedules[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_on_time_real_time_run_equals_plain_run_bit_for_bit,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_multirate_non_realtime_part_equals_plain_run_bit_for_bit, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_multirate_real_time_part_matches_plain_run_on_its_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_estimates_used_exactly_at_hand_computed_frames, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_crashing_partner_is_lost_and_real_time_part_finishes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_hanging_partner_declared_lost_after_timeout, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_calibration_refuses_real_time_part_that_cannot_keep_its_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_non_realtime_component_is_named, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_every_component_non_realtime_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_malformed_estimator_map_names_file_and_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_map_not_covering_signal_range_stops_run_keeping_results, setup, teardown),
        cmocka_unit_test(test_threads_go_to_the_non_realtime_part_only),
        cmocka_unit_test_setup_teardown(
            test_two_non_realtime_parts_on_time_equal_plain_run_bit_for_bit, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_two_late_parts_estimate_and_resynchronize_each_on_its_own, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nested_component_splits_at_its_full_name, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
