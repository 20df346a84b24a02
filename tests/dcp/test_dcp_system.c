/* `--dcp COMPONENT=HOST:PORT` through the library: the two-mass oscillator
 * (examples/oscillator) with mass1 served by a DCP slave on loopback gives
 * bit-identical observed values to the same system run locally over 1000
 * macro steps. mass1 has no direct feedthrough; a remote component's outputs
 * are those of its last step (DCP has no output evaluation without a step). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "rtcosim/system.h"
#include "session.h"

#define STEPS 1000
#define SSD RTCOSIM_SOURCE_DIR "/examples/oscillator/oscillator.ssd"

typedef struct trace {
    double values[STEPS + 1][8];
    size_t rows, cols;
} trace;

static rtcosim_status record(void *ctx, rtcosim_time_ns t, const double *values, size_t count,
                             rtcosim_error *err)
{
    (void)t, (void)err;
    trace *tr = ctx;
    assert_true(count <= 8 && tr->rows <= STEPS);
    memcpy(tr->values[tr->rows++], values, count * sizeof *values);
    tr->cols = count;
    return RTCOSIM_OK;
}

/* Run the system at `ssd`; its error in *err (RTCOSIM_OK: ran). */
static rtcosim_status try_system(const char *ssd, rtcosim_dcp_bindings *bindings, trace *tr,
                                 rtcosim_error *err)
{
    rtcosim_system_desc *desc = NULL;
    rtcosim_status st = rtcosim_system_desc_load(ssd, &desc, err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_system_build_options opts = {0};
    if (bindings) {
        opts.wrap = rtcosim_dcp_bindings_wrap;
        opts.wrap_context = bindings;
    }
    rtcosim_master *m = NULL;
    rtcosim_time_ns stop = STEPS * RTCOSIM_NS_PER_MS;
    if ((st = rtcosim_system_build_master(desc, &opts, &m, err)) == RTCOSIM_OK &&
        (st = rtcosim_master_initialize(m, 0, stop, err)) == RTCOSIM_OK)
        st = rtcosim_master_run(m, stop, record, tr, err);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(desc);
    return st;
}

static void run_system(rtcosim_dcp_bindings *bindings, trace *tr)
{
    rtcosim_system_desc *desc = NULL;
    rtcosim_error err = {0};
    if (rtcosim_system_desc_load(SSD, &desc, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_system_build_options opts = {0};
    if (bindings) {
        opts.wrap = rtcosim_dcp_bindings_wrap;
        opts.wrap_context = bindings;
    }
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(desc, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_dcp_bindings_check_used(bindings, &err), RTCOSIM_OK);
    rtcosim_time_ns stop = STEPS * RTCOSIM_NS_PER_MS;
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, stop, record, tr, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(desc);
}

static rtcosim_status mass1(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create("rtcosim:oscillator.mass1", out, err);
}

static void test_remote_component_in_system(void **state)
{
    (void)state;
    static trace local, remote;
    run_system(NULL, &local);

    served s;
    start_slave_with(&s, mass1, 0);
    char spec[64];
    snprintf(spec, sizeof spec, "mass1=127.0.0.1:%u", (unsigned)rtcosim_dcp_slave_port(s.slave));
    rtcosim_dcp_bindings *b = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_bindings_add(&b, spec, &err), RTCOSIM_OK);
    run_system(b, &remote);
    rtcosim_dcp_bindings_free(b);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 1);
    stop_slave(&s);

    assert_int_equal(local.rows, STEPS + 1);
    assert_int_equal(remote.rows, local.rows);
    assert_int_equal(remote.cols, local.cols);
    assert_memory_equal(remote.values, local.values, sizeof local.values);
    assert_true(local.values[STEPS][0] != local.values[0][0]); /* mass1.x moved */

    b = NULL;
    assert_int_equal(rtcosim_dcp_bindings_add(&b, "mass1=127.0.0.1", &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_dcp_bindings_add(&b, "nope=127.0.0.1:9", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_dcp_bindings_check_used(b, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "'nope'"));
    rtcosim_dcp_bindings_free(b);
}

/* Replace the first `from` in text (of capacity cap) by `to`. */
static void replace(char *text, size_t cap, const char *from, const char *to)
{
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t tail = strlen(at + strlen(from));
    assert_true(strlen(text) - strlen(from) + strlen(to) < cap);
    memmove(at + strlen(to), at + strlen(from), tail + 1);
    memcpy(at, to, strlen(to));
}

/* The oscillator with mass1's source a .dcpx (and the parameter set by
 * absolute path), written into dir/osc.ssd. */
static void write_ssd(const char *dir, const char *dcpx, char *ssd_path, size_t cap)
{
    static char text[16384];
    FILE *f = fopen(SSD, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char src[600];
    snprintf(src, sizeof src, "source=\"%s\"", dcpx);
    replace(text, sizeof text, "source=\"rtcosim:oscillator.mass1\"", src);
    replace(text, sizeof text, "source=\"case1.ssv\"",
            "source=\"" RTCOSIM_SOURCE_DIR "/examples/oscillator/case1.ssv\"");
    snprintf(ssd_path, cap, "%s/osc.ssd", dir);
    f = fopen(ssd_path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_dcpx_as_component_source(void **state)
{
    (void)state;
    static trace local, remote, bound;
    run_system(NULL, &local);
    char dir[] = "/tmp/rtcosim-dcpx-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char dcpx[300], bare[300], ssd[400], ssd_bare[400];
    snprintf(dcpx, sizeof dcpx, "%s/mass1.dcpx", dir);
    snprintf(bare, sizeof bare, "%s/bare.dcpx", dir);

    served s;
    start_slave_with(&s, mass1, 0);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_dcp_slave_write_dcpx(s.slave, dcpx, &err), RTCOSIM_OK);
    write_ssd(dir, dcpx, ssd, sizeof ssd);
    assert_int_equal(try_system(ssd, NULL, &remote, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 1);
    assert_int_equal(remote.rows, local.rows);
    assert_memory_equal(remote.values, local.values, sizeof local.values);

    /* A DCPX naming no address: the run says to bind it, and --dcp does. */
    rtcosim_component *probe = NULL;
    assert_int_equal(mass1(NULL, &probe, &err), RTCOSIM_OK);
    /* Another slave's name: another uuid, which this slave refuses. */
    assert_int_equal(rtcosim_dcpx_write(rtcosim_component_description(probe), "mass1", NULL, 0,
                                        NULL, 0, RTCOSIM_NS_PER_S, true, bare, &err), RTCOSIM_OK);
    char dir3[] = "/tmp/rtcosim-dcpx-XXXXXX", ssd_other[400];
    assert_non_null(mkdtemp(dir3));
    write_ssd(dir3, bare, ssd_other, sizeof ssd_other);
    char other_spec[64];
    snprintf(other_spec, sizeof other_spec, "mass1=127.0.0.1:%u", (unsigned)rtcosim_dcp_slave_port(s.slave));
    rtcosim_dcp_bindings *ob = NULL;
    assert_int_equal(rtcosim_dcp_bindings_add(&ob, other_spec, &err), RTCOSIM_OK);
    assert_int_not_equal(try_system(ssd_other, ob, &bound, &err), RTCOSIM_OK);
    assert_non_null(strstr(err.message, "refused STC_register: INVALID_UUID (0x2011)"));
    rtcosim_dcp_bindings_free(ob);
    assert_int_equal(unlink(ssd_other), 0);
    assert_int_equal(rmdir(dir3), 0);
    /* This slave's own description without an address. */
    assert_int_equal(rtcosim_dcpx_write(rtcosim_component_description(probe),
                                        rtcosim_component_model_name(probe), NULL, 0, NULL, 0,
                                        RTCOSIM_NS_PER_S, true, bare, &err), RTCOSIM_OK);
    rtcosim_component_free(probe);
    char dir2[] = "/tmp/rtcosim-dcpx-XXXXXX";
    assert_non_null(mkdtemp(dir2));
    write_ssd(dir2, bare, ssd_bare, sizeof ssd_bare);
    assert_int_not_equal(try_system(ssd_bare, NULL, &bound, &err), RTCOSIM_OK);
    assert_non_null(strstr(err.message, "bind it with --dcp mass1=HOST:PORT"));
    char spec[64];
    snprintf(spec, sizeof spec, "mass1=127.0.0.1:%u", (unsigned)rtcosim_dcp_slave_port(s.slave));
    rtcosim_dcp_bindings *b = NULL;
    assert_int_equal(rtcosim_dcp_bindings_add(&b, spec, &err), RTCOSIM_OK);
    memset(&bound, 0, sizeof bound);
    assert_int_equal(try_system(ssd_bare, b, &bound, &err), RTCOSIM_OK);
    rtcosim_dcp_bindings_free(b);
    assert_memory_equal(bound.values, local.values, sizeof local.values);
    stop_slave(&s);

    assert_int_equal(unlink(ssd), 0);
    assert_int_equal(unlink(dcpx), 0);
    assert_int_equal(unlink(bare), 0);
    assert_int_equal(unlink(ssd_bare), 0);
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(rmdir(dir2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_remote_component_in_system),
                                       cmocka_unit_test(test_dcpx_as_component_source)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
