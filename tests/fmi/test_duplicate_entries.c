/* An FMU archive that lists entries twice, as the Reference FMUs' Roberts
 * lists its extra/ folder: the project's Dahlquist FMU (FMI 2.0 and 3.0)
 * repacked at test time with identical copies of extra/ and of
 * modelDescription.xml must load and run to the FMU's closed-form explicit
 * Euler result x(1) = (1 - k 1e-4)^10000 (k = 1); with a second, different
 * modelDescription.xml it must be refused naming the entry. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/simulate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

typedef struct built {
    const char *dir, *binary;
} built;

static const built fmus[] = {
    {RTCOSIM_FMU_DAHLQUIST_FMI2_DIR, RTCOSIM_FMU_DAHLQUIST_FMI2_BINARY},
    {RTCOSIM_FMU_DAHLQUIST_FMI3_DIR, RTCOSIM_FMU_DAHLQUIST_FMI3_BINARY},
};

/* Zip the unpacked FMU with the entries listed in `extra` appended. */
static void repack(const built *b, const char *zip, const tu_entry *extra, size_t n)
{
    char md[4096];
    snprintf(md, sizeof md, "%s/modelDescription.xml", b->dir);
    tu_entry e[8] = {{.name = "modelDescription.xml", .file = md},
                     {.name = b->binary + strlen(b->dir) + 1, .file = b->binary}};
    assert_true(n <= 6);
    memcpy(e + 2, extra, n * sizeof *extra);
    tu_zip_raw(zip, e, n + 2);
}

static void identical_duplicates_load_and_run(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        char *dir = tu_make_dir();
        char zip[4096], md[4096];
        snprintf(zip, sizeof zip, "%s/Dahlquist.fmu", dir);
        snprintf(md, sizeof md, "%s/modelDescription.xml", fmus[i].dir);
        tu_entry extra[] = {{.name = "extra/", .text = ""},
                            {.name = "extra/readme.txt", .text = "notes\n"},
                            {.name = "extra/", .text = ""},
                            {.name = "extra/readme.txt", .text = "notes\n"},
                            {.name = "modelDescription.xml", .file = md}};
        repack(&fmus[i], zip, extra, 5);
        rtcosim_fmu_options opts = {.temp_dir = dir};
        rtcosim_component *c;
        rtcosim_error err;
        if (rtcosim_fmu_load(zip, &opts, &c, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        rtcosim_value final;
        rtcosim_simulate_result res = {.final_values = &final, .final_capacity = 1};
        rtcosim_simulate_options o = {.stop_time = RTCOSIM_NS_PER_S,
                                      .output_interval = RTCOSIM_NS_PER_S / 10};
        assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_OK);
        double euler = pow(1 - 1e-4, 10000);
        assert_true(fabs(final.f64 - euler) <= 1e-12 * euler);
        rtcosim_component_free(c);
        assert_int_equal(tu_count_entries(dir), 1); /* only the archive is left */
        tu_drop_dir(dir);
    }
}

static void conflicting_duplicate_is_refused(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char zip[4096];
    snprintf(zip, sizeof zip, "%s/Dahlquist.fmu", dir);
    tu_entry extra[] = {{.name = "modelDescription.xml", .text = "<fmiModelDescription/>"}};
    repack(&fmus[1], zip, extra, 1);
    rtcosim_fmu_options opts = {.temp_dir = dir};
    rtcosim_component *c;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(zip, &opts, &c, &err), RTCOSIM_EFORMAT);
    if (!strstr(err.message, "Dahlquist.fmu: entry 'modelDescription.xml' appears twice with different contents"))
        fail_msg("%s", err.message);
    assert_int_equal(tu_count_entries(dir), 1);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_duplicates_load_and_run),
        cmocka_unit_test(conflicting_duplicate_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
