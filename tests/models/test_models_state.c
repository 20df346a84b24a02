/* FMU state of every model FMU (FMI 2.0 and 3.0): a restored snapshot
 * reproduces the following steps bit for bit, a serialized state restores
 * into another instance, and corrupt bytes are refused without harm. The
 * truth is the FMU's own run from the same state, compared with memcmp. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmu_driver.h"

FMU_TARGETS(DAHLQUIST)
FMU_TARGETS(BOUNCINGBALL)
FMU_TARGETS(FEEDTHROUGH)
FMU_TARGETS(FAULTY)

/* A model, its step size, and the Float64 values whose trajectory must
 * repeat (time first). */
typedef struct scenario {
    const fmu_target *target;
    double h;
    uint32_t vrs[3];
} scenario;

/* BouncingBall's steps from 0.3 s on cross impacts and the transition to
 * rest; Feedthrough's Float64 input is changed on every step (see drive). */
static const scenario scenarios[] = {
    {&DAHLQUIST_fmi2, 1e-3, {0, 1, 2}},    {&DAHLQUIST_fmi3, 1e-3, {0, 1, 2}},
    {&BOUNCINGBALL_fmi2, 0.13, {0, 1, 3}}, {&BOUNCINGBALL_fmi3, 0.13, {0, 1, 3}},
    {&FEEDTHROUGH_fmi2, 0.01, {0, 2, 4}},  {&FEEDTHROUGH_fmi3, 0.01, {0, 2, 4}},
    {&FAULTY_fmi2, 1e-3, {0, 1, 2}},       {&FAULTY_fmi3, 1e-3, {0, 1, 2}},
};
enum { SCENARIOS = sizeof scenarios / sizeof scenarios[0], VALUES = 3 };

static bool is_feedthrough(const scenario *s)
{
    return s->target == &FEEDTHROUGH_fmi2 || s->target == &FEEDTHROUGH_fmi3;
}

/* Takes `steps` steps from step index `first`, recording the values after
 * each. Feedthrough gets a new input on every step so that its outputs move. */
static void drive(fmu *f, const scenario *s, int first, int steps, double *record)
{
    for (int i = 0; i < steps; i++) {
        const int n = first + i;
        if (is_feedthrough(s)) {
            assert_int_equal(fmu_set_real(f, 1, sin(n)), 0);
            assert_int_equal(fmu_set_real(f, 3, cos(n)), 0);
        }
        assert_int_equal(fmu_step(f, n * s->h, s->h), 0);
        for (int k = 0; k < VALUES; k++)
            assert_int_equal(fmu_get_real(f, s->vrs[k], &record[i * VALUES + k]), 0);
    }
}

static void restoring_a_snapshot_reproduces_steps_bit_for_bit(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < SCENARIOS; i++) {
        const scenario *s = &scenarios[i];
        fmu f;
        assert_true(fmu_open(&f, s->target));
        assert_true(fmu_start(&f));
        double first[VALUES * 20], again[VALUES * 20];
        drive(&f, s, 0, 3, first);
        void *snapshot = NULL;
        assert_int_equal(fmu_get_state(&f, &snapshot), 0);
        assert_non_null(snapshot);
        drive(&f, s, 3, 20, first);
        assert_int_equal(fmu_set_state(&f, snapshot), 0);
        assert_true(fabs(fmu_real(&f, 0) - 3 * s->h) < 1e-15); /* time is part of the state */
        drive(&f, s, 3, 20, again);
        assert_memory_equal(first, again, sizeof first);
        /* The snapshot stays valid after use. */
        assert_int_equal(fmu_set_state(&f, snapshot), 0);
        drive(&f, s, 3, 20, again);
        assert_memory_equal(first, again, sizeof first);
        assert_int_equal(fmu_free_state(&f, &snapshot), 0);
        assert_null(snapshot);
        fmu_close(&f);
    }
}

