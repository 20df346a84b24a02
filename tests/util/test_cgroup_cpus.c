/* util/cgroup_cpus: a cgroup's CPU quota read from a tree laid out as the
 * kernel's (cgroup v2's cpu.max, v1's cpu.cfs_quota_us and cpu.cfs_period_us,
 * formats of Documentation/admin-guide/cgroup-v2.rst and cgroup-v1/), the
 * smallest along the process's cgroup and its ancestors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "util/cgroup_cpus.h"
#include "util/test_util.h"

static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void v2_takes_the_smallest_quota_along_the_path(void **state)
{
    const char *root = *state;
    put(root, "cpu.max", "max 100000\n");
    put(root, "a/cpu.max", "150000 100000\n");
    put(root, "a/b/cpu.max", "max 100000\n");
    assert_true(util_cgroup_cpus_in("0::/a/b\n", root) == 1.5);
    put(root, "a/b/cpu.max", "50000 100000\n");
    assert_true(util_cgroup_cpus_in("0::/a/b\n", root) == 0.5);
    /* the namespace's root is the container's own cgroup: "0::/" */
    put(root, "cpu.max", "100000 100000\n");
    assert_true(util_cgroup_cpus_in("0::/\n", root) == 1.0);
}

static void v1_reads_the_cpu_controllers_mount(void **state)
{
    const char *root = *state;
    put(root, "cpu,cpuacct/docker/x/cpu.cfs_quota_us", "250000\n");
    put(root, "cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
    put(root, "cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put(root, "cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    const char *proc = "12:pids:/docker/x\n4:cpu,cpuacct:/docker/x\n1:name=systemd:/docker/x\n"
                       "0::/docker/x\n";
    assert_true(util_cgroup_cpus_in(proc, root) == 2.5);
    /* mounted as cpu alone */
    put(root, "cpu/y/cpu.cfs_quota_us", "50000\n");
    put(root, "cpu/y/cpu.cfs_period_us", "100000\n");
    assert_true(util_cgroup_cpus_in("3:cpu:/y\n", root) == 0.5);
    /* cpuacct or cpuset alone is not the cpu controller */
    assert_true(util_cgroup_cpus_in("3:cpuacct:/y\n5:cpuset:/y\n", root) == 0);
}

static void no_limit_or_nothing_readable_is_zero(void **state)
{
    const char *root = *state;
    assert_true(util_cgroup_cpus_in("0::/none\n", root) == 0);
    put(root, "u/cpu.max", "max 100000\n");
    assert_true(util_cgroup_cpus_in("0::/u\n", root) == 0);
    put(root, "v/cpu.max", "garbage\n");
    assert_true(util_cgroup_cpus_in("0::/v\n", root) == 0);
    assert_true(util_cgroup_cpus_in("", root) == 0);
    assert_true(util_cgroup_cpus_in("no colons at all\n::\n0:\n", root) == 0);
    /* this process: whatever the machine says, never negative */
    assert_true(util_cgroup_cpus() >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(v2_takes_the_smallest_quota_along_the_path,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(v1_reads_the_cpu_controllers_mount, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(no_limit_or_nothing_readable_is_zero, tu_scratch_setup,
                                        tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
