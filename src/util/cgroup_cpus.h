/* The CPU time a process's cgroup allows, in CPUs: a container started with
 * `--cpus=1` on a 2-CPU machine keeps both in its affinity mask, and a
 * second busy thread there only takes the first one's time. Internal to the
 * library. */
#ifndef RTCOSIM_UTIL_CGROUP_CPUS_H
#define RTCOSIM_UTIL_CGROUP_CPUS_H

#pragma GCC visibility push(hidden)

/* The smallest quota / period along the cgroup of `proc_cgroup` (the text of
 * /proc/self/cgroup) and its ancestors under `root` (/sys/fs/cgroup): cgroup
 * v2's cpu.max ("max 100000" or "150000 100000"), v1's cpu.cfs_quota_us and
 * cpu.cfs_period_us (-1: no limit) under the cpu controller's mount; 0 when
 * nothing limits it or nothing can be read. */
double util_cgroup_cpus_in(const char *proc_cgroup, const char *root);
/* The same for this process. */
double util_cgroup_cpus(void);

#pragma GCC visibility pop

#endif