static void serialized_state_restores_into_another_instance(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < SCENARIOS; i++) {
        const scenario *s = &scenarios[i];
        fmu a, b;
        assert_true(fmu_open(&a, s->target));
        assert_true(fmu_open(&b, s->target));
        assert_true(fmu_start(&a));
        assert_true(fmu_instantiate(&b)); /* b is only instantiated */
        double from_a[VALUES * 10], from_b[VALUES * 10];
        drive(&a, s, 0, 4, from_a);
        void *state = NULL, *restored = NULL;
        unsigned char *bytes = NULL;
        size_t size = 0;
        assert_int_equal(fmu_get_state(&a, &state), 0);
        assert_int_equal(fmu_serialize(&a, state, &bytes, &size), 0);
        assert_true(size > 0);
        assert_int_equal(fmu_deserialize(&b, bytes, size, &restored), 0);
        assert_int_equal(fmu_set_state(&b, restored), 0);
        drive(&a, s, 4, 10, from_a);
        drive(&b, s, 4, 10, from_b);
        assert_memory_equal(from_a, from_b, sizeof from_a);
        /* Serializing the same state twice gives the same bytes. */
        unsigned char *bytes2 = NULL;
        size_t size2 = 0;
        assert_int_equal(fmu_serialize(&b, restored, &bytes2, &size2), 0);
        assert_int_equal(size2, size);
        assert_memory_equal(bytes, bytes2, size);
        free(bytes);
        free(bytes2);
        assert_int_equal(fmu_free_state(&a, &state), 0);
        assert_int_equal(fmu_free_state(&b, &restored), 0);
        fmu_close(&a);
        fmu_close(&b);
    }
}

static void get_state_overwrites_the_given_snapshot(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_start(&f));
    void *snapshot = NULL;
    assert_int_equal(fmu_get_state(&f, &snapshot), 0);
    void *first = snapshot;
    assert_int_equal(fmu_step(&f, 0.0, 0.5), 0);
    assert_int_equal(fmu_get_state(&f, &snapshot), 0);
    assert_ptr_equal(snapshot, first);
    assert_int_equal(fmu_step(&f, 0.5, 0.5), 0);
    assert_int_equal(fmu_set_state(&f, snapshot), 0);
    assert_true(fmu_real(&f, 0) == 0.5);
    assert_int_equal(fmu_free_state(&f, &snapshot), 0);
    fmu_close(&f);
}

static void corrupt_serialized_state_is_refused(void **state)
{
    const fmu_target *t = *state;
    fmu f, other;
    assert_true(fmu_open(&f, t));
    assert_true(fmu_start(&f));
    void *snapshot = NULL, *restored = NULL;
    unsigned char *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fmu_get_state(&f, &snapshot), 0);
    assert_int_equal(fmu_serialize(&f, snapshot, &bytes, &size), 0);

    assert_int_equal(fmu_deserialize(&f, bytes, size - 1, &restored), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "truncated"));
    assert_null(restored);
    for (size_t cut = 0; cut < size; cut += 7) /* every prefix fails cleanly */
        assert_int_equal(fmu_deserialize(&f, bytes, cut, &restored), fmi2Error);
    assert_null(restored);

    unsigned char *longer = calloc(size + 1, 1);
    assert_non_null(longer);
    memcpy(longer, bytes, size);
    assert_int_equal(fmu_deserialize(&f, longer, size + 1, &restored), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "trailing"));
    free(longer);

    bytes[0] ^= 0xff; /* magic */
    assert_int_equal(fmu_deserialize(&f, bytes, size, &restored), fmi2Error);
    bytes[0] ^= 0xff;
    assert_null(restored);

    /* A Dahlquist state does not restore into Faulty (another token). */
    assert_true(fmu_open(&other, t->version == 2 ? &FAULTY_fmi2 : &FAULTY_fmi3));
    assert_true(fmu_start(&other));
    fmu_log_clear();
    assert_int_equal(fmu_deserialize(&other, bytes, size, &restored), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "another model"));
    assert_null(restored);

    /* Any single corrupted byte is either refused or yields a usable state
     * (Dahlquist's data are doubles, so every bit pattern is a value). */
    for (size_t k = 0; k < size; k++) {
        bytes[k] ^= 0x5a;
        if (fmu_deserialize(&f, bytes, size, &restored) == 0) {
            assert_int_equal(fmu_set_state(&f, restored), 0);
            assert_int_equal(fmu_free_state(&f, &restored), 0);
            assert_int_equal(fmu_set_state(&f, snapshot), 0);
        }
        assert_null(restored);
        bytes[k] ^= 0x5a;
    }

    /* The original bytes still work. */
    assert_int_equal(fmu_deserialize(&f, bytes, size, &restored), 0);
    assert_int_equal(fmu_free_state(&f, &restored), 0);
    free(bytes);
    assert_int_equal(fmu_free_state(&f, &snapshot), 0);
    fmu_close(&other);
    fmu_close(&f);
}

