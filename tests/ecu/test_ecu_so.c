/* Software in the loop: the example vehicle's engine ECU written as ordinary
 * C with static state (models/ecu_engine/engine.c), built as a shared object,
 * runs in place of the built-in engine. Checked against independent truth:
 * the built-in engine's CAN log and actuations (the same algorithm written
 * against the emulator's C API), the sequential scheduler's results for the
 * speculative one (which rolls the object's state back), and the loader's
 * refusals, each naming the file. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../examples/ecus/vehicle.h"

#ifndef ECU_ENGINE_DIR
#error "ECU_ENGINE_DIR: the folder of the built models/ecu_engine objects"
#endif

static const char *so_path(const char *variant)
{
    static char path[4][1024];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/ecu_engine%s.so", ECU_ENGINE_DIR, variant);
    return p;
}

typedef struct vehicle_run {
    uint64_t checksum;
    size_t frames;
    rtcosim_can_log_entry *log;
    double sensor[8], actuator[8];
    unsigned char *image[8]; /* software of the shared-object ECUs */
    uintptr_t group_at[8];   /* where their ecu_group lies: the object's load address + k */
    size_t image_size[8];
    uint64_t rollbacks[8];
    bool conservative[8];
    uint64_t jobs[8];
} vehicle_run;

static vehicle_run run_vehicle(unsigned ecus, const char *const *sil, size_t sil_count,
                               rtcosim_scheduler s, double stop_s)
{
    rtcosim_events *sim;
    rtcosim_ecu_vehicle *v;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_vehicle_config c = {.ecus = ecus, .log_frames = true,
                                    .pair_plants = s == RTCOSIM_SCHEDULER_SPECULATIVE};
    for (size_t i = 0; i < sil_count; i++)
        assert_int_equal(rtcosim_ecu_vehicle_add_sil(&c, sil[i], "test", &err), RTCOSIM_OK);
    if (rtcosim_ecu_vehicle_build(sim, &c, &v, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_run_options o = {.scheduler = s, .threads = 2,
                             .stop_time = (rtcosim_time_ns)(stop_s * 1e3) * RTCOSIM_NS_PER_MS};
    rtcosim_run_stats stats;
    if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    vehicle_run r = {.checksum = rtcosim_ecu_vehicle_checksum(v)};
    r.frames = rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(v));
    r.log = malloc(r.frames * sizeof *r.log + 1);
    memcpy(r.log, rtcosim_can_bus_log(rtcosim_ecu_vehicle_bus(v)), r.frames * sizeof *r.log);
    for (size_t i = 0; i < rtcosim_ecu_vehicle_ecu_count(v) && i < 8; i++) {
        rtcosim_ecu *e = rtcosim_ecu_vehicle_ecu(v, i);
        r.sensor[i] = rtcosim_ecu_sensor(e, 0);
        r.actuator[i] = rtcosim_ecu_actuator(e, 0);
        rtcosim_ecu_stats es;
        rtcosim_ecu_stats_get(e, &es);
        r.jobs[i] = es.jobs;
        if (rtcosim_ecu_shared_object(e)) {
            r.image_size[i] = rtcosim_ecu_software_size(e);
            r.image[i] = malloc(r.image_size[i] + 1);
            rtcosim_ecu_software_read(e, r.image[i]);
            r.group_at[i] = (uintptr_t)rtcosim_ecu_so_symbol(e, "ecu_group");
            assert_true(r.group_at[i] != 0);
        }
        if (s == RTCOSIM_SCHEDULER_SPECULATIVE) {
            rtcosim_lp_speculation ls;
            assert_int_equal(rtcosim_events_lp_speculation(sim, rtcosim_ecu_lp(e), &ls, &err),
                             RTCOSIM_OK);
            r.rollbacks[i] = ls.rollbacks;
            r.conservative[i] = ls.conservative;
        }
    }
    rtcosim_ecu_vehicle_free(v);
    rtcosim_events_free(sim);
    return r;
}

static void run_free(vehicle_run *r)
{
    free(r->log);
    for (int i = 0; i < 8; i++)
        free(r->image[i]);
}

static void same_log(const vehicle_run *a, const vehicle_run *b)
{
    assert_int_equal(a->frames, b->frames);
    assert_true(a->frames > 0);
    for (size_t i = 0; i < a->frames; i++) {
        assert_int_equal(a->log[i].start, b->log[i].start);
        assert_int_equal(a->log[i].end, b->log[i].end);
        assert_int_equal(a->log[i].frame.id, b->log[i].frame.id);
        assert_int_equal(a->log[i].frame.dlc, b->log[i].frame.dlc);
        assert_memory_equal(a->log[i].frame.data, b->log[i].frame.data, a->log[i].frame.dlc);
        assert_int_equal(a->log[i].sender, b->log[i].sender);
    }
}

static void same_signals(const vehicle_run *a, const vehicle_run *b, unsigned ecus)
{
    for (unsigned i = 0; i < ecus; i++) {
        assert_memory_equal(&a->sensor[i], &b->sensor[i], sizeof(double));
        assert_memory_equal(&a->actuator[i], &b->actuator[i], sizeof(double));
        assert_int_equal(a->jobs[i], b->jobs[i]);
    }
}

/* Two loads of one object differ only in words holding addresses inside
 * their own mapping (__dso_handle, pointers to its own data): equal
 * relative to each load's address, everything else equal bit for bit. */
static void same_image(const vehicle_run *a, const vehicle_run *b, unsigned ecu)
{
    assert_int_equal(a->image_size[ecu], b->image_size[ecu]);
    assert_true(a->image_size[ecu] > 0);
    for (size_t k = 0; k + 8 <= a->image_size[ecu]; k += 8) {
        uint64_t x, y;
        memcpy(&x, a->image[ecu] + k, 8);
        memcpy(&y, b->image[ecu] + k, 8);
        if (x != y)
            assert_true(x - a->group_at[ecu] == y - b->group_at[ecu]);
    }
}

/* The object computes what the built-in engine computes: the same frames
 * at the same times with the same bytes (2 s: idle, then the run-up), the
 * same actuations and jobs. */
static void shared_object_engine_equals_the_built_in_one(void **state)
{
    (void)state;
    vehicle_run builtin = run_vehicle(4, NULL, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, 2.0);
    char spec[1100];
    snprintf(spec, sizeof spec, "engine=%s", so_path(""));
    const char *sil[] = {spec};
    vehicle_run so = run_vehicle(4, sil, 1, RTCOSIM_SCHEDULER_SEQUENTIAL, 2.0);
    same_log(&builtin, &so);
    same_signals(&builtin, &so, 4);
    run_free(&builtin);
    run_free(&so);
}

/* Two ECUs on one object (engine and engine1 of 8): each has its own copy,
 * so its own variables, and its group (CAN ids base + 1) as calibration. */
static void two_ecus_on_one_object_keep_their_own_state(void **state)
{
    (void)state;
    vehicle_run builtin = run_vehicle(8, NULL, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, 1.5);
    char a[1100], b[1100];
    snprintf(a, sizeof a, "engine=%s", so_path(""));
    snprintf(b, sizeof b, "engine1=%s", so_path(""));
    const char *sil[] = {a, b};
    vehicle_run so = run_vehicle(8, sil, 2, RTCOSIM_SCHEDULER_SEQUENTIAL, 1.5);
    same_log(&builtin, &so);
    same_signals(&builtin, &so, 8);
    run_free(&builtin);
    run_free(&so);
}

/* The speculative scheduler saves and restores the object's data like any
 * LP state: its results equal the sequential scheduler's bit for bit (CAN
 * log, signals, the objects' variables), and the engines did roll back. */
static void speculative_run_equals_sequential_and_rolls_back(void **state)
{
    (void)state;
    char a[1100], b[1100];
    snprintf(a, sizeof a, "engine=%s", so_path(""));
    snprintf(b, sizeof b, "engine1=%s", so_path(""));
    const char *sil[] = {a, b};
    vehicle_run seq = run_vehicle(8, sil, 2, RTCOSIM_SCHEDULER_SEQUENTIAL, 3.0);
    uint64_t rollbacks = 0;
    /* Rollbacks depend on the threads' timing; a loaded machine may keep a
     * run in step, so up to three runs, each compared in full. */
    for (int attempt = 0; attempt < 3 && rollbacks == 0; attempt++) {
        vehicle_run spec = run_vehicle(8, sil, 2, RTCOSIM_SCHEDULER_SPECULATIVE, 3.0);
        assert_true(spec.checksum == seq.checksum);
        same_log(&seq, &spec);
        same_signals(&seq, &spec, 8);
        same_image(&seq, &spec, 0);
        same_image(&seq, &spec, 4);
        assert_false(spec.conservative[0]);
        assert_false(spec.conservative[4]);
        rollbacks = spec.rollbacks[0] + spec.rollbacks[4];
        run_free(&spec);
    }
    assert_true(rollbacks > 0);
    run_free(&seq);
}

/* An object that imports malloc/free keeps state on the heap, which no copy
 * of its data holds: loaded, but run conservatively, with its results
 * still right. */
static void object_with_heap_state_runs_conservatively(void **state)
{
    (void)state;
    vehicle_run builtin = run_vehicle(4, NULL, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, 1.0);
    char spec[1100];
    snprintf(spec, sizeof spec, "engine=%s", so_path("_heap"));
    const char *sil[] = {spec};
    vehicle_run so = run_vehicle(4, sil, 1, RTCOSIM_SCHEDULER_SPECULATIVE, 1.0);
    assert_true(so.conservative[0]);
    assert_int_equal(so.rollbacks[0], 0);
    same_log(&builtin, &so);
    same_signals(&builtin, &so, 4);
    run_free(&builtin);
    run_free(&so);

    rtcosim_events *sim;
    rtcosim_error err;
    rtcosim_ecu *ecu;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_config c = {.name = "heap", .clock_hz = 1000000, .shared_object = so_path("_heap")};
    assert_int_equal(rtcosim_ecu_create(sim, &c, &ecu, &err), RTCOSIM_OK);
    const char *reason = NULL;
    assert_false(rtcosim_ecu_can_save_state(ecu, &reason));
    assert_non_null(strstr(reason, "ecu_engine_heap.so imports "));
    rtcosim_ecu_free(ecu);
    rtcosim_events_free(sim);
}

static void expect_create_error(const char *path, rtcosim_status status, const char *words)
{
    rtcosim_events *sim;
    rtcosim_error err = {0};
    rtcosim_ecu *ecu = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_config c = {.name = "sil", .clock_hz = 1000000, .shared_object = path};
    assert_int_equal(rtcosim_ecu_create(sim, &c, &ecu, &err), status);
    assert_null(ecu);
    assert_non_null(strstr(err.message, path));
    if (!strstr(err.message, words))
        fail_msg("'%s' does not say '%s'", err.message, words);
    assert_null(strchr(err.message, '\n'));
    rtcosim_events_free(sim);
}

static void bad_objects_are_refused_naming_the_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtcosim-test-so-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char text[1100];
    snprintf(text, sizeof text, "%s/notes.so", dir);
    FILE *f = fopen(text, "w");
    assert_non_null(f);
    fputs("not an object\n", f);
    fclose(f);
    expect_create_error(text, RTCOSIM_EFORMAT, "not an ELF file");
    unlink(text);
    rmdir(dir);
    expect_create_error("/no/such/engine.so", RTCOSIM_EIO, "cannot open");
    /* a shared object of this host that dlopen refuses: it needs a library
     * that is not there */
    expect_create_error(so_path("_missing_dependency"), RTCOSIM_EINVAL,
                        "cannot be loaded: libecu_absent_dependency.so: cannot open shared object");
    expect_create_error(so_path("_tls"), RTCOSIM_EINVAL, "has thread-local variables");

    /* without the entry points a task names */
    rtcosim_events *sim;
    rtcosim_error err;
    rtcosim_ecu *ecu;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_config c = {.name = "engine", .clock_hz = 1000000,
                            .shared_object = so_path("_no_entry")};
    assert_int_equal(rtcosim_ecu_create(sim, &c, &ecu, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_add_task_symbol(ecu, "control", RTCOSIM_NS_PER_MS, 0, 100, 1,
                                                 "control_1ms", &err),
                     RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "ecu_engine_no_entry.so: no entry point 'control_1ms'"));
    assert_int_equal(rtcosim_ecu_so_set(ecu, "no_such_variable", &c, 1, &err), RTCOSIM_ENOTFOUND);
    rtcosim_ecu_free(ecu);
    /* a shared object brings its own state: a software block besides it is an error */
    int block = 0;
    rtcosim_ecu_config both = {.name = "both", .clock_hz = 1000000, .software_size = sizeof block,
                               .software_init = &block, .shared_object = so_path("")};
    assert_int_equal(rtcosim_ecu_create(sim, &both, &ecu, &err), RTCOSIM_EINVAL);
    rtcosim_events_free(sim);
}

/* The private copies are removed at once: nothing stays in TMPDIR. */
static void loading_leaves_no_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtcosim-test-tmp-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", dir, 1);
    rtcosim_events *sim;
    rtcosim_error err;
    rtcosim_ecu *ecu;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_ecu_config c = {.name = "engine", .clock_hz = 1000000, .shared_object = so_path("")};
    assert_int_equal(rtcosim_ecu_create(sim, &c, &ecu, &err), RTCOSIM_OK);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *entry;
    size_t entries = 0;
    while ((entry = readdir(d)))
        entries += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    closedir(d);
    assert_int_equal(entries, 0);
    rtcosim_ecu_free(ecu);
    rtcosim_events_free(sim);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_object_engine_equals_the_built_in_one),
        cmocka_unit_test(two_ecus_on_one_object_keep_their_own_state),
        cmocka_unit_test(speculative_run_equals_sequential_and_rolls_back),
        cmocka_unit_test(object_with_heap_state_runs_conservatively),
        cmocka_unit_test(bad_objects_are_refused_naming_the_file),
        cmocka_unit_test(loading_leaves_no_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
