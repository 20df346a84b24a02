/* The example vehicle's CAN log written while the run goes
 * (rtcosim_can_bus_stream_log): the file each scheduler streams is the one
 * the whole log written after a sequential run makes (rtcosim_can_bus_write_log,
 * the in-memory path), byte for byte in candump -l, ASC, TRC and BLF, and
 * in MDF 4 but for the time it was written in its header (and it reads back
 * as the same frames). The speculative scheduler also with snapshots far apart, so that
 * rollbacks restore states from before frames already written and coast
 * forward over them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../examples/ecus/vehicle.h"
#include "rtcosim/can_log.h"
#include "util/test_util.h"

static const char *const formats[] = {"log", "asc", "trc", "blf", "mf4"};
enum { FORMAT_COUNT = sizeof formats / sizeof formats[0] };

typedef struct scheduler_case {
    const char *name;
    rtcosim_scheduler scheduler;
    unsigned threads, checkpoint_interval;
} scheduler_case;

/* Run the 4-ECU vehicle for 2 s; with `streamed` the log goes to path while
 * the run goes, else it is written whole after the run (the old path). The
 * frames the bus carried. */
static size_t run_vehicle(const scheduler_case *sc, const char *path, bool streamed)
{
    rtcosim_events *sim;
    rtcosim_ecu_vehicle *v;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_vehicle_config c = {.ecus = 4, .log_frames = true,
                                    .pair_plants = sc->scheduler == RTCOSIM_SCHEDULER_SPECULATIVE};
    if (rtcosim_ecu_vehicle_build(sim, &c, &v, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_can_bus *bus = rtcosim_ecu_vehicle_bus(v);
    rtcosim_can_log_writer *w = NULL;
    if (streamed) {
        rtcosim_can_log_layout layout;
        rtcosim_can_bus_log_layout(bus, &layout);
        assert_true(layout.frames == RTCOSIM_CAN_LOG_FRAMES_UNKNOWN);
        assert_false(layout.xl); /* the vehicle's frames are classic */
        if (rtcosim_can_log_writer_open(path, rtcosim_can_log_format_of(path),
                                        rtcosim_can_bus_name(bus), &layout, &w, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_can_bus_stream_log(bus, w, &err), RTCOSIM_OK);
    }
    rtcosim_run_options o = {.scheduler = sc->scheduler, .threads = sc->threads,
                             .stop_time = 2 * RTCOSIM_NS_PER_S,
                             .checkpoint_interval = sc->checkpoint_interval};
    rtcosim_run_stats stats;
    if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s: %s", sc->name, err.message);
    size_t frames;
    (void)rtcosim_can_bus_log_digest(bus, &frames);
    if (streamed) {
        /* everything went to the file, nothing is left in memory */
        assert_int_equal(rtcosim_can_bus_log_written(bus), frames);
        assert_int_equal(rtcosim_can_bus_log_count(bus), 0);
        assert_int_equal(rtcosim_can_bus_stream_log(bus, NULL, &err), RTCOSIM_OK);
        if (rtcosim_can_log_writer_close(w, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
    } else {
        assert_int_equal(rtcosim_can_bus_log_count(bus), frames);
        if (rtcosim_can_bus_write_log(bus, path, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
    }
    rtcosim_ecu_vehicle_free(v);
    rtcosim_events_free(sim);
    return frames;
}

static rtcosim_can_log *read_log(const char *path)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err = {0};
    if (rtcosim_can_log_read(path, &log, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return log;
}

static void same_frames(const char *a_path, const char *b_path, size_t frames)
{
    rtcosim_can_log *a = read_log(a_path), *b = read_log(b_path);
    assert_int_equal(rtcosim_can_log_count(a), frames);
    assert_int_equal(rtcosim_can_log_count(b), frames);
    const rtcosim_can_log_record *ra = rtcosim_can_log_records(a), *rb = rtcosim_can_log_records(b);
    for (size_t i = 0; i < frames; i++) {
        assert_int_equal(ra[i].time, rb[i].time);
        assert_int_equal(ra[i].id, rb[i].id);
        assert_int_equal(ra[i].extended, rb[i].extended);
        assert_int_equal(ra[i].size, rb[i].size);
        assert_memory_equal(ra[i].data, rb[i].data, ra[i].size);
    }
    rtcosim_can_log_free(a);
    rtcosim_can_log_free(b);
}

static void streamed_log_is_the_whole_log_written_after_the_run(void **state)
{
    (void)state;
    const scheduler_case cases[] = {
        {"sequential", RTCOSIM_SCHEDULER_SEQUENTIAL, 1, 0},
        {"conservative", RTCOSIM_SCHEDULER_CONSERVATIVE, 2, 0},
        {"speculative", RTCOSIM_SCHEDULER_SPECULATIVE, 2, 0},
        {"speculative-coasting", RTCOSIM_SCHEDULER_SPECULATIVE, 2, 32},
    };
    const scheduler_case *reference = &cases[0];
    for (size_t f = 0; f < FORMAT_COUNT; f++) {
        char name[64];
        snprintf(name, sizeof name, "whole.%s", formats[f]);
        char whole[512];
        snprintf(whole, sizeof whole, "%s", tu_scratch(name));
        size_t frames = run_vehicle(reference, whole, false);
        assert_true(frames > 400); /* ~270 frames per simulated second */
        size_t size;
        const char *text = tu_read_file(whole, &size);
        char *expected = malloc(size + 1);
        assert_non_null(expected);
        memcpy(expected, text, size);
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            snprintf(name, sizeof name, "%s.%s", cases[k].name, formats[f]);
            char streamed[512];
            snprintf(streamed, sizeof streamed, "%s", tu_scratch(name));
            assert_int_equal(run_vehicle(&cases[k], streamed, true), frames);
            size_t got_size;
            const char *got = tu_read_file(streamed, &got_size);
            if (strcmp(formats[f], "mf4") == 0) {
                /* the same but for the time it was written (the HD and FH
                 * blocks' 8-byte times) */
                assert_int_equal(got_size, size);
                size_t differ = 0;
                for (size_t i = 0; i < size; i++)
                    differ += got[i] != expected[i];
                if (differ > 16)
                    fail_msg("%s: the MDF logs differ in %zu bytes", cases[k].name, differ);
                same_frames(whole, streamed, frames);
                continue;
            }
            if (got_size != size || memcmp(got, expected, size) != 0)
                fail_msg("%s, %s: the streamed log (%zu bytes) differs from the whole log (%zu"
                         " bytes)", cases[k].name, formats[f], got_size, size);
        }
        free(expected);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streamed_log_is_the_whole_log_written_after_the_run),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