static void strings_and_binaries_are_part_of_the_state(void **state)
{
    const fmu_target *t = *state;
    fmu f;
    assert_true(fmu_open(&f, t));
    assert_true(fmu_start(&f));
    char long_text[5000];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    const uint32_t string_in = 9, string_out = 10, binary_in = 27, binary_out = 28;
    const unsigned char blob[] = {0, 1, 0, 255, 0};
    assert_int_equal(fmu_set_string(&f, string_in, long_text), 0);
    if (t->version == 3) {
        const size_t blob_size = sizeof blob;
        const fmi3Binary blob_ptr = blob;
        assert_int_equal(f.f3.fmi3SetBinary(f.instance, &binary_in, 1, &blob_size, &blob_ptr, 1), 0);
    }
    assert_int_equal(fmu_step(&f, 0.0, 0.1), 0);
    void *snapshot = NULL, *restored = NULL;
    unsigned char *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fmu_get_state(&f, &snapshot), 0);
    assert_int_equal(fmu_serialize(&f, snapshot, &bytes, &size), 0);
    assert_int_equal(fmu_free_state(&f, &snapshot), 0);

    assert_int_equal(fmu_set_string(&f, string_in, "changed"), 0);
    if (t->version == 3) {
        const size_t empty_size = 0;
        const fmi3Binary empty = NULL;
        assert_int_equal(f.f3.fmi3SetBinary(f.instance, &binary_in, 1, &empty_size, &empty, 1), 0);
    }
    assert_int_equal(fmu_step(&f, 0.1, 0.1), 0);
    const char *text = NULL;
    assert_int_equal(fmu_get_string(&f, string_out, &text), 0);
    assert_string_equal(text, "changed");

    assert_int_equal(fmu_deserialize(&f, bytes, size, &restored), 0);
    assert_int_equal(fmu_set_state(&f, restored), 0);
    assert_int_equal(fmu_free_state(&f, &restored), 0); /* the instance holds its own copy */
    free(bytes);
    assert_int_equal(fmu_get_string(&f, string_out, &text), 0);
    assert_string_equal(text, long_text);
    if (t->version == 3) {
        size_t got_size = 0;
        fmi3Binary got = NULL;
        assert_int_equal(f.f3.fmi3GetBinary(f.instance, &binary_out, 1, &got_size, &got, 1), 0);
        assert_int_equal(got_size, sizeof blob);
        assert_memory_equal(got, blob, sizeof blob);
    }
    fmu_close(&f);
}

static void snapshot_recovers_from_a_failed_step(void **state)
{
    const fmu_target *t = *state;
    fmu f;
    assert_true(fmu_open(&f, t));
    assert_true(fmu_instantiate(&f));
    const uint32_t fail_time = 6;
    const double at = 0.5;
    assert_int_equal(f.version == 2 ? f.f2.fmi2SetReal(f.instance, &fail_time, 1, &at)
                                    : f.f3.fmi3SetFloat64(f.instance, &fail_time, 1, &at, 1),
                     0);
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(&f), 0);
    assert_int_equal(fmu_step(&f, 0.0, 0.5), 0);
    void *before = NULL;
    assert_int_equal(fmu_get_state(&f, &before), 0);
    assert_int_equal(fmu_step(&f, 0.5, 0.1), fmi2Error);
    assert_int_equal(fmu_step(&f, 0.5, 0.1), fmi2Error); /* error state */
    assert_int_equal(fmu_set_state(&f, before), 0);      /* back to Step Mode */
    const double later = 10.0;
    assert_int_equal(fmu_set_real(&f, fail_time, later), 0); /* tunable */
    assert_int_equal(fmu_step(&f, 0.5, 0.1), 0);
    assert_int_equal(fmu_free_state(&f, &before), 0);
    fmu_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restoring_a_snapshot_reproduces_steps_bit_for_bit),
        cmocka_unit_test(serialized_state_restores_into_another_instance),
        BOTH_VERSIONS(get_state_overwrites_the_given_snapshot, DAHLQUIST),
        BOTH_VERSIONS(corrupt_serialized_state_is_refused, DAHLQUIST),
        BOTH_VERSIONS(strings_and_binaries_are_part_of_the_state, FEEDTHROUGH),
        BOTH_VERSIONS(snapshot_recovers_from_a_failed_step, FAULTY),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
