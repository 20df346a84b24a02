/* rt-check's reading of the kernel's files, from fixtures written into a
 * temporary directory: a PREEMPT_RT rig with isolated CPUs and throttling
 * off, a stock VM without cpufreq or SMT files, and malformed contents (which
 * must read as unknown, not as a fact). Expected values are the fixtures'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rt_probe.h"

typedef struct rig {
    char dir[64];
    char path[8][256];
    rt_probe_paths paths;
} rig;

static const char *put(rig *r, int slot, const char *name, const char *content)
{
    snprintf(r->path[slot], sizeof r->path[slot], "%s/%s", r->dir, name);
    if (content) {
        FILE *f = fopen(r->path[slot], "w");
        assert_non_null(f);
        fputs(content, f);
        fclose(f);
    }
    return r->path[slot];
}

static void rig_make(rig *r)
{
    memset(r, 0, sizeof *r);
    strcpy(r->dir, "/tmp/rtcosim-test-probe-XXXXXX");
    assert_non_null(mkdtemp(r->dir));
}

static void rig_remove(rig *r)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
    assert_int_equal(system(cmd), 0);
}

static void cpu_lists_are_counted_and_searched(void **state)
{
    (void)state;
    bool in;
    assert_int_equal(rt_probe_cpulist_count("\n", 1, &in), 0);
    assert_false(in);
    assert_int_equal(rt_probe_cpulist_count("", -1, NULL), 0);
    assert_int_equal(rt_probe_cpulist_count("2-3,6\n", 3, &in), 3);
    assert_true(in);
    assert_int_equal(rt_probe_cpulist_count("2-3,6", 4, &in), 3);
    assert_false(in);
    assert_int_equal(rt_probe_cpulist_count("0-15,32-47", 40, &in), 32);
    assert_true(in);
    assert_int_equal(rt_probe_cpulist_count("3-1", 0, NULL), -1);
    assert_int_equal(rt_probe_cpulist_count("1,,2", 0, NULL), -1);
    assert_int_equal(rt_probe_cpulist_count("1-", 0, NULL), -1);
    assert_int_equal(rt_probe_cpulist_count("cpu1", 0, NULL), -1);
}

static void a_tuned_preempt_rt_rig_reads_as_such(void **state)
{
    (void)state;
    rig r;
    rig_make(&r);
    r.paths.realtime = put(&r, 0, "realtime", "1\n");
    r.paths.isolated = put(&r, 1, "isolated", "2-3\n");
    r.paths.rt_runtime = put(&r, 2, "rt_runtime", "-1\n");
    r.paths.rt_period = put(&r, 3, "rt_period", "1000000\n");
    r.paths.cpu_dir = r.dir;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/cpu3", r.dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/cpu3/cpufreq", r.dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    put(&r, 4, "cpu3/cpufreq/scaling_governor", "performance\n");
    r.paths.smt_active = put(&r, 5, "smt_active", "0\n");
    r.paths.timerslack = put(&r, 6, "timerslack", "1\n");
    rt_probe_facts f;
    rt_probe_read(&r.paths, "#1 SMP PREEMPT_DYNAMIC", 3, &f);
    assert_true(f.preempt_rt); /* from /sys/kernel/realtime */
    assert_int_equal(f.isolated_count, 2);
    assert_string_equal(f.isolated, "2-3");
    assert_true(f.cpu_isolated);
    assert_int_equal(f.rt_runtime_us, -1);
    assert_int_equal(f.rt_period_us, 1000000);
    assert_string_equal(f.governor, "performance");
    assert_int_equal(f.smt_active, 0);
    assert_int_equal(f.timerslack_ns, 1);
    rt_probe_read(&r.paths, NULL, 1, &f); /* CPU 1: not isolated, no cpufreq */
    assert_false(f.cpu_isolated);
    assert_string_equal(f.governor, "");
    rig_remove(&r);
}

static void a_stock_vm_and_broken_files_read_as_unknown(void **state)
{
    (void)state;
    rig r;
    rig_make(&r);
    r.paths.realtime = put(&r, 0, "missing-realtime", NULL);
    r.paths.isolated = put(&r, 1, "isolated", "\n");
    r.paths.rt_runtime = put(&r, 2, "rt_runtime", "950000\n");
    r.paths.rt_period = put(&r, 3, "rt_period", "1000000 junk\n");
    r.paths.cpu_dir = r.dir;
    r.paths.smt_active = put(&r, 5, "smt_active", "2\n");
    r.paths.timerslack = put(&r, 6, "timerslack", "-5\n");
    rt_probe_facts f;
    rt_probe_read(&r.paths, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0", 0, &f);
    assert_false(f.preempt_rt);
    assert_int_equal(f.isolated_count, 0);
    assert_string_equal(f.isolated, "");
    assert_int_equal(f.rt_runtime_us, 950000);
    assert_int_equal(f.rt_period_us, -2); /* malformed: unknown */
    assert_string_equal(f.governor, "");
    assert_int_equal(f.smt_active, -1);
    assert_int_equal(f.timerslack_ns, -1);
    /* an RT kernel without /sys/kernel/realtime says so in its version */
    rt_probe_read(&r.paths, "#1 SMP PREEMPT_RT Debian 6.1.0", 0, &f);
    assert_true(f.preempt_rt);
    r.paths.isolated = put(&r, 1, "isolated", "1-x\n");
    rt_probe_read(&r.paths, NULL, 0, &f);
    assert_int_equal(f.isolated_count, -1);
    rig_remove(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_lists_are_counted_and_searched),
        cmocka_unit_test(a_tuned_preempt_rt_rig_reads_as_such),
        cmocka_unit_test(a_stock_vm_and_broken_files_read_as_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
