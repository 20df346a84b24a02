/* Rollback table: states saved through caller callbacks come back on
 * restore, the ring wraps around without losing records, a full table refuses
 * more steps, and fossil collection commits exactly the records below the
 * global virtual time, oldest first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/speculate.h"

typedef struct lp {
    int64_t state;         /* the LP's whole state */
    uint64_t committed[16];
    size_t committed_count;
} lp;

static rtcosim_status save(void *user, void *buffer, size_t size, rtcosim_error *err)
{
    (void)err;
    assert_int_equal(size, sizeof(int64_t));
    memcpy(buffer, &((lp *)user)->state, size);
    return RTCOSIM_OK;
}

static rtcosim_status restore(void *user, const void *buffer, size_t size, rtcosim_error *err)
{
    (void)err;
    memcpy(&((lp *)user)->state, buffer, size);
    return RTCOSIM_OK;
}

static void commit(void *user, const rtcosim_rollback_record *r)
{
    lp *l = user;
    assert_true(r->has_outputs);
    assert_true(r->outputs[0] == (double)r->step * 100);
    l->committed[l->committed_count++] = r->step;
}

/* One step of the LP: state += input; output = step * 100. */
static void run_step(rtcosim_rollback_table *t, lp *l, uint64_t step)
{
    rtcosim_error err;
    const double in[2] = {(double)step, -(double)step};
    const rtcosim_time_ns times[1] = {(rtcosim_time_ns)step * 10 + 1};
    assert_int_equal(rtcosim_rollback_push(t, step, (rtcosim_time_ns)step * 10, in, times, &err),
                     RTCOSIM_OK);
    l->state += (int64_t)step;
    const double out = (double)step * 100;
    assert_int_equal(rtcosim_rollback_set_outputs(t, step, &out, &err), RTCOSIM_OK);
}

static void ring_wraps_restores_and_collects_fossils(void **state)
{
    (void)state;
    lp l = {0};
    rtcosim_rollback_config c = {.capacity = 4, .input_count = 2, .input_time_count = 1,
                                 .output_count = 1, .save = save, .restore = restore,
                                 .state_size = sizeof(int64_t), .user = &l, .commit = commit};
    rtcosim_rollback_table *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_rollback_create(&c, &t, &err), RTCOSIM_OK);
    for (uint64_t s = 0; s < 4; s++)
        run_step(t, &l, s); /* state 0+1+2+3 = 6 */
    assert_int_equal(l.state, 6);
    const double in[2] = {0, 0};
    const rtcosim_time_ns tm[1] = {0};
    assert_int_equal(rtcosim_rollback_push(t, 4, 40, in, tm, &err), RTCOSIM_ESTATE);

    /* GVT 25: records 0 (next starts at 10) and 1 (next at 20) are fossils;
     * record 2 stays, it is the newest starting at or before 25. */
    assert_int_equal(rtcosim_rollback_collect(t, 25), 2);
    assert_int_equal(l.committed_count, 2);
    assert_int_equal(l.committed[0], 0);
    assert_int_equal(l.committed[1], 1);
    uint64_t first, last;
    assert_true(rtcosim_rollback_first(t, &first) && first == 2);

    /* Wrap around: steps 4 and 5 take the freed slots. */
    run_step(t, &l, 4);
    run_step(t, &l, 5); /* state 6+4+5 = 15 */
    assert_true(rtcosim_rollback_last(t, &last) && last == 5);
    assert_int_equal(rtcosim_rollback_count(t), 4);
    const rtcosim_rollback_record *r = rtcosim_rollback_get(t, 5);
    assert_non_null(r);
    assert_true(r->inputs[0] == 5 && r->inputs[1] == -5 && r->input_times[0] == 51);
    assert_true(r->time == 50);
    assert_null(rtcosim_rollback_get(t, 1));
    assert_int_equal(rtcosim_rollback_push(t, 6, 60, in, tm, &err), RTCOSIM_ESTATE);

    /* Roll back to the start of step 3: state before it was 0+1+2 = 3. */
    assert_int_equal(rtcosim_rollback_restore(t, 3, &err), RTCOSIM_OK);
    assert_int_equal(l.state, 3);
    assert_int_equal(rtcosim_rollback_count(t), 1);
    assert_null(rtcosim_rollback_get(t, 4));
    assert_int_equal(rtcosim_rollback_push(t, 7, 70, in, tm, &err), RTCOSIM_EINVAL);
    /* Re-executing step 3 reproduces the state it had. */
    run_step(t, &l, 3);
    assert_int_equal(l.state, 6);
    assert_int_equal(rtcosim_rollback_restore(t, 1, &err), RTCOSIM_ENOTFOUND);

    assert_int_equal(rtcosim_rollback_commit_before(t, 4), 2);
    assert_int_equal(l.committed_count, 4);
    assert_int_equal(l.committed[2], 2);
    assert_int_equal(l.committed[3], 3);
    assert_int_equal(rtcosim_rollback_count(t), 0);
    rtcosim_rollback_free(t);
}

static void bad_configs_are_refused(void **state)
{
    (void)state;
    rtcosim_rollback_table *t = NULL;
    rtcosim_error err;
    rtcosim_rollback_config c = {.capacity = 0};
    assert_int_equal(rtcosim_rollback_create(&c, &t, &err), RTCOSIM_EINVAL);
    c = (rtcosim_rollback_config){.capacity = 2, .save = save};
    assert_int_equal(rtcosim_rollback_create(&c, &t, &err), RTCOSIM_EINVAL);
    assert_null(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_wraps_restores_and_collects_fossils),
        cmocka_unit_test(bad_configs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
